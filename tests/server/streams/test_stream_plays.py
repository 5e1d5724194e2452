"""The legal plays on the streams: after a throw, every socket of the table gets what the player
to move needs (``m``: the legal plays as a tree of single-die steps, or none when they cannot
move), so that a client plays whole games from the stream alone, never fetching the table
view."""

from __future__ import annotations

import random
from typing import Any

import msgspec
from aiohttp.test_utils import TestClient
from engine_corpus import ROLLS, corpus

from engine.moves import legal_plays
from engine.routes import tree_routes
from events.domain.decider import fold_stored
from events.store.streams import decode_recorded, table_stream
from server.keys import TABLES
from server.views.table import leave_cost_view, legal_views, play_tree_of
from server.views.throw import ThrowView, ThrowWire, tree_json
from tests.server.conftest import (
    Api,
    User,
    WsClient,
    chouette,
    connect,
    next_chouette_action,
    read_sse,
)


def _throw_checks(view: dict[str, Any], m: dict[str, Any]) -> None:
    """The throw's ``m`` says what the table view says at the throw's version."""
    game = view["game"]
    if m["play_tree"][0]:
        assert m["passed"] is False
        assert game["phase"] == "move"
        assert game["on_roll"] == m["player"]
        assert m["play_tree"] == game["play_tree"]
        assert _plays_of(m["play_tree"]) == _plays_of(game["legal_plays"])
        assert m["status"] == game["status"]
        assert m["position_id"] == game["position_id"]
        assert list(m["dice"]) == list(game["dice"])
        assert [c["player"] for c in m["clocks"]] == [c["player"] for c in view["clocks"]]
    else:
        # Cannot move: the turn has passed to the other player, who rolls.
        assert m["play_tree"] == [[]]
        assert m["passed"] is True
        name = next(p["name"] for p in view["players"] if p["id"] == m["player"])
        assert m["status"] == f"{name} cannot move {m['dice'][0]}-{m['dice'][1]}."
        assert game["phase"] == "roll"
        assert game["on_roll"] != m["player"] and game["on_roll"] is not None


async def _costs_before(api: Api, table: str, version: int) -> dict[str | None, Any]:
    """What leaving would have cost each player just before the table's event ``version``
    (the table's events up to it folded here), and nobody else (``None``)."""
    tables = api.app[TABLES]  # type: ignore[index]
    stored = await tables.store.read_stream(table_stream(table), 0, limit=version - 1)
    state = fold_stored(decode_recorded(rec, tables.store.keys) for rec in stored)
    assert state.version == version - 1
    costs: dict[str | None, Any] = {None: None}
    for player in (*state.players, state.created_by):
        costs[player] = msgspec.to_builtins(leave_cost_view(state, player))
    return costs


async def _after_checks(
    api: Api, table: str, users: dict[str, User], watcher: User, message: dict[str, Any]
) -> None:
    """The throw's ``viewers``, ``spectator`` and ``anonymous`` say what each one's table view
    says at the throw's version: its ``allowed``, its ``targets``, its ``game.turn`` and, after
    an opening throw, what leaving would cost (``leave_cost``); after any other throw leaving
    costs what it did before the throw, and the message leaves it out."""
    m = message["m"]
    opening = message["t"] == "opening_throw"
    before = {} if opening else await _costs_before(api, table, message["v"])
    assert set(m["viewers"]) == set(users)
    for key, user in (
        *((a, users[a]) for a in m["viewers"]),
        ("spectator", watcher),
        ("anonymous", None),
    ):
        after = m["viewers"][key] if key in users else m[key]
        view = await api.state(table, user)
        said = {"allowed": view["allowed"], "targets": view["targets"]}
        if opening:
            said["leave_cost"] = view["leave_cost"]
        else:
            assert view["leave_cost"] == before.get(user.account_id if user else None), key
        assert after == {**said, "turn": view["game"]["turn"]}, key


Route = tuple[tuple[tuple[int, int], ...], frozenset[int]]


def _route(steps: Any) -> Route:
    """A route as a multiset of moves and the points it hits on (its order aside: which of two
    steps to one point is marked follows from the order)."""
    return tuple(sorted((a, b) for a, b, _ in steps)), frozenset(b for _, b, hit in steps if hit)


def _plays_of(plays: Any) -> set[frozenset[Route]]:
    """The plays of a tree of steps (JSON) or of a view's list, each as the set of its routes:
    a tree's routes are grouped by where they lead (the mover's checkers and the hits)."""
    if not plays or isinstance(plays[0], dict):
        return {frozenset(_route(r) for r in p["steps"]) for p in plays}
    ends: dict[tuple[tuple[int, ...], frozenset[int]], set[Route]] = {}
    for route in tree_routes(tuple(tuple(tuple(e) for e in node) for node in plays)):
        board = [0] * 26
        for a, b, _hit in route:
            board[a] -= 1
            board[b] += 1
        made = _route(route)
        ends.setdefault((tuple(board), made[1]), set()).add(made)
    return {frozenset(r) for r in ends.values()}


