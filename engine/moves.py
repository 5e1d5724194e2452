"""Legal plays.

A *move* is one checker moved by one die, ``(from, to)`` in the mover's numbering (25 = bar,
0 = off). A *play* is the whole set of moves for a throw. Two move orders that leave the same
position are the same play, so :func:`legal_plays` lists each resulting position once, as
GNU Backgammon does.

The filter is GNU Backgammon's: among all ways to move, keep those that use the most dice, and
among those the most pips of dice (so when only one die of a non-double can be played, the larger
one if it can be). Bearing off is judged die by die, so a checker that comes home with the first
die lets the second bear off.

>>> from engine.position import Position
>>> plays = legal_plays(Position.start(), (3, 1))
>>> len(plays)
16
>>> ((8, 5), (6, 5)) in plays
True
>>> bool(legal_plays(Position.from_id('4HPwATDgc/ABUA'), (6, 6)))
False
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import NamedTuple

from engine.errors import IllegalPlayError, InvalidDiceError, InvalidPlayError
from engine.position import BAR, Position

Move = tuple[int, int]
"""One checker moved by one die: ``(from, to)``, 25 = bar, 0 = off."""


class Play(NamedTuple):
    """One legal play: its moves in an order that can be applied, and the resulting position."""

    moves: tuple[Move, ...]
    """``(from, to)`` pairs in the mover's numbering, in an order that can be applied."""
    result: Position
    """The position after the play, still seen by the player who moved (``result.swap()`` is
    what the opponent sees on roll)."""


def check_dice(dice: Sequence[int]) -> tuple[int, int]:
    """Validate a throw of two dice.

    :raises InvalidDiceError: not two integers in 1..6.
    """
    if (
        not isinstance(dice, (tuple, list))
        or len(dice) != 2
        or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)
    ):
        raise InvalidDiceError(f"dice must be two integers from 1 to 6, got {dice!r}")
    return (dice[0], dice[1])


def _generate(me: tuple[int, ...], opp: tuple[int, ...], d1: int, d2: int) -> tuple[Play, ...]:
    """Every legal play, each resulting position once (the hot path; see the module doc)."""
    b = list(me)
    # The opponent's checkers in the mover's numbering: o[q] = opp[25 - q] for q in 1..24;
    # o[0] and o[25] collect the opponent's off and bar so the key describes the whole board.
    o = [opp[0], *opp[24:0:-1], opp[25]]
    out: dict[tuple[int, ...], tuple[Move, ...]] = {}
    best = [0, 0]
    moves: list[Move] = []

    def record(depth: int, pips: int) -> None:
        if depth < best[0] or (depth == best[0] and pips < best[1]):
            return
        if depth > best[0] or pips > best[1]:
            out.clear()
            best[0], best[1] = depth, pips
        key = (*b, *o)
        if key not in out:
            out[key] = tuple(moves)

    def search(dice: tuple[int, ...], depth: int, limit: int, pips: int) -> None:
        if depth == len(dice):
            record(depth, pips)
            return
        d = dice[depth]
        if b[BAR]:
            to = BAR - d
            if o[to] >= 2:
                record(depth, pips)
                return
            hit = o[to]
            b[BAR] -= 1
            b[to] += 1
            if hit:
                o[to] = 0
                o[BAR] += 1
            moves.append((BAR, to))
            search(dice, depth + 1, limit, pips + d)
            moves.pop()
            if hit:
                o[to] = 1
                o[BAR] -= 1
            b[to] -= 1
            b[BAR] += 1
            return
        hi = 24
        while hi and not b[hi]:
            hi -= 1
        used = False
        for p in range(min(limit, hi), 0, -1):
            if not b[p]:
                continue
            to = p - d
            if to > 0:
                if o[to] >= 2:
                    continue
            elif hi > 6 or (to < 0 and p != hi):
                continue
            else:
                to = 0
            used = True
            hit = to and o[to]
            b[p] -= 1
            b[to] += 1
            if hit:
                o[to] = 0
                o[BAR] += 1
            moves.append((p, to))
            # With doubles the order of moves does not matter, so only non-increasing
            # sources are tried: each multiset of moves once.
            search(dice, depth + 1, p if len(dice) == 4 else 24, pips + d)
            moves.pop()
            if hit:
                o[to] = 1
                o[BAR] -= 1
            b[to] -= 1
            b[p] += 1
        if not used:
            record(depth, pips)

    if d1 == d2:
        search((d1, d1, d1, d1), 0, 24, 0)
    else:
        search((d1, d2), 0, 24, 0)
        search((d2, d1), 0, 24, 0)
    if best[0] == 0:
        return ()
    plays = []
    for key, mv in out.items():
        mine = (15 - sum(key[1:26]), *key[1:26])
        theirs = (key[26], *key[50:26:-1], key[51])
        plays.append(Play(mv, Position(mine, theirs)))
    return tuple(plays)


