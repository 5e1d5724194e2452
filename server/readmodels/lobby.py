"""The lobby: open and running tables, kept by a projector of the log.

Each table's row is advanced from its events in the same transaction as the projector's
checkpoint (see :mod:`events.store.projection`), so the lobby is never ahead of or behind what it
says
it has read. Spectator counts are this process's connected watchers, added when listing.

An event the lobby cannot apply (one that does not decode, or whose data its columns cannot
hold) is skipped and recorded by the projector, counted in ``/metrics``
(``chouette_projection_skipped_events_total``) and listed in ``/readyz``: one bad event must
never stop new tables from appearing.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any

import asyncpg
import msgspec

from events.domain import types as e
from events.store.errors import translate_errors
from events.store.event_store import EventStore, RecordedEvent
from events.store.projection import SkippedEvent, skipped_events
from events.store.streams import decode_recorded
from events.store.subscription import LiveFeed
from server.live.bots import is_bot
from server.metrics import Metrics
from server.readmodels.rebuild import ReadModel, ReadModels

log = logging.getLogger("chouette.lobby")

NAME = "lobby"
"""The lobby projector's name (its checkpoints and skipped events)."""


class LobbyProjector(ReadModel):
    """The lobby's projector; with a ``suffix`` it writes a copy of its table, for a rebuild
    (server/readmodels/rebuild.py)."""

    model = NAME
    tables = ("lobby_tables",)
    types = frozenset(
        {"table_created", "player_joined", "player_left", "game_started", "match_ended"}
    )
    personal = frozenset({"table_created", "player_joined"})
    """What it keeps of what people typed: the tables' names and the players' display names."""

    async def handle(self, connection: asyncpg.Connection, events: Sequence[RecordedEvent]) -> None:
        """A batch's changes to each table's row, made in memory from the rows as they are and
        written in one statement: the same rows as applying the events one by one."""
        # An undecodable event raises CorruptEventError, and one whose data the lobby's
        # columns cannot hold asyncpg.DataError (when written): the projector skips and
        # records it.
        decoded = [
            (table_id, rec.version, decode_recorded(rec, self.keys))
            for table_id, rec in self.table_records(events)
        ]
        if not decoded:
            return
        lobby = self.t("lobby_tables")
        rows: dict[str, dict[str, Any]] = {
            r["table_id"]: dict(
                r, names=json.loads(r["names"]), players=list(r["players"]), bots=list(r["bots"])
            )
            for r in await connection.fetch(
                "SELECT table_id, kind, name, options::text AS options, created_by, players,"
                f" names::text AS names, bots, max_players, status, games, version FROM {lobby}"
                " WHERE table_id = ANY($1)",
                list({table_id for table_id, _, _ in decoded}),
            )
        }
        touched: set[str] = set()
        for table_id, version, event in decoded:
            if self._apply(rows, table_id, version, event):
                touched.add(table_id)
        if not touched:
            return
        await connection.executemany(
            f"INSERT INTO {lobby} (table_id, kind, name, options, created_by, players, names,"
            " max_players, status, games, version, bots) VALUES ($1, $2, $3, $4::jsonb, $5, $6,"
            " $7::jsonb, $8, $9, $10, $11, $12) ON CONFLICT (table_id) DO UPDATE SET"
            " players = excluded.players, names = excluded.names, status = excluded.status,"
            " games = excluded.games, version = excluded.version, bots = excluded.bots,"
            " updated_at = now()",
            [
                (
                    *(t, r["kind"], r["name"], r["options"], r["created_by"], r["players"]),
                    json.dumps(r["names"], ensure_ascii=False),
                    *(r["max_players"], r["status"], r["games"], r["version"], r["bots"]),
                )
                for t, r in ((t, rows[t]) for t in touched)
            ],
        )

    @staticmethod
    def _apply(
        rows: dict[str, dict[str, Any]], table_id: str, version: int, event: e.Event
    ) -> bool:
        """Apply one event to the rows in memory; whether it changed one."""
        if isinstance(event, e.TableCreated):
            if table_id in rows:
                return False  # (created once: a second creation changes nothing)
            o = event.options
            rows[table_id] = {
                "kind": event.kind,
                "name": event.name,
                "options": msgspec.json.encode(o).decode(),
                "created_by": event.created_by,
                "players": [],
                "names": {},
                "bots": [],
                "max_players": o.max_players or (8 if event.kind == "chouette" else 2),
                "status": "open",
                "games": 0,
                "version": version,
            }
            return True
        row = rows.get(table_id)
        if row is None:
            return False
        match event:
            case e.PlayerJoined(player=player, display_name=display_name, bot=bot):
                if player in row["players"]:
                    return False
                row["players"].append(player)
                row["names"][player] = display_name or player
                # Who sat down as a bot, as their last join says (docs/bots.md).
                row["bots"] = [p for p in row["bots"] if p != player] + ([player] if bot else [])
            case e.PlayerLeft(player=player):
                row["players"] = [p for p in row["players"] if p != player]
            case e.GameStarted(game=game):
                row["status"], row["games"] = "playing", game
            case e.MatchEnded():
                row["status"] = "finished"
            case _:
                return False
        row["version"] = version
        return True


