"""Where a table's events live in the store, and the one way in and out of it.

A table has two streams: ``table-<id>`` holds what happens at the table (decided by
:mod:`events.domain.decider`) and ``chat-<id>`` its chat (:mod:`events.domain.chat`), so that
talking never
races with playing for a stream version. The names are spelled here and nowhere else;
:func:`parse_stream` reads them back.

The store keeps events as ``(type, schema_version, data)`` and knows nothing of the domain.
:func:`new_event` is the one builder of what is appended (the schema version always set, so an
upcaster can tell old payloads from new), :func:`append_events` the one write path (the command
service and the tools that import or simulate tables both go through it), and
:func:`decode_recorded` the one reader back.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Final, Literal, NamedTuple

import msgspec

from events.domain import types as e
from events.domain.decider import fold
from events.domain.rules_check import check_steps
from events.store.errors import CorruptEventError, translate_errors
from events.store.event_store import AppendResult, EventStore, NewEvent, RecordedEvent, RecordKeys
from events.store.personal_keys import UNOPENED

__all__ = [
    "ACCOUNT_PREFIX",
    "CHAT_PREFIX",
    "TABLE_PREFIX",
    "TOURNAMENT_PREFIX",
    "StreamKind",
    "StreamName",
    "account_of_stream",
    "account_stream",
    "append_events",
    "append_steps",
    "chat_stream",
    "decode_recorded",
    "new_event",
    "parse_stream",
    "table_stream",
    "tournament_of_stream",
    "tournament_stream",
    "tournament_versions",
]

StreamKind = Literal["table", "chat"]

TABLE_PREFIX: Final = "table-"
"""The prefix of a table's play stream."""
CHAT_PREFIX: Final = "chat-"
"""The prefix of a table's chat stream."""
ACCOUNT_PREFIX: Final = "account-"
"""The prefix of an account's stream: its erasure, if it was erased (docs/privacy.md)."""
TOURNAMENT_PREFIX: Final = "tournament-"
"""The prefix of a tournament's stream (docs/tournaments.md): entries, rounds, results."""


class StreamName(NamedTuple):
    """A stream id read back: which of a table's streams, and the table's id."""

    kind: StreamKind
    table_id: str


def table_stream(table_id: str) -> str:
    """The stream of what happens at a table.

    >>> table_stream("42")
    'table-42'
    """
    return TABLE_PREFIX + table_id


def chat_stream(table_id: str) -> str:
    """The stream of a table's chat.

    >>> chat_stream("42")
    'chat-42'
    """
    return CHAT_PREFIX + table_id


def account_stream(account_id: str) -> str:
    """The stream of what happened to an account (its erasure).

    >>> account_stream("u_1")
    'account-u_1'
    """
    return ACCOUNT_PREFIX + account_id


def account_of_stream(stream_id: str) -> str | None:
    """The account whose stream ``stream_id`` is, or None for another stream.

    >>> account_of_stream("account-u_1"), account_of_stream("table-1")
    ('u_1', None)
    """
    return stream_id.removeprefix(ACCOUNT_PREFIX) if stream_id.startswith(ACCOUNT_PREFIX) else None


def tournament_stream(tournament_id: str) -> str:
    """The stream of a tournament.

    >>> tournament_stream("7")
    'tournament-7'
    """
    return TOURNAMENT_PREFIX + tournament_id


def tournament_of_stream(stream_id: str) -> str | None:
    """The tournament whose stream ``stream_id`` is, or None for another stream.

    >>> tournament_of_stream("tournament-7"), tournament_of_stream("table-7")
    ('7', None)
    """
    if not stream_id.startswith(TOURNAMENT_PREFIX):
        return None
    return stream_id.removeprefix(TOURNAMENT_PREFIX)


async def tournament_versions(store: EventStore) -> dict[str, int]:
    """Every tournament's id and its stream's version, in one query of ``streams``."""
    with translate_errors():
        rows = await store.pool.fetch(
            "SELECT stream_id, version FROM streams WHERE stream_id LIKE $1 ORDER BY stream_id",
            TOURNAMENT_PREFIX + "%",
        )
    return {r["stream_id"].removeprefix(TOURNAMENT_PREFIX): r["version"] for r in rows}


