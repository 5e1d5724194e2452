"""Bots through the server: seated by a table's creator, playing through the ordinary command
path to the end of money games, matches and chouettes, audited clean; a bot that fails leaves
its seat without stalling the table; bad requests change nothing."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from server.keys import TABLES
from tests.server.bots.bot_faults import hanging, raising
from tests.server.conftest import Api, User, notations

FAIR = {"dice_factory": None, "seed_key": bytes(range(1, 33))}
"""The provably fair dice (as served), so that every game audits with its seed revealed."""

WAIT = 120.0
"""Seconds a test waits for bots to reach a moment (a bound, not a measure)."""


@pytest.fixture
async def fair(make_api: Callable[..., Awaitable[Api]]) -> Api:
    """The app with the provably fair dice."""
    return await make_api(**FAIR)


async def seat(api: Api, user: User, table: str, **body: Any) -> dict[str, Any]:
    body.setdefault("strength", "basic")
    r = await api.request("POST", f"/tables/{table}/bots", user=user, json=body)
    assert r.status == 201, r.body
    return dict(r.body)


async def wait_until(
    api: Api,
    table: str,
    done: Callable[[dict[str, Any]], bool],
    act: Callable[[dict[str, Any]], Awaitable[bool]] | None = None,
) -> dict[str, Any]:
    """Poll the table until ``done(view)``; meanwhile ``act(view)`` plays a person's part
    (returning whether it sent something)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT
    while loop.time() < deadline:
        s = await api.state(table)
        if done(s):
            return s
        if act is None or not await act(s):
            await asyncio.sleep(0.02)
    raise AssertionError(f"the table did not get there in {WAIT} s: {s.get('game')}")


async def audit_clean(api: Api, table: str) -> None:
    r = await api.request("GET", f"/tables/{table}/audit")
    assert r.status == 200, r.body
    assert r.body["status"] in ("ok", "pending"), r.body
    assert not r.body.get("failures"), r.body


def person(api: Api, user: User, table: str, rng: random.Random) -> Callable[..., Any]:
    """A scripted player at a money or match table: rolls, plays a random legal play, takes
    every double, accepts every resignation; acts only when the table waits for them."""

    async def act(s: dict[str, Any]) -> bool:
        g = s.get("game")
        if not s["in_game"] or not g or user.account_id not in g["to_act"]:
            return False
        phase = g["phase"]
        if phase == "opening":
            return False  # the bot throws it
        command: dict[str, Any] = {
            "roll": {"type": "roll"},
            "move": {"type": "move", "notation": rng.choice(notations(g) or [""])},
            "doubled": {"type": "take"},
            "resignation": {"type": "accept"},
        }[phase]
        r = await api.send(user, table, command)
        return r.status == 201

    return act


async def test_a_bot_plays_a_money_game_against_a_person(fair: Api) -> None:
    api = fair
    ann = await api.register()
    table = await api.create_table(ann, "money")
    await api.ok(ann, table, "join")
    seated = await seat(api, ann, table, strength="basic")
    bot = seated["bot_id"]
    assert bot.startswith("b_") and seated["display_name"] == "Basic bot 1"
    view = seated["table"]
    assert [(p["id"], p["bot"]) for p in view["players"]] == [
        (ann.account_id, False),
        (bot, True),
    ]
    end = await wait_until(
        api,
        table,
        lambda s: not s["in_game"],
        person(api, ann, table, random.Random(1)),
    )
    assert end["ledger"] and sum(v for v in dict(end["ledger"]).values()) == 0
    await audit_clean(api, table)
    r = await api.request("GET", "/tables?kind=money")
    row = next(t for t in r.body["tables"] if t["id"] == table)
    assert row["bots"] == [bot]


async def test_a_three_point_match_bot_against_bot(fair: Api) -> None:
    api = fair
    ann = await api.register()
    table = await api.create_table(ann, "match", match_length=3)
    first = await seat(api, ann, table)
    second = await seat(api, ann, table)
    end = await wait_until(api, table, lambda s: bool(s.get("match_winner")))
    assert end["match_winner"] in (first["bot_id"], second["bot_id"])
    assert max(end["score"]) >= 3
    await audit_clean(api, table)


