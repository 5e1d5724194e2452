"""The legal plays' generator: every play of a throw, each resulting position once, by
specialised loops (:mod:`engine.moves` keeps them in its cache and is what the rest of the engine
calls).

``generate`` sends each case to a specialised loop: no bearing off possible during the play (the
usual case), checkers on the bar, or every checker home. The general search, ``_generate_general``,
takes what is left: a bear-off that becomes possible mid-play while checkers are still outside,
and contact positions where fewer dice can be played than were thrown. (The differential tests
against GNU Backgammon and a brute-force reference exercise every path.) The loops run over the
points a die can move from, change one board in place and undo, and build each play's result
the moment it is found, so there is no second pass.

A non-double can reach one position in several ways (24/18/13 and 24/19/13), so those plays are
keyed by an int updated move by move: a duplicate costs an addition and a dict lookup. The key
holds the change of the mover's count on point p as a signed digit (|digit| <= 2) in base 16 at
16**p, which is exact and unique (balanced base-16 digits below 8 have one representation), and
a hit on point t as 2**(104 + t), above any such sum. A double needs no key: its moves are tried
as multisets (sources in non-increasing order), and two different multisets of moves of one
die always leave different positions (on each chain p, p - d, p - 2d ... the moves over each
step follow from the counts), so each is a new play.
"""

from __future__ import annotations

from typing import NamedTuple

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


_SHIFT = tuple(1 << (4 * p) for p in range(26))
_STEP = tuple(tuple(_SHIFT[p - d] - _SHIFT[p] if p > d else 0 for p in range(26)) for d in range(7))
"""``_STEP[d][p]``: the key change of a move from ``p`` to ``p - d`` (``p > d``)."""
_HIT = tuple(1 << (104 + t) for t in range(26))
"""``_HIT[t]``: the key change of a hit on point ``t``."""

_MOVE = tuple(tuple((p, p - d) if p > d else (p, 0) for p in range(26)) for d in range(7))
"""``_MOVE[d][p]``: the move ``(p, p - d)`` (or ``(p, 0)``), one shared tuple each."""
_MOVE1 = tuple(tuple((m,) for m in moves) for moves in _MOVE)
"""``_MOVE1[d][p]``: ``(_MOVE[d][p],)``, to extend a tuple of moves by concatenation."""

_new = tuple.__new__
"""Position and Play are NamedTuples: ``_new(Position, (me, opp))`` skips their Python-level
``__new__``, which matters when hundreds of plays are built per call."""


def _hit(opp: tuple[int, ...], points: tuple[int, ...]) -> tuple[int, ...]:
    """The opponent's side after blots on these points (mover's numbering) were hit."""
    theirs = list(opp)
    for t in points:
        theirs[BAR - t] = 0
    theirs[BAR] += len(points)
    return tuple(theirs)


def _hit_mask(opp: tuple[int, ...], mask: int) -> tuple[int, ...]:
    """The opponent's side after blots were hit on the points (mover's numbering) of the bit
    mask ``mask``."""
    theirs = list(opp)
    while mask:
        low = mask & -mask
        theirs[BAR + 1 - low.bit_length()] = 0  # point t is bit t: the opponent's 25 - t
        theirs[BAR] += 1
        mask ^= low
    return tuple(theirs)


