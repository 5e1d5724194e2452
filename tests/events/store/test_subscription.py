"""Subscriptions: hand-over from catch-up to live, wake-ups, polling, slow consumers, jumps."""

from __future__ import annotations

import asyncio
import uuid

import asyncpg
import pytest

from events.store.event_store import EventStore, NewEvent, RecordedEvent
from events.store.subscription import LiveFeed, Subscription


def new(n: int) -> list[NewEvent]:
    return [NewEvent(type="tick", data=b"{}") for _ in range(n)]


async def collect(sub: Subscription, until: int, key: str = "position") -> list[RecordedEvent]:
    """Events from ``sub`` until one has ``key`` == ``until`` (5 s at most)."""
    seen: list[RecordedEvent] = []
    async with asyncio.timeout(5):
        async for event in sub:
            seen.append(event)
            if getattr(event, key) == until:
                return seen
    return seen


async def test_polling_alone_delivers_live_events(store: EventStore) -> None:
    async with LiveFeed(store, listen=False, poll_interval=0.05) as live:
        sub = live.subscribe(0)
        reader = asyncio.create_task(collect(sub, 3))
        await asyncio.sleep(0.1)
        await store.append("a", new(3), expected_version=0, command_id=uuid.uuid4())
        seen = await reader
        await sub.close()

    assert [e.position for e in seen] == [1, 2, 3]
    assert not live.listening


