"""The legal plays of a throw, from its stream message's play tree (``m.play_tree``), with no
rules of backgammon: the server sends every route of every legal play as a tree of single-die
steps, and this module walks it.

A tree is a list of nodes, node 0 the start of the turn; each node lists its steps as
``[from, to, hits, next]`` in the mover's numbering (25 the bar, 0 off), ``next`` the node the
play goes on at, or 0 when the play is complete after the step. A path from node 0 to a step
whose ``next`` is 0 is a *route*; a play moving one checker with both dice of a non-double may
have two routes (``13/8 8/6`` and ``13/11 11/6``), which are one play: the routes that start
and end on the same points and hit the same blots are grouped into one :class:`Play`.

The start position with 5-2 (the tree as a throw's ``m`` sends it):

>>> tree = [
...     [[24, 22, False, 5], [13, 11, False, 4], [13, 8, False, 3], [8, 6, False, 2],
...      [8, 3, False, 1]],
...     [[6, 4, False, 0]],
...     [[8, 3, False, 0]],
...     [[8, 6, False, 0], [6, 4, False, 0]],
...     [[13, 8, False, 0], [11, 6, False, 0], [8, 3, False, 0]],
...     [[13, 8, False, 0], [8, 3, False, 0]],
... ]
>>> plays = legal_plays(tree)
>>> len(plays), len(routes(tree))
(8, 9)
>>> [p.notation for p in plays][:3]
['24/22 13/8', '24/22 8/3', '13/11 13/8']
>>> [p.moves for p in plays if len(p.routes) == 2]
[((13, 11), (11, 6))]
>>> legal_plays([[]])
[]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Edge", "Play", "Step", "legal_plays", "routes"]

Edge = tuple[int, int, bool, int]
"""One step of a play tree's node: ``(from, to, hits, next)``."""

Step = tuple[int, int, bool]
"""One checker moved by one die: ``(from, to, hits)``."""


@dataclass(frozen=True, slots=True)
class Play:
    """One legal play: its routes (each a way to make it one die at a time, in an order that
    can be applied), the first of which is :attr:`moves`."""

    routes: tuple[tuple[Step, ...], ...]

    @property
    def moves(self) -> tuple[tuple[int, int], ...]:
        """The play's single-die moves ``(from, to)``, as a ``move`` command's ``moves``
        takes them."""
        return tuple((a, b) for a, b, _ in self.routes[0])

    @property
    def hits(self) -> tuple[int, ...]:
        """The points (in the mover's numbering) where it hits a blot."""
        return tuple(sorted({b for a, b, h in self.routes[0] if h}))

    @property
    def notation(self) -> str:
        """The first route's steps in notation (``13/8* 8/6``, ``bar/22``, ``6/off``), which a
        ``move`` command's ``notation`` also takes."""
        return " ".join(f"{_point(a)}/{_point(b)}{'*' if h else ''}" for a, b, h in self.routes[0])


def _point(p: int) -> str:
    return "bar" if p == 25 else "off" if p == 0 else str(p)


def routes(tree: Sequence[Sequence[Sequence[int | bool]]]) -> list[tuple[Step, ...]]:
    """Every route of the tree, in the order of its nodes' steps (``[[]]``: none)."""
    out: list[tuple[Step, ...]] = []

    def walk(at: int, path: tuple[Step, ...]) -> None:
        for a, b, h, n in tree[at]:
            step = (*path, (int(a), int(b), bool(h)))
            if n:
                walk(int(n), step)
            else:
                out.append(step)

    if tree:
        walk(0, ())
    return out


def _key(route: tuple[Step, ...]) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Where a route's checkers start and end (a point passed through cancels out) and the
    blots it hits: the same for every route of one play, and different for two plays."""
    start = Counter(a for a, _, _ in route)
    end = Counter(b for _, b, _ in route)
    through = start & end
    return (
        tuple(sorted((start - through).elements())),
        tuple(sorted((end - through).elements())),
        tuple(sorted({b for _, b, h in route if h})),
    )


def legal_plays(tree: Sequence[Sequence[Sequence[int | bool]]]) -> list[Play]:
    """The legal plays of a play tree, each once, in the order the tree first reaches them;
    empty when the player cannot move (``[[]]``)."""
    found: dict[tuple[tuple[int, ...], ...], list[tuple[Step, ...]]] = {}
    for route in routes(tree):
        found.setdefault(_key(route), []).append(route)
    return [Play(tuple(rs)) for rs in found.values()]
