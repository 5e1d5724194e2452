"""A readable text board, for logs, the CLI and error messages.

The layout is GNU Backgammon's ``show board``, drawn from the point of view of the player on
roll, ``X``, who moves from point 24 (top right) round to point 1 (bottom right); the opponent is
``O``. A point shows up to five checkers; a taller stack shows its count in the fifth row. Checkers
on the bar are drawn in the bar column, ``X``'s in the top half (where they enter), ``O``'s in the
bottom half. Beside the board: each side's pip count, checkers on the bar and borne off.

>>> from engine.position import Position
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
"""

from __future__ import annotations

from engine.position import BAR, OFF, Position

__all__ = ["board_text"]

_TOP = " +13-14-15-16-17-18------19-20-21-22-23-24-+"
_BOTTOM = " +12-11-10--9--8--7-------6--5--4--3--2--1-+"
_ROWS = 5


def _cell(mark: str, count: int, row: int) -> str:
    """Row ``row`` (0 = the edge of the board) of a stack of ``count`` checkers, 3 wide."""
    if count > _ROWS and row == _ROWS - 1:
        return f"{count:>2} "
    return f" {mark} " if count > row else "   "


def board_text(position: Position) -> str:
    """The position as a text board (see the module doc), lines joined by newlines.

    >>> from engine.position import Position
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
