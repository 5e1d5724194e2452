"""The Jellyfish ``.mat`` match format, as GNU Backgammon writes and imports it.

The format has no formal definition; this module writes what GNU Backgammon's importer
(``import.c``: ``ImportMatVariation``, ``ImportGame``, ``ParseMatMove``) reads, and reads what
GNU Backgammon, Jellyfish, eXtreme Gammon and the usual sites write. A file is::

    ; [Site "chouette"]                          <- optional ``; [Key "Value"]`` header lines
    ; [Player 1 "alice"]

     5 point match                               <- 0 point match: money play

     Game 1
     alice : 0                           bob : 0                  <- names and scores
      1) 31: 8/5 6/5                     64: 24/18 13/9           <- player 1 left, 2 right
      2)  Doubles => 2                    Takes
      3) 52: 13/11 13/8                   Doubles => 4
      4)  Drops
                                          Wins 2 points

Each row holds the first player's action on the left and the second's on the right; GNU
Backgammon splits a row at the second ``dd:`` roll, or else at the first double space after
column 15. A roll is ``dd: moves`` (an empty play when nothing can move), a cube action
``Doubles => n``, ``Beavers => n``, ``Takes`` or ``Drops``, and an accepted resignation is a
``Wins n points`` line with no preceding drop or last checker borne off, in the winner's column.
GNU Backgammon writes a resignation after a roll as the throw with no play, then the ``Wins``
line (for the second player's opening throw, both on one line in the first column:
``1) 21:       Wins 1 point``).

Choices made here, where GNU Backgammon's own writer would lose information on its way back in:

- Plays are written move by move in an order that can be applied, each ``from/to`` one die,
  a hit marked ``*`` and repeats counted ``(n)``: ``24/18* 18/13``, never the joined
  ``24/18*/13``. GNU Backgammon's importer only expands a joined move in a few cases (not, for
  example, ``65: 8/off``), so its own joined notation does not always read back.
- A beaver is written ``Doubles => n`` (the doubled player redoubling at once, which is what
  GNU Backgammon records for a beaver), and the original doubler's answer is written as usual.
  GNU Backgammon's importer does read ``Beavers => n``, but it then remembers the beaver until a
  roll takes it, so a dropped beaver makes it skip the rolls of the next game. This reader
  takes either.
- The opening throw's ties and automatic doubles cannot be written; a game whose cube was
  doubled automatically is exported with its actual cube values in ``Doubles => n`` and a note
  in the header (GNU Backgammon starts it at 1).

>>> game = MatGame(1, (0, 0), (
...     MatAction(0, "roll", (3, 1), ((8, 5), (6, 5))),
...     MatAction(1, "double", value=2),
...     MatAction(0, "drop"),
... ), winner=1, points=1)
>>> print(write_mat(MatMatch(3, ("alice", "bob"), (game,))), end="")
<BLANKLINE>
 3 point match
<BLANKLINE>
 Game 1
 alice : 0                           bob : 0
  1) 31: 8/5 6/5                  Doubles => 2
  2)  Drops
                                      Wins 1 point
<BLANKLINE>
>>> back = parse_mat(write_mat(MatMatch(3, ("alice", "bob"), (game,))))
>>> [(a.player, a.kind, a.text) for a in back.games[0].actions]
[(0, 'roll', '8/5 6/5'), (1, 'double', ''), (0, 'drop', ''), (1, 'win', '')]
>>> back.games[0].winner, back.games[0].points
(1, 1)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import EngineError
from engine.moves import Move, apply_moves
from engine.position import BAR, OFF, Position

__all__ = [
    "MatAction",
    "MatFormatError",
    "MatGame",
    "MatMatch",
    "moves_text",
    "parse_mat",
    "write_mat",
]

KINDS = ("roll", "double", "beaver", "take", "drop", "win")
"""The kinds of action a ``.mat`` file records."""


class MatFormatError(EngineError):
    """A ``.mat`` file that cannot be read (the message names the line)."""


@dataclass(frozen=True, slots=True)
class MatAction:
    """One entry of a game's record."""

    player: int
    """0 (the left column) or 1."""
    kind: str
    """One of :data:`KINDS`: ``win`` is an accepted resignation (a drop or a bear-off is not
    written as a separate win)."""
    dice: tuple[int, int] | None = None
    """A roll's dice, in the order written."""
    moves: tuple[Move, ...] = ()
    """A roll's moves, ``(from, to)`` in the player's own numbering (when known)."""
    value: int = 0
    """The cube value offered by a double or beaver; the points of a ``win``."""
    text: str = ""
    """A roll's play as written (set by :func:`parse_mat`)."""


@dataclass(frozen=True, slots=True)
class MatGame:
    number: int
    """From 1."""
    score: tuple[int, int]
    """The score before the game (points won so far in money play)."""
    actions: tuple[MatAction, ...]
    winner: int | None = None
    """Who won (None for a game still in play)."""
    points: int = 0
    """What the game was worth to the winner."""
    names: tuple[str, str] | None = None
    """The players of this game, when not the match's."""


