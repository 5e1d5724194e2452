"""``GET /tables/{id}/analysis``: GNU Backgammon's analysis of a table's finished games through
the server — the pure read model's document, kept in the database, never written to the log;
bad input refused; and a server without the extra answers 501 naming it."""

from __future__ import annotations

import random
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import msgspec
import pytest
from test_bots import seat, wait_until

from events.records.analysis import analyse_table
from events.records.replay import decode_all
from events.store.streams import table_stream
from server.http.analysis import finished_upto
from server.keys import TABLES
from tests.server.conftest import Api, ServeProcess

gnubg = pytest.importorskip("gnubg")

FAIR = {"dice_factory": None, "seed_key": bytes(range(1, 33))}


@pytest.fixture
async def fair(make_api: Callable[..., Awaitable[Api]]) -> Api:
    return await make_api(**FAIR)


async def test_a_matchs_analysis_is_the_read_models_kept_and_never_logged(fair: Api) -> None:
    api = fair
    ann = await api.register()
    table = await api.create_table(ann, "match", match_length=3)
    await seat(api, ann, table)
    await seat(api, ann, table)
    await wait_until(api, table, lambda s: bool(s.get("match_winner")))
    store = api.app[TABLES].store  # type: ignore[index]
    before = await store.read_stream(table_stream(table))
    r = await api.request("GET", f"/tables/{table}/analysis?ply=0")
    assert r.status == 200, r.body
    doc: dict[str, Any] = dict(r.body)
    # Exactly what the pure read model makes of the table's events.
    events = decode_all(before, store.keys)
    expected = msgspec.json.decode(
        msgspec.json.encode(analyse_table(events[: finished_upto(events)], 0))
    )
    assert doc == expected
    # It covers the log up to the last game's end (a match_ended may follow).
    upto = finished_upto(events)
    assert doc["kind"] == "match" and doc["version"] == upto and len(before) - upto <= 1
    assert set(doc["players"]) == {p for g in doc["games"] for p in g["players"]}
    assert len(doc["players"]) == 2 and all(p.startswith("b_") for p in doc["players"])
    plays = [d for g in doc["games"] for d in g["decisions"] if d["kind"] == "play"]
    assert plays and all(1 <= d["version"] <= len(before) for d in plays)
    # Kept: a row for the table at this ply and version; asked again, the same answer.
    row = await store.pool.fetchrow("SELECT version, ply FROM analyses WHERE table_id = $1", table)
    assert row is not None and (row["version"], row["ply"]) == (upto, 0)
    again = await api.request("GET", f"/tables/{table}/analysis")
    assert again.status == 200 and again.body == doc
    # Never written to the table's log.
    assert len(await store.read_stream(table_stream(table))) == len(before)
    r1 = await api.request("GET", f"/tables/{table}/analysis?ply=1")
    assert r1.status == 200 and r1.body["ply"] == 1
    assert len(r1.body["games"]) == len(doc["games"])


async def test_bad_requests_for_an_analysis(api: Api) -> None:
    ann = await api.register()
    table = await api.create_table(ann, "money")
    for query in ("ply=3", "ply=-1", "ply=x", "ply=1%00", "ply=99999999999999999999999"):
        r = await api.request("GET", f"/tables/{table}/analysis?{query}")
        assert r.status == 400, (query, r.body)
        assert "ply" in r.body["detail"]
    r = await api.request("GET", f"/tables/{uuid.uuid4()}/analysis")
    assert r.status == 404
    r = await api.request("GET", "/tables/not-a-uuid/analysis")
    assert r.status == 404
    r = await api.request(
        "GET", f"/tables/{table}/analysis", headers={"Authorization": "Bearer nonsense"}
    )
    assert r.status == 401
    # A table with no game finished: nothing to analyse yet.
    r = await api.request("GET", f"/tables/{table}/analysis")
    assert r.problem(409, "no-finished-game")["detail"].startswith("no finished game yet")


