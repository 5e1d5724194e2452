"""The table view and the events a client follows a table by (issue 10).

``GET /tables/{id}`` is one documented schema for every kind of table
(:data:`server.views.table.TableView`, discriminated by ``kind``), drawn from the viewer's side,
with the legal plays as single-die steps, the roles a chouette's members really have and the
chat channels a viewer may post on. A chouette's events name the cubes, players and results
they are about, so that a client needs no rules of its own to follow them; events stored under
the old schema still read.
"""

from __future__ import annotations

import random
import re
import uuid
from typing import Any

import msgspec

from engine.actions import Action
from engine.chouette import Side
from engine.chouette.permissions import offer_targets
from events.domain import types as e
from events.domain.decider import fold
from events.domain.table import TableState
from events.records.simulate import simulate_chouette
from events.store.event_store import NewEvent
from events.store.streams import decode_recorded, new_event, table_stream
from server.keys import TABLES
from server.views.table import (
    ChouetteTableView,
    MatchTableView,
    MoneyTableView,
    TableView,
    table_view,
)
from tests.server.conftest import (
    Api,
    Fold,
    User,
    advance,
    box_on_roll,
    chouette,
    connect,
    next_action,
    next_chouette_action,
    only,
    team_on_roll,
)

KINDS: dict[str, type[Any]] = {
    "money": MoneyTableView,
    "match": MatchTableView,
    "chouette": ChouetteTableView,
}


async def typed_view(api: Api, table: str, user: User | None = None) -> TableView:
    """``GET /tables/{id}`` decoded with the schema: the answer is exactly a :data:`TableView`
    of its ``kind`` (encoded again, nothing is lost, added or changed)."""
    async with api.client.get(f"/tables/{table}", headers=user.headers if user else {}) as resp:
        raw = await resp.read()
        assert resp.status == 200, raw
    view = msgspec.json.decode(raw, type=TableView)
    body = msgspec.json.decode(raw)
    assert type(view) is KINDS[body["kind"]]
    assert msgspec.json.decode(msgspec.json.encode(view)) == body
    return view


def pips(board: list[int]) -> int:
    return sum(point * checkers for point, checkers in enumerate(board) if point)


def others(users: dict[str, User], user: User) -> User:
    return next(u for u in users.values() if u is not user)


# -- one schema -------------------------------------------------------------------------------


async def test_money_and_match_views_decode_with_the_schema(api: Api) -> None:
    a, b, watcher = [await api.register() for _ in range(3)]
    users = {a.account_id: a, b.account_id: b}
    phases: set[str] = set()

    async def check(table: str) -> None:
        for viewer in (a, b, watcher, None):
            view = await typed_view(api, table, viewer)
            if view.game is not None:
                phases.add(view.game.phase)

    table = await api.create_table(a, "money", beavers=True)
    await check(table)  # nobody seated
    await api.ok(a, table, "join")
    await check(table)
    await api.ok(b, table, "join")
    await check(table)  # the opening throw
    rng = random.Random(4)
    for _ in range(6):
        await api.step(table, users, rng)
        await check(table)
    s = await api.until_phase(table, users, rng, lambda s: s["game"]["phase"] == "roll")
    p = users[only(s["game"]["to_act"])]
    await api.ok(p, table, "double")
    await check(table)
    await api.ok(others(users, p), table, "beaver")
    await check(table)
    await api.ok(p, table, "take")
    s = await api.until_phase(table, users, rng, lambda s: s["game"]["phase"] == "roll")
    p = users[only(s["game"]["to_act"])]
    await api.ok(p, table, "resign", level=2)
    await check(table)
    await api.ok(others(users, p), table, "accept")
    await check(table)  # game 2
    assert {"opening", "roll", "move", "doubled", "resignation"} <= phases

    # A one-point match, to its end: the game over, with its result and the match's winner.
    table, a, b = await api.seat_two("match", match_length=1)
    users = {a.account_id: a, b.account_id: b}
    await check(table)
    s = await api.until_phase(table, users, rng, lambda s: s["game"]["phase"] == "roll")
    p = users[only(s["game"]["to_act"])]
    await api.ok(p, table, "double")
    await api.ok(others(users, p), table, "drop")
    view = await typed_view(api, table, watcher)
    assert isinstance(view, MatchTableView) and view.game is not None
    assert view.match_winner == p.account_id and view.game.phase == "over"
    assert view.game.result is not None and view.game.result.winner == p.account_id
    assert view.game.result.how == "drop" and view.game.to_act == []
    assert p.display_name in view.game.status
    await check(table)


