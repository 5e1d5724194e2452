"""Replays: a table at any version, its record in the terminal, and the HTTP routes of the audit
tools.

- :class:`Replayer` answers ``GET /tables/{id}/replay?at=VERSION``: the table as it stood after
  that version (the fold of the events up to it), with its last event in words and, for a play,
  in standard notation. It keeps a snapshot every :attr:`Replayer.every` versions; snapshots are
  folds themselves, derived and disposable (a test checks replays at every version against the
  plain fold).
- :func:`record_lines` prints a table's games for ``chouette replay``; :func:`state_text` the
  table at one version.
- ``GET /tables/{id}/export.mat`` serves :mod:`events.export`'s ``.mat`` files.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
from aiohttp import web

from engine.matfile import write_mat
from engine.text import board_text
from events import types as e
from events.decider import TableState, evolve
from events.export import (
    RESULT_WORDS,
    chouette_log,
    event_text,
    export_mat,
    file_name,
    fold_states,
    member_record,
    notation_of,
    table_log,
)
from events.store import EventStore, RecordedEvent
from server.tables import decode_recorded, table_stream

__all__ = [
    "Replayer",
    "decode_all",
    "handle_export_mat",
    "handle_replay",
    "record_lines",
    "replay_view",
    "replayer_for",
    "state_text",
]


def decode_all(records: Sequence[RecordedEvent]) -> list[e.Event]:
    """Decode a stream's events (a corrupt one raises ``CorruptEventError`` naming it)."""
    return [decode_recorded(r) for r in records]


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
        described["notation"] = notation_of(before, event)
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

        One read from the nearest snapshot at or below ``version``; the fold runs in a worker
        thread (a table's first replay may fold all of it), adding the snapshots it passes.

        :raises LookupError: no event at that version.
        """
        if version < 1:
            raise LookupError(f"versions start at 1, not {version}")
        snaps = self._snapshots(table_id)
        async with snaps.lock:
            base = snaps.states[min((version - 1) // self.every, len(snaps.states) - 1)]
            records = await self.store.read_stream(
                table_stream(table_id), after_version=base.version, limit=version - base.version
            )
            if not records or records[-1].version != version:
                raise LookupError(f"the table has no event at version {version}")
            return await asyncio.to_thread(self._fold, snaps, base, records)

    def _fold(
        self, snaps: _Snapshots, base: TableState, records: Sequence[RecordedEvent]
    ) -> tuple[TableState, e.Event, TableState]:
        events = decode_all(records)
        state = base
        before = base
        for ev in events:
            before = state
            state = evolve(state, ev)
            if state.version == len(snaps.states) * self.every:
                snaps.states.append(state)
        return before, events[-1], state


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
    """``GET /tables/{id}/export.mat``: the table's games as a GNU Backgammon ``.mat`` file; for
    a chouette, ``?member=ID`` names the team member whose games against the box to export."""
    from server.handlers import _table_id
    from server.keys import TABLES
    from server.problems import not_found

    table_id = _table_id(request)
    store = request.app[TABLES].store
    records = await store.read_stream(table_stream(table_id))
    if not records:
        raise not_found(f"no table {table_id!r}")
    text, name = await asyncio.to_thread(
        _export_text, records, table_id, request.query.get("member")
    )
    return web.Response(
        text=text,
        content_type="text/plain",
        charset="utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}.mat"'},
    )


def _export_text(
    records: Sequence[RecordedEvent], table_id: str, member: str | None
) -> tuple[str, str]:
    """The ``.mat`` text and file name (off the event loop: it folds the whole table)."""
    from server.problems import Problem

    events = decode_all(records)
    name = f"table-{table_id}"
    if events[0].kind == "chouette":  # type: ignore[attr-defined]
        members = list(dict.fromkeys(m for g in chouette_log(events).games for m in g.members))
        if member not in members:
            raise Problem(
                404 if member else 400,
                "no-such-member" if member else "member-required",
                "Which member?",
                "a chouette exports one file per team member: add ?member= one of "
                + ", ".join(members),
                field="member",
            )
        text = write_mat(member_record(events, member))
        name += f"-{file_name(member)}"
    else:
        text = export_mat(events)
    return text, name


def record_lines(events: Sequence[e.Event], *, boards: bool = False) -> Iterator[str]:
    """The game record as lines of text, game by game and move by move."""
    if events and isinstance(events[0], e.TableCreated) and events[0].kind == "chouette":
        yield from _chouette_lines(events, boards)
        return
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
                yield f"       {who:<12} offers to resign {RESULT_WORDS.get(entry.value, '?')}"
            elif entry.kind == "seed":
                yield f"       {who:<12} adds a dice seed"
            else:
                verb = {"take": "takes", "drop": "drops", "accept": "accepts"}.get(
                    entry.kind, "declines"
                )
                yield f"       {who:<12} {verb}"
        if g.winner is not None:
            level = RESULT_WORDS.get(g.result, "?")
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


def _chouette_lines(events: Sequence[e.Event], boards: bool) -> Iterator[str]:
    log = chouette_log(events)
    states = list(fold_states(events)) if boards else []
    o = log.options
    rules = [f"{o.cube_mode} cube{'s' if o.cube_mode == 'multiple' else ''}"]
    rules += [k for k in ("beavers", "jacoby") if getattr(o, k)]
    yield f"Table {log.table_id}: chouette ({', '.join(rules)})"
    for g in log.games:
        yield ""
        names = [log.names.get(p, p) for p in g.line]
        roles = [f"{names[0]} (box)"] + (
            [f"{names[1]} (captain)", *names[2:]] if len(names) > 1 else []
        )
        yield f"Game {g.number}: {', '.join(roles)}"
        yield f"  dice commitment {g.commitment}"
        turn = 0
        for x in g.entries:
            if x["type"] in ("game_started", "line_rotated"):
                continue
            if "dice" in x:
                turn += 1
                who = log.names.get(x.get("player", ""), x.get("player", ""))
                dice = "".join(map(str, x["dice"]))
                play = x.get("notation") or "(no legal move)"
                yield f"  {turn:3d}. {who:<12} {x['side']:<4} {dice}: {play}"
                if boards:
                    yield from _board_lines_chouette(states[x["v"] - 1])
            elif x["type"] not in ("checkers_moved", "dice_rolled"):
                yield f"       {x['text']}"
        for name, r in g.members.items():
            if r.winner is not None:
                winner = log.names.get(g.box, g.box) if r.winner == 0 else log.names.get(name)
                yield (
                    f"  {log.names.get(name, name)}'s game: {winner} wins {r.points} "
                    f"point{'s' * (r.points != 1)} ({r.how.replace('_', ' ')})"
                )
        yield f"  dice seed {g.seed}" if g.seed else "  (in play: the dice seed is still secret)"
    yield ""
    yield "ledger: " + ", ".join(f"{log.names.get(p, p)} {v:+d}" for p, v in log.ledger.items())


def _board_lines_chouette(state: TableState) -> Iterator[str]:
    ch = state.chouette
    if ch is None or ch.game is None:
        return
    for line in board_text(ch.game.position).splitlines():
        yield "        " + line
