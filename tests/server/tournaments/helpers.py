"""What the tournaments' tests share: creating one over HTTP, waiting for the server's runner,
and finishing a match table quickly by the rules (an opening throw, then a forfeit)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from tests.server.conftest import Api, User


async def create(api: Api, director: User, **options: Any) -> str:
    r = await api.request(
        "POST", "/tournaments", user=director, json={"options": options, "name": "Club night"}
    )
    assert r.status == 201, r.body
    return str(r.body["id"])


async def view(api: Api, tid: str, user: User | None = None) -> dict[str, Any]:
    r = await api.request("GET", f"/tournaments/{tid}", user=user)
    assert r.status == 200, r.body
    return dict(r.body)


async def until(
    api: Api, tid: str, done: Callable[[dict[str, Any]], bool], timeout: float = 20
) -> dict[str, Any]:
    """The tournament's state once ``done`` holds (the runner works in the background)."""
    end = time.monotonic() + timeout
    while True:
        v = await view(api, tid)
        if done(v):
            return v
        assert time.monotonic() < end, v
        await asyncio.sleep(0.05)


async def seated(
    api: Api, table_id: str, user: User | None = None, timeout: float = 20
) -> dict[str, Any]:
    """The match table once both its players are seated (created by the runner)."""
    end = time.monotonic() + timeout
    while True:
        r = await api.request("GET", f"/tables/{table_id}", user=user)
        if r.status == 200 and all(r.body.get("seats") or [None]):
            return dict(r.body)
        assert time.monotonic() < end, r.body
        await asyncio.sleep(0.05)


def tables_ready(number: int) -> Callable[[dict[str, Any]], bool]:
    """Round ``number`` is paired."""
    return lambda v: len(v["rounds"]) >= number


async def forfeit(api: Api, table_id: str, users: dict[str, User], loser: str) -> None:
    """Seat 0 throws the opening throw, then ``loser`` leaves: a forfeit of the match."""
    s = await seated(api, table_id)
    await api.ok(users[s["seats"][0]], table_id, "roll")
    await api.ok(users[loser], table_id, "leave")
