"""Each person's data key (issue 31; docs/privacy.md): made once, kept wrapped by the master
key, opened after a restart, destroyed for good — for this process, for a process started
afterwards, and for another process that held it.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import uuid
from datetime import UTC, datetime

import asyncpg
import msgspec
import pytest

from events.domain import types as e
from events.store.event_store import EventStore, RecordedEvent
from events.store.personal_keys import (
    KEYS_CHANNEL,
    AccountErasedError,
    PersonalKeyError,
    PersonalKeys,
    master_key,
)
from events.store.streams import append_events

MASTER = master_key(bytes(range(32)))


def record(stream: str, type_: str, data: bytes) -> RecordedEvent:
    return RecordedEvent(stream, 1, 0, 1, type_, 2, data, uuid.uuid4(), datetime.now(UTC))


def sealed_record(keys: PersonalKeys, owner: str, text: str) -> RecordedEvent:
    """A stored chat event sealed under ``owner``'s key, as the store would read it back."""
    data = e.encode(e.ChatPosted(player=owner, text=text), keys.seal)
    return record("chat-t", "chat_posted", data)


def opened(keys: PersonalKeys, rec: RecordedEvent) -> str:
    ev = e.decode(rec.type, rec.schema_version, rec.data, keys.open)
    assert isinstance(ev, e.ChatPosted)
    return ev.text


async def test_a_key_is_made_once_and_kept_wrapped(pool: asyncpg.Pool) -> None:
    keys = PersonalKeys(pool, MASTER)
    await keys.own("u_ann")
    await keys.own("u_ann")
    rows = await pool.fetch("SELECT account_id, wrapped, destroyed_at FROM personal_keys")
    assert [(r["account_id"], r["destroyed_at"]) for r in rows] == [("u_ann", None)]
    wrapped = bytes(rows[0]["wrapped"])
    assert len(wrapped) == 12 + 32 + 16  # nonce, the key, the tag: never the key alone

    rec = sealed_record(keys, "u_ann", "meet me at noon")
    assert b"noon" not in rec.data and e.SEALED_MARK in rec.data
    # Another process (or a restart): a ring of its own opens it after loading the key, and
    # one that another process races to make finds the same key.
    other = PersonalKeys(pool, MASTER)
    await other.own("u_ann")
    assert opened(other, rec) == "meet me at noon"
    assert bytes(await pool.fetchval("SELECT wrapped FROM personal_keys")) == wrapped
    fresh = PersonalKeys(pool, MASTER)
    await fresh.ensure([rec])
    assert opened(fresh, rec) == "meet me at noon"

    # Another master key does not unwrap it.
    wrong = PersonalKeys(pool, master_key(bytes(32)))
    with pytest.raises(PersonalKeyError, match="u_ann"):
        await wrong.ensure([rec])


async def test_a_sealed_value_opens_only_where_it_was_sealed(pool: asyncpg.Pool) -> None:
    keys = PersonalKeys(pool, MASTER)
    await keys.own("u_ann")
    await keys.own("u_bob")
    rec = sealed_record(keys, "u_ann", "hello")
    raw = msgspec.json.decode(rec.data)
    # Moved to another owner's event, or to another field, or changed: refused, not obeyed.
    moved = dict(raw, player="u_bob")
    with pytest.raises(msgspec.ValidationError, match="owner"):
        e.decode("chat_posted", 2, msgspec.json.encode(moved), keys.open)
    joined = {"type": "player_joined", "player": "u_ann", "display_name": raw["text"]}
    with pytest.raises(msgspec.ValidationError, match="does not open"):
        e.decode("player_joined", 2, msgspec.json.encode(joined), keys.open)
    c = raw["text"]["c"]
    flipped = dict(raw, text=dict(raw["text"], c=("B" if c[0] == "A" else "A") + c[1:]))
    with pytest.raises(msgspec.ValidationError):
        e.decode("chat_posted", 2, msgspec.json.encode(flipped), keys.open)
    # Without keys at all, a sealed value is an error, never its ciphertext shown as text.
    with pytest.raises(msgspec.ValidationError, match="no keys"):
        e.decode("chat_posted", 2, rec.data)
    # A plain payload (schema 1, or a tool's) reads as it is.
    plain = e.encode(e.ChatPosted(player="u_ann", text="plain"))
    assert e.decode("chat_posted", 1, plain).text == "plain"  # type: ignore[attr-defined]
    assert e.decode("chat_posted", 2, plain, keys.open).text == "plain"  # type: ignore[attr-defined]


