"""The analysis of a table's finished games: a read model of its events, never written to its log.

:func:`analyse_table` exports the table's record as ``.mat`` (:mod:`events.records.mat_export`; a
chouette as one money session per team member, that member's own games against the box), has
GNU Backgammon analyse it at a ply (:mod:`events.gnubg.analysis`: its Python module, the
``chouette[gnubg]`` extra) and reads the analysis back onto the table's players and events:

- every **checker play**: the play made, GNU Backgammon's best play at the ply, the equity lost
  (cubeful, in EMG: normalised money equity, also in a match);
- every **cube decision** that is close or actual (GNU Backgammon's own rule: doubling costs
  the doubler less than 0.16, or a double was offered): double or not, and take, drop or
  beaver, with the proper action and the equity lost;
- the **luck** of every roll (the equity the roll gave beyond the average roll's);
- per player, per game and for the whole table: the error rate in mEMG per decision (the sum of
  equity lost over unforced checker plays and close or actual cube decisions, times 1000,
  divided by their number: GNU Backgammon's "Overall error rate"), and the luck total (EMG) and
  rate (mEMG per roll).

In a chouette, each member's cube is its own game against the box: the member's decisions
(double their cube, take or drop the box's double) and the box's on that cube (``cube``: the
member) come from that member's record; the checker plays and rolls come from the record of
whoever was captain when they were made, credited to the acting captain (the captaincy passes
when a captain drops) and to the box.

GNU Backgammon sometimes reads a move the record does not have (a double after the drop that
ended a game): matching no event, it is left out (``unmatched`` counts them per game).

Each decision carries the event ``version`` it was made at (the replay's jump point), and a
``mark``: ``blunder`` from 0.08 EMG lost, ``error`` from 0.04 (GNU Backgammon's "very bad" and
"doubtful" thresholds).

Pure functions of the events and GNU Backgammon's analysis; the server computes them off its
event loop and caches them (:mod:`server.http.analysis`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from engine.matfile import MatAction, MatMatch, write_mat
from events.domain import types as e
from events.domain.decider import evolve_stored
from events.domain.table import TableState
from events.gnubg.analysis import Block, analyse_with_module, parse_export
from events.records.gamelog import chouette_log, table_log
from events.records.mat_export import match_record, member_record

__all__ = ["BLUNDER", "ERROR", "Analyser", "analyse_table", "mark_of", "units_of"]

BLUNDER = 0.08
ERROR = 0.04

Analyser = Callable[[str, int], list[str]]
"""``.mat`` text and a ply to GNU Backgammon's text export, one string per game."""

_NAMES = ("Zero", "One")
"""The players' names in the exported record (a display name may be anything)."""

_KINDS = {
    "moves": "roll",
    "cannot": "roll",
    "doubles": "double",
    "accepts": "take",
    "rejects": "drop",
    "beavers": "beaver",
}


def mark_of(lost: float) -> str:
    return "blunder" if lost >= BLUNDER - 1e-9 else "error" if lost >= ERROR - 1e-9 else ""


def units_of(events: Sequence[e.Event]) -> int:
    """How many records :func:`analyse_table` has GNU Backgammon analyse (its progress units)."""
    created = next((ev for ev in events if isinstance(ev, e.TableCreated)), None)
    if created is None:
        return 0
    if created.kind != "chouette":
        return 1
    log = chouette_log(events)
    return len(dict.fromkeys(m for g in log.games for m in g.members))


def _renamed(record: MatMatch, options: e.TableOptions) -> MatMatch:
    """The record with neutral names, and the money rules in its header (a chouette member's
    record has none: GNU Backgammon is told them, :func:`events.gnubg.analysis._rules`)."""
    games = tuple(dataclasses.replace(g, names=_NAMES) for g in record.games)
    header = [(k, v) for k, v in record.header if k not in ("Jacoby", "Beaver")]
    if not record.length:
        header += [
            ("Jacoby", "On" if options.jacoby else "Off"),
            ("Beaver", "On" if options.beavers else "Off"),
        ]
    return dataclasses.replace(record, players=_NAMES, games=games, header=tuple(header))


