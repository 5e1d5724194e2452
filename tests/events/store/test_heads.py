"""Chain heads kept outside the database (issue 12, finding 4).

The heads of a database are saved (``chouette heads``), then one table is rewritten as a
superuser could: its games played again with other seeds, recorded by the store's own append
function, so that its chain, its dice, its commands and its log positions are all as the store
would have written them. The store's chain check and the ordinary audit find nothing; ``audit
--against`` the saved heads names the table's stream. Bad heads files and signatures are one
line on stderr and exit status 2.
"""

from __future__ import annotations

import asyncio
import base64
import json
import random
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from events.records.audit_scan import audit_all
from events.records.simulate import simulate_table
from events.store.chain import ZERO_HASH
from events.store.embedded import with_database
from events.store.event_store import EventStore, stable_partition
from events.store.heads import (
    HeadsError,
    HeadsSigner,
    RunningHashes,
    check_heads,
    encode_key,
    make_heads,
    parse_heads,
    running_hash,
    verify_heads,
)
from events.store.streams import append_steps, table_stream
from server.cli.main import main

KEY = bytes(range(1, 33))
"""The signing key of these tests (``CHOUETTE_SIGNING_KEY``)."""


@pytest.fixture(autouse=True)
def _signing_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHOUETTE_SIGNING_KEY", encode_key(KEY))


def _table_in(partition: int, partitions: int = 2, start: int = 1) -> str:
    """A table id whose stream goes to ``partition``."""
    n = start
    while stable_partition(table_stream(str(uuid.UUID(int=n))), partitions) != partition:
        n += 1
    return str(uuid.UUID(int=n))


async def _record(store: EventStore, table_id: str, seed: int) -> None:
    table = simulate_table(table_id, games=2, rng=random.Random(seed))
    await append_steps(store, table_id, [step.events for step in table.steps])


@pytest.fixture
async def two_partitions(pool: asyncpg.Pool, db_url: str) -> AsyncIterator[EventStore]:
    store = EventStore(pool, partitions=2, dsn=db_url)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def scratch_url(
    db_url: str, server_url: str, database_factories: dict[str, Any]
) -> AsyncIterator[str]:
    """A second fresh database, where the rewritten table is recorded."""
    databases = database_factories[server_url]  # made for db_url
    name = await databases.create()
    try:
        yield with_database(server_url, name)
    finally:
        await databases.drop(name)


async def _cli(*argv: str) -> int:
    # The command runs its own event loop: in a thread, off this test's loop.
    return await asyncio.to_thread(main, list(argv))


async def _save_heads(db_url: str, path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert await _cli("heads", "--database-url", db_url) == 0
    path.write_text(capsys.readouterr().out, encoding="utf-8")


async def _rewrite(admin: asyncpg.Connection, scratch_url: str, stream: str) -> None:
    """Replace ``stream`` (alone in its partition) by the scratch database's, row for row, as
    its append function wrote it there: every column copied, whatever the chain hashes."""
    scratch = await asyncpg.connect(scratch_url)
    try:
        events = await scratch.fetch("SELECT * FROM events WHERE stream_id = $1", stream)
        commands = await scratch.fetch("SELECT * FROM commands WHERE stream_id = $1", stream)
        head = await scratch.fetchrow("SELECT * FROM streams WHERE stream_id = $1", stream)
        partition = events[0]["partition"]
        position = await scratch.fetchval(
            "SELECT head FROM log_partitions WHERE partition = $1", partition
        )
    finally:
        await scratch.close()
    assert head is not None

    async def insert(table: str, rows: list[Any]) -> None:
        columns = list(rows[0].keys())
        marks = ", ".join(f"${i}" for i in range(1, len(columns) + 1))
        await admin.executemany(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})",
            [tuple(r.values()) for r in rows],
        )

    async with admin.transaction():
        await admin.execute("ALTER TABLE events DISABLE TRIGGER ALL")
        await admin.execute("ALTER TABLE commands DISABLE TRIGGER ALL")
        await admin.execute("DELETE FROM events WHERE stream_id = $1", stream)
        await admin.execute("DELETE FROM commands WHERE stream_id = $1", stream)
        await admin.execute("DELETE FROM streams WHERE stream_id = $1", stream)
        await insert("events", events)
        await insert("commands", commands)
        await insert("streams", [head])
        await admin.execute(
            "UPDATE log_partitions SET head = $1 WHERE partition = $2", position, partition
        )
        await admin.execute("ALTER TABLE events ENABLE TRIGGER ALL")
        await admin.execute("ALTER TABLE commands ENABLE TRIGGER ALL")