def generate(me: tuple[int, ...], opp: tuple[int, ...], d1: int, d2: int) -> tuple[Play, ...]:
    """Every legal play, each resulting position once (the hot path; see the module doc)."""
    if d1 < d2:
        d1, d2 = d2, d1
    plays: tuple[Play, ...] | None
    if d1 == d2:
        if me[BAR]:
            return _doubles_from_bar(me, opp, d1)
        # Bearing off is possible only if every checker outside can come home with a die to
        # spare: an outside checker on p needs at least ceil((p - 6) / d) of the four dice.
        need = 0
        for p in range(7, BAR):
            if me[p]:
                need += me[p] * (-(-(p - 6) // d1))
        if not need:
            return _home_doubles(me, opp, d1)
        plays = _doubles(me, opp, d1) if need >= 4 else None
    elif me[BAR]:
        return _bar_two_dice(me, opp, d1, d2)
    else:
        # Bearing off is possible only if at most one checker is outside and one die brings it
        # home (the other die may then bear off).
        outside = 0
        for p in range(7, BAR):
            if me[p]:
                outside += me[p]
                if outside > 1 or p - d1 > 6:
                    plays = _two_dice(me, opp, d1, d2)
                    break
        else:
            if not outside:
                return _home_two_dice(me, opp, d1, d2)
            plays = None
    return _generate_general(me, opp, d1, d2) if plays is None else plays


def _two_dice(me: tuple[int, ...], opp: tuple[int, ...], x: int, y: int) -> tuple[Play, ...] | None:
    """Plays of a non-double ``x > y`` that use both dice, with nothing on the bar and no
    bearing off possible; None if no play uses both dice."""
    b = list(me)
    o = opp[::-1]  # o[t] = opp[25 - t]: the opponent's checkers in the mover's numbering
    stepx, stepy, hits = _STEP[x], _STEP[y], _HIT
    movex, movey = _MOVE[x], _MOVE[y]
    new = _new
    # The points each die can move from (destination not blocked). Which of them hold a checker
    # changes as checkers move; blocking does not (a hit only removes a blot).
    from_x = [p for p in range(24, x, -1) if o[p - x] < 2]
    from_y = [p for p in range(24, y, -1) if o[p - y] < 2]
    out: dict[int, Play] = {}
    # x first, then y: every pair of moves (the checker moved by x may move again with y).
    for p in from_x:
        if not b[p]:
            continue
        t = p - x
        k = stepx[p]
        first = movex[p]
        if o[t] == 1:
            k += hits[t]
            hit: tuple[int, ...] = (t,)
            theirs = _hit(opp, hit)
        else:
            hit = ()
            theirs = opp
        b[p] -= 1
        b[t] += 1
        for q in from_y:
            if b[q]:
                u = q - y
                kk = k + stepy[q]
                if o[u] == 1 and u != t:
                    kk += hits[u]
                    if kk not in out:
                        b[q] -= 1
                        b[u] += 1
                        pos = new(Position, (tuple(b), _hit(opp, (*hit, u))))
                        out[kk] = new(Play, ((first, movey[q]), pos))
                        b[u] -= 1
                        b[q] += 1
                elif kk not in out:
                    b[q] -= 1
                    b[u] += 1
                    out[kk] = new(Play, ((first, movey[q]), new(Position, (tuple(b), theirs))))
                    b[u] -= 1
                    b[q] += 1
        b[t] -= 1
        b[p] += 1
    # y first, then x: only one checker moving on with x from where y took it can be new; two
    # different checkers moved y then x were found above in the order x then y.
    for p in from_y:
        if not b[p]:
            continue
        t = p - y
        u = t - x
        if u <= 0 or o[u] >= 2:
            continue
        k = stepy[p] + stepx[t]
        hit = ()
        if o[t] == 1:
            k += hits[t]
            hit = (t,)
        if o[u] == 1:
            k += hits[u]
            hit += (u,)
        if k not in out:
            b[p] -= 1
            b[u] += 1
            theirs = _hit(opp, hit) if hit else opp
            out[k] = new(Play, ((movey[p], movex[t]), new(Position, (tuple(b), theirs))))
            b[u] -= 1
            b[p] += 1
    return tuple(out.values()) if out else None


def _doubles(me: tuple[int, ...], opp: tuple[int, ...], d: int) -> tuple[Play, ...] | None:
    """Plays of a double using all four dice, with nothing on the bar and no bearing off
    possible; None if four moves cannot be made."""
    plays: list[Play] = []
    _doubles_walk(list(me), opp, d, 4, (), 0, plays)
    return tuple(plays) if plays else None


def _doubles_walk(
    b: list[int],
    opp: tuple[int, ...],
    d: int,
    n: int,
    done: tuple[Move, ...],
    mask: int,
    plays: list[Play],
) -> None:
    """Append to ``plays`` every play that makes ``n`` more moves of ``d`` on the board ``b``
    (changed in place and restored) after the moves ``done``, which hit on the points in the
    bit mask ``mask``; ``opp`` is the opponent's side before the play.

    The order of a double's moves does not matter: sources are taken in non-increasing order
    (``sources[at:]`` after a move from ``sources[at]``), so each multiset of moves is tried once.
    The last two moves are inner loops rather than calls: that is where the plays are.
    """
    o = opp[::-1]  # the opponent's checkers in the mover's numbering
    # The points a checker could move from, highest first (as in _two_dice).
    sources = [p for p in range(24, d, -1) if o[p - d] < 2]
    last = len(sources)
    move1 = _MOVE1[d]
    new = _new
    append = plays.append
    # The opponent's side after each set of hits, built once per set.
    sides = {0: opp}

    def side(mask: int) -> tuple[int, ...]:
        theirs = sides.get(mask)
        if theirs is None:
            theirs = sides[mask] = _hit_mask(opp, mask)
        return theirs

    def two(at: int, done: tuple[Move, ...], mask: int) -> None:
        for i in range(at, last):
            p = sources[i]
            if not b[p]:
                continue
            t = p - d
            b[p] -= 1
            b[t] += 1
            mask1 = mask | 1 << t if o[t] == 1 else mask
            theirs = side(mask1) if mask1 else opp
            done1 = done + move1[p]
            for q in sources[i:]:
                if not b[q]:
                    continue
                u = q - d
                b[q] -= 1
                b[u] += 1
                if o[u] == 1 and not mask1 >> u & 1:
                    pos = new(Position, (tuple(b), side(mask1 | 1 << u)))
                else:
                    pos = new(Position, (tuple(b), theirs))
                append(new(Play, (done1 + move1[q], pos)))
                b[u] -= 1
                b[q] += 1
            b[t] -= 1
            b[p] += 1

    def walk(at: int, n: int, done: tuple[Move, ...], mask: int) -> None:
        for i in range(at, last):
            p = sources[i]
            if b[p]:
                t = p - d
                b[p] -= 1
                b[t] += 1
                mask1 = mask | 1 << t if o[t] == 1 else mask
                if n == 3:
                    two(i, done + move1[p], mask1)
                else:
                    walk(i, n - 1, done + move1[p], mask1)
                b[t] -= 1
                b[p] += 1

    if n == 1:
        for p in sources:
            if b[p]:
                t = p - d
                b[p] -= 1
                b[t] += 1
                theirs = side(mask | 1 << t if o[t] == 1 else mask)
                append(new(Play, (done + move1[p], new(Position, (tuple(b), theirs)))))
                b[t] -= 1
                b[p] += 1
    elif n == 2:
        two(0, done, mask)
    else:
        walk(0, n, done, mask)


def _doubles_from_bar(me: tuple[int, ...], opp: tuple[int, ...], d: int) -> tuple[Play, ...]:
    """Plays of a double with checkers on the bar. They enter first, as many as can: one entry
    point, so all (up to four) or none. The dice left move freely, and no checker can be borne
    off this turn (an entered checker needs every die left to come home)."""
    t = BAR - d
    if opp[d] >= 2:  # the entry point: the mover's 25 - d is the opponent's d
        return ()
    enter = min(me[BAR], 4)
    b = list(me)
    b[BAR] -= enter
    b[t] += enter
    mask = 1 << t if opp[d] == 1 else 0
    done = ((BAR, t),) * enter
    if enter == 4:
        theirs = _hit_mask(opp, mask) if mask else opp
        return (_new(Play, (done, _new(Position, (tuple(b), theirs)))),)
    plays: list[Play] = []
    _doubles_walk(b, opp, d, 4 - enter, done, mask, plays)
    if plays:
        return tuple(plays)
    # Fewer than four dice can be played: the general search keeps the most it can.
    return _generate_general(me, opp, d, d)


def _bar_two_dice(me: tuple[int, ...], opp: tuple[int, ...], x: int, y: int) -> tuple[Play, ...]:
    """Plays of a non-double ``x > y`` with checkers on the bar (none can be borne off: an
    entered checker is still outside the home board after the other die)."""
    b = list(me)
    if me[BAR] > 1:
        # Each die enters a checker if it can; nothing else moves.
        entries = tuple((BAR, BAR - e) for e in (x, y) if opp[e] < 2)
        if not entries:
            return ()
        for _, t in entries:
            b[BAR] -= 1
            b[t] += 1
        hit = tuple(t for _, t in entries if opp[BAR - t] == 1)
        theirs = _hit(opp, hit) if hit else opp
        return (_new(Play, (entries, _new(Position, (tuple(b), theirs)))),)
    o = opp[::-1]
    hits = _HIT
    out: dict[int, Play] = {}
    # One checker on the bar: it enters with one die, then the other die moves any checker.
    for e, f in ((x, y), (y, x)):
        if opp[e] >= 2:
            continue
        t = BAR - e
        blot = opp[e] == 1
        k = _STEP[e][BAR] + (hits[t] if blot else 0)
        stepf = _STEP[f]
        b[BAR] -= 1
        b[t] += 1
        for q in range(24, f, -1):
            if b[q]:
                u = q - f
                if o[u] >= 2:
                    continue
                kk = k + stepf[q]
                hit_u = o[u] == 1 and u != t
                if hit_u:
                    kk += hits[u]
                if kk in out:
                    continue
                b[q] -= 1
                b[u] += 1
                hit = (t, u) if blot and hit_u else (t,) if blot else (u,) if hit_u else ()
                theirs = _hit(opp, hit) if hit else opp
                out[kk] = _new(Play, (((BAR, t), (q, u)), _new(Position, (tuple(b), theirs))))
                b[u] -= 1
                b[q] += 1
        b[t] -= 1
        b[BAR] += 1
    if out:
        return tuple(out.values())
    # Only one die can be played: the larger if it can enter.
    for e in (x, y):
        if opp[e] < 2:
            t = BAR - e
            b[BAR] -= 1
            b[t] += 1
            theirs = _hit(opp, (t,)) if opp[e] == 1 else opp
            return (_new(Play, (((BAR, t),), _new(Position, (tuple(b), theirs)))),)
    return ()


def _home_moves(b: list[int], o: tuple[int, ...], d: int, top: int) -> list[Move]:
    """The moves of die ``d`` from points ``top`` down to 1, every checker being home: a move
    within the board to an open point, off from point ``d``, or off from a lower point if no
    checker is higher."""
    moves = []
    higher = any(b[top + 1 : 7])
    for p in range(top, 0, -1):
        if b[p]:
            if p > d:
                if o[p - d] < 2:
                    moves.append((p, p - d))
            elif p == d or not higher:
                moves.append((p, 0))
            higher = True
    return moves


def _home_two_dice(me: tuple[int, ...], opp: tuple[int, ...], x: int, y: int) -> tuple[Play, ...]:
    """Plays of a non-double ``x > y`` with every checker home (bearing off)."""
    b = list(me)
    o = opp[::-1]
    shift, hits = _SHIFT, _HIT
    out: dict[int, Play] = {}
    # Both orders in full: which checkers may bear off depends on the order.
    for e, f in ((x, y), (y, x)):
        for p, t in _home_moves(b, o, e, 6):
            k = shift[t] - shift[p]
            blot = t > 0 and o[t] == 1
            if blot:
                k += hits[t]
            b[p] -= 1
            b[t] += 1
            for q, u in _home_moves(b, o, f, 6):
                kk = k + shift[u] - shift[q]
                hit_u = u > 0 and u != t and o[u] == 1
                if hit_u:
                    kk += hits[u]
                if kk in out:
                    continue
                b[q] -= 1
                b[u] += 1
                hit = (t, u) if blot and hit_u else (t,) if blot else (u,) if hit_u else ()
                theirs = _hit(opp, hit) if hit else opp
                out[kk] = _new(Play, (((p, t), (q, u)), _new(Position, (tuple(b), theirs))))
                b[u] -= 1
                b[q] += 1
            b[t] -= 1
            b[p] += 1
    if out:
        return tuple(out.values())
    # Only one die can be played: the larger if it can.
    plays = []
    for e in (x, y):
        for p, t in _home_moves(b, o, e, 6):
            b[p] -= 1
            b[t] += 1
            theirs = _hit(opp, (t,)) if t > 0 and o[t] == 1 else opp
            plays.append(_new(Play, (((p, t),), _new(Position, (tuple(b), theirs)))))
            b[t] -= 1
            b[p] += 1
        if plays:
            break
    return tuple(plays)


def _home_doubles(me: tuple[int, ...], opp: tuple[int, ...], d: int) -> tuple[Play, ...]:
    """Plays of a double with every checker home (bearing off): as many moves as can be made.

    As in _doubles, sources go in non-increasing order, each multiset of moves once, and two
    multisets never leave the same position (each point has one move for ``d``, so the moves
    follow from the counts). Taking the highest sources first keeps every legal multiset legal:
    a checker borne off from below the die needs the points above it empty, and moves from
    lower points never fill them.
    """
    b = list(me)
    o = opp[::-1]
    plays: list[Play] = []
    best = 0

    def walk(top: int, n: int, done: tuple[Move, ...], hit: tuple[int, ...]) -> None:
        nonlocal best
        moves = _home_moves(b, o, d, top) if n < 4 else []
        if not moves:
            if n >= best and n:
                if n > best:
                    plays.clear()
                    best = n
                theirs = _hit(opp, hit) if hit else opp
                plays.append(_new(Play, (done, _new(Position, (tuple(b), theirs)))))
            return
        for p, t in moves:
            b[p] -= 1
            b[t] += 1
            if t and o[t] == 1 and t not in hit:
                walk(p, n + 1, (*done, (p, t)), (*hit, t))
            else:
                walk(p, n + 1, (*done, (p, t)), hit)
            b[t] -= 1
            b[p] += 1

    walk(6, 0, (), ())
    return tuple(plays)


def _generate_general(
    me: tuple[int, ...], opp: tuple[int, ...], d1: int, d2: int
) -> tuple[Play, ...]:
    """Every legal play, each resulting position once: the general search.

    It handles everything (the bar, bearing off, plays that use fewer dice) by trying every
    sequence of moves and keeping the best by GNU's filter. :func:`generate` sends it only
    what its fast paths do not cover.
    """
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