class _Tally:
    """Errors, decisions and luck of one player (in one game or over the table)."""

    def __init__(self) -> None:
        self.error = 0.0
        self.decisions = 0
        self.plays = 0
        self.cube_decisions = 0
        self.luck = 0.0
        self.rolls = 0
        self.blunders = 0

    def add(self, other: _Tally) -> None:
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def doc(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions,
            "checker_plays": self.plays,
            "cube_decisions": self.cube_decisions,
            "blunders": self.blunders,
            "error_total_emg": round(self.error, 3),
            "error_rate_memg": round(1000 * self.error / self.decisions, 1)
            if self.decisions
            else 0.0,
            "luck_total_emg": round(self.luck, 3),
            "luck_rate_memg": round(1000 * self.luck / self.rolls, 1) if self.rolls else 0.0,
        }


class _Game:
    def __init__(self, number: int) -> None:
        self.number = number
        self.decisions: list[dict[str, Any]] = []
        self.tallies: dict[str, _Tally] = {}
        self.unmatched = 0

    def tally(self, player: str) -> _Tally:
        return self.tallies.setdefault(player, _Tally())


def _cube_decisions(block: Block) -> list[tuple[str, str, str, float]]:
    """(kind, action, best, equity lost) of the cube decision a block records, if it is one
    GNU Backgammon counts (close or actual)."""
    cube = block.cube
    if cube is None:
        return []
    kind = _KINDS.get(block.verb, "")
    if kind in ("roll", "double"):
        doubled = kind == "double"
        if not doubled and not cube.close():
            return []
        worth = min(cube.double_take, cube.double_pass)
        actual = worth if doubled else cube.no_double
        lost = max(cube.no_double, worth) - actual
        verb = "redouble" if "redouble" in cube.proper.lower() else "double"
        best = verb if cube.should_double else f"no {verb}"
        return [("double", verb if doubled else f"no {verb}", best, lost)]
    if kind in ("take", "drop", "beaver"):
        took = kind != "drop"
        lost = 0.0 if took == cube.should_take else abs(cube.double_take - cube.double_pass)
        best = "take" if cube.should_take else "drop"
        if cube.proper.rstrip(" )%0123456789.(").endswith("beaver"):
            best = "beaver"
        return [("take", kind, best, lost)]
    return []


def _read_game(
    game: _Game,
    text: str,
    actions: Sequence[MatAction],
    versions: Sequence[int],
    credit: Callable[[int, str, int | None], str | None],
    cube: str | None,
) -> None:
    """Read one game's analysis onto ``game``. ``credit(seat, what, version)`` names who a
    decision is credited to (``what``: ``play`` or ``cube``), or None to leave it out."""
    exported = parse_export(text)
    at = 0
    for block in exported.blocks:
        kind = _KINDS.get(block.verb)
        if kind is None or block.player not in _NAMES:
            continue
        seat = _NAMES.index(block.player)
        # The action this block analyses: the next of its kind by its player (a beaver is
        # recorded for GNU Backgammon as the doubled player's own double). A block GNU
        # Backgammon adds from its reading of the record, such as a double after the drop that
        # ended the game, matches none: it is no decision of the game, left out and counted.
        kinds = ("double", "beaver") if kind == "double" else (kind,)
        version = None
        for i in range(at, len(actions)):
            if actions[i].kind in kinds and actions[i].player == seat:
                version, at = versions[i], i + 1
                break
        if version is None:
            game.unmatched += 1
            continue
        base = {"game": game.number, "move": block.number, "version": version, "cube": cube}
        cube_player = credit(seat, "cube", version)
        for what, action, best, lost in _cube_decisions(block):
            if cube_player is None:
                continue
            lost = max(lost, 0.0)
            game.decisions.append(
                base
                | {
                    "player": cube_player,
                    "kind": what,
                    "action": action,
                    "best": best,
                    "equity_lost": round(lost, 3),
                    "mark": mark_of(lost),
                }
            )
            t = game.tally(cube_player)
            t.error += lost
            t.decisions += 1
            t.cube_decisions += 1
            t.blunders += lost >= BLUNDER - 1e-9
        if kind != "roll":
            continue
        player = credit(seat, "play", version)
        if player is None:
            continue
        t = game.tally(player)
        if block.luck is not None:
            t.luck += block.luck
            t.rolls += 1
        chosen, best_play = block.chosen, block.best
        if chosen is None or best_play is None or len(block.candidates) < 2:
            continue
        lost = max(chosen.loss, 0.0)
        game.decisions.append(
            base
            | {
                "player": player,
                "kind": "play",
                "dice": list(block.dice) if block.dice else None,
                "action": chosen.play,
                "best": best_play.play,
                "equity_lost": round(lost, 3),
                "mark": mark_of(lost),
            }
        )
        t.error += lost
        t.decisions += 1
        t.plays += 1
        t.blunders += lost >= BLUNDER - 1e-9


