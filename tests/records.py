"""Events as the store records them, made without a database (for auditing in memory)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

from events.domain import types as e
from events.store.event_store import RecordedEvent
from events.store.streams import table_stream

__all__ = ["recorded"]


def recorded(table_id: str, steps: Sequence[Sequence[e.Event]]) -> list[RecordedEvent]:
    """The events of ``steps`` as the store would record them (one command id per step), for
    auditing without a database."""
    stream = table_stream(table_id)
    now = datetime.now(UTC)
    out: list[RecordedEvent] = []
    for events in steps:
        command = uuid.uuid4()
        for ev in events:
            n = len(out) + 1
            out.append(
                RecordedEvent(
                    stream, n, 0, n, e.tag(ev), ev.schema_version, e.encode(ev), command, now
                )
            )
    return out
