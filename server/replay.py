"""Replays, game records and exports: a table's events read back as games.

- :class:`Replayer` answers ``GET /tables/{id}/replay?at=VERSION``: the table as it stood after
  that version (the fold of the events up to it), with its last event in words and, for a play,
  in standard notation. It keeps a snapshot every :attr:`Replayer.every` versions; snapshots are
  folds themselves, derived and disposable (a test checks replays at every version against the
  plain fold).
- :func:`table_log` turns the events of a money or match table into games of entries (throws,
  plays, cube actions, resignations, results), from which :func:`record_lines` prints the record
  for ``chouette replay``, :func:`match_record` builds the ``.mat`` export
  (:mod:`engine.matfile`) and :func:`export_json` a JSON document.
- :func:`import_mat` turns a ``.mat`` file into the events of a new table by running every action
  through the decider, with the file's dice.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
from aiohttp import web

from engine.errors import EngineError
from engine.game import Phase
from engine.matfile import MatAction, MatFormatError, MatGame, MatMatch, parse_mat, write_mat
from engine.notation import format_play
from engine.text import board_text
from events import commands as c
from events import types as e
from events.decider import TableState, decide, evolve
from events.store import EventStore, RecordedEvent
from server.tables import decode_recorded, table_stream

__all__ = [
    "Replayer",
    "decode_all",
    "event_text",
    "export_json",
    "export_mat",
    "handle_export_mat",
    "handle_replay",
    "import_mat",
    "match_record",
    "record_lines",
    "replay_view",
    "state_text",
    "table_log",
]


def decode_all(records: Sequence[RecordedEvent]) -> list[e.Event]:
    """Decode a stream's events (a corrupt one raises ``CorruptEventError`` naming it)."""
    return [decode_recorded(r) for r in records]


def fold_states(events: Sequence[e.Event], state: TableState | None = None) -> Iterator[TableState]:
    """The state after each event, in order."""
    s = state or TableState()
    for ev in events:
        s = evolve(s, ev)
        yield s


# -- words ----------------------------------------------------------------------------------------

_LEVELS = {1: "a single game", 2: "a gammon", 3: "a backgammon"}


def _name(state: TableState, player: str | None) -> str:
    return state.display_name(player) if player else "?"


def event_text(before: TableState, event: e.Event, after: TableState) -> str:
    """One event in words, with a play in standard notation.

    ``before`` and ``after`` are the states on either side of it (the dice of a play and the
    value of a double come from them).
    """
    who = _name(before, getattr(event, "player", None))
    match event:
        case e.TableCreated():
            extras = [k for k in ("beavers", "jacoby") if getattr(event.options, k)]
            if event.options.auto_doubles:
                extras.append(f"automatic doubles up to {event.options.auto_doubles}")
            what = (
                f"a match to {event.options.match_length}"
                if event.kind == "match"
                else f"a {event.kind} table"
            )
            more = f" ({', '.join(extras)})" if extras else ""
            return f"{_name(after, event.created_by)} creates {what}{more}"
        case e.PlayerJoined():
            seat = f" in seat {event.seat}" if event.seat is not None else ""
            return f"{_name(after, event.player)} sits down{seat}"
        case e.PlayerLeft():
            return f"{who} leaves"
        case e.GameStarted():
            return f"game {event.game} starts (dice commitment {event.dice_commitment[:16]}…)"
        case e.ClientSeedAdded():
            return f"{who} adds a dice seed of their own: {event.seed!r}"
        case e.OpeningThrow():
            names = [_name(before, p) for p in before.seats]
            d0, d1 = event.dice
            tie = " — a tie, throw again" if d0 == d1 else ""
            return f"opening throw: {names[0]} {d0}, {names[1]} {d1}{tie}"
        case e.DiceRolled():
            game = after.game
            passed = game is not None and game.phase is not Phase.MOVE and not game.is_over
            tail = ": no legal move" if passed else ""
            return f"{who} rolls {event.dice[0]}-{event.dice[1]}{tail}"
        case e.CheckersMoved():
            game = before.game
            dice = game.dice if game else None
            roll = f"{dice[0]}{dice[1]}: " if dice else ""
            return f"{who} plays {roll}{_notation(before, event) or '(no move)'}"
        case e.CubeOffered():
            value = after.game.pending.value if after.game and after.game.pending else 0
            return f"{who} doubles to {value}" if value else f"{who} doubles"
        case e.CubeTaken():
            return f"{who} takes"
        case e.CubeBeavered():
            value = after.game.pending.value if after.game and after.game.pending else 0
            return f"{who} beavers to {value}"
        case e.CubeDropped():
            return f"{who} drops"
        case e.ResignationOffered():
            return f"{who} offers to resign {_LEVELS.get(event.level, event.level)}"
        case e.ResignationAccepted():
            return f"{who} accepts the resignation"
        case e.ResignationDeclined():
            return f"{who} declines the resignation"
        case e.GameEnded():
            points = event.result * event.cube
            how = {"drop": " (double dropped)", "resign": " (resignation)"}.get(event.how, "")
            return (
                f"{_name(before, event.winner)} wins {_LEVELS.get(event.result, '?')}{how}: "
                f"{event.result} × cube {event.cube} = {points} point{'s' * (points != 1)}"
                f"; game {event.game}'s dice seed was {event.seed[:16]}…"
            )
        case e.MatchEnded():
            return f"{_name(before, event.winner)} wins the match {'-'.join(map(str, event.score))}"
        case e.LineThrow():
            throws = ", ".join(f"{_name(before, p)} {d}" for p, d in event.throws.items())
            return f"throws for the line: {throws}"
        case e.LineRotated():
            return "the line is now " + ", ".join(_name(before, p) for p in event.line)
        case e.ChatPosted():
            return f"{who}: {event.text}"
    return e.tag(event).replace("_", " ")