def _duel(
    events: Sequence[e.Event], ply: int, run: Analyser, progress: Callable[[int], None]
) -> tuple[list[_Game], dict[str, str]]:
    log = table_log(events)
    played = [g for g in log.games if g.how != "unplayed"]
    record = match_record(events, log)
    texts = run(write_mat(_renamed(record, log.options)), ply) if played else []
    progress(1)
    games: list[_Game] = []
    for g, text, mat_game in zip(played, texts, record.games, strict=False):
        if g.winner is None:
            continue  # not finished
        game = _Game(g.number)
        versions = [
            entry.version
            for entry in g.entries
            if entry.kind in ("roll", "double", "beaver", "take", "drop", "accept")
        ]
        actions = list(mat_game.actions)
        versions += [versions[-1] if versions else 0] * (len(actions) - len(versions))

        def credit(seat: int, what: str, version: int | None, g: Any = g) -> str:
            return str(g.players[seat])

        _read_game(game, text, actions, versions, credit, None)
        games.append(game)
    return games, log.names


def _captains(events: Sequence[e.Event]) -> dict[int, str]:
    """The captain when each event was appended (by the event's version)."""
    state = TableState()
    captains: dict[int, str] = {}
    for ev in events:
        before = state
        state = evolve_stored(state, ev)
        ch = before.chouette
        if ch is not None and ch.game is not None:
            captains[state.version] = ch.game.captain
    return captains


def _chouette(
    events: Sequence[e.Event], ply: int, run: Analyser, progress: Callable[[int], None]
) -> tuple[list[_Game], dict[str, str]]:
    log = chouette_log(events)
    captains = _captains(events)
    games = {g.number: _Game(g.number) for g in log.games}
    members = dict.fromkeys(m for g in log.games for m in g.members)
    for member in members:
        theirs = [g for g in log.games if member in g.members]
        record = member_record(events, member)
        texts = run(write_mat(_renamed(record, log.options)), ply) if record.games else []
        progress(1)
        for g, text in zip(theirs, texts, strict=False):
            if not g.ended_at:
                continue  # not finished
            mine = g.members[member]

            def credit(
                seat: int, what: str, version: int | None, g: Any = g, member: str = member
            ) -> str | None:
                if what == "cube":
                    return str(g.box) if seat == 0 else member
                if version is None or captains.get(version) != member:
                    return None  # the play is read from the acting captain's record
                return str(g.box) if seat == 0 else member

            _read_game(games[g.number], text, mine.actions, mine.versions, credit, member)
    return list(games.values()), log.names


def analyse_table(
    events: Sequence[e.Event],
    ply: int = 0,
    *,
    run: Analyser | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """The analysis of a table's games (see the module's docstring) as a JSON document.

    ``run`` analyses ``.mat`` text (default: GNU Backgammon's module in this process);
    ``progress`` is called with 1 after each record analysed (:func:`units_of` of them).

    :raises ValueError: a ply outside 0..2, or events that are not a table's.
    """
    if not 0 <= ply <= 2:
        raise ValueError(f"the ply is 0, 1 or 2, not {ply!r}")
    created = next((ev for ev in events if isinstance(ev, e.TableCreated)), None)
    if created is None:
        raise ValueError("no table_created event")
    analyser = run or analyse_with_module
    step = progress or (lambda n: None)
    if created.kind == "chouette":
        games, names = _chouette(events, ply, analyser, step)
    else:
        games, names = _duel(events, ply, analyser, step)
    totals: dict[str, _Tally] = {}
    for game in games:
        game.decisions.sort(key=lambda d: (d["version"], d["move"], d["cube"] or ""))
        for player, t in game.tallies.items():
            totals.setdefault(player, _Tally()).add(t)
    return {
        "table": created.table_id,
        "kind": created.kind,
        "ply": ply,
        "version": len(events),  # a stream's versions are 1, 2, 3...
        "engine": "GNU Backgammon",
        "thresholds": {"blunder": BLUNDER, "error": ERROR},
        "players": {p: {"name": names.get(p, p), **t.doc()} for p, t in sorted(totals.items())},
        "games": [
            {
                "number": g.number,
                "players": {p: t.doc() for p, t in sorted(g.tallies.items())},
                "decisions": g.decisions,
                "unmatched": g.unmatched,
            }
            for g in sorted(games, key=lambda g: g.number)
            if g.tallies
        ],
    }