async def test_a_chouette_with_bots_as_box_and_members(fair: Api) -> None:
    api = fair
    ann = await api.register()
    table = await api.create_table(ann, "chouette")
    await api.ok(ann, table, "join")
    bots = [(await seat(api, ann, table))["bot_id"] for _ in range(3)]
    await api.ok(ann, table, "start_game")
    rng = random.Random(3)
    boxes: set[str] = set()
    members: set[str] = set()

    async def act(s: dict[str, Any]) -> bool:
        g = s.get("game")
        if not s["in_game"] or not g or g["phase"] == "over":
            return False
        boxes.add(s["box"])
        members.update(c["member"] for c in g["cubes"])
        me = ann.account_id
        if me not in g["to_act"] or g["phase"] == "opening":
            return False
        command: dict[str, Any] | None = None
        for cube in g["cubes"]:
            if cube["in_game"] and cube["pending"] and cube["pending"]["to_answer"] == me:
                command = {"type": "take", "cube": cube["member"] if me == s["box"] else ""}
            if cube["in_game"] and cube["resignation"] and cube["resignation"]["to_answer"] == me:
                command = {"type": "decline", "cube": cube["member"] if me == s["box"] else ""}
        if command is None and g["on_roll"] == me:
            if g["phase"] == "roll":
                command = {"type": "roll"}
            elif g["phase"] == "move":
                command = {"type": "move", "notation": rng.choice(notations(g))}
        if command is None:
            return False
        r = await api.send(ann, table, command)
        return r.status == 201

    end = await wait_until(api, table, lambda s: (s.get("game") or {}).get("number", 0) > 3, act)
    assert end["in_game"]
    assert boxes & set(bots), boxes
    assert members & set(bots), members
    await audit_clean(api, table)


@pytest.mark.parametrize(
    ("decide", "overrides", "seed"),
    [(raising, {}, 2), (hanging, {"bot_timeout": 2.0}, 4)],
    ids=["raises", "hangs"],
)
async def test_a_bot_that_fails_leaves_its_seat(
    make_api: Callable[..., Any], decide: Any, overrides: dict[str, Any], seed: int
) -> None:
    """A bot whose decision raises, or never comes, leaves its seat through ``leave``; the
    table goes on."""
    api = await make_api(bot_decide=decide, **overrides, **FAIR)
    ann = await api.register()
    table = await api.create_table(ann, "money")
    await api.ok(ann, table, "join")
    bot = (await seat(api, ann, table))["bot_id"]
    end = await wait_until(
        api,
        table,
        lambda s: bot not in [p["id"] for p in s["players"]],
        person(api, ann, table, random.Random(seed)),
    )
    assert not end["in_game"]
    await audit_clean(api, table)
    if decide is raising:
        # It left in mid-game: a forfeit, settled like any (docs/rules.md §10).
        assert dict(end["ledger"]).get(ann.account_id, 0) > 0
    # The table goes on: another bot sits down, which starts the next game.
    again = await seat(api, ann, table)
    assert again["table"]["in_game"] and again["table"]["game"]["number"] == 2


async def test_the_creator_removes_a_bot_between_games(api: Api) -> None:
    ann = await api.register()
    table = await api.create_table(ann, "chouette")
    await api.ok(ann, table, "join")
    bot = (await seat(api, ann, table))["bot_id"]
    other = await api.register()
    refused = await api.request("DELETE", f"/tables/{table}/bots/{bot}", user=other)
    refused.problem(403)
    r = await api.request("DELETE", f"/tables/{table}/bots/{bot}", user=ann)
    assert r.status == 200, r.body
    assert [p["id"] for p in r.body["players"]] == [ann.account_id]
    missing = await api.request("DELETE", f"/tables/{table}/bots/{bot}", user=ann)
    missing.problem(404)


