"""Live streams: resuming exactly over WebSocket and SSE, resync, slow clients, shutdown."""

from __future__ import annotations

import asyncio
import random
import socket
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import msgspec
from aiohttp import WSCloseCode
from aiohttp.test_utils import TestClient

from events.domain import types as e
from events.store.event_store import NewEvent
from events.store.streams import chat_stream
from server.keys import CONFIG, LIVE_FEED, TABLES
from tests.server.conftest import (
    Api,
    User,
    assert_gap_free,
    connect,
    read_sse,
    samples,
    ticket,
    ws_path,
)


async def background_play(
    api: Api, table: str, users: dict[str, User], actions: int, chat_every: int = 4
) -> None:
    """Play ``actions`` game actions by legal plays, with a chat message every few."""
    rng = random.Random(11)
    speaker = next(iter(users.values()))
    for i in range(actions):
        await api.step(table, users, rng)
        if i % chat_every == 0:
            await api.ok(speaker, table, "chat", text=f"message {i}")
        await asyncio.sleep(0.005)


async def test_a_websocket_reconnect_in_mid_game_resumes_exactly(
    api: Api, client: TestClient
) -> None:
    table, a, b = await api.seat_two("money")
    users = {a.account_id: a, b.account_id: b}
    for _ in range(6):
        await api.step(table, users, random.Random(3))
    player = asyncio.create_task(background_play(api, table, users, actions=40))

    table_seen: list[dict[str, Any]] = []
    chat_seen: list[dict[str, Any]] = []
    segments = 0
    while not player.done() or segments < 2:
        after, chat_after = len(table_seen), len(chat_seen)
        ws = await connect(client, table, a, after=after, chat_after=chat_after)
        await ws.wait_for(lambda c: len(c.messages) >= 5 or player.done(), timeout=30)
        await ws.close()
        got_table, got_chat = ws.stream("table"), ws.stream("chat")
        if got_table:
            # The first message after a reconnect is exactly the next version.
            assert got_table[0]["v"] == after + 1
        if got_chat:
            assert got_chat[0]["v"] == chat_after + 1
        table_seen += got_table
        chat_seen += got_chat
        segments += 1
    await player
    head_table, head_chat = await api.versions(table)

    last = await connect(client, table, a, after=len(table_seen), chat_after=len(chat_seen))
    await last.wait_version(head_table)
    await last.wait_version(head_chat, "chat")
    await last.close()
    table_seen += last.stream("table")
    chat_seen += last.stream("chat")
    assert segments >= 3

    # Nothing lost, nothing twice: the pieces are the whole stream, as a fresh reader sees it.
    assert_gap_free(table_seen)
    assert_gap_free(chat_seen)
    assert len(table_seen) == head_table and len(chat_seen) == head_chat
    full = await connect(client, table, a)
    await full.wait_version(head_table)
    await full.wait_version(head_chat, "chat")
    await full.close()
    assert full.stream("table") == table_seen
    assert full.stream("chat") == chat_seen
    assert all(m["t"] and m["d"]["type"] == m["t"] for m in table_seen + chat_seen)


async def test_an_sse_reconnect_with_last_event_id_resumes_exactly(
    api: Api, client: TestClient
) -> None:
    table, a, b = await api.seat_two("money")
    users = {a.account_id: a, b.account_id: b}
    player = asyncio.create_task(background_play(api, table, users, actions=30, chat_every=3))

    received: list[tuple[str | None, str | None, dict[str, Any]]] = []
    last_id: str | None = None
    pieces = 0
    while not player.done() or pieces < 2:
        headers = {"Last-Event-ID": last_id} if last_id else {}
        async with client.get(f"/tables/{table}/events", headers=headers) as resp:
            assert resp.status == 200
            assert resp.content_type == "text/event-stream"
            got = await read_sse(resp, 6, timeout=30, idle=1.0)
        if got:
            first = got[0][2]
            t, _, c = (last_id or "0.0").partition(".")
            assert first["v"] == (int(t) if first["s"] == "table" else int(c)) + 1
            last_id = got[-1][1]
        received += got
        pieces += 1
    await player
    head_table, head_chat = await api.versions(table)
    async with client.get(f"/tables/{table}/events", headers={"Last-Event-ID": last_id or ""}) as r:
        rest = await read_sse(r, head_table + head_chat - len(received), timeout=30)
    received += rest

    table_msgs = [d for _, _, d in received if d["s"] == "table"]
    chat_msgs = [d for _, _, d in received if d["s"] == "chat"]
    assert_gap_free(table_msgs)
    assert_gap_free(chat_msgs)
    assert (len(table_msgs), len(chat_msgs)) == (head_table, head_chat)
    # Each id names both streams' versions as of that event.
    t = c = 0
    for event, ident, data in received:
        assert event is None
        if data["s"] == "table":
            t = data["v"]
        else:
            c = data["v"]
        assert ident == f"{t}.{c}"


