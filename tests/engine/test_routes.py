"""The single-die routes of a legal play (what a rules-free board offers a player).

Checked against a brute force over the whole corpus: every ordered sequence of single-die
moves that the engine accepts as a whole legal play is one of the routes given for that play
(as a multiset of steps), and every route given makes its play.
"""

from __future__ import annotations

from collections import Counter
from itertools import permutations

from engine.errors import IllegalPlayError, InvalidPlayError
from engine.moves import legal_plays
from engine.moves import play as make_play
from engine.position import Position
from engine.routes import play_routes
from tests.engine_corpus import corpus, each_roll


def _brute_routes(pos: Position, dice: tuple[int, int]) -> dict[Position, set[frozenset]]:
    """Every route of every legal play of a non-double, found by trying every checker path."""
    plays = legal_plays(pos, dice)
    found: dict[Position, set[frozenset]] = {p.result: set() for p in plays}
    if not plays or len(plays.plays[0].moves) != 2:
        for p in plays:
            found[p.result].add(frozenset(Counter(p.moves).items()))
        return found
    sources = [p for p in range(1, 26) if pos.me[p]]
    for order in permutations(dice):
        for a in sources:
            first = (a, max(a - order[0], 0))
            for b in [*sources, first[1]]:
                if b == 0:
                    continue
                second = (b, max(b - order[1], 0))
                try:
                    made = make_play(pos, dice, [first, second])
                except (IllegalPlayError, InvalidPlayError):
                    continue
                if made.result in found:
                    found[made.result].add(frozenset(Counter([first, second]).items()))
    return found


def test_routes_are_exactly_the_checker_paths_of_each_play() -> None:
    checked = 0
    for pos, dice in each_roll(corpus(seed=7, count=80)):
        if dice[0] == dice[1]:
            continue
        brute = _brute_routes(pos, dice)
        for p in legal_plays(pos, dice):
            routes = play_routes(pos, dice, p)
            mine = {frozenset(Counter((a, b) for a, b, _ in r).items()) for r in routes}
            assert mine == brute[p.result], (pos.position_id(), dice, p.moves)
            checked += 1
    assert checked > 1000


def test_every_route_makes_its_play_and_marks_its_hits() -> None:
    for pos, dice in each_roll(corpus(seed=11, count=30)):
        for p in legal_plays(pos, dice):
            for route in play_routes(pos, dice, p):
                made = make_play(pos, dice, [(a, b) for a, b, _ in route])
                assert made.result == p.result
                opp = list(pos.opp)
                for _frm, to, hit in route:
                    assert hit == (0 < to < 25 and opp[25 - to] == 1)
                    if hit:
                        opp[25 - to] = 0


def test_a_double_has_one_route_per_play() -> None:
    pos = Position.start()
    for p in legal_plays(pos, (4, 4)):
        assert len(play_routes(pos, (4, 4), p)) == 1