@lru_cache(maxsize=65536)
def _cached(me: tuple[int, ...], opp: tuple[int, ...], hi: int, lo: int) -> tuple[Play, ...]:
    return _generate(me, opp, hi, lo)


class LegalPlays:
    """The legal plays for a position and a throw: a lazy, immutable collection.

    Supports ``len``, truthiness, iteration and ``in`` with a :class:`Play`, a resulting
    :class:`Position` or a sequence of moves (any order that leaves a legal result).
    """

    __slots__ = ("_plays", "dice", "position")

    def __init__(self, position: Position, dice: Sequence[int]) -> None:
        self.position = position
        self.dice = check_dice(dice)
        self._plays: tuple[Play, ...] | None = None

    @property
    def plays(self) -> tuple[Play, ...]:
        """The plays, generated on first use (cached by position and dice)."""
        if self._plays is None:
            d1, d2 = self.dice
            self._plays = _cached(self.position.me, self.position.opp, max(d1, d2), min(d1, d2))
        return self._plays

    def __len__(self) -> int:
        return len(self.plays)

    def __bool__(self) -> bool:
        return bool(self.plays)

    def __iter__(self) -> Iterator[Play]:
        return iter(self.plays)

    def __contains__(self, item: object) -> bool:
        if isinstance(item, Play):
            item = item.result
        if isinstance(item, Position):
            return any(p.result == item for p in self.plays)
        if isinstance(item, (tuple, list)):
            try:
                return apply_moves(self.position, self.dice, item) in self
            except (InvalidPlayError, IllegalPlayError):
                return False
        return False

    def count(self) -> int:
        """The number of distinct legal plays (resulting positions)."""
        return len(self.plays)

    def results(self) -> frozenset[Position]:
        """The set of resulting positions."""
        return frozenset(p.result for p in self.plays)

    def __repr__(self) -> str:
        return f"<LegalPlays {self.position.position_id()} {self.dice} ({len(self)} plays)>"


def legal_plays(position: Position, dice: Sequence[int]) -> LegalPlays:
    """Every legal play for the player on roll, each resulting position once.

    :raises InvalidDiceError: dice not two integers in 1..6.
    """
    return LegalPlays(position, dice)


def is_legal(position: Position, dice: Sequence[int], moves: Sequence[Move]) -> bool:
    """Whether ``moves`` is a legal play (an empty sequence is legal only when nothing can move).

    :raises InvalidDiceError: dice not two integers in 1..6.
    """
    return moves in legal_plays(position, dice) or (not moves and not legal_plays(position, dice))


