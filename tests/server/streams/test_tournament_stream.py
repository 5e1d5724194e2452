"""A tournament's live stream (``GET /tournaments/{id}/ws`` and ``/events``), on a real server,
database and sockets: a client follows a knockout from its first entry to its end and sees
every event of the tournament's stream once, in order, as the store holds it (the name opened);
a client dropped again and again resumes from its last version, over WebSocket and SSE; a
private tournament's stream is, to a stranger or anonymous, the unknown tournament's answer;
bad versions, tickets and tokens are 4xx problems, a version ahead of the stream is told to
resync, and the socket takes no commands."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import aiohttp
import msgspec
import pytest
from aiohttp import WSCloseCode
from aiohttp.test_utils import TestClient

from events.domain.types import erased_value
from events.store.streams import tournament_stream
from server.config import Rate
from server.keys import TABLES
from tests.server.conftest import Api, User, WsClient, assert_gap_free, read_sse, ticket
from tests.server.tournaments.helpers import create, forfeit, until


async def follow(
    client: TestClient, tid: str, user: User | None = None, after: int | None = None
) -> WsClient:
    """A WebSocket on the tournament's stream, as ``user`` (with a ticket) or anonymous."""
    query = [] if after is None else [f"after={after}"]
    if user is not None:
        query.append(f"ticket={await ticket(client, user)}")
    path = f"/tournaments/{tid}/ws" + ("?" + "&".join(query) if query else "")
    return WsClient(await client.ws_connect(path), base={"tournament": after or 0}).start()


async def _stored(api: Api, tid: str) -> list[tuple[int, str, str | None]]:
    """The tournament's stream as the store holds it: (version, type, chain hash)."""
    assert api.app is not None
    recs = await api.app[TABLES].store.read_stream(tournament_stream(tid))
    return [(r.version, r.type, r.hash.hex() if r.hash else None) for r in recs]


async def _knockout(api: Api, director: User, players: int = 4) -> tuple[str, dict[str, User]]:
    tid = await create(api, director, format="knockout", match_length=1)
    users = {u.account_id: u for u in [await api.register() for _ in range(players)]}
    return tid, users


async def _enter_all(api: Api, tid: str, users: dict[str, User]) -> None:
    for u in users.values():
        r = await api.request("POST", f"/tournaments/{tid}/entries", user=u)
        assert r.status == 200, r.body


async def _play_to_the_end(api: Api, tid: str, director: User, users: dict[str, User]) -> None:
    """Start the knockout and forfeit every match (the lower board's player leaves) until it
    is over."""
    r = await api.request("POST", f"/tournaments/{tid}/start", user=director)
    assert r.status == 200, r.body
    number = 1
    while True:
        v = await until(api, tid, lambda v, n=number: len(v["rounds"]) >= n or v["winner"])
        if v["status"] == "finished":
            return
        for board in v["rounds"][number - 1]["boards"]:
            if not board["decided"]:
                await forfeit(api, board["table_id"], users, loser=board["b"])
        number += 1


def _events(messages: list[dict[str, Any]]) -> list[tuple[int, str, str | None]]:
    return [(m["v"], m["t"], m["h"]) for m in messages]


async def test_a_client_follows_a_tournament_from_entry_to_its_end(
    api: Api, client: TestClient
) -> None:
    director = await api.register()
    tid, users = await _knockout(api, director)
    watcher = next(iter(users.values()))
    anonymous = await follow(client, tid)
    player = await follow(client, tid, watcher)
    await _enter_all(api, tid, users)
    await _play_to_the_end(api, tid, director, users)
    stored = await _stored(api, tid)
    head = stored[-1][0]
    assert stored[-1][1] == "tournament_finished"
    async with client.get(f"/tournaments/{tid}/events") as resp:
        assert resp.status == 200 and resp.content_type == "text/event-stream"
        sse = await read_sse(resp, head, timeout=20)
    for ws in (anonymous, player):
        await ws.wait_version(head, "tournament", timeout=20)
        await ws.close()
        # Every event once, in order, gap-free, as the store holds it, and nothing else.
        assert_gap_free(ws.messages)
        assert all(m["s"] == "tournament" and m["d"]["type"] == m["t"] for m in ws.messages)
        assert _events(ws.messages) == stored
    assert [ident for _, ident, _ in sse] == [str(v) for v, _, _ in stored]
    assert _events([d for _, _, d in sse]) == stored
    types = [t for _, t, _ in stored]
    assert types[:5] == ["tournament_created", *["tournament_entered"] * 4]
    assert types.count("tournament_round_paired") == 2 and types.count("tournament_result") == 3
    # What the director typed is sealed in the store and opened on the stream.
    created = anonymous.messages[0]["d"]
    assert created["name"] == "Club night" and created["created_by"] == director.account_id
    paired = [m["d"] for m in anonymous.messages if m["t"] == "tournament_round_paired"]
    assert all(b["table_id"] for b in paired[0]["boards"])
    assert anonymous.messages[-1]["d"]["winner"] in users


