"""Seeded corpora of positions for the engine's differential tests and ``bench/engine.py``.

Two halves: positions met in random games (each side plays a uniformly random legal play), and
positions built to stress the move generator: primes and blocks, checkers on the bar against
closed or nearly closed boards, and bear-offs (with opposing checkers still in the home board, a
checker on the bar or a few checkers still outside). Everything is a pure function of the seed.

Also the glue to GNU Backgammon's ``gnubg`` package (imported lazily; it is a GPL, test-only
oracle): its board layout, its legal plays turned back into resulting positions, and
``gnubg_quiet`` to keep the boards it prints off the test output.
"""

from __future__ import annotations

import functools
import os
import random
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from engine.moves import legal_plays
from engine.position import BAR, CHECKERS, Position

ROLLS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(1, a + 1))
"""The 21 distinct throws, larger die first."""


# -- random games ---------------------------------------------------------------------------------


def random_game_positions(seed: int, count: int) -> list[Position]:
    """``count`` positions met, in order, in random games played from the start."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        pos = Position.start()
        while not pos.is_game_over() and len(out) < count:
            out.append(pos)
            plays = legal_plays(pos, (rng.randint(1, 6), rng.randint(1, 6))).plays
            pos = (rng.choice(plays).result if plays else pos).swap()
    return out


# -- built positions ------------------------------------------------------------------------------


class _Builder:
    """Two sides being filled in, always a valid position (each in its own numbering)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.me = [0] * 26
        self.opp = [0] * 26

    def left(self, side: list[int]) -> int:
        return CHECKERS - sum(side[1:26])

    def free_for_me(self, p: int) -> bool:
        return p == BAR or not self.opp[BAR - p]

    def free_for_opp(self, q: int) -> bool:
        return q == BAR or not self.me[BAR - q]

    def put_me(self, p: int, n: int) -> None:
        n = min(n, self.left(self.me))
        if n > 0 and self.free_for_me(p):
            self.me[p] += n

    def put_opp(self, q: int, n: int) -> None:
        n = min(n, self.left(self.opp))
        if n > 0 and self.free_for_opp(q):
            self.opp[q] += n

    def scatter_me(self, points: list[int], n: int) -> None:
        """Up to ``n`` checkers one by one on random points of ``points`` that are open."""
        ok = [p for p in points if self.free_for_me(p)]
        for _ in range(min(n, self.left(self.me))):
            if ok:
                self.me[self.rng.choice(ok)] += 1

    def scatter_opp(self, points: list[int], n: int) -> None:
        ok = [q for q in points if self.free_for_opp(q)]
        for _ in range(min(n, self.left(self.opp))):
            if ok:
                self.opp[self.rng.choice(ok)] += 1

    def position(self) -> Position:
        return Position.from_sides(self.me, self.opp)


def _prime(rng: random.Random) -> Position:
    """The opponent holds a prime of 3 to 6 points; the mover has checkers behind it."""
    b = _Builder(rng)
    length = rng.randint(3, 6)
    low = rng.randint(2, 24 - length)  # the prime covers the mover's points low..low+length-1
    for p in range(low, low + length):
        b.put_opp(BAR - p, rng.randint(2, 3))
    b.scatter_opp(list(range(1, 25)), rng.randint(0, 6))
    behind = list(range(low + length, 25))
    b.put_me(BAR, rng.choice((0, 0, 1, 2)))
    b.scatter_me(behind, rng.randint(1, 4))
    b.scatter_me(list(range(1, low)), rng.randint(0, 11))
    return b.position()


def _closed_board(rng: random.Random) -> Position:
    """One to four mover's checkers on the bar; the opponent holds 3 to 6 of the entry points."""
    b = _Builder(rng)
    b.put_me(BAR, rng.randint(1, 4))
    for p in rng.sample(range(19, 25), rng.randint(3, 6)):
        b.put_opp(BAR - p, rng.randint(2, 3))
    b.scatter_opp(list(range(1, 25)), rng.randint(0, 8))
    b.scatter_me(list(range(1, 25)), rng.randint(3, 11))
    if rng.random() < 0.3:
        b.put_opp(BAR, rng.randint(1, 2))
    return b.position()


def _blocks(rng: random.Random) -> Position:
    """Both sides with several made points scattered over the board."""
    b = _Builder(rng)
    for q in rng.sample(range(1, 25), rng.randint(3, 7)):
        b.put_opp(q, 2)
    for p in rng.sample(range(1, 25), rng.randint(3, 7)):
        b.put_me(p, 2)
    b.scatter_me(list(range(1, 25)), rng.randint(0, 6))
    b.scatter_opp(list(range(1, 25)), rng.randint(0, 6))
    if rng.random() < 0.25:
        b.put_me(BAR, rng.randint(1, 2))
    return b.position()


