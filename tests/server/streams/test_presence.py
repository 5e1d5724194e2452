"""Presence: who is connected to a table, told on its streams and shown in its view, never
stored (server/live/presence.py)."""

from __future__ import annotations

from typing import Any

import msgspec
from aiohttp.test_utils import TestClient

from server.openapi import document as openapi
from tests.server.conftest import Api, WsClient, connect, read_sse, ticket


def latest(client: WsClient) -> dict[str, Any]:
    return client.presence[-1] if client.presence else {}


async def until_presence(client: WsClient, connected: list[str], anonymous: int = 0) -> None:
    want = {"ctl": "presence", "connected": sorted(connected), "anonymous": anonymous}
    await client.wait_for(lambda c: latest(c) == want)


async def test_sockets_coming_and_going_are_told_to_everyone_at_the_table(
    api: Api, client: TestClient
) -> None:
    table, ann, bob = await api.seat_two()
    versions = await api.versions(table)
    a = await connect(client, table, ann)
    b = await connect(client, table, bob)
    await until_presence(a, [ann.account_id, bob.account_id])
    view = await api.state(table)
    assert view["connected"] == sorted([ann.account_id, bob.account_id])
    assert view["anonymous"] == 0

    # An anonymous watcher is counted, not named; a second socket of bob's changes nothing.
    watcher = await connect(client, table)
    await until_presence(a, [ann.account_id, bob.account_id], anonymous=1)
    await until_presence(b, [ann.account_id, bob.account_id], anonymous=1)
    b2 = await connect(client, table, bob)
    await b.close()  # bob still has a socket open
    await watcher.close()
    await until_presence(a, [ann.account_id, bob.account_id], anonymous=0)
    await until_presence(b2, [ann.account_id, bob.account_id], anonymous=0)
    # Bob's second socket and the close of his first were no change: nobody was told.
    assert [m["anonymous"] for m in a.presence] == [0, 1, 0], a.presence
    await b2.close()  # bob's last
    await until_presence(a, [ann.account_id])
    assert (await api.state(table))["connected"] == [ann.account_id]

    # Ephemeral: nothing was stored, and the table stream carried no such message.
    assert await api.versions(table) == versions
    assert all(m["s"] in ("table", "chat") and "t" in m for m in a.messages)
    # As the OpenAPI document describes them.
    (documented,) = [t for t in openapi.BODIES if t.__name__ == "Presence"]
    for message in a.presence:
        assert msgspec.to_builtins(msgspec.convert(message, type=documented)) == message
    await a.close()
    assert (await api.state(table))["connected"] == []


async def test_server_sent_events_count_and_hear_presence(api: Api, client: TestClient) -> None:
    table, ann, _bob = await api.seat_two()
    carol = await api.register()  # a signed-in spectator: named too
    a = await connect(client, table, ann)
    assert (await api.state(table))["connected"] == [ann.account_id]
    head = (await api.versions(table))[0]
    path = f"/tables/{table}/events?ticket={await ticket(client, carol)}&after={head}"
    async with client.get(path) as resp:
        assert resp.status == 200
        await until_presence(a, [ann.account_id, carol.account_id])
        await a.close()
        a = await connect(client, table, ann)  # ann's socket again: carol hears both changes
        got = await read_sse(resp, 2, presence=True)
        both = sorted([ann.account_id, carol.account_id])
        assert [(event, ident) for event, ident, _ in got] == [("presence", None)] * 2
        assert [d for _, _, d in got] == [
            {"ctl": "presence", "connected": [carol.account_id], "anonymous": 0},
            {"ctl": "presence", "connected": both, "anonymous": 0},
        ]
        assert carol.account_id in (await api.state(table))["connected"]
    await until_presence(a, [ann.account_id])
    await a.close()
