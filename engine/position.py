"""Positions: both sides' checkers, from the point of view of the player on roll.

A side is a tuple of 26 counts in that side's own numbering: index 0 is the checkers borne off,
1..24 the points (1..6 home), 25 the bar. This is the numbering of move notation, so a move
``(from, to)`` indexes a side directly. A point ``p`` of one side is point ``25 - p`` of the other.

>>> pos = Position.start()
>>> pos.position_id()
'4HPwATDgc/ABMA'
>>> Position.from_id('4HPwATDgc/ABMA') == pos
True
>>> pos.me[24], pos.me[13], pos.me[8], pos.me[6]
(2, 5, 3, 5)

``str(position)`` (and :func:`board_text`) draws it as a text board, for logs, the CLI and
error messages.
"""

from __future__ import annotations

import base64
import binascii
from typing import NamedTuple

from engine.errors import InvalidIdError, InvalidPositionError

CHECKERS = 15
BAR = 25
OFF = 0

_START_SIDE = (0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)


class Position(NamedTuple):
    """An immutable backgammon position seen by the player on roll.

    ``me`` is the side of the player on roll, ``opp`` the other; each is a tuple of 26 counts
    (0 = borne off, 1..24 = points in that side's own numbering, 25 = bar).
    """

    me: tuple[int, ...]
    """The player on roll: index 0 borne off, 1..24 points, 25 the bar."""
    opp: tuple[int, ...]
    """The player not on roll, in their own numbering."""

    # -- construction -----------------------------------------------------------------------

    @classmethod
    def start(cls) -> Position:
        """The starting position: 2 on 24, 5 on 13, 3 on 8, 5 on 6 for each side."""
        return cls(_START_SIDE, _START_SIDE)

    @classmethod
    def from_points(
        cls,
        me: dict[int | str, int],
        opp: dict[int | str, int],
    ) -> Position:
        """Build a validated position from ``{point: count}`` maps (``'bar'``/25 allowed).

        Checkers not placed are borne off.

        >>> Position.from_points({6: 2}, {'bar': 1, 1: 14}).opp[25]
        1

        :raises InvalidPositionError: more than 15 checkers a side, a bad point, or both
            colours on one point.
        """
        return cls.from_sides(_side_from_map(me), _side_from_map(opp))

    @classmethod
    def from_sides(
        cls, me: list[int] | tuple[int, ...], opp: list[int] | tuple[int, ...]
    ) -> Position:
        """Build a validated position from two 26-entry sides; index 0 is recomputed."""
        pos = cls(_normalise(me), _normalise(opp))
        pos.validate()
        return pos

    @classmethod
    def from_id(cls, position_id: str) -> Position:
        """Decode a GNU Backgammon Position ID (player not on roll encoded first).

        :raises InvalidIdError: not 14 base64 characters, too many checkers, or an impossible
            position.
        """
        if not isinstance(position_id, str) or len(position_id) != 14:
            raise InvalidIdError(f"position id must be 14 characters: {position_id!r}")
        try:
            raw = base64.b64decode(position_id + "==", validate=True)
        except (binascii.Error, ValueError) as e:
            raise InvalidIdError(f"position id is not base64: {position_id!r}") from e
        bits = int.from_bytes(raw, "little")
        sides: list[list[int]] = [[0] * 26, [0] * 26]
        side, slot, run, used = 0, 0, 0, 0
        for i in range(80):
            if bits >> i & 1:
                run += 1
                if run > CHECKERS:
                    raise InvalidIdError(f"position id has too many checkers: {position_id!r}")
            else:
                # GNU order per side: points 1..24 then the bar.
                sides[side][slot + 1 if slot < 24 else BAR] = run
                run = 0
                slot += 1
                if slot == 25:
                    side, slot = side + 1, 0
                    if side == 2:
                        used = i + 1
                        break
        if side != 2 or bits >> used:
            raise InvalidIdError(f"position id does not encode two sides: {position_id!r}")
        try:
            return cls.from_sides(sides[1], sides[0])
        except InvalidIdError:
            raise
        except InvalidPositionError as e:
            raise InvalidIdError(f"position id {position_id!r} is impossible: {e}") from e

    # -- output -----------------------------------------------------------------------------

    def position_id(self) -> str:
        """The GNU Backgammon Position ID (player not on roll encoded first)."""
        bits = 0
        n = 0
        for side in (self.opp, self.me):
            for slot in range(1, 26):
                count = side[slot]
                bits |= ((1 << count) - 1) << n
                n += count + 1
        return base64.b64encode(bits.to_bytes(10, "little")).decode("ascii")[:14]

    # -- queries ----------------------------------------------------------------------------

    def swap(self) -> Position:
        """The same position seen by the other player (as after a turn ends)."""
        return tuple.__new__(Position, (self.opp, self.me))  # skips NamedTuple's own __new__

    def off(self, side: int = 0) -> int:
        """Checkers borne off by the player on roll (``side=0``) or the other (``side=1``)."""
        return self[side][OFF]

    def pip_count(self, side: int = 0) -> int:
        """Pips the player on roll (``side=0``) or the other still has to move."""
        s = self[side]
        return sum(i * s[i] for i in range(1, 26))

    def is_game_over(self) -> bool:
        """Whether either side has borne off all 15 checkers."""
        return self.me[OFF] == CHECKERS or self.opp[OFF] == CHECKERS

    def can_bear_off(self) -> bool:
        """Whether every checker of the player on roll is home or off."""
        me = self.me
        return not any(me[7:26])

    def validate(self) -> None:
        """Check the invariants.

        :raises InvalidPositionError: wrong length, negative counts, more than 15 checkers a
            side, or both colours on one point.
        """
        for name, side in (("player on roll", self.me), ("opponent", self.opp)):
            if len(side) != 26:
                raise InvalidPositionError(f"{name} side must have 26 entries, got {len(side)}")
            if any(not isinstance(c, int) or c < 0 for c in side):
                raise InvalidPositionError(f"{name} side has a negative or non-integer count")
            on_board = sum(side[1:26])
            if on_board + side[OFF] != CHECKERS:
                raise InvalidPositionError(
                    f"{name} has {on_board} checkers on the board and {side[OFF]} off; "
                    f"a side has {CHECKERS}"
                )
        for p in range(1, 25):
            if self.me[p] and self.opp[25 - p]:
                raise InvalidPositionError(
                    f"point {p} (player on roll's numbering) holds both colours"
                )

    def __str__(self) -> str:
        """The position as a text board: see :func:`board_text`."""
        return board_text(self)


