"""Differential tests of the legal-play generator and the notation against GNU Backgammon.

The ``gnubg`` package (GPL, test-only) is the oracle. For every position of a seeded corpus and
every one of the 21 throws: the number of legal plays must be equal; every resulting position
GNU Backgammon's move tuples fully describe must be one of ours; and every one of ours that bears
nothing off must be one of GNU Backgammon's (its tuples are complete for those, see
:class:`engine_corpus.GnubgPlays`).
"""

from __future__ import annotations

from engine.moves import _generate, legal_plays
from engine.notation import format_play
from engine.position import Position
from tests.engine import oracle
from tests.engine_corpus import (
    ROLLS,
    gnubg_board,
    gnubg_plays,
    random_game_positions,
    stress_positions,
)

gnubg = oracle.gnubg()

GAME_POSITIONS = 2000
STRESS_POSITIONS = 1000


def _mismatches(positions: list[Position]) -> list[str]:
    bad = []
    for pos in positions:
        for dice in ROLLS:
            # The uncached generator: the cache must not hide a difference.
            ours = _generate(pos.me, pos.opp, *dice)
            theirs = gnubg_plays(pos, dice)
            results = {p.result for p in ours}
            not_off = {r for r in results if r.me[0] == pos.me[0]}
            why = (
                f"{len(ours)} plays, gnubg {theirs.count}"
                if len(ours) != theirs.count
                else "the same result twice"
                if len(results) != len(ours)
                else "gnubg has a result we lack"
                if not theirs.results <= results
                else "we have a result gnubg lacks"
                if not not_off <= theirs.results
                else None
            )
            if why:
                bad.append(f"{pos.position_id()} {dice[0]}-{dice[1]}: {why}")
    return bad


def test_random_game_positions_agree_with_gnubg() -> None:
    positions = random_game_positions(seed=20240601, count=GAME_POSITIONS)
    assert len(set(positions)) > GAME_POSITIONS * 0.9
    assert _mismatches(positions) == []


def test_stress_positions_agree_with_gnubg() -> None:
    positions = stress_positions(seed=7, count=STRESS_POSITIONS)
    assert sum(p.me[25] > 0 for p in positions) > STRESS_POSITIONS // 10
    assert sum(p.can_bear_off() for p in positions) > STRESS_POSITIONS // 20
    assert _mismatches(positions) == []


def test_generator_is_compared_on_complete_results() -> None:
    """The oracle check above is not vacuous: most of GNU's plays are fully described."""
    pos = stress_positions(seed=7, count=4)[3]  # a bear-off
    total = described = 0
    for dice in ROLLS:
        theirs = gnubg_plays(pos, dice)
        total += theirs.count
        described += len(theirs.results)
    assert total and described >= total // 2


def test_format_agrees_with_gnubg() -> None:
    """Every legal play of 200 game positions and 100 built ones, formatted as GNU does."""
    positions = random_game_positions(seed=99, count=200) + stress_positions(seed=99, count=100)
    bad = []
    for pos in positions:
        board = gnubg_board(pos)
        for dice in ROLLS:
            for p in legal_plays(pos, dice):
                ours = format_play(pos, p.moves)
                theirs = gnubg.move_tuple_to_string(sum(p.moves, ()), board)
                if ours != theirs:
                    bad.append(f"{pos.position_id()} {dice} {p.moves}: {ours!r} != {theirs!r}")
    assert bad == []
