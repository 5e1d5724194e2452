"""Move notation: parse and format plays such as ``24/18 13/8*``, ``bar/22``, ``6/off``, ``8/2(2)``.

Formatting follows GNU Backgammon's conventions exactly (it is checked against GNU Backgammon's own
formatter in the tests): moves sorted by source point, highest first; the moves of one checker
joined into one chain (``24/18 18/13`` is written ``24/13``), keeping an intermediate point only
where the checker hit a blot there (``24/18*/13``); a hit marked ``*`` (once per point); identical
chains counted (``8/2(2)``); the bar written ``bar`` and bearing off ``off``.

>>> from engine.position import Position
>>> start = Position.start()
>>> format_play(start, [(24, 18), (18, 13)])
'24/13'
>>> format_play(start, [(8, 5), (6, 5)])
'8/5 6/5'
>>> format_play(start, [(13, 10), (13, 10), (10, 7), (10, 7)])
'13/7(2)'

Parsing accepts what GNU Backgammon and the usual sites write: ``/`` or ``-`` between points,
``bar``/``b``/``25`` for the bar, ``off``/``o``/``0`` for off, any case, moves separated by spaces
or commas, repeats ``(n)``, optional ``*`` marks, and a checker's moves run together
(``13/7/1*``, ``24/13``). A step that spans several dice is expanded to single-die moves; where
two routes exist, the one that hits nothing on the way is chosen unless the notation marks the
hit. The result is checked by :func:`engine.moves.play`, so an illegal play is refused with the
rule it breaks.

>>> p = parse_play(start, (6, 5), '24/13')
>>> p.moves
((24, 18), (18, 13))
>>> format_play(start, parse_play(start, (3, 1), '8-5, 6-5'))
'8/5 6/5'
>>> parse_play(start, (4, 4), '24/20(2) 13/9(2)').result.me[9]
2

A turn with no legal move is the empty play. It formats as the empty string (as GNU Backgammon
writes it), and ``''``, ``'-'``, ``'pass'`` or ``'no move'`` parse to it.

>>> format_play(start, ())
''
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from itertools import pairwise, permutations
from typing import NamedTuple

from engine.errors import IllegalPlayError, InvalidPlayError
from engine.moves import Move, Play, apply_moves, check_dice, legal_plays
from engine.moves import play as _checked_play
from engine.position import BAR, OFF, Position

__all__ = ["blot_points", "format_legal", "format_moves", "format_play", "notation", "parse_play"]

_PASS_WORDS = frozenset(
    {"", "-", "--", "pass", "none", "no move", "no moves", "no legal move", "cannot move"}
)
"""Texts that mean "no move" (a turn with no legal play)."""

# ASCII digits only, at most three of them (so int() never sees a huge or non-ASCII number).
_POINT = r"(?:[0-9]{1,3}|bar|b|off|o)"
_CHAIN_RE = re.compile(rf"({_POINT}\*?(?:[/-]{_POINT}\*?)+)(?:\s*\(([0-9]{{1,3}})\))?(\*?)")
_SEP_RE = re.compile(r"[\s,]+")
_POINT_RE = re.compile(rf"{_POINT}(?:\s+{_POINT})*")
_STEP_RE = re.compile(rf"({_POINT})(\*?)")


# -- formatting ---------------------------------------------------------------------------------


def _checked_moves(moves: Play | Sequence[Move]) -> list[Move]:
    """The moves of a play as ``(from, to)`` pairs, checked for form (not for legality).

    :raises InvalidPlayError: not a sequence of at most four ``(from, to)`` integer pairs with
        ``0 <= to < from <= 25``.
    """
    if isinstance(moves, Play):
        moves = moves.moves
    if not isinstance(moves, (tuple, list)) or len(moves) > 4:
        raise InvalidPlayError(f"not a sequence of at most four moves: {moves!r}")
    out: list[Move] = []
    for mv in moves:
        if (
            not isinstance(mv, (tuple, list))
            or len(mv) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in mv)
            or not 0 <= mv[1] < mv[0] <= BAR
        ):
            raise InvalidPlayError(f"not a move: {mv!r}")
        out.append((mv[0], mv[1]))
    return out


def format_play(position: Position, moves: Play | Sequence[Move]) -> str:
    """Standard notation for a play, as GNU Backgammon writes it.

    ``moves`` is a :class:`~engine.moves.Play` or its ``(from, to)`` moves, in any order; the
    position is the one *before* the play (it tells which moves hit). Legality is not checked.
    The empty play formats as ``''``.

    >>> from engine.position import Position
    >>> me = {24: 2, 13: 5, 8: 3, 6: 5}
    >>> pos = Position.from_points(me, {7: 1, 18: 1, 20: 1, 6: 3, 8: 3, 13: 5, 24: 1})
    >>> format_play(pos, [(24, 18), (18, 13)])  # the opponent's blot on their 7 is our 18
    '24/18*/13'
    >>> format_play(pos, [(6, 5), (6, 5), (8, 7), (8, 7)])
    '8/7*(2) 6/5*(2)'
    >>> format_play(Position.from_points({25: 1, 6: 14}, {}), [(25, 22), (6, 0)])
    'bar/22 6/off'

    :raises InvalidPlayError: ``moves`` is not a sequence of at most four ``(from, to)`` pairs
        with ``0 <= to < from <= 25``.
    """
    return _format(blot_points(position.opp), _checked_moves(moves))


def format_legal(position: Position, play: Play) -> str:
    """:func:`format_play` of a play the move generator made (its moves are not checked again:
    the table view and the throw messages format every legal play of a throw)."""
    return format_moves(blot_points(position.opp), play.moves)


def blot_points(opp: tuple[int, ...]) -> int:
    """The points where a move of the player on roll would hit, as bits of their numbers
    (1–24): the points of the opponent's side ``opp`` that hold any checker (a legal play
    lands only on their blots). :func:`format_moves` takes it, made once for every play of a
    throw."""
    bits = 0
    for p in range(1, BAR):
        if opp[BAR - p]:
            bits |= 1 << p
    return bits


_POINT_TEXT = ("off", *(str(p) for p in range(1, BAR)), "bar")
"""Each point's text, by number."""


