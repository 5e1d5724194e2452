"""The typed Python client (``client/``) against a real server on a real socket: signing in,
creating and joining tables, playing from the plays a throw's message carries, following a
table through dropped sockets and resyncs, and retrying commands by their id."""

from __future__ import annotations

import asyncio
import contextlib
import doctest
import uuid
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

import client as chouette_client
from client import ApiError, Client, EventMessage, Resynced
from client import plays as client_plays
from server.keys import SOCKETS
from tests.server.conftest import Api


def _url(client: TestClient) -> str:
    return str(client.make_url("")).rstrip("/")


@contextlib.asynccontextmanager
async def _client(client: TestClient, **kwargs: Any) -> AsyncIterator[Client]:
    async with Client(_url(client), retries=kwargs.pop("retries", 3), backoff=0.05, **kwargs) as c:
        yield c


def test_the_doctests() -> None:
    for module in (chouette_client, client_plays):
        failed, tried = doctest.testmod(module)
        assert tried > 0 and failed == 0, module.__name__


async def _act(c: Client, table: str) -> bool:
    """Make this account's next move from its table view, if it has one: roll, or play the
    first of the legal plays. Whether it acted."""
    view = await c.table(table)
    allowed = set(view["allowed"])
    if "move" in allowed:
        plays = view["game"]["legal_plays"]
        await c.move(table, plays[0]["notation"])
    elif "roll" in allowed:
        await c.roll(table)
    elif "take" in allowed:
        await c.send(table, {"type": "take"})
    else:
        return False
    return True


async def _play(players: list[Client], table: str, commands: int) -> None:
    """Send ``commands`` commands between the players, whoever may act."""
    sent = 0
    while sent < commands:
        acted = False
        for c in players:
            if sent < commands and await _act(c, table):
                sent += 1
                acted = True
        assert acted, "nobody could act"


async def _collect(
    c: Client, table: str, out: list[Any], after: int = 0, presence: bool = False
) -> None:
    async for item in c.follow(table, after=after, presence=presence):
        out.append(item)


async def _until(predicate: Any, timeout: float = 10) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.02)


def _route(steps: Any) -> tuple[tuple[int, int, bool], ...]:
    """A route as a multiset of steps (the view lists a play's own order, the tree its own)."""
    return tuple(sorted((int(a), int(b), bool(h)) for a, b, h in steps))


def _versions(items: list[Any], stream: str = "table") -> list[int]:
    return [m.v for m in items if isinstance(m, EventMessage) and m.s == stream]


async def test_sign_in_create_join_and_play_from_the_streams_plays(client: TestClient) -> None:
    async with _client(client) as alice, _client(client) as bob:
        await alice.register(f"alice_{uuid.uuid4().hex[:6]}", "correct horse", "Alice")
        me = alice.account
        assert me is not None
        # Logging in again: a fresh token for the same account.
        again = await alice.login(me.username, "correct horse")
        assert again.account_id == me.account_id and again.token != me.token
        await bob.guest("Bob")
        assert bob.account is not None and bob.account.guest
        table = await alice.create_table("money", name="club night")
        joined = await alice.join(table, seat=0)
        assert joined.events[0].t == "player_joined" and not joined.duplicate
        await bob.join(table)
        seen: list[Any] = []
        follower = asyncio.create_task(_collect(alice, table, seen))
        try:
            # Each throw's plays from its message are exactly the table view's.
            compared = 0
            for _ in range(40):
                await _play([alice, bob], table, 1)
                head = (await alice.table(table))["version"]
                await _until(lambda head=head: _versions(seen)[-1:] == [head])
                last = seen[-1]
                if not (isinstance(last, EventMessage) and last.m and last.m.plays()):
                    continue
                # The player to move: the plays of the throw's message are the view's.
                mover = alice if last.m.player == alice.account_id else bob
                view = await mover.table(table)
                assert view["version"] == last.v
                mine = {frozenset(_route(r) for r in p.routes) for p in last.m.plays()}
                theirs = {
                    frozenset(_route(s) for s in p["steps"]) for p in view["game"]["legal_plays"]
                }
                assert mine == theirs, (last.m.dice, view["game"]["position_id"])
                compared += 1
            assert compared >= 5
        finally:
            follower.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await follower
        versions = _versions(seen)
        assert versions == list(range(1, len(versions) + 1))
        assert [m.t for m in seen[:3]] == ["table_created", "player_joined", "player_joined"]