async def test_a_dropped_client_resumes_from_its_last_version(api: Api, client: TestClient) -> None:
    director = await api.register()
    tid, users = await _knockout(api, director, players=8)
    playing = asyncio.create_task(_enter_and_play(api, tid, director, users))
    seen: list[dict[str, Any]] = []
    last_id: str | None = None
    sse_seen: list[dict[str, Any]] = []
    drops = 0
    while not playing.done() or drops < 2:
        # A WebSocket for a few events, dropped, then again from its last version.
        ws = await follow(client, tid, after=len(seen))
        await ws.wait_for(lambda c: len(c.messages) >= 3 or playing.done(), timeout=30)
        await ws.close()
        if ws.messages:
            assert ws.messages[0]["v"] == len(seen) + 1
        seen += ws.messages
        # SSE the same way, by Last-Event-ID.
        headers = {"Last-Event-ID": last_id} if last_id else {}
        async with client.get(f"/tournaments/{tid}/events", headers=headers) as resp:
            got = await read_sse(resp, 3, timeout=30, idle=0.5)
        if got:
            assert got[0][2]["v"] == int(last_id or 0) + 1
            last_id = got[-1][1]
        sse_seen += [d for _, _, d in got]
        drops += 1
    await playing
    stored = await _stored(api, tid)
    head = stored[-1][0]
    rest = await follow(client, tid, after=len(seen))
    await rest.wait_version(head, "tournament", timeout=20)
    await rest.close()
    seen += rest.messages
    resume = {"Last-Event-ID": last_id or "0"}
    async with client.get(f"/tournaments/{tid}/events", headers=resume) as r:
        sse_seen += [d for _, _, d in await read_sse(r, head - len(sse_seen), timeout=20)]
    assert drops >= 3
    for pieces in (seen, sse_seen):
        assert_gap_free(pieces)
        assert _events(pieces) == stored


async def _enter_and_play(api: Api, tid: str, director: User, users: dict[str, User]) -> None:
    for u in users.values():
        r = await api.request("POST", f"/tournaments/{tid}/entries", user=u)
        assert r.status == 200, r.body
        await asyncio.sleep(0.02)
    await _play_to_the_end(api, tid, director, users)


async def _refusal(client: TestClient, path: str, user: User | None) -> tuple[int, dict[str, Any]]:
    """The status and problem a stream's request gets (the socket's upgrade is refused first,
    so its answer is the one the plain GET gets)."""
    headers = user.headers if user else {}
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await client.ws_connect(f"{path}/ws", headers=headers)
    async with client.get(f"{path}/events", headers=headers) as resp:
        body = await resp.json(content_type=None)
        assert resp.status == refused.value.status, (resp.status, refused.value.status)
        return resp.status, body


async def test_a_private_tournament_is_an_unknown_one_to_a_stranger(
    api: Api, client: TestClient
) -> None:
    director, invited, stranger = [await api.register() for _ in range(3)]
    tid = await create(
        api, director, format="round_robin", private=True, invited=[invited.account_id]
    )
    unknown = str(uuid.uuid4())
    for who in (stranger, None):
        status, body = await _refusal(client, f"/tournaments/{tid}", who)
        status_unknown, body_unknown = await _refusal(client, f"/tournaments/{unknown}", who)
        assert status == status_unknown == 404
        # The same problem, but for the id it names.
        assert body == {**body_unknown, "detail": body_unknown["detail"].replace(unknown, tid)}
        assert "private" not in body["detail"]
    # A ticket of the stranger's is no way in either.
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await client.ws_connect(f"/tournaments/{tid}/ws?ticket={await ticket(client, stranger)}")
    assert refused.value.status == 404
    # The invited and the director follow it.
    for who in (invited, director):
        ws = await follow(client, tid, who)
        await ws.wait_version(1, "tournament")
        assert ws.messages[0]["t"] == "tournament_created"
        await ws.close()
    r = await api.request("POST", f"/tournaments/{tid}/entries", user=invited)
    assert r.status == 200, r.body
    async with client.get(f"/tournaments/{tid}/events", headers=invited.headers) as resp:
        got = await read_sse(resp, 2)
    assert [d["t"] for _, _, d in got] == ["tournament_created", "tournament_entered"]


@pytest.mark.parametrize(
    "query",
    ["after=-1", "after=x", "after=1.5", f"after={2**63}", "after=%00", "token=abc"],
)
async def test_bad_versions_and_tokens_in_the_url_are_4xx(
    api: Api, client: TestClient, query: str
) -> None:
    tid = await create(api, await api.register(), format="knockout")
    status = 401 if query.startswith("token") else 400
    for path in (f"/tournaments/{tid}/ws?{query}", f"/tournaments/{tid}/events?{query}"):
        r = await api.request("GET", path)
        r.problem(status)
        assert "asyncpg" not in str(r.body)


