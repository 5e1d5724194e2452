"""Sessions and passwords (issue 11, findings 4 and 6): Argon2id off the event loop, scrypt
hashes upgraded on login, tokens only in the ``Authorization`` header, single-use tickets for
the streams, tokens that expire, logging out everywhere, sockets that stop for a revoked token,
and the auditor token compared in constant time."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import secrets
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import pytest
from aiohttp import WSCloseCode
from aiohttp.test_utils import TestClient

from server.access import auth
from server.http.streams import SessionWatch
from server.keys import ACCOUNTS_POOL
from tests.server.conftest import Api, User, WsClient, connect, read_sse, ticket, ws_path

MakeApi = Callable[..., Awaitable[Api]]


async def _login(api: Api, username: str, password: str) -> Any:
    return await api.request("POST", "/sessions", json={"username": username, "password": password})


# -- passwords --------------------------------------------------------------------------------


async def test_new_passwords_are_argon2id_at_owasp_parameters(api: Api) -> None:
    user = await api.register(password="correct horse")
    pool = api.app[ACCOUNTS_POOL]  # type: ignore[index]
    row = await pool.fetchrow(
        "SELECT password_phc, password_hash, salt FROM accounts WHERE account_id = $1",
        user.account_id,
    )
    assert row["password_phc"].startswith("$argon2id$v=19$m=19456,t=2,p=1$"), row
    assert row["password_hash"] is None and row["salt"] is None
    assert (await _login(api, user.username, "correct horse")).status == 200
    (await _login(api, user.username, "wrong horse")).problem(401, "unauthorized")


async def test_a_scrypt_hash_is_upgraded_to_argon2id_on_login(api: Api) -> None:
    """An account from before Argon2id (migration 010's scrypt columns) logs in as before, and
    its hash is replaced by Argon2id; a wrong password changes nothing."""
    pool = api.app[ACCOUNTS_POOL]  # type: ignore[index]
    salt = secrets.token_bytes(16)
    account_id = f"u_{uuid.uuid4().hex}"
    await pool.execute(
        "INSERT INTO accounts (account_id, username, display_name, password_hash, salt,"
        " scrypt_n, scrypt_r, scrypt_p) VALUES ($1, 'oldtimer', 'Old Timer', $2, $3, $4, $5, $6)",
        account_id,
        auth.scrypt_hash("hunter2hunter2", salt),
        salt,
        *(auth.SCRYPT_N, auth.SCRYPT_R, auth.SCRYPT_P),
    )
    query = "SELECT password_phc, password_hash FROM accounts WHERE account_id = $1"

    (await _login(api, "oldtimer", "not the password")).problem(401, "unauthorized")
    row = await pool.fetchrow(query, account_id)
    assert row["password_phc"] is None and row["password_hash"] is not None

    reply = await _login(api, "oldtimer", "hunter2hunter2")
    assert reply.status == 200 and reply.body["account_id"] == account_id
    row = await pool.fetchrow(query, account_id)
    assert row["password_phc"].startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    assert row["password_hash"] is None
    # The new hash takes the same password, and only it.
    assert (await _login(api, "oldtimer", "hunter2hunter2")).status == 200
    (await _login(api, "oldtimer", "hunter2hunter3")).problem(401)


async def test_wrong_password_logins_do_not_stall_the_event_loop(api: Api) -> None:
    """Eight concurrent wrong-password logins leave ``/healthz`` as quick as it was: the hashes
    run off the event loop. On the loop, each health check waited for hashes (~50 ms each),
    so the bound is set relative to one login's time, not in absolute terms."""
    user = await api.register(password="correct horse")
    await _login(api, user.username, "warm up the hasher")

    async def timed(coro: Awaitable[Any]) -> float:
        start = time.perf_counter()
        await coro
        return time.perf_counter() - start

    async def wrong_login(i: int) -> None:
        (await _login(api, user.username, f"wrong password {i}")).problem(401, "unauthorized")

    single = statistics.median([await timed(wrong_login(i)) for i in range(3)])
    quiet = [await timed(api.request("GET", "/healthz")) for _ in range(10)]

    logins = [asyncio.create_task(_login(api, user.username, f"wrong horse {i}")) for i in range(8)]
    busy: list[float] = []
    while not all(t.done() for t in logins) or len(busy) < 3:
        busy.append(await timed(api.request("GET", "/healthz")))
        await asyncio.sleep(0.005)
    for t in logins:
        assert (await t).status == 401
    # A health check in the burst takes far less than one hash; none takes two.
    assert statistics.median(busy) < statistics.median(quiet) + single / 2, (busy, single)
    assert max(busy) < max(quiet) + 2 * single, (busy, single)


# -- tokens only in the header ----------------------------------------------------------------


async def test_a_token_in_the_url_is_refused_everywhere(api: Api, client: TestClient) -> None:
    table, a, _ = await api.seat_two("money")
    for method, path in (
        ("GET", "/me"),
        ("GET", f"/tables/{table}"),
        ("GET", f"/tables/{table}/replay"),
        ("GET", f"/tables/{table}/events"),
        ("POST", "/tickets"),
        ("DELETE", "/sessions"),
    ):
        reply = await api.request(method, f"{path}?token={a.token}")
        problem = reply.problem(401, "unauthorized")
        assert "Authorization" in problem["detail"] and "ticket" in problem["detail"], problem
        assert a.token not in problem["detail"]
    # Even beside a good header: the token in the URL has leaked, the client must be fixed.
    reply = await api.request("GET", f"/me?token={a.token}", user=a)
    reply.problem(401, "unauthorized")
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await client.ws_connect(f"/tables/{table}/ws?token={a.token}")
    assert refused.value.status == 401
    # The token itself is still good (it was refused, not revoked).
    assert (await api.request("GET", "/me", user=a)).status == 200


# -- tickets ----------------------------------------------------------------------------------


async def test_a_ticket_opens_one_stream_as_its_account(api: Api, client: TestClient) -> None:
    table, a, _ = await api.seat_two("money")
    (await api.request("POST", "/tickets")).problem(401, "unauthorized")
    reply = await api.request("POST", "/tickets", user=a)
    assert reply.status == 201, reply.body
    issued = reply.body["ticket"]
    assert reply.body["expires_in"] == 30
    assert len(issued) >= 43  # 32 random bytes, URL-safe base64
    # Only its SHA-256 is kept.
    pool = api.app[ACCOUNTS_POOL]  # type: ignore[index]
    stored = await pool.fetchval("SELECT ticket_hash FROM stream_tickets")
    assert bytes(stored) == hashlib.sha256(issued.encode()).digest()

    ws = await client.ws_connect(ws_path(table, issued))
    sock = WsClient(ws).start()
    answer = await sock.command({"type": "chat", "text": "hello as myself"})
    assert answer["ctl"] == "result", answer
    assert answer["events"][0]["d"]["player"] == a.account_id
    await sock.close()
    assert await pool.fetchval("SELECT count(*) FROM stream_tickets") == 0

    # Used: a second connection with it is refused, on either stream.
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await client.ws_connect(ws_path(table, issued))
    assert refused.value.status == 401
    reply = await api.request("GET", f"/tables/{table}/events?ticket={issued}")
    assert "POST /tickets" in reply.problem(401, "unauthorized")["detail"]
    for forged in ("x", secrets.token_urlsafe(32)):
        reply = await api.request("GET", f"/tables/{table}/events?ticket={forged}")
        reply.problem(401, "unauthorized")

    # Over SSE a fresh ticket works the same way.
    sse_ticket = await ticket(client, a)
    async with client.get(f"/tables/{table}/events?ticket={sse_ticket}") as resp:
        assert resp.status == 200
        head, _ = await api.versions(table)
        assert len(await read_sse(resp, head)) == head


async def test_an_expired_ticket_is_refused(make_api: MakeApi) -> None:
    api = await make_api(ticket_ttl=0.3)
    table, a, _ = await api.seat_two("money")
    issued = await ticket(api.client, a)
    await asyncio.sleep(0.6)
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await api.client.ws_connect(ws_path(table, issued))
    assert refused.value.status == 401


async def test_a_ticket_of_a_revoked_token_is_refused(api: Api, client: TestClient) -> None:
    table, a, _ = await api.seat_two("money")
    issued = await ticket(client, a)
    assert (await api.request("DELETE", "/sessions", user=a)).status == 204
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await client.ws_connect(ws_path(table, issued))
    assert refused.value.status == 401


# -- expiry -----------------------------------------------------------------------------------


async def test_tokens_expire(make_api: MakeApi) -> None:
    api = await make_api(token_ttl=0.5, guest_token_ttl=60)
    user, guest = await api.register(), await api.guest()
    assert (await api.request("GET", "/me", user=user)).status == 200
    await asyncio.sleep(0.8)
    problem = (await api.request("GET", "/me", user=user)).problem(401, "unauthorized")
    assert "expired" in problem["detail"]
    (await api.request("POST", "/tickets", user=user)).problem(401)
    assert (await api.request("GET", "/me", user=guest)).status == 200  # its own lifetime
    # Logging in again gives a fresh token.
    reply = await _login(api, user.username, "correct horse")
    assert reply.status == 200
    fresh = {"Authorization": f"Bearer {reply.body['token']}"}
    assert (await api.request("GET", "/me", headers=fresh)).status == 200


async def test_default_lifetimes_are_30_days_for_accounts_and_7_for_guests(api: Api) -> None:
    user, guest = await api.register(), await api.guest()
    pool = api.app[ACCOUNTS_POOL]  # type: ignore[index]
    days = {
        r["account_id"]: r["days"]
        for r in await pool.fetch(
            "SELECT account_id, extract(epoch FROM expires_at - created_at) / 86400 AS days"
            " FROM tokens"
        )
    }
    assert round(days[user.account_id]) == 30 and round(days[guest.account_id]) == 7


# -- logging out, and the sockets of a revoked token ------------------------------------------


async def _closed_within(sock: WsClient, seconds: float) -> None:
    async with asyncio.timeout(seconds):
        assert sock.task is not None
        await sock.task


async def _second_session(api: Api, user: User) -> User:
    """Another token of the same account (logging in again, on another device)."""
    reply = await _login(api, user.username, "correct horse")
    assert reply.status == 200, reply.body
    return User(reply.body["token"], user.account_id, user.username, user.display_name)


async def test_log_out_everywhere_revokes_every_token_of_the_account(api: Api) -> None:
    a, b = await api.register(), await api.register()
    second = await _second_session(api, a)
    (await api.request("DELETE", "/sessions?everywhere=maybe", user=a)).problem(400)
    assert (await api.request("DELETE", "/sessions?everywhere=true", user=a)).status == 204
    for user in (a, second):
        (await api.request("GET", "/me", user=user)).problem(401, "unauthorized")
        (await api.request("POST", "/tickets", user=user)).problem(401, "unauthorized")
    assert (await api.request("GET", "/me", user=b)).status == 200  # nobody else's


async def test_a_command_on_the_socket_of_a_revoked_token_is_refused_and_closes_it(
    make_api: MakeApi,
) -> None:
    # The periodic check is slow here: the refusal comes from the command's own check.
    api = await make_api(session_check=60)
    table, a, _ = await api.seat_two("money")
    sock = await connect(api.client, table, a)
    assert (await sock.command({"type": "chat", "text": "before"}))["ctl"] == "result"
    assert (await api.request("DELETE", "/sessions?everywhere=true", user=a)).status == 204
    before = await api.versions(table)
    refused = await sock.command({"type": "chat", "text": "after"})
    assert refused["ctl"] == "error" and refused["problem"]["status"] == 401, refused
    assert await api.versions(table) == before
    await _closed_within(sock, 5)
    assert sock.ws.close_code == WSCloseCode.POLICY_VIOLATION


async def test_the_streams_of_a_revoked_token_are_closed_within_seconds(
    make_api: MakeApi,
) -> None:
    api = await make_api(session_check=0.5)
    table, a, _ = await api.seat_two("money")
    second = await _second_session(api, a)
    idle = await connect(api.client, table, a)
    events = await api.client.get(f"/tables/{table}/events?ticket={await ticket(api.client, a)}")
    head, _ = await api.versions(table)
    assert len(await read_sse(events, head)) == head
    await asyncio.sleep(1)  # checked and still good
    assert idle.task is not None and not idle.task.done()

    assert (await api.request("DELETE", "/sessions?everywhere=true", user=second)).status == 204
    # A socket that sends nothing is closed by the server, and the event stream ends.
    await _closed_within(idle, 5)
    assert idle.ws.close_code == WSCloseCode.POLICY_VIOLATION
    async with asyncio.timeout(5):
        while await events.content.readline():
            pass
    events.close()


async def test_logging_out_stops_only_that_tokens_sockets(make_api: MakeApi) -> None:
    api = await make_api(session_check=0.2)
    table, a, _ = await api.seat_two("money")
    second = User(
        (await _login(api, a.username, "correct horse")).body["token"],
        a.account_id,
        a.username,
        a.display_name,
    )
    leaving = await connect(api.client, table, a)
    staying = await connect(api.client, table, second)
    assert (await api.request("DELETE", "/sessions", user=a)).status == 204
    await _closed_within(leaving, 5)
    assert leaving.ws.close_code == WSCloseCode.POLICY_VIOLATION
    await asyncio.sleep(0.5)
    assert staying.task is not None and not staying.task.done()
    reply = await staying.command({"type": "chat", "text": "still here"})
    assert reply["ctl"] == "result", reply
    await staying.close()


async def test_a_socket_whose_token_expires_is_closed(make_api: MakeApi) -> None:
    api = await make_api(session_check=0.2, token_ttl=1.0)
    table, a, _ = await api.seat_two("money")
    sock = await connect(api.client, table, a)
    await _closed_within(sock, 6)
    assert sock.ws.close_code == WSCloseCode.POLICY_VIOLATION


# -- the auditor token ------------------------------------------------------------------------


async def test_the_auditor_token_is_compared_in_constant_time(
    make_api: MakeApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = await make_api(auditor_token="let-me-audit")
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    headers = {"Authorization": "Bearer let-me-audit"}
    assert (await api.request("GET", "/log", headers=headers)).status == 200
    assert (b"let-me-audit", b"let-me-audit") in calls
    calls.clear()
    wrong = {"Authorization": "Bearer let-me-auditX"}
    (await api.request("GET", "/log", headers=wrong)).problem(403, "forbidden")
    assert (b"let-me-auditX", b"let-me-audit") in calls


async def test_a_socket_opened_while_the_tokens_are_checked_is_not_stopped() -> None:
    """The watch judges only the tokens it asked about: a socket that opened during the query
    (its token not in the answer) is left alone until the next check."""
    gate = asyncio.Event()

    class SlowAccounts:
        async def valid_tokens(self, hashes: list[bytes]) -> set[bytes]:
            await gate.wait()
            return set()  # every token asked about has been revoked

    watch = SessionWatch(SlowAccounts(), 60)  # type: ignore[arg-type]
    account = auth.Account("u_1", "ann", "Ann")
    stopped: list[str] = []

    async def stop(name: str) -> None:
        stopped.append(name)

    with watch.watching(auth.Session(account, b"old"), functools.partial(stop, "old")):
        check = asyncio.create_task(watch.check())
        await asyncio.sleep(0)
        with watch.watching(auth.Session(account, b"new"), functools.partial(stop, "new")):
            gate.set()
            await check
            await asyncio.sleep(0)
    assert stopped == ["old"]
