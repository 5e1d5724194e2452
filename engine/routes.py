"""The ways to make a legal play one die at a time, for clients that know no rules.

A board in a browser lets the player move one checker by one die at a time. The engine lists
each legal play once, with one order of its moves; a player may reach the same play through
another checker path (``13/6`` with 5-2 is ``13/8/6`` or ``13/11/6``, and only one of them may
be open). :func:`play_routes` gives every distinct multiset of single-die steps that makes a
play, each step marked when it hits, so that a client offers exactly the steps some legal play
continues with, and sends the play's notation when the steps make one whole play.

Two plays of a double never share a multiset of moves and a play of a double has only one
(the moves of one die along a chain of points follow from the counts), so routes differ only
for a non-double that moves one checker with both dice.

>>> from engine.moves import legal_plays
>>> start = Position.start()
>>> sum(len(play_routes(start, (6, 1), p)) for p in legal_plays(start, (6, 1)))
10

:func:`play_tree` gives the same routes of every legal play of a throw at once, as a tree of
single-die steps whose shared branches are written once: what a throw's message sends (the
1-1 with 2,220 plays is some 7.5 KB instead of 218 KB as a list).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.errors import IllegalPlayError, InvalidPlayError
from engine.moves import Move, Play, check_dice, play_tuples
from engine.moves import play as engine_play
from engine.position import BAR, Position

Step = tuple[int, int, bool]
"""One checker moved by one die: ``(from, to, hits)`` in the mover's numbering."""


def play_steps(position: Position, moves: Sequence[Move]) -> tuple[Step, ...]:
    """The moves as steps, each marked when it hits a blot (applied in order: a point hit once
    is not hit again)."""
    opp = position.opp
    out: list[Step] = []
    hit_at = 0  # the points hit so far, as bits
    for frm, to in moves:
        hit = 0 < to < 25 and opp[25 - to] == 1 and not hit_at >> to & 1
        if hit:
            hit_at |= 1 << to
        out.append((frm, to, hit))
    return tuple(out)


def play_routes(
    position: Position, dice: Sequence[int], play: Play
) -> tuple[tuple[Step, ...], ...]:
    """Every distinct way (as single-die steps, in an order that can be applied) to make
    ``play``, a legal play of ``dice`` in ``position``: its own moves first, then the other
    checker path when one checker moves with both dice of a non-double and that path is
    legal too.

    >>> from engine.moves import play as make
    >>> start = Position.start()
    >>> play_routes(start, (5, 2), make(start, (5, 2), [(13, 8), (8, 6)]))
    (((13, 8, False), (8, 6, False)), ((13, 11, False), (11, 6, False)))
    >>> play_routes(start, (6, 1), make(start, (6, 1), [(13, 7), (7, 6)]))  # 12 is blocked
    (((13, 7, False), (7, 6, False)),)
    >>> play_routes(start, (3, 1), make(start, (3, 1), [(8, 5), (6, 5)]))
    (((8, 5, False), (6, 5, False)),)
    """
    d1, d2 = check_dice(dice)
    return routes_of(position, d1, d2, play)


def routes_of(position: Position, d1: int, d2: int, play: Play) -> tuple[tuple[Step, ...], ...]:
    """:func:`play_routes` with the dice checked already (the table view lists the routes of
    every legal play of one throw)."""
    result = play.result
    return tuple(
        play_steps(position, moves)
        for moves in route_moves(position, d1, d2, play.moves, (result.me, result.opp))
    )


def route_moves(
    position: Position,
    d1: int,
    d2: int,
    moves: tuple[Move, ...],
    result: tuple[tuple[int, ...], tuple[int, ...]],
) -> tuple[tuple[Move, ...], ...]:
    """The routes of :func:`routes_of` as moves, before they are marked as steps, for a legal
    play given by its ``moves`` and its ``result`` (``(me, opp)``, as
    :func:`engine.moves.play_tuples` lists it)."""
    if d1 == d2 or len(moves) != 2:
        return (moves,)
    (a, b), (c, end) = moves
    if b != c and end == a:  # listed in the other order: (b, end) then (a, b)
        (c, end), (a, b) = moves
    if b != c or b == 0:
        return (moves,)
    used = a - b
    other = d2 if used == d1 else d1
    mid = a - other
    if mid <= 0:
        return (moves,)
    alt = ((a, mid), (mid, end))
    if end > 0:
        # The play is legal, so its checker may leave ``a`` and land on ``end``: the other
        # path is the same play exactly when ``mid`` is empty of the opponent's checkers (a
        # blot there would be hit) and the played path hit nothing on ``b``.
        opp = position.opp
        if opp[25 - mid] == 0 and opp[25 - b] == 0:
            return (moves, alt)
        return (moves,)
    # Bearing off: whether the other order may bear off is the bear-off rules'.
    try:
        made = engine_play(position, (d1, d2), alt)
    except (IllegalPlayError, InvalidPlayError):
        return (moves,)
    if (made.result.me, made.result.opp) == result:
        return (moves, alt)
    return (moves,)


Edge = tuple[int, int, bool, int]
"""One step of a :data:`PlayTree`'s node: ``(from, to, hits, next)``, ``next`` the index of the
node the play goes on at, or 0 when the play is complete after this step."""

PlayTree = tuple[tuple[Edge, ...], ...]
"""Every route of every legal play of a throw as a tree of single-die steps (a trie, its
identical branches shared, so a directed acyclic graph): node 0 is the start of the turn; each
node lists its steps, highest first. A route is the steps along a path from node 0 to a step
whose ``next`` is 0, and every such path is a route of a legal play: each route of
:func:`routes_of`, its steps ordered highest first (``from``, then ``to``: an order that can
always be applied, the checkers moved from the higher points first), hits marked in that order.
No legal play: ``((),)``."""


