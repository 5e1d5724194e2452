"""An append looks up its stream, its command and its stream's last event by key, however the
tables have grown: never a sequential scan (sql/020_append_plans.sql).

The lookups run inside ``append_batch`` on plans that each connection caches. Made while the
tables were small (a fresh database, a server's first minutes), they scan whole tables, and
they are kept until the next ANALYZE of the table: meanwhile every append read all of
``commands`` and ``events`` (at 2,000 human-pace tables on a fresh database, 22 million rows
in 10 s and most of a core of PostgreSQL)."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg

from events.store.event_store import EventStore, NewEvent

_SEQ_SCANS = """
    SELECT relname, seq_scan FROM pg_stat_xact_user_tables
    WHERE relname IN ('commands', 'events', 'streams') ORDER BY relname
"""

APPEND_BATCH = (
    "append_batch(integer, text[], bigint[], uuid[], integer[], text[], integer[], bytea[],"
    " text[], bytea[])"
)


async def _seq_scans_of_appends(
    conn: asyncpg.Connection, prefix: str, items: int
) -> dict[str, int]:
    """Sequential scans of the three tables by a dozen group commits of ``items`` appends each
    (more than the five runs after which a cached plan may go generic), in this connection's
    transaction."""
    before = {r["relname"]: r["seq_scan"] for r in await conn.fetch(_SEQ_SCANS)}
    for i in range(12):
        streams = [f"{prefix}-{i}-{k}" for k in range(items)]
        rows = await conn.fetch(
            "SELECT * FROM append_batch($1, $2, $3, $4, $5, $6, $7, $8)",
            0,
            streams,
            [0] * items,
            [uuid.uuid4() for _ in streams],
            [1] * items,
            ["tick"] * items,
            [1] * items,
            [b"{}"] * items,
        )
        assert {r["status"] for r in rows} == {"appended"}
    after = {r["relname"]: r["seq_scan"] for r in await conn.fetch(_SEQ_SCANS)}
    return {name: after[name] - before.get(name, 0) for name in after}


async def test_appends_probe_indexes_however_the_tables_grew_since_their_plans(
    store: EventStore, owner_url: str
) -> None:
    # Two long-lived connections (a server's pool) make their cached plans while the tables
    # are nearly empty: one without the setting, one with it.
    unguarded = await asyncpg.connect(owner_url)
    guarded = await asyncpg.connect(owner_url)
    owner = await asyncpg.connect(owner_url)

    async def scans(conn: asyncpg.Connection, prefix: str) -> dict[str, int]:
        async with conn.transaction():
            one = await _seq_scans_of_appends(conn, prefix, 1)
            many = await _seq_scans_of_appends(conn, prefix + "-many", 64)
            return {k: one[k] + many[k] for k in one}

    try:
        await owner.execute(f"ALTER FUNCTION {APPEND_BATCH} RESET enable_seqscan")
        try:
            await scans(unguarded, "early-unguarded")
        finally:
            await owner.execute(f"ALTER FUNCTION {APPEND_BATCH} SET enable_seqscan = off")
        await scans(guarded, "early-guarded")

        # Then the tables grow (no ANALYZE yet, as between two runs of autovacuum).
        async def fill(k: int) -> None:
            for i in range(k, FILL, 50):
                await store.append(
                    f"filler-{i}",
                    [NewEvent(type="tick", data=b"{}")],
                    expected_version=0,
                    command_id=uuid.uuid4(),
                )

        await asyncio.gather(*(fill(k) for k in range(50)))
        with_setting = await scans(guarded, "guarded")
        await owner.execute(f"ALTER FUNCTION {APPEND_BATCH} RESET enable_seqscan")
        try:
            # What this guards against: appends reading whole tables.
            without = await scans(unguarded, "unguarded")
        finally:
            await owner.execute(f"ALTER FUNCTION {APPEND_BATCH} SET enable_seqscan = off")
    finally:
        for conn in (unguarded, guarded, owner):
            await conn.close()
    assert with_setting == {"commands": 0, "events": 0, "streams": 0}, with_setting
    assert without["commands"] > 0 or without["events"] > 0, without


FILL = 20_000
