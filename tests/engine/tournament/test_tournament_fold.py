"""The fold of a tournament's facts (engine/tournament/state.py): what it refuses, and what a
withdrawal, a forfeit and an adjustment do."""

from __future__ import annotations

import pytest
from tournament_runs import field

from engine.errors import TournamentError
from engine.tournament import (
    MAX_FIELD,
    MAX_ROUND_ROBIN,
    Adjusted,
    Entered,
    Fact,
    Format,
    Pairing,
    Result,
    RoundPaired,
    Tournament,
    TournamentSpec,
    Withdrew,
    audit,
    next_round,
    standings,
)

SWISS = TournamentSpec(Format.SWISS, rounds=3)


def _started(n: int = 4) -> Tournament:
    state = Tournament.fold(SWISS, field(n))
    return state.apply(next_round(state))  # p1 v p3, p2 v p4


@pytest.mark.parametrize(
    ("facts", "message"),
    [
        ([Entered("p1")], "already entered"),
        ([Entered("", 1500)], "non-empty string"),
        ([Entered("x", float("nan"))], "finite number"),
        ([Entered("x", True)], "finite number"),
        ([Entered("x", "1500")], "finite number"),  # type: ignore[arg-type]
        ([Withdrew("nobody")], "has not entered"),
        ([Withdrew("p1"), Withdrew("p1")], "already withdrawn"),
        ([RoundPaired(2, (Pairing("p1", "p2"),))], "round 1 is next"),
        ([RoundPaired(1, ())], "no boards"),
        ([RoundPaired(1, (Pairing("p1", "p2"), Pairing("p2", "p3")))], "paired twice"),
        ([RoundPaired(1, (Pairing("p1", "zed"),))], "not in the field"),
        ([RoundPaired(1, ("p1",))], "not a pairing"),  # type: ignore[arg-type]
        ([Result(1, 1, "p1")], "no round 1"),
        (["entered"], "not a tournament fact"),
    ],
)
def test_a_fact_the_rules_refuse(facts: list[Fact], message: str) -> None:
    state = Tournament.fold(SWISS, field(4))
    with pytest.raises(TournamentError, match=message):
        Tournament.fold(SWISS, [*state_facts(state), *facts])


def state_facts(state: Tournament) -> list[Fact]:
    return [Entered(e.player, e.rating) for e in state.entrants]


@pytest.mark.parametrize(
    ("fact", "message"),
    [
        (Entered("late"), "first round has been paired"),
        (RoundPaired(2, (Pairing("p1", "p2"),)), "round 1 is on"),
        (Result(1, 3, "p1"), "no board 3"),
        (Result(1, 1, "p2"), "'p2' is not playing on it"),
        (Result(1, 1, None), "both players forfeit"),
        (Result(1, 1, "p1", forfeit="yes"), "true or false"),  # type: ignore[arg-type]
        (Adjusted(1, 1, "p3", "appeal"), "nothing to adjust"),
    ],
)
def test_a_fact_refused_once_the_tournament_is_on(fact: Fact, message: str) -> None:
    with pytest.raises(TournamentError, match=message):
        _started().apply(fact)


def test_a_decided_board_takes_no_second_result_and_an_adjustment_needs_a_reason() -> None:
    state = _started().apply(Result(1, 1, "p1"))
    with pytest.raises(TournamentError, match="already decided"):
        state.apply(Result(1, 1, "p3"))
    with pytest.raises(TournamentError, match="needs a reason"):
        state.apply(Adjusted(1, 1, "p3", "  "))
    adjusted = state.apply(Adjusted(1, 1, "p3", "p1 played on after a disconnection"))
    assert adjusted.board(1, 1).winner == "p3"
    assert standings(adjusted)[0].player == "p3"


def test_a_bye_has_no_result() -> None:
    state = Tournament.fold(SWISS, field(3))
    state = state.apply(next_round(state))
    assert str(state.rounds[0].boards[-1].pairing) == "p3 bye"
    with pytest.raises(TournamentError, match="bye"):
        state.apply(Result(1, 2, "p3"))


def test_a_double_forfeit_gives_nobody_a_point() -> None:
    state = _started().apply(Result(1, 1, None, forfeit=True)).apply(Result(1, 2, "p2"))
    points = {s.player: s.points for s in standings(state)}
    assert points == {"p1": 0, "p2": 1, "p3": 0, "p4": 0}


@pytest.mark.parametrize(
    ("spec", "most"),
    [(SWISS, MAX_FIELD), (TournamentSpec(Format.ROUND_ROBIN), MAX_ROUND_ROBIN)],
)
def test_the_field_is_limited(spec: TournamentSpec, most: int) -> None:
    state = Tournament.fold(spec, [Entered(f"x{i}") for i in range(most)])
    with pytest.raises(TournamentError, match=f"at most {most} players"):
        state.apply(Entered("one too many"))
    # a withdrawal before the start makes room
    assert len(state.apply(Withdrew("x0")).apply(Entered("y")).field) == most


def test_the_first_round_needs_two_players() -> None:
    state = Tournament.fold(SWISS, [Entered("alone")])
    with pytest.raises(TournamentError, match="too few"):
        next_round(state)
    with pytest.raises(TournamentError, match="at least 2 players"):
        state.apply(RoundPaired(1, (Pairing("alone"),)))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"format": Format.SWISS}, "1 to 20 rounds"),
        ({"format": Format.SWISS, "rounds": 21}, "1 to 20 rounds"),
        ({"format": Format.SWISS, "rounds": True}, "1 to 20 rounds"),
        ({"format": Format.KNOCKOUT, "rounds": 3}, "takes no number of rounds"),
        ({"format": Format.SWISS, "rounds": 3, "third_place": True}, "third-place"),
        ({"format": "arena"}, "knockout, swiss or round_robin"),
    ],
)
def test_a_spec_the_rules_refuse(kwargs: dict, message: str) -> None:
    with pytest.raises(TournamentError, match=message):
        TournamentSpec(**kwargs)


def test_entries_withdrawn_before_the_start_are_not_in_the_field_and_seeding_is_total() -> None:
    facts: list[Fact] = [Entered("b", 1500), Entered("a", 1500), Entered("c", 1600)]
    state = Tournament.fold(SWISS, [*facts, Withdrew("b")])
    assert state.field == ("c", "a")
    # equal ratings: the earlier entry is seeded higher, whatever the ids
    assert Tournament.fold(SWISS, facts).field == ("c", "b", "a")


def test_the_audit_names_a_round_paired_by_something_else() -> None:
    state = Tournament.fold(SWISS, field(4))
    facts: list[Fact] = [*field(4), RoundPaired(1, (Pairing("p1", "p2"), Pairing("p3", "p4")))]
    assert audit(SWISS, facts) == (1,)
    assert audit(SWISS, [*field(4), next_round(state)]) == ()