async def test_a_consistent_rewrite_of_one_table_is_found_by_no_check_but_the_saved_heads(
    two_partitions: EventStore,
    admin: asyncpg.Connection,
    db_url: str,
    scratch_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = two_partitions
    kept, rewritten = _table_in(0), _table_in(1)
    await _record(store, kept, 1)
    await _record(store, rewritten, 2)
    saved = tmp_path / "heads.json"
    await _save_heads(db_url, saved, capsys)
    # Before any rewrite, the database holds what was saved.
    assert await _cli("audit", "--against", str(saved), "--database-url", db_url) == 0
    assert "all hold" in capsys.readouterr().out

    # The same table played again with other seeds, by the store itself, elsewhere; copied in.
    scratch = await EventStore.connect(scratch_url, partitions=2, min_size=1, max_size=2)
    try:
        await _record(scratch, rewritten, 3)
    finally:
        await scratch.close()
    stream = table_stream(rewritten)
    head = "SELECT head_hash FROM streams WHERE stream_id = $1"
    before = await admin.fetchval(head, stream)
    await _rewrite(admin, scratch_url, stream)
    assert await admin.fetchval(head, stream) != before

    # Nothing else notices: the chain holds, the rules and the dice check, the log is dense.
    assert await store.verify_chain(stream) is None
    assert await store.verify_chain(table_stream(kept)) is None
    result = await audit_all(store)
    assert not result.failed, result.tables
    assert {r.table_id for r in result.tables} == {kept, rewritten}

    status = await _cli("audit", "--against", str(saved), "--database-url", db_url)
    out = capsys.readouterr().out
    assert status == 1
    lines = out.splitlines()
    assert lines[0].startswith(f"stream {stream} version ")
    assert "DIVERGES" in lines[0]
    assert table_stream(kept) not in out
    assert lines[-1].endswith(f"the first {stream}")

    status = await _cli("audit", "--against", str(saved), "--json", "--database-url", db_url)
    doc = json.loads(capsys.readouterr().out)
    assert status == 1 and doc["status"] == "failed"
    first = doc["divergences"][0]
    assert first["stream"] == stream and first["partition"] == 1
    # The rewrite also shows in partition 1's running hash, and in nothing of partition 0.
    assert {(d["stream"], d["partition"]) for d in doc["divergences"]} == {
        (stream, 1),
        (None, 1),
    }


async def test_heads_name_every_partition_and_stream_and_extend_incrementally(
    two_partitions: EventStore,
) -> None:
    store = two_partitions
    a, b = _table_in(0), _table_in(1)
    await _record(store, a, 4)
    running = RunningHashes()
    first = await make_heads(store, running, streams=True)
    assert [p["partition"] for p in first["partitions"]] == [0]
    await _record(store, b, 5)
    read: list[int] = []
    second = await make_heads(store, running, streams=True, progress=read.append)
    heads = await store.partition_heads()
    # Only partition 1's events were read the second time: partition 0 had not moved.
    assert sum(read) == heads[1]
    assert {p["partition"]: p["position"] for p in second["partitions"]} == heads
    # The same as computed from scratch, by the definition.
    fresh = await make_heads(store, RunningHashes(), streams=True)
    assert fresh["partitions"] == second["partitions"]
    expected = ZERO_HASH
    for event in await store.read_log(1, 0, 10_000):
        assert event.hash is not None
        expected = running_hash(
            expected, event.position, event.stream_id, event.version, event.hash
        )
    assert second["partitions"][1]["running_hash"] == expected.hex()
    streams = {s["stream"]: s for s in second["streams"]}
    assert set(streams) == {table_stream(a), table_stream(b)}
    for name, s in streams.items():
        version = await store.stream_version(name)
        assert s["version"] == version
        assert s["hash"] == (await store.chain_head(name, version) or b"").hex()


async def test_the_signature_covers_every_field(tmp_path: Path) -> None:
    signer = HeadsSigner(KEY)
    document = signer.sign(
        {
            "format": "chouette-heads/1",
            "made_at": "2026-11-30T00:00:00Z",
            "partitions": [{"partition": 0, "position": 3, "running_hash": "ab" * 32}],
        }
    )
    verify_heads(document, signer.public_key)
    for field, value in (
        ("made_at", "2026-11-30T00:00:01Z"),
        ("partitions", [{"partition": 0, "position": 2, "running_hash": "ab" * 32}]),
        ("streams", []),
    ):
        with pytest.raises(HeadsError, match="does not verify"):
            verify_heads({**document, field: value}, signer.public_key)
    other = HeadsSigner(bytes(32))
    with pytest.raises(HeadsError, match="signed by key"):
        verify_heads(document, other.public_key)
    with pytest.raises(HeadsError, match="does not verify"):
        verify_heads({**document, "key": other.fingerprint}, other.public_key)


async def test_a_partition_cut_short_is_named(store: EventStore, admin: asyncpg.Connection) -> None:
    table_id = str(uuid.uuid4())
    await _record(store, table_id, 6)
    document, _ = parse_heads(
        json.dumps(
            HeadsSigner(KEY).sign(await make_heads(store, RunningHashes(), streams=True))
        ).encode()
    )
    head = (await store.partition_heads())[0]
    stream = table_stream(table_id)
    async with admin.transaction():
        await admin.execute("ALTER TABLE events DISABLE TRIGGER ALL")
        await admin.execute("DELETE FROM events WHERE partition = 0 AND position = $1", head)
        await admin.execute("UPDATE log_partitions SET head = head - 1")
        await admin.execute(
            "UPDATE streams SET version = version - 1, head_hash = (SELECT hash FROM events"
            " WHERE stream_id = $1 AND version = streams.version - 1) WHERE stream_id = $1",
            stream,
        )
        await admin.execute("ALTER TABLE events ENABLE TRIGGER ALL")
    found = await check_heads(store, document)
    assert [(d.stream, d.version) for d in found] == [(stream, head), (None, None)]
    assert "missing" in found[0].reason
    assert f"ends at position {head - 1}" in found[1].reason


# -- bad input: one line, exit status 2 ---------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "cannot read it"),
        (b"{not json", "not JSON"),
        (b"[1, 2]", "a JSON object is expected"),
        (b'{"format": "chouette-heads/1"}', "not a heads document"),
        (b"\xff\xfe\x00", "not JSON"),
    ],
)
async def test_a_bad_heads_file_is_one_line_and_status_2(
    db_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: bytes | None,
    says: str,
) -> None:
    path = tmp_path / "heads.json"
    if content is not None:
        path.write_bytes(content)
    status = await _cli("audit", "--against", str(path), "--database-url", db_url)
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("chouette audit: ") and says in err
    assert "Traceback" not in err


