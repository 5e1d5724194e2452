"""``chouette project rebuild`` (issue 15): read models rebuilt from the log into copies and
swapped in atomically while the server goes on serving the old ones — every read meanwhile is
answered, none sees a half-built model — and the result equals the live read models, which go
on being kept after the swap."""

from __future__ import annotations

import asyncio
import itertools
import random
import uuid

import pytest

from events.records.simulate import simulate_chouette
from events.store.errors import StoreError
from events.store.event_store import EventStore
from events.store.streams import new_event, table_stream
from server.cli.main import main
from server.http.social import READ_MODELS
from server.keys import LOBBY
from server.readmodels.lobby import LobbyProjector
from server.readmodels.profiles import ProfilesProjector
from server.readmodels.ratings import RatingsProjector
from server.readmodels.rebuild import rebuild
from tests.server.conftest import Api, User
from tests.server.people.social_events import snapshot


async def _chouettes(store: EventStore, players: list[str], count: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(count):
        table_id = str(uuid.uuid4())
        sim = simulate_chouette(table_id, players=tuple(rng.sample(players, 3)), games=2, rng=rng)
        await store.append(
            table_stream(table_id),
            [new_event(ev) for ev in sim.events],
            expected_version=0,
            command_id=uuid.uuid4(),
        )


async def _games(api: Api, user: User) -> int:
    r = await api.request("GET", f"/players/{user.username}")
    assert r.status == 200, r.body
    return int(r.body["stats"].get("chouette", {}).get("games", 0))


async def test_a_rebuild_while_the_server_reads(
    api: Api, store: EventStore, owner_url: str
) -> None:
    users = [await api.register() for _ in range(4)]
    ids = [u.account_id for u in users]
    await _chouettes(store, ids, 40, 1)
    assert api.app is not None
    models = api.app[READ_MODELS]
    await models.catch_up()
    start = await _games(api, users[0])
    assert start > 0

    seen: list[int] = []
    stop = asyncio.Event()

    async def reader() -> None:
        while not stop.is_set():
            seen.append(await _games(api, users[0]))
            board = await api.request("GET", "/leaderboards/chouette?since=2020-01-01")
            assert board.status == 200 and board.body["players"], board.body
            await asyncio.sleep(0.005)

    async def writer() -> None:
        # Tables keep being recorded during the rebuild: the swap applies what it missed.
        for i in range(10):
            await _chouettes(store, ids, 2, 100 + i)
            await asyncio.sleep(0.02)

    reading = asyncio.create_task(reader())
    writing = asyncio.create_task(writer())
    status = await asyncio.to_thread(
        main, ["project", "rebuild", "--database-url", owner_url, "--batch-size", "200"]
    )
    assert status == 0
    await writing
    stop.set()
    await reading
    # Every read was answered; none went back (a half-built model would have fewer games).
    assert len(seen) > 3 and seen[0] >= start
    assert all(a <= b for a, b in itertools.pairwise(seen)), seen

    # The live projectors go on after the swap, and the result equals a fresh rebuild's.
    await _chouettes(store, ids, 3, 999)
    await models.catch_up()
    await api.app[LOBBY].catch_up()
    live = {f: await snapshot(store.pool, f.tables) for f in (RatingsProjector, ProfilesProjector)}
    lobby = await store.pool.fetch(
        "SELECT table_id, players, status, games, version FROM lobby_tables"
    )
    assert await _games(api, users[0]) >= seen[-1]
    status = await asyncio.to_thread(
        main, ["project", "rebuild", "profiles", "--database-url", owner_url]
    )
    assert status == 0
    status = await asyncio.to_thread(
        main, ["project", "rebuild", "ratings", "--database-url", owner_url]
    )
    assert status == 0
    for factory, before in live.items():
        assert await snapshot(store.pool, factory.tables) == before, factory.model
    assert sorted(map(tuple, lobby)) == sorted(
        map(
            tuple,
            await store.pool.fetch(
                "SELECT table_id, players, status, games, version FROM lobby_tables"
            ),
        )
    )
    assert LobbyProjector.tables == ("lobby_tables",)


def test_the_command_refuses_a_bad_name_and_batch(owner_url: str, capsys: object) -> None:
    try:
        main(["project", "rebuild", "nothing", "--database-url", owner_url])
    except SystemExit as exc:
        assert exc.code == 2
    else:  # pragma: no cover
        raise AssertionError("an unknown read model was accepted")
    assert main(["project", "rebuild", "--batch-size", "0", "--database-url", owner_url]) == 2


async def test_one_rebuild_of_a_model_at_a_time(store: EventStore, owner_url: str) -> None:
    owner = await EventStore.connect(owner_url, min_size=1, max_size=3)
    try:
        async with owner.pool.acquire() as conn:
            await conn.execute("SELECT pg_advisory_lock(hashtext('chouette rebuild ratings'))")
            with pytest.raises(StoreError, match="being rebuilt already"):
                await rebuild(owner, RatingsProjector)
            await conn.execute("SELECT pg_advisory_unlock(hashtext('chouette rebuild ratings'))")
        assert await rebuild(owner, RatingsProjector) == 0  # an empty log, and free again
    finally:
        await owner.close()