async def test_chouette_views_decode_with_the_schema(api: Api) -> None:
    users = [await api.register() for _ in range(4)]
    spectator = await api.register()
    table = await api.create_table(users[0], "chouette", beavers=True)
    for u in users:
        await api.ok(u, table, "join")
    by_id = {u.account_id: u for u in users}
    seen: list[str] = []

    async def check() -> None:
        for viewer in (*users, spectator, None):
            view = await typed_view(api, table, viewer)
            assert isinstance(view, ChouetteTableView)
            if view.game is not None:
                seen.append(view.game.phase)

    await check()  # before the first game
    await api.ok(users[0], table, "start_game")
    await check()  # the opening throw
    rng = random.Random(6)
    await advance(api, table, by_id, rng, lambda s: s["game"]["phase"] == "move")
    await check()  # the dice thrown
    s = await advance(api, table, by_id, rng, box_on_roll)
    await check()
    box, _, second, last = s["line"]
    await api.ok(by_id[box], table, "double", cubes=[second, last])
    await check()  # answers due
    await api.ok(by_id[second], table, "beaver")
    await check()
    await api.ok(by_id[box], table, "take", cube=second)
    await api.ok(by_id[last], table, "drop")
    await check()  # a settled member
    await advance(api, table, by_id, rng, lambda s: s["game"]["number"] == 2)
    await check()  # the next game, with a history
    assert {"opening", "roll", "move"} <= set(seen)

    # The replay's table is the same schema.
    async with api.client.get(f"/tables/{table}/replay") as resp:
        body = await resp.json()
    assert isinstance(msgspec.convert(body["table"], TableView), ChouetteTableView)


# -- the viewer's side ------------------------------------------------------------------------


async def _fold(api: Api, table: str) -> TableState:
    """The table as a client folds it from its stream."""
    ws = await connect(api.client, table)
    head, _ = await api.versions(table)
    await ws.wait_version(head)
    await ws.close()
    f = Fold()
    for m in ws.stream():
        f.feed(m)
    return f.state


async def test_sides_0_is_the_viewers_side(api: Api) -> None:
    table, a, b = await api.seat_two("money")
    users = {a.account_id: a, b.account_id: b}
    watcher = await api.register()
    rng = random.Random(9)
    checked = 0
    for _ in range(40):
        await api.step(table, users, rng)
        state = await _fold(api, table)
        game = state.game
        assert game is not None
        if game.turn is None:
            continue
        views = {u: await typed_view(api, table, u) for u in (a, b, watcher, None)}
        for viewer, view in views.items():
            assert view.game is not None
            seat = state.seat_of(viewer.account_id) if viewer else None
            me = 0 if seat is None else seat
            # The fold's position is seen by the side on roll.
            mine, theirs = (0, 1) if game.turn == me else (1, 0)
            assert view.game.sides[0].pips == game.position.pip_count(mine)
            assert view.game.sides[1].pips == game.position.pip_count(theirs)
            assert view.game.sides[0].board == list(game.position[mine])
            assert view.game.sides[1].board == list(game.position[theirs])
            assert view.game.sides[0].players == [state.seats[me]]
            assert view.game.sides[0].label == state.display_name(state.seats[me] or "")
            assert view.game.turn == (0 if game.turn == me else 1)
            assert [pips(side.board) for side in view.game.sides] == [
                side.pips for side in view.game.sides
            ]
            checked += 1
        # The two players see the same board from opposite sides; a spectator sees seat 0's.
        sides = {u: v.game.sides for u, v in views.items() if v.game is not None}
        assert sides[a] == sides[b][::-1]
        seat0 = sides[a] if state.seat_of(a.account_id) == 0 else sides[b]
        assert sides[watcher] == seat0 == sides[None]
    assert checked > 100

    # In a chouette: the box sees the box's side, everyone else the team's.
    table, by_id = await chouette(api, 3)
    s = await advance(api, table, by_id, rng, box_on_roll)
    s = await advance(api, table, by_id, rng, team_on_roll)
    box, captain, member = s["line"]
    state = await _fold(api, table)
    ch = state.chouette
    assert ch is not None and ch.game is not None
    g = ch.game
    for viewer in (by_id[box], by_id[captain], by_id[member], watcher, None):
        view = await typed_view(api, table, viewer)
        assert view.game is not None
        side = Side.BOX if viewer is by_id[box] else Side.TEAM
        mine, theirs = (0, 1) if g.turn == side else (1, 0)
        assert view.game.sides[0].pips == g.position.pip_count(mine)
        assert view.game.sides[1].pips == g.position.pip_count(theirs)
        assert view.game.sides[0].board == list(g.position[mine])
        assert view.game.sides[0].players == ([box] if side == Side.BOX else [captain, member])
        assert view.game.sides[1].players == ([captain, member] if side == Side.BOX else [box])
        assert view.game.turn is not None
        assert view.game.sides[view.game.turn].players == [captain, member]