_Trie = dict[Move, "_Trie"]
"""The routes as nested dicts, step by step, before identical branches are merged."""


def play_tree(position: Position, dice: Sequence[int]) -> PlayTree:
    """The routes of every legal play of ``dice`` (:func:`routes_of` of each) as a
    :data:`PlayTree`, built from the legal plays themselves, so that its paths are exactly
    their routes.

    >>> tree = play_tree(Position.start(), (6, 5))
    >>> tree[0]  # the first steps: 24/18, 13/8, 13/7 or 8/3
    ((24, 18, False, 4), (13, 8, False, 3), (13, 7, False, 2), (8, 3, False, 1))
    >>> tree[4]  # after 24/18: 18/13, 13/8 or 8/3, and the play is complete
    ((18, 13, False, 0), (13, 8, False, 0), (8, 3, False, 0))
    >>> tree[3]  # after 13/8 (13/8 8/3 is 13/3, 13/8 24/18 was met above)
    ((13, 7, False, 0), (8, 2, False, 0))
    >>> play_tree(Position.from_id('4HPwATDgc/ABUA'), (6, 6))
    ((),)
    """
    d1, d2 = check_dice(dice)
    theirs = position.opp
    blots = 0
    for p in range(1, BAR):
        if theirs[BAR - p] == 1:
            blots |= 1 << p
    if d1 != d2:
        return _two_step_tree(position, d1, d2, blots)
    # A double: each play has one route, its moves (see route_moves).
    root: _Trie = {}
    for moves, _me, _opp in play_tuples(position, (d1, d2)):
        node = root
        for move in sorted(moves, reverse=True):
            node = node.setdefault(move, {})
    # Each node once (the same steps leading to the same nodes), numbered as met: children
    # before their parents, so that the numbers are turned around for node 0 to be the root.
    # A step hits when it lands on a blot that no step before it on its path hit
    # (:func:`play_steps`): ``hit_at`` holds the points hit on the path so far, as bits.
    ids: dict[tuple[Edge, ...], int] = {}
    nodes: list[tuple[Edge, ...]] = []

    def number(node: _Trie, hit_at: int) -> int:
        edges = []
        for (a, b), child in sorted(node.items(), reverse=True):
            hit = (blots & ~hit_at) >> b & 1 == 1
            edges.append((a, b, hit, number(child, hit_at | hit << b) if child else -1))
        return _node(ids, nodes, tuple(edges))

    number(root, 0)
    return _rooted(nodes)


def _node(
    ids: dict[tuple[Edge, ...], int], nodes: list[tuple[Edge, ...]], key: tuple[Edge, ...]
) -> int:
    """The number of the node with these steps (``next`` still the children's numbers, -1
    at a play's end), numbered as first met; the same steps are one node."""
    found = ids.get(key)
    if found is None:
        found = ids[key] = len(nodes)
        nodes.append(key)
    return found


def _rooted(nodes: list[tuple[Edge, ...]]) -> PlayTree:
    """The nodes numbered children first, turned around so that the last met, the root, is
    node 0, and a play's end (-1) is 0."""
    last = len(nodes) - 1
    return tuple(
        [
            tuple([(a, b, h, last - n if n >= 0 else 0) for a, b, h, n in node])
            for node in reversed(nodes)
        ]
    )


def _two_step_tree(position: Position, d1: int, d2: int, blots: int) -> PlayTree:
    """:func:`play_tree` of a throw that is no double, node for node the same: its routes are
    one or two steps long, so the trie is two levels deep and numbered without recursion (five
    throws in six are no double, and this was most of a throw's tree, issue 30). ``blots``:
    the opponent's blots, as bits of the mover's points."""
    root: dict[Move, set[Move] | None] = {}
    for moves, me, opp in play_tuples(position, (d1, d2)):
        if len(moves) != 2:
            for move in moves:  # one step (no play at all: nothing)
                root[move] = None
            continue
        for first, second in route_moves(position, d1, d2, moves, (me, opp)):
            if first < second:
                first, second = second, first
            after = root.get(first)
            if after is None:
                root[first] = {second}
            else:
                after.add(second)
    ids: dict[tuple[Edge, ...], int] = {}
    nodes: list[tuple[Edge, ...]] = []
    edges: list[Edge] = []
    for step in sorted(root, reverse=True):
        a, b = step
        hit = blots >> b & 1 == 1
        after = root[step]
        if after is None:
            edges.append((a, b, hit, -1))
            continue
        unhit = blots & ~(hit << b)
        key = tuple([(c, d, unhit >> d & 1 == 1, -1) for c, d in sorted(after, reverse=True)])
        edges.append((a, b, hit, _node(ids, nodes, key)))
    nodes.append(tuple(edges))
    return _rooted(nodes)


def tree_routes(tree: PlayTree) -> list[tuple[Step, ...]]:
    """Every route of a :data:`PlayTree` (its paths from node 0 to the end of a play), in the
    order of its nodes' steps.

    >>> [len(r) for r in tree_routes(play_tree(Position.start(), (4, 4)))][:3]
    [4, 4, 4]
    >>> tree_routes(((),))
    []
    """
    out: list[tuple[Step, ...]] = []

    def walk(at: int, path: tuple[Step, ...]) -> None:
        for a, b, h, n in tree[at]:
            step = (*path, (a, b, h))
            if n:
                walk(n, step)
            else:
                out.append(step)

    walk(0, ())
    return out


__all__ = [
    "Edge",
    "PlayTree",
    "Step",
    "play_routes",
    "play_steps",
    "play_tree",
    "route_moves",
    "routes_of",
    "tree_routes",
]
