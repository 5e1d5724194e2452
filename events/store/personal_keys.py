"""Each person's data key (``personal_keys``), which seals what they typed into events, and
its destruction, which erases that from every event without changing a byte of the log
(crypto-shredding: docs/privacy.md).

A data key is 32 random bytes, kept wrapped (AES-256-GCM, bound to its account id) by a master
key the server holds outside the database (:func:`master_key`, derived from the dice seeds'
key, ``CHOUETTE_SEED_KEY``). A sealed value is AES-256-GCM too, bound to its key id, event type
and field: ``{"k": account id, "c": base64(nonce || ciphertext || tag)}``
(:data:`events.domain.types.SEALED_FIELDS`). The hash chain covers those stored bytes, so
neither the chain nor the audit ever needs a key.

A process keeps the keys it has opened (:class:`PersonalKeys`), but trusts them only while
``trusted()`` says it hears the destructions (``pg_notify`` on :data:`KEYS_CHANNEL`, sent as
they commit; the server wires it to its LISTEN connection): otherwise every read asks the
database again. A key destroyed in another process is then forgotten within the notification's
delivery, and reads after the destruction's commit never open it.
"""

from __future__ import annotations

import base64
import binascii
import re
import secrets
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

import asyncpg
import msgspec
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from events.domain import types as e
from events.store.errors import CorruptEventError, StoreError, translate_errors
from events.store.event_store import RecordedEvent

__all__ = [
    "KEYS_CHANNEL",
    "UNOPENED",
    "AccountErasedError",
    "PersonalKeyError",
    "PersonalKeys",
    "Unopened",
    "hold_keys",
    "master_key",
    "owners_of",
]

KEYS_CHANNEL: Final = "chouette_keys"
"""Notified with an account id as the destruction of its data key commits."""

DATA_KEY_BYTES: Final = 32
NONCE_BYTES: Final = 12
WRAP_LABEL: Final = b"chouette-personal-key/v1/"
"""The associated data of a wrapped key: this, then the account id."""
SEAL_LABEL: Final = b"chouette-personal/v1/"
"""The associated data of a sealed value: this, then the key id, ``/``, the type, ``/``, the
field."""
MASTER_INFO: Final = b"chouette-personal-keys/v1"
"""HKDF's info for the master key (so it is never the seed key itself)."""

_KEY_ID = re.compile(rb'\{"k":"([^"\\]*)"')
_OWNER = {
    tag: re.compile(b'"' + owner.encode() + rb'":"([^"\\]*)"')
    for tag, (_, owner) in e.SEALED_FIELDS.items()
}
"""The owner of a personal field stored in the clear, by event type."""


