"""The event store's contract, run against every backend: the server named by DATABASE_URL (when
set) and an embedded PostgreSQL (always, so CI exercises the embedded default too)."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Sequence

import asyncpg
import msgspec
import pytest

from events.store.chain import CHAIN_VERSION, ZERO_HASH, event_hash
from events.store.errors import CommandReusedError, ConcurrencyError, CorruptEventError, StoreError
from events.store.event_store import EventStore, NewEvent, RecordedEvent, decode, stable_partition
from events.store.migrations import migrate
from events.store.projection import Projector
from events.store.subscription import LiveFeed

BACKENDS = [pytest.param("embedded", marks=pytest.mark.embedded)]
if os.environ.get("DATABASE_URL"):
    BACKENDS.insert(0, pytest.param("database_url"))


@pytest.fixture(params=BACKENDS)
def server_url(request: pytest.FixtureRequest) -> str:
    if request.param == "embedded":
        return str(request.getfixturevalue("embedded_server").url)
    return os.environ["DATABASE_URL"]


class Moved(msgspec.Struct, frozen=True):
    n: int


def new(*ns: int, type: str = "moved") -> list[NewEvent]:
    return [NewEvent(type=type, data=msgspec.json.encode(Moved(n))) for n in ns]


def _unhashed(events: Sequence[RecordedEvent]) -> list[RecordedEvent]:
    return [msgspec.structs.replace(e, hash=None) for e in events]


async def test_append_then_read_stream_returns_the_exact_events(store: EventStore) -> None:
    command = uuid.uuid4()
    events = [
        NewEvent(type="dice_rolled", data=b'{"dice":[3,1]}'),
        NewEvent(type="checkers_moved", data=b'{ "play" : "8/5 6/5" }', schema_version=2),
    ]

    result = await store.append("table-1", events, expected_version=0, command_id=command)

    assert (result.first_version, result.last_version) == (1, 2)
    assert (result.first_position, result.last_position) == (1, 2)
    assert result.partition == 0
    assert not result.duplicate
    read = await store.read_stream("table-1")
    # A read carries each event's stored chain hash; an append's result is not read back.
    assert all(e.hash is not None and len(e.hash) == 32 for e in read)
    assert tuple(_unhashed(read)) == result.events
    assert [(e.version, e.position, e.type, e.schema_version, e.data) for e in read] == [
        (1, 1, "dice_rolled", 1, b'{"dice":[3,1]}'),
        (2, 2, "checkers_moved", 2, b'{ "play" : "8/5 6/5" }'),
    ]
    assert {e.command_id for e in read} == {command}
    assert await store.stream_version("table-1") == 2
    assert await store.stream_version("no-such-table") == 0


async def test_read_stream_after_version_and_limit(store: EventStore) -> None:
    await store.append("s", new(1, 2, 3, 4), expected_version=0, command_id=uuid.uuid4())

    assert [e.version for e in await store.read_stream("s", 2)] == [3, 4]
    assert [e.version for e in await store.read_stream("s", 1, limit=2)] == [2, 3]
    assert await store.read_stream("s", 4) == []


async def test_wrong_expected_version_is_a_concurrency_error_and_writes_nothing(
    store: EventStore,
) -> None:
    await store.append("s", new(1), expected_version=0, command_id=uuid.uuid4())

    with pytest.raises(ConcurrencyError) as caught:
        await store.append("s", new(2), expected_version=0, command_id=uuid.uuid4())

    assert (caught.value.stream_id, caught.value.expected, caught.value.actual) == ("s", 0, 1)
    assert [e.version for e in await store.read_stream("s")] == [1]
    assert await store.partition_heads() == {0: 1}


async def test_expected_version_none_appends_whatever_the_version(store: EventStore) -> None:
    await store.append("s", new(1), expected_version=None, command_id=uuid.uuid4())
    result = await store.append("s", new(2, 3), expected_version=None, command_id=uuid.uuid4())

    assert (result.first_version, result.last_version) == (2, 3)


async def test_a_retried_command_returns_the_stored_outcome_and_writes_nothing(
    store: EventStore,
) -> None:
    command = uuid.uuid4()
    first = await store.append("s", new(1, 2), expected_version=0, command_id=command)
    await store.append("other", new(9), expected_version=0, command_id=uuid.uuid4())

    # The retry carries a stale expected version and different payloads: the stored outcome wins.
    again = await store.append("s", new(7), expected_version=0, command_id=command)

    assert again.duplicate
    assert (again.first_version, again.last_version) == (1, 2)
    assert (again.first_position, again.last_position) == (1, 2)
    assert again.events == first.events
    assert len(await store.read_stream("s")) == 2
    assert await store.partition_heads() == {0: 3}


async def test_a_command_id_reused_for_another_stream_is_refused(store: EventStore) -> None:
    command = uuid.uuid4()
    await store.append("a", new(1), expected_version=0, command_id=command)

    with pytest.raises(CommandReusedError) as caught:
        await store.append("b", new(1), expected_version=0, command_id=command)

    assert (caught.value.command_id, caught.value.stream_id) == (command, "a")
    assert await store.read_stream("b") == []


async def test_read_log_is_the_commit_order_across_streams(store: EventStore) -> None:
    await store.append("a", new(1, 2), expected_version=0, command_id=uuid.uuid4())
    await store.append("b", new(3), expected_version=0, command_id=uuid.uuid4())
    await store.append("a", new(4), expected_version=2, command_id=uuid.uuid4())

    log = await store.read_log(0)
    assert [(e.position, e.stream_id, e.version) for e in log] == [
        (1, "a", 1),
        (2, "a", 2),
        (3, "b", 1),
        (4, "a", 3),
    ]
    assert [e.position for e in await store.read_log(0, 1, limit=2)] == [2, 3]
    assert await store.read_log(0, 4) == []
    assert await store.read_log(1) == []


async def test_partitions_have_their_own_dense_positions(store: EventStore) -> None:
    await store.append("a", new(1), expected_version=0, command_id=uuid.uuid4(), partition=2)
    await store.append("b", new(2, 3), expected_version=0, command_id=uuid.uuid4(), partition=0)
    # An existing stream stays in its partition whatever the append asks for.
    moved = await store.append(
        "a", new(4), expected_version=1, command_id=uuid.uuid4(), partition=0
    )
    later = await store.append("a", new(5), expected_version=2, command_id=uuid.uuid4())

    assert (moved.partition, moved.first_position) == (2, 2)
    assert (later.partition, later.first_position) == (2, 3)
    assert await store.partition_heads() == {0: 2, 2: 3}
    assert [e.stream_id for e in await store.read_log(2)] == ["a", "a", "a"]
    assert await store.stream_partition("a") == 2
    assert await store.stream_partition("nothing") is None


async def test_streams_spread_over_partitions_by_a_stable_hash(pool: asyncpg.Pool) -> None:
    ids = [f"table-{i}" for i in range(20)]
    async with EventStore(pool, partitions=4) as store:
        for stream_id in ids:
            await store.append(stream_id, new(1), expected_version=0, command_id=uuid.uuid4())

        for stream_id in ids:
            assert await store.stream_partition(stream_id) == stable_partition(stream_id, 4)
        heads = await store.partition_heads()
    assert sum(heads.values()) == 20
    assert len(heads) > 1


async def test_concurrent_appends_to_many_streams_get_dense_positions(store: EventStore) -> None:
    async def one(i: int) -> tuple[int, int]:
        result = await store.append(
            f"s{i % 7}", new(i, i), expected_version=None, command_id=uuid.uuid4()
        )
        return result.first_position, result.last_position

    spans = await asyncio.gather(*(one(i) for i in range(60)))

    positions = sorted(p for first, last in spans for p in range(first, last + 1))
    assert positions == list(range(1, 121))
    log = await store.read_log(0, limit=1000)
    assert [e.position for e in log] == positions
    for stream_id in {e.stream_id for e in log}:
        versions = [e.version for e in log if e.stream_id == stream_id]
        assert versions == list(range(1, len(versions) + 1))


async def test_an_append_in_a_rolled_back_transaction_leaves_no_trace(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    async with pool.acquire() as conn:
        tx = conn.transaction()
        await tx.start()
        result = await store.append(
            "s", new(1, 2), expected_version=0, command_id=uuid.uuid4(), connection=conn
        )
        assert result.last_position == 2
        await tx.rollback()

    assert await store.read_stream("s") == []
    assert await store.partition_heads() == {}
    after = await store.append("s", new(3), expected_version=0, command_id=uuid.uuid4())
    assert after.first_position == 1


async def test_hash_chain_is_the_documented_one(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    await store.append("täble ♠", new(1, 2), expected_version=0, command_id=uuid.uuid4())
    await store.append(
        "täble ♠", new(3, type="dé_roulé"), expected_version=2, command_id=uuid.uuid4()
    )

    rows = await admin.fetch(
        "SELECT version, type, schema_version, data, command_id, recorded_at, chain_version,"
        " prev_hash, hash FROM events ORDER BY version"
    )
    prev = ZERO_HASH
    for row in rows:
        assert row["prev_hash"] == prev
        assert row["chain_version"] == CHAIN_VERSION == 2
        prev = event_hash(
            prev,
            "täble ♠",
            row["version"],
            row["type"],
            row["schema_version"],
            row["data"],
            row["command_id"],
            row["recorded_at"],
        )
        assert row["hash"] == prev
    assert await store.verify_chain("täble ♠") is None
    assert await store.verify_chain("empty") is None


async def test_invalid_appends_are_refused_before_the_database(store: EventStore) -> None:
    with pytest.raises(ValueError, match="at least one event"):
        await store.append("s", [], expected_version=0, command_id=uuid.uuid4())
    with pytest.raises(ValueError, match="expected_version"):
        await store.append("s", new(1), expected_version=-1, command_id=uuid.uuid4())


async def test_decode_names_the_corrupt_event(store: EventStore) -> None:
    await store.append("s", new(1), expected_version=0, command_id=uuid.uuid4())
    [event] = await store.read_stream("s")

    assert decode(event, msgspec.json.Decoder(Moved)) == Moved(1)
    with pytest.raises(CorruptEventError) as caught:
        decode(event, msgspec.json.Decoder(list[int]))
    assert (caught.value.stream_id, caught.value.version) == ("s", 1)


async def test_migrations_run_again_apply_nothing(pool: asyncpg.Pool) -> None:
    assert await migrate(pool) == []
    names = await pool.fetch("SELECT name FROM schema_migrations ORDER BY version")
    assert [r["name"] for r in names][:3] == [
        "001_event_store.sql",
        "002_append_events.sql",
        "003_projection_checkpoints.sql",
    ]


async def test_a_subscription_catches_up_then_follows_live(store: EventStore) -> None:
    await store.append("a", new(1, 2), expected_version=0, command_id=uuid.uuid4())
    seen: list[RecordedEvent] = []

    async with (
        LiveFeed(store, poll_interval=5.0) as live,
        live.subscribe(0, after_position=1) as sub,
    ):

        async def consume() -> None:
            async for event in sub:
                seen.append(event)
                if event.position == 4:
                    return

        consumer = asyncio.create_task(consume())
        await asyncio.sleep(0.05)
        await store.append("b", new(3, 4), expected_version=0, command_id=uuid.uuid4())
        # Woken by NOTIFY: well before the 5 s polling fallback.
        await asyncio.wait_for(consumer, 2.0)

    assert [(e.stream_id, e.position) for e in seen] == [("a", 2), ("b", 3), ("b", 4)]


class Totals(Projector):
    """Sums each stream's values into ``totals`` (made by :func:`totals`, as a migration would)."""

    async def handle(self, connection: asyncpg.Connection, events: list[RecordedEvent]) -> None:
        decoder = msgspec.json.Decoder(Moved)
        for event in events:
            await connection.execute(
                "INSERT INTO totals VALUES ($1, $2) ON CONFLICT (stream_id)"
                " DO UPDATE SET total = totals.total + excluded.total",
                event.stream_id,
                decode(event, decoder).n,
            )


