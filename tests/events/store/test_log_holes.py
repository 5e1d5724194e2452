"""A hole in the log is corruption, reported at once; what is intact keeps being served (issue 12,
finding 3).

Positions are allocated one commit at a time, so a gap cannot arise by design: a superuser moves a
partition's head on (``UPDATE log_partitions SET head = head + 1``) or deletes an event. Within a
second the live feed lists the hole (partition and position), logs an error naming them and
tells its observer (the server's metric, and ``/readyz``, which fails). Subscribers of single
streams are served past it, another partition is not affected, and a log subscriber, which
follows positions, waits at the hole without skipping it and goes on once it is filled.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from typing import Any

import asyncpg
import pytest
from aiohttp.test_utils import TestClient

from events.store.event_store import EventStore, NewEvent, RecordedEvent
from events.store.subscription import LiveFeed, LogHole, Subscription
from server.app import create_app
from server.config import Config
from server.keys import TABLES

_GHOST = (
    "INSERT INTO events (partition, position, stream_id, version, type, schema_version,"
    " data, command_id, prev_hash, hash, recorded_at)"
    " VALUES ($1, $2, 'ghost', $2, 'tick', 1, '{}', $3, '', '', now())"
)


def new(n: int) -> list[NewEvent]:
    return [NewEvent(type="tick", data=b"{}") for _ in range(n)]


async def _append(store: EventStore, stream: str, n: int = 1, partition: int | None = None) -> None:
    await store.append(
        stream, new(n), expected_version=None, command_id=uuid.uuid4(), partition=partition
    )


async def _next(sub: Subscription, timeout: float = 3) -> RecordedEvent:
    async with asyncio.timeout(timeout):
        return await anext(aiter(sub))


async def _holes_within(live: LiveFeed, seconds: float) -> list[LogHole]:
    started = time.monotonic()
    while not live.holes and time.monotonic() - started < seconds:
        await asyncio.sleep(0.02)
    return live.holes


async def test_a_head_moved_on_is_reported_and_the_intact_is_served(
    store: EventStore, admin: asyncpg.Connection, caplog: pytest.LogCaptureFixture
) -> None:
    await _append(store, "a", 3)
    seen: list[list[LogHole]] = []
    async with LiveFeed(store, poll_interval=0.2, on_hole=seen.append) as live:
        log = live.subscribe(0)
        assert [(await _next(log)).position for _ in range(3)] == [1, 2, 3]
        other = live.subscribe_stream("b")
        waiting = asyncio.create_task(_next(other))
        await asyncio.sleep(0.1)
        with caplog.at_level(logging.ERROR, logger="events.store.subscription"):
            await admin.execute("UPDATE log_partitions SET head = head + 1")
            assert await _holes_within(live, 1.0) == [LogHole(0, 4, 0)]
        assert seen == [[LogHole(0, 4, 0)]]
        (record,) = [r for r in caplog.records if r.levelno == logging.ERROR]
        assert "partition 0" in record.getMessage() and "position 4" in record.getMessage()
        # The next append lands past the hole: another stream's subscriber has it...
        await _append(store, "b")
        assert (await waiting).position == 5
        assert live.holes == [LogHole(0, 4, 5)]
        # ... and the log subscriber waits at the hole, never skipping it.
        reader = asyncio.create_task(_next(log))
        await asyncio.sleep(0.5)
        assert not reader.done()
        # Filled (an operator's repair): the hole is forgotten, and the log goes on.
        await admin.execute(_GHOST, 0, 4, uuid.uuid4())
        assert (await reader).position == 4
        assert (await _next(log)).position == 5
        await _append(store, "c")  # a read, then the feed rechecks its hole
        async with asyncio.timeout(2):
            while live.holes:
                await asyncio.sleep(0.02)
        assert seen[-1] == []
        await log.close()
        await other.close()


async def test_a_deleted_event_is_reported_by_a_reader_that_meets_it(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    """A reader catching up (the lobby from its checkpoint) meets an event deleted earlier."""
    await _append(store, "a", 3)
    async with admin.transaction():
        await admin.execute("ALTER TABLE events DISABLE TRIGGER ALL")
        await admin.execute("DELETE FROM events WHERE partition = 0 AND position = 2")
        await admin.execute("ALTER TABLE events ENABLE TRIGGER ALL")
    async with LiveFeed(store, poll_interval=0.2) as live:
        log = live.subscribe(0)
        assert (await _next(log)).position == 1
        reader = asyncio.create_task(_next(log))
        assert await _holes_within(live, 1.0) == [LogHole(0, 2, 3)]
        assert not reader.done()
        reader.cancel()
        await log.close()


async def test_another_partition_is_not_affected(
    pool: asyncpg.Pool, db_url: str, admin: asyncpg.Connection
) -> None:
    store = EventStore(pool, partitions=2, dsn=db_url)
    await _append(store, "zero", partition=0)
    await _append(store, "one", partition=1)
    async with LiveFeed(store, poll_interval=0.2) as live:
        zero, one = live.subscribe(0), live.subscribe(1)
        assert (await _next(zero)).position == 1 and (await _next(one)).position == 1
        await admin.execute("UPDATE log_partitions SET head = head + 1 WHERE partition = 0")
        await _append(store, "zero", partition=0)
        assert [h.partition for h in await _holes_within(live, 1.0)] == [0]
        await _append(store, "one", partition=1)
        assert (await _next(one)).position == 2
        await zero.close()
        await one.close()


# -- the server ---------------------------------------------------------------------------------


@pytest.fixture
async def client(db_url: str, aiohttp_client: Any) -> TestClient:
    app = create_app(
        Config(database_url=db_url, seed_key=bytes(32), signing_key=bytes(32), rate_limits=False)
    )
    return await aiohttp_client(app)


async def test_a_hole_makes_readyz_fail_within_a_second_naming_it(
    client: TestClient, admin: asyncpg.Connection
) -> None:
    store: EventStore = client.server.app[TABLES].store
    await _append(store, "table-x", 2)
    assert (await client.get("/readyz")).status == 200
    await admin.execute("UPDATE log_partitions SET head = head + 1")
    await _append(store, "table-x")  # stalled behind the hole until now
    started = time.monotonic()
    while (ready := await client.get("/readyz")).status == 200:
        assert time.monotonic() - started < 1.0, "still ready"
        await asyncio.sleep(0.05)
    assert ready.status == 503
    body = await ready.json()
    assert body["status"] == "corrupt"
    assert "partition 0" in body["detail"] and "position 3" in body["detail"]
    metrics = await (await client.get("/metrics")).text()
    assert 'chouette_log_holes{partition="0"} 1' in metrics


# -- a hole anywhere: the density check (issue 27, part 4) --------------------------------------

HOLE_TEXT = "log partition 0 has no event at position {}"
"""How a hole is named everywhere: ``/readyz``, ``/log/heads`` and the server's log."""


