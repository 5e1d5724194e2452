"""The gnubg strength (with the extra): its plays are GNU Backgammon's best at the same ply, and
its cube and resignation decisions follow GNU Backgammon's evaluation."""

from __future__ import annotations

import random

import pytest

from engine.moves import legal_plays
from engine.position import Position
from events.domain import types as e
from events.domain.bots import BasicBrain, Brain, CubeContext, brain_for
from events.gnubg.bot import GnubgBrain, match_winning_chance, probabilities
from events.records.audit import audit_records
from events.store.streams import table_stream
from tests.engine_corpus import ROLLS, gnubg_board, random_game_positions
from tests.events.bots.bot_play import play_table
from tests.records import recorded

gnubg = pytest.importorskip("gnubg")


def _applied(pos: Position, flat: tuple[int, ...]) -> Position:
    me, opp = list(pos.me), list(pos.opp)
    for frm, to in zip(flat[::2], flat[1::2], strict=True):
        me[frm] -= 1
        me[to] += 1
        if to and opp[25 - to] == 1:
            opp[25 - to] = 0
            opp[25] += 1
    return Position(tuple(me), tuple(opp))


@pytest.mark.parametrize("ply", [0, 1])
def test_its_play_is_gnubgs_best_play(ply: int) -> None:
    brain = GnubgBrain(ply)
    rng = random.Random(ply)
    positions = random_game_positions(seed=77, count=40)
    compared = 0
    for pos in positions:
        dice = rng.choice(ROLLS)
        plays = legal_plays(pos, dice).plays
        if len(plays) < 2:
            continue
        best = tuple(
            gnubg.findbestmove(
                gnubg_board(pos),
                gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0),
                gnubg.evalcontext(0, ply, 1, 0, 0),
                dice,
            )
        )
        if len(best) % 2 or 0 in best[1::2]:
            continue  # a bear-off: GNU's tuple stops short (tests/engine_corpus.py)
        chosen = brain.play(pos, dice, plays)
        assert chosen.result == _applied(pos, best), (pos.position_id(), dice)
        compared += 1
    assert compared >= 25


def test_its_cube_follows_gnubgs_evaluation() -> None:
    brain = GnubgBrain(0)
    start = Position.start()
    assert not brain.double(start, _money())
    assert brain.take(start, _money())
    strong = Position.from_points(
        {1: 2, 2: 2, 3: 2, 4: 2, 5: 3, 6: 4}, {"bar": 2, 1: 3, 2: 3, 3: 3, 4: 4}
    )
    assert probabilities(strong)[0] > 0.95
    assert not brain.take(strong, _money())
    # A resignation of a single from the start is a gift; from a lost game it is not enough.
    assert brain.accept(start, 1, _money())
    lost = Position.from_points({24: 3, 23: 3, 22: 3, 13: 6}, {6: 1})
    assert not brain.accept(lost, 1, _money())
    assert brain.accept(lost, 3, _money())


def _money() -> CubeContext:
    return CubeContext()


def test_a_gnubg_bot_plays_a_match_against_the_basic_bot_and_it_audits_clean() -> None:
    brains: dict[str, Brain] = {"gnu": brain_for("gnubg"), "basic": BasicBrain()}
    table = play_table("match", brains, games=99, options=e.TableOptions(match_length=3), seed=8)
    assert table.state.match_winner in brains
    steps = [list(step.events) for step in table.steps]
    assert audit_records(table_stream("bots"), recorded("bots", steps)).failures == []


def test_in_a_match_its_cube_follows_the_match_equity_not_the_money_window() -> None:
    brain = GnubgBrain(0)
    start = Position.start()
    # After the Crawford game the trailer doubles at once: the leader's cube is worth nothing
    # to them (money play: nobody doubles the opening position); the leader at 1-away never does.
    trailer = CubeContext(match_length=5, score=(2, 4))
    assert not brain.double(start, _money())
    assert brain.double(start, trailer)
    assert not brain.double(start, CubeContext(match_length=5, score=(4, 2)))
    # A money double and take (the doubler wins about 61 %): at 2-away against a leader at
    # 1-away after the Crawford game, dropping leaves the leader at double match point (50 %),
    # so the leader drops what is a clear take for money.
    pos = Position.from_id("4o+AYDh+zQEBQg")
    assert 0.58 < probabilities(pos)[0] < 0.65
    assert brain.double(pos, _money()) and brain.take(pos, _money())
    assert not brain.take(pos, CubeContext(match_length=5, score=(3, 4)))
    # The same position in the Crawford game: no double (the rules forbid it; neither does the
    # brain offer one).
    assert not brain.double(pos, CubeContext(match_length=5, score=(3, 4), crawford=True))


def test_in_a_match_it_accepts_a_resignation_by_match_equity() -> None:
    brain = GnubgBrain(0)
    # The offerer (on roll) is being backgammoned: for money a single is not enough...
    lost = Position.from_points({24: 3, 23: 3, 22: 3, 13: 6}, {6: 1})
    assert not brain.accept(lost, 1, _money())
    # ...but a single wins the match for an answerer at 1-away: taken.
    assert brain.accept(lost, 1, CubeContext(match_length=5, score=(2, 4)))
    # Far from the end, the backgammon is worth more than a single or a gammon: declined.
    early = CubeContext(match_length=11, score=(0, 0))
    assert not brain.accept(lost, 1, early) and not brain.accept(lost, 2, early)
    assert brain.accept(lost, 3, early)


def test_match_winning_chances_are_gnubgs_table() -> None:
    # GNU Backgammon's table: 1-away against 1-away is 50 %; post-Crawford, the trailer at
    # 2-away has a little under 50 % (the free drop); the trailer always below the leader.
    assert match_winning_chance(5, 1, 1, True) == 0.5
    assert 0.45 < match_winning_chance(5, 2, 1, True) < 0.5
    assert match_winning_chance(5, 1, 2, True) == 1 - match_winning_chance(5, 2, 1, True)
    assert match_winning_chance(5, 0, 3, False) == 1.0
    assert match_winning_chance(5, 3, 0, False) == 0.0
    for away in range(2, 6):
        assert match_winning_chance(5, away, away - 1, False) < 0.5