def format_moves(blots: int, moves: tuple[Move, ...]) -> str:
    """:func:`format_legal` of a legal play's moves, given :func:`blot_points` of the position
    before it (:func:`engine.moves.play_tuples` lists plays as moves and sides)."""
    n = len(moves)
    if n > 2 or n == 0 or (n == 2 and moves[0] == moves[1]):
        return _format(blots, moves)
    texts = _POINT_TEXT
    if n == 1:
        (a, b), second = moves[0], None
    else:
        first, second = moves
        a, b = first
        # Highest source first (then highest destination), as GNU sorts.
        if second[0] > a or (second[0] == a and second[1] > b):
            (a, b), second = second, first
    text = texts[a] + "/"
    if second is not None and second[0] == b:
        # One checker with both dice: the point between is written only if it hit there.
        if blots >> b & 1:
            text += texts[b] + "*/"
        b, second = second[1], None
    text += texts[b]
    if blots >> b & 1:
        text += "*"
        hit = b
    else:
        hit = -1
    if second is None:
        return text
    c, d = second
    text += " " + texts[c] + "/" + texts[d]
    if blots >> d & 1 and d != hit:
        text += "*"
    return text


def _format(blots: int, moves: Sequence[Move]) -> str:
    mv = sorted(moves, reverse=True)  # highest source first, then highest destination
    # Join the moves of one checker: a move that starts where an earlier (higher) chain ends
    # continues it. The intermediate point is kept only where it was a hit (GNU judges every
    # hit mark against the position before the play).
    chains: list[list[int]] = []
    count = len(mv)
    taken = [False] * count
    for i in range(count):
        if taken[i]:
            continue
        a, b = mv[i]
        chain = [a, b]
        for j in range(i + 1, count):
            if not taken[j] and mv[j][0] == b:
                b = mv[j][1]
                if blots >> mv[j][0] & 1:
                    chain.append(b)
                else:
                    chain[-1] = b
                taken[j] = True
        chains.append(chain)
    # Identical chains are counted (8/2 8/2 is 8/2(2)); sorted, they are neighbours.
    texts = _POINT_TEXT
    marked = 0  # the points marked hit, as bits
    parts: list[str] = []
    k = 0
    while k < len(chains):
        chain = chains[k]
        n = 1
        while k + n < len(chains) and chains[k + n] == chain:
            n += 1
        k += n
        text = texts[chain[0]]
        for q in chain[1:-1]:
            text += "/" + texts[q] + "*"
            marked |= 1 << q
        last = chain[-1]
        text += "/" + texts[last]
        # A hit on the final point is marked once, on the first chain that lands there.
        if blots >> last & 1 and not marked >> last & 1:
            text += "*"
            marked |= 1 << last
        if n > 1:
            text += f"({n})"
        parts.append(text)
    return " ".join(parts)


