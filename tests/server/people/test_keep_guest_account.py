"""A guest kept as an account (issue 29): ``POST /me/account`` turns the calling guest into a
registered account with the same account id, so that its seat, its ledger, its private tables
and its profile stay its own; every bad request is refused with nothing changed."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any

from server.config import Rate
from server.keys import ACCOUNTS_POOL, CONFIG
from tests.server.conftest import Api, Reply, User

MakeApi = Callable[..., Awaitable[Api]]
PASSWORD = "a guest no more"


async def keep(api: Api, user: User | None, body: Any, **headers: str) -> Reply:
    h = dict(user.headers if user else {})
    h.update(headers)
    return await api.request("POST", "/me/account", json=body, headers=h)


async def me(api: Api, token: str) -> Reply:
    return await api.request("GET", "/me", headers={"Authorization": f"Bearer {token}"})


async def log_in(api: Api, username: str, password: str = PASSWORD) -> Reply:
    return await api.request("POST", "/sessions", json={"username": username, "password": password})


async def my_tables(api: Api, user: User, expected: list[str]) -> list[dict[str, Any]]:
    """``GET /me/tables`` once it lists ``expected`` (a projection: a moment behind the log)."""
    for _ in range(100):
        reply = await api.request("GET", "/me/tables", user=user)
        assert reply.status == 200, reply.body
        tables: list[dict[str, Any]] = reply.body["tables"]
        if [t["table_id"] for t in tables] == expected:
            return tables
        await asyncio.sleep(0.05)
    raise AssertionError(f"GET /me/tables never listed {expected}: {tables}")


async def test_a_kept_guest_keeps_its_id_seat_ledger_tables_and_profile(api: Api) -> None:
    guest = await api.guest("Gwen")
    rival = await api.register()
    # A money game played to its end: the guest has a ledger line at a table it still sits at.
    money = await api.create_table(rival, "money")
    await api.ok(rival, money, "join")
    await api.ok(guest, money, "join")
    ended = await api.play_out(
        money, {guest.account_id: guest, rival.account_id: rival}, random.Random(29)
    )
    ledger = ended["ledger"]
    assert ledger[guest.account_id] != 0 and sum(ledger.values()) == 0
    # And a private table of its own, which GET /me/tables lists.
    private = await api.create_table(guest, "money", private=True)
    await api.ok(guest, private, "join")
    before = await my_tables(api, guest, [private])
    seat_before = await api.state(money, guest)
    assert seat_before["role"] == "player"

    kept = await keep(api, guest, {"username": "gwen_kept", "password": PASSWORD})
    assert kept.status == 201, kept.body
    assert kept.body["account_id"] == guest.account_id
    assert kept.body["username"] == "gwen_kept" and kept.body["display_name"] == "Gwen"
    assert kept.body["guest"] is False and kept.body["token"] != guest.token
    assert kept.body["expires_in"] == api.app[CONFIG].token_ttl  # type: ignore[index]
    now = User(kept.body["token"], guest.account_id, "gwen_kept", "Gwen")

    # The fresh token is a registered account's; every token the guest had is revoked.
    assert (await me(api, now.token)).body == {
        "account_id": guest.account_id,
        "username": "gwen_kept",
        "display_name": "Gwen",
        "guest": False,
        "bot": False,
    }
    (await me(api, guest.token)).problem(401, "unauthorized")
    pool = api.app[ACCOUNTS_POOL]  # type: ignore[index]
    lifetimes = await pool.fetch(
        "SELECT extract(epoch FROM expires_at - created_at) AS ttl, revoked_at IS NULL AS live"
        " FROM tokens WHERE account_id = $1 ORDER BY created_at",
        guest.account_id,
    )
    live = [r["ttl"] for r in lifetimes if r["live"]]
    assert len(live) == 1 and len(lifetimes) == 2
    assert abs(float(live[0]) - api.app[CONFIG].token_ttl) < 5  # type: ignore[index]

    # The seat, the ledger and the private table are the account's still.
    seat_after = await api.state(money, now)
    assert seat_after["role"] == "player"
    assert seat_after["ledger"] == ledger
    assert await my_tables(api, now, [private]) == before
    assert (await api.state(private, now))["role"] != "spectator"

    # Its profile is under the new name, with the same history; the guest's name is gone.
    profile = await api.request("GET", "/players/gwen_kept", user=now)
    assert profile.status == 200, profile.body
    assert profile.body["account_id"] == guest.account_id and profile.body["guest"] is False
    assert profile.body["display_name"] == "Gwen"
    by_id = await api.request("GET", f"/players/{guest.account_id}")
    assert by_id.body["username"] == "gwen_kept"
    (await api.request("GET", f"/players/{guest.username}")).problem(404)

    # It logs in with the password now; the guest's username logs nobody in.
    login = await log_in(api, "gwen_kept")
    assert login.status == 200 and login.body["account_id"] == guest.account_id
    (await log_in(api, guest.username)).problem(401, "unauthorized")

    # Kept once: a second time is refused, and so is a registered account from the start.
    again = await keep(api, now, {"username": "gwen_again", "password": PASSWORD})
    again.problem(409, "not-a-guest")
    registered = await keep(api, rival, {"username": "rival_again", "password": PASSWORD})
    registered.problem(409, "not-a-guest")
    (await log_in(api, "gwen_again")).problem(401)
    (await log_in(api, "rival_again")).problem(401)
    assert (await me(api, rival.token)).body["username"] == rival.username


async def test_a_kept_guest_may_join_a_table_for_registered_accounts(api: Api) -> None:
    host = await api.register()
    table = await api.create_table(host, "money", registered_only=True)
    guest = await api.guest("Hal")
    refused = await api.send(guest, table, {"type": "join"})
    refused.problem(403)
    kept = await keep(api, guest, {"username": "hal_kept", "password": PASSWORD})
    assert kept.status == 201, kept.body
    now = User(kept.body["token"], guest.account_id, "hal_kept", "Hal")
    await api.ok(now, table, "join")
    assert (await api.state(table, now))["role"] == "player"


async def expect_unchanged(api: Api, guest: User, tried: str) -> None:
    """The guest is as it was: a guest, under its name, its token good; ``tried`` is nobody's."""
    mine = await me(api, guest.token)
    assert mine.status == 200, mine.body
    assert mine.body["guest"] is True and mine.body["username"] == guest.username
    (await log_in(api, tried)).problem(401)
    pool = api.app[ACCOUNTS_POOL]  # type: ignore[index]
    assert await pool.fetchval("SELECT count(*) FROM accounts WHERE username = $1", tried) == 0
    assert (
        await pool.fetchval(
            "SELECT count(*) FROM tokens WHERE account_id = $1 AND revoked_at IS NULL",
            guest.account_id,
        )
        == 1
    )


