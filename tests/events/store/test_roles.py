"""Least privilege (issue 12): the server's role cannot switch append-only off nor rewrite the
store, and the hash chain covers each event's command id and time of recording.

The tampering is done as the server's role (``db_url``: ``chouette_test_server``, a member of
``chouette_server``), exactly as the server connects; the ``admin`` fixture (the owner) looks
at what is stored before and after.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from events.domain.dice import SeedCipher
from events.store.chain import event_hash
from events.store.embedded import with_user
from events.store.errors import StoreError
from events.store.event_store import EventStore, NewEvent
from events.store.migrations import SQL_DIR, migrate, pending
from events.store.roles import SERVER_ROLE, is_superuser
from events.store.seed_store import SeedStore

KEY = bytes(range(32))

# Every statement the probes ran, and the rest of what would undo append-only.
TAMPERS = [
    "ALTER TABLE events DISABLE TRIGGER ALL",
    "ALTER TABLE events DISABLE TRIGGER events_append_only",
    "ALTER TABLE commands DISABLE TRIGGER ALL",
    "DROP TRIGGER events_append_only ON events",
    "DROP TRIGGER events_no_truncate ON events",
    "CREATE OR REPLACE FUNCTION reject_change() RETURNS trigger LANGUAGE plpgsql"
    " AS $$ BEGIN RETURN NEW; END; $$",
    "CREATE OR REPLACE FUNCTION keep_dice_seed(p_table_id text, p_game integer, p_seed bytea)"
    " RETURNS TABLE (seed bytea, sealed boolean) LANGUAGE sql AS $$ SELECT p_seed, true $$",
    "ALTER FUNCTION append_batch(integer, text[], bigint[], uuid[], integer[], text[],"
    " integer[], bytea[], text[], bytea[]) SECURITY INVOKER",
    "DROP FUNCTION reject_change() CASCADE",
    "ALTER TABLE events DROP COLUMN hash",
    "ALTER TABLE events OWNER TO chouette_server",
    "DROP TABLE dice_seeds",
    "CREATE TABLE events_copy AS SELECT * FROM events",
    *(
        f"{verb} {table}"
        for table in (
            "events",
            "commands",
            "streams",
            "log_partitions",
            "dice_seeds",
            "projection_checkpoints",
            "projection_skipped",
            "schema_migrations",
        )
        for verb in ("DELETE FROM", "TRUNCATE")
    ),
    "UPDATE events SET data = '{}'",
    "UPDATE events SET command_id = gen_random_uuid()",
    "UPDATE commands SET actor = 'someone else'",
    "UPDATE streams SET version = version + 1",
    "UPDATE log_partitions SET head = head + 1",
    "UPDATE dice_seeds SET seed = 'x'::bytea",
    "UPDATE schema_migrations SET checksum = 'x'",
    "INSERT INTO events SELECT * FROM events LIMIT 0",
    "INSERT INTO streams VALUES ('forged', 0, 0, ''::bytea)",
    "INSERT INTO log_partitions VALUES (7, 0)",
    "INSERT INTO dice_seeds (table_id, game, seed) VALUES ('t', 9, 'x'::bytea)",
    "INSERT INTO commands (command_id, partition, stream_id, first_version, last_version,"
    " recorded_at) VALUES (gen_random_uuid(), 0, 's', 1, 1, now())",
    "SELECT 1 FROM streams FOR UPDATE",
    "SET ROLE postgres",
    "ALTER ROLE chouette_server SUPERUSER",
]


async def _snapshot(admin: asyncpg.Connection) -> list[object]:
    """Everything a tamper could change: the store's rows, the triggers, the functions."""
    out: list[object] = []
    for table in (
        "events",
        "commands",
        "streams",
        "log_partitions",
        "dice_seeds",
        "projection_checkpoints",
        "schema_migrations",
    ):
        out.append([tuple(r) for r in await admin.fetch(f"SELECT * FROM {table} ORDER BY 1, 2")])
    out.append(
        [
            tuple(r)
            for r in await admin.fetch(
                "SELECT tgname, tgenabled, tgfoid::regproc::text FROM pg_trigger"
                " WHERE NOT tgisinternal ORDER BY tgname"
            )
        ]
    )
    out.append(
        [
            tuple(r)
            for r in await admin.fetch(
                "SELECT proname, prosrc, prosecdef, proowner::regrole::text FROM pg_proc"
                " WHERE pronamespace = 'public'::regnamespace ORDER BY proname"
            )
        ]
    )
    return out