async def test_bad_requests_to_seat_a_bot_change_nothing(api: Api) -> None:
    ann, bob = await api.register(), await api.register()
    table = await api.create_table(ann, "money")
    before = await api.versions(table)
    path = f"/tables/{table}/bots"
    basic = {"strength": "basic"}
    (await api.request("POST", f"/tables/{uuid.uuid4()}/bots", user=ann, json=basic)).problem(404)
    (await api.request("POST", "/tables/not-a-table/bots", user=ann, json=basic)).problem(404)
    (await api.request("POST", path, json=basic)).problem(401)
    (await api.request("POST", path, user=bob, json=basic)).problem(403)
    bad = await api.request("POST", path, user=ann, json={"strength": "grandmaster"})
    assert bad.problem(400)["field"] == "strength"
    (await api.request("POST", path, user=ann, json={"seat": 2})).problem(400)
    (await api.request("POST", path, user=ann, json={"extra": 1})).problem(400)
    assert await api.versions(table) == before
    await api.ok(ann, table, "join")
    await api.ok(bob, table, "join")
    full = await api.versions(table)
    (await api.request("POST", path, user=ann, json=basic)).problem(409, "table-full")
    assert await api.versions(table) == full


async def test_a_retried_seating_seats_one_bot(api: Api) -> None:
    ann = await api.register()
    table = await api.create_table(ann, "chouette")
    cid = str(uuid.uuid4())
    first = await seat(api, ann, table, command_id=cid)
    again = await api.request(
        "POST", f"/tables/{table}/bots", user=ann, json={"command_id": cid, "strength": "basic"}
    )
    assert again.status == 200, again.body
    assert again.body["bot_id"] == first["bot_id"] and again.body["duplicate"]
    assert [p["id"] for p in again.body["table"]["players"]] == [first["bot_id"]]


async def test_a_bot_acts_at_a_persons_pace(make_api: Callable[..., Awaitable[Api]]) -> None:
    """With ``bot_pace`` a bot's command comes no sooner than that after its turn came (the
    opening throw here, which the bot makes as soon as both seats are filled); at 0 it comes
    at once (every other test in this file)."""
    pace = 0.6
    api = await make_api(bot_pace=pace, **FAIR)
    ann = await api.register()
    table = await api.create_table(ann, "money")
    await api.ok(ann, table, "join")
    began = asyncio.get_running_loop().time()
    await seat(api, ann, table, strength="basic")
    seated = asyncio.get_running_loop().time()
    thrown = await wait_until(api, table, lambda s: bool(s.get("game")) and s["game"]["dice"])
    elapsed = asyncio.get_running_loop().time() - began
    assert elapsed >= pace, (elapsed, seated - began, thrown["game"])


def test_a_bots_pace_is_bounded() -> None:
    from server.config import Config

    with pytest.raises(ValueError, match="pace"):
        Config(database_url="postgresql://x/y", bot_pace=31)
    with pytest.raises(ValueError, match="pace"):
        Config(database_url="postgresql://x/y", bot_pace=-1)


async def test_a_bots_command_waits_for_the_peoples_commands_in_flight(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """People first: a bot's command does not start while a person's command runs in this
    process (at most ``PEOPLE_FIRST_WAIT``, made long here), and goes once none does."""
    import server.live.bots as bots_module
    from server.live.bots import BOTS

    runner = api.app[BOTS]
    tables = api.app[TABLES]
    seen: list[tuple[str, int]] = []
    execute = tables.execute

    async def spy(table_id: str, actor: str, *args: Any, **kwargs: Any) -> Any:
        seen.append((actor, runner.people.busy))
        return await execute(table_id, actor, *args, **kwargs)

    monkeypatch.setattr(tables, "execute", spy)
    monkeypatch.setattr(bots_module, "PEOPLE_FIRST_WAIT", 60.0)
    ann = await api.register()
    table = await api.create_table(ann, "money")
    await api.ok(ann, table, "join")
    # A person's command marks itself in flight for as long as it runs.
    assert (ann.account_id, 1) in seen and runner.people.busy == 0
    with runner.people.person():  # a person's command that takes its time
        bot = (await seat(api, ann, table, strength="basic"))["bot_id"]
        await asyncio.sleep(0.5)
        s = await api.state(table)
        assert not (s.get("game") or {}).get("dice"), "the bot threw while a person's ran"
        assert runner.people.waits >= 1
    thrown = await wait_until(api, table, lambda s: bool(s.get("game")) and s["game"]["dice"])
    assert thrown["game"]["dice"]
    assert any(actor == bot for actor, _ in seen)
