"""The store under concurrency, failure and tampering, on a real PostgreSQL."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Sequence
from pathlib import Path

import asyncpg
import msgspec
import pytest

from events.store.embedded import with_database
from events.store.errors import (
    AppendOnlyError,
    ChainBrokenError,
    ConcurrencyError,
    CorruptEventError,
    StoreError,
    StoreUnavailableError,
    translate_errors,
)
from events.store.event_store import EventStore, NewEvent, RecordedEvent, decode
from events.store.migrations import SQL_DIR, migrate
from events.store.projection import Projector
from events.store.subscription import LiveFeed


class Moved(msgspec.Struct, frozen=True):
    n: int


MOVED = msgspec.json.Decoder(Moved)


def new(*ns: int) -> list[NewEvent]:
    return [NewEvent(type="moved", data=msgspec.json.encode(Moved(n))) for n in ns]


async def connections(url: str, n: int) -> list[asyncpg.Connection]:
    return list(await asyncio.gather(*(asyncpg.connect(url) for _ in range(n))))


async def test_fifty_concurrent_appends_with_one_expected_version_one_wins(
    store: EventStore, db_url: str
) -> None:
    await store.append("table", new(0), expected_version=0, command_id=uuid.uuid4())
    conns = await connections(db_url, 50)
    try:
        # Fifty connections: the database's check is the guard, not anything in this process.
        outcomes = await asyncio.gather(
            *(
                store.append(
                    "table", new(i), expected_version=1, command_id=uuid.uuid4(), connection=c
                )
                for i, c in enumerate(conns)
            ),
            return_exceptions=True,
        )
    finally:
        await asyncio.gather(*(c.close() for c in conns))

    winners = [o for o in outcomes if not isinstance(o, BaseException)]
    losers = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(winners) == 1
    assert len(losers) == 49
    assert all(isinstance(e, ConcurrencyError) and e.actual == 2 for e in losers)
    assert [e.version for e in await store.read_stream("table")] == [1, 2]
    assert await store.partition_heads() == {0: 2}


async def test_fifty_concurrent_group_committed_appends_one_wins(store: EventStore) -> None:
    outcomes = await asyncio.gather(
        *(
            store.append("table", new(i), expected_version=0, command_id=uuid.uuid4())
            for i in range(50)
        ),
        return_exceptions=True,
    )

    assert sum(not isinstance(o, BaseException) for o in outcomes) == 1
    assert all(isinstance(o, ConcurrencyError) for o in outcomes if isinstance(o, BaseException))
    assert await store.stream_version("table") == 1


async def test_one_command_sent_twice_at_once_is_recorded_once(
    store: EventStore, db_url: str
) -> None:
    command = uuid.uuid4()
    conns = await connections(db_url, 10)
    try:
        results = await asyncio.gather(
            *(
                store.append(
                    "table", new(1, 2), expected_version=0, command_id=command, connection=c
                )
                for c in conns
            )
        )
    finally:
        await asyncio.gather(*(c.close() for c in conns))
    again = await store.append("table", new(1, 2), expected_version=0, command_id=command)

    assert sum(not r.duplicate for r in results) == 1
    assert again.duplicate
    assert {(r.first_position, r.last_position, r.events) for r in [*results, again]} == {
        (1, 2, results[0].events)
    }
    assert len(await store.read_stream("table")) == 2
    assert await store.partition_heads() == {0: 2}


async def test_a_reader_never_passes_an_uncommitted_append(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    seen: list[tuple[int, str]] = []
    async with LiveFeed(store, poll_interval=0.05) as live, live.subscribe(0) as sub:

        async def follow() -> None:
            async for event in sub:
                seen.append((event.position, event.stream_id))

        follower = asyncio.create_task(follow())
        async with pool.acquire() as first:
            tx = first.transaction()
            await tx.start()
            held = await store.append(
                "first", new(1), expected_version=0, command_id=uuid.uuid4(), connection=first
            )
            assert held.first_position == 1  # allocated, not committed
            second = asyncio.create_task(
                store.append("second", new(2), expected_version=0, command_id=uuid.uuid4())
            )
            await asyncio.sleep(0.5)  # ten polls
            # The second append waits on the partition counter the first holds: nobody can
            # see position 2 before position 1 is committed.
            assert not second.done()
            assert seen == []
            assert await store.read_log(0) == []
            await tx.commit()
        result = await asyncio.wait_for(second, 5)
        assert result.first_position == 2
        async with asyncio.timeout(5):
            while len(seen) < 2:
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)
        follower.cancel()
        await asyncio.gather(follower, return_exceptions=True)
        assert live.feed_jumps(0) == 0

    assert seen == [(1, "first"), (2, "second")]


async def test_positions_stay_dense_after_a_storm_of_conflicts_and_rollbacks(
    pool: asyncpg.Pool, db_url: str
) -> None:
    store = EventStore(pool, partitions=3, dsn=db_url)
    rng = random.Random(7)
    streams = [f"s{i}" for i in range(12)]

    async def writer(k: int) -> None:
        for _ in range(25):
            stream = rng.choice(streams)
            guess = await store.stream_version(stream) if rng.random() < 0.6 else rng.randrange(4)
            events = new(*range(rng.randrange(1, 4)))
            mode = rng.random()
            try:
                if mode < 0.6:
                    await store.append(
                        stream, events, expected_version=guess, command_id=uuid.uuid4()
                    )
                    continue
                async with pool.acquire() as conn:
                    tx = conn.transaction()
                    await tx.start()
                    try:
                        await store.append(
                            stream,
                            events,
                            expected_version=guess,
                            command_id=uuid.uuid4(),
                            connection=conn,
                        )
                    finally:
                        if mode < 0.8:
                            await tx.commit()
                        else:
                            await tx.rollback()
            except ConcurrencyError:
                pass

    await asyncio.gather(*(writer(k) for k in range(8)))
    await store.close()

    heads = await store.partition_heads()
    assert sum(heads.values()) > 50
    for partition, head in heads.items():
        positions = await pool.fetch(
            "SELECT position FROM events WHERE partition = $1 ORDER BY position", partition
        )
        assert [r["position"] for r in positions] == list(range(1, head + 1))
    for stream in streams:
        versions = [e.version for e in await store.read_stream(stream)]
        assert versions == list(range(1, len(versions) + 1))
        assert len(versions) == await store.stream_version(stream)
        assert await store.verify_chain(stream) is None


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE events SET data = '{}' WHERE version = 1",
        "DELETE FROM events WHERE version = 1",
        "TRUNCATE events",
        "UPDATE commands SET last_version = 9",
        "DELETE FROM commands",
        "TRUNCATE commands",
        "TRUNCATE events, commands CASCADE",
    ],
)
async def test_stored_events_and_commands_cannot_be_changed(
    store: EventStore, admin: asyncpg.Connection, statement: str
) -> None:
    await store.append("s", new(1), expected_version=0, command_id=uuid.uuid4())

    with pytest.raises(AppendOnlyError, match="append-only"), translate_errors():
        await admin.execute(statement)

    assert len(await store.read_stream("s")) == 1
    assert await admin.fetchval("SELECT count(*) FROM commands") == 1


async def test_a_connection_killed_mid_append_leaves_nothing_and_the_retry_succeeds(
    store: EventStore, admin: asyncpg.Connection, db_url: str
) -> None:
    command = uuid.uuid4()
    victim = await asyncpg.connect(db_url)
    try:
        tx = victim.transaction()
        await tx.start()
        await store.append(
            "s", new(1, 2, 3), expected_version=0, command_id=command, connection=victim
        )
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", victim.get_server_pid())
        with pytest.raises(StoreUnavailableError):
            await store.append(
                "s", new(4), expected_version=3, command_id=uuid.uuid4(), connection=victim
            )
    finally:
        victim.terminate()

    assert await store.read_stream("s") == []
    assert await store.partition_heads() == {}
    retry = await store.append("s", new(1, 2, 3), expected_version=0, command_id=command)
    assert not retry.duplicate
    assert (retry.first_position, retry.last_position) == (1, 3)


async def test_a_group_commit_cut_off_mid_call_fails_as_unavailable_and_retries_succeed(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    await store.append("s0", new(1), expected_version=0, command_id=uuid.uuid4())
    commands = {f"s{i}": uuid.uuid4() for i in range(5)}
    attempts = dict.fromkeys(commands, 0)

    async def append_with_retries(stream: str) -> int:
        while True:
            attempts[stream] += 1
            try:
                result = await store.append(
                    stream, new(1, 2), expected_version=None, command_id=commands[stream]
                )
            except StoreUnavailableError:
                assert attempts[stream] < 10
                continue
            return result.last_version

    async with admin.transaction():
        # Hold s0's row: the writer's batch (s0..s4 in one call) waits on it...
        await admin.execute("SELECT 1 FROM streams WHERE stream_id = 's0' FOR UPDATE")
        appends = asyncio.gather(*(append_with_retries(s) for s in commands))
        async with asyncio.timeout(5):
            while not await admin.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock'"
            ):
                await asyncio.sleep(0.01)
        # ...and the server drops its connection mid-call (a restart, a failover).
        assert await admin.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
    versions = await asyncio.wait_for(appends, 10)

    assert all(n >= 2 for n in attempts.values())  # each one failed once, then succeeded
    assert versions == [3, 2, 2, 2, 2]
    assert await store.partition_heads() == {0: 11}


async def test_a_killed_subscriber_resumes_over_ten_thousand_events(store: EventStore) -> None:
    total = 10_000
    processed: list[int] = []

    async def write() -> None:
        # 1,000 appends of 10 events over 20 streams, eight at a time.
        async def one(k: int) -> None:
            for i in range(k, 1000, 8):
                await store.append(
                    f"s{i % 20}", new(*range(10)), expected_version=None, command_id=uuid.uuid4()
                )

        await asyncio.gather(*(one(k) for k in range(8)))

    async def consume(live: LiveFeed, kill_at: int, reached: asyncio.Event) -> None:
        checkpoint = processed[-1] if processed else 0
        async with live.subscribe(0, checkpoint, batch_size=300) as sub:
            async for event in sub:
                processed.append(event.position)
                if len(processed) >= kill_at:
                    reached.set()  # and carry on until the kill lands
                if event.position % 997 == 0:
                    await asyncio.sleep(0.01)  # slow now and then: the queue overflows

    rng = random.Random(3)
    kills = 0
    async with LiveFeed(store, poll_interval=0.2, queue_events=200) as live:
        writer = asyncio.create_task(write())
        while not processed or processed[-1] < total:
            # Killed (cancelled mid-iteration) after a random number of events, then resumed
            # from its checkpoint by a new subscription.
            reached = asyncio.Event()
            kill_at = min(len(processed) + rng.randrange(1, 1500), total)
            task = asyncio.create_task(consume(live, kill_at, reached))
            async with asyncio.timeout(10):
                await reached.wait()
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            kills += 1
        await writer

    assert kills >= 5
    assert processed == list(range(1, total + 1))


async def test_verify_chain_names_an_edited_payload(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    await store.append("s", new(1, 2, 3, 4), expected_version=0, command_id=uuid.uuid4())
    await tamper(admin, "UPDATE events SET data = '{\"n\":30}' WHERE version = 3")

    broken = await store.verify_chain("s")

    assert broken is not None
    assert (broken.stream_id, broken.version) == ("s", 3)
    assert "hash" in broken.reason


async def test_verify_chain_names_an_edited_hash(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    await store.append("s", new(1, 2, 3, 4), expected_version=0, command_id=uuid.uuid4())
    await tamper(admin, "UPDATE events SET hash = sha256(hash) WHERE version = 2")

    broken = await store.verify_chain("s")

    assert broken is not None
    assert broken.version == 2


async def test_verify_chain_names_a_payload_edited_with_its_hash_recomputed(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    await store.append("s", new(1, 2, 3, 4), expected_version=0, command_id=uuid.uuid4())
    # A careful forger recomputes version 2's hash: version 3 no longer links to it.
    await tamper(
        admin,
        """UPDATE events SET data = '{"n":20}',
               hash = sha256(prev_hash || int4send(1) || 's'::bytea || int8send(2)
                             || int4send(5) || 'moved'::bytea || int4send(1)
                             || int4send(8) || '{"n":20}'::bytea || uuid_send(command_id)
                             || int8send((extract(epoch FROM recorded_at) * 1000000)::bigint))
           WHERE version = 2""",
    )

    broken = await store.verify_chain("s")

    assert broken is not None
    assert broken.version == 3
    assert "prev_hash" in broken.reason


async def test_verify_chain_names_a_deleted_version(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    await store.append("s", new(1, 2, 3, 4), expected_version=0, command_id=uuid.uuid4())
    await tamper(admin, "DELETE FROM events WHERE version = 2")

    broken = await store.verify_chain("s")

    assert broken is not None
    assert broken.version == 2
    assert "missing" in broken.reason


async def test_verify_chain_names_reordered_versions(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    await store.append("s", new(1, 2, 3, 4), expected_version=0, command_id=uuid.uuid4())
    await tamper(
        admin,
        "UPDATE events SET version = 100 WHERE version = 2",
        "UPDATE events SET version = 2 WHERE version = 3",
        "UPDATE events SET version = 3 WHERE version = 100",
    )

    broken = await store.verify_chain("s")

    assert broken is not None
    assert broken.version == 2


async def test_verify_chain_names_a_deleted_last_event(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    await store.append("s", new(1, 2, 3), expected_version=0, command_id=uuid.uuid4())
    await tamper(admin, "DELETE FROM events WHERE version = 3")

    broken = await store.verify_chain("s")

    assert broken is not None
    assert broken.version == 3


async def test_an_append_on_a_tampered_head_is_refused(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    await store.append("s", new(1, 2), expected_version=0, command_id=uuid.uuid4())
    await tamper(admin, "UPDATE events SET hash = sha256(hash) WHERE version = 2")

    with pytest.raises(ChainBrokenError) as caught:
        await store.append("s", new(3), expected_version=2, command_id=uuid.uuid4())

    assert (caught.value.stream_id, caught.value.version) == ("s", 2)
    assert await store.stream_version("s") == 2


async def tamper(admin: asyncpg.Connection, *statements: str) -> None:
    """What a superuser can do: switch the append-only trigger off, edit, switch it on."""
    async with admin.transaction():
        await admin.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
        for statement in statements:
            await admin.execute(statement)
        await admin.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")


@pytest.mark.parametrize(
    ("payload", "why"),
    [
        (b"\xff\xfe not json", "malformed"),
        (b'{"n": "three"}', "Expected `int`"),
        (b'{"m": 3}', "missing required field"),
        (b"", "truncated"),
    ],
)
async def test_an_undecodable_payload_is_a_corrupt_event_error(
    store: EventStore, admin: asyncpg.Connection, payload: bytes, why: str
) -> None:
    await store.append("s", new(1, 2), expected_version=0, command_id=uuid.uuid4())
    async with admin.transaction():
        await admin.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
        await admin.execute("UPDATE events SET data = $1 WHERE version = 2", payload)
        await admin.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")

    events = await store.read_stream("s")  # reading the bytes is fine
    assert decode(events[0], MOVED) == Moved(1)
    with pytest.raises(CorruptEventError, match=why) as caught:
        decode(events[1], MOVED)

    assert (caught.value.stream_id, caught.value.version) == ("s", 2)
    assert "'s' version 2" in str(caught.value)


class Counter(Projector):
    """Counts events per stream; refuses event values listed in ``poison``."""

    def __init__(self, poison: Sequence[int] = ()) -> None:
        super().__init__("counter")
        self.poison = set(poison)

    async def handle(self, connection: asyncpg.Connection, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            await connection.execute(
                "INSERT INTO counts VALUES ($1, 1)"
                " ON CONFLICT (stream_id) DO UPDATE SET n = counts.n + 1",
                event.stream_id,
            )
            if decode(event, MOVED).n in self.poison:
                raise RuntimeError(f"poisoned by {event.stream_id} v{event.version}")


@pytest.fixture
async def counts(admin: asyncpg.Connection) -> None:
    """:class:`Counter`'s table, made by the owner (as a migration would) for the server's role."""
    await admin.execute("CREATE TABLE counts (stream_id text PRIMARY KEY, n bigint NOT NULL)")
    await admin.execute("GRANT SELECT, INSERT, UPDATE ON counts TO chouette_server")


@pytest.mark.usefixtures("counts")
async def test_a_failing_projector_moves_neither_its_rows_nor_its_checkpoint(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    await store.append("a", new(1, 2), expected_version=0, command_id=uuid.uuid4())
    await store.append("b", new(3, 4), expected_version=0, command_id=uuid.uuid4())
    failing = Counter(poison=[4])
    await failing.prepare(store)

    with pytest.raises(RuntimeError, match="poisoned by b v2"):
        await failing.catch_up(store, batch_size=10)

    # The batch wrote rows for a, a and b before it failed: all rolled back with the checkpoint.
    assert await pool.fetch("SELECT * FROM counts") == []
    assert await failing.checkpoint(store) == 0
    assert await Counter().catch_up(store) == 4
    counts = await pool.fetch("SELECT stream_id, n FROM counts ORDER BY stream_id")
    assert [tuple(r) for r in counts] == [("a", 2), ("b", 2)]


@pytest.mark.usefixtures("counts")
async def test_a_projector_skips_what_it_has_applied_and_refuses_a_gap(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    await store.append("a", new(1, 2, 3), expected_version=0, command_id=uuid.uuid4())
    projector = Counter()
    await projector.prepare(store)
    log = await store.read_log(0)

    assert await projector.apply(store, log[:2]) == 2
    assert await projector.apply(store, log) == 3  # 1 and 2 again are dropped
    assert await pool.fetchval("SELECT n FROM counts") == 3
    await store.append("a", new(4, 5), expected_version=3, command_id=uuid.uuid4())
    later = await store.read_log(0, 4)
    with pytest.raises(StoreError, match="not 4"):
        await projector.apply(store, later)
    assert await projector.checkpoint(store) == 3


async def test_migrations_run_twice_and_concurrently(
    server_url: str, admin: asyncpg.Connection, tmp_path: Path
) -> None:
    name = f"chouette_tmigrate_{uuid.uuid4().hex[:8]}"
    await admin.execute(f'CREATE DATABASE "{name}"')
    url = with_database(server_url, name)
    try:
        a, b = await connections(url, 2)
        try:
            applied = await asyncio.gather(migrate(a), migrate(b))
            expected = sorted(p.name for p in SQL_DIR.glob("*.sql"))
            assert sorted([*applied[0], *applied[1]]) == expected
            assert [] in applied
            assert await migrate(a) == []
            assert await a.fetchval("SELECT count(*) FROM schema_migrations") == len(expected)

            # A migration edited after it was applied is refused, and nothing runs.
            for path in SQL_DIR.glob("*.sql"):
                (tmp_path / path.name).write_text(path.read_text())
            first = sorted(tmp_path.glob("*.sql"))[0]
            first.write_text(first.read_text() + "\n-- edited\n")
            (tmp_path / "999_more.sql").write_text("CREATE TABLE more (x int);")
            with pytest.raises(StoreError, match="has changed"):
                await migrate(a, directory=tmp_path)
            assert await a.fetchval("SELECT to_regclass('more')") is None
        finally:
            await asyncio.gather(a.close(), b.close())
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