def notation(position: Position, play: Play) -> str:
    """The notation of a legal play from ``position`` (``format_play`` for a :class:`Play`).

    >>> from engine.moves import legal_plays
    >>> start = Position.start()
    >>> sorted(notation(start, p) for p in legal_plays(start, (6, 5)))[:3]
    ['13/2', '13/7 8/3', '13/8 13/7']

    :raises InvalidPlayError: ``play`` has malformed moves.
    """
    return format_play(position, play)


# -- parsing ------------------------------------------------------------------------------------


class _Step(NamedTuple):
    """One written step of a checker: from one written point to the next (maybe several dice)."""

    frm: int
    to: int
    marked: bool
    """Whether the notation marks a hit on ``to`` (``*``)."""


def _point_value(word: str, text: str) -> int:
    if word in ("bar", "b"):
        return BAR
    if word in ("off", "o"):
        return OFF
    value = int(word)
    if value > BAR:
        raise InvalidPlayError(f"no point {value} in {text!r}: points are 0 (off) to 25 (bar)")
    return value


def _parse_steps(text: str) -> list[_Step]:
    """The written steps of a notation, repeats expanded, in the order written.

    :raises InvalidPlayError: the text is not move notation.
    """
    s = text.strip().lower()
    steps: list[_Step] = []
    # GNU Backgammon also takes bare pairs of points: "24 18 13 8" is 24/18 13/8.
    bare = s.split() if _POINT_RE.fullmatch(s) else []
    if len(bare) % 2:
        raise InvalidPlayError(f"a move needs a from and a to point: {text!r}")
    for a, b in zip(bare[::2], bare[1::2], strict=True):
        steps.extend(_chain_steps([(a, ""), (b, "")], 1, text))
    pos = len(s) if bare else 0
    while pos < len(s):
        sep = _SEP_RE.match(s, pos)
        if sep:
            pos = sep.end()
            continue
        m = _CHAIN_RE.match(s, pos)
        if not m:
            raise InvalidPlayError(f"cannot read move notation {text!r} at {s[pos:]!r}")
        end = m.end()
        if end < len(s) and not _SEP_RE.match(s, end):
            raise InvalidPlayError(f"cannot read move notation {text!r} at {s[end:]!r}")
        count = int(m.group(2)) if m.group(2) else 1
        if not 1 <= count <= 4:
            raise InvalidPlayError(f"a move is repeated 1 to 4 times, not {count}: {text!r}")
        parts = re.split(r"[/-]", m.group(1))
        words: list[tuple[str, str]] = [(w[1], w[2]) for w in map(_STEP_RE.fullmatch, parts) if w]
        if m.group(3):
            # GNU Backgammon also takes the mark after the repeat: 8/2(2)*.
            words[-1] = (words[-1][0], "*")
        steps.extend(_chain_steps(words, count, text))
        pos = end
    if len(steps) > 4:
        raise InvalidPlayError(f"more than four moves in {text!r}")
    return steps