async def _delete(admin: asyncpg.Connection, *positions: int) -> None:
    """Delete events of partition 0 as the owner, the append-only triggers off meanwhile."""
    async with admin.transaction():
        await admin.execute("ALTER TABLE events DISABLE TRIGGER ALL")
        await admin.execute(
            "DELETE FROM events WHERE partition = 0 AND position = ANY($1::bigint[])",
            list(positions),
        )
        await admin.execute("ALTER TABLE events ENABLE TRIGGER ALL")


async def test_an_event_deleted_after_it_was_delivered_is_found_by_the_density_check(
    store: EventStore, admin: asyncpg.Connection, caplog: pytest.LogCaptureFixture
) -> None:
    """The feed has read past position 2 and will never read it again: only the count of the
    positions already checked finds it."""
    await _append(store, "a", 3)
    async with LiveFeed(store, poll_interval=0.1) as live:
        log = live.subscribe(0)
        assert [(await _next(log)).position for _ in range(3)] == [1, 2, 3]
        await asyncio.sleep(0.3)  # checked: positions 1 to 3 are counted dense
        assert live.holes == []
        with caplog.at_level(logging.ERROR, logger="events.store.subscription"):
            await _delete(admin, 2)
            await _append(store, "a")
            assert (await _next(log)).position == 4  # the feed goes on: it reads after 3
            assert await _holes_within(live, 1.0) == [LogHole(0, 2, 3)]
        (record,) = [r for r in caplog.records if r.levelno == logging.ERROR]
        assert HOLE_TEXT.format(2) in record.getMessage()
        await log.close()


