"""Projectors: read models derived from a partition's log, each advanced together with its
checkpoint in one transaction, so that a read model is never ahead of or behind its checkpoint.

A concrete projector subclasses :class:`Projector` and implements :meth:`Projector.handle`, which
writes its rows through the connection it is given (the transaction is already open). If
``handle`` raises, the transaction rolls back: neither the rows nor the checkpoint move, and the
same events are offered again.

A *poison* event is one no retry can ever apply, and the log is immutable: an event whose data
the read model cannot hold (a NUL in a name: :class:`asyncpg.DataError`), one that does not
decode (:class:`~events.store.errors.CorruptEventError`) or one the projector refuses
(:class:`~events.store.errors.PoisonEventError`); see :attr:`Projector.poison_errors`. Halting on
one
would stop the read model for good (docs/design.md: the lobby is a projection of the log), so
the batch is re-applied one event at a time, each in a savepoint, and each poison event is
skipped: recorded in ``projection_skipped`` (stream, version, position, cause and reason) in the
same transaction as the checkpoint that moves past it, so it is recorded once and never retried,
and reported to :attr:`Projector.on_skip`. Any other error (the database away, a bug) still
rolls everything back and the same events are offered again.
"""

from __future__ import annotations

import abc
import asyncio
import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import ClassVar, Final, Literal

import asyncpg
import msgspec

from events.store.errors import (
    CorruptEventError,
    LogHoleError,
    PoisonEventError,
    StoreError,
    translate_errors,
)
from events.store.event_store import EventStore, RecordedEvent, RecordKeys
from events.store.personal_keys import PersonalKeys, hold_keys, owners_of
from events.store.subscription import LiveFeed

__all__ = ["DestroyedMeanwhile", "Projector", "SkippedEvent", "skipped_events"]

_log = logging.getLogger(__name__)

_ENSURE: Final = (
    "INSERT INTO projection_checkpoints (name, partition, position) VALUES ($1, $2, 0)"
    " ON CONFLICT (name, partition) DO NOTHING"
)
_LOCK: Final = (
    "SELECT position FROM projection_checkpoints WHERE name = $1 AND partition = $2 FOR UPDATE"
)
_ADVANCE: Final = (
    "UPDATE projection_checkpoints SET position = $3, updated_at = now()"
    " WHERE name = $1 AND partition = $2"
)
_SKIP: Final = (
    "INSERT INTO projection_skipped (name, partition, position, stream_id, version, type, cause,"
    " reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
    # A read model rebuilt from scratch (its checkpoint reset) meets the same event again.
    " ON CONFLICT (name, partition, position) DO UPDATE SET cause = excluded.cause,"
    " reason = excluded.reason, skipped_at = excluded.skipped_at"
    " RETURNING skipped_at"
)

Cause = Literal["undecodable", "unwritable", "refused"]
"""Why an event was skipped: it does not decode, its data cannot be written to the read model,
or the projector refused it."""

_MAX_REASON: Final = 1000


class SkippedEvent(msgspec.Struct, frozen=True, kw_only=True):
    """A poison event a projector skipped, as recorded in ``projection_skipped``."""

    projector: str
    partition: int
    position: int
    stream_id: str
    version: int
    type: str
    cause: Cause
    reason: str
    """The error's text: for operators (logs, the table), never for clients."""
    skipped_at: datetime


def _cause(exc: BaseException) -> Cause:
    match exc:
        case CorruptEventError():
            return "undecodable"
        case asyncpg.DataError():
            return "unwritable"
    return "refused"


def _reason(exc: BaseException) -> str:
    """The error's text, fit for a text column: the error may quote the very data that could not
    be written (a NUL), and a driver's message is not bounded."""
    text = (str(exc) or type(exc).__name__).replace("\x00", "\ufffd")
    return f"{type(exc).__name__}: {text}"[:_MAX_REASON]


class DestroyedMeanwhile(Exception):
    """A key a batch opened was destroyed before the batch committed: it is rolled back."""


