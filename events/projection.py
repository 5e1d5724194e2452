"""Projectors: read models derived from a partition's log, each advanced together with its
checkpoint in one transaction, so that a read model is never ahead of or behind its checkpoint.

A concrete projector subclasses :class:`Projector` and implements :meth:`Projector.handle`, which
writes its rows through the connection it is given (the transaction is already open). If
``handle`` raises, the transaction rolls back: neither the rows nor the checkpoint move, and the
same events are offered again.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Final

import asyncpg

from events.errors import StoreError, translate_errors
from events.store import EventStore, RecordedEvent
from events.subscription import LiveFeed

__all__ = ["Projector"]

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


class Projector(abc.ABC):
    """A read model fed by one log partition.

    :param name: identifies the read model's checkpoint; change it to rebuild from scratch.
    :param partition: the log partition it follows.
    """

    def __init__(self, name: str, partition: int = 0) -> None:
        self.name = name
        self.partition = partition

    async def setup(self, connection: asyncpg.Connection) -> None:  # noqa: B027 (optional hook)
        """Create the read model's tables if need be. Called by :meth:`prepare`."""

    @abc.abstractmethod
    async def handle(self, connection: asyncpg.Connection, events: Sequence[RecordedEvent]) -> None:
        """Apply contiguous new events to the read model, inside the open transaction."""

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

        :raises StoreError: the batch is not this partition's, or does not continue from the
            checkpoint.
        """
        with translate_errors():
            async with store.pool.acquire() as conn, conn.transaction():
                await conn.execute(_ENSURE, self.name, self.partition)
                current: int = await conn.fetchval(_LOCK, self.name, self.partition)
                new = [e for e in events if e.position > current]
                if not new:
                    return current
                expected = current + 1
                for event in new:
                    if event.partition != self.partition or event.position != expected:
                        raise StoreError(
                            f"projector {self.name!r} at position {current} of partition "
                            f"{self.partition} was given partition {event.partition} position "
                            f"{event.position}, not {expected}"
                        )
                    expected += 1
                await self.handle(conn, new)
                await conn.execute(_ADVANCE, self.name, self.partition, new[-1].position)
                return new[-1].position

    async def catch_up(self, store: EventStore, *, batch_size: int = 1000) -> int:
        """Apply everything committed so far; returns the checkpoint reached."""
        position = await self.checkpoint(store)
        while True:
            batch = await store.read_log(self.partition, position, batch_size)
            if not batch:
                return position
            position = await self.apply(store, batch)

    async def run(self, notifier: LiveFeed, *, batch_size: int | None = None) -> None:
        """Follow the partition live from the checkpoint until cancelled or the notifier closes."""
        await self.prepare(notifier.store)
        position = await self.checkpoint(notifier.store)
        async with notifier.subscribe(self.partition, position, batch_size=batch_size) as sub:
            async for batch in sub.batches():
                await self.apply(notifier.store, batch)
