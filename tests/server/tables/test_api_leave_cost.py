"""What leaving costs, as the table view says it (``leave_cost``, issue 29): the forfeit the
server applies when that viewer then sends ``leave`` (docs/rules.md §8, §10). At a money table,
in a match (mid-game and between its games), and in a chouette for a member, the captain and
the box, the view's stated points are exactly the change to the leaver's ledger (and, in a
match, to the opponent's score); between games, before a game's first throw, for a spectator
and for a chouette player waiting for the next game, leaving costs nothing and the view says
none. A throw's message carries each viewer's cost after it (the opening throw starts it)."""

from __future__ import annotations

import random
import re
from typing import Any

from tests.server.conftest import (
    Api,
    User,
    advance,
    box_on_roll,
    chouette,
    connect,
    only,
    team_on_roll,
)


def lost(cost: dict[str, Any]) -> int:
    """The points the cost's sentence says are lost."""
    said = re.search(r"you lose (\d+) points?", cost["text"])
    assert said, cost["text"]
    return int(said[1])


async def leave_as_stated(api: Api, table: str, leaver: User) -> tuple[dict[str, Any], ...]:
    """``leaver`` reads what leaving costs, then leaves: the ledger moves by exactly that.
    Returns the cost, the view before and after (as the leaver sees them) and the result."""
    before = await api.state(table, leaver)
    cost = before["leave_cost"]
    assert cost is not None and cost["points"] <= 0, cost
    result = await api.ok(leaver, table, "leave")
    after = await api.state(table, leaver)
    me = leaver.account_id
    assert after["ledger"].get(me, 0) - before["ledger"].get(me, 0) == cost["points"], cost
    assert after["leave_cost"] is None  # no longer at the table
    return cost, before, after, result


def rolls(s: dict[str, Any]) -> bool:
    return bool(s["game"]["phase"] == "roll")


async def costs(api: Api, table: str, *viewers: User | None) -> list[Any]:
    return [(await api.state(table, v))["leave_cost"] for v in viewers]


async def test_a_money_game_states_the_forfeit_its_leaving_applies(api: Api) -> None:
    table, a, b = await api.seat_two("money")
    users = {a.account_id: a, b.account_id: b}
    watcher = await api.register()
    # Game 1 has started, but nothing is thrown: leaving is free, and nobody is told a cost.
    assert await costs(api, table, a, b, watcher, None) == [None] * 4

    # The opening throw starts the game: its message tells each player their cost now.
    ws = await connect(api.client, table, a)
    try:
        await api.ok(a, table, "roll")
        await ws.wait_for(lambda c: any(m.get("t") == "opening_throw" for m in c.stream()))
        m = next(m for m in ws.stream() if m.get("t") == "opening_throw")["m"]
    finally:
        await ws.close()
    for u in (a, b):
        stated = (await api.state(table, u))["leave_cost"]
        assert stated is not None and stated["points"] < 0 and not stated["match"]
        assert m["viewers"][u.account_id]["leave_cost"] == stated
    assert m["spectator"]["leave_cost"] is None and m["anonymous"]["leave_cost"] is None

    # A double taken: the cost is on a cube of 2.
    rng = random.Random(7)
    s = await api.until_phase(table, users, rng, rolls)
    doubler = users[only(s["game"]["to_act"])]
    taker = next(u for u in users.values() if u is not doubler)
    await api.ok(doubler, table, "double")
    await api.ok(taker, table, "take")
    cost, _, _, result = await leave_as_stated(api, table, taker)
    ended = next(ev["d"] for ev in result["events"] if ev["t"] == "game_ended")
    assert ended["how"] == "forfeit" and ended["cube"] == 2
    assert cost["points"] == -ended["result"] * 2 == -lost(cost)
    assert "at a cube of 2" in cost["text"] and cost["text"].startswith(
        "Leaving now forfeits this game: you lose"
    )
    # The winner is paid just that, and between games leaving costs the one left nothing.
    view = await api.state(table, doubler)
    assert view["ledger"][doubler.account_id] == -cost["points"]
    assert not view["in_game"] and view["leave_cost"] is None
    await api.ok(doubler, table, "leave")
    assert (await api.state(table, doubler))["ledger"] == view["ledger"]