# -- legal plays ------------------------------------------------------------------------------


def _apply(mover: list[int], other: list[int], route: list[tuple[int, int, bool]]) -> Any:
    """The two boards (each in its own numbering) after a route's single-die steps."""
    mine, theirs = list(mover), list(other)
    for start, end, hits in route:
        assert mine[start] > 0, (start, route)
        mine[start] -= 1
        mine[end] += 1
        if end:
            assert (theirs[25 - end] == 1) is hits, (end, route)
            if hits:
                theirs[25 - end] -= 1
                theirs[25] += 1
    return mine, theirs


def _dice_fit(dice: tuple[int, int], route: list[tuple[int, int, bool]]) -> bool:
    """Each step moves by one die (a bear-off by a higher one), no die used twice."""
    free = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    bear_offs = []
    for start, end, _ in route:
        if start - end in free:
            free.remove(start - end)
        elif end == 0:
            bear_offs.append(start)
        else:
            return False
    for distance in bear_offs:
        die = min((d for d in free if d > distance), default=None)
        if die is None:
            return False
        free.remove(die)
    return True


async def _play_checking_steps(
    api: Api, table: str, users: dict[str, User], rng: random.Random, moves: int
) -> int:
    """Play on; at each move check that every legal play's routes make that play, and that the
    play chosen, posted by its notation, leaves the board its steps say."""
    checked = 0
    while checked < moves:
        s = await api.state(table)
        g = s["game"]
        if g is None or g["phase"] != "move":
            if s.get("match_winner"):
                break
            await _next(api, table, users, s, rng)
            continue
        mover = users[g["on_roll"]]
        view = await typed_view(api, table, mover)
        assert view.game is not None and view.game.dice is not None
        assert view.game.legal_plays, "a turn with no play passes at once"
        mine, theirs = view.game.sides[0].board, view.game.sides[1].board
        results: dict[str, Any] = {}
        for play in view.game.legal_plays:
            assert play.steps and len(play.steps) <= 2, play
            ends = {repr(_apply(mine, theirs, route)) for route in play.steps}
            assert len(ends) == 1, play  # every route makes the same play
            assert all(_dice_fit(view.game.dice, route) for route in play.steps), play
            results[play.notation] = ends.pop()
        assert len(set(results.values())) == len(results), "two plays with one result"
        chosen = rng.choice(view.game.legal_plays)
        number = view.game.number
        await api.ok(mover, table, "move", notation=chosen.notation)
        after = await typed_view(api, table, mover)
        if after.game is not None and after.game.number == number and after.game.phase != "over":
            boards = (after.game.sides[0].board, after.game.sides[1].board)
            assert repr(boards) == results[chosen.notation], chosen
        checked += 1
    return checked


