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

from engine.errors import IllegalPlayError, InvalidDiceError, InvalidPlayError
from engine.generator import Move as Move
from engine.generator import Play as Play
from engine.generator import generate as _generate
from engine.position import BAR, Position


def check_dice(dice: Sequence[int]) -> tuple[int, int]:
    """Validate a throw of two dice.

    :raises InvalidDiceError: not two integers in 1..6.
    """
    if type(dice) is tuple and len(dice) == 2:
        # The common case, checked with the fewest steps (a fold checks every throw it
        # meets several times): a tuple of two plain ints, returned as it is (a tuple is
        # immutable; the answer is equal to the copy made below).
        d1, d2 = dice
        if type(d1) is int and type(d2) is int and 0 < d1 < 7 and 0 < d2 < 7:
            return dice
    if (
        not isinstance(dice, (tuple, list))
        or len(dice) != 2
        or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)
    ):
        raise InvalidDiceError(f"dice must be two integers from 1 to 6, got {dice!r}")
    return (dice[0], dice[1])


_new = tuple.__new__
"""Position and Play are NamedTuples: ``_new(Position, (me, opp))`` skips their Python-level
``__new__`` (a cached entry becomes its plays again at every use)."""

PLAYS_CACHE = 4096
"""How many (position, throw) entries the legal plays cache keeps by default."""

PlayTuples = tuple[tuple[tuple[Move, ...], tuple[int, ...], tuple[int, ...]], ...]
"""Legal plays as ``(moves, result.me, result.opp)`` tuples (:func:`play_tuples`)."""


def _generate_cached(me: tuple[int, ...], opp: tuple[int, ...], hi: int, lo: int) -> PlayTuples:
    # Kept as plain tuples of the moves and the two sides: the garbage collector stops
    # tracking a plain tuple of untracked items when a collection passes over it (the young
    # collections that an entry lives through), but never a NamedTuple (CPython untracks exact
    # tuples only). Kept as Plays, a full cache was some 80,000 objects that every full
    # collection walked; :class:`LegalPlays` makes the Plays per use.
    return tuple([(p.moves, p.result.me, p.result.opp) for p in _generate(me, opp, hi, lo)])


_cached = lru_cache(maxsize=PLAYS_CACHE)(_generate_cached)


def set_plays_cache(size: int) -> None:
    """Keep the legal plays of the ``size`` (position, throw) pairs used last (0: none); the
    plays computed so far are dropped."""
    global _cached
    if size < 0:
        raise ValueError(f"a cache size is 0 or more, not {size!r}")
    _cached = lru_cache(maxsize=size)(_generate_cached)


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
            kept = _tuples(self.position, *self.dice)
            self._plays = tuple(
                [_new(Play, (mv, _new(Position, (me, opp)))) for mv, me, opp in kept]
            )
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


def can_move(position: Position, dice: Sequence[int]) -> bool:
    """Whether the player on roll can play at least one die (else the turn passes), without
    generating the plays.

    >>> can_move(Position.from_id('4HPwATDgc/ABUA'), (6, 6))
    False
    >>> can_move(Position.start(), (6, 6))
    True

    :raises InvalidDiceError: dice not two integers in 1..6.
    """
    d1, d2 = check_dice(dice)
    me, opp = position.me, position.opp
    if me[BAR]:
        # Die d enters on the mover's point 25 - d, which is the opponent's point d.
        return opp[d1] < 2 or opp[d2] < 2
    home = not any(me[7:25])
    top = 24
    while top and not me[top]:
        top -= 1
    for d in (d1, d2) if d1 != d2 else (d1,):
        for p in range(top, 0, -1):
            if not me[p]:
                continue
            to = p - d
            if to > 0:
                if opp[25 - to] < 2:
                    return True
            elif home and (to == 0 or p == top):
                return True
    return False


def play_tuples(position: Position, dice: Sequence[int]) -> PlayTuples:
    """The legal plays as plain tuples ``(moves, result.me, result.opp)``, in the order of
    :func:`legal_plays`, without making a :class:`Play` or a :class:`Position` of each: for a
    caller that only reads them (the throw messages list every play of every throw).

    :raises InvalidDiceError: dice not two integers in 1..6.
    """
    return _tuples(position, *check_dice(dice))


def _tuples(position: Position, d1: int, d2: int) -> PlayTuples:
    """The cache's entry for a position and a checked throw (either order of the dice)."""
    return _cached(position.me, position.opp, max(d1, d2), min(d1, d2))


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


def _single_move(me: list[int], opp: list[int], frm: int, to: int, dice_left: list[int]) -> int:
    """Apply one move in place; return the die used. (The caller adds the position to an
    error's message: it is computed only when needed.)

    :raises InvalidPlayError: a move that no die could make.
    :raises IllegalPlayError: a move that breaks a rule, with the reason.
    """
    if not (type(frm) is int and type(to) is int and 0 <= to < frm <= BAR):
        # type() rather than isinstance(): True and False are ints, but not points.
        raise InvalidPlayError(f"not a move: {(frm, to)!r}")
    if frm != BAR and me[BAR]:
        raise IllegalPlayError(f"{_fmt(frm, to)}: a checker on the bar must enter first")
    if not me[frm]:
        raise IllegalPlayError(f"{_fmt(frm, to)}: no checker on {_pt(frm)}")
    dist = frm - to
    if to == 0:
        if any(me[7:26]):
            raise IllegalPlayError(f"{_fmt(frm, to)}: cannot bear off before all checkers are home")
        if dist in dice_left:
            die = dist
        else:
            higher = [d for d in dice_left if d > dist]
            if not higher:
                raise IllegalPlayError(
                    f"{_fmt(frm, to)}: no die of {dist} or more left (dice left "
                    f"{sorted(dice_left)})"
                )
            if any(me[frm + 1 : 7]):
                raise IllegalPlayError(
                    f"{_fmt(frm, to)}: a higher die bears off only from the highest point, "
                    f"and there are checkers above {frm}"
                )
            die = min(higher)
    else:
        if dist not in dice_left:
            raise IllegalPlayError(
                f"{_fmt(frm, to)}: no die of {dist} left (dice left {sorted(dice_left)})"
            )
        die = dist
        if opp[25 - to] >= 2:
            raise IllegalPlayError(f"{_fmt(frm, to)}: point {to} is blocked")
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
    try:
        for mv in moves:
            if not isinstance(mv, (tuple, list)) or len(mv) != 2:
                raise InvalidPlayError(f"not a move: {mv!r}")
            _single_move(me, opp, mv[0], mv[1], dice_left)
    except IllegalPlayError as exc:
        raise IllegalPlayError(f"{exc} (position {position.position_id()})") from None
    return _new(Position, (tuple(me), tuple(opp)))


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
    if not isinstance(moves, (tuple, list)):
        raise InvalidPlayError(f"moves must be a sequence of (from, to) pairs: {moves!r}")
    d1, d2 = check_dice(dice)
    if len(moves) == (4 if d1 == d2 else 2):
        # A play that uses every die is legal when each of its moves is: no play can use
        # more dice, and the larger-die rule only concerns plays of one die. This spares the
        # full generation on the common path (commands, replays, audits).
        try:
            result = apply_moves(position, (d1, d2), moves)
        except (InvalidPlayError, IllegalPlayError):
            pass  # let the full check below say why
        else:
            return _new(Play, (tuple([(a, b) for a, b in moves]), result))
    legal = legal_plays(position, dice)
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