@dataclass(frozen=True, slots=True)
class MatMatch:
    length: int
    """Points to win; 0 for money play."""
    players: tuple[str, str]
    games: tuple[MatGame, ...]
    header: tuple[tuple[str, str], ...] = ()
    """``; [Key "Value"]`` lines, in order."""


# -- writing ------------------------------------------------------------------------------------

_LEFT = 27
"""Width of the left column's text after the row number, as GNU Backgammon writes it."""


def _clean_name(name: str) -> str:
    """A player name the importer reads back: one line, no colon, no ``Game `` (which starts a
    game wherever it appears)."""
    text = " ".join(name.replace(":", " ").split()) or "player"
    return re.sub(r"(?i)game(?= )", "Gam", text)


def moves_text(position: Position, moves: Sequence[Move]) -> str:
    """A play written one die at a time in the order given, hits marked, repeats counted.

    >>> moves_text(Position.start(), [(24, 18), (18, 13)])
    '24/18 18/13'
    >>> moves_text(Position.start(), [(13, 7), (13, 7), (8, 2), (8, 2)])
    '13/7(2) 8/2(2)'
    """
    opp = list(position.opp)
    written: list[list[object]] = []
    for frm, to in moves:
        hit = 0 < to < BAR and opp[BAR - to] == 1
        if hit:
            opp[BAR - to] = 0
        step = f"{'bar' if frm == BAR else frm}/{'off' if to == OFF else to}{'*' if hit else ''}"
        if written and written[-1][0] == step and not hit:
            written[-1][1] = int(written[-1][1]) + 1  # type: ignore[call-overload]
        else:
            written.append([step, 1])
    return " ".join(f"{s}({n})" if n != 1 else str(s) for s, n in written)


def _cells(game: MatGame, start: Position) -> list[tuple[int, str]]:
    """The game's entries as ``(player, text)``; a ``win`` line has player ``-1 - winner``."""
    cells: list[tuple[int, str]] = []
    position = start  # seen by player 0
    cube = 1
    for a in game.actions:
        if a.kind == "roll":
            assert a.dice is not None
            seen = position if a.player == 0 else position.swap()
            text = moves_text(seen, a.moves)
            try:
                after = apply_moves(seen, a.dice, a.moves)
            except EngineError as exc:
                raise MatFormatError(f"game {game.number}: {exc}") from exc
            position = after if a.player == 0 else after.swap()
            cells.append((a.player, f"{a.dice[0]}{a.dice[1]}: {text}".rstrip()))
        elif a.kind in ("double", "beaver"):
            cube = a.value or cube * 2
            cells.append((a.player, f" Doubles => {cube}"))  # a beaver too: see the module doc
        elif a.kind == "take":
            cells.append((a.player, " Takes"))
        elif a.kind == "drop":
            cells.append((a.player, " Drops"))
        elif a.kind == "win":
            if a is not game.actions[-1] or game.winner is None:
                cells.append((-1 - a.player, _wins(a.value)))
        else:
            raise MatFormatError(f"game {game.number}: unknown action {a.kind!r}")
    return cells


def _wins(points: int) -> str:
    return f"Wins {points} point{'s' if points != 1 else ''}"


def write_mat(match: MatMatch) -> str:
    """The match as ``.mat`` text.

    :raises MatFormatError: a play that does not fit its position (the record is inconsistent).
    """
    out: list[str] = []
    for key, value in match.header:
        value = " ".join(value.replace('"', "'").split())
        out.append(f'; [{" ".join(key.split())} "{value}"]')
    out.append("")
    out.append(f" {match.length} point match")
    out.append("")
    for game in match.games:
        names = [_clean_name(n) for n in (game.names or match.players)]
        out.append(f" Game {game.number}")
        left = f"{names[0]} : {game.score[0]}"
        out.append(f" {left:<35} {names[1]} : {game.score[1]}")
        row = 0
        line: str | None = None  # the row being filled, holding its left cell
        for player, text in _cells(game, Position.start()):
            if player < 0:  # an accepted resignation: its own line, in the winner's column
                if line is not None:
                    out.append(line.rstrip())
                    line = None
                winner = -1 - player
                out.append((" " * 6 if winner == 0 else " " * 38) + text)
                continue
            if player == 0:
                if line is not None:
                    out.append(line.rstrip())
                row += 1
                line = f"{row:3d}) {text:<{_LEFT}} "
            else:
                if line is None:
                    row += 1
                    line = f"{row:3d}) {'':<{_LEFT}} "
                out.append(line + text)
                line = None
        if line is not None:
            out.append(line.rstrip())
        if game.winner is not None:
            pad = " " * 6 if game.winner == 0 else " " * 38
            out.append(pad + _wins(game.points))
        out.append("")
    return "\n".join(out) + "\n"


# -- reading ------------------------------------------------------------------------------------

