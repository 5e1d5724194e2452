"""The ``basic`` bot: a cheap, pure-Python evaluation of backgammon positions and plain cube
rules. No tables, no lookahead: each legal play's resulting position is scored and the best is
played (a few milliseconds a decision).

The evaluation (:func:`evaluate`) scores a position after a play, from the side of the player
who just moved (``me``; the opponent, ``opp``, rolls next), in **pips**: the race (pip counts),
the blots the opponent can hit next roll (each throw of 36 that hits, weighted by what the hit
costs: the pips lost and the opponent's home board), points made (by where they are), primes,
the opponent's checkers on the bar against our home board, stacks; in a race, checkers borne
off and wasted pips.

The cube:

- in a **race** (no contact), the Keith count: the player on roll adds a seventh to their
  count; they double if it exceeds the opponent's by at most 4, redouble by at most 3 (and
  always when further ahead: the opponent then drops), and the opponent takes when the
  roller's count exceeds theirs by at least 2;
- in **contact**, an estimate of the chance the player on roll wins (:func:`win_chance`, the
  evaluation's pips on a normal curve): double from 68 %, redouble from 70 %, but not when the
  position is too good (90 % with gammon chances: play on for the gammon); take while the
  taker's chance is at least 25 %.

Resignations: accept one only when it pays at least what the position is likely worth to the
answerer (:func:`equity`, with a crude gammon estimate); the bot itself never resigns.

>>> from engine.moves import legal_plays
>>> from engine.notation import format_play
>>> start = Position.start()
>>> format_play(start, choose_play(legal_plays(start, (3, 1)).plays).moves)
'8/5 6/5'
>>> format_play(start, choose_play(legal_plays(start, (6, 1)).plays).moves)
'13/7 8/7'
>>> should_double(Position.from_points({1: 2, 2: 2}, {1: 3, 2: 3, 3: 3}))
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from engine.moves import Play
from engine.position import BAR, OFF, Position

__all__ = [
    "accepts_resignation",
    "choose_play",
    "equity",
    "evaluate",
    "gammon_chance",
    "in_contact",
    "keith_count",
    "should_double",
    "should_take",
    "win_chance",
]

# -- the throws, as distances a checker can travel ------------------------------------------------


def _reach(a: int, b: int) -> int:
    """The distances (as a bit mask, bit d) one checker can travel with the throw a-b."""
    if a == b:
        return sum(1 << (a * k) for k in range(1, 5))
    return (1 << a) | (1 << b) | (1 << (a + b))


_THROWS: tuple[tuple[int, int], ...] = tuple(
    (_reach(a, b), 1 if a == b else 2) for a in range(1, 7) for b in range(a, 7)
)
"""The 21 throws: (the distances one checker can travel, how many of 36 throws they are)."""

# -- the evaluation's weights, in pips ---------------------------------------------------------

_POINT = (
    (0, 1.0, 2.0, 3.5, 5.0, 7.0, 7.0, 6.0, 4.0, 2.5, 1.5, 1.0, 0.5)
    + (0.5,) * 5
    + (
        2.0,  # 18: the opponent's bar point
        2.5,  # 19: their 6 point
        5.0,  # 20: their 5 point, the golden anchor
        4.0,  # 21: their 4 point
        2.5,
        1.5,
        1.0,
    )
)
"""What a point made (two or more checkers) on each of our points is worth in contact."""
_PRIME = (0.0, 0.0, 0.0, 3.0, 7.0, 12.0, 20.0)
"""A run of this many consecutive points made (capped at 6)."""
_ON_BAR = 3.0
"""Each opponent checker on the bar, plus as much for each of our home points made."""
_STACK = 0.6
"""Each checker beyond the fourth on one point."""
_HIT_EXTRA = 6.0
"""What being hit costs beyond the pips lost, plus 3 per point of the opponent's home board."""
_TEMPO = 4.0
"""What being on roll is worth, in pips."""