@pytest.fixture
async def totals(admin: asyncpg.Connection) -> None:
    """The read model's table, made by the owner and written by the server's role."""
    await admin.execute("CREATE TABLE totals (stream_id text PRIMARY KEY, total bigint)")
    await admin.execute("GRANT SELECT, INSERT, UPDATE ON totals TO chouette_server")


@pytest.mark.usefixtures("totals")
async def test_a_projector_catches_up_and_keeps_its_checkpoint(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    await store.append("a", new(1, 2), expected_version=0, command_id=uuid.uuid4())
    await store.append("b", new(10), expected_version=0, command_id=uuid.uuid4())
    projector = Totals("totals")
    await projector.prepare(store)

    assert await projector.catch_up(store) == 3
    await store.append("a", new(100), expected_version=2, command_id=uuid.uuid4())
    assert await projector.catch_up(store) == 4
    assert await projector.catch_up(store) == 4

    rows = await pool.fetch("SELECT stream_id, total FROM totals ORDER BY stream_id")
    assert [tuple(r) for r in rows] == [("a", 103), ("b", 10)]
    assert await projector.checkpoint(store) == 4


async def test_a_bad_append_in_a_group_commit_fails_alone(store: EventStore) -> None:
    bad = NewEvent(type="moved", data=None)  # type: ignore[arg-type]

    outcomes = await asyncio.gather(
        *(
            store.append(
                f"s{i}", [bad] if i == 5 else new(i), expected_version=0, command_id=uuid.uuid4()
            )
            for i in range(10)
        ),
        return_exceptions=True,
    )

    assert isinstance(outcomes[5], StoreError)
    assert all(not isinstance(o, BaseException) for i, o in enumerate(outcomes) if i != 5)
    assert sorted(e.stream_id for e in await store.read_log(0)) == sorted(
        f"s{i}" for i in range(10) if i != 5
    )


async def test_appends_to_one_stream_apply_in_the_order_they_were_made(store: EventStore) -> None:
    # Made at once, each expecting the version the previous one leaves.
    results = await asyncio.gather(
        *(
            store.append("s", new(i), expected_version=i, command_id=uuid.uuid4())
            for i in range(20)
        ),
        *(
            store.append(f"other{i}", new(i), expected_version=0, command_id=uuid.uuid4())
            for i in range(20)
        ),
    )

    assert [r.first_version for r in results[:20]] == list(range(1, 21))
    assert [decode(e, msgspec.json.Decoder(Moved)).n for e in await store.read_stream("s")] == list(
        range(20)
    )
