"""A long-running chouette costs the same memory at its twelfth game as at its sixth: the
folded state keeps only the last few finished games, and ``GET /tables/{id}/history`` pages
every one of them back from the store."""

from __future__ import annotations

import gc
import random
import sys
from typing import Any

from aiohttp.test_utils import TestClient

from events.domain.chouette_table import HISTORY_HELD
from server.keys import TABLES
from tests.server.conftest import Api, User, chouette


def deep_size(root: object) -> int:
    """The bytes of every object reachable from ``root`` (shared immortal ones included once)."""
    seen: set[int] = set()
    stack = [root]
    total = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        stack.extend(gc.get_referents(obj))
    return total


async def quick_game(api: Api, table: str, users: dict[str, User], rng: random.Random) -> None:
    """Play the current game to its end the short way: whoever is on roll doubles when they
    may, and every double is dropped."""
    number = (await api.state(table))["game"]["number"]
    for _ in range(500):
        s = await api.state(table)
        g = s.get("game")
        if g is None or g["number"] != number or g["phase"] == "over":
            return
        if g["phase"] == "opening":
            await api.ok(users[s["box"]], table, "roll")
            continue
        pending = [c for c in g["cubes"] if c["in_game"] and c["pending"]]
        if pending:
            c = pending[0]
            if c["pending"]["to_answer"] == s["box"]:
                await api.ok(users[s["box"]], table, "drop", cube=c["member"])
            else:
                await api.ok(users[c["member"]], table, "drop")
            continue
        roller = g["on_roll"]
        mine = await api.state(table, users[roller])
        if g["phase"] == "roll" and "double" in mine["allowed"]:
            await api.ok(users[roller], table, "double")
        elif g["phase"] == "roll":
            await api.ok(users[roller], table, "roll")
        else:
            play = rng.choice(g["legal_plays"])["notation"]
            await api.ok(users[roller], table, "move", notation=play)
    raise AssertionError(f"game {number} did not end")


async def test_history_is_paged_from_the_store_and_the_state_does_not_grow(
    api: Api, client: TestClient
) -> None:
    table, users = await chouette(api, 4)
    rng = random.Random(4)
    tables = api.app[TABLES] if api.app is not None else None
    assert tables is not None
    sizes: dict[int, int] = {}
    for game in range(1, 13):
        await quick_game(api, table, users, rng)
        state = await tables.state(table)
        assert state.chouette is not None
        assert len(state.chouette.history) == min(game, HISTORY_HELD)
        if game in (6, 12):
            sizes[game] = deep_size(state)
    # The same memory at game 12 as at game 6 (give or take a board and a ledger entry).
    assert sizes[12] <= sizes[6] * 1.1, sizes

    view = await api.state(table)
    assert [h["game"] for h in view["history"]] == list(range(13 - HISTORY_HELD, 13))

    async def page(**query: Any) -> Any:
        r = await api.request(
            "GET", f"/tables/{table}/history?" + "&".join(f"{k}={v}" for k, v in query.items())
        )
        assert r.status == 200, r.body
        return r.body

    every = await page(limit=50)
    assert [g["game"] for g in every["games"]] == list(range(1, 13))
    assert every["next_before"] is None
    # The store's account of the last games is the view's.
    assert every["games"][-HISTORY_HELD:] == view["history"]
    for g in every["games"]:
        assert g["box"] in users and g["captain"] in users and g["box"] != g["captain"]
        assert g["settlements"] and all(st["how"] == "drop" for st in g["settlements"])
    # Page back from the end.
    seen: list[int] = []
    before: int | None = None
    while True:
        got = await page(limit=5, **({"before": before} if before else {}))
        seen = [g["game"] for g in got["games"]] + seen
        before = got["next_before"]
        if before is None:
            break
        assert len(got["games"]) == 5
    assert seen == list(range(1, 13))
    assert [g["game"] for g in (await page(before=4))["games"]] == [1, 2, 3]


async def test_history_refuses_bad_pages_and_unknown_tables(api: Api) -> None:
    table, _a, _b = await api.seat_two("money")
    r = await api.request("GET", f"/tables/{table}/history")
    assert r.status == 200 and r.body == {"games": [], "next_before": None}
    for query in ("before=0", "limit=0", "limit=51", "limit=x", "before=-1", "before=9" * 30):
        r = await api.request("GET", f"/tables/{table}/history?{query}")
        assert r.status == 400, (query, r.body)
        assert r.content_type == "application/problem+json"
    r = await api.request("GET", "/tables/00000000-0000-4000-8000-000000000000/history")
    assert r.status == 404