async def test_bad_last_event_ids_tickets_and_future_versions(api: Api, client: TestClient) -> None:
    director = await api.register()
    tid = await create(api, director, format="knockout")
    for raw in ("x", "1.2", "-1", str(2**63), "+1", "1_0", "0x1"):
        r = await api.request("GET", f"/tournaments/{tid}/events", headers={"Last-Event-ID": raw})
        assert r.problem(400)["field"] == "Last-Event-ID", raw
    for bad in ("bogus", "", "x" * 300):
        r = await api.request("GET", f"/tournaments/{tid}/ws?ticket={bad}")
        r.problem(401)
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await client.ws_connect(f"/tournaments/{tid}/ws?ticket={bad}")
        assert refused.value.status == 401
    # A used ticket is a bad one.
    used = await ticket(client, director)
    ws = await client.ws_connect(f"/tournaments/{tid}/ws?ticket={used}")
    await ws.close()
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await client.ws_connect(f"/tournaments/{tid}/ws?ticket={used}")
    assert refused.value.status == 401
    # A version the stream has not reached: told to resync, with its version, and closed.
    ws = await client.ws_connect(f"/tournaments/{tid}/ws?after=5")
    doc = msgspec.json.decode((await ws.receive(timeout=5)).data)
    assert doc == {**doc, "ctl": "resync", "stream": "tournament", "asked": 5, "version": 1}
    await ws.receive(timeout=5)
    assert ws.close_code == WSCloseCode.POLICY_VIOLATION
    async with client.get(f"/tournaments/{tid}/events", headers={"Last-Event-ID": "2"}) as resp:
        got = await read_sse(resp, 1)
    assert got[0][0] == "resync" and got[0][2]["version"] == 1


async def test_the_socket_takes_no_commands(api: Api, client: TestClient) -> None:
    director = await api.register()
    tid = await create(api, director, format="knockout")
    ws = await follow(client, tid, director)
    await ws.wait_version(1, "tournament")
    cid = str(uuid.uuid4())
    reply = await ws.raw(msgspec.json.encode({"command_id": cid, "command": {"type": "join"}}))
    assert reply["ctl"] == "error" and reply["command_id"] == cid
    assert reply["problem"]["status"] == 400 and "no commands" in reply["problem"]["detail"]
    await ws.wait_for(lambda c: c.task is not None and c.task.done())
    assert ws.ws.close_code == WSCloseCode.POLICY_VIOLATION
    assert [m["v"] for m in ws.messages] == [1]
    assert [t for _, t, _ in await _stored(api, tid)] == ["tournament_created"]


async def test_the_stream_counts_against_the_connection_limits(make_api: Any) -> None:
    api: Api = await make_api(rate_limits=True, rate_sockets_address=Rate(2, 60))
    tid = await create(api, await api.register(), format="knockout")
    first = await follow(api.client, tid)
    async with api.client.get(f"/tournaments/{tid}/events") as events:
        assert events.status == 200
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await api.client.ws_connect(f"/tournaments/{tid}/ws")
    assert refused.value.status == 429
    r = await api.request("GET", f"/tournaments/{tid}/events")
    r.problem(429, "rate-limited")
    await first.close()


async def test_an_erased_directors_words_are_gone_from_the_stream(
    api: Api, client: TestClient
) -> None:
    director = await api.register()
    tid = await create(api, director, format="knockout")
    before = await follow(client, tid)
    own = await follow(client, tid, director)
    await before.wait_version(1, "tournament")
    await own.wait_version(1, "tournament")
    assert before.messages[0]["d"]["name"] == "Club night"
    r = await api.request("DELETE", "/me", user=director, json={"password": "correct horse"})
    assert r.status == 204, r.body
    # The director's own socket stops with their token; a stream opened now reads the name as
    # erased (the key that sealed it destroyed), the same event, version and chain hash.
    await own.wait_for(lambda c: c.task is not None and c.task.done(), timeout=15)
    assert own.ws.close_code == WSCloseCode.POLICY_VIOLATION
    after = await follow(client, tid)
    await after.wait_version(1, "tournament")
    await before.close()
    await after.close()
    gone, was = after.messages[0], before.messages[0]
    assert gone["d"]["name"] == erased_value("tournament_created", director.account_id)
    assert gone["d"]["name"] != "Club night"
    assert (gone["v"], gone["t"], gone["h"]) == (was["v"], was["t"], was["h"])
    async with client.get(f"/tournaments/{tid}/events") as resp:
        got = await read_sse(resp, 1)
    assert got[0][2]["d"]["name"] == gone["d"]["name"]