class Projector(abc.ABC):
    """A read model fed by one log partition.

    :param name: identifies the read model's checkpoint; change it to rebuild from scratch.
    :param partition: the log partition it follows.
    :param on_skip: called with each poison event skipped, once its skip is committed (a
        metrics counter, say).
    """

    poison_errors: ClassVar[tuple[type[BaseException], ...]] = (
        PoisonEventError,
        CorruptEventError,
        asyncpg.DataError,
    )
    """The errors that mean "this event can never be applied": raised by :meth:`handle` for a
    single event, the event is skipped and recorded instead of halting the projector. Any
    other error rolls the batch back, to be offered again."""

    personal: ClassVar[frozenset[str]] = frozenset()
    """The event types whose personal values (docs/privacy.md) the read model writes: a batch
    of them holds their owners' keys as it commits, and is applied again, from values read
    anew, when one of those keys was destroyed meanwhile (:func:`hold_keys`)."""

    def __init__(
        self,
        name: str,
        partition: int = 0,
        *,
        on_skip: Callable[[SkippedEvent], None] | None = None,
    ) -> None:
        self.name = name
        self.partition = partition
        self.on_skip = on_skip
        self.linger = 0.0
        """Seconds :meth:`run` waits after each batch (set by the server:
        ``CHOUETTE_PROJECTION_LINGER``)."""
        self._ensured = False
        self.keys: RecordKeys | None = None
        """The store's personal data keys (docs/privacy.md), to decode with: set from the
        store each batch is applied for."""

    async def setup(self, connection: asyncpg.Connection) -> None:  # noqa: B027 (optional hook)
        """Create the read model's tables if need be. Called by :meth:`prepare`."""

    @abc.abstractmethod
    async def handle(self, connection: asyncpg.Connection, events: Sequence[RecordedEvent]) -> None:
        """Apply contiguous new events to the read model, inside the open transaction.

        Applying a batch must come to the same as applying its events one by one (batches are
        cut anywhere, and a batch holding a poison event is re-applied one event at a time)."""

    async def prepare(self, store: EventStore) -> None:
        """Run :meth:`setup` and make sure the checkpoint row exists."""
        with translate_errors():
            async with store.pool.acquire() as conn, conn.transaction():
                await self.setup(conn)
                await conn.execute(_ENSURE, self.name, self.partition)

    async def checkpoint(self, store: EventStore) -> int:
        """The last position applied (0 when none)."""
        with translate_errors():
            position = await store.pool.fetchval(
                "SELECT position FROM projection_checkpoints WHERE name = $1 AND partition = $2",
                self.name,
                self.partition,
            )
        return 0 if position is None else int(position)

    async def apply(self, store: EventStore, events: Sequence[RecordedEvent]) -> int:
        """Apply a batch and advance the checkpoint, in one transaction; returns the checkpoint.

        Events at or below the checkpoint are dropped (another instance, or a retry, already
        applied them); the checkpoint row is locked, so two instances never apply one event twice.

        A poison event (see :attr:`poison_errors`) rolls the batch back; the batch is applied
        again one event at a time, and each poison event is skipped and recorded in the same
        transaction as the checkpoint that moves past it.

        :raises StoreError: the batch is not this partition's, or does not continue from the
            checkpoint.
        """
        skipped: list[SkippedEvent] = []
        self.keys = store.keys
        with translate_errors():
            async with store.pool.acquire() as conn:
                while True:
                    try:
                        # The batch as one: no savepoint (two round trips fewer), since a
                        # poison event is rare; if there is one, the transaction rolls back and
                        # the batch is applied again, one event at a time, each in a savepoint.
                        async with conn.transaction():
                            current, new = await self._lock(conn, events)
                            if not new:
                                return current
                            erased = self._erased(new)
                            await self.handle(conn, new)
                            await self._hold_keys(conn, new, erased)
                            await conn.execute(
                                _ADVANCE, self.name, self.partition, new[-1].position
                            )
                    except self.poison_errors:
                        async with conn.transaction():
                            current, new = await self._lock(conn, events)
                            if not new:
                                return current
                            erased = self._erased(new)
                            skipped = await self._handle_each(conn, new)
                            await self._hold_keys(conn, new, erased)
                            await conn.execute(
                                _ADVANCE, self.name, self.partition, new[-1].position
                            )
                    except DestroyedMeanwhile:
                        continue  # the batch again, the keys destroyed now known
                    break
        # Only once committed: a rolled-back skip was never made.
        for skip in skipped:
            _log.warning(
                "projector %s skipped event %s version %s (position %s of partition %s): %s",
                *(skip.projector, skip.stream_id, skip.version, skip.position, skip.partition),
                skip.reason,
                extra={"stream": skip.stream_id},
            )
            if self.on_skip is not None:
                self.on_skip(skip)
        return new[-1].position

    def _erased(self, events: Sequence[RecordedEvent]) -> set[str] | None:
        """The owners of the batch's personal values whose keys are known destroyed before it
        is applied (None: the batch writes none)."""
        if not self.personal or not isinstance(self.keys, PersonalKeys):
            return None
        keys = self.keys
        return {o for o in owners_of(events, self.personal) if keys.is_erased(o)}

    async def _hold_keys(
        self, conn: asyncpg.Connection, events: Sequence[RecordedEvent], erased: set[str] | None
    ) -> None:
        """Hold the keys the batch opened until it commits; roll it back to be applied again
        if one of them was destroyed since it was opened (:func:`hold_keys`)."""
        if erased is None:
            return
        assert isinstance(self.keys, PersonalKeys)
        late = await hold_keys(conn, owners_of(events, self.personal)) - erased
        if late:
            for owner in late:
                self.keys.forget(owner)
            raise DestroyedMeanwhile

    async def _lock(
        self, conn: asyncpg.Connection, events: Sequence[RecordedEvent]
    ) -> tuple[int, list[RecordedEvent]]:
        """Lock the checkpoint row (made if missing); the checkpoint and the events after it,
        checked to continue from it."""
        if not self._ensured:
            await conn.execute(_ENSURE, self.name, self.partition)
        current: int | None = await conn.fetchval(_LOCK, self.name, self.partition)
        if current is None:  # (deleted since: a rebuild's copy started again)
            await conn.execute(_ENSURE, self.name, self.partition)
            current = await conn.fetchval(_LOCK, self.name, self.partition)
        assert current is not None
        self._ensured = True
        new = [e for e in events if e.position > current]
        expected = current + 1
        for event in new:
            if event.partition != self.partition or event.position != expected:
                raise StoreError(
                    f"projector {self.name!r} at position {current} of partition "
                    f"{self.partition} was given partition {event.partition} position "
                    f"{event.position}, not {expected}"
                )
            expected += 1
        return current, new

    async def _handle(
        self, conn: asyncpg.Connection, events: Sequence[RecordedEvent]
    ) -> list[SkippedEvent]:
        """Apply the batch; if an event of it is poison, apply it again one event at a time,
        skipping and recording each poison event. Each attempt runs in a savepoint, so a failed
        one leaves nothing behind and the transaction goes on."""
        try:
            async with conn.transaction():
                await self.handle(conn, events)
            return []
        except self.poison_errors:
            pass
        return await self._handle_each(conn, events)

    async def _handle_each(
        self, conn: asyncpg.Connection, events: Sequence[RecordedEvent]
    ) -> list[SkippedEvent]:
        """Apply the events one at a time, each in a savepoint, skipping and recording each
        poison event."""
        skipped: list[SkippedEvent] = []
        for event in events:
            try:
                async with conn.transaction():
                    await self.handle(conn, [event])
            except self.poison_errors as exc:
                cause, reason = _cause(exc), _reason(exc)
                skipped_at: datetime = await conn.fetchval(
                    _SKIP,
                    *(self.name, self.partition, event.position, event.stream_id),
                    *(event.version, event.type, cause, reason),
                )
                skipped.append(
                    SkippedEvent(
                        projector=self.name,
                        partition=self.partition,
                        position=event.position,
                        stream_id=event.stream_id,
                        version=event.version,
                        type=event.type,
                        cause=cause,
                        reason=reason,
                        skipped_at=skipped_at,
                    )
                )
        return skipped

    async def catch_up(self, store: EventStore, *, batch_size: int = 1000) -> int:
        """Apply everything committed so far; returns the checkpoint reached."""
        position = await self.checkpoint(store)
        while True:
            batch = await store.read_log(self.partition, position, batch_size)
            if not batch:
                return position
            # Positions commit in order, so an event read after a missing one is a hole.
            for expected, event in enumerate(batch, position + 1):
                if event.position != expected:
                    raise LogHoleError(
                        self.partition,
                        expected,
                        event.position,
                        who=f"projector {self.name!r} at position {position}",
                    )
            position = await self.apply(store, batch)

    async def run(self, notifier: LiveFeed, *, batch_size: int | None = None) -> None:
        """Follow the partition live from the checkpoint until cancelled or the notifier closes.

        After each batch it waits :attr:`linger` seconds, so that what is committed meanwhile
        comes as one batch: at a human pace commands barely batch, and a transaction per
        projector per command was a fifth of a server's CPU (docs/scaling.md)."""
        await self.prepare(notifier.store)
        position = await self.checkpoint(notifier.store)
        async with notifier.subscribe(self.partition, position, batch_size=batch_size) as sub:
            # What came while it lingered is one batch (not one batch per linger).
            sub.merge = self.linger > 0
            async for batch in sub.batches():
                await self.apply(notifier.store, batch)
                if self.linger > 0:
                    await asyncio.sleep(self.linger)


async def skipped_events(
    store: EventStore, name: str | None = None, *, limit: int = 20
) -> tuple[int, list[SkippedEvent]]:
    """How many events projectors (``name``'s, or all) have skipped, and the latest ``limit``
    of them, newest first."""
    with translate_errors():
        async with store.pool.acquire() as conn:
            count: int = await conn.fetchval(
                "SELECT count(*) FROM projection_skipped WHERE $1::text IS NULL OR name = $1",
                name,
            )
            rows = await conn.fetch(
                "SELECT name, partition, position, stream_id, version, type, cause, reason,"
                " skipped_at FROM projection_skipped WHERE $1::text IS NULL OR name = $1"
                " ORDER BY skipped_at DESC, name, partition, position DESC LIMIT $2",
                name,
                limit,
            )
    return count, [
        SkippedEvent(
            projector=r["name"],
            partition=r["partition"],
            position=r["position"],
            stream_id=r["stream_id"],
            version=r["version"],
            type=r["type"],
            cause=r["cause"],
            reason=r["reason"],
            skipped_at=r["skipped_at"],
        )
        for r in rows
    ]
