"""Chouettes over the API: several games with cubes, rotation and the ledger, watched by a
spectator; the team channel; and who may do what."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from aiohttp.test_utils import TestClient

from tests.server.conftest import (
    Api,
    User,
    advance,
    assert_gap_free,
    box_on_roll,
    chouette,
    connect,
    cube_of,
    notations,
    read_sse,
    team_on_roll,
    ticket,
    turn_of,
)


def rotated(line: list[str], box_won: bool) -> list[str]:
    """docs/rules.md §8: the line after a game (``line`` as it is when the game ends)."""
    box, captain, *rest = line
    return [box, *rest, captain] if box_won else [captain, *rest, box]


async def test_a_four_player_chouette_over_several_games(api: Api, client: TestClient) -> None:
    table, users = await chouette(api, 4)
    rng = random.Random(8)
    spectator = await api.register()
    watching = await connect(client, table, spectator)
    s = await api.state(table, spectator)
    assert s["role"] == "spectator"
    assert {p["role"] for p in s["players"]} == {"box", "captain", "member"}
    line = s["line"]
    assert sorted(line) == sorted(users) and s["box"] == line[0] and s["captain"] == line[1]
    ended: list[dict[str, Any]] = []

    # Game 1, played out: the last member doubles the box on their own cube (taken), the box
    # doubles the captain alone (taken); then checkers to the end.
    box, captain, second, last = line
    s = await advance(api, table, users, rng, team_on_roll)
    await api.ok(users[last], table, "double")
    s = await api.state(table, users[captain])
    assert "roll" not in s["allowed"], "the captain waits for the box's answer"
    await api.ok(users[box], table, "take", cube=last)
    s = await advance(api, table, users, rng, box_on_roll)
    doubled = await api.ok(users[box], table, "double", cubes=[captain])
    assert doubled["events"][0]["d"]["cubes"] == [captain]
    await api.ok(users[captain], table, "take")
    s = await api.state(table)
    assert cube_of(s, captain)["value"] == 2 and cube_of(s, captain)["owner"] == captain
    assert cube_of(s, last)["value"] == 2 and cube_of(s, last)["owner"] == box
    assert cube_of(s, second)["value"] == 1
    s = await advance(api, table, users, rng, lambda s: s["game"]["number"] == 2)
    game1 = await _last_game_end(api, table, spectator)
    ended.append(game1)
    stakes = {captain: 2, second: 1, last: 2}
    by_member = {
        st["reason"].split(":", 1)[1]: st for st in game1["settlements"] if st["player"] != box
    }
    assert set(by_member) == set(stakes)
    for member, st in by_member.items():
        assert abs(st["amount"]) % stakes[member] == 0, (member, st)
    # The rotation follows the captain's own game (multiple cubes, docs/rules.md §8); the
    # event's ``winner`` is who won the board's end, the last member game settled.
    results = {m["member"]: m for m in game1["members"]}
    assert set(results) == set(stakes)
    assert game1["winner"] == results[game1["members"][-1]["member"]]["winner"]
    box_won = results[captain]["winner"] == box
    assert s["line"] == rotated(line, box_won)
    line = s["line"]

    # Game 2: a fifth player joins mid-game (bottom of the line, from the next game); the box
    # doubles every cube and the whole team drops: the box beat the captain and stays.
    newcomer = await api.register()
    await api.ok(newcomer, table, "join")
    users[newcomer.account_id] = newcomer
    s = await api.state(table, newcomer)
    assert s["role"] == "waiting" and s["line"][-1] == newcomer.account_id
    assert newcomer.account_id not in [c["member"] for c in s["game"]["cubes"]]
    box, captain, *team = line
    s = await advance(api, table, users, rng, box_on_roll)
    await api.ok(users[box], table, "double")
    for member in (captain, *team):
        await api.ok(users[member], table, "drop")
    game2 = await _last_game_end(api, table, spectator)
    ended.append(game2)
    assert game2["winner"] == box and game2["how"] == "drop"
    assert [(m["winner"], m["how"], m["cube"]) for m in game2["members"]] == [(box, "drop", 1)] * 3
    assert sorted(st["amount"] for st in game2["settlements"] if st["player"] == box) == [1, 1, 1]
    s = await api.state(table)
    # The newcomer was at the bottom when the game ended, so the captain goes below them.
    assert s["line"] == rotated([*line, newcomer.account_id], True)
    line = s["line"]

    # Game 3: every member doubles the box on their own cube; the box drops each: the captain
    # beat the box, who goes to the bottom, and the captain becomes the box.
    box, captain, *team = line
    s = await advance(api, table, users, rng, team_on_roll)
    for member in (captain, *team):
        await api.ok(users[member], table, "double")
    s = await api.state(table, users[box])
    assert set(s["targets"]["drop"]) == {captain, *team}
    for member in (captain, *team):
        await api.ok(users[box], table, "drop", cube=member)
    game3 = await _last_game_end(api, table, spectator)
    ended.append(game3)
    # The captain beat the box (the rotation); the board ended with the last drop.
    assert {m["member"]: m["winner"] for m in game3["members"]} == {m: m for m in (captain, *team)}
    assert game3["winner"] == team[-1] and game3["how"] == "drop"
    s = await api.state(table)
    assert s["line"] == rotated(line, False)
    assert s["box"] == captain and s["game"]["number"] == 4

    # The ledger: every game's settlements sum to zero, and the ledger is their sum.
    totals: dict[str, int] = {}
    for game in ended:
        assert sum(st["amount"] for st in game["settlements"]) == 0
        for st in game["settlements"]:
            totals[st["player"]] = totals.get(st["player"], 0) + st["amount"]
    ledger = s["ledger"]
    assert sum(ledger.values()) == 0
    assert {p: v for p, v in ledger.items() if v} == {p: v for p, v in totals.items() if v}
    assert [h["game"] for h in s["history"]] == [1, 2, 3]

    # The spectator saw every event, in order, as the players did.
    head, _ = await api.versions(table)
    await watching.wait_version(head)
    player = await connect(client, table, users[box])
    await player.wait_version(head)
    assert_gap_free(watching.stream())
    assert watching.stream() == player.stream()
    types = [m["t"] for m in watching.stream()]
    assert types.count("game_ended") == types.count("line_rotated") == 3
    await watching.close()
    await player.close()


async def _last_game_end(api: Api, table: str, viewer: User) -> dict[str, Any]:
    ws = await connect(api.client, table, viewer)
    head, _ = await api.versions(table)
    await ws.wait_version(head)
    await ws.close()
    return [m["d"] for m in ws.stream() if m["t"] == "game_ended"][-1]


# -- the team channel -----------------------------------------------------------------------------


async def test_team_chat_reaches_the_team_only(api: Api, client: TestClient) -> None:
    table, users = await chouette(api, 4)
    rng = random.Random(3)
    s = await api.state(table)
    box, captain, second, last = s["line"]
    spectator = await api.register()
    sockets = {
        "box": await connect(client, table, users[box]),
        "captain": await connect(client, table, users[captain]),
        "second": await connect(client, table, users[second]),
        "last": await connect(client, table, users[last]),
        "spectator": await connect(client, table, spectator),
        "anonymous": await connect(client, table),
    }
    team = ("captain", "second", "last")
    outsiders = ("box", "spectator", "anonymous")

    async def everyone_has(version: int) -> None:
        for ws in sockets.values():
            await ws.wait_version(version, "chat")

    advice = await api.ok(users[second], table, "chat", channel="team", text="double them now")
    assert advice["stream"] == "chat"
    v = advice["last_version"]
    await everyone_has(v)
    for name in team:
        got = sockets[name].stream("chat")[-1]
        assert got["v"] == v and got["t"] == "chat_posted"
        assert got["d"]["text"] == "double them now" and got["d"]["channel"] == "team"
    for name in outsiders:
        assert sockets[name].stream("chat")[-1] == {"v": v, "s": "chat"}, name

    # The table channel is for everyone; the captain may talk on the team's too.
    hello = await api.ok(users[box], table, "chat", text="good luck, all")
    reply = await api.ok(users[captain], table, "chat", channel="team", text="no double yet")
    await everyone_has(reply["last_version"])
    for name in (*team, *outsiders):
        seen = {m["v"]: m for m in sockets[name].stream("chat")}
        assert seen[hello["last_version"]]["d"]["text"] == "good luck, all"
        assert ("d" in seen[reply["last_version"]]) == (name in team)

    # Nobody outside the team may talk on its channel, and nothing is stored when refused.
    before = await api.versions(table)
    (await api.send(users[box], table, {"type": "chat", "channel": "team", "text": "x"})).problem(
        403
    )
    (await api.send(spectator, table, {"type": "chat", "channel": "team", "text": "x"})).problem(
        403
    )
    (await api.send(spectator, table, {"type": "chat", "text": "x"})).problem(403)
    (await api.send(None, table, {"type": "chat", "text": "x"})).problem(401)
    assert await api.versions(table) == before

    # A member whose game is over (the box doubled them, they dropped) is off the channel.
    s = await advance(api, table, users, rng, box_on_roll)
    await api.ok(users[box], table, "double", cubes=[last])
    await api.ok(users[last], table, "drop")
    s = await api.state(table, users[last])
    assert s["role"] == "settled"
    (await api.send(users[last], table, {"type": "chat", "channel": "team", "text": "x"})).problem(
        403
    )
    later = await api.ok(users[second], table, "chat", channel="team", text="careful now")
    await everyone_has(later["last_version"])
    assert sockets["last"].stream("chat")[-1] == {"v": later["last_version"], "s": "chat"}
    assert sockets["second"].stream("chat")[-1]["d"]["text"] == "careful now"

    # Every socket's chat versions are gap-free: hidden messages still advance them.
    for ws in sockets.values():
        assert_gap_free(ws.stream("chat"))
        await ws.close()

    # Over SSE the box gets the same versions without the content.
    pass_ = await ticket(client, users[box])
    async with client.get(f"/tables/{table}/events?ticket={pass_}") as resp:
        head, chat_head = await api.versions(table)
        events = await read_sse(resp, head + chat_head)
    chat = [d for _, _, d in events if d["s"] == "chat"]
    assert_gap_free(chat)
    assert [("d" in d) for d in chat] == [False, True, False, False]


# -- who may do what ------------------------------------------------------------------------------


COMMANDS: dict[str, dict[str, Any]] = {
    "roll": {"type": "roll"},
    "move": {"type": "move"},
    "double": {"type": "double"},
    "take": {"type": "take"},
    "drop": {"type": "drop"},
    "beaver": {"type": "beaver"},
    "resign": {"type": "resign", "level": 1},
    "accept": {"type": "accept"},
    "decline": {"type": "decline"},
    "start_game": {"type": "start_game"},
    "add_seed": {"type": "add_seed", "seed": "mine"},
    "join": {"type": "join"},
}


async def test_every_command_by_every_chouette_role(api: Api, client: TestClient) -> None:
    """At several moments of a game, each role's commands are refused (401/403/409, nothing
    stored) unless the state's ``allowed`` offers them, and then they are recorded."""
    table, users = await chouette(api, 5, beavers=True)
    rng = random.Random(12)
    spectator, stranger = await api.register(), await api.register()
    s = await api.state(table)
    box, captain, second, _, last = s["line"]
    # The last member drops a double of the box's, to have a dropped member in the game.
    await advance(api, table, users, rng, box_on_roll)
    await api.ok(users[box], table, "double", cubes=[last])
    await api.ok(users[last], table, "drop")
    roles = {
        "box": users[box],
        "captain": users[captain],
        "member": users[second],
        "settled": users[last],
        "spectator": spectator,
        "stranger": stranger,
    }
    watcher = await connect(client, table, spectator)

    moments: list[tuple[str, Callable[[dict[str, Any]], bool]]] = [
        ("team on roll", team_on_roll),
        ("team has rolled", lambda s: s["game"]["phase"] == "move" and turn_of(s) == "team"),
        ("box on roll", box_on_roll),
        ("box has rolled", lambda s: s["game"]["phase"] == "move" and turn_of(s) == "box"),
    ]
    checked = 0
    for moment, reached in moments:
        await advance(api, table, users, rng, reached)
        for role, user in roles.items():
            view = await api.state(table, user)
            expected = {"stranger": "spectator"}.get(role, role)
            assert view["role"] == expected, (moment, role, view["role"])
            allowed = set(view["allowed"])
            for name, base in COMMANDS.items():
                command = dict(base)
                if name == "move":
                    command["notation"] = (notations(view["game"]) or ["24/23"])[0]
                if role == "box" and name in ("take", "drop", "beaver", "accept", "decline"):
                    command["cube"] = second
                if name in allowed:
                    continue  # recorded below, on the state it changes
                before = await api.versions(table)
                reply = await api.send(user, table, command)
                assert reply.status in (403, 409), (moment, role, name, reply.status, reply.body)
                reply.problem(reply.status)
                assert await api.versions(table) == before, (moment, role, name)
                checked += 1
            # Spot checks of the status the rules give.
            if role in ("spectator", "stranger"):
                for name in ("roll", "double", "take", "resign"):
                    (await api.send(user, table, COMMANDS[name])).problem(403)
            if role == "settled":
                (await api.send(user, table, {"type": "double"})).problem(403)
            (await api.send(None, table, {"type": "roll"})).problem(401)
        # Each role's allowed game actions are what the rules give at this moment.
        captain_view = await api.state(table, users[captain])
        member_view = await api.state(table, users[second])
        box_view = await api.state(table, users[box])
        if moment == "team on roll":
            assert {"roll", "double", "resign"} <= set(captain_view["allowed"])
            assert {"double", "resign"} <= set(member_view["allowed"])
            assert "roll" not in member_view["allowed"]
            assert not {"roll", "double", "move"} & set(box_view["allowed"])
        elif moment == "box on roll":
            assert {"roll", "double", "resign"} <= set(box_view["allowed"])
            assert not {"roll", "double", "move"} & set(captain_view["allowed"])
        elif moment.endswith("has rolled"):
            mover = captain_view if moment.startswith("team") else box_view
            assert "move" in mover["allowed"]
            # The member may not move the team's checkers: the captain has the final say.
            reply = await api.send(
                users[second],
                table,
                {"type": "move", "notation": notations(mover["game"])[0]},
            )
            reply.problem(403)
    assert checked > 100

    # What ``allowed`` offers is recorded: the member doubles, the box beavers, the member
    # takes the beaver (beavers are on at this table).
    await advance(api, table, users, rng, team_on_roll)
    assert "double" in (await api.state(table, users[second]))["allowed"]
    await api.ok(users[second], table, "double")
    box_view = await api.state(table, users[box])
    assert second in box_view["targets"]["beaver"]
    await api.ok(users[box], table, "beaver", cube=second)
    member_view = await api.state(table, users[second])
    assert {"take", "drop"} <= set(member_view["allowed"])
    await api.ok(users[second], table, "take")
    s = await api.state(table)
    assert cube_of(s, second)["value"] == 4 and cube_of(s, second)["owner"] == box
    head, _ = await api.versions(table)
    await watcher.wait_version(head)
    assert_gap_free(watcher.stream())
    await watcher.close()


async def test_team_advice_stays_hidden_from_that_games_box_after_rotation(
    api: Api, client: TestClient
) -> None:
    """Advice given in a game is for that game's team: the box of that game must not read it
    when it later replays the chat as a team member."""
    table, users = await chouette(api, 3)
    rng = random.Random(5)
    s = await api.state(table)
    box, captain, member = s["line"]
    advice = await api.ok(users[member], table, "chat", channel="team", text="they are weak")
    # The team doubles, the box drops: the captain wins and becomes the box; the old box joins
    # the team at the bottom of the line.
    await advance(api, table, users, rng, team_on_roll)
    for m in (captain, member):
        await api.ok(users[m], table, "double")
    for m in (captain, member):
        await api.ok(users[box], table, "drop", cube=m)
    s = await api.state(table)
    assert s["box"] == captain and s["line"][-1] == box
    assert (await api.state(table, users[box]))["role"] in ("member", "captain", "waiting")
    old_box = await connect(client, table, users[box])
    await old_box.wait_version(advice["last_version"], "chat")
    await old_box.close()
    assert old_box.stream("chat")[0] == {"v": advice["last_version"], "s": "chat"}
