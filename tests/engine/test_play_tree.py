"""The legal plays as a tree of single-die steps (:func:`engine.routes.play_tree`, what a
throw's message sends): its paths from the root to the end of a play are exactly the routes of
the engine's legal plays, for any position and throw (Hypothesis), and on the most branching
throws of a seeded corpus, whose plays GNU Backgammon counts the same."""

from __future__ import annotations

import json
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.moves import legal_plays, play
from engine.position import Position
from engine.routes import PlayTree, play_steps, play_tree, routes_of, tree_routes
from tests.engine import oracle
from tests.engine.test_properties import positions
from tests.engine_corpus import ROLLS, gnubg_plays, random_game_positions, stress_positions

WORST = Position.from_id("AACAkCRJqqoAAA")
"""The 1-1 here has 2,220 legal plays."""


def _key(route: tuple[tuple[int, int, bool], ...]) -> tuple[tuple[int, int], ...]:
    return tuple(sorted((a, b) for a, b, _ in route))


def _check(pos: Position, dice: tuple[int, int]) -> PlayTree:
    """The tree of ``dice`` at ``pos`` is the legal plays' routes, each once, and well made."""
    tree = play_tree(pos, dice)
    plays = legal_plays(pos, dice)
    d1, d2 = plays.dice
    expected = Counter(
        (p.result, _key(route)) for p in plays for route in routes_of(pos, d1, d2, p)
    )
    found: Counter[tuple[Position, tuple[tuple[int, int], ...]]] = Counter()
    for route in tree_routes(tree):
        moves = [(a, b) for a, b, _ in route]
        made = play(pos, dice, moves)  # applied in the tree's order, as the page sends it
        assert play_steps(pos, moves) == route  # its hits marked in that order
        found[(made.result, _key(route))] += 1
    where = (pos.position_id(), dice)
    assert found == expected, where  # every route of every play, each exactly once
    assert len({result for result, _ in found}) == len(plays), where
    # Node 0 is the start; every other node is reached and written once; steps highest first.
    assert tree[0] or not plays
    reached = {n for node in tree for *_, n in node if n}
    assert reached == set(range(1, len(tree))), where
    assert len(set(tree)) == len(tree), where
    for node in tree:
        assert list(node) == sorted(node, reverse=True)
        assert len({(a, b) for a, b, _, _ in node}) == len(node)
    return tree


@settings(max_examples=300, deadline=None)
@given(positions(), st.tuples(st.integers(1, 6), st.integers(1, 6)))
def test_the_trees_paths_are_exactly_the_routes_of_the_legal_plays(
    pos: Position, dice: tuple[int, int]
) -> None:
    _check(pos, dice)


def test_a_throw_without_a_play_is_a_root_without_steps() -> None:
    assert play_tree(Position.from_id("4HPwATDgc/ABUA"), (6, 6)) == ((),)
    assert tree_routes(((),)) == []


def _contact(pos: Position) -> bool:
    """Whether a checker of one side still has one of the other's ahead of it."""
    mine = max(p for p in range(26) if pos.me[p])
    theirs = max(p for p in range(26) if pos.opp[p])
    return mine + theirs > 25


def _branching() -> list[tuple[Position, tuple[int, int]]]:
    """The throws of more than 500 legal plays among seeded game and built positions, contact
    and non-contact, and the 1-1 of :data:`WORST`."""
    found = [(WORST, (1, 1))]
    for pos in random_game_positions(3, 1500) + stress_positions(3, 1500):
        for dice in ROLLS:
            if dice[0] == dice[1] and len(legal_plays(pos, dice)) > 500:
                found.append((pos, dice))
    return found


def test_the_most_branching_throws_make_small_trees_that_gnubg_agrees_with() -> None:
    gnubg = oracle.gnubg()
    assert gnubg is not None
    cases = _branching()
    assert len(cases) > 20
    assert {_contact(pos) for pos, _ in cases} == {True, False}
    for pos, dice in cases:
        tree = _check(pos, dice)
        results = {play(pos, dice, [(a, b) for a, b, _ in r]).result for r in tree_routes(tree)}
        assert len(results) == gnubg_plays(pos, dice).count, (pos.position_id(), dice)
        # What a throw's message sends: never more than 16 KB.
        size = len(json.dumps(tree, separators=(",", ":")).encode())
        assert size <= 16 * 1024, (pos.position_id(), dice)
    assert len(legal_plays(WORST, (1, 1))) == 2220
