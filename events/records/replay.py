"""A table at any version: folds of its stream, with snapshots to start from.

:class:`Replayer` answers ``GET /tables/{id}/replay?at=VERSION`` (:mod:`server.http.records`):
the table as it stood after that version, the fold of the events up to it. It keeps a snapshot
every :attr:`Replayer.every` versions; snapshots are folds themselves, derived and disposable (a
test checks replays at every version against the plain fold). The events are read back from the
store, so one that does not apply is skipped (:func:`events.domain.decider.evolve_stored`): the
state
after it is the state before it, one version on, and it is marked skipped.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field

from events.domain import types as e
from events.domain.decider import evolve_stored
from events.domain.table import TableState
from events.store.event_store import EventStore, RecordedEvent, RecordKeys
from events.store.streams import decode_recorded, table_stream

__all__ = ["Replayer", "decode_all", "replayer_for"]


def decode_all(records: Sequence[RecordedEvent], keys: RecordKeys | None = None) -> list[e.Event]:
    """Decode a stream's events, opening what a person typed with ``keys`` (the store's:
    docs/privacy.md); a corrupt one raises ``CorruptEventError`` naming it."""
    return [decode_recorded(r, keys) for r in records]


@dataclass(slots=True)
class _Snapshots:
    states: list[TableState] = field(default_factory=lambda: [TableState()])
    """``states[k]`` is the fold of the first ``k * every`` events."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Replayer:
    """Folds of a table's stream at any version, with a snapshot every ``every`` versions.

    Streams are append-only, so a snapshot never goes stale. Snapshots are kept for the
    ``max_tables`` tables replayed most recently.
    """

    def __init__(self, store: EventStore, *, every: int = 100, max_tables: int = 256) -> None:
        self.store = store
        self.every = every
        self.max_tables = max_tables
        self._tables: dict[str, _Snapshots] = {}

    def clear(self) -> None:
        """Forget every snapshot (an account was erased: they name its player as read)."""
        self._tables.clear()

    def _snapshots(self, table_id: str) -> _Snapshots:
        snaps = self._tables.pop(table_id, None) or _Snapshots()
        self._tables[table_id] = snaps  # most recent last
        while len(self._tables) > self.max_tables:
            self._tables.pop(next(iter(self._tables)))
        return snaps

    async def at(self, table_id: str, version: int) -> tuple[TableState, e.Event, TableState]:
        """The state before ``version``, the event at it, and the state after it.

        One read from the nearest snapshot at or below ``version``; the fold runs in a worker
        thread (a table's first replay may fold all of it), adding the snapshots it passes.

        :raises LookupError: no event at that version.
        """
        if version < 1:
            raise LookupError(f"versions start at 1, not {version}")
        snaps = self._snapshots(table_id)
        async with snaps.lock:
            base = snaps.states[min((version - 1) // self.every, len(snaps.states) - 1)]
            records = await self.store.read_stream(
                table_stream(table_id), after_version=base.version, limit=version - base.version
            )
            if not records or records[-1].version != version:
                raise LookupError(f"the table has no event at version {version}")
            return await asyncio.to_thread(self._fold, snaps, base, records)

    def _fold(
        self, snaps: _Snapshots, base: TableState, records: Sequence[RecordedEvent]
    ) -> tuple[TableState, e.Event, TableState]:
        events = decode_all(records, self.store.keys)
        state = base
        before = base
        for ev in events:
            before = state
            state = evolve_stored(state, ev)
            if state.version == len(snaps.states) * self.every:
                snaps.states.append(state)
        return before, events[-1], state


_replayers: weakref.WeakKeyDictionary[EventStore, Replayer] = weakref.WeakKeyDictionary()


def replayer_for(store: EventStore) -> Replayer:
    """The process's replayer for a store (created on first use)."""
    replayer = _replayers.get(store)
    if replayer is None:
        replayer = _replayers[store] = Replayer(store)
    return replayer
