"""The shortcuts the engine takes on its hot paths give the same answers as the full rules."""

from __future__ import annotations

import random

import pytest

from engine.errors import IllegalPlayError, InvalidPlayError
from engine.moves import apply_moves, can_move, legal_plays, play
from engine.position import Position
from tests.engine_corpus import random_game_positions, stress_positions

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def corpus() -> list[Position]:
    return random_game_positions(17, 300) + stress_positions(18, 300)


def test_can_move_agrees_with_the_legal_plays() -> None:
    checked = 0
    for pos in corpus():
        for dice in ROLLS:
            assert can_move(pos, dice) == bool(legal_plays(pos, dice)), (pos.position_id(), dice)
            checked += 1
    assert checked >= 600 * 21


def test_a_play_of_every_die_is_judged_as_the_full_rules_judge_it() -> None:
    rng = random.Random(5)
    for pos in corpus():
        for dice in rng.sample(ROLLS, 5):
            plays = legal_plays(pos, dice).plays
            for p in plays:
                assert play(pos, dice, p.moves).result == p.result
            # Every die, but not a legal play: some move of it breaks a rule.
            if plays:
                moves = list(rng.choice(plays).moves)
                if len(moves) >= 2:
                    moves[-1] = (moves[-1][0], max(0, moves[-1][1] - 1))
                    try:
                        result = apply_moves(pos, dice, moves)
                    except (InvalidPlayError, IllegalPlayError):
                        with pytest.raises((InvalidPlayError, IllegalPlayError)):
                            play(pos, dice, moves)
                    else:
                        assert result in legal_plays(pos, dice)
                        assert play(pos, dice, moves).result == result