def test_the_throw_messages_tree_holds_the_table_views_plays_and_routes() -> None:
    # The throw's message sends the plays as a tree of single-die steps (encoded once, kept
    # encoded); the table view lists them with their routes. For every throw of positions
    # from random games and of built ones (the bar, closed boards, bear-offs with the other
    # order of one checker's two dice), the tree's paths are exactly the list's routes, play
    # by play, hit marks as the list marks them; the message's bytes are the view's tree's.
    encode = msgspec.json.encode
    seen = {"routes": 0, "hits": 0, "off": 0, "bar": 0}
    for pos in corpus(16, 300):
        for dice in ROLLS:
            plays = legal_plays(pos, dice).plays
            fast = encode(tree_json(pos, dice))
            assert fast == encode(play_tree_of(pos, dice, bool(plays))), (pos.position_id(), dice)
            views = legal_views(pos, dice, plays)
            tree = msgspec.json.decode(fast)
            assert _plays_of(tree) == _plays_of(msgspec.to_builtins(views)), pos.position_id()
            for view in views:
                seen["routes"] += len(view.steps) > 1
                steps = [s for route in view.steps for s in route]
                seen["hits"] += any(hit for _, _, hit in steps)
                seen["off"] += any(to == 0 for _, to, _ in steps)
                seen["bar"] += any(frm == 25 for frm, _, _ in steps)
    # The corpus reaches every case the two could disagree on.
    assert all(n > 50 for n in seen.values()), seen


def test_the_throw_messages_wire_type_is_the_documented_one() -> None:
    # The documented ThrowView (OpenAPI) and what the server sends share their fields in order.
    assert ThrowWire.__struct_fields__ == ThrowView.__struct_fields__


async def test_two_players_play_whole_games_from_the_stream_alone(
    api: Api, client: TestClient
) -> None:
    table, a, b = await api.seat_two("money", clock={"delay": 12, "reserve": 120})
    users = {a.account_id: a, b.account_id: b}
    spectator = await api.register()
    socks: dict[str, WsClient] = {
        a.account_id: await connect(client, table, a),
        b.account_id: await connect(client, table, b),
    }
    watcher = await connect(client, table)  # a spectator: the same public message
    other = {a.account_id: b.account_id, b.account_id: a.account_id}
    rng = random.Random(5)
    actor, command = a.account_id, {"type": "roll"}  # game 1 has started: the opening throw
    games = passes = checked = 0
    try:
        for _ in range(3000):
            if games >= 2 and passes >= 1:
                break
            reply = await socks[actor].command(command)
            assert reply["ctl"] == "result", reply
            last = reply["last_version"]
            seen = socks[a.account_id]
            await seen.wait_version(last)
            await watcher.wait_version(last)
            new = [m for m in seen.stream() if reply["first_version"] <= m["v"] <= last]
            spectated = {m["v"]: m for m in watcher.stream()}
            for msg in new:
                assert msg.get("m") == spectated[msg["v"]].get("m")
            kinds = [m["t"] for m in new]
            final = new[-1]
            if "game_ended" in kinds:
                games += 1
                actor, command = a.account_id, {"type": "roll"}
            elif final["t"] in ("opening_throw", "dice_rolled") and "m" in final:
                m = final["m"]
                if checked < 40 or not m["play_tree"][0]:
                    _throw_checks(await api.state(table, users[m["player"]]), m)
                    await _after_checks(api, table, users, spectator, final)
                    checked += 1
                if m["play_tree"][0]:
                    # One route of the tree, as the page sends a play: its moves.
                    tree = tuple(tuple(tuple(e) for e in node) for node in m["play_tree"])
                    route = rng.choice(tree_routes(tree))
                    actor = m["player"]
                    command = {"type": "move", "moves": [[a, b] for a, b, _ in route]}
                else:
                    passes += 1
                    actor, command = other[m["player"]], {"type": "roll"}
            elif final["t"] == "opening_throw":
                actor, command = a.account_id, {"type": "roll"}  # a tie: throw again
            else:
                assert final["t"] == "checkers_moved", kinds
                actor, command = other[final["d"]["player"]], {"type": "roll"}
        assert games >= 2 and passes >= 1, (games, passes)
        # Only throws carry it: a move's view is for a socket that asks for views (tests/
        # server/streams/test_stream_moves.py), and none of these did.
        throws = ("opening_throw", "dice_rolled")
        assert all("m" not in m for m in watcher.stream() if m["t"] not in throws)
    finally:
        for s in (*socks.values(), watcher):
            await s.close()


async def test_a_late_socket_and_sse_get_the_plays_of_the_throw_in_play(
    api: Api, client: TestClient
) -> None:
    table, a, _b = await api.seat_two("money")
    reply = await api.ok(a, table, "roll")  # the opening throw
    view = await api.state(table)
    ws = await connect(client, table)
    await ws.wait_version(reply["last_version"])
    m = ws.stream()[-1]["m"]
    assert m["player"] == view["game"]["on_roll"]
    assert m["play_tree"] == view["game"]["play_tree"] and m["play_tree"][0]
    await ws.close()
    async with client.get(f"/tables/{table}/events") as resp:
        events = await read_sse(resp, count=view["version"])
    assert events[-1][2]["m"] == m


async def test_a_chouettes_throws_carry_the_plays_of_the_box_or_the_acting_captain(
    api: Api, client: TestClient
) -> None:
    table, users = await chouette(api, 4)
    spectator = await api.register()
    ws = await connect(client, table)
    rng = random.Random(2)
    throws = 0
    try:
        for _ in range(60):
            s = await api.state(table)
            who, command = next_chouette_action(s, rng)
            reply = await api.ok(users[who], table, **{"type_": command.pop("type"), **command})
            await ws.wait_version(reply["last_version"])
            final = ws.stream()[-1]
            if final["t"] in ("opening_throw", "dice_rolled") and "m" in final:
                _throw_checks(await api.state(table), final["m"])
                await _after_checks(api, table, users, spectator, final)
                throws += 1
        assert throws >= 10
    finally:
        await ws.close()