async def test_destroyed_for_good_and_after_a_restart(
    pool: asyncpg.Pool, admin: asyncpg.Connection
) -> None:
    keys = PersonalKeys(pool, MASTER)
    await keys.own("u_ann")
    rec = sealed_record(keys, "u_ann", "my secret")
    joined = e.encode(e.PlayerJoined(player="u_ann", display_name="Ann Smith"), keys.seal)
    await keys.destroy("u_ann")
    assert opened(keys, rec) == e.ERASED_TEXT
    row = await pool.fetchrow("SELECT wrapped, destroyed_at FROM personal_keys")
    assert row["wrapped"] is None and row["destroyed_at"] is not None
    with pytest.raises(AccountErasedError):
        await keys.own("u_ann")

    # A restart: a new ring reads the destruction.
    restarted = PersonalKeys(pool, MASTER)
    await restarted.ensure([rec, record("table-t", "player_joined", joined)])
    assert opened(restarted, rec) == e.ERASED_TEXT
    ev = e.decode("player_joined", 2, joined, restarted.open)
    assert ev == e.PlayerJoined(player="u_ann", display_name=e.pseudonym("u_ann"))
    with pytest.raises(AccountErasedError):
        await restarted.own("u_ann")

    # Never brought back, never deleted, not even by the tables' owner.
    for sql in (
        "UPDATE personal_keys SET wrapped = 'x'::bytea, destroyed_at = NULL",
        "DELETE FROM personal_keys",
        "TRUNCATE personal_keys",
    ):
        with pytest.raises(asyncpg.PostgresError):
            await admin.execute(sql)
    with pytest.raises(asyncpg.PostgresError):
        await pool.execute("DELETE FROM personal_keys")  # no grant either

    # An account that never sealed anything gets a destroyed row: no key is made for it later.
    await keys.destroy("u_never")
    with pytest.raises(AccountErasedError):
        await PersonalKeys(pool, MASTER).own("u_never")


async def test_another_process_destroys_a_key_held_here(pool: asyncpg.Pool, db_url: str) -> None:
    keys = PersonalKeys(pool, MASTER)
    await keys.own("u_ann")
    rec = sealed_record(keys, "u_ann", "see you")
    await keys.ensure([rec])
    heard: asyncio.Queue[str] = asyncio.Queue()
    listener = await asyncpg.connect(db_url)
    await listener.add_listener(KEYS_CHANNEL, lambda *args: heard.put_nowait(args[3]))
    try:
        script = textwrap.dedent(
            """
            import asyncio, sys
            import asyncpg
            from events.store.personal_keys import PersonalKeys, master_key

            async def main():
                pool = await asyncpg.create_pool(sys.argv[1], min_size=1, max_size=1)
                await PersonalKeys(pool, master_key(bytes(range(32)))).destroy("u_ann")
                await pool.close()

            asyncio.run(main())
            """
        )
        env = dict(os.environ)
        done = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-c", script, db_url],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        assert done.returncode == 0, done.stderr
        # Trusted while listening: the notification is what makes it forget (the server
        # wires its LISTEN connection so); until then it would still open the value.
        assert opened(keys, rec) == "see you"
        keys.forget(await asyncio.wait_for(heard.get(), 5))
        assert opened(keys, rec) == e.ERASED_TEXT
        # Not trusted (its destructions not heard): each read asks the database again.
        unheard = PersonalKeys(pool, MASTER)
        unheard.trusted = lambda: False
        await unheard.ensure([rec])
        assert opened(unheard, rec) == e.ERASED_TEXT
    finally:
        await listener.close()


async def test_a_key_made_meanwhile_by_another_process_is_the_one(
    pool: asyncpg.Pool, db_url: str
) -> None:
    """Regression: two processes making one account's first key at once. The second one's
    insert waits for the first's commit and does nothing; the row it then reads must be the
    first's key, not taken for a destroyed one (the statement's snapshot predates that commit,
    which read as no key: the account was taken as erased, and its table creations failed)."""
    conn = await asyncpg.connect(db_url)
    try:
        first = conn.transaction()
        await first.start()
        # One process makes the key in a transaction not yet committed...
        ring_a = PersonalKeys(conn, MASTER)  # type: ignore[arg-type]
        await ring_a.own("u_bob")
        # ... while another makes it too: its insert waits for the first's commit.
        ring_b = PersonalKeys(pool, MASTER)
        making = asyncio.create_task(ring_b.own("u_bob"))
        await asyncio.sleep(0.3)
        assert not making.done()
        await first.commit()
        await making
    finally:
        await conn.close()
    assert not ring_b.is_erased("u_bob")
    # Both hold the one key: what one seals, the other opens.
    assert opened(ring_b, sealed_record(ring_a, "u_bob", "same key")) == "same key"
    rows = await pool.fetch("SELECT account_id FROM personal_keys")
    assert [r["account_id"] for r in rows] == ["u_bob"]


async def test_what_was_just_sealed_is_sent_as_opening_it_would_give(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    """The streams send a chat line this process has just sealed without opening it
    (:meth:`PersonalKeys.remember`): the very bytes that opening it gives, and not once its
    writer's key is destroyed."""
    keys = PersonalKeys(pool, MASTER)
    store.keys = keys
    posted = e.ChatPosted(player="u_ann", text="see you at the club", at=5)
    result = await append_events(
        store, "chat-t", [posted], expected_version=0, command_id=uuid.uuid4(), actor="u_ann"
    )
    rec = result.events[0]
    assert b"see you at the club" not in bytes(rec.data)
    remembered = keys.plain(rec)
    fresh = PersonalKeys(pool, MASTER)  # another process: it must open it
    await fresh.ensure([rec])
    assert remembered == fresh.plain(rec)
    assert msgspec.json.decode(remembered)["text"] == "see you at the club"
    await keys.destroy("u_ann")
    assert msgspec.json.decode(keys.plain(rec))["text"] == e.ERASED_TEXT