async def test_a_client_asking_for_a_future_version_is_told_to_resync(
    api: Api, client: TestClient
) -> None:
    table, a, _ = await api.seat_two("money")
    await api.ok(a, table, "chat", text="hello")
    head, chat_head = await api.versions(table)
    for query, stream in (
        ({"after": head + 1}, "table"),
        ({"after": 10**9}, "table"),
        ({"chat_after": chat_head + 1}, "chat"),
    ):
        ws = await client.ws_connect(ws_path(table, await ticket(client, a), **query))
        msg = await ws.receive(timeout=5)
        doc = msgspec.json.decode(msg.data)
        assert doc["ctl"] == "resync" and doc["stream"] == stream, doc
        assert doc["version"] == (head if stream == "table" else chat_head)
        closing = await ws.receive(timeout=5)
        assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        assert ws.close_code == WSCloseCode.POLICY_VIOLATION
        await ws.close()
    # Exactly the head is fine: nothing to send yet, and the socket stays open.
    ws = await connect(client, table, a, after=head, chat_after=chat_head)
    await api.ok(a, table, "chat", text="next")
    await ws.wait_version(chat_head + 1, "chat")
    assert ws.messages == [ws.stream("chat")[0]] and ws.messages[0]["v"] == chat_head + 1
    await ws.close()

    async with client.get(
        f"/tables/{table}/events", headers={"Last-Event-ID": f"{head + 5}.0"}
    ) as resp:
        got = await read_sse(resp, 1)
    assert got[0][0] == "resync" and got[0][2]["ctl"] == "resync"