async def test_bad_requests_change_nothing(api: Api) -> None:
    guest = await api.guest("Ivy")
    taken = await api.register("ivy_taken")
    ok = {"username": "ivy_kept", "password": PASSWORD}
    cases: list[tuple[Any, int, str | None, str | None]] = [
        ({"username": "iv", "password": PASSWORD}, 400, None, "username"),
        ({"username": "has space", "password": PASSWORD}, 400, None, "username"),
        ({"username": "x" * 33, "password": PASSWORD}, 400, None, "username"),
        ({"username": "ivy\u0000kept", "password": PASSWORD}, 400, None, "username"),
        ({"username": "ivy\u0007kept", "password": PASSWORD}, 400, None, "username"),
        ({"username": "ivy_kept", "password": "short"}, 400, None, "password"),
        ({"username": "ivy_kept", "password": "long\u0000enough"}, 400, None, "password"),
        ({"username": "ivy_kept", "password": "long\u001benough"}, 400, None, "password"),
        ({"username": "ivy_kept", "password": "p" * 257}, 400, None, "password"),
        ({"username": "ivy_kept", "password": 12345678}, 400, None, "password"),
        ({**ok, "display_name": "Ivy Two"}, 400, None, "display_name"),
        ({**ok, "guest": False}, 400, None, "guest"),
        ({"password": PASSWORD}, 400, None, None),
        ([ok], 400, None, None),
        ({"username": taken.username, "password": PASSWORD}, 409, "username-taken", "username"),
    ]
    for body, status, slug, field in cases:
        problem = (await keep(api, guest, body)).problem(status, slug)
        if field:
            assert problem.get("field") == field, (body, problem)
    tried = ok["username"]
    await expect_unchanged(api, guest, tried)
    # Not JSON, the wrong content type, no body, too large a body.
    huge = b'{"username": "ivy_kept", "password": "' + b"p" * 70_000 + b'"}'
    raw = [
        (b"{not json", "application/json", 400),
        (b'{"username": "ivy_kept", "password": "a guest no more"}', "text/plain", 400),
        (b"", "application/json", 400),
        (huge, "application/json", 413),
    ]
    for data, ctype, status in raw:
        reply = await api.request(
            "POST",
            "/me/account",
            data=data,
            headers={**guest.headers, "Content-Type": ctype},
        )
        reply.problem(status)
    # Without a token, or with a wrong one: 401, whatever the body.
    (await keep(api, None, ok)).problem(401, "unauthorized")
    (await keep(api, None, ok, Authorization="Bearer not-a-token")).problem(401, "unauthorized")
    (await keep(api, None, ok, Authorization="Basic abc")).problem(401, "unauthorized")
    await expect_unchanged(api, guest, tried)
    # The taken username's owner is untouched.
    assert (await me(api, taken.token)).body["account_id"] == taken.account_id
    # And after all that, the request that is right works.
    kept = await keep(api, guest, ok)
    assert kept.status == 201 and kept.body["account_id"] == guest.account_id


async def test_keeping_a_guest_is_rate_limited_as_registering(make_api: MakeApi) -> None:
    api = await make_api(rate_limits=True, rate_accounts=Rate(1, 3600))
    first, second = await api.guest("Jo"), await api.guest("Kit")
    kept = await keep(api, first, {"username": "jo_kept", "password": PASSWORD})
    assert kept.status == 201, kept.body
    limited = await keep(api, second, {"username": "kit_kept", "password": PASSWORD})
    limited.problem(429, "rate-limited")
    assert int(limited.headers["Retry-After"]) > 0
    await expect_unchanged(api, second, "kit_kept")