async def _next(
    api: Api, table: str, users: dict[str, User], s: dict[str, Any], rng: random.Random
) -> None:
    if s["kind"] == "chouette":
        who, command = next_chouette_action(s, rng)
        await api.ok(users[who], table, **{"type_": command.pop("type"), **command})
    else:
        command, player = next_action(s, rng)
        await api.ok(users[player], table, **command)


async def test_legal_plays_steps_make_their_play(api: Api) -> None:
    table, a, b = await api.seat_two("money")
    users = {a.account_id: a, b.account_id: b}
    assert await _play_checking_steps(api, table, users, random.Random(11), 80) == 80
    table, by_id = await chouette(api, 3)
    assert await _play_checking_steps(api, table, by_id, random.Random(12), 30) == 30


# -- roles and channels -----------------------------------------------------------------------


async def test_a_chouette_member_waits_before_the_first_game_and_after_joining_late(
    api: Api,
) -> None:
    users = [await api.register() for _ in range(3)]
    table = await api.create_table(users[0], "chouette")
    for u in users:
        await api.ok(u, table, "join")
    for u in users:
        view = await typed_view(api, table, u)
        assert view.role == "waiting", "at the table, before the first game"
        assert [(p.id, p.role, p.seat) for p in view.players] == [
            (x.account_id, "waiting", None) for x in users
        ]
        assert "start_game" in view.allowed and view.game is None
    assert (await typed_view(api, table, await api.register())).role == "spectator"
    await api.ok(users[0], table, "start_game")
    by_id = {u.account_id: u for u in users}
    await advance(api, table, by_id, random.Random(2), box_on_roll)
    late = await api.register()
    await api.ok(late, table, "join")
    view = await typed_view(api, table, late)
    assert view.role == "waiting", "joined during a game: plays from the next"
    assert next(p for p in view.players if p.id == late.account_id).role == "waiting"
    assert view.game is not None
    assert late.account_id not in [c.member for c in view.game.cubes]
    assert {p.role for p in view.players if p.id != late.account_id} == {
        "box",
        "captain",
        "member",
    }


async def test_a_member_who_won_their_game_is_settled(api: Api) -> None:
    table, users = await chouette(api, 3)
    s = await advance(api, table, users, random.Random(3), team_on_roll)
    box, captain, member = s["line"]
    await api.ok(users[member], table, "double")
    await api.ok(users[box], table, "drop", cube=member)
    view = await typed_view(api, table, users[member])
    assert view.role == "settled"
    assert next(p for p in view.players if p.id == member).role == "settled"
    assert view.game is not None
    cube = next(c for c in view.game.cubes if c.member == member)
    assert not cube.in_game and cube.settlement is not None
    assert (cube.settlement.winner, cube.settlement.loser) == (member, box)
    assert (cube.settlement.how, cube.settlement.points) == ("drop", 1)
    assert view.game.sides[0].players == [captain]  # the team plays on without them
    assert view.channels == ["table"] and not view.reads_team


async def _channels_match_what_may_be_posted(api: Api, table: str, viewers: list[User]) -> int:
    """For each viewer: ``allowed`` never names ``chat_team``; ``channels`` has each channel
    exactly when a post on it is recorded; an anonymous viewer has none."""
    checked = 0
    for viewer in viewers:
        view = await typed_view(api, table, viewer)
        assert "chat_team" not in view.allowed
        assert ("chat" in view.allowed) == ("table" in view.channels)
        for channel in ("table", "team"):
            reply = await api.send(
                viewer, table, {"type": "chat", "channel": channel, "text": "hi"}
            )
            assert (reply.status == 201) == (channel in view.channels), (
                channel,
                view.role,
                view.channels,
                reply.status,
                reply.body,
            )
            checked += 1
    anonymous = await typed_view(api, table)
    assert anonymous.channels == [] and not anonymous.reads_team
    assert "chat_team" not in anonymous.allowed and "chat" not in anonymous.allowed
    return checked