def _notation(before: TableState, event: e.CheckersMoved) -> str:
    if event.notation:
        return event.notation
    game = before.game
    if game is None:
        return ""
    try:
        return format_play(game.position, [(a, b) for a, b in event.moves])
    except EngineError:
        return " ".join(f"{a}/{b}" for a, b in event.moves)


# -- replay at a version --------------------------------------------------------------------------


def replay_view(
    before: TableState, event: e.Event, after: TableState, viewer: str | None
) -> dict[str, Any]:
    """The JSON answer of a replay: the table after ``event`` as ``viewer`` sees it (Position
    ID, Match ID and all, from :func:`server.views.table_view`), and the event itself."""
    from server.views import table_view

    described: dict[str, Any] = {
        "v": after.version,
        "type": e.tag(event),
        "data": msgspec.to_builtins(event),
        "text": event_text(before, event, after),
    }
    if isinstance(event, e.CheckersMoved):
        described["notation"] = _notation(before, event)
        if before.game is not None:
            described["position_id_before"] = before.game.position_id()
    return {"at": after.version, "event": described, "table": table_view(after, viewer)}


@dataclass(slots=True)
class _Snapshots:
    states: list[TableState] = field(default_factory=lambda: [TableState()])
    """``states[k]`` is the fold of the first ``k * every`` events."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Replayer:
    """Folds of a table's stream at any version, with a snapshot every ``every`` versions.

    Streams are append-only, so a snapshot never goes stale. Snapshots are kept for the
    ``max_tables`` tables replayed most recently.
    """

    def __init__(self, store: EventStore, *, every: int = 100, max_tables: int = 256) -> None:
        self.store = store
        self.every = every
        self.max_tables = max_tables
        self._tables: dict[str, _Snapshots] = {}

    def _snapshots(self, table_id: str) -> _Snapshots:
        snaps = self._tables.pop(table_id, None) or _Snapshots()
        self._tables[table_id] = snaps  # most recent last
        while len(self._tables) > self.max_tables:
            self._tables.pop(next(iter(self._tables)))
        return snaps

    async def at(self, table_id: str, version: int) -> tuple[TableState, e.Event, TableState]:
        """The state before ``version``, the event at it, and the state after it.

        :raises LookupError: no event at that version.
        """
        if version < 1:
            raise LookupError(f"versions start at 1, not {version}")
        stream = table_stream(table_id)
        snaps = self._snapshots(table_id)
        async with snaps.lock:
            k = (version - 1) // self.every
            while len(snaps.states) <= k:
                base = snaps.states[-1]
                records = await self.store.read_stream(
                    stream, after_version=base.version, limit=self.every
                )
                if len(records) < self.every:
                    break
                s = base
                for ev in decode_all(records):
                    s = evolve(s, ev)
                snaps.states.append(s)
            base = snaps.states[min(k, len(snaps.states) - 1)]
        records = await self.store.read_stream(
            stream, after_version=base.version, limit=version - base.version
        )
        if not records or records[-1].version != version:
            raise LookupError(f"the table has no event at version {version}")
        events = decode_all(records)
        before = base
        for ev in events[:-1]:
            before = evolve(before, ev)
        return before, events[-1], evolve(before, events[-1])


_replayers: weakref.WeakKeyDictionary[EventStore, Replayer] = weakref.WeakKeyDictionary()


def replayer_for(store: EventStore) -> Replayer:
    """The process's replayer for a store (created on first use)."""
    replayer = _replayers.get(store)
    if replayer is None:
        replayer = _replayers[store] = Replayer(store)
    return replayer