async def test_one_listen_connection_serves_every_subscriber(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    async with LiveFeed(store, poll_interval=30) as live:
        subs = [live.subscribe(0) for _ in range(20)]
        readers = [asyncio.create_task(collect(sub, 4)) for sub in subs]
        await asyncio.sleep(0.1)
        await store.append("a", new(2), expected_version=0, command_id=uuid.uuid4())
        await store.append("b", new(2), expected_version=0, command_id=uuid.uuid4())
        results = await asyncio.gather(*readers)
        listeners = await admin.fetchval(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND query LIKE 'LISTEN%'"
        )
        for sub in subs:
            await sub.close()

    assert listeners == 1
    for seen in results:
        assert [(e.stream_id, e.position) for e in seen] == [("a", 1), ("a", 2), ("b", 3), ("b", 4)]


async def test_the_listener_reconnects_after_its_connection_is_killed(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    # Polling every 30 s: only a notification can deliver within the test's timeout.
    async with LiveFeed(store, poll_interval=30, reconnect_delay=0.05) as live:
        sub = live.subscribe(0)
        await store.append("a", new(1), expected_version=0, command_id=uuid.uuid4())
        assert [e.position for e in await collect(sub, 1)] == [1]

        killed = await admin.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND query LIKE 'LISTEN%'"
        )
        assert killed == 1
        async with asyncio.timeout(5):
            while live.connections < 2 or not live.listening:
                await asyncio.sleep(0.01)

        await store.append("a", new(2), expected_version=1, command_id=uuid.uuid4())
        assert [e.position for e in await collect(sub, 3)] == [2, 3]
        await sub.close()


async def test_a_slow_subscriber_is_sent_back_to_the_database(store: EventStore) -> None:
    async with LiveFeed(store, poll_interval=0.05, queue_events=50) as live:
        sub = live.subscribe(0)
        await store.append("a", new(1), expected_version=0, command_id=uuid.uuid4())
        assert [e.position for e in await collect(sub, 1)] == [1]
        await store.append("a", new(1), expected_version=1, command_id=uuid.uuid4())
        assert [e.position for e in await collect(sub, 2)] == [2]  # now live
        # 500 events arrive while it does not read: its queue holds 50 at most.
        for i in range(50):
            await store.append("a", new(10), expected_version=2 + 10 * i, command_id=uuid.uuid4())
        await asyncio.sleep(0.3)
        assert 0 < sub.queued <= 50
        assert sub.catch_ups == 0

        seen = await collect(sub, 502)
        await sub.close()

    assert [e.position for e in seen] == list(range(3, 503))
    assert sub.catch_ups == 1


async def test_a_stream_subscription_follows_one_stream_by_version(store: EventStore) -> None:
    await store.append("a", new(3), expected_version=0, command_id=uuid.uuid4())
    await store.append("b", new(2), expected_version=0, command_id=uuid.uuid4())

    async with LiveFeed(store, poll_interval=30) as live:
        sub = live.subscribe_stream("a", after_version=1, batch_size=2)
        reader = asyncio.create_task(collect(sub, 6, key="version"))
        await asyncio.sleep(0.1)
        await store.append("b", new(1), expected_version=2, command_id=uuid.uuid4())
        await store.append("a", new(2), expected_version=3, command_id=uuid.uuid4())
        await store.append("a", new(1), expected_version=5, command_id=uuid.uuid4())
        seen = await reader
        await sub.close()

    assert [(e.stream_id, e.version) for e in seen] == [("a", v) for v in range(2, 7)]
    assert sub.version == 6


async def test_a_stream_subscription_can_start_before_the_stream_exists(
    store: EventStore,
) -> None:
    async with LiveFeed(store, poll_interval=30) as live:
        sub = live.subscribe_stream("later")
        reader = asyncio.create_task(collect(sub, 2, key="version"))
        await asyncio.sleep(0.1)
        await store.append("later", new(2), expected_version=0, command_id=uuid.uuid4())
        assert [e.version for e in await reader] == [1, 2]
        await sub.close()


async def test_a_hole_in_the_log_is_waited_for_never_skipped(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    await store.append("a", new(2), expected_version=0, command_id=uuid.uuid4())
    insert = (
        "INSERT INTO events (partition, position, stream_id, version, type, schema_version,"
        " data, command_id, prev_hash, hash, recorded_at)"
        " VALUES (0, $1, 'ghost', $2, 'tick', 1, '{}', $3, '', '', now())"
    )
    async with LiveFeed(store, poll_interval=0.02) as live:
        sub = live.subscribe(0)
        assert [e.position for e in await collect(sub, 2)] == [1, 2]
        reader = asyncio.create_task(collect(sub, 4))
        # Position 4 appears before position 3: something committed out of order.
        await admin.execute(insert, 4, 2, uuid.uuid4())
        await asyncio.sleep(0.3)
        assert not reader.done()
        assert live.feed_jumps(0) > 0
        await admin.execute(insert, 3, 1, uuid.uuid4())
        seen = await reader
        await sub.close()

    assert [(e.position, e.stream_id) for e in seen] == [(3, "ghost"), (4, "ghost")]


async def test_closing_the_live_feed_ends_its_subscriptions(store: EventStore) -> None:
    live = LiveFeed(store, poll_interval=30)
    await live.start()
    sub = live.subscribe(0)
    reader = asyncio.create_task(collect(sub, 99))
    await asyncio.sleep(0.1)

    await live.close()

    assert await asyncio.wait_for(reader, 2) == []
    with pytest.raises(StopAsyncIteration):
        await sub.next_batch()


async def test_a_streams_partition_is_looked_up_once_and_only_once_it_exists(
    store: EventStore,
) -> None:
    await store.append("known", new(1), expected_version=0, command_id=uuid.uuid4())
    async with LiveFeed(store, poll_interval=30) as live:
        assert await live.stream_partition("not yet") is None
        assert await live.stream_partition("known") == await store.stream_partition("known")
        # Remembered: a subscription to it follows without asking the store again.
        assert live._partitions.items() == [("known", await store.stream_partition("known"))]
        sub = live.subscribe_stream("known")
        assert [e.version for e in await collect(sub, 1, key="version")] == [1]
        await sub.close()
        # A stream with no events yet is not remembered (its first append places it).
        assert "not yet" not in live._partitions


async def test_a_stream_subscription_where_the_feed_knows_it_ends_reads_nothing(
    store: EventStore,
) -> None:
    await store.append("a", new(2), expected_version=0, command_id=uuid.uuid4())
    async with LiveFeed(store, poll_interval=30) as live:
        first = live.subscribe_stream("a")
        assert [e.version for e in await collect(first, 2, key="version")] == [1, 2]
        readers = [asyncio.create_task(collect(first, 3, key="version"))]
        await asyncio.sleep(0.1)
        # Read from the database (once more after attaching), then noted: the feed knows
        # where "a" ends.
        assert first.reads == 2
        assert live.known_version("a") == 2
        at_end = live.subscribe_stream("a", after_version=2)
        behind = live.subscribe_stream("a", after_version=1)
        readers += [asyncio.create_task(collect(s, 3, key="version")) for s in (at_end, behind)]
        await asyncio.sleep(0.1)
        await store.append("a", new(1), expected_version=2, command_id=uuid.uuid4())
        got = [[e.version for e in events] for events in await asyncio.gather(*readers)]
        assert live.known_version("a") == 3
        for sub in (first, at_end, behind):
            await sub.close()

    assert got == [[3], [3], [2, 3]]
    assert at_end.reads == 0
    assert behind.reads >= 1


async def test_subscriptions_started_at_the_known_version_while_appends_go_on_miss_nothing(
    store: EventStore,
) -> None:
    last = 60
    await store.append("a", new(1), expected_version=0, command_id=uuid.uuid4())
    async with LiveFeed(store, poll_interval=30) as live:
        warm = live.subscribe_stream("a")
        warming = asyncio.create_task(collect(warm, last, key="version"))
        await asyncio.sleep(0.1)
        assert live.known_version("a") == 1

        async def writer() -> None:
            for v in range(1, last):
                await store.append("a", new(1), expected_version=v, command_id=uuid.uuid4())

        async def joiner(delay: float) -> tuple[int, list[int], int]:
            await asyncio.sleep(delay)
            start = live.known_version("a")
            assert start is not None
            sub = live.subscribe_stream("a", after_version=start)
            seen = [] if start == last else [e.version for e in await collect(sub, last, "version")]
            await sub.close()
            return start, seen, sub.reads

        writing = asyncio.create_task(writer())
        joined = await asyncio.gather(*(joiner(i * 0.004) for i in range(25)))
        await writing
        await warming
        await warm.close()

    starts = [start for start, _, _ in joined]
    assert any(0 < start < last - 5 for start in starts), starts  # they joined mid-way
    assert any(reads == 0 for _, _, reads in joined)
    for start, seen, _ in joined:
        assert seen == list(range(start + 1, last + 1)), start
