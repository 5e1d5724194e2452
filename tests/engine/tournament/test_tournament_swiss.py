"""Swiss pairing and standings (engine/tournament/swiss.py, standings.py): an example worked by
hand, and properties over random tournaments."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tournament_runs import field, play_out

from engine.errors import TournamentError
from engine.tournament import (
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
from engine.tournament.matching import max_matching
from engine.tournament.swiss import swiss_pairing

SPEC = TournamentSpec(Format.SWISS, rounds=3)


def _strs(state: Tournament) -> list[str]:
    return [str(p) for p in swiss_pairing(state)]


def _play(state: Tournament, *winners: str) -> Tournament:
    """Pair the next round, then record ``winners`` board by board."""
    fact = next_round(state)
    state = state.apply(fact)
    for board, winner in enumerate(winners, 1):
        state = state.apply(Result(fact.round, board, winner))
    return state


def test_eight_players_three_rounds_worked_by_hand() -> None:
    """Eight players seeded p1 (highest rating) to p8, paired as the FIDE Dutch system pairs
    them (FIDE Handbook C.04.3: a score group is split into halves S1 and S2, S1[i] meets
    S2[i]; when that repeats a pairing, S2 is transposed before anyone floats), colours aside.

    Round 1, one group of 8: S1 = p1..p4, S2 = p5..p8: p1-p5, p2-p6, p3-p7, p4-p8 (the
    standard first round). p1, p2, p3 and p8 win.

    Round 2, group of 1 point {p1, p2, p3, p8}: p1-p3, p2-p8; group of 0 {p4, p5, p6, p7}:
    p4-p6, p5-p7. p1, p8, p4 and p7 win.

    Round 3: 2 points {p1, p8}: p1-p8. 1 point {p2, p3, p4, p7}: S1 = p2, p3, S2 = p4, p7;
    p2-p4 would leave p3-p7, who met in round 1, so S2 is transposed: p2-p7, p3-p4 (neither
    met before). 0 points {p5, p6}: p5-p6. p1, p2, p4 and p5 win.

    Standings: p1 3 points (Buchholz p5 1 + p3 1 + p8 2 = 4, all beaten); p8, p2, p4 2
    points with Buchholz 7 (p4 2 + p2 2 + p1 3), 3 (p6 0 + p8 2 + p7 1) and 3 (p8 2 + p6 0 +
    p3 1); p2 and p4 are level on Sonneborn-Berger too (1 each), so the seed decides. p3, p7,
    p5 1 point with Buchholz 6, 4, 4; p7's Sonneborn-Berger is 1 (beat p5), p5's 0 (beat p6).
    p6 last (Buchholz p2 2 + p4 2 + p5 1 = 5).
    """
    state = Tournament.fold(SPEC, field(8))
    assert _strs(state) == ["p1 v p5", "p2 v p6", "p3 v p7", "p4 v p8"]
    state = _play(state, "p1", "p2", "p3", "p8")
    assert _strs(state) == ["p1 v p3", "p2 v p8", "p4 v p6", "p5 v p7"]
    state = _play(state, "p1", "p8", "p4", "p7")
    assert _strs(state) == ["p1 v p8", "p2 v p7", "p3 v p4", "p5 v p6"]
    state = _play(state, "p1", "p2", "p4", "p5")
    assert state.is_finished
    table = [(s.player, s.points, s.buchholz, s.sonneborn_berger) for s in standings(state)]
    assert table == [
        ("p1", 3, 4, 4),
        ("p8", 2, 7, 4),
        ("p2", 2, 3, 1),
        ("p4", 2, 3, 1),
        ("p3", 1, 6, 1),
        ("p7", 1, 4, 1),
        ("p5", 1, 4, 0),
        ("p6", 0, 5, 0),
    ]
    with pytest.raises(TournamentError, match="over"):
        swiss_pairing(state)


def test_the_bye_goes_to_the_lowest_ranked_without_one() -> None:
    """Five players: p5 has the first bye (worth a win); in round 2 the lowest is p3 (0
    points), and the one-point group p1, p4, p5 pairs p1-p4 and floats p5 down to p2."""
    state = Tournament.fold(SPEC, field(5))
    assert _strs(state) == ["p1 v p3", "p2 v p4", "p5 bye"]
    state = _play(state, "p1", "p4")
    assert _strs(state) == ["p1 v p4", "p5 v p2", "p3 bye"]


def test_a_withdrawn_player_is_not_paired_and_their_board_is_forfeited() -> None:
    state = Tournament.fold(SPEC, field(4))
    state = state.apply(next_round(state)).apply(Result(1, 1, "p1"))
    state = state.apply(Withdrew("p4"))
    board = state.board(1, 2)
    assert (board.winner, board.forfeit) == ("p2", True)
    assert _strs(state) == ["p1 v p2", "p3 bye"]


def _round_is_sound(before: Tournament, paired: tuple[Pairing, ...]) -> None:
    """Everyone still in plays once or has the bye; no repeat and no second bye while a
    pairing without them exists (a perfect matching of the graph of pairs not yet met, a
    phantom standing for the bye)."""
    active = before.active
    seen = [p for pairing in paired for p in pairing.players]
    assert sorted(seen) == sorted(active)
    byes = [p for p in paired if p.is_bye]
    assert len(byes) == len(active) % 2
    met = {frozenset(b.players) for r in before.rounds for b in r.boards if not b.is_bye}
    had_bye = {b.pairing.a for r in before.rounds for b in r.boards if b.is_bye}
    index = {p: i for i, p in enumerate(active)}
    n = len(active) + len(active) % 2
    forbidden: list[set[int]] = [set() for _ in range(n)]
    for u in active:
        for v in active:
            if u != v and frozenset((u, v)) in met:
                forbidden[index[u]].add(index[v])
        if len(active) % 2 and u in had_bye:
            forbidden[index[u]].add(n - 1)
            forbidden[n - 1].add(index[u])
    mate = max_matching(list(range(n)), forbidden, [True] * n)
    if all(m != -1 for m in mate):
        assert not [p for p in paired if not p.is_bye and frozenset(p.players) in met]
        assert not [p for p in byes if p.a in had_bye]


@settings(max_examples=120, deadline=None)
@given(
    n=st.integers(2, 40),
    rounds=st.integers(1, 12),
    seed=st.integers(0, 10**9),
    withdraw=st.sampled_from([0.0, 0.0, 0.3]),
)
def test_every_round_is_sound_and_re_derived(
    n: int, rounds: int, seed: int, withdraw: float
) -> None:
    spec = TournamentSpec(Format.SWISS, rounds=rounds)
    end, facts, befores = play_out(spec, n, seed, withdraw)
    paired = [f for f in facts if isinstance(f, RoundPaired)]
    assert len(paired) == rounds
    for before, fact in zip(befores, paired, strict=True):
        _round_is_sound(before, fact.pairings)
        assert swiss_pairing(before) == fact.pairings == swiss_pairing(before, method="search")
    assert audit(spec, facts) == ()
    table = standings(end)
    assert [s.rank for s in table] == list(range(1, len(table) + 1))
    keys = [(-s.points, -s.buchholz, -s.sonneborn_berger) for s in table]
    assert keys == sorted(keys)
    # every match point is a win or a bye: the total is the number of decided boards' winners
    assert sum(s.points for s in table) == sum(
        1 for r in end.rounds for b in r.boards if b.winner is not None
    )