async def handle_replay(request: web.Request) -> web.Response:
    """``GET /tables/{id}/replay?at=VERSION``: the table after that version (default: the
    latest), with the event at it in words and notation."""
    from server.handlers import _table_id, current_account, json_response
    from server.keys import TABLES
    from server.problems import bad_request, not_found

    table_id = _table_id(request)
    account = await current_account(request, required=False)
    tables = request.app[TABLES]
    state = await tables.state(table_id)  # 404 for an unknown table
    raw = request.query.get("at")
    if raw is None:
        at = state.version
    else:
        try:
            at = int(raw)
        except ValueError:
            raise bad_request(f"at must be a version number, not {raw!r}", field="at") from None
    if not 1 <= at <= state.version:
        if at > state.version:
            # A version appended since the cached state was read is still fine.
            state = await tables.state(table_id)
        if not 1 <= at <= state.version:
            raise not_found(f"table {table_id} has versions 1 to {state.version}, not {at}")
    before, event, after = await replayer_for(tables.store).at(table_id, at)
    body = replay_view(before, event, after, account.account_id if account else None)
    body["version"] = state.version
    return json_response(body)


async def handle_export_mat(request: web.Request) -> web.Response:
    """``GET /tables/{id}/export.mat``: the table's games as a GNU Backgammon ``.mat`` file."""
    from server.handlers import _table_id
    from server.keys import TABLES
    from server.problems import Problem, not_found

    table_id = _table_id(request)
    store = request.app[TABLES].store
    records = await store.read_stream(table_stream(table_id))
    if not records:
        raise not_found(f"no table {table_id!r}")
    events = decode_all(records)
    if events[0].kind == "chouette":  # type: ignore[attr-defined]
        raise Problem(
            409, "not-exportable", "Not exportable", "a chouette exports one file per member"
        )
    return web.Response(
        text=export_mat(events),
        content_type="text/plain",
        charset="utf-8",
        headers={"Content-Disposition": f'attachment; filename="table-{table_id}.mat"'},
    )


# -- game records ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entry:
    """One thing that happened in a game."""

    version: int
    kind: str
    """``opening`` (a throw of one die each), ``roll`` (a throw and its play), ``double``,
    ``beaver``, ``take``, ``drop``, ``resign``, ``accept``, ``decline``, ``seed``."""
    seat: int | None = None
    """Who acted (0 or 1); None for an opening throw."""
    dice: tuple[int, int] | None = None
    moves: tuple[tuple[int, int], ...] = ()
    notation: str = ""
    value: int = 0
    """The cube value offered (double, beaver) or the resignation level."""
    position_id: str = ""
    """The position before the entry, seen by the player on roll (or to act)."""
    match_id: str = ""
    """The Match ID before the entry."""
    text: str = ""
    """The entry in words."""


@dataclass(slots=True)
class GameLog:
    number: int
    players: tuple[str, str]
    """The seated players' ids."""
    names: tuple[str, str]
    score: tuple[int, int]
    """Before the game: match score, or points won so far in money play."""
    crawford: bool
    commitment: str
    started_at: int
    entries: list[Entry] = field(default_factory=list)
    client_seeds: list[str] = field(default_factory=list)
    auto_doubles: int = 0
    winner: int | None = None
    result: int = 0
    cube: int = 0
    how: str = ""
    seed: str = ""
    ended_at: int = 0

    @property
    def points(self) -> int:
        return self.result * self.cube