@pytest.fixture
async def server_conn(db_url: str) -> AsyncIterator[asyncpg.Connection]:
    """A connection as the server's role."""
    conn = await asyncpg.connect(db_url)
    try:
        yield conn
    finally:
        await conn.close()


async def _fill(store: EventStore, admin: asyncpg.Connection) -> None:
    """A stream, a command, a kept dice seed and a checkpoint, written as the server writes
    them."""
    await store.append(
        "table-t",
        [NewEvent(type="x", data=b'{"n":1}'), NewEvent(type="x", data=b'{"n":2}')],
        expected_version=0,
        command_id=uuid.uuid4(),
    )
    await SeedStore(store.pool, SeedCipher(KEY)).keep("t", 1, bytes(32))
    await store.pool.execute(
        "INSERT INTO projection_checkpoints (name, partition, position) VALUES ('lobby', 0, 2)"
    )


async def test_the_server_role_is_not_the_owner_nor_a_superuser(
    server_conn: asyncpg.Connection,
) -> None:
    assert not await is_superuser(server_conn)
    assert await server_conn.fetchval("SELECT pg_has_role(current_user, $1, 'member')", SERVER_ROLE)
    owners = await server_conn.fetch(
        "SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'"
    )
    assert owners
    for r in owners:
        member = "SELECT pg_has_role(current_user, $1, 'member')"
        assert not await server_conn.fetchval(member, r["tableowner"]), r["tableowner"]


@pytest.mark.parametrize("statement", TAMPERS)
async def test_each_tamper_as_the_server_role_is_refused_and_changes_nothing(
    store: EventStore, admin: asyncpg.Connection, server_conn: asyncpg.Connection, statement: str
) -> None:
    await _fill(store, admin)
    before = await _snapshot(admin)

    with pytest.raises(asyncpg.InsufficientPrivilegeError):
        await server_conn.execute(statement)

    assert await _snapshot(admin) == before
    assert await store.verify_chain("table-t") is None


async def test_the_server_role_still_does_all_it_must(
    store: EventStore, server_conn: asyncpg.Connection
) -> None:
    """Appends, seeds kept and sealed, checkpoints advanced: through the owner's functions or
    its own grants."""
    result = await store.append(
        "s", [NewEvent(type="x", data=b"{}")], expected_version=0, command_id=uuid.uuid4()
    )
    assert (result.first_version, result.first_position) == (1, 1)
    seeds = SeedStore(store.pool, SeedCipher(KEY))
    kept = await seeds.keep("t", 1, b"a" * 32)
    assert await seeds.keep("t", 1, b"b" * 32) == kept == b"a" * 32  # never replaced
    await server_conn.execute(
        "INSERT INTO projection_checkpoints (name, partition, position) VALUES ('p', 0, 0)"
    )
    await server_conn.execute("UPDATE projection_checkpoints SET position = 1 WHERE name = 'p'")
    functions = await server_conn.fetch(
        "SELECT proname, prosecdef, proconfig FROM pg_proc"
        " WHERE proname IN ('append_batch', 'append_events', 'keep_dice_seed', 'seal_dice_seeds')"
    )
    assert len(functions) == 4
    for f in functions:
        assert f["prosecdef"], f["proname"]
        assert any(c.startswith("search_path=pg_catalog, public, pg_temp") for c in f["proconfig"])


async def test_only_clear_seeds_are_sealed_through_the_function(
    store: EventStore, admin: asyncpg.Connection, server_conn: asyncpg.Connection
) -> None:
    await admin.execute(
        "INSERT INTO dice_seeds (table_id, game, seed) VALUES ('old', 1, $1)", bytes(32)
    )
    sealed = await SeedStore(store.pool, SeedCipher(KEY)).keep("new", 1, bytes(32))
    stored_new = await admin.fetchval("SELECT seed FROM dice_seeds WHERE table_id = 'new'")

    changed = await server_conn.fetchval(
        "SELECT seal_dice_seeds($1, $2, $3)", ["old", "new"], [1, 1], [b"s1", b"s2"]
    )

    assert changed == 1  # the clear row only
    assert await admin.fetchval("SELECT seed FROM dice_seeds WHERE table_id = 'old'") == b"s1"
    assert await admin.fetchval("SELECT seed FROM dice_seeds WHERE table_id = 'new'") == stored_new
    assert sealed == bytes(32)


