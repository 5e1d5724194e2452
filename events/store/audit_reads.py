"""What the audit reads of the store (:mod:`events.records.audit_scan`), in the caller's
connection: the audit runs every read of one table, or of the whole store, in one read-only
snapshot (repeatable read), so these take a connection, never the pool.

Each is one statement over the store's own tables (``events``, ``streams``, ``commands``,
``log_partitions``); what they mean to the audit — a broken chain, a forgotten stream, a
``commands`` row that points past its stream, a hole in the log — is decided there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import asyncpg
from asyncpg.cursor import CursorFactory

__all__ = [
    "EVENT_COLUMNS",
    "all_streams",
    "bad_commands",
    "command_rows",
    "count_events",
    "events_after",
    "first_hole",
    "has_events",
    "log_partitions",
    "stream_heads",
]

EVENT_COLUMNS: Final = (
    "stream_id, version, partition, position, type, schema_version, data, command_id, recorded_at"
)
"""The columns of a :class:`events.store.event_store.RecordedEvent`, in its field order."""

_READ: Final = (
    f"SELECT {EVENT_COLUMNS}, chain_version, prev_hash, hash FROM events"
    " WHERE stream_id = $1 AND version > $2"
    " ORDER BY version"
)
_HEADS: Final = (
    "SELECT stream_id, version, head_hash FROM streams WHERE stream_id = ANY($1::text[])"
)
_ANY_EVENT: Final = "SELECT 1 FROM events WHERE stream_id = $1 LIMIT 1"
_COUNT: Final = "SELECT count(*) FROM events WHERE stream_id = $1"
_COMMANDS: Final = (
    "SELECT command_id, stream_id, first_version, last_version FROM commands"
    " WHERE command_id = ANY($1::uuid[])"
)
# Every stream that has events or says it has (a loose index scan of the events' stream ids:
# one index probe per stream, not a read of the whole table), grouped by table.
_STREAMS: Final = r"""
WITH RECURSIVE ids AS (
    (SELECT stream_id FROM events ORDER BY stream_id LIMIT 1)
    UNION ALL
    SELECT (SELECT e.stream_id FROM events e WHERE e.stream_id > ids.stream_id
            ORDER BY e.stream_id LIMIT 1)
    FROM ids WHERE ids.stream_id IS NOT NULL
)
SELECT stream_id FROM (
    SELECT stream_id FROM ids WHERE stream_id IS NOT NULL
    UNION
    SELECT stream_id FROM streams WHERE version > 0
) s
ORDER BY regexp_replace(stream_id, '^(table|chat)-', '') COLLATE "C", stream_id COLLATE "C"
"""
# The commands rows that do not point inside their stream's events (one index probe a row).
_BAD_COMMANDS: Final = """
SELECT c.command_id, c.stream_id, c.first_version, c.last_version, h.top
FROM commands c
LEFT JOIN LATERAL (SELECT max(e.version) AS top FROM events e WHERE e.stream_id = c.stream_id) h
    ON true
WHERE h.top IS NULL OR c.last_version > h.top OR c.first_version < 1
    OR c.first_version > c.last_version
"""
_LOG: Final = """
SELECT coalesce(p.partition, e.partition) AS partition, p.head, coalesce(e.n, 0) AS n,
       coalesce(e.top, 0) AS top, coalesce(e.low, 0) AS low
FROM log_partitions p
FULL JOIN (SELECT partition, count(*) AS n, max(position) AS top, min(position) AS low
           FROM events GROUP BY partition) e
    USING (partition)
ORDER BY 1
"""
_FIRST_HOLE: Final = """
SELECT min(e.position) + 1 FROM events e
WHERE e.partition = $1 AND e.position < $2
  AND NOT EXISTS (SELECT 1 FROM events f WHERE f.partition = $1 AND f.position = e.position + 1)
"""


def events_after(conn: asyncpg.Connection, stream_id: str, after: int) -> CursorFactory:
    """A cursor (await it) over a stream's events after version ``after``, in order: the
    columns of :data:`EVENT_COLUMNS`, then ``chain_version``, ``prev_hash`` and ``hash``."""
    return conn.cursor(_READ, stream_id, after)


async def stream_heads(conn: asyncpg.Connection, stream_ids: Sequence[str]) -> list[asyncpg.Record]:
    """The ``streams`` rows (``stream_id``, ``version``, ``head_hash``) of those that have one."""
    rows: list[asyncpg.Record] = await conn.fetch(_HEADS, list(stream_ids))
    return rows


async def has_events(conn: asyncpg.Connection, stream_id: str) -> bool:
    """Whether the stream has any event."""
    return bool(await conn.fetchval(_ANY_EVENT, stream_id))


async def count_events(conn: asyncpg.Connection, stream_id: str) -> int:
    """How many events the stream has."""
    return int(await conn.fetchval(_COUNT, stream_id))


async def command_rows(
    conn: asyncpg.Connection, command_ids: Sequence[object]
) -> list[asyncpg.Record]:
    """The ``commands`` rows (``command_id``, ``stream_id``, ``first_version``,
    ``last_version``) of these command ids."""
    rows: list[asyncpg.Record] = await conn.fetch(_COMMANDS, list(command_ids))
    return rows


def all_streams(conn: asyncpg.Connection) -> CursorFactory:
    """A cursor (await it) over every stream that has events or whose ``streams`` row says it
    has (column ``stream_id``), grouped by table: ordered by the id after its ``table-`` or
    ``chat-`` prefix, then by the whole id."""
    return conn.cursor(_STREAMS)


def bad_commands(conn: asyncpg.Connection) -> CursorFactory:
    """A cursor (await it) over the ``commands`` rows that do not point inside their stream's
    events: ``command_id``, ``stream_id``, ``first_version``, ``last_version`` and ``top``, the
    stream's last version (NULL: it has no event)."""
    return conn.cursor(_BAD_COMMANDS)


async def log_partitions(conn: asyncpg.Connection) -> list[asyncpg.Record]:
    """Each partition of the log, as ``log_partitions`` and the events have it: ``partition``,
    ``head`` (NULL: no row), ``n`` events at positions ``low`` to ``top``."""
    rows: list[asyncpg.Record] = await conn.fetch(_LOG)
    return rows


async def first_hole(conn: asyncpg.Connection, partition: int, top: int) -> int | None:
    """The first position below ``top`` missing from a partition whose first event is at 1;
    None for none."""
    hole = await conn.fetchval(_FIRST_HOLE, partition, top)
    return None if hole is None else int(hole)
