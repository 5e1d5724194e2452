"""The ``gnubg`` strength: GNU Backgammon's evaluation, with the optional extra
(``pip install 'chouette[gnubg]'``: its ``gnubg`` Python module, GPL, compatible with our AGPL).

The module is imported lazily, on a brain's first use, so that the server runs without it
(:func:`available` says whether it is installed).

- **Checker play:** ``gnubg.findbestmove`` at the configured ply (cubeless), the tuple mapped
  to our legal play with the same result.
- **Cube:** GNU Backgammon's cubeless probabilities for the player on roll (win, gammon and
  backgammon both ways) at the ply, turned into a money doubling window the way Janowski's
  model does: the taker's take point lies between the dead cube's, ``(L - 0.5) / (W + L)``,
  and the live cube's, ``(L - 0.5) / (W + L + 0.5)``, weighted by a cube efficiency of 0.68
  (``W`` and ``L`` the taker's average win and loss). The doubler doubles when the taker's
  chance is within a few points of that take point (or below it), unless it is too good
  (cubeless equity of a full point or more: play on for the gammon). In a match, a dead cube
  (already worth what the doubler needs) is never turned.
- **Cube in a match:** by match equity, not the money window. GNU Backgammon's match equity
  table (``gnubg.met``, pre- and post-Crawford) values each outcome of the game at the score —
  the doubler's chance of winning the match if the taker drops, if they take (the game then
  played for twice the cube, each of win, gammon and backgammon either way, from GNU
  Backgammon's cubeless probabilities at the ply), and if
  nobody doubles (the game played for the cube as it is). The taker takes when taking is worth
  more to them than dropping; the doubler doubles when doubling (the taker's better answer) is
  worth more than not, with the cube treated as dead on both sides (so the value of owning the
  cube, largest far from the end of a match, is not counted). So a trailer doubles at once
  after the Crawford game (the leader's cube is worthless), nobody doubles in the Crawford game
  or a cube that is already dead, and a leader at 1-away takes only when winning is at least
  as likely as it needs to be at that score.
- **Resignations:** accepted when the offer pays at least the answerer's cubeless equity; in a
  match, when the offerer's chance of the match after it is no better than playing on.
"""

from __future__ import annotations

import functools
import importlib.util
from typing import Any

from engine.moves import Play
from engine.position import Position

__all__ = [
    "EFFICIENCY",
    "GnubgBrain",
    "available",
    "match_cube",
    "match_winning_chance",
    "probabilities",
]

EFFICIENCY = 0.68
"""The cube efficiency of Janowski's model, between a dead (0) and a fully live (1) cube."""


def available() -> bool:
    """Whether GNU Backgammon's Python module is installed (the ``gnubg`` extra)."""
    try:
        return importlib.util.find_spec("gnubg") is not None
    except (ImportError, ValueError):
        return False  # blocked (a test's stand-in for a server without it)


@functools.cache
def _gnubg() -> Any:
    import gnubg

    return gnubg


def _board(pos: Position) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """GNU Backgammon's board: (the player not on roll, the player on roll), each points 1..24
    then the bar."""
    return (pos.opp[1:26], pos.me[1:26])


def _money_cube(g: Any) -> Any:
    """A centred cube in money play, said in full: ``gnubg.cubeinfo()`` with no arguments reads
    the module's current match (whatever a caller last set up there), which can be invalid."""
    return g.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)


@functools.cache
def _met(length: int) -> tuple[Any, Any]:
    """GNU Backgammon's match equity table for a match to ``length``: (pre-Crawford
    ``[away - 1][opponent away - 1]``, post-Crawford ``[trailer away - 1]``, the trailer's
    chance against a leader at 1-away)."""
    table = _gnubg().met(max(length, 2))
    return table[0], table[1]


def match_winning_chance(length: int, away: int, other: int, post_crawford: bool) -> float:
    """The chance of winning the match of a player needing ``away`` points against one needing
    ``other``, at the start of a game (``post_crawford``: the Crawford game has been played)."""
    if away <= 0:
        return 1.0
    if other <= 0:
        return 0.0
    pre, post = _met(length)
    if post_crawford and (away == 1 or other == 1):
        if away == 1 and other == 1:
            return 0.5
        return 1.0 - float(post[other - 1]) if away == 1 else float(post[away - 1])
    return float(pre[away - 1][other - 1])


def match_cube(probs: tuple[float, ...], cube: Any) -> tuple[float, float, float]:
    """The doubler's (the player on roll's) chance of winning the match if they do not double,
    if they double and the taker takes, and if the taker drops, at the score (dead cube)."""
    win, wg, wbg, lg, lbg = probs[:5]
    # Singles, gammons and backgammons won and lost.
    outcomes = (
        (win - wg, 1),
        (wg - wbg, 2),
        (wbg, 3),
        (-(1 - win - lg), 1),
        (-(lg - lbg), 2),
        (-lbg, 3),
    )
    length = cube.match_length
    a, b = length - cube.score[0], length - cube.score[1]
    post = not cube.crawford and (a == 1 or b == 1)

    def played_for(value: int) -> float:
        total = 0.0
        for p, points in outcomes:
            if p >= 0:
                total += p * match_winning_chance(length, a - points * value, b, post)
            else:
                total += -p * match_winning_chance(length, a, b - points * value, post)
        return total

    return (
        played_for(cube.value),
        played_for(2 * cube.value),
        match_winning_chance(length, a - cube.value, b, post),
    )


