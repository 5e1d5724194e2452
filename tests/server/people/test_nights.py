"""A chouette night (issue 32, item 4; docs/tournaments.md): one ledger over a club's tables for
an evening, read from the games that ended in the window, and settled in the fewest payments.
Played through the API on a real server; every figure is checked against the games' own
``game_ended`` events and the payments against the ledger they settle.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import uuid
from typing import Any
from urllib.parse import urlencode

from engine.tournament import settle
from events.domain import types as e
from events.store.streams import decode_recorded, table_stream
from server.keys import TABLES
from tests.server.conftest import Api, User, advance, box_on_roll, chouette, next_action


def _iso(at: dt.datetime) -> str:
    return at.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


async def _box_wins_by_drops(api: Api, table: str, users: dict[str, User]) -> None:
    """The box doubles every cube and the whole team drops: one game over, one point each."""
    s = await advance(api, table, users, random.Random(3), box_on_roll)
    box, *team = s["line"]
    await api.ok(users[box], table, "double")
    for member in team:
        await api.ok(users[member], table, "drop")


async def _money_game_by_drop(api: Api, table: str, users: dict[str, User]) -> str:
    """A money game ended by a double and a drop; returns the winner."""
    rng, viewer = random.Random(5), next(iter(users.values()))  # (a player: private tables too)
    for _ in range(100):
        s = await api.state(table, viewer)
        if s["in_game"] and s["game"]["phase"] == "roll":
            break
        command, who = next_action(s, rng)
        await api.ok(users[who], table, **command)
    roller = s["game"]["on_roll"]
    await api.ok(users[roller], table, "double")
    other = next(p for p in users if p != roller)
    await api.ok(users[other], table, "drop")
    return str(roller)


async def _ended(api: Api, table: str) -> list[e.GameEnded]:
    assert api.app is not None
    store = api.app[TABLES].store
    out = []
    for rec in await store.read_stream(table_stream(table)):
        if rec.type == "game_ended":
            ended = decode_recorded(rec, store.keys)
            assert isinstance(ended, e.GameEnded)
            out.append(ended)
    return out


def _sum(games: list[e.GameEnded]) -> dict[str, int]:
    out: dict[str, int] = {}
    for g in games:
        for s in g.settlements:
            out[s.player] = out.get(s.player, 0) + s.amount
    return {p: v for p, v in out.items()}


async def _night(api: Api, user: User | None, **query: str) -> Any:
    return await api.request("GET", "/nights?" + urlencode(query), user=user)


async def test_one_ledger_over_a_clubs_tables_settled_in_the_fewest_payments(api: Api) -> None:
    began = dt.datetime.now(dt.UTC)
    table, users = await chouette(api, 3)
    await _box_wins_by_drops(api, table, users)
    ann = next(iter(users.values()))
    dan = await api.register("dan")
    money = await api.create_table(ann, "money")
    await api.ok(ann, money, "join")
    await api.ok(dan, money, "join")
    pair = {ann.account_id: ann, dan.account_id: dan}
    await _money_game_by_drop(api, money, pair)

    r = await _night(api, dan, tables=f"{table},{money}", since=_iso(began))
    assert r.status == 200, r.body
    night = r.body
    expected = _sum([*(await _ended(api, table)), *(await _ended(api, money))])
    ledger = {line["player"]: line["amount"] for line in night["ledger"]}
    assert ledger == expected and sum(ledger.values()) == 0 and len(ledger) == 4
    assert [line["amount"] for line in night["ledger"]] == sorted(ledger.values(), reverse=True)
    names = {line["player"]: line["name"] for line in night["ledger"]}
    assert names[dan.account_id] == dan.display_name
    assert {t["table_id"]: t["games"] for t in night["tables"]} == {table: 1, money: 1}
    # The payments square every balance, and there are as few as the exact search finds.
    square = dict(ledger)
    for p in night["payments"]:
        assert p["amount"] > 0
        square[p["payer"]] += p["amount"]
        square[p["payee"]] -= p["amount"]
    assert set(square.values()) == {0}
    assert len(night["payments"]) == len(settle(ledger).payments) and night["fewest"] is True
    assert len(night["payments"]) <= len([v for v in ledger.values() if v]) - 1

    # A window after the first games holds only what ended in it.
    await asyncio.sleep(0.01)
    middle = dt.datetime.now(dt.UTC)
    await asyncio.sleep(0.01)
    await api.ok(ann, money, "roll")  # (a money table's next game starts with a throw)
    winner = await _money_game_by_drop(api, money, pair)
    r = await _night(api, ann, tables=money, since=_iso(middle))
    assert r.status == 200, r.body
    last = (await _ended(api, money))[-1]
    assert {line["player"]: line["amount"] for line in r.body["ledger"]} == _sum([last])
    assert r.body["tables"][0]["games"] == 1
    loser = next(p for p in pair if p != winner)
    assert [(p["payer"], p["payee"]) for p in r.body["payments"]] == [(loser, winner)]
    # And one that ends before the first game: nothing.
    r = await _night(
        api, ann, tables=money, since=_iso(began - dt.timedelta(hours=2)), until=_iso(began)
    )
    assert r.status == 200 and r.body["ledger"] == [] and r.body["payments"] == []


async def test_bad_nights_are_refused_and_private_tables_stay_unknown(api: Api) -> None:
    ann, bob, stranger = await api.register(), await api.register(), await api.register()
    private = await api.create_table(ann, "chouette", private=True)
    await api.ok(ann, private, "join")
    match = await api.create_table(ann, "match", match_length=3)
    since = _iso(dt.datetime.now(dt.UTC) - dt.timedelta(hours=1))
    many = ",".join(str(uuid.uuid4()) for _ in range(21))
    cases: list[tuple[User | None, dict[str, str], int]] = [
        (None, {"tables": private, "since": since}, 401),
        (bob, {"since": since}, 400),
        (bob, {"tables": "", "since": since}, 400),
        (bob, {"tables": many, "since": since}, 400),
        (bob, {"tables": "x" * 900, "since": since}, 400),
        (bob, {"tables": private}, 400),
        (bob, {"tables": match, "since": "yesterday"}, 400),
        (bob, {"tables": match, "since": "2026-12-03T19:00:00"}, 400),  # no zone
        (bob, {"tables": match, "since": "2026-12-03T19:00:00Z\x00"}, 400),
        (
            bob,
            {"tables": match, "since": "2026-12-03T19:00:00Z", "until": "2026-12-03T18:00Z"},
            400,
        ),
        (
            bob,
            {"tables": match, "since": "2026-12-01T19:00:00Z", "until": "2026-12-03T20:00Z"},
            400,
        ),
        (bob, {"tables": "not-a-table", "since": since}, 404),
        (bob, {"tables": match, "since": since}, 409),
    ]
    for user, query, status in cases:
        r = await _night(api, user, **query)
        assert r.status == status, (query, r.status, r.body)
        assert r.body["status"] == status and "detail" in r.body
        assert "asyncpg" not in str(r.body) and "SELECT" not in str(r.body)
    # A private table is, to a stranger, exactly an unknown table; to its player it is a night.
    unknown = str(uuid.uuid4())
    seen = await _night(api, stranger, tables=private, since=since)
    none = await _night(api, stranger, tables=unknown, since=since)
    assert seen.status == none.status == 404
    assert seen.body["detail"].replace(private, unknown) == none.body["detail"]
    assert (await _night(api, ann, tables=private, since=since)).status == 200