class Lobby(ReadModels):
    """Runs a lobby projector per partition (as :class:`ReadModels` runs any read model) and
    answers lobby queries."""

    def __init__(
        self,
        store: EventStore,
        notifier: LiveFeed,
        metrics: Metrics | None = None,
        *,
        linger: float = 0.0,
    ) -> None:
        on_skip = metrics.event_skipped if metrics is not None else None
        super().__init__(store, notifier, [partial(LobbyProjector, on_skip=on_skip)], linger=linger)
        self.spectators: dict[str, int] = {}
        self.lag = 0

    @contextlib.contextmanager
    def watching(self, table_id: str, spectator: bool) -> Iterator[None]:
        """Count a stream client of a table as a spectator (not seated, not in the line) for
        as long as it is connected (this process's count)."""
        if not spectator:
            yield
            return
        self.spectators[table_id] = self.spectators.get(table_id, 0) + 1
        try:
            yield
        finally:
            left = self.spectators.get(table_id, 1) - 1
            if left:
                self.spectators[table_id] = left
            else:
                self.spectators.pop(table_id, None)

    async def skipped(self, limit: int = 20) -> tuple[int, list[SkippedEvent]]:
        """How many events the lobby has skipped, and the latest ``limit`` (newest first)."""
        return await skipped_events(self.store, NAME, limit=limit)

    async def playing(self) -> list[str]:
        """The tables in play (status ``playing``): where a clock may be running. The timers
        are rebuilt from them after a start; the lobby is caught up first, so a game started
        just before the start is not missed."""
        await self.catch_up()
        with translate_errors():
            rows = await self.store.pool.fetch(
                "SELECT table_id FROM lobby_tables WHERE status = 'playing'"
            )
        return [r["table_id"] for r in rows]

    async def list(self, kind: str | None = None) -> list[dict[str, Any]]:
        with translate_errors():
            rows = await self.store.pool.fetch(
                "SELECT table_id, kind, name, options, created_by, players, names, bots,"
                " max_players, status, games, version FROM lobby_tables"
                " WHERE ($1::text IS NULL OR kind = $1)"
                " AND status <> 'finished'"
                # Private tables are never listed (docs/social.md).
                " AND NOT coalesce((options->>'private')::boolean, false)"
                " ORDER BY updated_at DESC LIMIT 500",
                kind,
            )
        return [
            {
                "id": r["table_id"],
                "kind": r["kind"],
                "name": r["name"],
                "options": json.loads(r["options"]),
                "created_by": r["created_by"],
                "players": list(r["players"]),
                "names": {p: n for p, n in json.loads(r["names"]).items() if p in r["players"]},
                "bots": [p for p in r["players"] if is_bot(p) or p in r["bots"]],
                "seats": r["max_players"],
                "free_seats": max(0, r["max_players"] - len(r["players"])),
                "status": r["status"],
                "games": r["games"],
                "version": r["version"],
                "spectators": self.spectators.get(r["table_id"], 0),
            }
            for r in rows
        ]
