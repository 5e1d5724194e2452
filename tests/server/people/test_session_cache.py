"""The sessions a server remembers (server/access/auth.py, ``SessionCache``): a player's
requests and sockets do not each ask the database who a token is, yet a token revoked or an
account changed through any server of the database is refused or seen changed by every other
within the notification's delivery, and nothing is remembered while notifications are not
heard."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from server.access.auth import ACCOUNTS, Accounts, Session, SessionCache
from server.readmodels.accounts import Account
from tests.server.conftest import Api, User

MakeApi = Callable[..., Awaitable[Api]]


def _accounts(api: Api) -> Accounts:
    return api.app[ACCOUNTS]  # type: ignore[index]


async def _status_within(api: Api, user: User, status: int, seconds: float) -> float:
    """Seconds until ``GET /me`` as ``user`` answers ``status`` (fails after ``seconds``)."""
    start = time.monotonic()
    while True:
        reply = await api.request("GET", "/me", user=user)
        if reply.status == status:
            return time.monotonic() - start
        assert time.monotonic() - start < seconds, reply.body
        await asyncio.sleep(0.01)


async def test_a_players_requests_ask_the_database_once(api: Api) -> None:
    user = await api.register()
    cache = _accounts(api).sessions
    hits = cache.hits
    for _ in range(5):
        assert (await api.request("GET", "/me", user=user)).status == 200
    assert cache.hits - hits >= 4


async def test_a_token_revoked_through_one_server_is_refused_by_another_at_once(
    api: Api, make_api: MakeApi
) -> None:
    other = await make_api()
    user = await api.register()
    for _ in range(3):
        assert (await other.request("GET", "/me", user=user)).status == 200
    assert len(_accounts(other).sessions) >= 1  # remembered there
    assert (await api.request("DELETE", "/sessions", user=user)).status == 204
    (await api.request("GET", "/me", user=user)).problem(401, "unauthorized")  # here at once
    assert await _status_within(other, user, 401, seconds=2.0) < 1.0
    assert len(_accounts(other).sessions) == 0


async def test_logging_out_everywhere_through_one_server_reaches_another(
    api: Api, make_api: MakeApi
) -> None:
    other = await make_api()
    user, bystander = await api.register(), await api.register()
    for who in (user, bystander):
        assert (await other.request("GET", "/me", user=who)).status == 200
    assert (await api.request("DELETE", "/sessions?everywhere=true", user=user)).status == 204
    assert await _status_within(other, user, 401, seconds=2.0) < 1.0
    assert (await other.request("GET", "/me", user=bystander)).status == 200


async def test_a_guest_kept_through_one_server_is_seen_registered_by_another(
    api: Api, make_api: MakeApi
) -> None:
    other = await make_api()
    guest = await api.guest("Pat")
    assert (await other.request("GET", "/me", user=guest)).body["guest"] is True
    kept = await api.request(
        "POST", "/me/account", user=guest, json={"username": "pat_kept", "password": "pw pw pw pw"}
    )
    assert kept.status == 201, kept.body
    fresh = User(kept.body["token"], guest.account_id, "pat_kept", "Pat")
    assert await _status_within(other, guest, 401, seconds=2.0) < 1.0  # the guest's token
    me = await other.request("GET", "/me", user=fresh)
    assert me.status == 200 and me.body["guest"] is False and me.body["username"] == "pat_kept"


def _session(account_id: str = "a1") -> Session:
    return Session(Account(account_id, "u", "U", False), account_id.encode())


def test_nothing_is_remembered_while_notifications_are_not_heard() -> None:
    cache = SessionCache()
    cache.put(_session(), 60.0, cache.epoch)
    assert len(cache) == 0 and cache.get(b"a1") is None
    heard = True
    cache.enabled = lambda: heard
    cache.put(_session(), 60.0, cache.epoch)
    assert cache.get(b"a1") == _session()
    heard = False
    assert cache.get(b"a1") is None


def test_a_lookup_that_began_before_a_revocation_is_not_remembered() -> None:
    cache = SessionCache()
    cache.enabled = lambda: True
    epoch = cache.epoch  # the lookup starts
    cache.forget("someone")  # a revocation is heard while it waits on the database
    cache.put(_session(), 60.0, epoch)
    assert cache.get(b"a1") is None
    cache.put(_session(), 60.0, cache.epoch)
    assert cache.get(b"a1") is not None


def test_a_session_is_remembered_no_longer_than_its_token_lives() -> None:
    cache = SessionCache()
    cache.enabled = lambda: True
    cache.put(_session("short"), 0.05, cache.epoch)
    cache.put(_session("long"), 600.0, cache.epoch)
    assert cache.get(b"short") is not None
    time.sleep(0.08)
    assert cache.get(b"short") is None
    assert cache.get(b"long") is not None
    cache.forget("long")
    assert cache.get(b"long") is None and len(cache) == 0