async def test_a_server_without_the_extra_answers_501_naming_it(
    db_url: str, tmp_path: Path
) -> None:
    blocked = Path(__file__).parent / "without_gnubg"
    server = ServeProcess(db_url, tmp_path / "serve.log", env={"PYTHONPATH": str(blocked)})
    await server.start()
    try:
        async with aiohttp.ClientSession(base_url=server.url) as http:
            async with http.post("/guests", json={"display_name": "Ann"}) as r:
                token = (await r.json())["token"]
            auth = {"Authorization": f"Bearer {token}"}
            async with http.post(
                "/tables", json={"kind": "money", "options": {}}, headers=auth
            ) as r:
                table = (await r.json())["id"]
            async with http.get(f"/tables/{table}/analysis?ply=1") as r:
                assert r.status == 501
                problem = await r.json()
                assert "pip install 'chouette[gnubg]'" in problem["detail"]
                assert problem["type"].endswith("analysis-unavailable")
            # Nothing else changes: the table, the basic bot; a gnubg bot is the same 501.
            async with http.get(f"/tables/{table}") as r:
                assert r.status == 200
            async with http.post(
                f"/tables/{table}/bots", json={"strength": "gnubg"}, headers=auth
            ) as r:
                assert r.status == 501
            async with http.post(
                f"/tables/{table}/bots", json={"strength": "basic"}, headers=auth
            ) as r:
                assert r.status == 201
    finally:
        server.stop()


async def _finished_money_table(api: Api) -> str:
    """A money table whose one game was played to its end by legal plays."""
    ann, bob = await api.register(), await api.register()
    table = await api.create_table(ann, "money")
    await api.ok(ann, table, "join")
    await api.ok(bob, table, "join")
    await api.ok(ann, table, "roll")
    users = {ann.account_id: ann, bob.account_id: bob}
    end = await api.play_out(table, users, random.Random(3))
    assert not end["in_game"]
    return table


async def test_analyses_are_rate_limited_and_bounded_in_time(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    from server.config import Rate

    api = await make_api(rate_limits=True, rate_analyses=Rate(1, 3600), analysis_timeout=0.001)
    table = await _finished_money_table(api)
    store = api.app[TABLES].store  # type: ignore[index]
    version = len(await store.read_stream(table_stream(table)))
    # Longer than the server allows (a thousandth of a second): the worker is killed, 503.
    r = await api.request("GET", f"/tables/{table}/analysis")
    assert r.status == 503, r.body
    assert "longer than" in r.body["detail"]
    # Over the rate: 429, before any work.
    r = await api.request("GET", f"/tables/{table}/analysis")
    assert r.status == 429 and "analyses" in r.body["detail"]
    assert len(await store.read_stream(table_stream(table))) == version
    assert await store.pool.fetchval("SELECT count(*) FROM analyses") == 0


async def test_a_chouettes_analysis_through_the_server_and_requests_at_once(api: Api) -> None:
    """A chouette's analysis (each member's cube) from the worker pool; two requests at once
    are one computation, both answered with it."""
    import asyncio

    from events.records.simulate import simulate_chouette
    from events.store.streams import append_steps

    table = str(uuid.uuid4())
    played = simulate_chouette(table, rng=random.Random(7), games=2, double_rate=0.2)
    store = api.app[TABLES].store  # type: ignore[index]
    await append_steps(store, table, [s.events for s in played.steps])
    first, second = await asyncio.gather(
        api.request("GET", f"/tables/{table}/analysis"),
        api.request("GET", f"/tables/{table}/analysis"),
    )
    assert first.status == second.status == 200, (first.body, second.body)
    assert first.body == second.body
    doc = first.body
    assert doc["kind"] == "chouette" and len(doc["players"]) >= 3
    events = played.events[: finished_upto(played.events)]
    expected = msgspec.json.decode(msgspec.json.encode(analyse_table(events, 0)))
    assert doc == expected
    cubes = {d["cube"] for g in doc["games"] for d in g["decisions"] if d["kind"] != "play"}
    assert len(cubes) >= 2  # decisions on more than one member's cube
    assert (
        await store.pool.fetchval("SELECT count(*) FROM analyses WHERE table_id = $1", table) == 1
    )
