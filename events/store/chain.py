"""The hash chain of a stream's events: each event's hash covers the one before it, so that a
rewrite of the log shows (docs/store.md, "Hash chain"). Computed here exactly as
``append_batch`` computes it in the database, so that audits can recompute it."""

from __future__ import annotations

import hashlib
import struct
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import msgspec

__all__ = [
    "CHAIN_VERSION",
    "ZERO_HASH",
    "ChainBreak",
    "event_hash",
    "recorded_micros",
    "stored_hash",
]

ZERO_HASH: Final = bytes(32)
"""The ``prev_hash`` of each stream's first event."""


class ChainBreak(msgspec.Struct, frozen=True):
    """Where and why a stream's hash chain does not hold."""

    stream_id: str
    version: int
    """The first version that fails a check."""
    reason: str


CHAIN_VERSION: Final = 2
"""The chain version of the events appended now (``events.chain_version``): 2 hashes the
command id and the time of recording too (``sql/016_server_role_and_chain_v2.sql``); events
stored before that migration are version 1 and verify as such."""

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND: Final = timedelta(microseconds=1)


def recorded_micros(recorded_at: datetime) -> int:
    """``recorded_at`` as the chain hashes it: whole microseconds since 1970-01-01 00:00 UTC
    (``extract(epoch FROM recorded_at) * 1000000`` in SQL).

    >>> recorded_micros(datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC))
    1767323045678901
    """
    return (recorded_at - _EPOCH) // _MICROSECOND


def event_hash(
    prev_hash: bytes,
    stream_id: str,
    version: int,
    type: str,
    schema_version: int,
    data: bytes,
    command_id: uuid.UUID | None = None,
    recorded_at: datetime | None = None,
) -> bytes:
    """The chain hash of one event, exactly as ``append_batch`` computes it in the database.

    Chain version 1 (no ``command_id`` nor ``recorded_at``): ``sha256(prev_hash ||
    int4(len(stream_id)) || stream_id || int8(version) || int4(len(type)) || type ||
    int4(schema_version) || int4(len(data)) || data)``, with big-endian integers and UTF-8
    strings. Chain version 2 (both given) appends ``command_id`` (its 16 bytes) and
    ``int8(recorded_micros(recorded_at))``. See docs/store.md, "Hash chain".

    >>> event_hash(ZERO_HASH, "s1", 1, "x", 1, b'{"a":1}').hex()[:16]
    'ffe5c5c0ee26cd9c'
    >>> at = datetime(2026, 1, 2, tzinfo=UTC)
    >>> event_hash(ZERO_HASH, "s1", 1, "x", 1, b'{"a":1}', uuid.UUID(int=1), at).hex()[:16]
    'b9619ae50dc19d9b'
    """
    if (command_id is None) != (recorded_at is None):
        raise ValueError("chain version 2 hashes both command_id and recorded_at, not one")
    sid = stream_id.encode()
    tag = type.encode()
    # The same bytes as one pack per integer, with the integers between two strings packed
    # together (an audit hashes every event again).
    parts = [
        prev_hash,
        _INT4(len(sid)),
        sid,
        _INT8_INT4(version, len(tag)),
        tag,
        _INT4_INT4(schema_version, len(data)),
        data,
    ]
    if command_id is not None and recorded_at is not None:
        parts += (command_id.bytes, _INT8(recorded_micros(recorded_at)))
    return hashlib.sha256(b"".join(parts)).digest()


_INT4 = struct.Struct(">i").pack
_INT8 = struct.Struct(">q").pack
_INT8_INT4 = struct.Struct(">qi").pack
_INT4_INT4 = struct.Struct(">ii").pack


def stored_hash(prev_hash: bytes, stream_id: str, row: Mapping[str, Any]) -> bytes:
    """The chain hash of a stored event under its own ``chain_version``, from a row with the
    columns ``version, type, schema_version, data, command_id, recorded_at, chain_version``.

    :raises ValueError: an unknown chain version.
    """
    chain = row["chain_version"]
    if chain == 1:
        return event_hash(
            prev_hash, stream_id, row["version"], row["type"], row["schema_version"], row["data"]
        )
    if chain == 2:
        return event_hash(
            prev_hash,
            stream_id,
            row["version"],
            row["type"],
            row["schema_version"],
            row["data"],
            row["command_id"],
            row["recorded_at"],
        )
    raise ValueError(f"unknown chain version {chain!r}")
