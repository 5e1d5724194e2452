"""An 8-player Swiss tournament played to its end through the API, on a real server and database
(docs/tournaments.md): the server creates each round's match tables and seats the players; each
match is decided at its table by the rules (one played out move by move, the others forfeited
by a player leaving after the opening throw); the next round is paired as the last result is
in; a player withdraws in round 2 (their match forfeited, and they leave its table), so round 3
has a bye, and one match of round 3 is never started: a no-show of both after the tournament's
``show_seconds``; the last result ends the tournament with the standings' leader. Then
``chouette audit --all`` passes every table and the tournament's stream, and a second server
on the same database, started after, shows the same tournament.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

from events.store.streams import table_stream, tournament_stream
from server.cli.main import main
from server.keys import TABLES
from server.live.tournaments import RUNNER
from tests.server.conftest import Api, User, next_action
from tests.server.tournaments.helpers import create, forfeit, seated, until, view


def _board_players(board: dict[str, Any]) -> list[str]:
    return [p for p in (board["a"], board["b"]) if p is not None]


async def test_eight_players_play_a_swiss_tournament_to_its_end(
    make_api: Any, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # The provably fair dice, which the audit checks against each game's revealed seed.
    api: Api = await make_api(dice_factory=None)
    rng = random.Random(32)
    director = await api.register()
    # 10 s to show: each match's opening throw is made as soon as its table is there.
    tid = await create(api, director, format="swiss", rounds=3, match_length=1, show_seconds=10)
    players = [await api.register() for _ in range(8)]
    users: dict[str, User] = {u.account_id: u for u in players}
    for u in players:
        r = await api.request("POST", f"/tournaments/{tid}/entries", user=u, json={})
        assert r.status == 200, r.body
    r = await api.request("POST", f"/tournaments/{tid}/start", user=director)
    assert r.status == 200, r.body
    assert r.body["status"] == "playing" and len(r.body["rounds"]) == 1
    withdrawn = None
    absent: dict[str, Any] = {}
    for number in (1, 2, 3):
        v = await until(api, tid, lambda v, n=number: len(v["rounds"]) >= n)
        boards = v["rounds"][number - 1]["boards"]
        assert {p for b in boards for p in _board_players(b)} == {
            p for p in users if p != withdrawn
        }
        if number == 3:
            byes = [b for b in boards if b["b"] is None]
            assert len(byes) == 1 and byes[0]["decided"] and byes[0]["table"] is None
        to_play = [b for b in boards if not b["decided"]]
        if number == 2:
            # The lowest board's second player withdraws before playing: their match is a
            # forfeit, and the runner has them leave its table.
            leaving = to_play[-1]
            withdrawn = leaving["b"]
            r = await api.request("DELETE", f"/tournaments/{tid}/entries/me", user=users[withdrawn])
            assert r.status == 200, r.body
            board = r.body["rounds"][1]["boards"][leaving["board"] - 1]
            assert board["decided"] and board["winner"] == leaving["a"]
            assert board["how"] == "withdrawal"
            to_play = to_play[:-1]
        if number == 3:
            # Nobody comes to the last match of round 3: it is decided as a no-show.
            absent = to_play[-1]
            to_play = to_play[:-1]
        for board in to_play:  # every match started first, well within show_seconds
            s = await seated(api, board["table_id"])
            assert set(s["seats"]) == set(_board_players(board))
            await api.ok(users[s["seats"][0]], board["table_id"], "roll")
        for i, board in enumerate(to_play):
            table = board["table_id"]
            assert board["table"] == f"/tables/{table}"
            if number == 1 and i == 0:
                await api.play_out(table, users, rng)  # a real match, to its end
            else:
                await api.ok(users[board["b"]], table, "leave")  # a forfeit
    v = await until(api, tid, lambda v: v["status"] == "finished", timeout=40)
    assert v["winner"] == v["standings"][0]["player"]
    no_show = v["rounds"][2]["boards"][absent["board"] - 1]
    assert (no_show["how"], no_show["forfeit"]) == ("no_show", True), no_show
    assert [x["rank"] for x in v["standings"]] == list(range(1, 9))
    out = {x["player"]: x for x in v["standings"]}
    assert out[withdrawn]["withdrawn"] and out[withdrawn]["played"] == 2
    # Every match decided at its table is recorded as the table says.
    for rnd in v["rounds"]:
        for board in rnd["boards"]:
            assert board["decided"]
            if board["how"] == "match":
                table = await api.state(board["table_id"])
                assert table["match_winner"] == board["winner"]
    # Leaving a withdrawn player's table was a forfeit there too.
    wtable = v["rounds"][1]["boards"][-1]
    if wtable["table_id"] is not None:
        t = await api.state(wtable["table_id"])
        assert withdrawn not in [p for p in t["seats"] if p]
    status = await asyncio.to_thread(main, ["audit", "--all", "--json", "--database-url", db_url])
    doc = json.loads(capsys.readouterr().out)
    assert status == 0, (doc["store"], [r for r in doc["reports"] if r["status"] != "ok"])
    # A server started after sees the same tournament, and has nothing left to do.
    other = await make_api(dice_factory=None)
    again = await view(other, tid)
    assert again["winner"] == v["winner"] and again["version"] == v["version"]


async def test_what_is_due_is_done_after_a_restart(make_api: Any) -> None:
    """A server whose runner is stopped records the start but creates no table; a server
    started after creates them from the logs; a match that ends while no runner runs is
    recorded by the next server to start, which pairs the next round."""
    first: Api = await make_api()
    assert first.app is not None
    await first.app[RUNNER].stop()
    director = await first.register()
    tid = await create(first, director, format="knockout", match_length=1)
    players = [await first.register() for _ in range(4)]
    users = {u.account_id: u for u in players}
    for u in players:
        assert (await first.request("POST", f"/tournaments/{tid}/entries", user=u)).status == 200
    assert (await first.request("POST", f"/tournaments/{tid}/start", user=director)).status == 200
    boards = (await view(first, tid))["rounds"][0]["boards"]
    for board in boards:
        r = await first.request("GET", f"/tables/{board['table_id']}")
        assert r.status == 404  # not created: nothing ran
    second: Api = await make_api()
    assert second.app is not None
    for board in boards:
        await seated(second, board["table_id"])
    await second.app[RUNNER].stop()
    for board in boards:
        await forfeit(second, board["table_id"], users, loser=board["b"])
    v = await view(second, tid)
    assert not any(b["decided"] for b in v["rounds"][0]["boards"])  # nobody recorded them
    third: Api = await make_api()
    v = await until(third, tid, lambda v: len(v["rounds"]) == 2)
    assert [b["winner"] for b in v["rounds"][0]["boards"]] == [b["a"] for b in boards]
    final = v["rounds"][1]["boards"][0]
    assert {final["a"], final["b"]} == {boards[0]["a"], boards[1]["a"]}
    await seated(third, final["table_id"])


async def test_a_match_nobody_starts_is_a_no_show(api: Api) -> None:
    """No opening throw within ``show_seconds``: both forfeit; in a knockout the higher seed
    goes through, and both leave the table."""
    director = await api.register()
    tid = await create(api, director, format="knockout", match_length=1, show_seconds=5)
    players = [await api.register() for _ in range(2)]
    for u in players:
        assert (await api.request("POST", f"/tournaments/{tid}/entries", user=u)).status == 200
    assert (await api.request("POST", f"/tournaments/{tid}/start", user=director)).status == 200
    v = await view(api, tid)
    board = v["rounds"][0]["boards"][0]
    await seated(api, board["table_id"])
    v = await until(api, tid, lambda v: v["status"] == "finished", timeout=15)
    decided = v["rounds"][0]["boards"][0]
    assert (decided["how"], decided["forfeit"], decided["winner"]) == ("no_show", True, board["a"])
    assert v["winner"] == board["a"]
    for _ in range(100):
        s = await api.state(board["table_id"])
        if not any(s["seats"]):
            break
        await asyncio.sleep(0.05)
    assert not any(s["seats"]), s["seats"]


async def test_two_servers_run_one_tournament_once(
    make_api: Any, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two servers on one database, both runners running: every table is created and seated
    once, every result recorded once, whichever server the players use."""
    one: Api = await make_api(dice_factory=None)
    two: Api = await make_api(dice_factory=None)
    director = await one.register()
    tid = await create(one, director, format="knockout", match_length=1)
    players = [await one.register() for _ in range(8)]
    users = {u.account_id: u for u in players}
    for i, u in enumerate(players):
        api = (one, two)[i % 2]
        assert (await api.request("POST", f"/tournaments/{tid}/entries", user=u)).status == 200
    assert (await two.request("POST", f"/tournaments/{tid}/start", user=director)).status == 200
    for number in (1, 2, 3):
        v = await until(one, tid, lambda v, n=number: len(v["rounds"]) >= n)
        for i, board in enumerate(v["rounds"][number - 1]["boards"]):
            await forfeit((one, two)[i % 2], board["table_id"], users, loser=board["b"])
    v = await until(two, tid, lambda v: v["status"] == "finished")
    assert v["winner"] == v["bracket"][-1][0]["winner"]
    assert [len(r["boards"]) for r in v["rounds"]] == [4, 2, 1]
    # Each table: one creation, two joins; the stream: one event per fact.
    assert one.app is not None
    store = one.app[TABLES].store
    for r in v["rounds"]:
        for board in r["boards"]:
            events = await store.read_stream(table_stream(board["table_id"]))
            types = [x.type for x in events]
            assert types.count("table_created") == 1 and types.count("player_joined") == 2
            assert types.count("match_ended") == 1
    stream = [x.type for x in await store.read_stream(tournament_stream(tid))]
    assert stream.count("tournament_result") == 7 and stream.count("tournament_finished") == 1
    status = await asyncio.to_thread(main, ["audit", "--all", "--json", "--database-url", db_url])
    doc = json.loads(capsys.readouterr().out)
    assert status == 0, (doc["store"], [r for r in doc["reports"] if r["status"] != "ok"])