def _single_move(
    me: list[int], opp: list[int], frm: int, to: int, dice_left: list[int], pid: str
) -> int:
    """Apply one move in place; return the die used.

    :raises InvalidPlayError: a move that no die could make.
    :raises IllegalPlayError: a move that breaks a rule, with the reason.
    """
    if not (type(frm) is int and type(to) is int and 0 <= to < frm <= BAR):
        # type() rather than isinstance(): True and False are ints, but not points.
        raise InvalidPlayError(f"not a move: {(frm, to)!r}")
    if frm != BAR and me[BAR]:
        raise IllegalPlayError(
            f"{_fmt(frm, to)}: a checker on the bar must enter first (position {pid})"
        )
    if not me[frm]:
        raise IllegalPlayError(f"{_fmt(frm, to)}: no checker on {_pt(frm)} (position {pid})")
    dist = frm - to
    if to == 0:
        if any(me[7:26]):
            raise IllegalPlayError(
                f"{_fmt(frm, to)}: cannot bear off before all checkers are home (position {pid})"
            )
        if dist in dice_left:
            die = dist
        else:
            higher = [d for d in dice_left if d > dist]
            if not higher:
                raise IllegalPlayError(
                    f"{_fmt(frm, to)}: no die of {dist} or more left (dice left "
                    f"{sorted(dice_left)}, position {pid})"
                )
            if any(me[frm + 1 : 7]):
                raise IllegalPlayError(
                    f"{_fmt(frm, to)}: a higher die bears off only from the highest point, "
                    f"and there are checkers above {frm} (position {pid})"
                )
            die = min(higher)
    else:
        if dist not in dice_left:
            raise IllegalPlayError(
                f"{_fmt(frm, to)}: no die of {dist} left (dice left {sorted(dice_left)}, "
                f"position {pid})"
            )
        die = dist
        if opp[25 - to] >= 2:
            raise IllegalPlayError(f"{_fmt(frm, to)}: point {to} is blocked (position {pid})")
    dice_left.remove(die)
    me[frm] -= 1
    if to:
        me[to] += 1
        if opp[25 - to] == 1:
            opp[25 - to] = 0
            opp[BAR] += 1
    else:
        me[0] += 1
    return die


def apply_moves(position: Position, dice: Sequence[int], moves: Sequence[Move]) -> Position:
    """Apply moves one by one, checking each against the dice and the board (not the
    use-as-many-dice rule: :func:`play` checks that).

    :raises InvalidPlayError: malformed moves.
    :raises IllegalPlayError: a move that breaks a rule, with the reason.
    """
    d1, d2 = check_dice(dice)
    dice_left = [d1] * 4 if d1 == d2 else [d1, d2]
    if not isinstance(moves, (tuple, list)):
        raise InvalidPlayError(f"moves must be a sequence of (from, to) pairs: {moves!r}")
    if len(moves) > len(dice_left):
        raise InvalidPlayError(f"{len(moves)} moves for a throw of {d1}-{d2}")
    me, opp = list(position.me), list(position.opp)
    pid = position.position_id()
    for mv in moves:
        if not isinstance(mv, (tuple, list)) or len(mv) != 2:
            raise InvalidPlayError(f"not a move: {mv!r}")
        _single_move(me, opp, mv[0], mv[1], dice_left, pid)
    return Position(tuple(me), tuple(opp))


def play(position: Position, dice: Sequence[int], moves: Sequence[Move]) -> Play:
    """The legal play made by ``moves``, or an error saying precisely why it is not legal.

    >>> play(Position.start(), (6, 5), [(24, 18), (18, 13)]).result.me[13]
    6
    >>> play(Position.start(), (6, 5), [(24, 18)])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    engine.errors.IllegalPlayError: must use both dice: 1 move played, a play with 2 exists ...

    :raises InvalidPlayError: malformed moves or dice.
    :raises IllegalPlayError: the play breaks a rule.
    """
    legal = legal_plays(position, dice)
    d1, d2 = legal.dice
    if not isinstance(moves, (tuple, list)):
        raise InvalidPlayError(f"moves must be a sequence of (from, to) pairs: {moves!r}")
    where = f"position {position.position_id()}, dice {d1}-{d2}"
    if not legal:
        if moves:
            raise IllegalPlayError(f"no legal move: the turn passes ({where})")
        return Play((), position)
    result = apply_moves(position, legal.dice, moves)
    for p in legal.plays:
        if p.result == result:
            return Play(tuple((a, b) for a, b in moves), result)
    need = len(legal.plays[0].moves)
    if len(moves) < need:
        if need == 2 and d1 != d2:
            raise IllegalPlayError(
                f"must use both dice: {len(moves)} move played, a play with 2 exists ({where})"
            )
        raise IllegalPlayError(
            f"must use as many dice as possible: {len(moves)} played, {need} can be ({where})"
        )
    if need == 1 and d1 != d2:
        raise IllegalPlayError(
            f"must play the larger die ({max(d1, d2)}) when only one die can be played ({where})"
        )
    raise IllegalPlayError(f"not a legal play ({where})")


def _pt(p: int) -> str:
    return "the bar" if p == BAR else f"point {p}"


def _fmt(frm: int, to: int) -> str:
    return f"{'bar' if frm == BAR else frm}/{'off' if to == 0 else to}"