def _chain_steps(words: list[tuple[str, str]], count: int, text: str) -> list[_Step]:
    """The steps of one written checker chain such as ``13/7/1*``, ``count`` times over."""
    points = [_point_value(w, text) for w, _ in words]
    if words[0][1]:
        raise InvalidPlayError(f"a hit mark '*' belongs after the point hit, in {text!r}")
    if points[0] == OFF:
        raise InvalidPlayError(f"a move cannot start off the board: {text!r}")
    if BAR in points[1:]:
        raise InvalidPlayError(f"a move cannot end on the bar: {text!r}")
    for a, b in pairwise(points):
        if b >= a:
            raise InvalidPlayError(
                f"checkers move from higher to lower points: {a}/{b} in {text!r}"
            )
    chain = [_Step(a, b, bool(words[i + 1][1])) for i, (a, b) in enumerate(pairwise(points))]
    return chain * count


def _dice_routes(dist: int, bear_off: bool, dice: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Orders of dice (indices into ``dice``) that move one checker ``dist`` pips.

    For a move off the board the last die may be larger than the pips left (the legality of
    using a larger die is judged later, by the rules).
    """
    seen: set[tuple[int, ...]] = set()

    def walk(left: int, used: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        for i, d in enumerate(dice):
            if i in used:
                continue
            if d == left or (bear_off and d > left):
                route = (*used, i)
                values = tuple(dice[k] for k in route)
                if values not in seen:
                    seen.add(values)
                    yield route
            elif d < left:
                yield from walk(left - d, (*used, i))

    yield from walk(dist, ())


class _Candidate(NamedTuple):
    moves: tuple[Move, ...]
    implied: frozenset[int]
    """Points passed over by a written step (not written), where a checker landed."""


def _candidates(steps: list[_Step], dice: tuple[int, ...]) -> Iterator[_Candidate]:
    """Every way to share the dice among the written steps, as single-die moves.

    Each multiset of moves is yielded once, in the order written; the order they can be
    applied in is found later (a bar checker may have to enter before another one moves on).
    """
    seen: set[tuple[Move, ...]] = set()

    def expand(
        k: int, free: tuple[int, ...], acc: tuple[Move, ...], implied: frozenset[int]
    ) -> Iterator[_Candidate]:
        if k == len(steps):
            key = tuple(sorted(acc))
            if key not in seen:
                seen.add(key)
                yield _Candidate(acc, implied)
            return
        step = steps[k]
        pool = tuple(dice[i] for i in free)
        for route in _dice_routes(step.frm - step.to, step.to == OFF, pool):
            here = step.frm
            moves: list[Move] = []
            passed = set()
            for n, idx in enumerate(route):
                if n == len(route) - 1:
                    nxt = step.to
                else:
                    nxt = here - pool[idx]
                    passed.add(nxt)
                moves.append((here, nxt))
                here = nxt
            rest = tuple(free[i] for i in range(len(free)) if i not in route)
            yield from expand(k + 1, rest, (*acc, *moves), implied | passed)

    yield from expand(0, tuple(range(len(dice))), (), frozenset())


def _in_order(
    position: Position, dice: tuple[int, int], moves: tuple[Move, ...]
) -> tuple[tuple[Move, ...], Position]:
    """An order in which ``moves`` can be made, and the position it leaves.

    The order written is tried first. The result does not depend on the order: a blot is hit
    whenever some move lands on it.

    :raises IllegalPlayError: no order works; the error of the order written.
    """
    first: IllegalPlayError | None = None
    tried: set[tuple[Move, ...]] = set()
    for order in permutations(moves):
        if order in tried:
            continue
        tried.add(order)
        try:
            return order, apply_moves(position, dice, order)
        except IllegalPlayError as e:
            first = first or e
    assert first is not None
    raise first


def _hits(position: Position, moves: Sequence[Move]) -> set[int]:
    """The points (mover's numbering) where these moves hit, applied in order."""
    opp = list(position.opp)
    hit = set()
    for _, to in moves:
        if 0 < to < BAR and opp[BAR - to] == 1:
            opp[BAR - to] = 0
            hit.add(to)
    return hit


def parse_play(position: Position, dice: Sequence[int], text: str) -> Play:
    """The legal play that ``text`` writes, for the player on roll with ``dice``.

    Moves may be written in any order and joined per checker; a step that covers several dice
    (``24/13`` with 6-5) is expanded to single-die moves, avoiding a hit on the way unless the
    notation marks one (``24/18*/13``). A ``*`` is optional, but where written it must be true:
    some checker of the play must hit on that point.

    >>> from engine.position import Position
    >>> start = Position.start()
    >>> parse_play(start, (6, 6), '24/18(2) 13/7(2)').result.me[18]
    2
    >>> parse_play(start, (6, 5), '24/18')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    engine.errors.IllegalPlayError: illegal play '24/18': must use both dice: ...
    >>> parse_play(start, (6, 5), '24/18 13/7')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    engine.errors.IllegalPlayError: illegal play '24/18 13/7': the dice 6-5 cannot make these ...
    >>> parse_play(start, (6, 5), '24/18 13/')
    Traceback (most recent call last):
    ...
    engine.errors.InvalidPlayError: cannot read move notation '24/18 13/' at '13/'

    :raises InvalidDiceError: dice not two integers in 1..6.
    :raises InvalidPlayError: the text is not move notation.
    :raises IllegalPlayError: the play breaks a rule; the message says which.
    """
    d1, d2 = check_dice(dice)
    if not isinstance(text, str):
        raise InvalidPlayError(f"move notation must be a string, got {text!r}")
    legal = legal_plays(position, (d1, d2))
    where = f"position {position.position_id()}, dice {d1}-{d2}"
    if " ".join(text.lower().split()) in _PASS_WORDS:
        if legal:
            raise IllegalPlayError(
                f"illegal play {text!r}: no move given but {len(legal)} legal plays exist ({where})"
            )
        return Play((), position)
    steps = _parse_steps(text)
    all_dice = (d1,) * 4 if d1 == d2 else (d1, d2)
    results = legal.results()
    best: tuple[tuple[int, int, int], _Candidate] | None = None
    first_error: IllegalPlayError | None = None
    rules_error: IllegalPlayError | None = None
    for n, cand in enumerate(_candidates(steps, all_dice)):
        try:
            moves, result = _in_order(position, (d1, d2), cand.moves)
        except IllegalPlayError as e:
            first_error = first_error or e
            continue
        cand = cand._replace(moves=moves)
        if result not in results:
            if rules_error is None:
                try:
                    _checked_play(position, (d1, d2), moves)
                except IllegalPlayError as e:
                    rules_error = e
            continue
        hits = _hits(position, cand.moves)
        marked = {s.to for s in steps if s.marked}
        rank = (len(marked - hits), len(cand.implied & hits), n)
        if best is None or rank < best[0]:
            best = (rank, cand)
    if best is None:
        error = rules_error or first_error
        if error is None:
            raise IllegalPlayError(
                f"illegal play {text!r}: the dice {d1}-{d2} cannot make these moves "
                f"(position {position.position_id()})"
            )
        raise IllegalPlayError(f"illegal play {text!r}: {error}") from error
    (false_marks, _, _), cand = best
    if false_marks:
        missing = sorted({s.to for s in steps if s.marked} - _hits(position, cand.moves))
        raise IllegalPlayError(
            f"illegal play {text!r}: marks a hit on {', '.join(map(str, missing))} "
            f"but no blot is hit there ({where})"
        )
    return _checked_play(position, (d1, d2), cand.moves)