async def test_a_refused_command_raises_at_once_and_records_nothing(api: Api) -> None:
    table, a, _ = await api.seat_two()
    before = await api.versions(table)
    async with _client(api.client, token=a.token) as c:
        with pytest.raises(ApiError) as refused:
            await c.send(table, {"type": "take"})
        assert 400 <= refused.value.problem.status < 500
        with pytest.raises(ApiError) as bad:
            await c.send(table, {"type": "move", "notation": "x\x00"})
        assert bad.value.problem.status == 400
    assert await api.versions(table) == before


async def test_follow_resumes_after_a_dropped_socket_without_gaps_or_repeats(
    api: Api, app: web.Application
) -> None:
    async with _client(api.client) as alice, _client(api.client) as bob:
        await alice.guest("Alice")
        await bob.guest("Bob")
        table = await alice.create_table("money")
        await alice.join(table)
        await bob.join(table)
        seen: list[Any] = []
        follower = asyncio.create_task(_collect(alice, table, seen))
        try:
            await _play([alice, bob], table, 4)
            head = (await alice.table(table))["version"]
            await _until(lambda: _versions(seen)[-1:] == [head])
            for _ in range(3):
                # The server drops every socket; the follower reconnects and resumes.
                dropped = list(app[SOCKETS])
                assert dropped
                for ws in dropped:
                    await ws.close()
                await _play([alice, bob], table, 3)
                now = (await alice.table(table))["version"]
                await _until(lambda now=now: _versions(seen)[-1:] == [now])
                await _until(lambda old=dropped: any(s not in old for s in app[SOCKETS]))
                head = now
            await alice.send(table, {"type": "chat", "text": "still here"})
            await _until(lambda: _versions(seen, "chat") == [1])
        finally:
            follower.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await follower
    versions = _versions(seen)
    assert versions == list(range(1, head + 1))
    assert not [m for m in seen if isinstance(m, Resynced)]


async def test_a_position_the_server_cannot_resume_from_is_a_resync(api: Api) -> None:
    table, a, _ = await api.seat_two()
    async with _client(api.client, token=a.token) as c:
        seen: list[Any] = []
        follower = asyncio.create_task(_collect(c, table, seen, after=1_000_000))
        try:
            await _until(lambda: bool(seen))
            first = seen[0]
            assert isinstance(first, Resynced) and first.stream == "table"
            assert first.version == first.view["version"] > 0
            await api.ok(a, table, "roll")
            await _until(lambda: len(_versions(seen)) == 1)
        finally:
            follower.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await follower
        assert _versions(seen) == [first.version + 1]


class _LossyProxy:
    """A proxy to the server that loses the answers to the first ``lose`` commands it passes
    on (the command reaches the server and is recorded; the client never hears back): by a
    ``502`` or by closing the connection."""

    def __init__(self, upstream: str, lose: int, how: str) -> None:
        self.upstream, self.lose, self.how = upstream, lose, how
        self.forwarded = 0

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        headers = {k: v for k, v in request.headers.items() if k.lower() != "host"}
        async with (
            aiohttp.ClientSession() as s,
            s.request(
                request.method, self.upstream + request.path_qs, data=body, headers=headers
            ) as resp,
        ):
            answer = await resp.read()
            status, ctype = resp.status, resp.content_type
        if request.path.endswith("/commands"):
            self.forwarded += 1
            if self.forwarded <= self.lose:
                if self.how == "502":
                    return web.Response(status=502, text="bad gateway")
                assert request.transport is not None
                request.transport.close()
                return web.Response(status=500)
        return web.Response(status=status, body=answer, content_type=ctype)


@pytest.mark.parametrize("how", ["502", "disconnect"])
async def test_a_retried_command_is_recorded_once(api: Api, aiohttp_server: Any, how: str) -> None:
    table, a, b = await api.seat_two()
    proxy = _LossyProxy(_url(api.client), lose=2, how=how)
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", proxy.handle)
    server = await aiohttp_server(app)
    before, _ = await api.versions(table)
    command_id = str(uuid.uuid4())
    async with Client(str(server.make_url("")), token=a.token, retries=4, backoff=0.01) as c:
        result = await c.send(table, {"type": "roll"}, command_id=command_id)
    assert proxy.forwarded == 3
    # The first attempt recorded the throw; the two retries answered with its outcome.
    assert result.duplicate and result.command_id == command_id
    after, _ = await api.versions(table)
    assert result.first_version == before + 1 and result.last_version == after
    assert result.events[0].t == "opening_throw"
    assert [e.v for e in result.events] == list(range(before + 1, after + 1))
    view = await api.state(table)
    assert view["version"] == after
    # With no retries left, the lost answer is the caller's to handle.
    proxy.forwarded, proxy.lose = 0, 1
    async with Client(str(server.make_url("")), token=b.token, retries=0) as c:
        with pytest.raises((ApiError, aiohttp.ClientError)):
            await c.send(table, {"type": "chat", "text": "hi"})