def probabilities(pos: Position, ply: int = 0) -> tuple[float, ...]:
    """GNU Backgammon's cubeless evaluation for the player on roll (before rolling): (win,
    win gammon, win backgammon, lose gammon, lose backgammon, equity)."""
    g = _gnubg()
    return tuple(g.evaluate(_board(pos), _money_cube(g), g.evalcontext(0, ply, 1, 0, 0)))


def _take_point(win: float, wg: float, wbg: float, lg: float, lbg: float) -> tuple[float, ...]:
    """The taker's take point (their chance of winning below which they drop) and chance of
    winning, from the doubler's probabilities."""
    p = min(max(win, 1e-6), 1 - 1e-6)
    # The taker's average win and loss, in points per cube.
    w_t = (1 - p + lg + lbg) / (1 - p)
    l_t = (p + wg + wbg) / p
    dead = (l_t - 0.5) / (w_t + l_t)
    live = (l_t - 0.5) / (w_t + l_t + 0.5)
    return EFFICIENCY * live + (1 - EFFICIENCY) * dead, 1 - p


class GnubgBrain:
    """GNU Backgammon's judgement at ``ply`` (0: its neural nets alone)."""

    def __init__(self, ply: int = 0) -> None:
        if not 0 <= ply <= 3:
            raise ValueError(f"the ply is 0 to 3, not {ply!r}")
        self.ply = ply
        self.gnubg = _gnubg()

    def play(self, position: Position, dice: tuple[int, int], plays: tuple[Play, ...]) -> Play:
        if len(plays) == 1:
            return plays[0]
        g = self.gnubg
        best = g.findbestmove(
            _board(position), _money_cube(g), g.evalcontext(0, self.ply, 1, 0, 0), dice
        )
        found = _match(position, tuple(best), plays)
        if found is not None:
            return found
        # A tuple that stops at a bear-off our plays cannot be told apart by: GNU
        # Backgammon's evaluation of each result decides.
        return max(plays, key=lambda p: -probabilities(p.result.swap(), self.ply)[5])

    def double(self, position: Position, cube: Any) -> bool:
        if cube.match_length:
            away = cube.match_length - cube.score[0]
            if cube.crawford or cube.value >= away:
                return False
            no_double, take, drop = match_cube(probabilities(position, self.ply), cube)
            return min(take, drop) > no_double
        win, wg, wbg, lg, lbg, equity = probabilities(position, self.ply)
        if equity >= 1.0:
            return False  # too good: play on
        take_point, taker = _take_point(win, wg, wbg, lg, lbg)
        window = 0.08 if cube.owner is None else 0.05
        return taker <= take_point + window

    def take(self, position: Position, cube: Any) -> bool:
        if cube.match_length:
            _, take, drop = match_cube(probabilities(position, self.ply), cube)
            return take <= drop  # the doubler's chance: the taker's is one minus it
        win, wg, wbg, lg, lbg, _ = probabilities(position, self.ply)
        take_point, taker = _take_point(win, wg, wbg, lg, lbg)
        return taker >= take_point

    def accept(self, position: Position, level: int, cube: Any) -> bool:
        if cube.match_length:
            # The offerer's chance of the match if accepted, against playing on (the cube
            # as it is): accepted when it leaves the offerer no better off than playing on.
            playing_on = match_cube(probabilities(position, self.ply), cube)[0]
            away, other = cube.match_length - cube.score[0], cube.match_length - cube.score[1]
            post = not cube.crawford and (away == 1 or other == 1)
            # Accepted, the answerer scores the offer.
            accepted = match_winning_chance(
                cube.match_length, away, other - level * cube.value, post
            )
            return accepted <= playing_on + 1e-9
        equity = probabilities(position, self.ply)[5]
        return level >= -equity - 1e-9


def _match(pos: Position, flat: tuple[int, ...], plays: tuple[Play, ...]) -> Play | None:
    """Our play that GNU Backgammon's move tuple (``from, to, ...``) makes, if the tuple says
    enough (one that stops at a bear-off's source point is finished with ``off``)."""
    if len(flat) % 2:
        flat = (*flat, 0)
    me, opp = list(pos.me), list(pos.opp)
    for frm, to in zip(flat[::2], flat[1::2], strict=True):
        if frm < 0 or to < 0:
            break
        me[frm] -= 1
        if to:
            me[to] += 1
            if opp[25 - to] == 1:
                opp[25 - to] = 0
                opp[25] += 1
        else:
            me[0] += 1
    result = (tuple(me), tuple(opp))
    for p in plays:
        if (p.result.me, p.result.opp) == result:
            return p
    return None