async def test_a_client_asking_too_far_back_is_told_to_resync(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    api = await make_api(resync_window=3)
    table, a, b = await api.seat_two("money")
    users = {a.account_id: a, b.account_id: b}
    for _ in range(4):
        await api.step(table, users, random.Random(1))
    head, _ = await api.versions(table)
    assert head > 3 + 1
    ws = await api.client.ws_connect(ws_path(table, await ticket(api.client, a), after=head - 4))
    doc = msgspec.json.decode((await ws.receive(timeout=5)).data)
    assert doc["ctl"] == "resync" and "too far back" in doc["reason"]
    await ws.close()
    # Within the window resumes.
    ok = await connect(api.client, table, a, after=head - 3)
    await ok.wait_version(head)
    assert [m["v"] for m in ok.stream()] == [head - 2, head - 1, head]
    await ok.close()
    async with api.client.get(
        f"/tables/{table}/events", headers={"Last-Event-ID": f"{head - 4}.0"}
    ) as resp:
        got = await read_sse(resp, 1)
    assert got[0][0] == "resync"


def _small_receive_buffer(addr_info: Any) -> socket.socket:
    family, type_, proto, _, _ = addr_info
    sock = socket.socket(family=family, type=type_, proto=proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    return sock


async def test_a_slow_websocket_client_is_moved_to_catch_up_and_gets_everything(
    api: Api, client: TestClient
) -> None:
    """A client that does not read while 5,000 events are appended: the server keeps at most
    its bounded queue for it (its live sink is detached) and it then receives everything in
    order, from the database.

    About 7.5 MB are appended: more than the client's small receive buffer, the server's
    socket send buffer (4 MB at most with Linux's default tcp_wmem) and the server's own
    queues can hold, so the server must stop reading for this client. The live sinks are
    looked at through the notifier's (private) feeds."""
    table, a, _ = await api.seat_two("money")
    head, _ = await api.versions(table)
    notifier = api.app[LIVE_FEED]  # type: ignore[index]
    limit = notifier.queue_events
    assert limit == api.app[CONFIG].client_queue  # type: ignore[index]
    stream = chat_stream(table)

    connector = aiohttp.TCPConnector(socket_factory=_small_receive_buffer)
    async with aiohttp.ClientSession(connector=connector) as session:
        ws = await session.ws_connect(client.make_url(ws_path(table, await ticket(client, a))))
        # Read the table's events, then stop reading.
        seen: list[dict[str, Any]] = []
        while len(seen) < head:
            seen.append(msgspec.json.decode((await ws.receive(timeout=5)).data))
        await api.ok(a, table, "chat", text="first")
        seen.append(msgspec.json.decode((await ws.receive(timeout=5)).data))
        feed = next(iter(notifier._feeds.values()))
        sinks = set(feed.stream_sinks.get(stream, ()))
        assert len(sinks) == 1, "the client follows the chat stream live"

        store = api.app[TABLES].store  # type: ignore[index]
        text = "x" * 1500
        for _ in range(10):
            events = [
                NewEvent(
                    type="chat_posted",
                    data=e.encode(e.ChatPosted(player=a.account_id, text=text)),
                )
                for _ in range(500)
            ]
            await store.append(stream, events, expected_version=None, command_id=uuid.uuid4())
            for sink in (*sinks, *feed.stream_sinks.get(stream, ())):
                assert sink.count <= limit
        total = await store.stream_version(stream)
        assert total == 5001
        # Wait until the feed has handed out everything.
        heads = await store.partition_heads()
        async with asyncio.timeout(10):
            while feed.position < max(heads.values()):
                await asyncio.sleep(0.05)
        (sink,) = sinks
        assert sink.detached, "the slow client's live queue was detached"
        assert sink not in feed.stream_sinks.get(stream, set())
        assert sink.count <= limit
        # The metrics show how far behind it is.
        text = (await api.request("GET", "/metrics")).body
        lag = samples(text, "chouette_subscriber_lag_events")[""]
        assert limit < lag <= total, lag

        # Now it reads: everything, in order, nothing twice.
        chat: list[dict[str, Any]] = [m for m in seen if m["s"] == "chat"]
        async with asyncio.timeout(60):
            while len(chat) < total:
                msg = await ws.receive()
                assert msg.type is aiohttp.WSMsgType.BINARY, msg
                doc = msgspec.json.decode(msg.data)
                assert doc["s"] == "chat"
                chat.append(doc)
        assert_gap_free(chat)
        text = (await api.request("GET", "/metrics")).body
        assert samples(text, "chouette_subscriber_lag_events")[""] == 0
        await ws.close()


async def test_shutdown_closes_sockets_with_going_away(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    api = await make_api()
    table, a, _ = await api.seat_two("money")
    head, _ = await api.versions(table)
    ws = await api.client.ws_connect(ws_path(table, await ticket(api.client, a)))
    for _ in range(head):
        await ws.receive(timeout=5)
    closing = asyncio.create_task(api.client.server.close())
    msg = await ws.receive(timeout=10)
    assert msg.type is aiohttp.WSMsgType.CLOSE, msg
    assert msg.data == WSCloseCode.GOING_AWAY
    await ws.close()
    await closing
    assert ws.close_code == WSCloseCode.GOING_AWAY


async def _negotiated(api: Api) -> tuple[int, dict[str, Any]]:
    """On a new table, a socket from a client that asks for permessage-deflate (as browsers
    do): the compression agreed (0: none) and the first message it receives."""
    table, a, _ = await api.seat_two("money")
    ws = await api.client.ws_connect(ws_path(table, await ticket(api.client, a)), compress=15)
    try:
        return ws.compress, msgspec.json.decode(await ws.receive_bytes(timeout=10))
    finally:
        await ws.close()


async def test_websocket_compression_is_off_unless_configured(
    api: Api, make_api: Callable[..., Awaitable[Api]]
) -> None:
    # Off by default: a browser asking for it is answered without the extension (its zlib
    # streams would cost each socket some 100 KiB more), and the socket works uncompressed.
    compress, first = await _negotiated(api)
    assert compress == 0
    assert (first["s"], first["v"], first["t"]) == ("table", 1, "table_created")
    # CHOUETTE_WS_COMPRESS=1: negotiated, and the messages arrive whole through it.
    compress, first = await _negotiated(await make_api(ws_compress=True))
    assert compress == 15
    assert (first["s"], first["v"], first["t"]) == ("table", 1, "table_created")
