"""Chain heads published outside the database (issue 12, finding 4; ``docs/heads.md``).

The per-stream hash chain is unkeyed: whoever can rewrite rows can recompute it, and the store's
own checks then pass. What they cannot recompute is a copy of the heads kept somewhere else. A
*heads document* gives, at one moment, every log partition's position with a **running hash**
of the partition's events up to it, and (for auditors) every stream's version with the chain
hash of its event at that version; it is signed with an Ed25519 key kept outside the database.
Anyone who saved one can later check the database against it (:func:`check_heads`), and the
first stream rewritten since is named, however consistently the rewrite was made.

The running hash of a partition, over its events in position order::

    running_0 = 32 zero bytes
    running_p = sha256(running_{p-1} || int8(p) || int4(len(stream_id)) || stream_id
                       || int8(version) || int4(len(hash)) || hash)

with big-endian integers, the UTF-8 stream id, and ``hash`` the event's stored chain hash as it
is (this module never recomputes a chain hash, so it does not depend on how the store makes it).

The running hashes are extended incrementally (:class:`RunningHashes`): a process reads each
event once, after the position it last reached.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import secrets
import struct
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Final

import asyncpg
import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from events.store.chain import ZERO_HASH
from events.store.density import next_stored
from events.store.errors import LogHoleError, StoreError, translate_errors
from events.store.event_store import EventStore

__all__ = [
    "HEADS_FORMAT",
    "Divergence",
    "HeadsDocument",
    "HeadsError",
    "HeadsSigner",
    "PartitionHead",
    "RunningHashes",
    "StreamHead",
    "canonical_bytes",
    "check_heads",
    "decode_public_key",
    "decode_signing_key",
    "encode_key",
    "fingerprint",
    "make_heads",
    "new_signing_key",
    "parse_heads",
    "running_hash",
    "verify_heads",
]

HEADS_FORMAT: Final = "chouette-heads/1"
"""The ``format`` of a heads document: this module's layout and running hash."""

KEY_BYTES: Final = 32
"""An Ed25519 private key (its seed) and public key are 32 bytes each."""

PAGE: Final = 5000
"""Events read per query while extending a running hash."""

_Progress = Callable[[int], None] | None


class HeadsError(ValueError):
    """A heads document that cannot be used: not one, or its signature does not verify."""


# -- the running hash ----------------------------------------------------------------------------


def running_hash(prev: bytes, position: int, stream_id: str, version: int, hash: bytes) -> bytes:
    """Extend a partition's running hash by the event at ``position``.

    >>> running_hash(ZERO_HASH, 1, "s", 1, bytes(32)).hex()[:16]
    'e99964e86c99e711'
    """
    sid = stream_id.encode()
    return hashlib.sha256(
        b"".join(
            (
                prev,
                struct.pack(">q", position),
                struct.pack(">i", len(sid)),
                sid,
                struct.pack(">q", version),
                struct.pack(">i", len(hash)),
                hash,
            )
        )
    ).digest()


_LOG_HASHES: Final = (
    "SELECT position, stream_id, version, hash FROM events"
    " WHERE partition = $1 AND position > $2 AND position <= $3 ORDER BY position LIMIT $4"
)


class RunningHashes:
    """Each partition's running hash as far as it has been computed, extended on demand.

    Kept by a process for its life: the first :meth:`extend` of a partition reads it from the
    start, each later one only what was appended since. Memory: two numbers a partition.
    """

    def __init__(self) -> None:
        self._reached: dict[int, tuple[int, bytes]] = {}

    def reached(self, partition: int) -> tuple[int, bytes]:
        """The position computed up to and the running hash there (0 and zeros at first)."""
        return self._reached.get(partition, (0, ZERO_HASH))

    async def extend(
        self, pool: asyncpg.Pool, partition: int, position: int, progress: _Progress = None
    ) -> bytes:
        """The running hash of ``partition`` at ``position``, reading the events after the
        position already reached. A position behind it is computed afresh (not kept).

        :raises LogHoleError: a position up to ``position`` has no event (a hole in the log).
        :raises StoreError: the database did not answer.
        """
        at, running = self.reached(partition)
        if position < at:
            at, running = 0, ZERO_HASH
            keep = False
        else:
            keep = True
        while at < position:
            with translate_errors():
                rows = await pool.fetch(_LOG_HASHES, partition, at, position, PAGE)
                if not rows:
                    async with pool.acquire() as conn:
                        after = await next_stored(conn, partition, at)
                    raise LogHoleError(partition, at + 1, after)
            for r in rows:
                if r["position"] != at + 1:
                    raise LogHoleError(partition, at + 1, r["position"])
                at = r["position"]
                running = running_hash(running, at, r["stream_id"], r["version"], r["hash"])
            if progress is not None:
                progress(len(rows))
        if keep:
            self._reached[partition] = (at, running)
        return running


# -- the document --------------------------------------------------------------------------------