async def test_a_bad_signature_is_one_line_and_status_2(
    store: EventStore, db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await _record(store, str(uuid.uuid4()), 7)
    saved = tmp_path / "heads.json"
    await _save_heads(db_url, saved, capsys)
    doc = json.loads(saved.read_text())
    doc["partitions"][0]["position"] -= 1
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(doc))
    status = await _cli("audit", "--against", str(forged), "--database-url", db_url)
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "signature does not verify" in err

    # Given another public key (as published), the saved heads are not its.
    published = tmp_path / "key.json"
    published.write_text(json.dumps(HeadsSigner(bytes(32)).published()))
    status = await _cli(
        "audit", "--against", str(saved), "--public-key", str(published), "--database-url", db_url
    )
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "signed by key" in err

    # The right one, as bare base64, verifies.
    bare = tmp_path / "key.txt"
    bare.write_text(base64.b64encode(HeadsSigner(KEY).public_key).decode())
    status = await _cli(
        "audit", "--against", str(saved), "--public-key", str(bare), "--database-url", db_url
    )
    assert status == 0, capsys.readouterr().err

    status = await _cli("audit", "--all", "--public-key", str(bare), "--database-url", db_url)
    err = capsys.readouterr().err
    assert status == 2 and err == "chouette audit: --public-key goes with --against\n"

    junk = tmp_path / "junk.txt"
    junk.write_text("not a key")
    status = await _cli(
        "audit", "--against", str(saved), "--public-key", str(junk), "--database-url", db_url
    )
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "public key must be base64" in err


async def test_heads_without_a_signing_key_refuse(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("CHOUETTE_SIGNING_KEY")
    data_dir = str(tmp_path / "data")
    status = await _cli("heads", "--database-url", db_url, "--data-dir", data_dir)
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "no signing key" in err
    assert not (tmp_path / "data-keys").exists()  # the command never makes a key of its own


async def test_heads_of_a_log_with_a_hole_name_it_in_one_line(
    store: EventStore, db_url: str, admin: asyncpg.Connection, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not "database unavailable": the running hash meets the hole and says where it is."""
    await _record(store, str(uuid.uuid4()), 3)
    async with admin.transaction():
        await admin.execute("ALTER TABLE events DISABLE TRIGGER ALL")
        await admin.execute("DELETE FROM events WHERE partition = 0 AND position = 2")
        await admin.execute("ALTER TABLE events ENABLE TRIGGER ALL")
    status = await _cli("heads", "--database-url", db_url)
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    assert captured.err == (
        "chouette heads: log partition 0 has no event at position 2 (the next stored is 3)\n"
    )