async def test_channels_are_where_the_viewer_may_post(api: Api) -> None:
    stranger = await api.register()
    table, a, b = await api.seat_two("money")
    await _channels_match_what_may_be_posted(api, table, [a, b, stranger])
    assert (await typed_view(api, table, a)).channels == ["table"]

    # A chouette before its first game: the table channel only (there is no team yet).
    members = [await api.register() for _ in range(2)]
    table = await api.create_table(members[0], "chouette")
    for u in members:
        await api.ok(u, table, "join")
    assert await _channels_match_what_may_be_posted(api, table, [*members, stranger]) == 6
    assert (await typed_view(api, table, members[0])).channels == ["table"]

    for consultation in ("free", "none", "after_cube"):
        table, users = await chouette(api, 4, consultation=consultation)
        line = (await api.state(table))["line"]
        box, captain, second, last = line
        everyone = [*users.values(), stranger]
        await _channels_match_what_may_be_posted(api, table, everyone)
        s = await advance(api, table, users, random.Random(4), box_on_roll)
        await api.ok(users[box], table, "double", cubes=[second, last])
        await api.ok(users[second], table, "take")
        await api.ok(users[last], table, "drop")
        await _channels_match_what_may_be_posted(api, table, everyone)
        views = {p: await typed_view(api, table, users[p]) for p in line}
        assert views[box].channels == ["table"] and not views[box].reads_team
        assert views[captain].channels == ["table", "team"]  # the captain talks to the team
        assert views[last].channels == ["table"]  # settled
        # The member whose cube was turned may advise unless nobody may.
        assert ("team" in views[second].channels) == (consultation != "none")
        assert views[second].reads_team and views[captain].reads_team
        assert s["box"] == box


# -- the events say what they did -------------------------------------------------------------


async def test_creating_a_table_returns_its_table_created_event(api: Api) -> None:
    a = await api.register()
    body = {
        "kind": "chouette",
        "options": {"cube_mode": "single"},
        "name": "Friday",
        "command_id": str(uuid.uuid4()),
    }
    created = await api.request("POST", "/tables", user=a, json=body)
    assert created.status == 201, created.body
    table = created.body["id"]
    (message,) = created.body["events"]
    assert (message["v"], message["s"], message["t"]) == (1, "table", "table_created")
    d = message["d"]
    assert (d["table_id"], d["kind"], d["created_by"], d["name"]) == (
        table,
        "chouette",
        a.account_id,
        "Friday",
    )
    assert d["options"]["cube_mode"] == "single"
    assert created.body["table"]["version"] == 1
    # As the table's stream carries it, and again on a retry.
    ws = await connect(api.client, table)
    await ws.wait_version(1)
    await ws.close()
    # The stream's message carries the event's chain hash too; a command's result does not
    # (its first answer is not read back, and a retry's is the same).
    (streamed,) = ws.stream()
    assert streamed.pop("h") == (await api.state(table))["chain_head"]
    assert streamed == message and "h" not in message
    again = await api.request("POST", "/tables", user=a, json=body)
    assert again.status == 200 and again.body["events"] == [message]


TAGS = {"take": "cube_taken", "beaver": "cube_beavered", "drop": "cube_dropped"}


async def test_the_box_doubling_every_cube_names_them(api: Api) -> None:
    table, users = await chouette(api, 4, beavers=True)
    s = await advance(api, table, users, random.Random(5), box_on_roll)
    box, captain, second, last = s["line"]
    targets = (await typed_view(api, table, users[box])).targets["double"]
    assert sorted(targets) == sorted([captain, second, last])
    doubled = await api.ok(users[box], table, "double", cubes=[])
    (offered,) = doubled["events"]
    assert offered["t"] == "cube_offered" and offered["d"]["player"] == box
    assert sorted(offered["d"]["cubes"]) == sorted(targets)
    # Each member answers for their own cube, and the event names it.
    for member, answer in ((captain, "take"), (second, "beaver"), (last, "drop")):
        got = await api.ok(users[member], table, answer)
        d = got["events"][0]["d"]
        assert got["events"][0]["t"] == TAGS[answer]
        assert (d["player"], d["cube"], d["cubes"]) == (member, member, [member])
    # The box answers the beaver on the member's cube: it names the member.
    took = await api.ok(users[box], table, "take", cube=second)
    d = took["events"][0]["d"]
    assert (d["player"], d["cube"], d["cubes"]) == (box, second, [second])


