"""The event store on PostgreSQL: append with an expected version and a command id, read by
stream and by log position, verify a stream's hash chain.

The store is generic: it keeps each event as ``(type, schema_version, data)``, where ``data`` is
the exact bytes to store (JSON, encoded by the caller). Decoding, upcasting and the domain's
event types live elsewhere; :func:`decode` turns a decoding failure into a
:class:`~events.store.errors.CorruptEventError`.

Appends go through the server-side function ``append_batch`` (``sql/002_append_events.sql``, its
actors and digests added by ``sql/015_command_actors_sealed_seeds.sql``, chain version 2 and
``SECURITY DEFINER`` by ``sql/016_server_role_and_chain_v2.sql``), one round trip each. The
server's database role may call it but write none of the store's tables itself.
Concurrent appends from one process to one partition are *group-committed*: a
writer per partition sends whatever appends have queued up while the previous round trip was in
flight as one call and one transaction, each append still checked and answered on its own. This
is what makes a serialised, commit-ordered log fast: positions are allocated under a per-partition
row lock held to commit, so one transaction per append would pay one commit flush per append in
turn. See ``docs/store.md``.
"""

from __future__ import annotations

import asyncio
import uuid
import zlib
from collections import deque
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Final, Protocol, TypeAlias, TypeVar

import asyncpg
import msgspec

from events.store.chain import ZERO_HASH, ChainBreak, stored_hash
from events.store.errors import (
    CommandReusedError,
    CorruptEventError,
    StoreError,
    StoreUnavailableError,
    append_error,
    translate_errors,
)

__all__ = [
    "AppendResult",
    "EventStore",
    "NewEvent",
    "RecordKeys",
    "RecordedEvent",
    "decode",
    "stable_partition",
]

T = TypeVar("T")


class NewEvent(msgspec.Struct, frozen=True, kw_only=True):
    """An event to append."""

    type: str
    """The event's stable tag, e.g. ``"dice_rolled"``."""
    data: bytes
    """The exact bytes to store: the JSON encoding of the event."""
    schema_version: int = 1
    """The version of the payload's schema, for upcasting on read."""


class RecordedEvent(msgspec.Struct, frozen=True, gc=False):
    """An event as stored. The field order is the column order of the store's reads."""

    stream_id: str
    version: int
    """Dense per stream: 1, 2, 3, ..."""
    partition: int
    """The log partition of the stream."""
    position: int
    """Dense and commit-ordered per partition: 1, 2, 3, ..."""
    type: str
    schema_version: int
    data: bytes
    """The exact stored bytes."""
    command_id: uuid.UUID
    """The command whose append recorded the event."""
    recorded_at: datetime
    """Start of the appending transaction (not monotonic with positions)."""
    hash: bytes | None = None
    """The event's stored chain hash, as :meth:`EventStore.read_stream` and
    :meth:`~EventStore.read_log` read it: the stream's chain head at ``version``. None in an
    append's outcome (:class:`AppendResult`, :meth:`EventStore.command_outcome`): the append
    function does not return it, and a retry's outcome is exactly the first one's."""


class RecordKeys(Protocol):
    """What opens the personal data sealed in events (:mod:`events.store.personal_keys`): the
    store tells it of every batch it reads, before anyone decodes one, so that the keys those
    events need are at hand."""

    async def ensure(self, records: Sequence[RecordedEvent]) -> None: ...

    def open(self, key_id: str, sealed: str, type_: str, field: str) -> str | None: ...

    async def sealer(
        self, events: Sequence[Any]
    ) -> Callable[[str, str, str, str], dict[str, str]]: ...

    def plain(self, rec: RecordedEvent) -> bytes: ...

    def remember(self, rec: RecordedEvent, event: Any) -> None: ...

    def is_erased(self, account_id: str) -> bool: ...


