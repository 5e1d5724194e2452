"""Faults: the database restarting under play, a server process killed under load, and two
server processes on one database."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import asyncpg
import msgspec
import pytest

from events.domain import types as e
from events.store.event_store import EventStore, NewEvent
from server.keys import TABLES
from tests.server.conftest import (
    Api,
    PrivatePostgres,
    ServeProcess,
    User,
    WsClient,
    assert_gap_free,
    connect,
    next_action,
    ticket,
)

pytestmark = pytest.mark.slow


# -- the database restarts ------------------------------------------------------------------------


async def test_postgres_restart_gives_503_then_the_same_command_id_succeeds(
    private_postgres: PrivatePostgres, make_api: Callable[..., Awaitable[Api]]
) -> None:
    pg = private_postgres
    api = await make_api(database_url=pg.url, poll_interval=0.2, allow_superuser=True)
    table, a, b = await api.seat_two("money")
    users = {a.account_id: a, b.account_id: b}
    watcher = await connect(api.client, table, a)
    rng = random.Random(4)
    for _ in range(4):
        await api.step(table, users, rng)

    # Commands keep arriving while the database goes down.
    outcomes: list[tuple[str, dict[str, Any], User, Any]] = []

    async def play() -> None:
        while True:
            s = await api.request("GET", f"/tables/{table}")
            if s.status != 200:
                s.problem(503, "unavailable")
                return
            command, who = next_action(s.body, rng)
            command["type"] = command.pop("type_")
            command_id = str(uuid.uuid4())
            reply = await api.send(users[who], table, command, command_id)
            outcomes.append((command_id, command, users[who], reply))
            if reply.status != 201:
                return

    player = asyncio.create_task(play())
    await asyncio.sleep(0.3)
    await asyncio.to_thread(pg.stop, "fast")
    async with asyncio.timeout(20):
        await player
    if not outcomes or outcomes[-1][3].status == 201:
        # The outage met a read (so the next move is not known): a chat message goes in while
        # the database is down.
        command, command_id = {"type": "chat", "text": "still there?"}, str(uuid.uuid4())
        reply = await api.send(a, table, command, command_id)
        outcomes.append((command_id, command, a, reply))
    failed = [o for o in outcomes if o[3].status != 201]
    assert len(failed) == 1
    command_id, command, user, reply = failed[0]
    problem = reply.problem(503, "unavailable")
    assert "retry" in problem["detail"]
    assert reply.headers.get("Retry-After") == "1"

    # While it is down: commands are 503, health is fine, readiness is not.
    down = await api.send(a, table, {"type": "chat", "text": "anyone?"})
    down.problem(503)
    assert (await api.request("GET", "/healthz")).status == 200
    assert (await api.request("GET", "/readyz")).status == 503

    await asyncio.to_thread(pg.start)
    # The server reconnects by itself; the command is retried with the same id until it goes
    # through (as Retry-After says): once, whether or not it was stored before the outage.
    async with asyncio.timeout(30):
        while True:
            retry = await api.send(user, table, command, command_id)
            if retry.status != 503:
                break
            await asyncio.sleep(float(retry.headers.get("Retry-After", "1")))
    assert retry.status in (200, 201), retry.body
    again = await api.send(user, table, command, command_id)
    assert again.status == 200 and again.body["duplicate"] is True
    assert again.body["first_version"] == retry.body["first_version"]
    assert (await api.request("GET", "/readyz")).status == 200

    # Play goes on, and the socket opened before the outage gets every event, once, in order.
    for _ in range(6):
        await api.step(table, users, rng)
    head, _ = await api.versions(table)
    await watcher.wait_version(head, timeout=30)
    assert_gap_free(watcher.stream())
    await watcher.close()
    async with asyncpg.create_pool(pg.url, min_size=1, max_size=2) as pool:
        assert await EventStore(pool).verify_chain(f"table-{table}") is None


# -- a server process killed under load -----------------------------------------------------------


class Remote(Api):
    """The protocol against a ``serve`` process (no app object: versions come from the store)."""

    def __init__(self, session: aiohttp.ClientSession, store: EventStore) -> None:
        super().__init__(session)  # type: ignore[arg-type]
        self.store = store

    async def versions(self, table_id: str) -> tuple[int, int]:
        return (
            await self.store.stream_version(f"table-{table_id}"),
            await self.store.stream_version(f"chat-{table_id}"),
        )


@contextlib.asynccontextmanager
async def remote(url: str, store: EventStore) -> Any:
    async with aiohttp.ClientSession(base_url=url) as session:
        yield Remote(session, store)


async def test_a_server_killed_under_load_loses_no_acknowledged_command(
    db_url: str, serve_processes: Callable[[str], ServeProcess], store: EventStore
) -> None:
    server = serve_processes(db_url)
    await server.start()
    acked: dict[str, tuple[str, dict[str, Any]]] = {}
    in_flight: dict[str, tuple[str, User, dict[str, Any]]] = {}
    watchers: dict[str, WsClient] = {}
    tables: dict[str, dict[str, User]] = {}

    async with remote(server.url, store) as api:
        for _ in range(3):
            table, a, b = await api.seat_two("money")
            tables[table] = {a.account_id: a, b.account_id: b}
            watchers[table] = await connect(api.client, table, a)  # type: ignore[arg-type]

        async def load(table: str, users: dict[str, User], seed: int) -> None:
            rng = random.Random(seed)
            with contextlib.suppress(aiohttp.ClientError, OSError):
                while True:
                    s = await api.state(table)
                    command, who = next_action(s, rng)
                    command["type"] = command.pop("type_")
                    command_id = str(uuid.uuid4())
                    in_flight[command_id] = (table, users[who], command)
                    reply = await api.send(users[who], table, command, command_id)
                    assert reply.status == 201, reply.body
                    acked[command_id] = (table, reply.body)
                    del in_flight[command_id]

        loads = [
            asyncio.create_task(load(t, users, i)) for i, (t, users) in enumerate(tables.items())
        ]
        async with asyncio.timeout(30):
            while len(acked) < 60:
                await asyncio.sleep(0.02)
        server.kill()
        await asyncio.gather(*loads)
        seen = {t: w.last() for t, w in watchers.items()}
        for w in watchers.values():
            await w.close()
            assert_gap_free(w.stream())

    restarted = serve_processes(db_url)
    restarted.port = server.port
    await restarted.start()
    async with remote(restarted.url, store) as api:
        # Every acknowledged command is there, exactly as acknowledged.
        for command_id, (table, result) in acked.items():
            rows = await store.read_stream(
                f"table-{table}", result["first_version"] - 1, limit=len(result["events"])
            )
            assert [r.version for r in rows] == list(
                range(result["first_version"], result["last_version"] + 1)
            )
            assert all(r.command_id == uuid.UUID(command_id) for r in rows)
        # A command that was in flight is retried with its id: stored once either way.
        for command_id, (table, user, command) in in_flight.items():
            retry = await api.send(user, table, command, command_id)
            assert retry.status in (200, 201), retry.body
        # The clients resume from their last version: the next message is exactly the next one.
        for table, last in seen.items():
            head, _ = await api.versions(table)
            ws = await connect(api.client, table, after=last)  # type: ignore[arg-type]
            await ws.wait_version(head)
            if head > last:
                assert ws.stream()[0]["v"] == last + 1
            assert_gap_free(ws.stream(), after=last)
            await ws.close()
            assert await store.verify_chain(f"table-{table}") is None
        # And play goes on.
        for table, users in tables.items():
            await api.step(table, users, random.Random(9))


# -- two server processes -------------------------------------------------------------------------


async def test_a_client_of_one_process_sees_commands_sent_to_another(
    db_url: str, serve_processes: Callable[[str], ServeProcess], store: EventStore
) -> None:
    first, second = serve_processes(db_url), serve_processes(db_url)
    await asyncio.gather(first.start(), second.start())
    async with remote(first.url, store) as api_a, remote(second.url, store) as api_b:
        a, b = await api_a.register(), await api_b.register()
        table = await api_b.create_table(a, "money")
        watcher = await connect(api_a.client, table, b)  # type: ignore[arg-type]
        await api_b.ok(a, table, "join")
        await api_b.ok(b, table, "join")
        users = {a.account_id: a, b.account_id: b}
        rng = random.Random(6)
        sent: list[dict[str, Any]] = []
        for i in range(40):
            # Mostly through B; now and then through A, whose cached state is then stale.
            api = api_a if i % 5 == 4 else api_b
            s = await api.state(table)
            command, who = next_action(s, rng)
            command["type"] = command.pop("type_")
            reply = await api.send(users[who], table, command)
            assert reply.status == 201, reply.body
            sent += reply.body["events"]
        head, _ = await api_b.versions(table)
        await watcher.wait_version(head, timeout=20)
        await watcher.close()
        got = watcher.stream()
        assert_gap_free(got)
        # In order, and exactly the events the commands recorded.
        # (A stream's message also carries the event's chain hash, ``h``, and after a throw what
        # it leaves the player to move, ``m``; a command's result does not, so that a retry's
        # answer is the first one.)
        by_version = {m["v"]: {k: v for k, v in m.items() if k not in ("h", "m")} for m in got}
        assert [by_version[m["v"]] for m in sent] == sent
        assert await store.verify_chain(f"table-{table}") is None


async def test_a_stream_catching_up_through_an_outage_resumes_by_itself(
    private_postgres: PrivatePostgres, make_api: Callable[..., Awaitable[Api]]
) -> None:
    """A client that fell behind reads from the database (catch-up); when the database goes
    away under it, its stream pauses and resumes by itself, in order, nothing lost."""
    pg = private_postgres
    api = await make_api(
        database_url=pg.url, poll_interval=0.2, client_queue=100, allow_superuser=True
    )
    table, a, _ = await api.seat_two("money")
    head, _ = await api.versions(table)
    connector = aiohttp.TCPConnector(socket_factory=_small_receive_buffer)
    async with aiohttp.ClientSession(connector=connector) as session:
        pass_ = await ticket(api.client, a)
        ws = await session.ws_connect(api.client.make_url(f"/tables/{table}/ws?ticket={pass_}"))
        got: list[dict[str, Any]] = []
        while len(got) < head:
            got.append(msgspec.json.decode((await ws.receive(timeout=5)).data))
        # It stops reading while 6,000 long messages (12 MB, more than the kernel's socket
        # buffers hold) are appended: it is moved to catch-up, and the server's catch-up is
        # still stalled on the socket when the database goes away.
        store = api.app[TABLES].store  # type: ignore[index]
        for _ in range(12):
            await store.append(
                f"chat-{table}",
                [
                    NewEvent(
                        type="chat_posted",
                        data=e.encode(e.ChatPosted(player=a.account_id, text="y" * 1900)),
                    )
                    for _ in range(500)
                ],
                expected_version=None,
                command_id=uuid.uuid4(),
            )
        await asyncio.sleep(0.5)
        await asyncio.to_thread(pg.stop, "fast")
        # Now it reads: what the server had queued, then a pause while the database is away.
        chat: list[dict[str, Any]] = []
        with contextlib.suppress(TimeoutError):
            while True:
                msg = await ws.receive(timeout=1.0)
                chat.append(msgspec.json.decode(msg.data))
        assert 0 < len(chat) < TOTAL, len(chat)
        await asyncio.to_thread(pg.start)
        async with asyncio.timeout(60):
            while len(chat) < TOTAL:
                msg = await ws.receive()
                assert msg.type is aiohttp.WSMsgType.BINARY, (msg, len(chat))
                chat.append(msgspec.json.decode(msg.data))
        assert_gap_free(chat)
        await ws.close()


TOTAL = 12 * 500


def _small_receive_buffer(addr_info: Any) -> socket.socket:
    family, type_, proto, _, _ = addr_info
    sock = socket.socket(family=family, type=type_, proto=proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    return sock
