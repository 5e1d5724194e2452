"""A 5-point match through the Crawford game, over HTTP."""

from __future__ import annotations

import random
from typing import Any

from engine.matchid import MatchState
from tests.server.conftest import Api, User


def score_of(s: dict[str, Any], user: User) -> int:
    return int(s["score"][s["seats"].index(user.account_id)])


async def on_roll(
    api: Api, table: str, users: dict[str, User], who: User, rng: random.Random
) -> dict[str, Any]:
    """Play on until ``who`` is on roll, before rolling."""
    return await api.until_phase(
        table,
        users,
        rng,
        lambda s: s["game"]["phase"] == "roll" and s["game"]["to_act"] == [who.account_id],
    )


async def double_and_drop(
    api: Api, table: str, users: dict[str, User], doubler: User, rng: random.Random
) -> dict[str, Any]:
    other = next(u for u in users.values() if u != doubler)
    s = await on_roll(api, table, users, doubler, rng)
    number = s["game"]["number"]
    await api.ok(doubler, table, "double")
    result = await api.ok(other, table, "drop")
    types = [m["t"] for m in result["events"]]
    assert types[:2] == ["cube_dropped", "game_ended"], types
    ended = result["events"][1]["d"]
    assert ended["game"] == number and ended["winner"] == doubler.account_id
    assert ended["how"] == "drop"
    return await api.state(table)


async def test_a_five_point_match_through_the_crawford_game(api: Api) -> None:
    rng = random.Random(5)
    table, a, b = await api.seat_two("match", match_length=5)
    users = {a.account_id: a, b.account_id: b}
    s = await api.state(table)
    assert s["match_length"] == 5 and s["score"] == [0, 0] and s["crawford"] is False

    # Game 1 is played out by legal plays (one to three points, so nobody is near 5 yet).
    s = await api.play_out(table, users, rng)
    assert s["game"]["number"] == 2
    assert 1 <= max(s["score"]) <= 3 and min(s["score"]) == 0

    # The leader wins games by doubles that are dropped until within one point: Crawford.
    while not s["crawford"]:
        leader = a if score_of(s, a) >= score_of(s, b) else b
        s = await double_and_drop(api, table, users, leader, rng)
    leader = a if score_of(s, a) == 4 else b
    trailer = b if leader is a else a
    assert score_of(s, leader) == 4 and score_of(s, trailer) < 4
    crawford_game = s["game"]["number"]
    assert MatchState.from_id(s["game"]["match_id"]).crawford is True

    # In the Crawford game nobody may double: 409 with the rule's reason, nothing stored.
    for player in (trailer, leader):
        await on_roll(api, table, users, player, rng)
        s = await api.state(table, player)
        assert s["game"]["on_roll"] == player.account_id and "double" not in s["allowed"]
        before = await api.versions(table)
        problem = (await api.send(player, table, {"type": "double"})).problem(409, "not-now")
        assert "crawford" in problem["detail"].lower()
        assert await api.versions(table) == before
        if player is trailer:
            await api.ok(player, table, "roll")
            s = await api.until_phase(table, users, rng, lambda s: s["game"]["phase"] == "roll")

    # The leader resigns the Crawford game to the trailer (a single).
    s = await on_roll(api, table, users, leader, rng)
    assert s["game"]["number"] == crawford_game
    await api.ok(leader, table, "resign", level=1)
    accepted = await api.ok(trailer, table, "accept")
    assert [m["t"] for m in accepted["events"]] == [
        "resignation_accepted",
        "game_ended",
        "game_started",
    ]
    s = await api.state(table)
    assert s["crawford"] is False and s["game"]["number"] == crawford_game + 1
    assert MatchState.from_id(s["game"]["match_id"]).crawford is False
    trailing = score_of(s, trailer)

    # Post-Crawford the cube is back: the trailer doubles, the leader drops.
    await on_roll(api, table, users, trailer, rng)
    s = await api.state(table, trailer)
    assert s["game"]["on_roll"] == trailer.account_id and "double" in s["allowed"]
    s = await double_and_drop(api, table, users, trailer, rng)
    assert score_of(s, trailer) == trailing + 1 and score_of(s, leader) == 4

    # And the leader wins the next game, and the match.
    s = await on_roll(api, table, users, leader, rng)
    await api.ok(leader, table, "double")
    result = await api.ok(trailer, table, "drop")
    assert [m["t"] for m in result["events"]] == ["cube_dropped", "game_ended", "match_ended"]
    ended = result["events"][-1]["d"]
    assert ended["winner"] == leader.account_id
    final = await api.state(table)
    assert final["match_winner"] == leader.account_id
    assert score_of(final, leader) == 5
    assert sorted(final["score"]) == sorted(ended["score"])

    # Nothing more happens at a finished match.
    before = await api.versions(table)
    (await api.send(trailer, table, {"type": "roll"})).problem(409)
    (await api.send(leader, table, {"type": "start_game"})).problem(409)
    assert await api.versions(table) == before
