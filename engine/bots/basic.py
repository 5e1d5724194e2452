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
- in **contact**, the chances of winning, winning a gammon and losing one, estimated from the
  board (:func:`contact_chances`: a weighted sum of the board's points and of counts such as
  checkers back and borne off, on a normal curve, the weights fitted to GNU Backgammon's
  evaluation and kept in :mod:`engine.bots.contact_weights`). From them the taker's take
  point (:func:`take_point`: Janowski's, between a dead and a live cube's). The roller doubles
  when the taker's chance is at most 1 point above that take point (a redouble: 1 point below),
  unless the game is too good to double (a cubeless equity of 0.85 or more: play on for the
  gammon); the taker takes when their chance is at least 2 points above it (the estimates
  err by some 5 points, so the bot doubles and takes only where it is fairly sure);
- in a **match**: never a dead cube (a cube already worth what the doubler needs), nor in the
  Crawford game; when the cube already wins the opponent the match (after the Crawford game)
  the doubler risks nothing and doubles as soon as they are the favourite; a double whose drop
  would lose the taker the match is always taken, and at double match point after a drop the
  taker takes when they are at least as likely to win; otherwise money's rules.

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

from engine.bots import contact_weights as weights
from engine.moves import Play
from engine.position import BAR, OFF, Position

