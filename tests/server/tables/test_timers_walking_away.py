"""The clocks' last rules on the real app and PostgreSQL (docs/rules.md §10, issue 27), with an
injected clock and the timers fired by hand (``Timers.fire_due``): who is connected is who has a
WebSocket open to the table.

- a player who runs out of time while not connected leaves when that game ends; one who is
  connected stays seated;
- the timer throws nothing by itself (an opening, a line, a seed window's close) with fewer
  than two of the table's players connected, and an abandoned chouette stops;
- a money table's reserve is restored at each game, and the rule is recorded with the table;
- the view and the replay say who ran out of time."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from events.domain import types as e
from tests.server.conftest import Api, User, WsClient, chouette
from tests.server.tables.test_timers import Clock, clock_of, connected, events_of, timers

CLOCK = {"delay": 12, "reserve": 120}
FAIR = {"dice_factory": None, "seed_key": bytes(range(1, 33))}
"""The production dice, so that the audit re-derives every throw from the revealed seeds."""


async def audited(api: Api, table: str) -> None:
    audit = await api.request("GET", f"/tables/{table}/audit")
    assert audit.status == 200 and audit.body["status"] == "ok", audit.body


async def opened(api: Api) -> tuple[str, User, User]:
    """A money game past its opening throw: (table, who must move, the other)."""
    table, ann, bob = await api.seat_two("money", clock=CLOCK)
    await api.ok(ann, table, "roll")  # the opening throw
    view = await api.state(table)
    return (table, ann, bob) if view["game"]["to_act"] == [ann.account_id] else (table, bob, ann)


async def close(*sockets: WsClient) -> None:
    for s in sockets:
        await s.close()


async def test_a_player_away_who_runs_out_of_time_leaves_when_the_game_ends(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    api = await make_api(clock=clock, **FAIR)
    table, mover, other = await opened(api)
    sockets = await connected(api, table, other)  # the mover has no stream open
    try:
        before = len(await events_of(api, table))
        clock.now += 12 + 120
        assert await timers(api).fire_due() == 1
        new = (await events_of(api, table))[before:]
        assert [type(ev) for ev in new] == [e.TimeExpired, e.GameEnded, e.PlayerLeft], new
        assert new[0] == e.TimeExpired(player=mover.account_id, absent=True, at=new[0].at)
        assert new[2] == e.PlayerLeft(player=mover.account_id, at=new[0].at)
        view = await api.state(table)
        assert mover.account_id not in view["seats"] and other.account_id in view["seats"]
        game = view["game"]
        assert game["forfeits"] == [{"player": mover.account_id, "how": "time", "walks_away": True}]
        assert f"{mover.display_name} ran out of time" in game["status"], game["status"]
        assert timers(api).deadline(table) is None  # nothing more runs at the table
        # The replay says who ran out of time, and why they left.
        told = []
        for at in range(before + 1, before + 4):
            r = await api.request("GET", f"/tables/{table}/replay?at={at}")
            assert r.status == 200, r.body
            told.append(r.body["event"]["text"])
        assert told[0].startswith(f"{mover.display_name} runs out of time"), told
        assert f"forfeit: {mover.display_name} ran out of time" in told[1], told
        assert told[2].startswith(f"{mover.display_name} leaves"), told
        await audited(api, table)
    finally:
        await close(*sockets)


async def test_a_connected_player_who_runs_out_of_time_stays_seated(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    api = await make_api(clock=clock, **FAIR)
    table, mover, other = await opened(api)
    sockets = await connected(api, table, mover, other)
    try:
        before = len(await events_of(api, table))
        clock.now += 12 + 120
        assert await timers(api).fire_due() == 1
        new = (await events_of(api, table))[before:]
        assert [type(ev) for ev in new] == [e.TimeExpired, e.GameEnded], new
        assert new[0] == e.TimeExpired(player=mover.account_id, absent=False, at=new[0].at)
        view = await api.state(table)
        assert sorted(view["seats"]) == sorted([mover.account_id, other.account_id])
        assert view["game"]["forfeits"] == [
            {"player": mover.account_id, "how": "time", "walks_away": False}
        ]
        await audited(api, table)
    finally:
        await close(*sockets)


async def test_the_timer_throws_no_opening_with_fewer_than_two_connected(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    api = await make_api(clock=clock)
    table, ann, bob = await api.seat_two("money", clock=CLOCK)  # the opening is due
    before = len(await events_of(api, table))
    clock.now += 12
    assert await timers(api).fire_due() == 0  # nobody is connected: nothing is sent
    assert timers(api).parked(table)
    clock.now += 600
    assert await timers(api).fire_due() == 0
    first = await connected(api, table, ann)  # one player is not enough
    assert await timers(api).fire_due() == 0
    assert len(await events_of(api, table)) == before
    second = await connected(api, table, ann, bob)
    try:
        assert await timers(api).fire_due() == 1  # bob's arrival woke the table
        new = (await events_of(api, table))[before:]
        assert [type(ev) for ev in new] == [e.OpeningThrow], new
        assert not timers(api).parked(table)
    finally:
        await close(*first, *second)


async def test_a_seed_window_waits_for_two_connected_players(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    api = await make_api(clock=clock, seed_window=5)
    table, ann, _bob = await api.seat_two("money", clock=CLOCK)
    sockets = await connected(api, table, ann)
    try:
        clock.now += 5
        assert await timers(api).fire_due() == 0
        assert not any(isinstance(ev, e.SeedWindowClosed) for ev in await events_of(api, table))
        # A player who is there throws: the window closes with the opening throw.
        await api.ok(ann, table, "roll")
        last = (await events_of(api, table))[-2:]
        assert [type(ev) for ev in last] == [e.SeedWindowClosed, e.OpeningThrow], last
    finally:
        await close(*sockets)


async def test_an_abandoned_chouette_stops(make_api: Callable[..., Awaitable[Api]]) -> None:
    """Three players throw for the line and leave their sockets: the timer plays the game out
    on their clocks (each out of time, each away), everyone who ran out leaves as it ends, no
    next game starts, and then nothing more is written however long the table is left."""
    clock = Clock()
    api = await make_api(clock=clock, **FAIR)
    table, users = await chouette(api, 3, clock=CLOCK)
    sockets = await connected(api, table, *users.values())
    clock.now += 12
    assert await timers(api).fire_due() == 1  # the opening, thrown with everyone there
    assert isinstance((await events_of(api, table))[-1], e.OpeningThrow)
    await close(*sockets)
    for _ in range(10):
        clock.now += 12 + 120
        await timers(api).fire_due()
    evs = await events_of(api, table)
    expired = [ev for ev in evs if isinstance(ev, e.TimeExpired)]
    assert expired and all(ev.absent for ev in expired), expired
    ends = [i for i, ev in enumerate(evs) if isinstance(ev, e.GameEnded)]
    assert len(ends) == 1, evs
    tail = evs[ends[0] + 1 :]
    assert not any(isinstance(ev, e.GameStarted) for ev in tail), tail
    left = {ev.player for ev in tail if isinstance(ev, e.PlayerLeft)}
    assert left == {ev.player for ev in expired}
    rotated = tail[-1]
    assert isinstance(rotated, e.LineRotated) and rotated.absent == rotated.line
    view = await api.state(table)
    assert not view["in_game"] and timers(api).deadline(table) is None
    ledger = view["ledger"]
    # Left for an hour: nothing runs out, nothing is written, nobody's money moves.
    clock.now += 3600
    assert await timers(api).fire_due() == 0
    assert len(await events_of(api, table)) == len(evs)
    assert (await api.state(table))["ledger"] == ledger
    await audited(api, table)


async def test_a_client_may_not_say_who_is_absent(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    api = await make_api(clock=clock)
    table, _mover, other = await opened(api)
    clock.now += 12 + 120
    before = await api.versions(table)
    r = await api.send(other, table, {"type": "expire", "absent": [other.account_id]})
    body = r.problem(400)
    assert body["field"] == "command.absent" and "server" in body["detail"], body
    assert await api.versions(table) == before
    # The server says it: the mover has no stream open, so they walk away.
    r = await api.send(other, table, {"type": "expire"})
    assert r.status == 201, r.body
    types = [m["t"] for m in r.body["events"]]
    assert types == ["time_expired", "game_ended", "player_left"], types
    assert r.body["events"][0]["d"]["absent"] is True


async def test_a_money_table_restores_the_reserve_at_each_game(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    api = await make_api(clock=clock)
    table, mover, other = await opened(api)
    view = await api.state(table)
    assert view["options"]["clock"]["reserve_per_game"] is True
    clock.now += 12 + 28  # the delay and 28 s of the mover's reserve
    await api.ok(mover, table, "move", notation=view["game"]["legal_plays"][0]["notation"])
    await api.ok(other, table, "resign", level=1)
    await api.ok(mover, table, "accept")
    assert clock_of(await api.state(table), mover.account_id)["reserve_ms"] == 92_000
    await api.ok(other, table, "roll")  # throws for game 2
    view = await api.state(table)
    assert view["game"]["number"] == 2
    for player in (mover, other):
        assert clock_of(view, player.account_id)["reserve_ms"] == 120_000
    match = await api.create_table(mover, "match", match_length=3)
    assert (await api.state(match))["options"]["clock"]["reserve_per_game"] is False
    # The rule is the kind's: the other value is refused (400).
    for kind, options, value in (("match", {"match_length": 3}, True), ("money", {}, False)):
        clock_options = {**CLOCK, "reserve_per_game": value}
        r = await api.request(
            "POST",
            "/tables",
            user=mover,
            json={"kind": kind, "options": {**options, "clock": clock_options}},
        )
        assert r.status == 400 and "reserve_per_game" in r.body["detail"], r.body