def in_contact(pos: Position) -> bool:
    """Whether the two sides can still hit each other: some checker of one side is behind a
    checker of the other (the bar counts)."""
    me, opp = pos.me, pos.opp
    my_back = max((p for p in range(BAR, 0, -1) if me[p]), default=0)
    opp_back = max((p for p in range(BAR, 0, -1) if opp[p]), default=0)
    return my_back + opp_back > 25


def _home_points(side: tuple[int, ...]) -> int:
    return sum(1 for p in range(1, 7) if side[p] >= 2)


def _blot_risk(me: tuple[int, ...], opp: tuple[int, ...]) -> float:
    """What the opponent's next throw is expected to cost us in hits, in pips: for each throw
    that can hit a blot of ours (directly or with both dice, blocks ignored), the worst hit."""
    blots = [p for p in range(1, 25) if me[p] == 1]
    if not blots:
        return 0.0
    # The opponent's checkers in our numbering: their point q is our 25 - q, their bar our 0.
    shooters = [25 - q for q in range(1, 26) if opp[q]]
    extra = _HIT_EXTRA + 3.0 * _home_points(opp)
    costed: list[tuple[int, float]] = []
    for p in blots:
        mask = 0
        for x in shooters:
            d = p - x
            if 0 < d < 25:
                mask |= 1 << d
        if mask:
            costed.append((mask, (25 - p) + extra))
    if not costed:
        return 0.0
    total = 0.0
    for reach, weight in _THROWS:
        worst = 0.0
        for mask, cost in costed:
            if mask & reach and cost > worst:
                worst = cost
        total += weight * worst
    return total / 36.0


def _longest_prime(me: tuple[int, ...]) -> int:
    best = run = 0
    for p in range(1, 25):
        if me[p] >= 2:
            run += 1
            best = max(best, run)
        else:
            run = 0
    return best


def _structure(side: tuple[int, ...], other: tuple[int, ...]) -> float:
    """What a side's checkers are worth in contact beyond their pips: points made, primes,
    stacks, and the other side's checkers on the bar against its home board."""
    score = 0.0
    for p in range(1, 25):
        n = side[p]
        if n >= 2:
            score += _POINT[p]
            if n > 4:
                score -= _STACK * (n - 4)
    score += _PRIME[min(_longest_prime(side), 6)]
    if other[BAR]:
        home = _home_points(side)
        score += other[BAR] * (_ON_BAR + _ON_BAR * home / 2 + (20.0 if home == 6 else 0.0))
    return score


def evaluate(pos: Position) -> float:
    """A position after a play, scored from the mover's side (``pos.me``; ``pos.opp`` rolls
    next), in pips: higher is better for the mover."""
    me, opp = pos.me, pos.opp
    my_pips = sum(i * me[i] for i in range(1, 26))
    opp_pips = sum(i * opp[i] for i in range(1, 26))
    score = float(opp_pips - my_pips)
    if not in_contact(pos):
        # A race: bear off, and do not pile checkers on the low points (wasted pips).
        wasted = sum(me[p] * (7 - p) * 0.3 for p in range(1, 4) if me[p] > 2)
        gaps = sum(1 for p in range(1, 7) if not me[p] and any(me[p + 1 : 7]))
        return score + 2.0 * me[OFF] - wasted - 0.5 * gaps
    score += _structure(me, opp) - _structure(opp, me)
    score -= _blot_risk(me, opp)
    return score


def choose_play(plays: Sequence[Play]) -> Play:
    """The play whose resulting position :func:`evaluate` scores best (the first of equals).

    :raises ValueError: no plays to choose from.
    """
    if not plays:
        raise ValueError("no legal play to choose from")
    return max(plays, key=lambda p: evaluate(p.result))


# -- the cube --------------------------------------------------------------------------------


def keith_count(side: tuple[int, ...]) -> int:
    """The Keith count of a side in a race: its pips, plus 2 for each checker beyond one on
    the 1 point, 1 for each beyond one on the 2 point and beyond three on the 3 point, and 1
    for each of the 4, 5 and 6 points empty."""
    count = sum(i * side[i] for i in range(1, 26))
    count += 2 * max(0, side[1] - 1) + max(0, side[2] - 1) + max(0, side[3] - 3)
    count += sum(1 for p in (4, 5, 6) if not side[p])
    return count