@dataclass(slots=True)
class TableLog:
    table_id: str
    kind: str
    options: e.TableOptions
    match_length: int
    games: list[GameLog] = field(default_factory=list)
    match_winner: str = ""
    final_score: tuple[int, int] = (0, 0)
    names: dict[str, str] = field(default_factory=dict)


def table_log(events: Sequence[e.Event]) -> TableLog:
    """The games of a money or match table, entry by entry.

    :raises ValueError: a chouette (its record is per member; see the chouette export).
    """
    state = TableState()
    log: TableLog | None = None
    game: GameLog | None = None
    for ev in events:
        before = state
        state = evolve(state, ev)
        if isinstance(ev, e.TableCreated):
            if ev.kind == "chouette":
                raise ValueError("a chouette's record is per team member")
            log = TableLog(ev.table_id, ev.kind, ev.options, ev.options.match_length)
            continue
        assert log is not None, "the first event of a table is table_created"
        log.names.update(dict(state.names))
        if isinstance(ev, e.GameStarted):
            session = state.session
            assert session is not None
            p0, p1 = (state.seats[0] or "?"), (state.seats[1] or "?")
            game = GameLog(
                ev.game,
                (p0, p1),
                (state.display_name(p0), state.display_name(p1)),
                session.score,
                session.crawford,
                ev.dice_commitment,
                state.version,
            )
            log.games.append(game)
            continue
        if isinstance(ev, e.MatchEnded):
            log.match_winner = ev.winner
            continue
        if game is None or isinstance(ev, (e.PlayerJoined, e.PlayerLeft, e.ChatPosted)):
            continue
        seat = before.seat_of(getattr(ev, "player", "")) if hasattr(ev, "player") else None
        g_before = before.game
        ids = (
            (g_before.position_id(), before.session.match_id())
            if g_before is not None and before.session is not None
            else ("", "")
        )
        found = _entry_of(ev, before, state, seat)
        if found is not None:
            kind, fields = found
            game.entries.append(
                Entry(
                    state.version,
                    kind,
                    position_id=ids[0],
                    match_id=ids[1],
                    text=event_text(before, ev, state),
                    **fields,
                )
            )
        if isinstance(ev, e.ClientSeedAdded):
            game.client_seeds.append(ev.seed)
        elif isinstance(ev, e.OpeningThrow) and state.game is not None:
            game.auto_doubles = state.game.auto_doubles
        elif isinstance(ev, e.GameEnded):
            game.winner = before.seat_of(ev.winner)
            game.result, game.cube, game.how = ev.result, ev.cube, ev.how
            game.seed, game.ended_at = ev.seed, state.version
    if log is None:
        raise ValueError("no table_created event")
    if state.session is not None:
        log.final_score = state.session.score
    return log


def _entry_of(
    ev: e.Event, before: TableState, after: TableState, seat: int | None
) -> tuple[str, dict[str, Any]] | None:
    """The kind and fields of the entry an event makes, if it makes one."""
    match ev:
        case e.ClientSeedAdded():
            return "seed", {"seat": seat}
        case e.OpeningThrow():
            return "opening", {"dice": ev.dice}
        case e.DiceRolled():
            game = after.game
            if game is not None and game.phase is not Phase.MOVE and not game.is_over:
                return "roll", {"seat": seat, "dice": ev.dice}  # no legal move: turn passed
            return None
        case e.CheckersMoved():
            played = before.game
            assert played is not None and played.dice is not None
            return "roll", {
                "seat": seat,
                "dice": played.dice,
                "moves": tuple((a, b) for a, b in ev.moves),
                "notation": _notation(before, ev),
            }
        case e.CubeOffered() | e.CubeBeavered():
            pending = after.game.pending if after.game else None
            kind = "double" if isinstance(ev, e.CubeOffered) else "beaver"
            return kind, {"seat": seat, "value": pending.value if pending else 0}
        case e.CubeTaken():
            return "take", {"seat": seat}
        case e.CubeDropped():
            return "drop", {"seat": seat}
        case e.ResignationOffered():
            return "resign", {"seat": seat, "value": ev.level}
        case e.ResignationAccepted():
            return "accept", {"seat": seat}
        case e.ResignationDeclined():
            return "decline", {"seat": seat}
    return None