class PartitionHead(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A log partition at the moment the heads were made."""

    partition: int
    position: int
    """Its last position: events ``1..position`` are covered."""
    running_hash: str
    """The running hash at ``position``, in hex."""


class StreamHead(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A stream at the moment the heads were made."""

    stream: str
    partition: int
    version: int
    position: int
    """The log position of its event at ``version``."""
    hash: str
    """The chain hash of its event at ``version``, in hex."""


class HeadsDocument(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True
):
    """A signed heads document (``GET /log/heads``, ``chouette heads``)."""

    format: str
    made_at: str
    """When it was made (ISO 8601, UTC)."""
    key: str
    """The fingerprint of the key that signed it (:func:`fingerprint`)."""
    partitions: list[PartitionHead]
    streams: list[StreamHead] | None = None
    """Every stream with an event; absent from the public document."""
    signature: str = ""
    """Ed25519 over :func:`canonical_bytes` of the rest, in base64."""


def canonical_bytes(document: dict[str, Any]) -> bytes:
    """The bytes a heads document's signature is over: the document without ``signature``, as
    JSON with its keys sorted, no whitespace, non-ASCII as is, in UTF-8. (Its values are strings
    and integers only, so this is also its RFC 8785 canonical form.)

    >>> canonical_bytes({"b": 1, "a": "x", "signature": "..."})
    b'{"a":"x","b":1}'
    """
    body = {k: v for k, v in document.items() if k != "signature"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def new_signing_key() -> bytes:
    """A new Ed25519 private key (its 32-byte seed) from the operating system's CSPRNG."""
    return secrets.token_bytes(KEY_BYTES)


def encode_key(key: bytes) -> str:
    """A key as configured and published: standard base64."""
    return base64.b64encode(key).decode("ascii")


def _decode_key(text: str, what: str) -> bytes:
    try:
        key = base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"the {what} must be base64 (of {KEY_BYTES} bytes)") from None
    if len(key) != KEY_BYTES:
        raise ValueError(f"the {what} must be {KEY_BYTES} bytes, not {len(key)}")
    return key


def decode_signing_key(text: str) -> bytes:
    """A configured signing key (``CHOUETTE_SIGNING_KEY`` or its key file): base64 of the 32
    bytes of an Ed25519 private key.

    :raises ValueError: not base64, or not 32 bytes.
    """
    return _decode_key(text, "signing key")


def decode_public_key(text: str) -> bytes:
    """A public key as published: base64 of 32 bytes; or the JSON document of
    ``/.well-known/chouette-signing-key``, whose ``public_key`` it is.

    :raises ValueError: neither.
    """
    if text.lstrip().startswith("{"):
        try:
            doc = json.loads(text)
        except ValueError:
            raise ValueError("the public key file is not JSON") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("public_key"), str):
            raise ValueError("the public key document has no 'public_key'")
        text = doc["public_key"]
    return _decode_key(text, "public key")


def fingerprint(public_key: bytes) -> str:
    """A public key's fingerprint: SHA-256 of its 32 bytes, in hex."""
    return hashlib.sha256(public_key).hexdigest()


class HeadsSigner:
    """Signs heads documents with an Ed25519 private key."""

    def __init__(self, private_key: bytes) -> None:
        self._key = Ed25519PrivateKey.from_private_bytes(private_key)
        self.public_key: bytes = self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.fingerprint = fingerprint(self.public_key)

    def published(self) -> dict[str, str]:
        """The public key as ``/.well-known/chouette-signing-key`` serves it."""
        return {
            "algorithm": "Ed25519",
            "public_key": encode_key(self.public_key),
            "fingerprint": self.fingerprint,
            "format": HEADS_FORMAT,
        }

    def sign(self, document: dict[str, Any]) -> dict[str, Any]:
        """``document`` with this key's fingerprint and its signature."""
        body = {**document, "key": self.fingerprint}
        body.pop("signature", None)
        signature = self._key.sign(canonical_bytes(body))
        return {**body, "signature": base64.b64encode(signature).decode("ascii")}


def parse_heads(data: bytes) -> tuple[HeadsDocument, dict[str, Any]]:
    """A heads document from its JSON, typed and as the plain JSON whose bytes were signed.

    :raises HeadsError: not JSON, or not a heads document (the message says what is wrong).
    """
    try:
        raw = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise HeadsError(f"not JSON ({exc})") from None
    if not isinstance(raw, dict):
        raise HeadsError("not a heads document: a JSON object is expected")
    try:
        document = msgspec.convert(raw, HeadsDocument)
    except msgspec.ValidationError as exc:
        raise HeadsError(f"not a heads document: {exc}") from None
    if document.format != HEADS_FORMAT:
        raise HeadsError(f"not a heads document of format {HEADS_FORMAT!r}: {document.format!r}")
    return document, raw


