"""Who may sit at a table (issue 11, finding 9: free sockpuppets).

- A table may be for registered accounts only (``registered_only``, a table option documented
  in the OpenAPI's ``TableOptions``): a guest's ``join`` is a 403 "this table is for registered
  accounts", over HTTP and over the WebSocket, and nothing is written. Other tables take guests.
- One account holds one seat: at a money or match table a seated player cannot take the other
  seat too, and nobody can join a chouette twice.

The issue asks for the option to be on for rated tables; there are no ratings yet (issue 15).
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tests.server.conftest import Api, connect

REGISTERED_ONLY = "this table is for registered accounts"


def player_ids(view: dict[str, Any]) -> list[str]:
    """The account ids of a table view's players."""
    return [p["id"] for p in view["players"]]


@pytest.mark.parametrize("kind", ["money", "match", "chouette"])
async def test_a_guest_cannot_join_a_table_for_registered_accounts(api: Api, kind: str) -> None:
    host = await api.register()
    options = {"registered_only": True, **({"match_length": 3} if kind == "match" else {})}
    table = await api.create_table(host, kind, **options)
    assert (await api.state(table))["options"]["registered_only"] is True
    guest = await api.guest()
    before = await api.versions(table)
    body = (await api.send(guest, table, {"type": "join"})).problem(403, "forbidden")
    assert body["detail"] == REGISTERED_ONLY
    assert await api.versions(table) == before
    # Registered accounts sit down as usual.
    await api.ok(host, table, "join")
    await api.ok(await api.register(), table, "join")
    seated = player_ids(await api.state(table))
    assert len(seated) == 2 and guest.account_id not in seated


async def test_a_guest_is_refused_over_the_websocket_too(api: Api, client: TestClient) -> None:
    host = await api.register()
    table = await api.create_table(host, "chouette", registered_only=True)
    guest = await api.guest()
    ws = await connect(client, table, guest)
    try:
        reply = await ws.command({"type": "join"})
        assert reply["ctl"] == "error", reply
        assert reply["problem"]["status"] == 403 and reply["problem"]["detail"] == REGISTERED_ONLY
    finally:
        await ws.close()
    assert await api.versions(table) == (1, 0)


async def test_tables_take_guests_unless_they_say_otherwise(api: Api) -> None:
    host = await api.guest()
    table = await api.create_table(host, "money")
    assert (await api.state(table))["options"]["registered_only"] is False
    await api.ok(host, table, "join")
    await api.ok(await api.guest(), table, "join")
    lobby = (await api.request("GET", "/tables")).body["tables"]
    listed = next(t for t in lobby if t["id"] == table)
    assert listed["options"]["registered_only"] is False


async def test_the_option_is_in_the_api_reference(api: Api) -> None:
    doc = (await api.request("GET", "/openapi.json")).body
    options = doc["components"]["schemas"]["TableOptions"]["properties"]
    assert options["registered_only"]["type"] == "boolean"
    assert options["registered_only"]["default"] is False
    assert "guest" in options["registered_only"]["description"]


# -- one account, one seat ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["money", "match"])
async def test_a_seated_player_cannot_take_the_other_seat(api: Api, kind: str) -> None:
    a = await api.register()
    table = await api.create_table(a, kind, **({"match_length": 3} if kind == "match" else {}))
    await api.ok(a, table, "join", seat=0)
    before = await api.versions(table)
    for command in ({"type": "join"}, {"type": "join", "seat": 1}, {"type": "join", "seat": 0}):
        body = (await api.send(a, table, command)).problem(409, "not-now")
        assert "already seated" in body["detail"]
    assert await api.versions(table) == before
    s = await api.state(table)
    assert s["seats"] == [a.account_id, None] and player_ids(s) == [a.account_id]
    # The seat stays free for someone else.
    b = await api.register()
    await api.ok(b, table, "join")
    assert (await api.state(table))["seats"] == [a.account_id, b.account_id]


async def test_nobody_joins_a_chouette_twice(api: Api) -> None:
    users = [await api.register() for _ in range(3)]
    table = await api.create_table(users[0], "chouette")
    for u in users:
        await api.ok(u, table, "join")
    before = await api.versions(table)
    for u in users:
        reply = await api.send(u, table, {"type": "join"}, str(uuid.uuid4()))
        assert "already at this table" in reply.problem(409, "not-now")["detail"]
    assert await api.versions(table) == before
    await api.ok(users[0], table, "start_game")
    reply = await api.send(users[1], table, {"type": "join"})
    assert "already at this table" in reply.problem(409, "not-now")["detail"]
    s = await api.state(table)
    assert sorted(player_ids(s)) == sorted(u.account_id for u in users)
    assert sorted(s["line"]) == sorted(u.account_id for u in users)
