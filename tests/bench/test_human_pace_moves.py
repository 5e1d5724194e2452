"""The human-pace clients (bench/kit/human_pace.py) play from a throw's tree of steps: each move
they send is one route of the tree, a legal play applied in the order sent, and a throw with no play
(``[[]]``) hands the roll to the other player."""

from __future__ import annotations

import random

import msgspec

from bench.kit.human_pace import TableSpec, _Table
from engine.moves import legal_plays, play
from engine.position import Position
from server.views.throw import tree_json
from tests.engine_corpus import ROLLS, corpus


def test_the_clients_moves_are_routes_of_legal_plays() -> None:
    rng = random.Random(4)
    table = _Table(TableSpec("t", "money", [("a", "x"), ("b", "y")]), None, rng)  # type: ignore[arg-type]
    moved = 0
    for pos in [Position.from_id("AACAkCRJqqoAAA"), *corpus(5, 40)]:
        for dice in ROLLS:
            tree = msgspec.json.decode(tree_json(pos, dice))
            plays = legal_plays(pos, dice)
            if not plays:
                assert tree == [[]]
                continue
            who, command = table.move({"player": "b", "play_tree": tree})
            assert who == 1 and command["type"] == "move"
            made = play(pos, dice, [tuple(m) for m in command["moves"]])
            assert made.result in plays.results(), (pos.position_id(), dice)
            moved += 1
    assert moved > 500


def test_a_throw_without_a_play_hands_the_roll_over() -> None:
    table = _Table(TableSpec("t", "money", [("a", "x"), ("b", "y")]), None, random.Random(1))  # type: ignore[arg-type]
    table.follow({"v": 9, "t": "dice_rolled", "d": {}, "m": {"player": "a", "play_tree": [[]]}})
    assert table.next == (1, {"type": "roll"})
