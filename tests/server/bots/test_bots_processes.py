"""Bots with several ``serve`` processes on one database (docs/scaling.md): a bot run by one
process acts on the commands a person sends through another (the runner follows the table's
stream through its live feed, docs/bots.md). In one process, the feed's echo of the commands
appended there costs the bots no second look, and a table is followed only while it has bots."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable

import aiohttp
import pytest
from test_bots import FAIR, audit_clean, person, seat, wait_until

from server.live.bots import BOTS
from tests.server.conftest import Api, ServeProcess

STALL = 20.0
"""Seconds without a new event at the table that count as a stall (a bot acts in well under)."""


@pytest.mark.slow
async def test_a_bot_of_one_process_answers_a_person_playing_through_another(
    db_url: str, serve_processes: Callable[[str], ServeProcess]
) -> None:
    first, second = serve_processes(db_url), serve_processes(db_url)
    await asyncio.gather(first.start(), second.start())
    async with (
        aiohttp.ClientSession(base_url=first.url) as a_session,
        aiohttp.ClientSession(base_url=second.url) as b_session,
    ):
        api_a, api_b = Api(a_session), Api(b_session)  # type: ignore[arg-type]
        ann = await api_b.register()
        table = await api_b.create_table(ann, "money")
        await api_b.ok(ann, table, "join")
        # The bot is seated through A, so A runs it; every command of Ann's goes through B.
        seated = await seat(api_a, ann, table, strength="basic")
        bot = seated["bot_id"]
        assert seated["table"]["in_game"]
        act = person(api_b, ann, table, random.Random(4))
        loop = asyncio.get_running_loop()
        last, since = -1, loop.time()
        bot_turns = 0
        while True:
            s = await api_b.state(table)
            if not s["in_game"]:
                break
            if s["version"] != last:
                last, since = s["version"], loop.time()
                g = s.get("game")
                bot_turns += bool(g and bot in g["to_act"] and g["phase"] != "opening")
            assert loop.time() - since < STALL, (
                f"the table stalled at {s['version']}: {s['game']['status']}"
            )
            if not await act(s):
                await asyncio.sleep(0.02)
        assert bot_turns > 3  # the bot answered Ann's commands, not only its own
        assert s["ledger"] and sum(dict(s["ledger"]).values()) == 0
        await audit_clean(api_b, table)
        await audit_clean(api_a, table)


async def test_the_feed_adds_no_second_look_and_a_table_is_followed_while_it_has_bots(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    api = await make_api(**FAIR)
    runner = api.app[BOTS]  # type: ignore[index]
    ann = await api.register()
    table = await api.create_table(ann, "money")
    await api.ok(ann, table, "join")
    assert table not in runner.following()
    bot = (await seat(api, ann, table, strength="basic"))["bot_id"]
    assert runner.following() == {table}
    await wait_until(
        api, table, lambda s: not s["in_game"], person(api, ann, table, random.Random(5))
    )
    await asyncio.sleep(0.5)  # the feed's echo of the last commands has come
    # Every state the bot looked at was a new one: the hook woke it, the feed's echo of the
    # same commands did not wake it again.
    assert runner.looks > 10 and runner.second_looks == 0, (runner.looks, runner.second_looks)
    r = await api.request("DELETE", f"/tables/{table}/bots/{bot}", user=ann)
    assert r.status == 200, r.body
    assert runner.following() == set()
    await audit_clean(api, table)