async def test_a_members_take_names_their_own_cube(api: Api) -> None:
    table, users = await chouette(api, 3)
    s = await advance(api, table, users, random.Random(6), box_on_roll)
    box, captain, member = s["line"]
    await api.ok(users[box], table, "double", cubes=[member])
    taken = await api.ok(users[member], table, "take")
    (event,) = taken["events"]
    assert event["t"] == "cube_taken"
    assert (event["d"]["player"], event["d"]["cube"], event["d"]["cubes"]) == (
        member,
        member,
        [member],
    )
    view = await typed_view(api, table)
    assert view.game is not None
    assert [(c.member, c.value, c.owner) for c in view.game.cubes] == [
        (captain, 1, None),
        (member, 2, member),
    ]

    # With a single cube the box's answer covers the team, and says so.
    table, users = await chouette(api, 3, cube_mode="single")
    s = await advance(api, table, users, random.Random(7), team_on_roll)
    box, captain, member = s["line"]
    offered = await api.ok(users[captain], table, "double")
    assert sorted(offered["events"][0]["d"]["cubes"]) == sorted([captain, member])
    taken = await api.ok(users[box], table, "take")
    d = taken["events"][0]["d"]
    assert (d["player"], d["cube"], sorted(d["cubes"])) == (box, "", sorted([captain, member]))


async def test_resignation_offers_name_whom_they_are_made_to(api: Api) -> None:
    table, users = await chouette(api, 3)
    rng = random.Random(8)
    s = await advance(api, table, users, rng, box_on_roll)
    box, captain, member = s["line"]
    offered = await api.ok(users[box], table, "resign", level=1)
    d = offered["events"][0]["d"]
    assert offered["events"][0]["t"] == "resignation_offered"
    assert (d["player"], d["level"], sorted(d["to"])) == (box, 1, sorted([captain, member]))
    for m in (captain, member):
        declined = await api.ok(users[m], table, "decline")
        d = declined["events"][0]["d"]
        assert (d["player"], d["cube"], d["cubes"]) == (m, m, [m])
    s = await advance(api, table, users, rng, team_on_roll)
    offered = await api.ok(users[member], table, "resign", level=2)
    d = offered["events"][0]["d"]
    assert (d["player"], d["level"], d["to"]) == (member, 2, [member])
    declined = await api.ok(users[box], table, "decline")
    d = declined["events"][0]["d"]
    assert (d["player"], d["cube"], d["cubes"]) == (box, member, [member])


async def test_game_ended_in_a_chouette_reports_the_board_and_every_member(api: Api) -> None:
    """Every cube at 2: the box doubled, both took; both redouble and the box drops the
    captain's, then the member's. The board ended with the member's drop; the captain beat
    the box (who keeps the box is in line_rotated)."""
    table, users = await chouette(api, 3)
    rng = random.Random(10)
    s = await advance(api, table, users, rng, box_on_roll)
    box, captain, member = s["line"]
    await api.ok(users[box], table, "double")
    await api.ok(users[captain], table, "take")
    await api.ok(users[member], table, "take")
    await advance(api, table, users, rng, team_on_roll)
    s = await api.state(table)
    assert [(c["value"], c["owner"]) for c in s["game"]["cubes"]] == [(2, captain), (2, member)]
    await api.ok(users[captain], table, "double")
    await api.ok(users[member], table, "double")
    await api.ok(users[box], table, "drop", cube=captain)
    dropped = await api.ok(users[box], table, "drop", cube=member)
    types = [m["t"] for m in dropped["events"]]
    assert types == ["cube_dropped", "game_ended", "line_rotated", "game_started"], types
    ended = dropped["events"][1]["d"]
    assert (ended["winner"], ended["result"], ended["cube"], ended["how"]) == (
        member,
        1,
        2,
        "drop",
    )
    assert ended["members"] == [
        {
            "member": m,
            "winner": m,
            "loser": box,
            "result": 1,
            "cube": 2,
            "points": 2,
            "how": "drop",
        }
        for m in (captain, member)
    ]
    totals: dict[str, int] = {}
    for st in ended["settlements"]:
        totals[st["player"]] = totals.get(st["player"], 0) + st["amount"]
    assert totals == {box: -4, captain: 2, member: 2}
    assert dropped["events"][2]["d"]["line"] == [captain, member, box]