def verify_heads(raw: dict[str, Any], public_key: bytes) -> None:
    """Check a heads document's signature (and that it names ``public_key``).

    :raises HeadsError: signed by another key, or the signature does not verify (the document
        was changed after it was signed).
    """
    if raw.get("key") != fingerprint(public_key):
        raise HeadsError(
            f"signed by key {str(raw.get('key'))[:16]}..., not by {fingerprint(public_key)[:16]}..."
        )
    try:
        signature = base64.b64decode(str(raw.get("signature", "")), validate=True)
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, canonical_bytes(raw))
    except (binascii.Error, ValueError, InvalidSignature):
        raise HeadsError("the signature does not verify: the document is not as signed") from None


# -- making one ----------------------------------------------------------------------------------

_PARTITIONS: Final = "SELECT partition, head FROM log_partitions ORDER BY partition"
_STREAMS: Final = (
    "SELECT s.stream_id, s.partition, s.version, e.position, e.hash FROM streams s"
    " JOIN events e ON e.stream_id = s.stream_id AND e.version = s.version"
    ' WHERE s.version > 0 ORDER BY s.stream_id COLLATE "C"'
)


async def make_heads(
    store: EventStore,
    running: RunningHashes,
    *,
    streams: bool,
    progress: _Progress = None,
) -> dict[str, Any]:
    """The heads document now, unsigned: every partition's head (and, with ``streams``, every
    stream's), read in one snapshot; then each partition's running hash up to its head.

    :param progress: called with the number of log events read while hashing.
    """
    made_at = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    with translate_errors():
        async with (
            store.pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            heads = [(int(r["partition"]), int(r["head"])) for r in await conn.fetch(_PARTITIONS)]
            rows = await conn.fetch(_STREAMS) if streams else []
    document: dict[str, Any] = {"format": HEADS_FORMAT, "made_at": made_at}
    partitions = []
    for partition, head in heads:
        # Positions up to a head read in the snapshot are committed for good: read them now.
        hashed = await running.extend(store.pool, partition, head, progress)
        partitions.append({"partition": partition, "position": head, "running_hash": hashed.hex()})
    document["partitions"] = partitions
    if streams:
        document["streams"] = [
            {
                "stream": r["stream_id"],
                "partition": int(r["partition"]),
                "version": int(r["version"]),
                "position": int(r["position"]),
                "hash": bytes(r["hash"]).hex(),
            }
            for r in rows
        ]
    return document


# -- checking a database against one -------------------------------------------------------------


class Divergence(msgspec.Struct, frozen=True, kw_only=True):
    """Where the database no longer holds what a heads document saved."""

    partition: int
    position: int
    """The saved position the divergence shows at: a stream's head, or a partition's."""
    reason: str
    stream: str | None = None
    """The stream that diverges (None: a partition only)."""
    version: int | None = None
    """The stream's saved version: its chain no longer ends there in the saved hash."""


_EVENT_AT: Final = "SELECT hash FROM events WHERE stream_id = $1 AND version = $2"


async def check_heads(
    store: EventStore, document: HeadsDocument, progress: _Progress = None
) -> list[Divergence]:
    """Every divergence of the database from a (verified) heads document, the first in the
    log first: streams by the saved position of their head, then partitions.

    For each stream: its event at the saved version must have the saved hash, and its chain must
    verify up to there. For each partition: the log must reach the saved position, and the
    running hash recomputed from the start must equal the saved one there.

    :param progress: called with events read and streams checked.
    """
    found: list[Divergence] = []
    for s in document.streams or []:
        stored = await _fetchval(store, _EVENT_AT, s.stream, s.version)
        if stored is None:
            reason = f"version {s.version} is missing"
        elif bytes(stored).hex() != s.hash.lower():
            reason = f"its event at version {s.version} is not the one saved (another hash)"
        else:
            broken = await store.verify_chain(s.stream)
            reason = ""
            if broken is not None and broken.version <= s.version:
                reason = f"its chain does not hold at version {broken.version}: {broken.reason}"
        if reason:
            found.append(
                Divergence(
                    partition=s.partition,
                    position=s.position,
                    stream=s.stream,
                    version=s.version,
                    reason=reason,
                )
            )
        if progress is not None:
            progress(1)
    heads = await store.partition_heads()
    running = RunningHashes()
    for p in document.partitions:
        head = heads.get(p.partition, 0)
        if head < p.position:
            reason = f"the log ends at position {head}, before the saved {p.position}"
        else:
            try:
                hashed = await running.extend(store.pool, p.partition, p.position, progress)
            except StoreError as exc:
                reason = str(exc)
            else:
                reason = ""
                if hashed.hex() != p.running_hash.lower():
                    reason = f"the running hash at position {p.position} is not the one saved"
        if reason:
            found.append(Divergence(partition=p.partition, position=p.position, reason=reason))
    found.sort(key=lambda d: (d.stream is None, d.partition, d.position))
    return found


async def _fetchval(store: EventStore, query: str, *args: object) -> Any:
    with translate_errors():
        return await store.pool.fetchval(query, *args)
