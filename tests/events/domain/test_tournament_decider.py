"""The tournament decider (:mod:`events.domain.tournament`), pure: what each command records,
what it refuses, and what the tournament records by itself in the same batch."""

from __future__ import annotations

import pytest

from engine.errors import TournamentError
from events.domain import commands as c
from events.domain import types as e
from events.domain.table import InvalidCommandError, NotAllowedError
from events.domain.tournament import (
    SERVER,
    TournamentNotFoundError,
    TournamentState,
    audit_events,
    decide,
    fold,
    match_table_id,
)


def _new(**options: object) -> tuple[TournamentState, list[e.Event]]:
    opts = e.TournamentOptions(**options)  # type: ignore[arg-type]
    events = decide(TournamentState("t"), "dir", c.CreateTournament(options=opts), 1)
    return fold(events), events


def _run(
    state: TournamentState, log: list[e.Event], actor: str, command: c.TournamentCommand
) -> tuple[TournamentState, list[e.Event]]:
    events = decide(state, actor, command, 10)
    log.extend(events)
    return fold(events, state), events


def test_a_knockout_with_walkovers_pairs_on_in_the_same_batch() -> None:
    s, log = _new(format="knockout", match_length=1)
    for i, p in enumerate("abcd"):
        s, _ = _run(s, log, p, c.EnterTournament(rating=2000 - i))
    s, paired = _run(s, log, "dir", c.StartTournament())
    assert isinstance(paired[0], e.TournamentRoundPaired)
    assert [(b.a, b.b) for b in paired[0].boards] == [("a", "d"), ("b", "c")]
    assert [b.table_id for b in paired[0].boards] == [
        match_table_id("t", 1, 1),
        match_table_id("t", 1, 2),
    ]
    # d withdraws: board 1 is a walkover for a, no result needed.
    s, _ = _run(s, log, "d", c.WithdrawTournament())
    assert s.t.rounds[0].boards[0].winner == "a"
    # The last result of round 1 pairs the final in its batch.
    s, batch = _run(s, log, SERVER, c.RecordResult(round=1, board=2, winner="c"))
    assert [e.tag(x) for x in batch] == ["tournament_result", "tournament_round_paired"]
    final = batch[1]
    assert isinstance(final, e.TournamentRoundPaired)
    assert [(b.a, b.b) for b in final.boards] == [("a", "c")]
    # c withdraws from the final: a walkover that ends the tournament, in the same batch.
    s, batch = _run(s, log, "c", c.WithdrawTournament())
    assert [e.tag(x) for x in batch] == ["tournament_withdrew", "tournament_finished"]
    assert s.finished and s.winner == "a"
    assert audit_events(log) == ()
    # A finished tournament's results are final.
    with pytest.raises(TournamentError, match="over"):
        decide(
            s,
            "dir",
            c.AdjustResult(round=2, board=1, winner="c", reason="appeal"),
            11,
        )


def test_a_round_paired_with_a_withdrawn_player_names_no_table() -> None:
    s, log = _new(format="round_robin", match_length=1)
    for p in "abcd":
        s, _ = _run(s, log, p, c.EnterTournament())
    s, _ = _run(s, log, "dir", c.StartTournament())
    s, _ = _run(s, log, "b", c.WithdrawTournament())
    for board in s.t.rounds[0].boards:
        if not board.decided:
            s, _ = _run(
                s,
                log,
                SERVER,
                c.RecordResult(round=1, board=board.number, winner=board.pairing.a),
            )
    paired = [x for x in log if isinstance(x, e.TournamentRoundPaired)][-1]
    assert paired.round == 2
    for board in paired.boards:
        assert (board.table_id is None) == ("b" in (board.a, board.b))
    assert audit_events(log) == ()


def test_refusals() -> None:
    s, log = _new(
        format="swiss",
        rounds=2,
        rated=True,
        max_field=3,
        entries_close=50,
        private=True,
        invited=["a", "b", "g", "late"],
    )
    with pytest.raises(TournamentNotFoundError):
        decide(s, "stranger", c.EnterTournament(), 1)
    with pytest.raises(NotAllowedError, match="registered"):
        decide(s, "g", c.EnterTournament(guest=True), 1)
    s, _ = _run(s, log, "a", c.EnterTournament())
    with pytest.raises(TournamentError, match="window"):
        decide(s, "late", c.EnterTournament(), 51)
    with pytest.raises(NotAllowedError, match="director"):
        decide(s, "a", c.StartTournament(), 2)
    with pytest.raises(TournamentError, match="too few"):
        decide(s, "dir", c.StartTournament(), 2)
    with pytest.raises(NotAllowedError, match="server"):
        decide(s, "dir", c.RecordResult(round=1, board=1, winner="a"), 2)
    with pytest.raises(TournamentNotFoundError):
        decide(TournamentState("x"), "a", c.EnterTournament(), 1)
    with pytest.raises(InvalidCommandError):
        decide(
            TournamentState("y"),
            "dir",
            c.CreateTournament(options=e.TournamentOptions(format="knockout", rounds=3)),
            1,
        )
    with pytest.raises(InvalidCommandError, match="32"):
        decide(
            TournamentState("y"),
            "dir",
            c.CreateTournament(options=e.TournamentOptions(format="round_robin", max_field=40)),
            1,
        )
    with pytest.raises(InvalidCommandError, match="private"):
        decide(
            TournamentState("y"),
            "dir",
            c.CreateTournament(options=e.TournamentOptions(format="knockout", invited=["a"])),
            1,
        )
