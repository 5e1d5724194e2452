"""The social read models' machinery: projectors that can be rebuilt beside the live ones, a
runner that follows the log with them, and the rebuild that swaps a new copy in atomically.

A :class:`ReadModel` is a :class:`~events.store.projection.Projector` whose tables are named through
:meth:`ReadModel.t`: the live projector writes ``ratings``, a rebuilding one ``ratings__rebuild``
(and keeps its checkpoint as ``ratings__rebuild``). :func:`rebuild` (``chouette project rebuild
NAME``, as the tables' owner) creates the copies empty, fills them from the start of the log
while the server goes on reading and updating the live tables, then in one transaction locks the
live checkpoints (the live projector waits), applies what was appended meanwhile, renames the
copies into place and moves the checkpoints: readers see the old tables until that commit and
the new ones after it, never a half-built model.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator, Sequence
from typing import ClassVar, Final

import asyncpg

from events.store.errors import LogHoleError, StoreError, translate_errors
from events.store.event_store import EventStore, RecordedEvent
from events.store.projection import DestroyedMeanwhile, Projector, SkippedEvent
from events.store.streams import parse_stream
from events.store.subscription import LiveFeed

__all__ = ["REBUILD_SUFFIX", "ReadModel", "ReadModels", "rebuild"]

log = logging.getLogger("chouette.readmodels")

REBUILD_SUFFIX: Final = "__rebuild"
"""The suffix of a read model's tables and checkpoint while it is rebuilt."""


class ReadModel(Projector):
    """A projector whose tables can be written under another name (for a rebuild).

    Subclasses set :attr:`model` (the read model's name, also its live checkpoint's),
    :attr:`tables` (the tables it writes, in the order to create them) and :attr:`types` (the
    event types it reads: the others are passed over without being decoded), and implement
    :meth:`apply_event`."""

    model: ClassVar[str]
    tables: ClassVar[tuple[str, ...]]
    types: ClassVar[frozenset[str]]

    def __init__(
        self,
        partition: int = 0,
        *,
        suffix: str = "",
        on_skip: Callable[[SkippedEvent], None] | None = None,
    ) -> None:
        super().__init__(self.model + suffix, partition, on_skip=on_skip)
        self.suffix = suffix

    def t(self, table: str) -> str:
        """The name to write ``table`` under (a fixed identifier: never a client's)."""
        return table + self.suffix

    def table_records(self, events: Sequence[RecordedEvent]) -> Iterator[tuple[str, RecordedEvent]]:
        """The events of :attr:`types` recorded in tables' streams, with their table's id (the
        batch reading of the lobby's and the profiles' projectors)."""
        for rec in events:
            if rec.type in self.types:
                name = parse_stream(rec.stream_id)
                if name is not None and name.kind == "table":
                    yield name.table_id, rec

    async def handle(self, connection: asyncpg.Connection, events: Sequence[RecordedEvent]) -> None:
        types = self.types
        for rec in events:
            if rec.type in types and rec.stream_id.startswith("table-"):
                await self.apply_event(connection, rec)

    async def apply_event(self, conn: asyncpg.Connection, rec: RecordedEvent) -> None:
        raise NotImplementedError


class ReadModels:
    """Follows the log with the given read models' live projectors, one task per projector and
    partition, restarting one that fails (the batch rolled back; it goes on from its
    checkpoint)."""

    def __init__(
        self,
        store: EventStore,
        notifier: LiveFeed,
        factories: Sequence[Callable[[int], ReadModel]],
        *,
        linger: float = 0.0,
    ) -> None:
        self.store = store
        self.notifier = notifier
        self.projectors = [f(p) for f in factories for p in range(store.partitions)]
        for projector in self.projectors:
            projector.linger = linger
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        for projector in self.projectors:
            await projector.prepare(self.store)
            self._tasks.append(asyncio.create_task(self._run(projector)))

    async def _run(self, projector: ReadModel) -> None:
        while True:
            try:
                await projector.run(self.notifier)
                return
            except asyncio.CancelledError:
                raise
            except Exception:
                # The database away, or a bug: the batch rolled back; follow again from the
                # checkpoint. (A poison event never gets here: the projector skips it.)
                log.warning("projector %s restarts", projector.name, exc_info=True)
                await asyncio.sleep(1)

    async def stop(self) -> None:
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t

    async def catch_up(self) -> None:
        """Apply everything committed so far (tests, and reads that must see their own
        writes)."""
        for projector in self.projectors:
            await projector.catch_up(self.store)


async def _lock_tables(conn: asyncpg.Connection, names: Sequence[str]) -> None:
    """Lock the live tables for the swap without ever waiting while holding one: a reader
    that holds one of them and waits for another would otherwise deadlock with the swap. Each
    try waits at most a moment for the readers in progress (new ones queue behind it), then
    lets go of what it took, and tries again."""
    for attempt in range(600):
        try:
            async with conn.transaction():  # a savepoint: a failed try releases its locks
                await conn.execute("SELECT set_config('lock_timeout', '100ms', true)")
                await conn.execute(f"LOCK TABLE {', '.join(names)} IN ACCESS EXCLUSIVE MODE")
                await conn.execute("SELECT set_config('lock_timeout', '0', true)")
            return
        except (asyncpg.LockNotAvailableError, asyncpg.DeadlockDetectedError):
            await asyncio.sleep(0.01 * (attempt % 10))
    raise StoreError(f"could not lock {', '.join(names)} for the swap: readers never let go")


