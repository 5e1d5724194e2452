"""An erasure racing a read model's batch (issue 31; docs/privacy.md): a batch that opened a
player's name with their key, then commits after the erasure has pseudonymised the read models,
would bring the name back. Either the erasure waits for the batch, and pseudonymises what it
wrote, or the batch sees the key destroyed before it commits, and is applied again from values
read anew. Each order is forced here, with the real lobby projector on a real database.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable, Sequence

import asyncpg

from events.domain import commands as c
from events.domain import types as e
from events.domain.dice import SeedCipher, new_seed_key
from events.service import TableService
from events.store.event_store import EventStore, RecordedEvent
from events.store.personal_keys import PersonalKeys, master_key
from events.store.seed_store import SeedStore
from server.readmodels.analyses import keep_analysis
from server.readmodels.erasure import pseudonymise
from server.readmodels.lobby import LobbyProjector

NAME = "Zebulon Marchbanks"
TABLE_NAME = "Marchbanks' parlour"
ZEB, BOB = "u_zeb", "u_bob"


async def _table(store: EventStore) -> str:
    """A table Zeb created and named, with Zeb and Bob seated, sealed under their keys."""
    store.keys = PersonalKeys(store.pool, master_key(bytes(range(32))))
    service = TableService(store, seeds=SeedStore(store.pool, SeedCipher(new_seed_key())))
    table = str(uuid.uuid4())
    for actor, command in (
        (ZEB, c.CreateTable(kind="money", name=TABLE_NAME)),
        (ZEB, c.Join(display_name=NAME)),
        (BOB, c.Join(display_name="Bob")),
    ):
        await service.execute(table, actor, command, uuid.uuid4())
    return table


async def _erase(store: EventStore) -> None:
    """What ``DELETE /me`` does beside the log, in its order: the key, then the read models."""
    keys = store.keys
    assert isinstance(keys, PersonalKeys)
    await keys.destroy(ZEB)
    await pseudonymise(store.pool, ZEB)


async def _row(pool: asyncpg.Pool, table: str) -> tuple[str, dict[str, str]]:
    row = await pool.fetchrow(
        "SELECT name, names::text AS names FROM lobby_tables WHERE table_id = $1", table
    )
    assert row is not None
    return row["name"], json.loads(row["names"])


class Racing(LobbyProjector):
    """The lobby's projector, with a step run inside its first batch's transaction: after
    the batch is written (``after_write``) or once its keys are held (``after_hold``)."""

    after_write: Callable[[], Awaitable[None]] | None = None
    after_hold: Callable[[], Awaitable[None]] | None = None
    batches = 0

    async def handle(self, connection: asyncpg.Connection, events: Sequence[RecordedEvent]) -> None:
        self.batches += 1
        await super().handle(connection, events)
        step, self.after_write = self.after_write, None
        if step is not None:
            await step()

    async def _hold_keys(
        self, conn: asyncpg.Connection, events: Sequence[RecordedEvent], erased: set[str] | None
    ) -> None:
        await super()._hold_keys(conn, events, erased)
        step, self.after_hold = self.after_hold, None
        if step is not None:
            await step()


async def test_an_erasure_waits_for_a_batch_holding_the_key(store: EventStore) -> None:
    table = await _table(store)
    projector = Racing()
    await projector.prepare(store)
    erasing: list[asyncio.Task[None]] = []

    async def erase_meanwhile() -> None:
        erasing.append(asyncio.create_task(_erase(store)))
        await asyncio.sleep(0.5)
        # The destruction waits for the batch, which has written Zeb's name uncommitted.
        assert not erasing[0].done()

    projector.after_hold = erase_meanwhile
    await projector.catch_up(store)
    await asyncio.wait_for(erasing[0], 10)
    name, names = await _row(store.pool, table)
    assert names == {ZEB: e.pseudonym(ZEB), BOB: "Bob"}
    assert name == ""
    assert projector.batches == 1


async def test_a_batch_that_opened_a_key_destroyed_before_it_commits_is_applied_again(
    store: EventStore,
) -> None:
    table = await _table(store)
    projector = Racing()
    await projector.prepare(store)
    # The whole erasure runs between the batch's decoding (with Zeb's key) and its commit:
    # its pseudonymisation finds no row yet to change.
    projector.after_write = lambda: _erase(store)
    await projector.catch_up(store)
    name, names = await _row(store.pool, table)
    assert names == {ZEB: e.pseudonym(ZEB), BOB: "Bob"}
    assert TABLE_NAME not in name and NAME not in json.dumps(names)
    assert projector.batches == 2  # rolled back once, applied again under the pseudonym
    # Bob's key was never touched: his name still opens.
    keys = store.keys
    assert isinstance(keys, PersonalKeys) and keys.is_destroyed(BOB) is False


async def test_an_analysis_computed_across_an_erasure_is_not_kept(store: EventStore) -> None:
    table = await _table(store)
    await _erase(store)
    doc = json.dumps({"players": {ZEB: NAME}})
    assert await keep_analysis(store.pool, table, 0, 3, doc, {ZEB, BOB}) == {ZEB}
    assert await store.pool.fetchval("SELECT count(*) FROM analyses") == 0
    # With no key destroyed since it was opened, it is kept.
    assert await keep_analysis(store.pool, table, 0, 3, "{}", {BOB}) == set()
    assert await store.pool.fetchval("SELECT count(*) FROM analyses") == 1