async def test_a_player_who_never_comes_forfeits_on_the_tables_clock(api: Api) -> None:
    """The player who came throws the opening throw; the other never acts, and the table's own
    clock (rules §10) forfeits the match, which the tournament records as a forfeit."""
    director = await api.register()
    tid = await create(
        api,
        director,
        format="knockout",
        match_length=1,
        clock={"delay": 0, "reserve": 1, "reserve_per_point": 0},
    )
    players = [await api.register() for _ in range(2)]
    users = {u.account_id: u for u in players}
    for u in players:
        assert (await api.request("POST", f"/tournaments/{tid}/entries", user=u)).status == 200
    assert (await api.request("POST", f"/tournaments/{tid}/start", user=director)).status == 200
    board = (await view(api, tid))["rounds"][0]["boards"][0]
    here = board["a"]
    table = board["table_id"]
    await seated(api, table)
    await api.ok(users[here], table, "roll")
    rng = random.Random(3)
    for _ in range(20):
        s = await api.state(table)
        if s.get("match_winner") or s["game"]["to_act"] != [here]:
            break
        command, _who = next_action(s, rng)
        await api.ok(users[here], table, **command)
    v = await until(api, tid, lambda v: v["status"] == "finished", timeout=15)
    decided = v["rounds"][0]["boards"][0]
    assert (decided["winner"], decided["forfeit"], decided["how"]) == (here, True, "match")
    assert (await api.state(table))["match_winner"] == here