__all__ = [
    "accepts_resignation",
    "choose_play",
    "contact_chances",
    "contact_inputs",
    "equity",
    "evaluate",
    "gammon_chance",
    "in_contact",
    "keith_count",
    "should_double",
    "should_take",
    "take_point",
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


# -- the estimates in contact -----------------------------------------------------------------
#
# In contact the evaluation alone is a poor guide to the chances (it misses what being trapped
# behind a prime, or far into a bear-off against checkers still back, is worth), so the chances
# of winning, of winning a gammon and of losing one are each read off a normal curve from a
# weighted sum of the board's points and what :func:`_counted` counts (the weights, and how
# they were fitted, are in engine/bots/contact_weights.py).


def _counted(pos: Position) -> tuple[float, ...]:
    """What the contact estimates weigh, for the player on roll (``me``) and the opponent: a
    constant, the evaluation's lead and the pip lead (each per square root of the pips left),
    checkers back (in the other's home board or on the bar), borne off, home points made, the
    longest prime, checkers on the bar, the shots at the other's blots (in tens of pips, as
    :func:`evaluate` costs them) and checkers outside the home board."""
    me, opp = pos.me, pos.opp
    root = math.sqrt(max(pos.pip_count(0) + pos.pip_count(1), 4))
    return (
        1.0,
        -evaluate(pos.swap()) / root,
        (pos.pip_count(1) - pos.pip_count(0)) / root,
        sum(me[19:26]),
        sum(opp[19:26]),
        me[OFF],
        opp[OFF],
        _home_points(me),
        _home_points(opp),
        _longest_prime(me),
        _longest_prime(opp),
        me[BAR],
        opp[BAR],
        _blot_risk(opp, me) / 10,
        _blot_risk(me, opp) / 10,
        sum(me[7:26]),
        sum(opp[7:26]),
    )


def contact_inputs(pos: Position) -> tuple[float, ...]:
    """The inputs the contact estimates weigh (:mod:`engine.bots.contact_weights`): the board,
    point by point for each side, and what :func:`_counted` counts."""
    inputs = [1.0]
    for side in (pos.me, pos.opp):
        points = side[1:25]
        inputs += [1.0 if n >= 1 else 0.0 for n in points]
        inputs += [1.0 if n >= 2 else 0.0 for n in points]
        inputs += [1.0 if n >= 3 else 0.0 for n in points]
        inputs += [max(n - 3, 0) / 2 for n in points]
        inputs += [side[BAR] / 2, side[OFF] / 15]
    mine, theirs = pos.pip_count(0), pos.pip_count(1)
    inputs.append((theirs - mine) / math.sqrt(max(mine + theirs, 4)))
    inputs += _counted(pos)[1:]
    return tuple(inputs)


def contact_chances(pos: Position) -> tuple[float, float, float]:
    """In contact, the estimated chances of the player on roll (before rolling): (winning,
    winning a gammon, losing a gammon), each gammon at most its side's chance of winning."""
    inputs = contact_inputs(pos)

    def chance(weights: tuple[float, ...]) -> float:
        return _normal(sum(w * x for w, x in zip(weights, inputs, strict=True)))

    win = chance(weights.WIN)
    won_gammon = 0.0 if pos.opp[OFF] else min(chance(weights.WIN_GAMMON), win)
    lost_gammon = 0.0 if pos.me[OFF] else min(chance(weights.LOSE_GAMMON), 1.0 - win)
    return win, won_gammon, lost_gammon


def win_chance(pos: Position) -> float:
    """The chance that the player on roll (``pos.me``, before rolling) wins, estimated: in
    contact :func:`contact_chances`; in a race the evaluation's lead in pips, with the tempo of
    being on roll, on a normal curve whose spread grows with the pips left."""
    me, opp = pos.me, pos.opp
    if me[OFF] == 15:
        return 1.0
    if opp[OFF] == 15:
        return 0.0
    total = pos.pip_count(0) + pos.pip_count(1)
    if in_contact(pos):
        return contact_chances(pos)[0]
    # A race the roller finishes this throw (two checkers or fewer, all on low points).
    left = [p for p in range(1, 26) for _ in range(me[p])]
    if len(left) <= 2 and max(left) <= 2:
        return 1.0
    # The Keith count's lead (its wastage counted: stacks on the low points, gaps), with the
    # tempo of being on roll; the plain pip lead overrates a side with many checkers to bear off.
    lead = keith_count(pos.opp) - keith_count(me) + _TEMPO
    spread = 1.48 * math.sqrt(max(total, 4))
    return min(max(_normal(lead / spread), 0.0), 1.0)


def gammon_chance(pos: Position) -> float:
    """An estimate of the chance that the player on roll wins a gammon (or better): none once
    the opponent has borne a checker off; in contact :func:`contact_chances`; in a race, from
    how far the opponent is from bearing one off against our pips."""
    opp = pos.opp
    if opp[OFF]:
        return 0.0
    if in_contact(pos):
        return contact_chances(pos)[1]
    # Pips the opponent needs to bring every checker home and bear one off.
    outside = sum((p - 6) * opp[p] for p in range(7, 26))
    needed = outside + min((p for p in range(1, 7) if opp[p]), default=6)
    # The race to the end: ours to bear everything off, theirs to save the gammon.
    mine = pos.pip_count(0) - _TEMPO
    return _normal((needed - mine) / (1.48 * math.sqrt(max(mine + needed, 4))))


def _evaluation_win(pos: Position) -> float:
    """The evaluation's own estimate of the roller's chance: its lead in pips, with the tempo
    of being on roll, on a normal curve whose spread grows with the pips left (wider in
    contact). Cruder than :func:`contact_chances` where those were fitted, but it holds far
    outside them (all of one side's checkers back while the other bears off its last)."""
    if in_contact(pos) and pos.me[OFF] < 15 and pos.opp[OFF] < 15:
        total = pos.pip_count(0) + pos.pip_count(1)
        lead = -evaluate(pos.swap()) + _TEMPO
        return _normal(lead / (1.48 * 1.4 * math.sqrt(max(total, 4))))
    return win_chance(pos)


def _evaluation_gammon(pos: Position) -> float:
    """The evaluation's own estimate of the roller's chance of a gammon (see
    :func:`_evaluation_win`): in contact, growing with the chance of winning and with how far
    the opponent is from bearing a checker off."""
    opp = pos.opp
    if opp[OFF] or not in_contact(pos):
        return gammon_chance(pos)
    outside = sum((p - 6) * opp[p] for p in range(7, 26))
    needed = outside + min((p for p in range(1, 7) if opp[p]), default=6)
    return max(0.0, _evaluation_win(pos) - 0.55) * min(1.0, needed / 60.0)


def equity(pos: Position) -> float:
    """The cubeless value of the game to the player on roll, in points per cube, by the
    evaluation's own estimates of winning and of gammons (what resignations are judged by)."""
    p = _evaluation_win(pos)
    mine = _evaluation_gammon(pos)
    theirs = _evaluation_gammon(pos.swap()) if p < 0.5 else 0.0
    return p * (1 + mine) - (1 - p) * (1 + theirs)


EFFICIENCY = 0.68
"""Janowski's cube efficiency, between a dead (0) and a fully live (1) cube."""
DOUBLE_WINDOW = (0.01, -0.01)
"""How far above their take point the taker's chance may be for a double (initial, redouble)."""
TOO_GOOD = 0.85
"""A cubeless equity from which the doubler plays on for the gammon instead of doubling."""
TAKE_MARGIN = 0.02
"""How far above their take point the taker's estimated chance must be for a take."""
MIN_DOUBLE_WIN = 0.55
"""The least estimated chance to win from which the bot doubles at all: its estimate can be a few
points off GNU Backgammon's, and a double below 50 % to win is never the bot's to make (issue 29:
measured in ``bench/bots.py``), even in a gammonish position Janowski's window would double in."""


def take_point(win: float, won_gammon: float, lost_gammon: float) -> float:
    """The taker's chance of winning below which they should drop, from the doubler's chances:
    between a dead cube's take point, ``(L - 0.5) / (W + L)``, and a live cube's, ``(L - 0.5) /
    (W + L + 0.5)``, by :data:`EFFICIENCY` (``W`` and ``L`` the taker's average win and loss,
    in points per cube, gammons counting two)."""
    p = min(max(win, 1e-6), 1 - 1e-6)
    w = (1 - p + lost_gammon) / (1 - p)
    lose = (p + won_gammon) / p
    dead = (lose - 0.5) / (w + lose)
    live = (lose - 0.5) / (w + lose + 0.5)
    return EFFICIENCY * live + (1 - EFFICIENCY) * dead


def should_double(
    pos: Position,
    *,
    centred: bool = True,
    match_away: int | None = None,
    cube: int = 1,
    opponent_away: int | None = None,
) -> bool:
    """Whether the player on roll (``pos.me``, before rolling) should double.

    :param centred: the cube is in the middle (an initial double) rather than owned by them
        (a redouble).
    :param match_away: in a match, the points the doubler still needs: a cube already worth
        that many (a dead cube: a win as it is wins the match) is never turned.
    :param cube: the cube's value now.
    :param opponent_away: in a match, the points the opponent still needs: when the cube as it
        is already wins them the match (after the Crawford game), doubling risks nothing, so
        the doubler doubles as soon as they are the favourite.
    """
    if match_away is not None and cube >= match_away:
        return False
    if opponent_away is not None and cube >= opponent_away:
        return win_chance(pos) >= MIN_DOUBLE_WIN
    if not in_contact(pos):
        lead = keith_count(pos.opp) - keith_count(pos.me) * 8 / 7
        # Double when behind by at most 4 (redouble: 3), and whenever ahead: they will drop.
        return -lead <= (4 if centred else 3)
    win, won_gammon, lost_gammon = contact_chances(pos)
    if 2 * win - 1 + won_gammon - lost_gammon >= TOO_GOOD:
        return False  # too good: play on for the gammon
    if win < MIN_DOUBLE_WIN:
        return False
    window = DOUBLE_WINDOW[0 if centred else 1]
    return 1 - win <= take_point(win, won_gammon, lost_gammon) + window


def should_take(
    pos: Position, *, match_away: int | None = None, cube: int = 1, taker_away: int | None = None
) -> bool:
    """Whether the opponent should take a double from the player on roll (``pos.me``, the
    doubler, before rolling).

    :param match_away: in a match, the points the doubler still needs: when a drop (worth
        ``cube`` to them) would win them the match, the taker takes whatever the position.
    :param cube: the cube's value before the double.
    :param taker_away: in a match, the points the taker still needs: when they need one and a
        drop would leave the doubler needing one too, the game taken decides the match as the
        next one would after a drop (double match point): they take when they are at least
        as likely to win this game as that one (50 %).
    """
    if match_away is not None and cube >= match_away:
        return True
    if match_away is not None and taker_away == 1 and match_away - cube == 1:
        return win_chance(pos) <= 0.5
    if not in_contact(pos):
        return keith_count(pos.me) * 8 / 7 - keith_count(pos.opp) >= 2
    win, won_gammon, lost_gammon = contact_chances(pos)
    return 1 - win >= take_point(win, won_gammon, lost_gammon) + TAKE_MARGIN


def accepts_resignation(pos: Position, level: int) -> bool:
    """Whether the opponent of the player on roll (``pos.me`` offered to resign ``level``: 1
    single, 2 gammon, 3 backgammon) should accept: when the offer pays at least what the game
    is likely worth to them."""
    return level >= -equity(pos) - 1e-9