def _normal(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def win_chance(pos: Position) -> float:
    """The chance that the player on roll (``pos.me``, before rolling) wins, estimated: the
    evaluation's lead in pips, with the tempo of being on roll, on a normal curve whose spread
    grows with the pips left (wider in contact)."""
    me, opp = pos.me, pos.opp
    if me[OFF] == 15:
        return 1.0
    if opp[OFF] == 15:
        return 0.0
    total = pos.pip_count(0) + pos.pip_count(1)
    lead = -evaluate(pos.swap()) + _TEMPO
    spread = 1.48 * math.sqrt(max(total, 4))
    if in_contact(pos):
        spread *= 1.4
    else:
        # A race the roller finishes this throw (two checkers or fewer, all on low points).
        left = [p for p in range(1, 26) for _ in range(me[p])]
        if len(left) <= 2 and max(left) <= 2:
            return 1.0
    return min(max(_normal(lead / spread), 0.0), 1.0)


def gammon_chance(pos: Position) -> float:
    """A crude estimate of the chance that the player on roll wins a gammon (or better): none
    once the opponent has borne a checker off; otherwise growing with the chance of winning
    and with how far the opponent is from bearing one off."""
    opp = pos.opp
    if opp[OFF]:
        return 0.0
    # Pips the opponent needs to bring every checker home and bear one off.
    outside = sum((p - 6) * opp[p] for p in range(7, 26))
    needed = outside + min((p for p in range(1, 7) if opp[p]), default=6)
    if not in_contact(pos):
        # The race to the end: ours to bear everything off, theirs to save the gammon.
        mine = pos.pip_count(0) - _TEMPO
        return _normal((needed - mine) / (1.48 * math.sqrt(max(mine + needed, 4))))
    p = win_chance(pos)
    return max(0.0, p - 0.55) * min(1.0, needed / 60.0)


def equity(pos: Position) -> float:
    """The cubeless value of the game to the player on roll, in points per cube: winning,
    losing and gammons estimated (:func:`win_chance`, :func:`gammon_chance`)."""
    p = win_chance(pos)
    mine = gammon_chance(pos)
    theirs = gammon_chance(pos.swap()) if p < 0.5 else 0.0
    return p * (1 + mine) - (1 - p) * (1 + theirs)


def should_double(
    pos: Position, *, centred: bool = True, match_away: int | None = None, cube: int = 1
) -> bool:
    """Whether the player on roll (``pos.me``, before rolling) should double.

    :param centred: the cube is in the middle (an initial double) rather than owned by them
        (a redouble).
    :param match_away: in a match, the points the doubler still needs: a cube already worth
        that many (a dead cube) is never turned.
    :param cube: the cube's value now.
    """
    if match_away is not None and cube >= match_away:
        return False
    if not in_contact(pos):
        lead = keith_count(pos.opp) - keith_count(pos.me) * 8 / 7
        # Double when behind by at most 4 (redouble: 3), and whenever ahead: they will drop.
        return -lead <= (4 if centred else 3)
    p = win_chance(pos)
    if p >= 0.9 and gammon_chance(pos) > 0.15:
        return False  # too good: play on for the gammon
    return p >= (0.68 if centred else 0.70)


def should_take(pos: Position) -> bool:
    """Whether the opponent should take a double from the player on roll (``pos.me``, the
    doubler, before rolling)."""
    if not in_contact(pos):
        return keith_count(pos.me) * 8 / 7 - keith_count(pos.opp) >= 2
    return 1.0 - win_chance(pos) >= 0.25 and gammon_chance(pos) < 0.4


def accepts_resignation(pos: Position, level: int) -> bool:
    """Whether the opponent of the player on roll (``pos.me`` offered to resign ``level``: 1
    single, 2 gammon, 3 backgammon) should accept: when the offer pays at least what the game
    is likely worth to them."""
    return level >= -equity(pos) - 1e-9
