"""A projector survives a poison event: an event no retry can ever apply (its data does not fit
the read model, it does not decode, or the projector refuses it) is skipped and recorded in
``projection_skipped`` in the same transaction as the checkpoint, never retried, and reported —
instead of halting the read model for good (issue 11, finding 2)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence

import asyncpg
import msgspec
import pytest

from events.store.errors import PoisonEventError
from events.store.event_store import EventStore, NewEvent, RecordedEvent, decode
from events.store.projection import Projector, SkippedEvent, skipped_events
from events.store.subscription import LiveFeed


class Named(msgspec.Struct, frozen=True):
    name: str


NAMED = msgspec.json.Decoder(Named)


def named(*names: str) -> list[NewEvent]:
    return [NewEvent(type="named", data=msgspec.json.encode(Named(n))) for n in names]


def raw(data: bytes) -> list[NewEvent]:
    return [NewEvent(type="named", data=data)]


class Names(Projector):
    """Keeps every event's name in a text column; refuses the name ``refuse`` by its own rules
    and fails like a bug on the name ``bug``."""

    def __init__(self, name: str = "names") -> None:
        self.skips: list[SkippedEvent] = []
        super().__init__(name, on_skip=self.skips.append)

    async def handle(self, connection: asyncpg.Connection, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            name = decode(event, NAMED).name
            if name == "refuse":
                raise PoisonEventError(event.stream_id, event.version, "names may not be 'refuse'")
            if name == "bug":
                raise RuntimeError("a bug, not a poison event")
            await connection.execute(
                f"INSERT INTO {self.name} VALUES ($1, $2, $3)",
                event.position,
                event.stream_id,
                name,
            )


@pytest.fixture(autouse=True)
async def read_models(admin: asyncpg.Connection) -> None:
    """The tables of :class:`Names` projectors, made by the owner as a migration would, for the
    server's role (which may create no table)."""
    for table in ("names", "others"):
        await admin.execute(
            f"CREATE TABLE {table}"
            " (position bigint PRIMARY KEY, stream_id text NOT NULL, name text NOT NULL)"
        )
        await admin.execute(f"GRANT SELECT, INSERT, DELETE ON {table} TO chouette_server")


async def append(store: EventStore, stream: str, events: list[NewEvent]) -> None:
    await store.append(stream, events, expected_version=None, command_id=uuid.uuid4())


async def rows(pool: asyncpg.Pool, table: str = "names") -> list[tuple[int, str]]:
    return [
        (r["position"], r["name"])
        for r in await pool.fetch(f"SELECT position, name FROM {table} ORDER BY position")
    ]


async def test_a_nul_in_the_data_is_skipped_and_recorded_and_the_rest_applied(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    await append(store, "a", named("ann", "b\x00b", "cat"))
    await append(store, "b", named("dan"))
    projector = Names()
    await projector.prepare(store)

    assert await projector.catch_up(store) == 4

    assert await rows(pool) == [(1, "ann"), (3, "cat"), (4, "dan")]
    [skip] = projector.skips
    assert (skip.projector, skip.partition, skip.position) == ("names", 0, 2)
    assert (skip.stream_id, skip.version, skip.type, skip.cause) == ("a", 2, "named", "unwritable")
    assert "0x00" in skip.reason and "\x00" not in skip.reason
    assert await skipped_events(store, "names") == (1, [skip])
    stored = await pool.fetchrow("SELECT * FROM projection_skipped")
    assert (stored["stream_id"], stored["version"], stored["position"]) == ("a", 2, 2)
    assert stored["reason"] == skip.reason


async def test_every_kind_of_poison_is_skipped_with_its_cause(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    await append(store, "s", named("one"))
    await append(store, "s", raw(b'{"name": 7}'))  # does not decode
    await append(store, "s", named("two", "refuse", "three"))
    await append(store, "s", raw(b"not json"))
    await append(store, "s", named("four"))
    projector = Names()
    await projector.prepare(store)

    assert await projector.catch_up(store, batch_size=100) == 7

    assert await rows(pool) == [(1, "one"), (3, "two"), (5, "three"), (7, "four")]
    assert [(s.position, s.cause) for s in projector.skips] == [
        (2, "undecodable"),
        (4, "refused"),
        (6, "undecodable"),
    ]
    count, latest = await skipped_events(store)
    assert count == 3 and {s.position for s in latest} == {2, 4, 6}
    assert "'refuse'" in next(s.reason for s in latest if s.position == 4)


async def test_a_skipped_event_is_never_applied_again_nor_recorded_twice(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    await append(store, "a", named("ann", "b\x00b"))
    first = Names()
    await first.prepare(store)
    assert await first.catch_up(store) == 2
    assert len(first.skips) == 1

    # Again, and as a new instance (a restart): from the checkpoint, past the skipped event.
    assert await first.catch_up(store) == 2
    restarted = Names()
    await restarted.prepare(store)
    assert await restarted.catch_up(store) == 2
    log = await store.read_log(0)
    assert await restarted.apply(store, log) == 2  # offered again: dropped as applied
    await append(store, "a", named("cat"))
    assert await restarted.catch_up(store) == 3

    assert first.skips[1:] == [] and restarted.skips == []
    assert await rows(pool) == [(1, "ann"), (3, "cat")]
    assert (await skipped_events(store))[0] == 1


async def test_a_rebuilt_read_model_meets_its_skipped_event_again(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    await append(store, "a", named("b\x00b", "ann"))
    projector = Names()
    await projector.prepare(store)
    assert await projector.catch_up(store) == 2
    # Rebuilt from scratch: its rows and checkpoint gone, the skip record kept.
    await pool.execute("DELETE FROM names")
    await pool.execute("UPDATE projection_checkpoints SET position = 0 WHERE name = 'names'")

    assert await projector.catch_up(store) == 2

    assert [s.position for s in projector.skips] == [1, 1]
    assert (await skipped_events(store))[0] == 1
    assert await rows(pool) == [(2, "ann")]


async def test_the_skip_is_in_the_checkpoints_transaction(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    """A batch with a poison event and a bug: the bug rolls back everything, the skip too."""
    await append(store, "a", named("ann", "b\x00b", "bug", "dan"))
    projector = Names()
    await projector.prepare(store)

    with pytest.raises(RuntimeError, match="a bug"):
        await projector.catch_up(store)

    assert await projector.checkpoint(store) == 0
    assert await rows(pool) == []
    assert await skipped_events(store) == (0, [])
    assert projector.skips == []


async def test_projectors_skip_on_their_own(store: EventStore, pool: asyncpg.Pool) -> None:
    await append(store, "a", named("b\x00b", "ann"))
    one, two = Names("names"), Names("others")
    for p in (one, two):
        await p.prepare(store)
        assert await p.catch_up(store) == 2

    count, latest = await skipped_events(store)
    assert count == 2 and {s.projector for s in latest} == {"names", "others"}
    assert await skipped_events(store, "others") == (1, two.skips)
    assert await rows(pool, "others") == [(2, "ann")]


async def test_a_live_projector_goes_on_past_a_poison_event(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    projector = Names()
    async with LiveFeed(store, poll_interval=0.2) as live:
        task = asyncio.create_task(projector.run(live))
        try:
            await append(store, "a", named("ann"))
            await append(store, "a", named("b\x00b"))
            await append(store, "b", named("cat"))
            async with asyncio.timeout(10):
                while await projector.checkpoint(store) < 3:
                    await asyncio.sleep(0.05)
            assert not task.done()
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    assert await rows(pool) == [(1, "ann"), (3, "cat")]
    assert [s.position for s in projector.skips] == [2]