_HEADER_RE = re.compile(r'^;\s*\[\s*([^\]"]+?)\s+"(.*)"\s*\]\s*$')
_LENGTH_RE = re.compile(r"^\s*(\d+)\s+[Pp]oint\s+[Mm]atch")
_GAME_RE = re.compile(r"Game\s+(\d+)")
_SCORE_RE = re.compile(r"^\s*(.*?)\s*:\s*(-?\d+)\s+(.*?)\s*:\s*(-?\d+)\s*$")
_ROLL_RE = re.compile(r"^([1-6])([1-6]):(.*)$")
_CUBE_RE = re.compile(r"^(doubles|beavers|raccoons)\s*(?:=>\s*(\d+))?", re.IGNORECASE)
_WIN_RE = re.compile(r"^wins?\s+(\d+)\s+points?", re.IGNORECASE)


def _split_row(line: str) -> tuple[str, str | None]:
    """Split a row into its two columns the way GNU Backgammon's importer does."""
    first = line.find(":")
    second = line.find(":", first + 1) if first >= 0 else -1
    if second > 3 and first >= 0:
        cut = second - 2
        left, right = line[: cut - 1], line[cut:]
    elif len(line) > 15 and (cut := line.find("  ", 15)) >= 0:
        left, right = line[:cut], line[cut + 1 :]
    else:
        left, right = line, None
    paren = left.find(")")
    if paren >= 0:
        left = left[paren + 1 :]
    return left, right


def _parse_cell(text: str, player: int, where: str) -> MatAction | None:
    """One column of a row, or None for an empty or ignorable one."""
    s = text.strip()
    if not s:
        return None
    if m := _ROLL_RE.match(s):
        play = m.group(3).strip()
        if play.lower() in ("cannot move", "can't move") or set(play) <= {"?"}:
            play = ""
        return MatAction(player, "roll", (int(m.group(1)), int(m.group(2))), text=play)
    if m := _CUBE_RE.match(s):
        kind = "double" if m.group(1).lower() == "doubles" else "beaver"
        return MatAction(player, kind, value=int(m.group(2) or 0))
    lower = s.lower()
    if lower.startswith("take"):
        return MatAction(player, "take")
    if lower.startswith(("drop", "pass")):
        return MatAction(player, "drop")
    if m := _WIN_RE.match(s):
        return MatAction(player, "win", value=int(m.group(1)))
    if lower.startswith("resign"):
        return None
    raise MatFormatError(f"{where}: cannot read {s!r}")


def parse_mat(text: str) -> MatMatch:
    """Read ``.mat`` text. Plays stay as written (:attr:`MatAction.text`); the rules are not
    applied here (the importer replays them through the engine).

    ``Wins`` lines stay among the actions (only the rules can tell a resignation from the line
    that records a drop's or a bear-off's result); the last one is also the game's result.

    :raises MatFormatError: no ``N point match`` line, a game without its score line, or an
        entry that is none of a roll, a cube action or a win (the message names the line).
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    header: list[tuple[str, str]] = []
    length: int | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.lstrip().startswith((";", "#")):
            if m := _HEADER_RE.match(line.strip()):
                header.append((m.group(1), m.group(2)))
            continue
        if m := _LENGTH_RE.match(line):
            length = int(m.group(1))
            break
    if length is None:
        raise MatFormatError("not a .mat file: no 'N point match' line")
    games: list[MatGame] = []
    players = ("", "")
    while i < len(lines):
        m = _GAME_RE.search(lines[i])
        i += 1
        if not m:
            continue
        number = int(m.group(1))
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i >= len(lines) or not (s := _SCORE_RE.match(lines[i])):
            raise MatFormatError(f"line {i + 1}: game {number} has no 'name : score' line")
        players = (s.group(1), s.group(3))
        score = (int(s.group(2)), int(s.group(4)))
        i += 1
        actions: list[MatAction] = []
        while i < len(lines) and not _GAME_RE.search(lines[i]):
            line = lines[i]
            i += 1
            if not line.strip() or line.lstrip().startswith(";"):
                continue
            left, right = _split_row(line)
            where = f"line {i}"
            for player, cell in ((0, left), (1, right)):
                if cell is None:
                    continue
                action = _parse_cell(cell, player, where)
                if action is None:
                    continue
                if action.kind == "roll" and (won := _WIN_RE.match(action.text)):
                    # GNU Backgammon writes the second player's unplayed opening throw at the
                    # start of the row, and the first player's ``Wins`` line right after it.
                    actions.append(MatAction(1 - player, "roll", action.dice))
                    actions.append(MatAction(player, "win", value=int(won.group(1))))
                    continue
                actions.append(action)
        games.append(_finish_game(number, score, actions, players))
    return MatMatch(length, players, tuple(games), tuple(header))


def _finish_game(
    number: int, score: tuple[int, int], actions: list[MatAction], names: tuple[str, str]
) -> MatGame:
    """The game's result is its last ``win`` line. Every ``win`` stays among the actions: only
    the rules can tell a resignation (the game still in play) from a result line (after a drop
    or the last checker borne off), as GNU Backgammon's importer does."""
    wins = [a for a in actions if a.kind == "win"]
    if not wins:
        return MatGame(number, score, tuple(actions), names=names)
    return MatGame(number, score, tuple(actions), wins[-1].player, wins[-1].value, names)