def _bear_off(rng: random.Random) -> Position:
    """The mover bearing off; sometimes with the opponent's checkers in the home board, a
    checker on the bar (hit during the bear-off) or a few checkers not yet home."""
    b = _Builder(rng)
    if rng.random() < 0.5:
        # Opposing checkers in the mover's home board (their 19..24): blots to hit or points.
        for q in rng.sample(range(19, 25), rng.randint(1, 3)):
            b.put_opp(q, rng.choice((1, 1, 2)))
    b.scatter_opp(list(range(1, 19)), rng.randint(3, 15))
    kind = rng.random()
    if kind < 0.2:
        b.put_me(BAR, rng.randint(1, 2))
    elif kind < 0.45:
        b.scatter_me(list(range(7, 13)), rng.randint(1, 2))
    b.scatter_me(list(range(1, 7)), rng.randint(1, 15))
    return b.position()


def _scatter(rng: random.Random) -> Position:
    """Checkers anywhere, blots and all: many hits, many different moves."""
    b = _Builder(rng)
    b.scatter_me(list(range(1, 26)), rng.randint(5, 15))
    b.scatter_opp(list(range(1, 26)), rng.randint(5, 15))
    return b.position()


STRESS_BUILDERS: tuple[Callable[[random.Random], Position], ...] = (
    _prime,
    _closed_board,
    _blocks,
    _bear_off,
    _scatter,
)


def stress_positions(seed: int, count: int) -> list[Position]:
    """``count`` built positions, the builders taken in turn."""
    rng = random.Random(seed)
    return [STRESS_BUILDERS[i % len(STRESS_BUILDERS)](rng) for i in range(count)]


def corpus(seed: int, count: int) -> list[Position]:
    """Half random-game positions, half built ones."""
    return random_game_positions(seed, count // 2) + stress_positions(seed, count - count // 2)


# -- GNU Backgammon -------------------------------------------------------------------------------


def gnubg_board(pos: Position) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``gnubg``'s board: (player not on roll, player on roll), each points 1..24 then the bar."""
    return (pos.opp[1:26], pos.me[1:26])


class GnubgPlays:
    """GNU Backgammon's legal plays for one position and throw.

    ``findbestmoves`` lists every legal play, but each move tuple stops at the source point of
    its first bear-off. So :attr:`count` is exact; :attr:`results` holds the resulting positions
    of the plays whose moves are all known: those with no bear-off, and those whose only unknown
    is the end of a final bear-off.
    """

    def __init__(self, pos: Position, found: list[dict[str, Any]]) -> None:
        tuples = [tuple(m["move"]) for m in found if m["move"]]
        self.count = len(tuples)
        # Every legal play uses the same number of dice; a complete tuple shows how many.
        full = [t for t in tuples if len(t) % 2 == 0 and 0 not in t[1::2]]
        used = max((len(t) // 2 for t in full), default=None)
        self.results: set[Position] = set()
        self.partial = 0
        for t in tuples:
            if t in full:
                self.results.add(_apply(pos, t))
            elif used is not None and len(t) == 2 * used - 1:
                self.results.add(_apply(pos, (*t, 0)))
            else:
                self.partial += 1


def _apply(pos: Position, flat: tuple[int, ...]) -> Position:
    me, opp = list(pos.me), list(pos.opp)
    for frm, to in zip(flat[::2], flat[1::2], strict=True):
        me[frm] -= 1
        if to:
            me[to] += 1
            if opp[BAR - to] == 1:
                opp[BAR - to] = 0
                opp[BAR] += 1
        else:
            me[0] += 1
    return Position(tuple(me), tuple(opp))


@functools.cache
def _gnubg() -> tuple[Any, Any, Any]:
    """The ``gnubg`` module, a money game's centred cube and a 0-ply evaluation context (built
    once). The cube is given in full: ``gnubg.cubeinfo()`` without arguments takes the module's
    current match, which another test in the process may have left set (``Error in
    SetCubeInfo`` then, depending on the order the tests ran in)."""
    import gnubg

    # cube value 1, centred (-1), player 0 on roll, money (match to 0), no score, no Crawford,
    # the standard variant.
    cube = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)
    return gnubg, cube, gnubg.evalcontext(0, 0, 1, 0, 0)


def gnubg_find(pos: Position, dice: tuple[int, int]) -> list[dict[str, Any]]:
    """``gnubg.findbestmoves`` for this position and throw (0-ply, no cube)."""
    gnubg, cube, ec = _gnubg()
    found: list[dict[str, Any]] = gnubg.findbestmoves(gnubg_board(pos), cube, ec, dice)
    return found


def gnubg_plays(pos: Position, dice: tuple[int, int]) -> GnubgPlays:
    """GNU Backgammon's legal plays, see :class:`GnubgPlays`."""
    return GnubgPlays(pos, gnubg_find(pos, dice))


def each_roll(positions: list[Position]) -> Iterator[tuple[Position, tuple[int, int]]]:
    """Every (position, throw) pair: the 21 throws of each position."""
    for pos in positions:
        for dice in ROLLS:
            yield pos, dice


@contextmanager
def gnubg_quiet() -> Iterator[None]:
    """GNU Backgammon prints boards on the C stdout: send them to /dev/null."""
    sys.stdout.flush()
    saved = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)