def _normalise(side: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    if len(side) != 26:
        raise InvalidPositionError(f"a side must have 26 entries, got {len(side)}")
    if any(not isinstance(c, int) or isinstance(c, bool) or c < 0 for c in side):
        raise InvalidPositionError(f"a side has a negative or non-integer count: {tuple(side)!r}")
    on_board = sum(side[1:26])
    if on_board > CHECKERS:
        raise InvalidPositionError(f"a side has {on_board} checkers; at most {CHECKERS}")
    return (CHECKERS - on_board, *side[1:26])


def _side_from_map(points: dict[int | str, int]) -> list[int]:
    side = [0] * 26
    for key, count in points.items():
        if key == "bar":
            slot = BAR
        elif isinstance(key, int) and 1 <= key <= 25:
            slot = key
        else:
            raise InvalidPositionError(f"not a point: {key!r}")
        if not isinstance(count, int) or count < 0:
            raise InvalidPositionError(f"bad checker count {count!r} on {key!r}")
        side[slot] += count
    return side


# -- the text board ---------------------------------------------------------------------------

_TOP = " +13-14-15-16-17-18------19-20-21-22-23-24-+"
_BOTTOM = " +12-11-10--9--8--7-------6--5--4--3--2--1-+"
_ROWS = 5


def _cell(mark: str, count: int, row: int) -> str:
    """Row ``row`` (0 = the edge of the board) of a stack of ``count`` checkers, 3 wide."""
    if count > _ROWS and row == _ROWS - 1:
        return f"{count:>2} "
    return f" {mark} " if count > row else "   "


def board_text(position: Position) -> str:
    """The position as a text board, lines joined by newlines.

    The layout is GNU Backgammon's ``show board``, drawn from the point of view of the player on
    roll, ``X``, who moves from point 24 (top right) round to point 1 (bottom right); the
    opponent is ``O``. A point shows up to five checkers; a taller stack shows its count in the
    fifth row. Checkers on the bar are drawn in the bar column, ``X``'s in the top half (where
    they enter), ``O``'s in the bottom half. Beside the board: each side's pip count, checkers on
    the bar and borne off.

    >>> print(board_text(Position.start()))
     Position ID: 4HPwATDgc/ABMA
     +13-14-15-16-17-18------19-20-21-22-23-24-+     O: 167 pips
     | X           O    |   | O              X |     bar 0, off 0
     | X           O    |   | O              X |
     | X           O    |   | O                |
     | X                |   | O                |
     | X                |   | O                |
     |                  |BAR|                  |
     | O                |   | X                |
     | O                |   | X                |
     | O           X    |   | X                |
     | O           X    |   | X              O |     bar 0, off 0
     | O           X    |   | X              O |     X: 167 pips, on roll
     +12-11-10--9--8--7-------6--5--4--3--2--1-+
    >>> pos = Position.from_points({'bar': 2, 6: 13}, {'bar': 1, 1: 6, 2: 8})
    >>> print(board_text(pos))
     Position ID: v38AAEDg/wMAYA
     +13-14-15-16-17-18------19-20-21-22-23-24-+     O: 47 pips
     |                  | X |             O  O |     bar 1, off 0
     |                  | X |             O  O |
     |                  |   |             O  O |
     |                  |   |             O  O |
     |                  |   |             8  6 |
     |                  |BAR|                  |
     |                  |   |13                |
     |                  |   | X                |
     |                  |   | X                |
     |                  |   | X                |     bar 2, off 0
     |                  | O | X                |     X: 128 pips, on roll
     +12-11-10--9--8--7-------6--5--4--3--2--1-+
    """
    me, opp = position.me, position.opp

    def at(p: int) -> tuple[str, int]:
        """The mark and count on point ``p`` (the numbering of ``X``, the player on roll)."""
        if me[p]:
            return "X", me[p]
        return "O", opp[BAR - p]

    top_points = range(13, 25)
    bottom_points = range(12, 0, -1)
    lines = [f" Position ID: {position.position_id()}", _TOP]
    for row in range(_ROWS):
        cells = [_cell(*at(p), row) for p in top_points]
        bar = _cell("X", me[BAR], row)
        lines.append(f" |{''.join(cells[:6])}|{bar}|{''.join(cells[6:])}|")
    lines.append(" |                  |BAR|                  |")
    for row in reversed(range(_ROWS)):
        cells = [_cell(*at(p), row) for p in bottom_points]
        bar = _cell("O", opp[BAR], row)
        lines.append(f" |{''.join(cells[:6])}|{bar}|{''.join(cells[6:])}|")
    lines.append(_BOTTOM)
    side = {
        1: f"O: {position.pip_count(1)} pips",
        2: f"bar {opp[BAR]}, off {opp[OFF]}",
        len(lines) - 3: f"bar {me[BAR]}, off {me[OFF]}",
        len(lines) - 2: f"X: {position.pip_count(0)} pips, on roll",
    }
    return "\n".join(f"{line}     {side[i]}" if i in side else line for i, line in enumerate(lines))