async def test_between_money_games_leaving_costs_nothing(api: Api) -> None:
    table, a, b = await api.seat_two("money")
    users = {a.account_id: a, b.account_id: b}
    s = await api.until_phase(table, users, random.Random(2), rolls)
    resigning = users[only(s["game"]["to_act"])]
    other = next(u for u in users.values() if u is not resigning)
    await api.ok(resigning, table, "resign", level=1)
    await api.ok(other, table, "accept")
    view = await api.state(table, resigning)
    assert not view["in_game"] and "leave" in view["allowed"]
    assert await costs(api, table, a, b) == [None, None]
    await api.ok(resigning, table, "leave")
    assert (await api.state(table, other))["ledger"] == view["ledger"]


async def test_a_match_states_that_leaving_forfeits_it(api: Api) -> None:
    table, a, b = await api.seat_two("match", match_length=5)
    users = {a.account_id: a, b.account_id: b}
    assert await costs(api, table, a, b) == [None, None]  # before the match's first throw
    s = await api.until_phase(table, users, random.Random(5), rolls)
    leaver = users[only(s["game"]["to_act"])]
    winner = next(u for u in users.values() if u is not leaver)
    cost, before, after, _ = await leave_as_stated(api, table, leaver)
    assert cost["match"] is True and cost["points"] == -lost(cost)
    assert cost["text"].startswith(f"Leaving now forfeits the match ({winner.display_name} wins")
    seat = before["seats"].index(winner.account_id)
    assert after["score"][seat] - before["score"][seat] == -cost["points"]
    assert after["match_winner"] == winner.account_id
    assert (await api.state(table, winner))["leave_cost"] is None  # a finished match


async def test_between_a_matchs_games_leaving_still_forfeits_the_match(api: Api) -> None:
    table, a, b = await api.seat_two("match", match_length=3)
    users = {a.account_id: a, b.account_id: b}
    s = await api.until_phase(table, users, random.Random(9), rolls)
    resigning = users[only(s["game"]["to_act"])]
    other = next(u for u in users.values() if u is not resigning)
    await api.ok(resigning, table, "resign", level=1)
    await api.ok(other, table, "accept")
    # Game 2 has started and is not thrown yet: no game to forfeit, but the match.
    view = await api.state(table, resigning)
    assert view["game"]["number"] == 2 and view["game"]["phase"] == "opening"
    cost = view["leave_cost"]
    assert cost == {
        "points": 0,
        "match": True,
        "text": f"Leaving now forfeits the match: {other.display_name} wins it, whatever "
        "the score.",
    }
    _, before, after, _ = await leave_as_stated(api, table, resigning)
    assert after["score"] == before["score"] and after["match_winner"] == other.account_id