class AppendResult(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of an append (or of its earlier run, when ``duplicate``)."""

    stream_id: str
    partition: int
    first_version: int
    last_version: int
    first_position: int
    last_position: int
    duplicate: bool
    """True when the command id had already been recorded: nothing new was written."""
    events: tuple[RecordedEvent, ...]


def stable_partition(stream_id: str, partitions: int) -> int:
    """The default log partition of a stream: CRC-32 of its UTF-8 id, modulo ``partitions``.

    Stable across processes and Python versions (unlike ``hash()``). A stream keeps the
    partition it was created in, so changing ``partitions`` later moves only new streams.

    >>> stable_partition("table-1", 1)
    0
    >>> stable_partition("table-1", 8)
    1
    """
    if partitions <= 1:
        return 0
    return zlib.crc32(stream_id.encode()) % partitions


def decode(
    event: RecordedEvent, decoder: msgspec.json.Decoder[T] | Callable[[RecordedEvent], T]
) -> T:
    """Decode a stored event's payload, or raise :class:`CorruptEventError` naming it.

    ``decoder`` is a msgspec JSON decoder for the payload, or a function of the whole recorded
    event (for dispatch on ``type`` and upcasting by ``schema_version``).

    :raises CorruptEventError: the payload does not decode.
    """
    try:
        if isinstance(decoder, msgspec.json.Decoder):
            return decoder.decode(event.data)
        return decoder(event)
    except (msgspec.MsgspecError, ValueError, TypeError, KeyError) as e:
        raise CorruptEventError(event.stream_id, event.version, str(e)) from e


_OUTCOME_COLUMNS: Final = (
    "stream_id, version, partition, position, type, schema_version, data, command_id, recorded_at"
)
# An append's outcome, read back for a retry, leaves the hash out, as its first answer does: a
# retry returns exactly the first outcome.
_COLUMNS: Final = _OUTCOME_COLUMNS + ", hash"
_READ_STREAM: Final = (
    f"SELECT {_COLUMNS} FROM events WHERE stream_id = $1 AND version > $2 ORDER BY version LIMIT $3"
)
_READ_TYPES_BEFORE: Final = (
    f"SELECT {_COLUMNS} FROM events WHERE stream_id = $1 AND version < $2"
    " AND type = ANY($3::text[]) ORDER BY version DESC LIMIT $4"
)
_READ_VERSIONS: Final = (
    f"SELECT {_OUTCOME_COLUMNS} FROM events WHERE stream_id = $1 AND version BETWEEN $2 AND $3"
    " ORDER BY version"
)
_READ_LOG: Final = (
    f"SELECT {_COLUMNS} FROM events WHERE partition = $1 AND position > $2"
    " ORDER BY position LIMIT $3"
)
# A recorded command's events, joined only when the stream, the actor and the digest are the
# caller's: for anyone else the row comes back with its event columns NULL, and the events never
# leave the database.
_READ_COMMAND: Final = (
    "SELECT c.stream_id AS recorded_stream, "
    + ", ".join(f"e.{column}" for column in _OUTCOME_COLUMNS.split(", "))
    + " FROM commands c LEFT JOIN events e ON e.stream_id = c.stream_id"
    " AND e.version BETWEEN c.first_version AND c.last_version"
    " AND c.stream_id = $2 AND c.actor IS NOT DISTINCT FROM $3"
    " AND c.digest IS NOT DISTINCT FROM $4"
    " WHERE c.command_id = $1 ORDER BY e.version"
)
_APPEND_ONE: Final = "SELECT * FROM append_events($1, $2, $3, $4, $5, $6, $7, $8, $9)"
_APPEND_BATCH: Final = "SELECT * FROM append_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
_CHAIN: Final = (
    "SELECT version, type, schema_version, data, command_id, recorded_at, chain_version,"
    " prev_hash, hash FROM events"
    " WHERE stream_id = $1 ORDER BY version"
)

# A row of the append_outcome composite (sql/002_append_events.sql).
_Outcome: TypeAlias = asyncpg.Record


class _Pending:
    """An append waiting for its partition's writer."""

    __slots__ = ("actor", "command_id", "digest", "events", "expected", "future", "stream_id")

    def __init__(
        self,
        stream_id: str,
        expected: int | None,
        command_id: uuid.UUID,
        events: Sequence[NewEvent],
        future: asyncio.Future[_Outcome],
        actor: str | None = None,
        digest: bytes | None = None,
    ) -> None:
        self.stream_id = stream_id
        self.expected = expected
        self.command_id = command_id
        self.events = events
        self.future = future
        self.actor = actor
        self.digest = digest


class _PartitionWriter:
    """Sends the appends queued for one partition, many per round trip and transaction.

    While a batch is in flight, new appends queue up and go in the next one. Up to
    ``EventStore.max_in_flight`` batches are in flight at once: a second one does its locking,
    checks and hashing while the first waits for its commit, then waits for the partition
    counter itself. Two appends to one stream, or with one command id, are never in flight at
    once, so appends to a stream are applied in the order they were made.
    """

    def __init__(self, store: EventStore, partition: int) -> None:
        self._store = store
        self._partition = partition
        self._queue: deque[_Pending] = deque()
        self._tasks: set[asyncio.Task[None]] = set()
        self._streams: set[str] = set()  # in flight
        self._commands: set[uuid.UUID] = set()  # in flight
        self._work = asyncio.Event()  # set when an append is queued
        self._lingering = 0  # tasks holding a connection, waiting for work

    def submit(self, item: _Pending) -> None:
        self._queue.append(item)
        self._work.set()
        if self._lingering:
            return
        # A task that has just returned is done at once but leaves the set only later.
        running = sum(not task.done() for task in self._tasks)
        if running < self._store.max_in_flight:
            task = asyncio.create_task(self._run(), name=f"append-writer-{self._partition}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def wake(self) -> None:
        """Stop lingering (the store is closing)."""
        self._work.set()

    async def wait_idle(self) -> None:
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _run(self) -> None:
        # One connection for as long as appends keep coming; outcomes are handed out before it
        # goes back to the pool (whose reset costs a round trip).
        batch: list[_Pending] = []
        try:
            # Checked again after each release, which awaits: appends queued meanwhile may have
            # found this task still running and started no other.
            while self._takeable():
                acquired = False
                try:
                    with translate_errors():
                        async with self._store.pool.acquire() as conn:
                            acquired = True
                            while True:
                                batch = self._take()
                                if not batch:
                                    if await self._linger():
                                        continue
                                    break
                                try:
                                    alive = await self._write(conn, batch)
                                finally:
                                    self._done(batch)
                                batch = []
                                if not alive:
                                    break  # the connection is gone: take another
                except StoreError as e:
                    if acquired:
                        continue  # releasing a broken connection; what is queued goes on
                    # No connection to be had: fail what is queued rather than spin.
                    queued, self._queue = list(self._queue), deque()
                    for item in queued:
                        _fail(item, e)
        except BaseException as e:
            # Cancelled, or a bug: nobody may wait forever on an append in flight.
            error = StoreError(f"append writer stopped: {e!r}")
            for item in [*batch, *self._queue]:
                _fail(item, error)
            self._queue.clear()
            raise

    async def _linger(self) -> bool:
        """Keep the connection a moment for the next append (a caller appending one after the
        other is back within microseconds); False when none came."""
        self._work.clear()
        if self._takeable():
            return True
        if self._store.closing:
            return False
        self._lingering += 1
        try:
            async with asyncio.timeout(self._store.linger):
                await self._work.wait()
        except TimeoutError:
            return False
        finally:
            self._lingering -= 1
        return True

    def _takeable(self) -> bool:
        """Whether some queued append can go now (the others wait for a batch in flight, whose
        task takes them when it is done)."""
        return any(
            not item.future.done()
            and item.stream_id not in self._streams
            and item.command_id not in self._commands
            for item in self._queue
        )

    def _take(self) -> list[_Pending]:
        store = self._store
        batch: list[_Pending] = []
        events = 0
        left: deque[_Pending] = deque()
        while self._queue:
            item = self._queue.popleft()
            if item.future.done():  # cancelled while queued: never sent
                continue
            if (
                len(batch) >= store.max_batch
                or (batch and events + len(item.events) > store.max_batch_events)
                or item.stream_id in self._streams
                or item.command_id in self._commands
            ):
                left.append(item)
                continue
            batch.append(item)
            self._streams.add(item.stream_id)
            self._commands.add(item.command_id)
            events += len(item.events)
        self._queue = left
        return batch

    def _done(self, batch: list[_Pending]) -> None:
        for item in batch:
            self._streams.discard(item.stream_id)
            self._commands.discard(item.command_id)

    async def _write(self, conn: asyncpg.Connection, batch: list[_Pending]) -> bool:
        """Send a batch and hand out its outcomes; False when the connection was lost."""
        types: list[str] = []
        versions: list[int] = []
        datas: list[bytes] = []
        for item in batch:
            for event in item.events:
                types.append(event.type)
                versions.append(event.schema_version)
                datas.append(event.data)
        try:
            with translate_errors():
                rows = await conn.fetch(
                    _APPEND_BATCH,
                    self._partition,
                    [item.stream_id for item in batch],
                    [item.expected for item in batch],
                    [item.command_id for item in batch],
                    [len(item.events) for item in batch],
                    types,
                    versions,
                    datas,
                    [item.actor for item in batch],
                    [item.digest for item in batch],
                )
        except StoreUnavailableError as e:
            for item in batch:
                _fail(item, e)
            return False
        except StoreError as e:
            if len(batch) == 1:
                _fail(batch[0], e)
                return True
            # One bad item fails the whole call (say, a command id raced onto another stream):
            # send each alone, so that only the bad one fails.
            for item in batch:
                if not item.future.done() and not await self._write(conn, [item]):
                    for rest in batch:
                        _fail(rest, StoreUnavailableError("database connection lost"))
                    return False
            return True
        for item, row in zip(batch, rows, strict=True):
            if not item.future.done():
                item.future.set_result(row)
        return True


def _fail(item: _Pending, error: StoreError) -> None:
    if item.future.done():
        return
    # Each waiter raises its own instance (a shared one would collect every traceback).
    own = type(error).__new__(type(error))
    own.__dict__.update(error.__dict__)
    own.args = error.args
    own.__cause__ = error.__cause__
    item.future.set_exception(own)


class EventStore:
    """Appends and reads events in PostgreSQL through an asyncpg pool.

    :param pool: the pool; the store does not own it unless created by :meth:`connect`.
    :param partitions: how many log partitions new streams are spread over (default 1), by
        :func:`stable_partition` unless an append names one.
    :param dsn: the connection string, for the subscriptions' LISTEN connection.
    """

    max_batch: int = 256
    """Most appends sent in one group-committed round trip."""
    max_batch_events: int = 2000
    """Most events in one group-committed round trip (a larger single append goes alone)."""
    max_in_flight: int = 2
    """Most group-committed calls in flight at once per partition."""
    linger: float = 0.005
    """How long a writer keeps its connection, in seconds, waiting for the next append."""

    def __init__(self, pool: asyncpg.Pool, *, partitions: int = 1, dsn: str | None = None) -> None:
        if partitions < 1:
            raise ValueError(f"partitions must be at least 1, not {partitions!r}")
        self._pool = pool
        self._partitions = partitions
        self._dsn = dsn
        self._owns_pool = False
        self._closing = False
        self._writers: dict[int, _PartitionWriter] = {}
        # Streams found in a partition other than the one computed for them (created while
        # `partitions` was different, or placed explicitly).
        self._placed: dict[str, int] = {}
        self.keys: RecordKeys | None = None
        """The personal data keys (docs/privacy.md): told of what each read returns; appends
        through :func:`events.store.streams.append_events` seal with them. None: nothing is
        sealed, and a sealed event read does not decode."""

    @classmethod
    async def connect(
        cls, dsn: str, *, partitions: int = 1, min_size: int = 2, max_size: int = 10, **kwargs: Any
    ) -> EventStore:
        """A store with its own pool on ``dsn``; :meth:`close` closes it."""
        with translate_errors():
            pool = await asyncpg.create_pool(dsn, min_size=min_size, max_size=max_size, **kwargs)
        store = cls(pool, partitions=partitions, dsn=dsn)
        store._owns_pool = True
        return store

    @property
    def pool(self) -> asyncpg.Pool:
        return self._pool

    @property
    def dsn(self) -> str | None:
        return self._dsn

    @property
    def partitions(self) -> int:
        return self._partitions

    @property
    def closing(self) -> bool:
        """Whether :meth:`close` has been called."""
        return self._closing

    async def close(self) -> None:
        """Wait for queued appends, then close the pool if the store opened it."""
        self._closing = True
        for writer in list(self._writers.values()):
            writer.wake()
            await writer.wait_idle()
        if self._owns_pool:
            await self._pool.close()

    async def __aenter__(self) -> EventStore:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def partition_for(self, stream_id: str) -> int:
        """The partition a new stream goes to when its append does not name one."""
        placed = self._placed.get(stream_id)
        if placed is not None:
            return placed
        return stable_partition(stream_id, self._partitions)

    async def append(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        *,
        expected_version: int | None,
        command_id: uuid.UUID,
        partition: int | None = None,
        connection: asyncpg.Connection | None = None,
        actor: str | None = None,
        digest: bytes | None = None,
    ) -> AppendResult:
        """Append ``events`` to a stream, atomically: all of them or none.

        :param expected_version: the stream's version the events were decided on (0 for a new
            stream), or ``None`` to append whatever the version.
        :param command_id: the id of the command being recorded. A retry with the same id (and
            the same ``actor`` and ``digest``) returns the first outcome with ``duplicate=True``
            and writes nothing.
        :param actor: who sent the command, recorded with its id: the first outcome is returned
            to that actor only (``None``: no actor, as for an imported table).
        :param digest: a digest of the command itself (the command service's
            :func:`~events.service.command_digest`), so that one actor reusing an id for another
            command is not answered with the first one's outcome.
        :param partition: the log partition for a new stream (default :meth:`partition_for`).
            An existing stream stays where it is.
        :param connection: append inside the caller's transaction on this connection (then
            the caller's commit publishes the events), instead of group-committing.
        :raises ConcurrencyError: the stream is not at ``expected_version``.
        :raises CommandReusedError: ``command_id`` was recorded for another stream, another
            actor or another command (nothing of its outcome is read).
        :raises ChainBrokenError: the stream's stored chain head was tampered with.
        :raises StoreUnavailableError: the database could not be reached; the outcome is
            unknown, retry with the same command id.
        """
        if not events:
            raise ValueError(f"an append to {stream_id!r} needs at least one event")
        if expected_version is not None and expected_version < 0:
            raise ValueError(f"expected_version must be >= 0 or None, not {expected_version!r}")
        if partition is not None and partition < 0:
            raise ValueError(f"partition must be >= 0, not {partition!r}")
        target = self.partition_for(stream_id) if partition is None else partition
        if connection is not None:
            with translate_errors():
                row = await connection.fetchrow(
                    _APPEND_ONE,
                    stream_id,
                    target,
                    expected_version,
                    command_id,
                    [e.type for e in events],
                    [e.schema_version for e in events],
                    [e.data for e in events],
                    actor,
                    digest,
                )
            assert row is not None
            return await self._result(stream_id, events, command_id, row, connection)
        loop = asyncio.get_running_loop()
        for _ in range(2):
            future: asyncio.Future[_Outcome] = loop.create_future()
            item = _Pending(stream_id, expected_version, command_id, events, future, actor, digest)
            writer = self._writers.get(target)
            if writer is None:
                writer = self._writers[target] = _PartitionWriter(self, target)
            writer.submit(item)
            row = await future
            if row["status"] != "moved":
                break
            # The stream already lives elsewhere; follow it (a stream never moves again).
            target = row["partition"]
            if len(self._placed) > 10_000:
                self._placed.clear()
            self._placed[stream_id] = target
        status = row["status"]
        if status not in ("appended", "duplicate"):
            raise append_error(
                status,
                stream_id=stream_id,
                expected=expected_version,
                command_id=command_id,
                recorded_stream_id=row["stream_id"],
                version=row["version"],
            )
        return await self._result(stream_id, events, command_id, row, None)

    async def _result(
        self,
        stream_id: str,
        events: Sequence[NewEvent],
        command_id: uuid.UUID,
        row: _Outcome,
        connection: asyncpg.Connection | None,
    ) -> AppendResult:
        first_version: int = row["first_version"]
        last_version: int = row["last_version"]
        first_position: int = row["first_position"]
        partition: int = row["partition"]
        duplicate = row["status"] == "duplicate"
        if duplicate:
            # The stored outcome: the events as first recorded, not the ones sent again.
            with translate_errors():
                if connection is not None:
                    rows = await connection.fetch(
                        _READ_VERSIONS, stream_id, first_version, last_version
                    )
                else:
                    rows = await self._pool.fetch(
                        _READ_VERSIONS, stream_id, first_version, last_version
                    )
            recorded = tuple(RecordedEvent(*r) for r in rows)
        else:
            recorded_at: datetime = row["recorded_at"]
            recorded = tuple(
                RecordedEvent(
                    stream_id,
                    first_version + i,
                    partition,
                    first_position + i,
                    e.type,
                    e.schema_version,
                    e.data,
                    command_id,
                    recorded_at,
                )
                for i, e in enumerate(events)
            )
        return AppendResult(
            stream_id=stream_id,
            partition=partition,
            first_version=first_version,
            last_version=last_version,
            first_position=first_position,
            last_position=row["last_position"],
            duplicate=duplicate,
            events=recorded,
        )

    async def _read(self, rows: Sequence[asyncpg.Record]) -> list[RecordedEvent]:
        records = [RecordedEvent(*r) for r in rows]
        if self.keys is not None and records:
            await self.keys.ensure(records)
        return records

    async def read_stream(
        self, stream_id: str, after_version: int = 0, *, limit: int | None = None
    ) -> list[RecordedEvent]:
        """A stream's events with a version above ``after_version``, in order."""
        with translate_errors():
            rows = await self._pool.fetch(_READ_STREAM, stream_id, after_version, limit)
        return await self._read(rows)

    async def read_types_before(
        self, stream_id: str, before_version: int, types: Sequence[str], limit: int
    ) -> list[RecordedEvent]:
        """Up to ``limit`` of a stream's events of the given ``types`` below ``before_version``,
        newest first (a page of a table's history, read back from its end)."""
        with translate_errors():
            rows = await self._pool.fetch(
                _READ_TYPES_BEFORE, stream_id, before_version, list(types), limit
            )
        return await self._read(rows)

    async def read_log(
        self, partition: int, after_position: int = 0, limit: int = 1000
    ) -> list[RecordedEvent]:
        """Up to ``limit`` events of a partition's log after ``after_position``, in order.

        Positions are dense and commit-ordered: what this returns is contiguous from
        ``after_position + 1``, and no event can later appear below what it returned.
        """
        with translate_errors():
            rows = await self._pool.fetch(_READ_LOG, partition, after_position, limit)
        return await self._read(rows)

    async def partition_heads(self) -> dict[int, int]:
        """The last position of each partition that has any event."""
        with translate_errors():
            rows = await self._pool.fetch(
                "SELECT partition, head FROM log_partitions ORDER BY partition"
            )
        return {r["partition"]: r["head"] for r in rows}

    async def stream_version(self, stream_id: str) -> int:
        """A stream's current version: 0 when it has no events."""
        with translate_errors():
            version = await self._pool.fetchval(
                "SELECT version FROM streams WHERE stream_id = $1", stream_id
            )
        return 0 if version is None else int(version)

    async def stream_versions(self, stream_ids: Sequence[str]) -> dict[str, int]:
        """The current version of each of ``stream_ids`` that has any event, in one query."""
        with translate_errors():
            rows = await self._pool.fetch(
                "SELECT stream_id, version FROM streams WHERE stream_id = ANY($1::text[])",
                list(stream_ids),
            )
        return {r["stream_id"]: int(r["version"]) for r in rows}

    async def command_outcome(
        self,
        command_id: uuid.UUID,
        stream_id: str,
        *,
        actor: str | None = None,
        digest: bytes | None = None,
    ) -> AppendResult | None:
        """What the append of ``command_id`` recorded, read back (``duplicate=True``), or None
        when the command id was never recorded. One round trip.

        A command service answers a retried command with this rather than deciding it again.
        Only a retry is answered: the same stream, ``actor`` and ``digest`` as recorded (as for
        :meth:`append`); for anyone else the events are not even read.

        :raises CommandReusedError: the id was recorded for another stream, actor or command.
        """
        with translate_errors():
            rows = await self._pool.fetch(_READ_COMMAND, command_id, stream_id, actor, digest)
        if not rows:
            return None
        if rows[0]["stream_id"] is None:
            raise CommandReusedError(command_id, rows[0]["recorded_stream"])
        recorded = tuple(RecordedEvent(*tuple(r)[1:]) for r in rows)
        first, last = recorded[0], recorded[-1]
        return AppendResult(
            stream_id=first.stream_id,
            partition=first.partition,
            first_version=first.version,
            last_version=last.version,
            first_position=first.position,
            last_position=last.position,
            duplicate=True,
            events=recorded,
        )

    async def ping(self) -> None:
        """Round trip to the database (readiness checks).

        :raises StoreUnavailableError: it cannot be reached.
        """
        with translate_errors():
            await self._pool.fetchval("SELECT 1")

    async def chain_head(self, stream_id: str, version: int) -> bytes | None:
        """The stored chain hash of a stream's event at ``version`` (its chain head when it was
        at that version), or None when there is no such event."""
        with translate_errors():
            digest = await self._pool.fetchval(
                "SELECT hash FROM events WHERE stream_id = $1 AND version = $2", stream_id, version
            )
        return None if digest is None else bytes(digest)

    async def stream_partition(self, stream_id: str) -> int | None:
        """The partition a stream lives in, or None when it has never been appended to."""
        with translate_errors():
            partition = await self._pool.fetchval(
                "SELECT partition FROM streams WHERE stream_id = $1", stream_id
            )
        return None if partition is None else int(partition)

    async def verify_chain(self, stream_id: str) -> ChainBreak | None:
        """Recompute a stream's hash chain from its stored events; None when it holds.

        Finds edited payloads, types or hashes (and, from chain version 2 on, command ids and
        times of recording), deleted, inserted or reordered versions, and an event that goes
        back to chain version 1, naming the first version that fails.
        """
        prev = ZERO_HASH
        expected = 1
        chain = 1  # a stream's chain versions never go down
        with translate_errors():
            async with self._pool.acquire() as conn, conn.transaction(readonly=True):
                head = await conn.fetchrow(
                    "SELECT version, head_hash FROM streams WHERE stream_id = $1", stream_id
                )
                async for r in conn.cursor(_CHAIN, stream_id, prefetch=1000):
                    version: int = r["version"]
                    if version != expected:
                        return ChainBreak(
                            stream_id,
                            expected,
                            f"version {expected} is missing (next is {version})",
                        )
                    if r["prev_hash"] != prev:
                        return ChainBreak(
                            stream_id, version, "prev_hash is not the previous event's hash"
                        )
                    if r["chain_version"] < chain:
                        return ChainBreak(
                            stream_id,
                            version,
                            f"chain version {r['chain_version']} after version {chain}",
                        )
                    chain = r["chain_version"]
                    try:
                        digest = stored_hash(prev, stream_id, r)
                    except ValueError as e:
                        return ChainBreak(stream_id, version, str(e))
                    if r["hash"] != digest:
                        return ChainBreak(
                            stream_id, version, "stored hash does not match the stored event"
                        )
                    prev = digest
                    expected += 1
        last = expected - 1
        if head is None:
            if last == 0:
                return None
            return ChainBreak(stream_id, 1, "events without a stream row")
        if head["version"] != last:
            return ChainBreak(
                stream_id,
                min(head["version"], last) + 1,
                f"the stream is at version {head['version']} but its last event is {last}",
            )
        if head["head_hash"] != prev:
            return ChainBreak(stream_id, last, "the stream's head hash is not its last event's")
        return None