async def _log_total(store: EventStore) -> int:
    heads = await store.partition_heads()
    return sum(heads.values())


async def rebuild(
    store: EventStore,
    factory: Callable[..., ReadModel],
    *,
    batch_size: int = 5000,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Rebuild one read model from the log into fresh copies of its tables and swap them in
    atomically; returns the number of events read. ``store`` must connect as the tables'
    owner (it creates, grants and renames tables), with a pool of three connections or more
    (the rebuild's lock, the swap's transaction and its reads of the log). ``progress(events,
    total)`` is called as batches are applied. A second rebuild of the same read model at the
    same time is refused (:class:`StoreError`).
    """
    if store.pool.get_max_size() < 3:
        raise ValueError("a rebuild needs a pool of three connections or more")
    live = factory(0)
    with translate_errors():
        async with store.pool.acquire() as guard:
            # One rebuild of a read model at a time (a second one is refused, not queued).
            key = f"chouette rebuild {live.model}"
            if not await guard.fetchval("SELECT pg_try_advisory_lock(hashtext($1))", key):
                raise StoreError(f"the read model {live.model!r} is being rebuilt already")
            try:
                return await _rebuild(store, factory, live, batch_size, progress)
            finally:
                await guard.execute("SELECT pg_advisory_unlock(hashtext($1))", key)


async def _rebuild(
    store: EventStore,
    factory: Callable[..., ReadModel],
    live: ReadModel,
    batch_size: int,
    progress: Callable[[int, int], None] | None,
) -> int:
    names = live.tables
    shadows = [factory(p, suffix=REBUILD_SUFFIX) for p in range(store.partitions)]
    total = await _log_total(store)
    with translate_errors():
        async with store.pool.acquire() as conn, conn.transaction():
            for table in names:
                shadow = table + REBUILD_SUFFIX
                await conn.execute(f"DROP TABLE IF EXISTS {shadow}")
                await conn.execute(f"CREATE TABLE {shadow} (LIKE {table} INCLUDING ALL)")
                await conn.execute(f"GRANT SELECT, INSERT, UPDATE ON {shadow} TO chouette_server")
            for s in shadows:
                await conn.execute("DELETE FROM projection_checkpoints WHERE name = $1", s.name)
                await conn.execute("DELETE FROM projection_skipped WHERE name = $1", s.name)
    read = 0
    for s in shadows:
        await s.prepare(store)
        position = 0
        while True:
            batch = await store.read_log(s.partition, position, batch_size)
            if not batch:
                break
            position = await s.apply(store, batch)
            read += len(batch)
            if progress is not None:
                progress(read, max(total, read))
    # The swap: the live checkpoints locked (the live projectors wait), the events appended
    # meanwhile applied to the copies, the copies renamed into place, the checkpoints moved.
    # A key a batch opened destroyed meanwhile: the swap again, from values read anew.
    while True:
        try:
            with translate_errors():
                async with store.pool.acquire() as conn, conn.transaction():
                    for s in shadows:
                        await conn.execute(
                            "INSERT INTO projection_checkpoints (name, partition, position)"
                            " VALUES ($1, $2, 0) ON CONFLICT (name, partition) DO NOTHING",
                            live.model,
                            s.partition,
                        )
                        await conn.fetchval(
                            "SELECT position FROM projection_checkpoints WHERE name = $1"
                            " AND partition = $2 FOR UPDATE",
                            live.model,
                            s.partition,
                        )
                    for s in shadows:
                        position = await conn.fetchval(
                            "SELECT position FROM projection_checkpoints WHERE name = $1"
                            " AND partition = $2",
                            s.name,
                            s.partition,
                        )
                        while True:
                            batch = await store.read_log(s.partition, position, batch_size)
                            if not batch:
                                break
                            if batch[0].position != position + 1:  # pragma: no cover - dense log
                                raise LogHoleError(
                                    s.partition,
                                    position + 1,
                                    batch[0].position,
                                    who=f"rebuilding {s.name!r}",
                                )
                            erased = s._erased(batch)
                            await s._handle(conn, batch)  # (a poison event skipped and recorded)
                            await s._hold_keys(conn, batch, erased)
                            position = batch[-1].position
                            read += len(batch)
                        await conn.execute(
                            "UPDATE projection_checkpoints SET position = $3, updated_at = now()"
                            " WHERE name = $1 AND partition = $2",
                            live.model,
                            s.partition,
                            position,
                        )
                        await conn.execute(
                            "DELETE FROM projection_checkpoints WHERE name = $1", s.name
                        )
                    await conn.execute("DELETE FROM projection_skipped WHERE name = $1", live.model)
                    await conn.execute(
                        "UPDATE projection_skipped SET name = $2 WHERE name = $1",
                        live.model + REBUILD_SUFFIX,
                        live.model,
                    )
                    await _lock_tables(conn, names)
                    for table in names:
                        await conn.execute(f"DROP TABLE IF EXISTS {table}__old")
                        await conn.execute(f"ALTER TABLE {table} RENAME TO {table}__old")
                        await conn.execute(f"ALTER TABLE {table}{REBUILD_SUFFIX} RENAME TO {table}")
                        await conn.execute(f"DROP TABLE {table}__old")
        except DestroyedMeanwhile:
            continue
        break
    if progress is not None:
        progress(read, max(total, read))
    return read