async def test_a_hole_already_in_the_log_is_found_at_start_up(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    """Nobody subscribes and nothing is appended: the start-up count finds it before
    :meth:`LiveFeed.start` returns, the first missing position of two."""
    await _append(store, "a", 50)
    await _delete(admin, 37, 41)
    async with LiveFeed(store, poll_interval=30) as live:
        assert live.holes == [LogHole(0, 37, 38)]


async def test_a_head_moved_on_is_found_at_start_up(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    await _append(store, "a", 5)
    await admin.execute("UPDATE log_partitions SET head = head + 2")
    async with LiveFeed(store, poll_interval=30) as live:
        assert live.holes == [LogHole(0, 6, 0)]
        assert live.holes[0].describe() == (
            "log partition 0 has no event at position 6 (the partition's head is past its last"
            " event)"
        )


async def test_the_sweep_finds_an_old_deletion_a_slice_at_a_time(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    """Each check counts the new positions and the next ``check_sweep`` of the older ones: a
    deletion deep in a log of 200 is found within 200 / 20 checks, not at the first."""
    await _append(store, "a", 200)
    async with LiveFeed(store, poll_interval=30, check_interval=0.02, check_sweep=20) as live:
        assert live.holes == []
        await _delete(admin, 190)
        assert await _holes_within(live, 2.0) == [LogHole(0, 190, 191)]
        # Filled again (an operator's repair): forgotten at the next check.
        await admin.execute(_GHOST, 0, 190, uuid.uuid4())
        async with asyncio.timeout(2):
            while live.holes:
                await asyncio.sleep(0.02)


async def test_a_partition_cut_short_is_no_hole(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    """A head moved back below positions already checked leaves the log dense: nothing to
    report (``check_heads`` against saved heads names that one)."""
    await _append(store, "a", 5)
    async with LiveFeed(store, poll_interval=30, check_interval=0.02) as live:
        await _delete(admin, 5)
        # Seen between the two statements, the last event is missing below the head...
        await asyncio.sleep(0.2)
        assert [h.position for h in live.holes] == [5]
        # ...and once the head is moved back below it, nothing is missing any more.
        await admin.execute("UPDATE log_partitions SET head = head - 1")
        await asyncio.sleep(0.2)
        assert live.holes == []
        await _append(store, "b")  # position 5 again
        await asyncio.sleep(0.2)
        assert live.holes == []


async def test_a_delivered_event_deleted_on_a_running_server_makes_it_not_ready(
    db_url: str, aiohttp_client: Any, admin: asyncpg.Connection, caplog: pytest.LogCaptureFixture
) -> None:
    """``/readyz`` fails within the check interval (the polling interval, 0.2 s here) and
    ``/log/heads`` names the hole instead of blaming the database."""
    config = Config(
        database_url=db_url,
        seed_key=bytes(32),
        signing_key=bytes(32),
        rate_limits=False,
        poll_interval=0.2,
    )
    client: TestClient = await aiohttp_client(create_app(config))
    store: EventStore = client.server.app[TABLES].store
    await _append(store, "table-x", 3)
    assert (await client.get("/log/heads")).status == 200  # the running hash reaches 3
    await asyncio.sleep(0.5)  # every position up to 3 counted and delivered
    assert (await client.get("/readyz")).status == 200
    with caplog.at_level(logging.ERROR, logger="events.store.subscription"):
        await _delete(admin, 2)
        await _append(store, "table-x")
        started = time.monotonic()
        while (ready := await client.get("/readyz")).status == 200:
            assert time.monotonic() - started < 1.0, "still ready"
            await asyncio.sleep(0.05)
    assert ready.status == 503
    body = await ready.json()
    assert body["status"] == "corrupt"
    assert HOLE_TEXT.format(2) in body["detail"]
    assert any(HOLE_TEXT.format(2) in r.getMessage() for r in caplog.records)
    heads = await client.get("/log/heads")
    assert heads.status == 500
    assert heads.content_type == "application/problem+json"
    problem = await heads.json()
    assert problem["type"].endswith("/corrupt-log")
    assert HOLE_TEXT.format(2) in problem["detail"]
    assert "database unavailable" not in problem["detail"]


async def test_a_server_started_on_a_log_with_a_hole_reports_it_at_once(
    store: EventStore, db_url: str, aiohttp_client: Any, admin: asyncpg.Connection
) -> None:
    await _append(store, "table-x", 4)
    await _delete(admin, 3)
    await _append(store, "table-x")
    client: TestClient = await aiohttp_client(
        create_app(
            Config(
                database_url=db_url, seed_key=bytes(32), signing_key=bytes(32), rate_limits=False
            )
        )
    )
    ready = await client.get("/readyz")  # the first request: no wait
    assert ready.status == 503
    assert HOLE_TEXT.format(3) in (await ready.json())["detail"]
    heads = await client.get("/log/heads")
    assert heads.status == 500
    problem = await heads.json()
    assert HOLE_TEXT.format(3) in problem["detail"]
    assert "database unavailable" not in problem["detail"]
