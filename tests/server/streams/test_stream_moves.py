"""A move on the streams: after a ``checkers_moved`` that leaves the game going on, every socket
of a table where a socket asked for views (``?views=1``, as the web page does) gets what every
viewer's table view says after it (``m``: :class:`server.views.move.MoveView`), so that no page
fetches the table view after a play.

At every move of random games (money with a clock and cube actions, a match, a chouette), for
every viewer (each player, a spectator, someone not signed in), the page's own ``followMove``
(``server/static/table/table_feed.js``, run by Node in ``tests/client/check_follow_move.mjs``)
turns their view before the move and the move's message into their view after it; a move that
ends the game carries no ``m`` (the page fetches the view)."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient

from tests.client.node import ROOT, node
from tests.server.conftest import Api, User, chouette, connect, next_chouette_action

CHECK = Path(__file__).resolve().parents[2] / "client" / "check_follow_move.mjs"

Pick = Callable[[dict[str, Any], random.Random], tuple[str, dict[str, Any]] | None]


def _duel_action(s: dict[str, Any], rng: random.Random) -> tuple[str, dict[str, Any]] | None:
    """The next action at a two-player table: a random legal play, a double now and then
    (taken); None once the match is over."""
    if s.get("match_winner"):
        return None
    g = s["game"]
    seats = s["seats"]
    if g is None or g["phase"] == "over":
        return seats[0], {"type": "roll"}  # a money table's next game starts with a throw
    if g["phase"] == "opening":
        return seats[0], {"type": "roll"}
    if g["phase"] == "doubled":
        return g["to_act"][0], {"type": "take"}
    if g["phase"] == "move":
        return g["on_roll"], {"type": "move", "notation": rng.choice(g["legal_plays"])["notation"]}
    if g["phase"] == "roll":
        roller = g["on_roll"]
        cube = g["cubes"][0]
        if cube["owner"] in (None, roller) and cube["value"] < 4 and rng.random() < 0.15:
            return roller, {"type": "double"}
        return roller, {"type": "roll"}
    raise AssertionError(f"no next action in {g['phase']!r}")


async def _moves(
    api: Api,
    client: TestClient,
    table: str,
    users: dict[str, User],
    pick: Pick,
    moves: int,
    seed: int,
) -> tuple[list[dict[str, Any]], int]:
    """Play on until ``moves`` moves were followed and a game ended on a move (or the match
    is over): the cases (each viewer's view before and after each move that leaves the game
    going on, with its message), and how many moves ended a game."""
    spectator = await api.register()
    viewers: list[tuple[str | None, User | None]] = [
        *users.items(),
        (spectator.account_id, spectator),
        (None, None),
    ]
    watcher = await connect(client, table, views=1)  # the public stream, as the page asks
    rng = random.Random(seed)
    cases: list[dict[str, Any]] = []
    ended = 0
    try:
        for _ in range(3000):
            if len(cases) >= moves * len(viewers) and ended:
                break
            action = pick(await api.state(table), rng)
            if action is None:
                break
            who, command = action
            kind = command.pop("type")
            before = {}
            if kind == "move":
                before = {key: await api.state(table, user) for key, user in viewers}
            result = await api.ok(users[who], table, kind, **command)
            if kind != "move":
                continue
            v = result["first_version"]
            await watcher.wait_version(result["last_version"])
            msg = next(m for m in watcher.stream() if m["v"] == v)
            assert msg["t"] == "checkers_moved", msg
            if result["last_version"] > v:
                # The move ended the game (game_ended follows in the same command): no m.
                assert "m" not in msg, msg
                assert any(m["t"] == "game_ended" for m in result["events"])
                ended += 1
                continue
            assert "m" in msg, msg
            for key, user in viewers:
                after = await api.state(table, user)
                assert after["version"] == v
                cases.append({"before": before[key], "msg": msg, "me": key, "after": after})
    finally:
        await watcher.close()
    return cases, ended


def _check_in_node(cases: list[dict[str, Any]], tmp_path: Path) -> None:
    path = tmp_path / "follow_move.json"
    path.write_text(json.dumps(cases))
    result = subprocess.run(
        [node(), "--test", "--test-reporter=tap", str(CHECK)],
        cwd=ROOT,
        env={"CHOUETTE_FOLLOW_MOVE": str(path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = (result.stdout[-20000:] + "\n" + result.stderr[-5000:]).strip()
    assert result.returncode == 0, report
    assert "# fail 0" in result.stdout and "# pass 2" in result.stdout, report


async def test_the_page_follows_every_move_of_a_money_game_with_clocks_and_cubes(
    api: Api, client: TestClient, tmp_path: Path
) -> None:
    table, a, b = await api.seat_two("money", clock={"delay": 30, "reserve": 600})
    users = {a.account_id: a, b.account_id: b}
    cases, ended = await _moves(api, client, table, users, _duel_action, 30, seed=1)
    assert ended >= 1
    flips = {c["me"]: c["msg"]["m"]["viewers"].get(c["me"], {}).get("flip") for c in cases}
    # The seat-1 player sees the sides the other way round; seat 0, the spectator and the
    # anonymous viewer as the message sends them.
    seats = cases[0]["after"]["seats"]
    assert flips[seats[1]] is True and flips[seats[0]] is False, flips
    # The clocks run (the one on turn after the move) and the cube moved in some moves.
    assert any(c["after"]["clocks"] and c["after"]["clocks"][0]["running"] for c in cases)
    assert any(c["after"]["game"]["cubes"][0]["value"] > 1 for c in cases)
    _check_in_node(cases, tmp_path)


async def test_the_page_follows_every_move_of_a_match(
    api: Api, client: TestClient, tmp_path: Path
) -> None:
    table, a, b = await api.seat_two("match", match_length=3)
    users = {a.account_id: a, b.account_id: b}
    cases, ended = await _moves(api, client, table, users, _duel_action, 20, seed=2)
    assert ended >= 1
    # The Match ID changes with every move (whose turn it is): the message carries it.
    ids = {c["after"]["game"]["match_id"] for c in cases}
    assert len(ids) > 5, ids
    _check_in_node(cases, tmp_path)


async def test_the_page_follows_every_move_of_a_chouette(
    api: Api, client: TestClient, tmp_path: Path
) -> None:
    table, users = await chouette(api, 4, clock={"delay": 30, "reserve": 600})

    def pick(s: dict[str, Any], rng: random.Random) -> tuple[str, dict[str, Any]] | None:
        g = s["game"]
        if g is None or g["phase"] == "over":
            return None
        return next_chouette_action(s, rng)

    cases, ended = await _moves(api, client, table, users, pick, 20, seed=3)
    assert ended + len(cases) > 0
    assert cases, "no move left the chouette's game going on"
    boxes = {c["after"]["box"] for c in cases}
    for c in cases:
        after = c["msg"]["m"]["viewers"].get(c["me"]) if c["me"] else None
        if after is not None:
            assert after["flip"] is (c["me"] in boxes), c["me"]
    # The table as text changes with the board, and the message carries it.
    assert len({c["after"]["text"] for c in cases}) > 5
    _check_in_node(cases, tmp_path)


async def test_a_moves_view_is_made_only_while_a_socket_of_the_table_asks_for_views(
    api: Api, client: TestClient
) -> None:
    table, a, b = await api.seat_two("money")
    users = {a.account_id: a, b.account_id: b}
    rng = random.Random(4)
    plain = await connect(client, table)  # a bot's or a script's socket: no views

    async def next_move() -> dict[str, Any]:
        """Play on to the next move that leaves the game going on; its message."""
        for _ in range(200):
            action = _duel_action(await api.state(table), rng)
            assert action is not None
            who, command = action
            kind = command.pop("type")
            result = await api.ok(users[who], table, kind, **command)
            if kind == "move" and result["first_version"] == result["last_version"]:
                await plain.wait_version(result["last_version"])
                return plain.stream()[-1]
        raise AssertionError("no move")

    try:
        assert "m" not in await next_move()
        page = await connect(client, table, views=1)
        assert "m" in await next_move()  # every socket of the table gets the one message
        await page.close()
        await asyncio.sleep(0.1)  # the server sees the socket go
        assert "m" not in await next_move()
    finally:
        await plain.close()


async def test_views_is_0_or_1_and_anything_else_is_refused_before_the_upgrade(
    api: Api, client: TestClient
) -> None:
    table, _a, _b = await api.seat_two("money")
    for bad in ("2", "-1", "yes", "1%00", "%01", ""):
        async with client.get(f"/tables/{table}/ws?views={bad}") as resp:
            assert resp.status == 400, bad
            body = await resp.json()
            assert "views" in body["detail"], body