def record_lines(events: Sequence[e.Event], *, boards: bool = False) -> Iterator[str]:
    """The game record as lines of text, game by game and move by move."""
    log = table_log(events)
    states = list(fold_states(events)) if boards else []
    o = log.options
    rules = [k for k in ("beavers", "jacoby") if getattr(o, k)]
    if o.auto_doubles:
        rules.append(f"automatic doubles ≤ {o.auto_doubles}")
    what = f"match to {log.match_length}" if log.kind == "match" else "money play"
    yield f"Table {log.table_id}: {what}{' (' + ', '.join(rules) + ')' if rules else ''}"
    for g in log.games:
        yield ""
        score = f"{g.names[0]} {g.score[0]}, {g.names[1]} {g.score[1]}"
        crawford = " (Crawford game)" if g.crawford else ""
        yield f"Game {g.number}: {score}{crawford}"
        yield f"  dice commitment {g.commitment}"
        turn = 0
        for entry in g.entries:
            who = g.names[entry.seat] if entry.seat is not None else ""
            if entry.kind == "opening":
                d0, d1 = entry.dice or (0, 0)
                tie = "  tie" if d0 == d1 else ""
                yield f"  opening  {g.names[0]} {d0}, {g.names[1]} {d1}{tie}"
            elif entry.kind == "roll":
                turn += 1
                dice = f"{entry.dice[0]}{entry.dice[1]}" if entry.dice else "??"
                play = entry.notation or "(no legal move)"
                yield f"  {turn:3d}. {who:<12} {dice}: {play}"
                if boards:
                    yield from _board_lines(states[entry.version - 1])
            elif entry.kind in ("double", "beaver"):
                verb = "doubles" if entry.kind == "double" else "beavers"
                yield f"       {who:<12} {verb} to {entry.value}"
            elif entry.kind == "resign":
                yield f"       {who:<12} offers to resign {_LEVELS.get(entry.value, '?')}"
            elif entry.kind == "seed":
                yield f"       {who:<12} adds a dice seed"
            else:
                verb = {"take": "takes", "drop": "drops", "accept": "accepts"}.get(
                    entry.kind, "declines"
                )
                yield f"       {who:<12} {verb}"
        if g.winner is not None:
            level = _LEVELS.get(g.result, "?")
            pts = g.points
            yield (
                f"  {g.names[g.winner]} wins {level} × cube {g.cube} = {pts} "
                f"point{'s' * (pts != 1)}"
                + {"drop": " (double dropped)", "resign": " (resignation)"}.get(g.how, "")
            )
            yield f"  dice seed {g.seed}"
        else:
            yield "  (in play: the dice seed is still secret)"
    if log.match_winner:
        yield ""
        yield (
            f"{log.names.get(log.match_winner, log.match_winner)} wins the match "
            f"{log.final_score[0]}-{log.final_score[1]}"
        )


def _board_lines(state: TableState) -> Iterator[str]:
    game = state.game
    if game is None:
        return
    for line in board_text(game.position).splitlines():
        yield "        " + line


def state_text(events: Sequence[e.Event], at: int) -> str:
    """The table at version ``at``, for ``chouette replay --at``: the event in words, the IDs
    and the board."""
    before = TableState()
    for ev in events[: at - 1]:
        before = evolve(before, ev)
    event = events[at - 1]
    after = evolve(before, event)
    lines = [f"version {at} of {len(events)}: {event_text(before, event, after)}"]
    game = after.game
    if game is not None and after.session is not None:
        lines.append(f"Position ID {game.position_id()}   Match ID {after.session.match_id()}")
        score = after.session.score
        names = [after.display_name(p) if p else "?" for p in after.seats]
        lines.append(
            f"{names[0]} {score[0]}, {names[1]} {score[1]}; {game.phase.value}, "
            f"cube {game.cube.value}"
        )
        lines.append(board_text(game.position))
    return "\n".join(lines)


# -- export ---------------------------------------------------------------------------------------


