"""The secret dice seeds at rest and in memory (issue 11, finding 8; docs/dice.md, "Where the
seed is kept").

- Seeds are kept encrypted (AES-256-GCM, bound to their table and game) with a key from the
  configuration, or from a key file generated once (mode 0600) in the data directory.
- Rows kept in the clear before that are still read, and sealed when met or at start-up.
- A seed that does not open with the key, or that is not the one the game committed to, is
  refused: nothing is decided, nothing written.
- The service's caches stay within their bound, its per-table locks go when idle, and per table
  it keeps only the seeds of the game in play and the next.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import os
import stat
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from events.domain import commands as c
from events.domain import dice
from events.domain.dice import SeedCipher
from events.service import TableService
from events.store.event_store import EventStore
from events.store.seed_store import SeedKeyError, SeedMismatchError, SeedStore
from events.store.streams import table_stream
from server.app import create_app
from server.config import SEED_KEY_FILE, Config, load_seed_key, seed_key_path
from server.metrics import Metrics

KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))


def service(store: EventStore, key: bytes = KEY, **kwargs: Any) -> TableService:
    return TableService(store, Metrics(), seeds=SeedStore(store.pool, SeedCipher(key)), **kwargs)


async def started(tables: TableService, table_id: str | None = None) -> str:
    """A money table whose game 1 has started (its seed kept)."""
    table_id = table_id or str(uuid.uuid4())
    for actor, command in (
        ("p-ann", c.CreateTable(kind="money")),
        ("p-ann", c.Join()),
        ("p-bob", c.Join()),
    ):
        await tables.execute(table_id, actor, command, uuid.uuid4())
    return table_id


async def row(pool: asyncpg.Pool, table_id: str, game: int = 1) -> asyncpg.Record:
    found = await pool.fetchrow(
        "SELECT seed, sealed FROM dice_seeds WHERE table_id = $1 AND game = $2", table_id, game
    )
    assert found is not None
    return found


# -- at rest ------------------------------------------------------------------------------------


async def test_seeds_are_kept_encrypted(store: EventStore) -> None:
    tables = service(store)
    table_id = await started(tables)
    state = await tables.state(table_id)
    kept = await row(store.pool, table_id)
    assert kept["sealed"] is True
    sealed = bytes(kept["seed"])
    assert len(sealed) == dice.NONCE_BYTES + dice.SEED_BYTES + 16  # nonce, seed, GCM tag
    seed = SeedCipher(KEY).open(table_id, 1, sealed)
    assert dice.commitment(seed) == state.commitment
    assert seed not in sealed and hashlib.sha256(sealed).hexdigest() != state.commitment
    # Bound to its table and game, and useless without the key.
    with pytest.raises(ValueError):
        SeedCipher(KEY).open(table_id, 2, sealed)
    with pytest.raises(ValueError):
        SeedCipher(KEY).open(str(uuid.uuid4()), 1, sealed)
    with pytest.raises(SeedKeyError):
        await SeedStore(store.pool, SeedCipher(OTHER_KEY)).load(table_id)
    # Each sealing draws a fresh nonce: one seed never gives the same bytes twice.
    assert SeedCipher(KEY).seal(table_id, 1, seed) != SeedCipher(KEY).seal(table_id, 1, seed)


async def test_clear_rows_from_before_are_read_and_sealed(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    tables = service(store)
    table_id = await started(tables)
    seed = await SeedStore(store.pool, SeedCipher(KEY)).load(table_id)
    # As a row written before seeds were encrypted: the clear seed, not sealed.
    await admin.execute(
        "UPDATE dice_seeds SET seed = $2, sealed = false WHERE table_id = $1", table_id, seed[1]
    )
    other = str(uuid.uuid4())
    await admin.execute(
        "INSERT INTO dice_seeds (table_id, game, seed) VALUES ($1, 1, $2)", other, bytes(32)
    )
    # A fresh process plays on with it, and seals it on the way.
    fresh = service(store)
    await fresh.execute(table_id, "p-ann", c.Roll(), uuid.uuid4())
    kept = await row(store.pool, table_id)
    assert kept["sealed"] and SeedCipher(KEY).open(table_id, 1, bytes(kept["seed"])) == seed[1]
    # At start-up every row still in the clear is sealed.
    assert (await row(store.pool, other))["sealed"] is False
    assert await SeedStore(store.pool, SeedCipher(KEY)).seal_legacy() == 1
    assert await SeedStore(store.pool, SeedCipher(KEY)).seal_legacy() == 0
    assert await SeedStore(store.pool, SeedCipher(KEY)).load(other) == {1: bytes(32)}
    assert await store.pool.fetchval("SELECT count(*) FROM dice_seeds WHERE NOT sealed") == 0


async def test_a_seed_that_is_not_the_committed_one_decides_nothing(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    table_id = await started(service(store))
    version = await store.stream_version(table_stream(table_id))
    # Someone with the key replaced the kept seed after the commitment was published.
    forged = SeedCipher(KEY).seal(table_id, 1, bytes(32))
    await admin.execute(
        "UPDATE dice_seeds SET seed = $2 WHERE table_id = $1 AND game = 1", table_id, forged
    )
    fresh = service(store)
    with pytest.raises(SeedMismatchError, match="does not match the game's published commitment"):
        await fresh.execute(table_id, "p-ann", c.Roll(), uuid.uuid4())
    assert await store.stream_version(table_stream(table_id)) == version


async def test_a_seed_under_another_key_decides_nothing(store: EventStore) -> None:
    table_id = await started(service(store))
    version = await store.stream_version(table_stream(table_id))
    with pytest.raises(SeedKeyError, match="CHOUETTE_SEED_KEY"):
        await service(store, OTHER_KEY).execute(table_id, "p-ann", c.Roll(), uuid.uuid4())
    assert await store.stream_version(table_stream(table_id)) == version


def test_the_fair_dice_need_a_seed_store(store: EventStore) -> None:
    with pytest.raises(ValueError, match="seed store"):
        TableService(store, Metrics())


# -- the key ------------------------------------------------------------------------------------


def test_the_key_file_is_generated_once_private_and_read_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = Config(data_dir=tmp_path / "pgdata")
    with caplog.at_level(logging.INFO, "chouette.server"):
        key = load_seed_key(config)
    path = tmp_path / "pgdata" / SEED_KEY_FILE
    assert len(key) == 32 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert str(path.resolve()) in caplog.text
    assert load_seed_key(config) == key
    assert dice.decode_seed_key(path.read_text()) == key
    # With DATABASE_URL the key belongs in the configuration: the log says where it is instead,
    # a file beside the data directory, which stays empty for an embedded database later.
    caplog.clear()
    beside = Config(data_dir=tmp_path / "fresh", database_url="postgresql://x")
    with caplog.at_level(logging.WARNING, "chouette.server"):
        assert load_seed_key(beside)
    elsewhere = tmp_path / "fresh-keys" / SEED_KEY_FILE
    assert seed_key_path(beside) == elsewhere and elsewhere.is_file()
    assert "CHOUETTE_SEED_KEY is not set" in caplog.text and str(elsewhere.resolve()) in caplog.text
    assert not (tmp_path / "fresh").exists()
    # A configured key wins, and no file is made for it.
    assert load_seed_key(Config(data_dir=tmp_path / "none", seed_key=KEY)) == KEY
    assert not (tmp_path / "none").exists()


def test_processes_starting_together_agree_on_one_key(tmp_path: Path) -> None:
    config = Config(data_dir=tmp_path / "shared")

    async def all_at_once() -> list[bytes]:
        loads = [asyncio.to_thread(load_seed_key, config) for _ in range(8)]
        return list(await asyncio.gather(*loads))

    keys = asyncio.run(all_at_once())
    assert len(set(keys)) == 1
    assert os.listdir(tmp_path / "shared") == [SEED_KEY_FILE]  # no temporary file left


def test_the_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHOUETTE_SEED_KEY", base64.b64encode(KEY).decode())
    config = Config.from_env()
    assert config.seed_key == KEY
    assert str(KEY) not in repr(config) and base64.b64encode(KEY).decode() not in repr(config)
    for bad in ("not base64!", base64.b64encode(bytes(16)).decode()):
        monkeypatch.setenv("CHOUETTE_SEED_KEY", bad)
        with pytest.raises(ValueError, match="seed key"):
            Config.from_env()


async def test_the_server_seals_seeds_with_the_key_in_its_data_dir(
    db_url: str, store: EventStore, admin: asyncpg.Connection, tmp_path: Path, aiohttp_client: Any
) -> None:
    legacy = str(uuid.uuid4())
    await admin.execute(
        "INSERT INTO dice_seeds (table_id, game, seed) VALUES ($1, 1, $2)", legacy, bytes(32)
    )
    config = Config(database_url=db_url, data_dir=tmp_path / "data", rate_limits=False)
    client = await aiohttp_client(create_app(config))
    tokens = []
    for _ in range(2):
        async with client.post("/guests", json={}) as r:
            tokens.append((await r.json())["token"])
    headers = [{"Authorization": f"Bearer {t}"} for t in tokens]
    async with client.post("/tables", json={"kind": "money"}, headers=headers[0]) as r:
        assert r.status == 201, await r.text()
        table_id = (await r.json())["id"]
    for h in headers:
        body = {"command_id": str(uuid.uuid4()), "command": {"type": "join"}}
        async with client.post(f"/tables/{table_id}/commands", json=body, headers=h) as r:
            assert r.status == 201, await r.text()
    async with client.get(f"/tables/{table_id}") as r:
        published = (await r.json())["game"]["dice_commitment"]
    path = seed_key_path(config)  # beside the data directory, with DATABASE_URL
    assert path == tmp_path / "data-keys" / SEED_KEY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    key = dice.decode_seed_key(path.read_text())
    kept = await row(store.pool, table_id)
    assert kept["sealed"] and published == dice.commitment(
        SeedCipher(key).open(table_id, 1, bytes(kept["seed"]))
    )
    assert (await row(store.pool, legacy))["sealed"] is True  # sealed at start-up


# -- in memory ----------------------------------------------------------------------------------


async def test_the_services_memory_stays_within_its_bound(store: EventStore) -> None:
    bound = 3
    tables = service(store, cache_size=bound)
    ids = [str(uuid.uuid4()) for _ in range(2 * bound + 2)]
    # Commands on many tables at once: the locks exist only while they are in use.
    await asyncio.gather(*(started(tables, t) for t in ids))
    memory = tables.memory()
    assert memory["states"] <= bound and memory["seeds"] <= bound, memory
    assert memory["locks"] == 0, memory
    for t in ids:
        await tables.execute(t, "p-ann", c.Roll(), uuid.uuid4())
        memory = tables.memory()
        assert memory["states"] <= bound and memory["seeds"] <= bound and not memory["locks"]
    # Tables that fell out of the cache are read again when used: nothing is lost.
    state = await tables.state(ids[0])
    assert state.game_no == 1 and state.dice_counter > 0


async def test_a_table_keeps_only_the_seeds_of_the_game_in_play_and_the_next(
    store: EventStore,
) -> None:
    tables = service(store)
    table_id = await started(tables)
    for game in (1, 2, 3):
        state = await tables.state(table_id)
        assert state.game_no == game
        await tables.execute(table_id, "p-ann", c.Roll(), uuid.uuid4())  # the opening throw
        state = await tables.state(table_id)
        game_ = state.game
        assert game_ is not None
        mover = state.seats[game_.turn]
        assert mover is not None
        other = "p-bob" if mover == "p-ann" else "p-ann"
        play = game_.legal_plays()[0].moves
        await tables.execute(table_id, mover, c.Move(moves=list(play)), uuid.uuid4())
        await tables.execute(table_id, other, c.Resign(level=1), uuid.uuid4())
        await tables.execute(table_id, mover, c.Accept(), uuid.uuid4())
        await tables.execute(table_id, mover, c.StartGame(), uuid.uuid4())  # the next game
        kept = tables._seeds.get(table_id)
        assert kept is not None and set(kept) <= {game + 1, game + 2}, kept
    assert len(await SeedStore(store.pool, SeedCipher(KEY)).load(table_id)) == 4