def master_key(seed_key: bytes) -> bytes:
    """The key that wraps every data key, derived from the dice seeds' key (HKDF-SHA256)."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=MASTER_INFO).derive(seed_key)


def _owner_of(rec: RecordedEvent, sealed: set[str], plain: set[str]) -> None:
    """Add the account whose personal value ``rec`` holds: to ``sealed`` when it is sealed
    under their key, to ``plain`` when it is stored in the clear (schema 1)."""
    if e.is_sealed(rec.type, rec.data):
        sealed.update(m.decode("utf-8") for m in _KEY_ID.findall(rec.data))
    elif rec.type in _OWNER:
        found = _OWNER[rec.type].search(rec.data)
        if found is not None:
            plain.add(found.group(1).decode("utf-8"))


def owners_of(records: Iterable[RecordedEvent], types: frozenset[str]) -> set[str]:
    """The accounts whose personal values the records of ``types`` hold, sealed or not."""
    owners: set[str] = set()
    for rec in records:
        if rec.type in types:
            _owner_of(rec, owners, owners)
    return owners


_LOCK_LABEL: Final = "chouette-personal-key:"
_LOCK: Final = (
    "SELECT pg_advisory_xact_lock(hashtextextended($2 || a, 0)) FROM unnest($1::text[]) AS a"
)
_LOCK_SHARED: Final = (
    "SELECT pg_advisory_xact_lock_shared(hashtextextended($2 || a, 0)) FROM unnest($1::text[]) AS a"
)


async def hold_keys(conn: asyncpg.Connection, account_ids: Iterable[str]) -> set[str]:
    """Keep these accounts' keys from being destroyed until ``conn``'s transaction ends, and
    say which of them are destroyed already.

    What a read model writes from values it opened must not outlive their key: an erasure
    destroys the key, then pseudonymises the read models (``server/readmodels/erasure.py``),
    and a write that commits in between would bring the name back. So a writer holds the
    keys it opened with (a shared advisory lock each; :meth:`PersonalKeys.destroy` takes it
    exclusively) and, if one is destroyed by then, writes again from values read anew
    (:meth:`PersonalKeys.forget` first). Either the writer commits first, and the
    pseudonymisation that follows the destruction covers what it wrote, or the destruction
    does, and the writer sees it here: this second statement reads what committed while it
    waited for the lock.
    """
    wanted = sorted(set(account_ids))
    if not wanted:
        return set()
    await conn.execute(_LOCK_SHARED, wanted, _LOCK_LABEL)
    rows = await conn.fetch(
        "SELECT account_id FROM personal_keys WHERE account_id = ANY($1::text[])"
        " AND destroyed_at IS NOT NULL",
        wanted,
    )
    return {r["account_id"] for r in rows}


class PersonalKeyError(StoreError):
    """A data key that does not unwrap with the master key: the seed key was changed or lost,
    or the row was tampered with."""

    def __init__(self, account_id: str) -> None:
        super().__init__(
            f"the data key of {account_id} does not open with the configured seed key"
            " (CHOUETTE_SEED_KEY or the data directory's key file)"
        )
        self.account_id = account_id


class AccountErasedError(StoreError):
    """Something was to be sealed for an account whose key is destroyed (it was erased)."""

    def __init__(self, account_id: str) -> None:
        super().__init__(f"the account {account_id} was erased: nothing more is written for it")
        self.account_id = account_id


class PersonalKeys:
    """The data keys, over ``pool``: made, opened, used and destroyed.

    :param master: the master key (:func:`master_key`).
    :param kept: how many opened keys are kept in memory (least recently used first out).
    """

    def __init__(self, pool: asyncpg.Pool, master: bytes, *, kept: int = 100_000) -> None:
        self._pool = pool
        self._wrap = AESGCM(master)
        self._kept = kept
        self._keys: OrderedDict[str, AESGCM | None] = OrderedDict()
        """Opened keys by account id; None: destroyed."""
        self._missing: set[str] = set()
        """Key ids read and not found (values sealed under them open as erased, and are read
        again each time: a copy of the log without its keys, say)."""
        self._plain: OrderedDict[tuple[str, int], bytes] = OrderedDict()
        """The opened payloads of the sealed events sent to clients lately (:meth:`plain`),
        so that a chat message is opened once, not once per socket; emptied whenever a key is
        destroyed."""
        self.trusted: Callable[[], bool] = lambda: True
        """Whether the keys held may be used without asking the database again (the server:
        while its LISTEN connection hears :data:`KEYS_CHANNEL`)."""

    def __repr__(self) -> str:
        return f"PersonalKeys({len(self._keys)} held)"  # never a key

    # -- keys ------------------------------------------------------------------------------

    def _unwrap(self, account_id: str, wrapped: bytes | None) -> AESGCM | None:
        if wrapped is None:
            return None
        try:
            key = self._wrap.decrypt(
                wrapped[:NONCE_BYTES], wrapped[NONCE_BYTES:], WRAP_LABEL + account_id.encode()
            )
        except InvalidTag:
            raise PersonalKeyError(account_id) from None
        return AESGCM(key)

    def _hold(self, account_id: str, key: AESGCM | None) -> None:
        self._missing.discard(account_id)
        self._keys[account_id] = key
        self._keys.move_to_end(account_id)
        while len(self._keys) > self._kept:
            self._keys.popitem(last=False)

    async def own(self, account_id: str) -> AESGCM:
        """``account_id``'s data key, made (and kept) if it has none yet.

        :raises AccountErasedError: the key was destroyed.
        """
        held = self._keys.get(account_id)
        if held is not None and self.trusted():
            self._keys.move_to_end(account_id)
            return held
        key = secrets.token_bytes(DATA_KEY_BYTES)
        nonce = secrets.token_bytes(NONCE_BYTES)
        wrapped = nonce + self._wrap.encrypt(nonce, key, WRAP_LABEL + account_id.encode())
        with translate_errors():
            # Made once: a key another process made first is the one (never replaced).
            row = await self._pool.fetchrow(
                "WITH made AS (INSERT INTO personal_keys (account_id, wrapped) VALUES ($1, $2)"
                " ON CONFLICT (account_id) DO NOTHING RETURNING wrapped)"
                " SELECT wrapped FROM made UNION ALL"
                " SELECT wrapped FROM personal_keys WHERE account_id = $1"
                " AND NOT EXISTS (SELECT FROM made)",
                account_id,
                wrapped,
            )
            if row is None:
                # Another transaction made it while this one's INSERT waited for it: the
                # statement's snapshot predates that commit, so its row is read again, in a
                # statement of its own (no row here is no key yet, never an erased one).
                row = await self._pool.fetchrow(
                    "SELECT wrapped FROM personal_keys WHERE account_id = $1", account_id
                )
            if row is None:  # rows are never deleted: a store that lost one is broken
                raise StoreError(f"the data key row of {account_id} vanished after its insert")
        stored = row["wrapped"]
        opened = self._unwrap(account_id, None if stored is None else bytes(stored))
        self._hold(account_id, opened)
        if opened is None:
            raise AccountErasedError(account_id)
        return opened

    async def ensure(self, records: Sequence[RecordedEvent]) -> None:
        """Load the keys these records' sealed values need (one query, for those not held, or
        for all while :attr:`trusted` is False), so that :meth:`open` can open them."""
        ids: set[str] = set()
        owners: set[str] = set()
        for rec in records:
            # In the clear (schema 1): whether its owner was erased (:meth:`is_erased`).
            _owner_of(rec, ids, owners)
        if not ids and not owners:
            return
        if self.trusted():
            # A key not found is looked for again when a sealed value needs it (it may have
            # been made since); for a plain field's owner, not finding it is enough.
            ids = {i for i in ids if i not in self._keys}
            owners = {o for o in owners if o not in self._keys and o not in self._missing}
        if ids or owners:
            await self.load(ids | owners)

    async def load(self, account_ids: Iterable[str]) -> None:
        """Read these accounts' keys from the database."""
        wanted = list(account_ids)
        with translate_errors():
            rows = await self._pool.fetch(
                "SELECT account_id, wrapped FROM personal_keys WHERE account_id = ANY($1::text[])",
                wanted,
            )
        found = {r["account_id"]: r["wrapped"] for r in rows}
        for account_id in wanted:
            if account_id not in found:
                if len(self._missing) >= self._kept:
                    self._missing.clear()
                self._missing.add(account_id)
                continue
            stored = found[account_id]
            self._hold(
                account_id, self._unwrap(account_id, None if stored is None else bytes(stored))
            )

    def is_erased(self, account_id: str) -> bool:
        """Whether ``account_id``'s key is known destroyed (loaded by :meth:`ensure`)."""
        return account_id in self._keys and self._keys[account_id] is None

    def is_destroyed(self, account_id: str) -> bool | None:
        """Whether the key held for ``account_id`` is destroyed; None when none is held."""
        if account_id not in self._keys:
            return None
        return self._keys[account_id] is None

    async def destroy(self, account_id: str) -> None:
        """Destroy ``account_id``'s data key, for good (a row is written even when it never had
        one, so that none is ever made for it), and tell every process as it commits."""
        with translate_errors():
            async with self._pool.acquire() as conn, conn.transaction():
                # Not while a read model writes what it opened with this key (:func:`hold_keys`).
                await conn.execute(_LOCK, [account_id], _LOCK_LABEL)
                await conn.execute(
                    "WITH gone AS (INSERT INTO personal_keys (account_id, wrapped, destroyed_at)"
                    " VALUES ($1, NULL, now()) ON CONFLICT (account_id) DO UPDATE"
                    " SET wrapped = NULL, destroyed_at = now()"
                    " WHERE personal_keys.destroyed_at IS NULL RETURNING account_id)"
                    f" SELECT pg_notify('{KEYS_CHANNEL}', account_id) FROM gone",
                    account_id,
                )
        self.forget(account_id)

    def forget(self, account_id: str) -> None:
        """The key of ``account_id`` was destroyed (here, or notified from elsewhere)."""
        self._hold(account_id, None)
        self._plain.clear()

    def clear(self) -> None:
        """Forget every key held (the notifications were not heard for a while)."""
        self._keys.clear()
        self._missing.clear()
        self._plain.clear()

    # -- values ----------------------------------------------------------------------------

    @staticmethod
    def _associated(key_id: str, type_: str, field: str) -> bytes:
        return SEAL_LABEL + f"{key_id}/{type_}/{field}".encode()

    def seal(self, owner: str, type_: str, field: str, text: str) -> dict[str, str]:
        """``text`` sealed under ``owner``'s key, which must be held (:meth:`own`)."""
        key = self._keys.get(owner)
        if key is None:
            raise AccountErasedError(owner) if owner in self._keys else KeyError(owner)
        nonce = secrets.token_bytes(NONCE_BYTES)
        sealed = nonce + key.encrypt(
            nonce, text.encode("utf-8"), self._associated(owner, type_, field)
        )
        return {"k": owner, "c": base64.b64encode(sealed).decode("ascii")}

    def open(self, key_id: str, sealed: str, type_: str, field: str) -> str | None:
        """A value :meth:`seal` made (an :data:`events.domain.types.Opener`); None when its
        key is destroyed.

        :raises msgspec.ValidationError: the value does not open (changed bytes, moved from
            another event's field), or its key was never loaded (:meth:`ensure`: a bug).
        """
        if key_id not in self._keys:
            if key_id in self._missing:
                return None
            raise msgspec.ValidationError(f"the data key {key_id!r} was not loaded to open {type_}")
        key = self._keys[key_id]
        if key is None:
            return None
        try:
            raw = base64.b64decode(sealed, validate=True)
            return key.decrypt(
                raw[:NONCE_BYTES], raw[NONCE_BYTES:], self._associated(key_id, type_, field)
            ).decode("utf-8")
        except (InvalidTag, binascii.Error, ValueError):
            raise msgspec.ValidationError(f"{type_}.{field} does not open with its key") from None

    async def sealer(self, events: Sequence[Any]) -> e.Sealer:
        """A sealer for these events, their owners' keys made or loaded first."""
        for owner in {
            getattr(ev, spec[1])
            for ev in events
            if (spec := e.SEALED_FIELDS.get(e.tag(ev))) is not None and getattr(ev, spec[0])
        }:
            await self.own(owner)
        return self.seal

    PLAIN_KEPT: Final = 4096
    """How many opened payloads :meth:`plain` keeps."""

    def remember(self, rec: RecordedEvent, event: e.Event) -> None:
        """``rec`` was just appended by this process from ``event``, its personal field sealed:
        what :meth:`plain` gives for it is ``event``'s own bytes in the clear, kept now so that
        the streams never open what this process has just sealed. Kept only while the owner's
        key is held (an erasure heard meanwhile, which empties these, is not undone)."""
        spec = e.SEALED_FIELDS.get(rec.type)
        if spec is None or self._keys.get(getattr(event, spec[1])) is None:
            return
        self._plain[(rec.stream_id, rec.version)] = e.encode(event)
        if len(self._plain) > self.PLAIN_KEPT:
            self._plain.popitem(last=False)

    def plain(self, rec: RecordedEvent) -> bytes:
        """The payload to send a client for ``rec``: as stored, or with its sealed field opened
        (the keys it needs loaded: :meth:`ensure`). The chain hash sent with it is the stored
        bytes', which an auditor checks over the log (``GET /log``), ciphertext and all.

        :raises CorruptEventError: the sealed value does not open.
        """
        if rec.type not in e.SEALED_FIELDS:
            return rec.data
        key = (rec.stream_id, rec.version)
        held = self._plain.get(key)
        if held is not None:
            return held
        try:
            event = e.decode(rec.type, rec.schema_version, rec.data, self.open)
        except (msgspec.DecodeError, KeyError, TypeError) as exc:
            raise CorruptEventError(rec.stream_id, rec.version, str(exc)) from exc
        shown = e.forget_plain(event, self.is_erased)
        if shown is event and not e.is_sealed(rec.type, rec.data):
            return rec.data  # in the clear, its owner not erased: as stored
        opened = e.encode(shown)
        self._plain[key] = opened
        if len(self._plain) > self.PLAIN_KEPT:
            self._plain.popitem(last=False)
        return opened


class Unopened:
    """Keys for a reader without the master key (an auditor with a copy of the database): every
    sealed value reads as :data:`SEALED_TEXT`. The rules never depend on what a person typed,
    so the audit checks every event all the same."""

    SEALED_TEXT: Final = "[sealed]"

    async def ensure(self, records: Sequence[RecordedEvent]) -> None:
        return None

    def open(self, key_id: str, sealed: str, type_: str, field: str) -> str | None:
        return self.SEALED_TEXT

    async def sealer(self, events: Sequence[Any]) -> e.Sealer:
        raise StoreError("nothing can be sealed without the master key")

    def plain(self, rec: RecordedEvent) -> bytes:
        return rec.data

    def remember(self, rec: RecordedEvent, event: e.Event) -> None:
        return None

    def is_erased(self, account_id: str) -> bool:
        return False


UNOPENED: Final = Unopened()
"""The keys of a reader without them (the audit)."""
