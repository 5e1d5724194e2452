"""Rate limits and caps (issue 11, finding 5): one test per limit, each lowered through
:class:`~server.config.Config`; over a limit the answer is a ``429`` problem with ``Retry-After``
and nothing is done. The defaults let a real player's session through untouched."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import pytest

from server.access.ratelimit import MAX_KEYS, TokenBucket
from server.config import Config, Rate
from server.keys import ACCOUNTS_POOL, LOBBY
from tests.server.conftest import Api, Reply, connect, ticket, ws_path

MakeApi = Callable[..., Awaitable[Api]]


async def limited(make_api: MakeApi, **overrides: Any) -> Api:
    """An app with the limits on (the other tests run without them), some lowered."""
    return await make_api(rate_limits=True, **overrides)


def too_many(reply: Reply) -> int:
    """Assert a 429 ``rate-limited`` problem; its ``Retry-After`` in seconds."""
    reply.problem(429, "rate-limited")
    retry_after = int(reply.headers["Retry-After"])
    assert retry_after >= 1
    return retry_after


async def _login(api: Api, username: str, password: str) -> Reply:
    return await api.request("POST", "/sessions", json={"username": username, "password": password})


async def _table_streams(api: Api) -> int:
    pool = api.app[ACCOUNTS_POOL]  # type: ignore[index]
    return int(await pool.fetchval("SELECT count(*) FROM streams WHERE stream_id LIKE 'table-%'"))


# -- the bucket -------------------------------------------------------------------------------


def test_a_bucket_refills_at_its_rate_and_says_how_long_to_wait() -> None:
    now = [0.0]
    bucket = TokenBucket(Rate(3, 60), clock=lambda: now[0])
    assert [bucket.take("k") for _ in range(3)] == [0, 0, 0]
    assert bucket.take("k") == pytest.approx(20)  # one token every 20 s
    now[0] = 19.0
    assert bucket.take("k") == pytest.approx(1)
    now[0] = 20.0
    assert bucket.take("k") == 0
    assert bucket.take("other") == 0  # per key


def test_a_bucket_remembers_a_bounded_number_of_keys() -> None:
    bucket = TokenBucket(Rate(1, 3600), max_keys=3)
    for key in "abcd":
        assert bucket.take(key) == 0
    assert len(bucket) == 3
    assert bucket.take("d") > 0  # the most recent are kept
    assert bucket.take("a") == 0  # the least recently used was forgotten (forgiven)
    assert MAX_KEYS >= 10_000


def test_the_limits_are_configured_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    defaults = Config()
    assert defaults.rate_limits and defaults.rate_commands is not None
    monkeypatch.setenv("CHOUETTE_RATE_GUESTS", "5/1m")
    monkeypatch.setenv("CHOUETTE_RATE_CHAT", "off")
    monkeypatch.setenv("CHOUETTE_RATE_OPEN_TABLES", "3")
    monkeypatch.setenv("CHOUETTE_RATE_MAX_SOCKETS_ADDRESS", "off")
    monkeypatch.setenv("CHOUETTE_TOKEN_TTL", "12h")
    config = Config.from_env()
    assert config.rate_guests == Rate(5, 60.0)
    assert config.rate_chat is None
    assert config.rate_open_tables == 3 and config.rate_max_sockets_address is None
    assert config.token_ttl == 12 * 3600
    monkeypatch.setenv("CHOUETTE_RATE_LIMITS", "off")
    assert Config.from_env().rate_limits is False
    monkeypatch.setenv("CHOUETTE_RATE_TABLES", "lots")
    with pytest.raises(ValueError, match="COUNT/DURATION"):
        Config.from_env()


# -- accounts ---------------------------------------------------------------------------------


async def test_guests_per_address(make_api: MakeApi) -> None:
    api = await limited(make_api, rate_guests=Rate(2, 3600))
    await api.guest()
    await api.guest()
    retry_after = too_many(await api.request("POST", "/guests", json={}))
    assert 1700 <= retry_after <= 1800  # the next of 2 tokens an hour
    pool = api.app[ACCOUNTS_POOL]  # type: ignore[index]
    assert await pool.fetchval("SELECT count(*) FROM accounts") == 2


async def test_registrations_per_address(make_api: MakeApi) -> None:
    api = await limited(make_api, rate_accounts=Rate(2, 3600))
    await api.register()
    await api.register()
    reply = await api.request(
        "POST", "/accounts", json={"username": "third_one", "password": "correct horse"}
    )
    too_many(reply)
    pool = api.app[ACCOUNTS_POOL]  # type: ignore[index]
    assert await pool.fetchval("SELECT count(*) FROM accounts WHERE username = 'third_one'") == 0


async def test_logins_per_address(make_api: MakeApi) -> None:
    api = await limited(make_api, rate_logins_address=Rate(3, 3600))
    users = [await api.register() for _ in range(4)]
    for user in users[:3]:
        assert (await _login(api, user.username, "correct horse")).status == 200
    too_many(await _login(api, users[3].username, "correct horse"))


async def test_logins_per_username(make_api: MakeApi) -> None:
    """Password guessing: after the limit even the right password waits; other usernames and
    the tokens already issued are unaffected."""
    api = await limited(make_api, rate_logins_username=Rate(2, 3600))
    victim, other = await api.register(), await api.register()
    for guess in ("password1", "password2"):
        (await _login(api, victim.username, guess)).problem(401, "unauthorized")
    too_many(await _login(api, victim.username, "correct horse"))
    too_many(await _login(api, victim.username.upper(), "correct horse"))
    assert (await _login(api, other.username, "correct horse")).status == 200
    assert (await api.request("GET", "/me", user=victim)).status == 200


# -- tables -----------------------------------------------------------------------------------


async def test_tables_created_per_account(make_api: MakeApi) -> None:
    api = await limited(make_api, rate_tables=Rate(2, 3600))
    a, b = await api.register(), await api.register()
    await api.create_table(a)
    await api.create_table(a)
    too_many(await api.request("POST", "/tables", user=a, json={"kind": "money"}))
    assert await _table_streams(api) == 2
    await api.create_table(b)  # someone else's bucket


async def test_an_account_over_the_open_tables_cap_creates_nothing(make_api: MakeApi) -> None:
    """With the cap, one account's flood cannot bury the lobby's 500 tables."""
    api = await limited(make_api, rate_open_tables=2)
    a, b = await api.register(), await api.register()
    first_id = str(uuid.uuid4())
    first = await api.request(
        "POST", "/tables", user=a, json={"kind": "money", "command_id": first_id}
    )
    assert first.status == 201
    await api.create_table(a, "match", match_length=3)
    command_id = str(uuid.uuid4())
    reply = await api.request(
        "POST", "/tables", user=a, json={"kind": "chouette", "command_id": command_id}
    )
    too_many(reply)
    assert "open tables" in reply.body["detail"]
    assert await _table_streams(api) == 2
    await api.app[LOBBY].catch_up()  # type: ignore[index]
    lobby = (await api.request("GET", "/tables")).body["tables"]
    assert [t["created_by"] for t in lobby] == [a.account_id] * 2
    # A retry of a table it did create is still answered (nothing new is created).
    again = await api.request(
        "POST", "/tables", user=a, json={"kind": "money", "command_id": first_id}
    )
    assert again.status == 200 and again.body["duplicate"] is True
    # Another account is not held back.
    await api.create_table(b)
    # A refused create (bad options) does not use up the cap.
    c = await api.register()
    for _ in range(3):
        bad = await api.request(
            "POST", "/tables", user=c, json={"kind": "money", "options": {"match_length": 5}}
        )
        bad.problem(400)
    await api.create_table(c)
    await api.create_table(c)


async def test_a_finished_or_idle_table_no_longer_counts_as_open(make_api: MakeApi) -> None:
    api = await limited(make_api, rate_open_tables=1, open_table_idle=0.5)
    a = await api.register()
    await api.create_table(a)
    too_many(await api.request("POST", "/tables", user=a, json={"kind": "money"}))
    await api.app[LOBBY].catch_up()  # type: ignore[index]
    pool = api.app[ACCOUNTS_POOL]  # type: ignore[index]
    await pool.execute("UPDATE lobby_tables SET updated_at = now() - interval '1 minute'")
    await api.create_table(a)  # the first has been idle past open_table_idle


# -- playing ----------------------------------------------------------------------------------


async def test_commands_per_account(make_api: MakeApi) -> None:
    api = await limited(make_api, rate_commands=Rate(3, 60))
    a, b = await api.register(), await api.register()
    table = await api.create_table(a)
    await api.ok(a, table, "join")
    await api.ok(b, table, "join")
    await api.ok(a, table, "chat", text="one")
    await api.ok(a, table, "chat", text="two")  # a's third command
    before = await api.versions(table)
    too_many(await api.send(a, table, {"type": "chat", "text": "three"}))
    assert await api.versions(table) == before
    await api.ok(b, table, "chat", text="b has its own")
    # Over the WebSocket too.
    sock = await connect(api.client, table, a)
    reply = await sock.command({"type": "chat", "text": "four"})
    assert reply["ctl"] == "error" and reply["problem"]["status"] == 429, reply
    assert reply["problem"]["type"].endswith("/rate-limited")
    await sock.close()


async def test_chat_per_account(make_api: MakeApi) -> None:
    api = await limited(make_api, rate_chat=Rate(2, 60))
    table, a, _ = await api.seat_two("money")
    await api.ok(a, table, "chat", text="one")
    await api.ok(a, table, "chat", text="two")
    before = await api.versions(table)
    too_many(await api.send(a, table, {"type": "chat", "text": "three"}))
    assert await api.versions(table) == before
    await api.ok(a, table, "roll")  # other commands go on: the opening throw


# -- streams ----------------------------------------------------------------------------------


async def test_stream_connections_per_account(make_api: MakeApi) -> None:
    """Counted as tickets are issued (a browser's connections), or as a connection with the
    header is made."""
    api = await limited(make_api, rate_sockets_account=Rate(3, 60))
    table, a, b = await api.seat_two("money")
    await ticket(api.client, a)
    await ticket(api.client, a)
    ws = await api.client.ws_connect(f"/tables/{table}/ws", headers=a.headers)
    await ws.close()
    too_many(await api.request("POST", "/tickets", user=a))
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await api.client.ws_connect(f"/tables/{table}/ws", headers=a.headers)
    assert refused.value.status == 429
    assert (await api.request("POST", "/tickets", user=b)).status == 201


async def test_stream_connections_per_address_anonymous_too(make_api: MakeApi) -> None:
    api = await limited(make_api, rate_sockets_address=Rate(3, 60))
    table, a, _ = await api.seat_two("money")
    first = await connect(api.client, table)
    async with api.client.get(f"/tables/{table}/events") as events:
        assert events.status == 200
    second = await connect(api.client, table, a)
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await api.client.ws_connect(ws_path(table))
    assert refused.value.status == 429
    assert int(refused.value.headers["Retry-After"]) >= 1  # type: ignore[index]
    too_many(await api.request("GET", f"/tables/{table}/events"))
    await first.close()
    await second.close()


async def test_open_stream_connections_per_account(make_api: MakeApi) -> None:
    api = await limited(make_api, rate_max_sockets_account=2)
    table, a, b = await api.seat_two("money")
    one, two = await connect(api.client, table, a), await connect(api.client, table, a)
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await api.client.ws_connect(ws_path(table, await ticket(api.client, a)))
    assert refused.value.status == 429
    reply = await api.request("GET", f"/tables/{table}/events", user=a)
    too_many(reply)
    assert "open connections" in reply.body["detail"]
    other = await connect(api.client, table, b)  # b's own
    await one.close()
    three = await connect(api.client, table, a)  # one was freed
    for sock in (two, three, other):
        await sock.close()


async def test_open_stream_connections_per_address(make_api: MakeApi) -> None:
    api = await limited(make_api, rate_max_sockets_address=2)
    table, a, _ = await api.seat_two("money")
    one = await connect(api.client, table)
    events = await api.client.get(f"/tables/{table}/events")
    assert events.status == 200
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await api.client.ws_connect(ws_path(table, await ticket(api.client, a)))
    assert refused.value.status == 429
    events.close()
    await one.close()
    # The SSE stream's slot frees once the server notices the client left (its next write);
    # the socket's at once.
    two = await connect(api.client, table)
    await two.close()


async def test_the_address_behind_a_proxy_is_the_forwarded_one(make_api: MakeApi) -> None:
    api = await limited(make_api, rate_guests=Rate(1, 3600), behind_proxy=True)
    for address in ("203.0.113.7", "2001:db8::1"):
        forwarded = {"X-Forwarded-For": f"10.0.0.1, {address}"}
        reply = await api.request("POST", "/guests", json={}, headers=forwarded)
        assert reply.status == 201
        too_many(await api.request("POST", "/guests", json={}, headers=forwarded))
    # An IPv6 client is one /64: another address in it shares the bucket.
    same_net = {"X-Forwarded-For": "2001:db8::2"}
    too_many(await api.request("POST", "/guests", json={}, headers=same_net))
    # Without behind_proxy the header is not trusted: it is the peer's address that counts.
    plain = await limited(make_api, rate_guests=Rate(1, 3600))
    assert (await plain.request("POST", "/guests", json={}, headers=same_net)).status == 201
    too_many(await plain.request("POST", "/guests", json={}, headers={"X-Forwarded-For": "x"}))


# -- the defaults -----------------------------------------------------------------------------


async def test_a_real_players_evening_never_meets_the_default_limits(
    make_api: MakeApi,
) -> None:
    api = await limited(make_api)
    users = [await api.register() for _ in range(6)]
    for user in users:
        assert (await _login(api, user.username, "correct horse")).status == 200
    guests = [await api.guest() for _ in range(6)]
    tables = [await api.create_table(users[0], "money") for _ in range(3)]
    table = tables[0]
    await api.ok(users[0], table, "join")
    await api.ok(users[1], table, "join")
    sockets = [await connect(api.client, table, u) for u in (*users[:2], *guests[:3])]
    for i in range(20):
        await api.ok(users[i % 2], table, "chat", text=f"message {i}")
    for sock in sockets:
        await sock.close()