async def test_a_chouettes_first_game_lists_its_players(api: Api) -> None:
    users = [await api.register() for _ in range(3)]
    table = await api.create_table(users[1], "chouette")
    for u in users:
        await api.ok(u, table, "join")
    started = await api.ok(users[2], table, "start_game")
    first = started["events"][0]
    assert first["t"] == "game_started" and first["d"]["game"] == 1
    assert first["d"]["players"] == [u.account_id for u in users]  # in join order
    # Later games list the line, box first.
    by_id = {u.account_id: u for u in users}
    s = await advance(api, table, by_id, random.Random(2), box_on_roll)
    box = s["box"]
    await api.ok(by_id[box], table, "double")
    ended: list[dict[str, Any]] = []
    for m in s["line"][1:]:
        ended = (await api.ok(by_id[m], table, "drop"))["events"]
    second = next(m for m in ended if m["t"] == "game_started")
    rotated = next(m for m in ended if m["t"] == "line_rotated")
    assert second["d"]["game"] == 2 and second["d"]["players"] == rotated["d"]["line"]


async def test_not_your_turn_names_the_player_not_a_seat(api: Api) -> None:
    table, a, b = await api.seat_two("money")
    users = {a.account_id: a, b.account_id: b}
    s = await api.until_phase(
        table, users, random.Random(1), lambda s: s["game"]["phase"] == "roll"
    )
    p = users[only(s["game"]["to_act"])]
    o = others(users, p)
    for command in ({"type": "roll"}, {"type": "double"}):
        problem = (await api.send(o, table, command)).problem(403, "not-your-turn")
        assert p.display_name in problem["detail"], problem
        assert not re.search(r"\bplayer [01]\b|\bseat\b", problem["detail"]), problem


# -- stored events of the old schema ----------------------------------------------------------


def _schema_1(before: TableState, event: e.Event) -> NewEvent:
    """``event`` as the server stored it before the events said what they did (schema 1): the
    box's offer to everyone and a member's own offer left the names empty, a member's answer
    left its cube empty and no answer had ``cubes``; a chouette's ``game_ended`` named who won
    the rotation, with result 1, cube 1 and no ``members``."""
    raw = msgspec.json.decode(e.encode(event))
    ch = before.chouette
    match event:
        case e.CubeOffered(player=player, cubes=cubes) if ch is not None:
            if player != ch.box or list(cubes) == list(
                offer_targets(ch, player, Action.DOUBLE, None)[1]
            ):
                raw["cubes"] = []
        case e.ResignationOffered(player=player, to=to) if ch is not None:
            if player != ch.box or list(to) == list(
                offer_targets(ch, player, Action.RESIGN, None)[1]
            ):
                raw["to"] = []
        case (
            e.CubeTaken(player=player)
            | e.CubeDropped(player=player)
            | e.CubeBeavered(player=player)
            | e.ResignationAccepted(player=player)
            | e.ResignationDeclined(player=player)
        ) if ch is not None:
            del raw["cubes"]
            if player != ch.box:
                raw["cube"] = ""
        case e.GameEnded() if ch is not None and ch.game is not None:
            g = ch.game
            raw.update(winner=g.box if g.box_won() else g.captain, result=1, cube=1)
            del raw["members"]
        case _ if e.tag(event) in e.SEALED_FIELDS:
            # Schema 2 may seal the person's field; schema 1 held it in the clear.
            return NewEvent(type=e.tag(event), data=e.encode(event), schema_version=1)
        case _:
            assert event.schema_version == 1, event
            return new_event(event)
    assert event.schema_version == 2
    return NewEvent(type=e.tag(event), data=msgspec.json.encode(raw), schema_version=1)