def parse_stream(stream_id: str) -> StreamName | None:
    """Which table stream ``stream_id`` names, or None for a stream that is not a table's.

    >>> parse_stream("chat-42")
    StreamName(kind='chat', table_id='42')
    >>> parse_stream("accounts") is None
    True
    """
    if stream_id.startswith(TABLE_PREFIX):
        return StreamName("table", stream_id.removeprefix(TABLE_PREFIX))
    if stream_id.startswith(CHAT_PREFIX):
        return StreamName("chat", stream_id.removeprefix(CHAT_PREFIX))
    return None


def decode_recorded(rec: RecordedEvent, keys: RecordKeys | None = None) -> e.Event:
    """Decode a stored event (upcasting an old payload, opening its personal field with
    ``keys``, the store's: docs/privacy.md; without keys a sealed field reads as
    ``[sealed]``, which the rules never look at); a payload that does not decode is a
    :class:`~events.store.errors.CorruptEventError` naming stream and version, never a crash."""
    try:
        event = e.decode(rec.type, rec.schema_version, rec.data, (keys or UNOPENED).open)
    except (msgspec.DecodeError, KeyError, TypeError) as exc:
        raise CorruptEventError(rec.stream_id, rec.version, str(exc) or repr(exc)) from exc
    # An erased player's words stored in the clear (before sealing) are not shown either.
    return event if keys is None else e.forget_plain(event, keys.is_erased)


def new_event(event: e.Event, sealer: e.Sealer | None = None) -> NewEvent:
    """What the store appends for ``event``: its tag, its schema version and its bytes (its
    personal field sealed by ``sealer``, when given, before the bytes are hashed into the
    chain)."""
    return NewEvent(
        type=e.tag(event), data=e.encode(event, sealer), schema_version=event.schema_version
    )


async def append_events(
    store: EventStore,
    stream_id: str,
    events: Iterable[e.Event],
    *,
    expected_version: int | None,
    command_id: uuid.UUID,
    actor: str | None = None,
    digest: bytes | None = None,
    seal: bool = True,
) -> AppendResult:
    """Append the events one command decided, atomically, as the store's
    :meth:`~events.store.event_store.EventStore.append` does (same errors, same retry by command
    id, and
    by the same ``actor`` with the same command ``digest`` only). What a person typed is sealed
    under their data key when the store has keys (:attr:`EventStore.keys`) and ``seal``."""
    events = list(events)
    keys = store.keys
    sealer = None if keys is None or not seal else await keys.sealer(events)
    result = await store.append(
        stream_id,
        [new_event(ev, sealer) for ev in events],
        expected_version=expected_version,
        command_id=command_id,
        actor=actor,
        digest=digest,
    )
    if sealer is not None and keys is not None and not result.duplicate:
        # What was just sealed is known in the clear: the streams send it without opening it.
        for rec, ev in zip(result.events, events, strict=True):
            if e.is_sealed(rec.type, rec.data):
                keys.remember(rec, ev)
    return result


async def append_steps(
    store: EventStore,
    table_id: str,
    steps: Sequence[Sequence[e.Event]],
    *,
    after: int = 0,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Append already decided events to a table's stream, each step as one command's append
    (with its own command id and the expected version), as the command service does; returns
    the stream's version. For tables that did not come through the service: an imported
    ``.mat`` file, simulated games (benchmarks, tests).

    Every step is checked first as the service checks a command's events
    (:func:`events.domain.rules_check.check_steps`, the dice as recorded), all before the first is
    written: a step the rules do not give raises
    :class:`~events.domain.rules_check.DecisionRejectedError` and nothing is appended.
    """
    stream = table_stream(table_id)
    state = None
    if after:
        state = fold(decode_recorded(r, store.keys) for r in await store.read_stream(stream))
    check_steps(table_id, steps, state)
    version = after
    for events in steps:
        if not events:
            continue
        # Not sealed: the names of an imported file or a simulation are nobody's account
        # (their ids carry them already: ``mat:<name>``).
        result = await append_events(
            store, stream, events, expected_version=version, command_id=uuid.uuid4(), seal=False
        )
        version = result.last_version
        if progress is not None:
            progress(len(events))
    return version