def match_record(events: Sequence[e.Event]) -> MatMatch:
    """The table's games as a :class:`~engine.matfile.MatMatch` (money play: a 0 point match)."""
    log = table_log(events)
    games: list[MatGame] = []
    notes: list[tuple[str, str]] = [
        ("Site", "chouette"),
        ("Match ID", log.table_id),
    ]
    first = log.games[0] if log.games else None
    if first is not None:
        notes += [("Player 1", first.names[0]), ("Player 2", first.names[1])]
    o = log.options
    if log.kind == "money":
        notes.append(("Jacoby", "On" if o.jacoby else "Off"))
        notes.append(("Beaver", "On" if o.beavers else "Off"))
    else:
        notes.append(("Crawford", "On"))
    for g in log.games:
        actions: list[MatAction] = []
        for entry in g.entries:
            seat = entry.seat if entry.seat is not None else 0
            if entry.kind == "roll":
                assert entry.dice is not None
                actions.append(MatAction(seat, "roll", entry.dice, entry.moves))
            elif entry.kind in ("double", "beaver", "take", "drop"):
                actions.append(MatAction(seat, entry.kind, value=entry.value))
            elif entry.kind == "accept":
                assert entry.seat is not None
                actions.append(MatAction(entry.seat, "win", value=g.points))
        if g.auto_doubles:
            # GNU Backgammon cannot start a game with the cube turned: say so in the header.
            notes.append(("Note", f"game {g.number} began with the cube at {2**g.auto_doubles}"))
        games.append(
            MatGame(
                g.number,
                g.score,
                tuple(actions),
                g.winner,
                g.points,
                names=g.names,
            )
        )
    players = first.names if first else ("player 1", "player 2")
    return MatMatch(log.match_length, players, tuple(games), tuple(notes))


def export_mat(events: Sequence[e.Event]) -> str:
    """The table's games as ``.mat`` text for GNU Backgammon (``import mat``)."""
    return write_mat(match_record(events))


def export_json(events: Sequence[e.Event]) -> dict[str, Any]:
    """The whole table as one JSON document: options, players, and every game with its dice
    commitment, client seeds, revealed seed, entries and result."""
    log = table_log(events)
    return {
        "table": log.table_id,
        "kind": log.kind,
        "options": msgspec.to_builtins(log.options),
        "players": log.names,
        "match_winner": log.match_winner or None,
        "score": list(log.final_score),
        "games": [
            {
                "number": g.number,
                "players": list(g.players),
                "score": list(g.score),
                "crawford": g.crawford,
                "dice_commitment": g.commitment,
                "client_seeds": g.client_seeds,
                "dice_seed": g.seed or None,
                "entries": [
                    {
                        k: v
                        for k, v in {
                            "v": x.version,
                            "kind": x.kind,
                            "player": g.players[x.seat] if x.seat is not None else None,
                            "dice": list(x.dice) if x.dice else None,
                            "moves": [list(m) for m in x.moves] if x.kind == "roll" else None,
                            "notation": x.notation if x.kind == "roll" else None,
                            "value": x.value or None,
                            "position_id": x.position_id,
                            "match_id": x.match_id,
                        }.items()
                        if v is not None
                    }
                    for x in g.entries
                ],
                "result": (
                    {
                        "winner": g.players[g.winner],
                        "result": g.result,
                        "cube": g.cube,
                        "points": g.points,
                        "how": g.how,
                    }
                    if g.winner is not None
                    else None
                ),
            }
            for g in log.games
        ],
    }


# -- import ---------------------------------------------------------------------------------------


class _FileDice:
    """The dice of an imported file, thrown in order. An imported game's dice were never
    committed to: its ``game_started`` carries no commitment and its ``game_ended`` no seed,
    which the audit reports as uncommitted (legal, but not provably fair)."""

    def __init__(self) -> None:
        self.queue: list[int] = []

    def commitment(self, game: int) -> str:
        return ""

    def reveal(self, game: int) -> str:
        return ""

    def die(self, game: int, counter: int) -> int:
        if not self.queue:
            raise MatFormatError(f"game {game}: the file has no throw here")
        return self.queue.pop(0)


def _player_ids(names: tuple[str, str]) -> tuple[str, str]:
    ids = [("mat:" + (" ".join(n.split()) or f"player {i + 1}"))[:64] for i, n in enumerate(names)]
    if ids[0] == ids[1]:
        ids[1] = ids[1][:62] + "-2"
    return ids[0], ids[1]