async def test_schema_1_chouette_events_still_decode_and_fold(api: Api) -> None:
    assert api.app is not None
    store = api.app[TABLES].store
    table = str(uuid.uuid4())
    simulated = simulate_chouette(
        table,
        games=4,
        rng=random.Random(21),
        options=e.TableOptions(beavers=True),
        double_rate=0.2,
        drop_rate=0.4,
        resign_rate=0.02,
    )
    state = TableState()
    version = 0
    old: list[NewEvent] = []
    for step in simulated.steps:
        if not step.events:
            continue
        new = []
        for event in step.events:
            new.append(_schema_1(state, event))
            state = fold([event], state)
        old.extend(new)
        result = await store.append(
            table_stream(table), new, expected_version=version, command_id=uuid.uuid4()
        )
        version = result.last_version
    assert state == fold(simulated.events)
    # The old meanings are all there: the box's offer to everyone, a member's own answer.
    v1 = [msgspec.json.decode(n.data) for n in old if n.schema_version == 1]
    assert any(d["type"] == "cube_offered" and d["cubes"] == [] for d in v1)
    assert any(d["type"] == "cube_taken" and d["cube"] == "" for d in v1)
    assert any(d["type"] == "game_ended" and "members" not in d for d in v1)
    assert all(n.schema_version == 1 for n in old)

    # Read back (upcast), folded: the same table as the new events make.
    records = await store.read_stream(table_stream(table))
    assert [r.schema_version for r in records] == [1] * len(old)
    assert fold([decode_recorded(r) for r in records]) == state
    # And the server shows it, and replays and audits it.
    view = await typed_view(api, table)
    assert msgspec.json.decode(msgspec.json.encode(view)) == msgspec.json.decode(
        msgspec.json.encode(
            table_view(
                state,
                None,
                view.now,
                chain_head=records[-1].hash.hex() if records[-1].hash else None,
            )
        )
    )
    async with api.client.get(f"/tables/{table}/replay", params={"at": "40"}) as resp:
        assert resp.status == 200
    async with api.client.get(f"/tables/{table}/audit") as resp:
        report = await resp.json()
    assert report["first_failure"] is None, report


# -- who may seat a bot -----------------------------------------------------------------------


async def test_may_seat_bot_is_the_creators_while_a_newcomer_may_join(api: Api) -> None:
    # The view says whether the viewer may seat a bot (the page shows its button by it): the
    # table's creator only, while a seat is free; and a bot is seated exactly then.
    ann, bob, watcher = [await api.register() for _ in range(3)]

    async def may(table: str) -> dict[str, bool]:
        return {
            who: (await typed_view(api, table, user)).may_seat_bot
            for who, user in (("ann", ann), ("bob", bob), ("watcher", watcher), ("anon", None))
        }

    nobody = {"ann": False, "bob": False, "watcher": False, "anon": False}
    table = await api.create_table(ann, "money")
    assert await may(table) == {**nobody, "ann": True}
    await api.ok(ann, table, "join")
    assert await may(table) == {**nobody, "ann": True}
    await api.ok(bob, table, "join")
    assert await may(table) == nobody  # both seats taken
    full = await api.request("POST", f"/tables/{table}/bots", user=ann, json={"strength": "basic"})
    assert full.problem(409, "table-full")

    # A chouette of three seats: a bot fills the last one, and then nobody may seat another.
    table = await api.create_table(bob, "chouette", max_players=3)
    await api.ok(bob, table, "join")
    await api.ok(ann, table, "join")
    assert await may(table) == {**nobody, "bob": True}
    seated = await api.request(
        "POST", f"/tables/{table}/bots", user=bob, json={"strength": "basic"}
    )
    assert seated.status == 201, seated.body
    assert seated.body["table"]["may_seat_bot"] is False
    assert await may(table) == nobody