# -- the chain covers command_id and recorded_at ------------------------------------------------


async def _tamper(admin: asyncpg.Connection, statement: str) -> None:
    """As the owner, behind the triggers' back."""
    async with admin.transaction():
        await admin.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
        await admin.execute(statement)
        await admin.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")


@pytest.mark.parametrize(
    "change",
    [
        "command_id = gen_random_uuid()",
        "recorded_at = recorded_at + interval '1 microsecond'",
        "recorded_at = recorded_at - interval '1 day'",
    ],
)
async def test_a_changed_command_id_or_recorded_at_breaks_the_chain(
    store: EventStore, admin: asyncpg.Connection, change: str
) -> None:
    for n in range(3):
        await store.append(
            "s", [NewEvent(type="x", data=b"{}")], expected_version=n, command_id=uuid.uuid4()
        )
    assert await store.verify_chain("s") is None

    await _tamper(admin, f"UPDATE events SET {change} WHERE version = 2")

    broken = await store.verify_chain("s")
    assert broken is not None
    assert (broken.version, broken.reason) == (2, "stored hash does not match the stored event")


async def test_a_version_2_event_passed_off_as_version_1_breaks_the_chain(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    """Marking an event as chain version 1 (which hashes neither command id nor time) and
    recomputing its hash that way is found: a stream's chain versions never go down."""
    for n in range(3):
        await store.append(
            "s", [NewEvent(type="x", data=b"{}")], expected_version=n, command_id=uuid.uuid4()
        )
    rows = await admin.fetch("SELECT * FROM events WHERE stream_id = 's' ORDER BY version")
    r = rows[2]
    v1 = event_hash(r["prev_hash"], "s", 3, r["type"], r["schema_version"], r["data"])
    async with admin.transaction():
        await admin.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
        await admin.execute(
            "UPDATE events SET chain_version = 1, command_id = gen_random_uuid(), hash = $1"
            " WHERE stream_id = 's' AND version = 3",
            v1,
        )
        await admin.execute("UPDATE streams SET head_hash = $1 WHERE stream_id = 's'", v1)
        await admin.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")

    broken = await store.verify_chain("s")

    assert broken is not None
    assert (broken.version, broken.reason) == (3, "chain version 1 after version 2")


def _migrations_up_to(version: int, into: Path) -> Path:
    into.mkdir()
    for path in SQL_DIR.glob("*.sql"):
        if int(path.name.split("_", 1)[0]) <= version:
            shutil.copy(path, into / path.name)
    return into


async def test_events_stored_before_chain_version_2_still_verify_and_the_chain_goes_on(
    empty_db: str, tmp_path: Path
) -> None:
    """The upgrade: events appended under migration 015 are chain version 1 and verify as
    such; appends after 016 are version 2 on the same streams."""
    owner = await asyncpg.connect(empty_db)
    try:
        await migrate(owner, directory=_migrations_up_to(15, tmp_path / "sql"))
        for n in range(2):
            await owner.execute(
                "SELECT append_events('s', 0, $1, $2, ARRAY['x'], ARRAY[1], ARRAY['{}'::bytea])",
                n,
                uuid.uuid4(),
            )
        applied = await migrate(owner)  # 016 first, then any later migration
        assert applied[0] == "016_server_role_and_chain_v2.sql"
        assert all(name > applied[0] for name in applied[1:])
    finally:
        await owner.close()
    store = await EventStore.connect(with_user(empty_db, "chouette_test_server"), min_size=1)
    try:
        assert await store.verify_chain("s") is None
        await store.append(
            "s", [NewEvent(type="x", data=b"{}")], expected_version=2, command_id=uuid.uuid4()
        )
        versions = await store.pool.fetch(
            "SELECT version, chain_version FROM events WHERE stream_id = 's' ORDER BY version"
        )
        assert [tuple(r) for r in versions] == [(1, 1), (2, 1), (3, 2)]
        assert await store.verify_chain("s") is None
    finally:
        await store.close()


async def test_the_server_role_cannot_migrate_and_says_who_must(empty_db: str) -> None:
    conn = await asyncpg.connect(with_user(empty_db, "chouette_test_server"))
    try:
        assert len(await pending(conn)) == len(list(SQL_DIR.glob("*.sql")))
        with pytest.raises(StoreError, match="run `chouette migrate` as the tables' owner"):
            await migrate(conn)
    finally:
        await conn.close()