def import_mat(text: str, table_id: str) -> list[list[e.Event]]:
    """The events of a new table that replays a ``.mat`` file, one list per command.

    Every action goes through the decider, so an illegal play or cube action in the file is
    refused with the engine's reason and the game and entry it is in. A game's opening throw is
    rebuilt from its first roll (the mover has the higher die); a resignation (``Wins`` before
    the game is over) must come when the resigning player may offer it here: on their turn,
    before rolling.

    :raises MatFormatError: a file that cannot be read or replayed.
    """
    match = parse_mat(text)
    if not match.games:
        raise MatFormatError("the file has no games")
    headers = {k.lower(): v.lower() for k, v in match.header}
    kind = "match" if match.length else "money"
    options = e.TableOptions(
        match_length=match.length,
        jacoby=kind == "money" and headers.get("jacoby", "off") in ("on", "true", "1", "yes"),
        beavers=kind == "money" and headers.get("beaver", "off") in ("on", "true", "1", "yes"),
    )
    ids = _player_ids(match.games[0].names or match.players)
    names = match.games[0].names or match.players
    dice = _FileDice()
    state = TableState(table_id=table_id)
    steps: list[list[e.Event]] = []

    def run(actor: str, command: c.Command, where: str) -> None:
        nonlocal state
        try:
            events = decide(state, actor, command, dice)
        except EngineError as exc:
            raise MatFormatError(f"{where}: {exc}") from exc
        for ev in events:
            state = evolve(state, ev)
        steps.append(events)

    run(ids[0], c.CreateTable(kind=kind, options=options), "creating the table")  # type: ignore[arg-type]
    run(ids[0], c.Join(seat=0, display_name=names[0][:64]), "seating player 1")
    run(ids[1], c.Join(seat=1, display_name=names[1][:64]), "seating player 2")
    for mg in match.games:
        if not state.in_game:
            raise MatFormatError(f"game {mg.number}: the match is already over")
        if mg.number != state.game_no:
            raise MatFormatError(f"game {mg.number} is game {state.game_no} of the replay")
        pending_beaver = False
        for n, a in enumerate(mg.actions, 1):
            where = f"game {mg.number}, entry {n} ({a.kind} by player {a.player + 1})"
            game = state.game
            if game is None or state.game_no != mg.number:
                if a.kind == "win":
                    continue  # the result line of a game that has ended
                raise MatFormatError(f"{where}: the game is already over")
            me = ids[a.player]
            if game.is_over:
                continue
            if a.kind == "roll":
                assert a.dice is not None
                if pending_beaver and game.phase is Phase.DOUBLED:
                    run(me, c.Take(), where)
                    game = state.game
                    assert game is not None
                pending_beaver = False
                hi, lo = max(a.dice), min(a.dice)
                if game.phase is Phase.OPENING:
                    if hi == lo:
                        raise MatFormatError(f"{where}: a game cannot open with a double")
                    dice.queue = [hi, lo] if a.player == 0 else [lo, hi]
                else:
                    dice.queue = list(a.dice)
                run(me, c.Roll(), where)
                game = state.game
                assert game is not None
                if game.phase is Phase.MOVE and game.turn == a.player:
                    run(me, c.Move(notation=a.text), where)
                elif a.text.strip():
                    raise MatFormatError(f"{where}: {a.text!r} written where no move is legal")
            elif a.kind == "double" and game.phase is Phase.DOUBLED:
                run(me, c.Beaver(), where)  # the doubled player redoubles at once: a beaver
            elif a.kind == "double":
                run(me, c.Double(), where)
            elif a.kind == "beaver":
                run(me, c.Beaver(), where)
                pending_beaver = True
            elif a.kind == "take":
                pending_beaver = False
                if game.phase is Phase.DOUBLED:
                    run(me, c.Take(), where)
            elif a.kind == "drop":
                run(me, c.Drop(), where)
            elif a.kind == "win":
                loser = ids[1 - a.player]
                cube = game.cube.value
                level = 1 if a.value <= cube else 2 if a.value <= 2 * cube else 3
                run(loser, c.Resign(level=level), where)
                run(me, c.Accept(), where)
    return steps