async def test_a_chouettes_member_captain_and_box_are_told_what_they_forfeit(api: Api) -> None:
    table, users = await chouette(api, 5)
    rng = random.Random(11)
    s = await api.state(table)
    assert all(c is None for c in await costs(api, table, *users.values()))  # the opening
    await api.ok(users[s["box"]], table, "roll")
    s = await advance(api, table, users, rng, team_on_roll)
    box, captain = users[s["box"]], users[s["captain"]]
    members = [users[p] for p in s["line"][2:]]
    # One member doubles the box on their own cube, and the box takes.
    doubler = members[0]
    await api.ok(doubler, table, "double")
    await api.ok(box, table, "take", cube=doubler.account_id)
    # A newcomer plays from the next game: leaving costs them nothing.
    late = await api.register()
    await api.ok(late, table, "join")
    assert await costs(api, table, late) == [None]

    # A member (not the one who doubled) forfeits their own game, on their own cube.
    cost, before, after, _ = await leave_as_stated(api, table, members[1])
    assert cost["text"].startswith("Leaving now forfeits your game against the box: you lose")
    assert "on your cube of 1" in cost["text"] and cost["points"] == -lost(cost)
    assert after["ledger"][box.account_id] - before["ledger"][box.account_id] == -cost["points"]

    # The captain forfeits theirs and hands over the captaincy.
    cost, before, after, _ = await leave_as_stated(api, table, captain)
    assert "your game against the box" in cost["text"] and cost["points"] == -lost(cost)
    assert after["acting_captain"] != captain.account_id

    # The box forfeits to both members still in the game, each on their own cube.
    view = await api.state(table, box)
    cost = view["leave_cost"]
    remaining = [m for m in members if m is not members[1]]
    assert f"each of the {len(remaining)} members still in it" in cost["text"], cost
    assert "on a cube of 2" in cost["text"] and "on a cube of 1" in cost["text"]
    _, before, after, result = await leave_as_stated(api, table, box)
    assert cost["points"] == -lost(cost)
    paid = {
        m.account_id: after["ledger"][m.account_id] - before["ledger"][m.account_id]
        for m in remaining
    }
    assert sum(paid.values()) == -cost["points"] and all(p > 0 for p in paid.values()), paid
    assert paid[doubler.account_id] % 2 == 0  # on the cube of 2
    assert any(ev["t"] == "game_ended" for ev in result["events"])


async def test_a_spectator_and_a_settled_member_leave_for_nothing(api: Api) -> None:
    table, users = await chouette(api, 3)
    s = await api.state(table)
    await api.ok(users[s["box"]], table, "roll")
    s = await advance(api, table, users, random.Random(3), box_on_roll)
    member = users[s["line"][2]]
    box = users[s["box"]]
    await api.ok(box, table, "double", cubes=[member.account_id])
    await api.ok(member, table, "drop")
    view = await api.state(table, member)
    assert view["role"] == "settled" and view["leave_cost"] is None
    watcher = await api.register()
    assert await costs(api, table, watcher, None) == [None, None]
    await api.ok(member, table, "leave")
    assert (await api.state(table, member))["ledger"] == view["ledger"]


async def test_a_leave_that_would_cost_more_than_agreed_is_refused(api: Api) -> None:
    """``leave`` with ``at_most`` (what the page's confirmation showed): refused with nothing
    written when leaving now costs more; a leave agreed at the cost goes through. A leave sent
    as free (``at_most`` 0, between games) is refused once the game has started meanwhile."""
    table, a, b = await api.seat_two("money")
    users = {a.account_id: a, b.account_id: b}
    await api.ok(a, table, "roll")  # the opening throw: the game is under way
    s = await api.until_phase(table, users, random.Random(11), rolls)
    doubler = users[only(s["game"]["to_act"])]
    taker = next(u for u in users.values() if u is not doubler)
    await api.ok(doubler, table, "double")
    await api.ok(taker, table, "take")
    before = await api.state(table, taker)
    owed = -before["leave_cost"]["points"]
    assert owed >= 2
    for agreed in (0, owed - 1):
        r = await api.send(taker, table, {"type": "leave", "at_most": agreed})
        assert r.status == 409, r.body
        assert r.body["type"].endswith("/not-now"), r.body
        assert f"would cost {owed} points" in r.body["detail"]
        assert "nothing was done" in r.body["detail"]
        assert (await api.state(table, taker))["version"] == before["version"]
    for bad in (-1, "2", 2**60):
        r = await api.send(taker, table, {"type": "leave", "at_most": bad})
        assert r.status == 400, r.body
    await api.ok(taker, table, "leave", at_most=owed)
    after = await api.state(table, doubler)
    assert after["ledger"][doubler.account_id] - before["ledger"].get(doubler.account_id, 0) == owed
