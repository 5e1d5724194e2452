"""The timer service (server/live/timers.py) on the real app and PostgreSQL, with an injected clock:
nothing sleeps, the test moves the clock and fires what is due (``Timers.fire_due``)."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from events import service
from events.domain import commands as c
from events.domain import types as e
from events.store.streams import decode_recorded, table_stream
from server.keys import METRICS, TABLES, TIMERS
from server.live.timers import ACTOR, Timers
from tests.server.conftest import (
    Api,
    User,
    WsClient,
    box_on_roll,
    chouette,
    connect,
    next_chouette_action,
    samples,
)

CLOCK = {"delay": 12, "reserve": 120}


class Clock:
    """A clock the test moves by hand (seconds since the epoch)."""

    def __init__(self) -> None:
        self.now = 1_764_000_000.0

    def __call__(self) -> float:
        return self.now


def timers(api: Api) -> Timers:
    assert api.app is not None
    return api.app[TIMERS]


async def events_of(api: Api, table: str) -> list[e.Event]:
    assert api.app is not None
    records = await api.app[TABLES].store.read_stream(table_stream(table))
    return [decode_recorded(r) for r in records]


async def recorded_by(api: Api, table: str) -> list[tuple[str, str]]:
    """(event type, actor) of every event at the table, as the store recorded them."""
    assert api.app is not None
    pool = api.app[TABLES].store.pool
    rows = await pool.fetch(
        "SELECT e.type, c.actor FROM events e JOIN commands c USING (command_id)"
        " WHERE e.stream_id = $1 ORDER BY e.version",
        table_stream(table),
    )
    return [(r["type"], r["actor"]) for r in rows]


async def connected(api: Api, table: str, *users: User) -> list[WsClient]:
    """Sockets of ``users`` open to the table, once the server counts them: the timer throws
    for a table only with two of its players connected (docs/rules.md §10)."""
    sockets = [await connect(api.client, table, u) for u in users]
    want = sorted(u.account_id for u in users)
    async with asyncio.timeout(10):
        while (await api.state(table))["connected"] != want:
            await asyncio.sleep(0.01)
    return sockets


def clock_of(view: dict[str, Any], player: str) -> dict[str, Any]:
    return next(c for c in view["clocks"] if c["player"] == player)


async def opened(api: Api, clock: Clock) -> tuple[str, User, User, User]:
    """A money game past its opening throw: (table, ann, bob, who must move)."""
    table, ann, bob = await api.seat_two("money", clock=CLOCK)
    await api.ok(ann, table, "roll")  # the opening throw
    view = await api.state(table)
    mover = ann if view["game"]["to_act"] == [ann.account_id] else bob
    return table, ann, bob, mover


async def test_a_player_who_does_nothing_forfeits_on_time(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    # The production dice, so that the audit re-derives every throw from the revealed seed.
    api = await make_api(clock=clock, dice_factory=None, seed_key=bytes(range(1, 33)))
    table, ann, bob, mover = await opened(api, clock)
    other = bob if mover is ann else ann
    deadline = clock_of(await api.state(table), mover.account_id)["deadline"]
    assert deadline == int(clock.now * 1000) + (12 + 120) * 1000
    assert timers(api).deadline(table) == deadline

    clock.now += 12 + 120 - 1  # a second short: nothing happens
    assert await timers(api).fire_due() == 0
    before = len(await events_of(api, table))
    clock.now += 1
    assert await timers(api).fire_due() == 1

    after = await events_of(api, table)
    new = after[before:]
    assert [type(ev) for ev in new[:2]] == [e.TimeExpired, e.GameEnded], new
    expired, ended = new[0], new[1]
    assert isinstance(expired, e.TimeExpired) and expired.player == mover.account_id
    assert isinstance(ended, e.GameEnded)
    assert ended.how == "forfeit" and ended.winner == other.account_id
    assert expired.at == ended.at == deadline
    assert (await recorded_by(api, table))[before] == ("time_expired", ACTOR)
    # Money table: no next game until someone throws for it, so nothing more is scheduled.
    assert timers(api).deadline(table) is None
    audit = await api.request("GET", f"/tables/{table}/audit")
    assert audit.status == 200 and audit.body["status"] == "ok", audit.body
    assert audit.body["events"] == len(after)
    assert api.app is not None
    metrics = api.app[METRICS].render()
    assert samples(metrics, "chouette_timer_expiries_total") == {'{outcome="ok"}': 1.0}
    assert samples(metrics, "chouette_timer_lateness_seconds_count") == {"": 1.0}


async def test_the_delay_comes_first_then_the_reserve(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    api = await make_api(clock=clock)
    table, ann, bob, mover = await opened(api, clock)
    other = bob if mover is ann else ann
    clock.now += 11  # within the delay
    view = await api.state(table)
    running = clock_of(view, mover.account_id)
    assert running["running"] and running["delay_ms"] == 1000 and running["reserve_ms"] == 120_000
    play = view["game"]["legal_plays"][0]["notation"]
    await api.ok(mover, table, "move", notation=play)

    view = await api.state(table)
    assert clock_of(view, mover.account_id) == {
        "player": mover.account_id,
        "running": False,
        "delay_ms": 0,
        "reserve_ms": 120_000,  # the delay cost nothing, and was not banked
        "deadline": None,
    }
    started = int(clock.now * 1000)
    assert clock_of(view, other.account_id)["deadline"] == started + 132_000
    clock.now += 12 + 7  # the delay and 7 s of reserve
    view = await api.state(table)
    assert clock_of(view, other.account_id)["delay_ms"] == 0
    assert clock_of(view, other.account_id)["reserve_ms"] == 113_000
    await api.ok(other, table, "roll")
    # Their next decision (the move) starts a fresh delay, with the reserve left.
    view = await api.state(table)
    assert clock_of(view, other.account_id) == {
        "player": other.account_id,
        "running": True,
        "delay_ms": 12_000,
        "reserve_ms": 113_000,
        "deadline": int(clock.now * 1000) + 12_000 + 113_000,
    }
    assert timers(api).deadline(table) == int(clock.now * 1000) + 125_000
    assert await timers(api).fire_due() == 0


async def test_members_answering_the_boxs_double_run_at_once(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    api = await make_api(clock=clock)
    table, users = await chouette(api, 4, clock=CLOCK)
    rng = random.Random(5)
    s = await api.state(table)
    for _ in range(500):
        if box_on_roll(s):
            break
        who, command = next_chouette_action(s, rng)
        await api.ok(users[who], table, **{"type_": command.pop("type"), **command})
        s = await api.state(table)
    else:
        raise AssertionError("the box never came on roll")
    box, captain, second, third = s["line"]
    await api.ok(users[box], table, "double")
    view = await api.state(table)
    running = {c["player"] for c in view["clocks"] if c["running"]}
    assert running == {captain, second, third}
    deadlines = {clock_of(view, m)["deadline"] for m in running}
    assert len(deadlines) == 1  # all started at the double, with full reserves

    clock.now += 30
    await api.ok(users[captain], table, "take")
    view = await api.state(table)
    assert {c["player"] for c in view["clocks"] if c["running"]} == {second, third}
    assert clock_of(view, captain)["reserve_ms"] == 120_000 - 18_000

    before = len(await events_of(api, table))
    clock.now += 12 + 120 - 30
    assert await timers(api).fire_due() == 1
    new = (await events_of(api, table))[before:]
    expired = {ev.player for ev in new if isinstance(ev, e.TimeExpired)}
    assert expired == {second, third}, new
    audit = await api.request("GET", f"/tables/{table}/audit")
    (stream,) = audit.body["streams"]
    assert stream["checks"]["rules"] == "ok" and stream["failures"] == [], audit.body


async def test_an_early_expiry_is_refused_and_stores_nothing(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    api = await make_api(clock=clock)
    table, ann, bob, _mover = await opened(api, clock)
    clock.now += 100
    before = await api.versions(table)
    for who in (ann, bob):
        r = await api.send(who, table, {"type": "expire"})
        body = r.problem(409)
        assert "nothing has run out yet" in body["detail"] and "32 s" in body["detail"], body
    assert await api.versions(table) == before
    # Nor does the timer fire before the deadline, however often it is asked.
    assert await timers(api).fire_due() == 0
    assert await api.versions(table) == before


async def test_two_processes_racing_record_one_expiry(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    first = await make_api(clock=clock)
    second = await make_api(clock=clock)
    table, _ann, _bob, mover = await opened(first, clock)
    await second.state(table)  # the second process knows the table too
    assert timers(first).deadline(table) == timers(second).deadline(table) is not None

    clock.now += 12 + 120
    sent = await asyncio.gather(timers(first).fire_due(), timers(second).fire_due())
    evs = await events_of(first, table)
    assert [ev.player for ev in evs if isinstance(ev, e.TimeExpired)] == [mover.account_id]
    assert sum(isinstance(ev, e.GameEnded) for ev in evs) == 1
    outcomes: dict[str, float] = {}
    for api in (first, second):
        assert api.app is not None
        text = api.app[METRICS].render()
        for labels, n in samples(text, "chouette_timer_expiries_total").items():
            outcomes[labels] = outcomes.get(labels, 0) + n
    assert outcomes.get('{outcome="ok"}') == 1, outcomes
    assert sum(sent) == sum(outcomes.values())  # the other one: a duplicate, refused or skipped
    assert timers(first).deadline(table) is None
    await timers(second).fire_due()
    assert len(await events_of(first, table)) == len(evs)


async def test_a_restart_rebuilds_the_timers_from_the_lobby(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    old = await make_api(clock=clock)
    table, _ann, _bob, mover = await opened(old, clock)
    quiet, _, _ = await old.seat_two("money", clock="off")
    deadline = timers(old).deadline(table)
    assert deadline is not None

    restarted = await make_api(clock=clock)
    await timers(restarted).ready()
    assert timers(restarted).deadline(table) == deadline
    assert timers(restarted).deadline(quiet) is None
    clock.now += 12 + 120
    assert await timers(restarted).fire_due() == 1
    evs = await events_of(restarted, table)
    assert [ev.player for ev in evs if isinstance(ev, e.TimeExpired)] == [mover.account_id]


async def test_the_timer_closes_an_expired_seed_window(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    api = await make_api(clock=clock, seed_window=5)
    table, ann, _bob = await api.seat_two("money", clock=CLOCK)
    sockets = await connected(api, table, ann, _bob)  # the table throws for two players here
    await api.ok(ann, table, "waive_seed")
    clock.now += 4
    assert await timers(api).fire_due() == 0
    clock.now += 1
    assert await timers(api).fire_due() == 1
    last = (await events_of(api, table))[-1]
    assert isinstance(last, e.SeedWindowClosed) and last.missing == [_bob.account_id]
    # Now the opening throw is due (the table's own clock, the delay only).
    view = await api.state(table)
    assert clock_of(view, "")["running"]
    for sock in sockets:
        await sock.close()


async def test_the_timer_throws_for_a_chouettes_first_line(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    api = await make_api(clock=clock, seed_window=5)
    players = [await api.register() for _ in range(3)]
    table = await api.create_table(players[0], "chouette", clock=CLOCK)
    for p in players:
        await api.ok(p, table, "join")
    sockets = await connected(api, table, *players)
    await api.ok(players[0], table, "start_game")
    before = len(await events_of(api, table))
    clock.now += 5
    assert await timers(api).fire_due() == 1
    new = (await events_of(api, table))[before:]
    assert isinstance(new[0], e.SeedWindowClosed)
    assert new[1:] and all(isinstance(ev, e.LineThrow) for ev in new[1:]), new
    view = await api.state(table)
    assert view["line"] and view["game"]["phase"] == "opening"
    for sock in sockets:
        await sock.close()


async def test_an_overdue_opening_throw_is_thrown_by_the_timer(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    api = await make_api(clock=clock)
    table, _ann, _bob = await api.seat_two("money", clock=CLOCK)
    sockets = await connected(api, table, _ann, _bob)
    view = await api.state(table)
    assert view["game"]["phase"] == "opening" and clock_of(view, "")["running"]
    clock.now += 12
    assert await timers(api).fire_due() == 1
    for sock in sockets:
        await sock.close()
    evs = await events_of(api, table)
    assert isinstance(evs[-1], e.OpeningThrow)
    assert not any(isinstance(ev, e.TimeExpired) for ev in evs)
    view = await api.state(table)
    mover = view["game"]["to_act"][0]
    assert clock_of(view, mover)["running"] and clock_of(view, mover)["reserve_ms"] == 120_000


async def test_the_background_loop_fires_what_is_due_and_stops_cleanly(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    """The loop production runs (here on the test's clock, already past the deadline, so it
    fires at once without sleeping), then a clean stop."""
    clock = Clock()
    api = await make_api(clock=clock)
    table, _ann, _bob, mover = await opened(api, clock)
    assert api.app is not None
    tables = api.app[TABLES]
    loop = Timers(tables, background=True)
    loop.schedule(table, await tables.state(table))

    async def nothing_in_play() -> list[str]:
        return []

    clock.now += 12 + 120
    loop.start(nothing_in_play)
    async with asyncio.timeout(10):
        while loop.fired < 1:
            await asyncio.sleep(0.01)
    await loop.stop()
    evs = await events_of(api, table)
    assert [ev.player for ev in evs if isinstance(ev, e.TimeExpired)] == [mover.account_id]
    assert len(loop) == 0  # nothing runs at the table any more


def arrivals(api: Api) -> int:
    """Tables with commands taken from a socket or request and not yet answered."""
    assert api.app is not None
    return api.app[TABLES].memory()["arrivals"]


async def until(predicate: Callable[[], bool], timeout: float = 5) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.01)


async def test_a_move_sent_in_time_is_decided_before_the_expiry_however_late(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    """A loaded server: the mover's command arrives a second before their deadline but waits
    (here, for the table's lock) until after it; the timer fires meanwhile. The move is decided
    first, at the time it arrived, and the expiry then finds nothing run out."""
    clock = Clock()
    api = await make_api(clock=clock)
    assert api.app is not None
    table, _ann, _bob, mover = await opened(api, clock)
    view = await api.state(table)
    deadline = clock_of(view, mover.account_id)["deadline"]
    notation = view["game"]["legal_plays"][0]["notation"]
    sock = await connect(api.client, table, mover)
    try:
        clock.now = deadline / 1000 - 1
        before = len(await events_of(api, table))
        async with api.app[TABLES]._locks.hold(table):  # the queue of a loaded server
            move = asyncio.create_task(sock.command({"type": "move", "notation": notation}))
            await until(lambda: arrivals(api) == 1)
            clock.now = deadline / 1000 + 5
            fire = asyncio.create_task(timers(api).fire_due())
            await asyncio.sleep(0.2)
            assert not fire.done() and not move.done()  # the expiry waits for the move
        reply = await move
        assert reply["ctl"] == "result", reply
        assert await fire == 1  # sent, and refused: nothing has run out
        new = (await events_of(api, table))[before:]
        assert not any(isinstance(ev, e.TimeExpired) for ev in new), new
        assert isinstance(new[0], e.CheckersMoved) and new[0].at == deadline - 1000
        after = clock_of(await api.state(table), mover.account_id)
        assert after["running"] is False and after["reserve_ms"] == 1000  # charged to arrival
        text = api.app[METRICS].render()
        assert samples(text, "chouette_timer_expiries_total") == {'{outcome="refused"}': 1.0}
        assert arrivals(api) == 0
    finally:
        await sock.close()


async def test_an_expiry_waits_for_a_command_taken_before_it_and_not_for_later_ones(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    """The service's side of it: a command taken from its socket before the deadline (its
    arrival registered, the command still being validated) holds the expiry back until it is
    answered; one taken after the expiry began does not."""
    clock = Clock()
    api = await make_api(clock=clock)
    assert api.app is not None
    tables = api.app[TABLES]
    table, _ann, _bob, mover = await opened(api, clock)
    view = await api.state(table)
    deadline = clock_of(view, mover.account_id)["deadline"]
    notation = view["game"]["legal_plays"][0]["notation"]
    clock.now = deadline / 1000 - 2
    with tables.arrival(table) as arrival:
        clock.now = deadline / 1000 + 3
        fire = asyncio.create_task(timers(api).fire_due())
        await asyncio.sleep(0.2)
        assert not fire.done()  # held back by the command taken in time
        await tables.execute(
            table, mover.account_id, c.Move(notation=notation), uuid.uuid4(), arrival
        )
    assert await fire == 1
    new = [type(ev) for ev in await events_of(api, table)]
    assert e.TimeExpired not in new
    assert clock_of(await api.state(table), mover.account_id)["reserve_ms"] == 2000

    # Now the other player's clock runs out. A command taken before the expiry began holds it
    # back; one taken while it waits does not (a stream of them never could).
    view = await api.state(table)
    roller = next(c["player"] for c in view["clocks"] if c["running"])
    clock.now = clock_of(view, roller)["deadline"] / 1000
    with tables.arrival(table):
        clock.now += 1
        fire = asyncio.create_task(timers(api).fire_due())
        await asyncio.sleep(0.2)
        assert not fire.done()
        clock.now += 1
        later = tables.arrival(table).__enter__()
    try:
        assert await asyncio.wait_for(fire, 2) == 1
    finally:
        later.__exit__(None, None, None)
    expired = [ev for ev in await events_of(api, table) if isinstance(ev, e.TimeExpired)]
    assert [ev.player for ev in expired] == [roller]
    assert arrivals(api) == 0


async def test_a_command_that_never_ends_holds_an_expiry_back_only_so_long(
    make_api: Callable[..., Awaitable[Api]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone out of time cannot stall their forfeit with a command that never finishes."""
    monkeypatch.setattr(service, "ARRIVAL_WAIT", 0.3)
    clock = Clock()
    api = await make_api(clock=clock)
    assert api.app is not None
    table, _ann, _bob, mover = await opened(api, clock)
    deadline = clock_of(await api.state(table), mover.account_id)["deadline"]
    with api.app[TABLES].arrival(table):
        clock.now = deadline / 1000 + 1
        assert await asyncio.wait_for(timers(api).fire_due(), 5) == 1
    expired = [ev for ev in await events_of(api, table) if isinstance(ev, e.TimeExpired)]
    assert [ev.player for ev in expired] == [mover.account_id]


async def test_commands_that_reach_the_table_out_of_order_never_record_time_backwards(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    """Two commands taken close together may reach the table's lock in the other order (one
    awaited something on its way): the second decided is recorded at the first's time, not
    before it, so the log's times never go backwards and no clock is charged backwards."""
    clock = Clock()
    api = await make_api(clock=clock)
    assert api.app is not None
    tables = api.app[TABLES]
    table, ann, bob, mover = await opened(api, clock)
    other = bob if mover is ann else ann
    notation = (await api.state(table))["game"]["legal_plays"][0]["notation"]
    clock.now += 3
    with tables.arrival(table) as early:  # the other player's roll, taken first
        clock.now += 1
        with tables.arrival(table) as late:  # the mover's move, a second later
            clock.now += 1
            await tables.execute(
                table, mover.account_id, c.Move(notation=notation), uuid.uuid4(), late
            )
        await tables.execute(table, other.account_id, c.Roll(), uuid.uuid4(), early)
    moved, rolled = (await events_of(api, table))[-2:]
    assert isinstance(moved, e.CheckersMoved) and moved.at == late.at == early.at + 1000
    assert isinstance(rolled, e.DiceRolled) and rolled.at == moved.at
    state = await tables.state(table)
    assert state.last_at == rolled.at
    assert clock_of(await api.state(table), other.account_id)["running"] is True


async def test_a_command_over_http_is_decided_at_the_time_its_body_was_in(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    api = await make_api(clock=clock)
    assert api.app is not None
    table, _ann, _bob, mover = await opened(api, clock)
    view = await api.state(table)
    notation = view["game"]["legal_plays"][0]["notation"]
    clock.now += 20  # 8 s of the reserve used when it arrives
    sent = int(clock.now * 1000)
    async with api.app[TABLES]._locks.hold(table):  # the queue of a loaded server
        move = asyncio.create_task(api.ok(mover, table, "move", notation=notation))
        await until(lambda: arrivals(api) == 1)
        clock.now += 30  # decided half a minute later
    await move
    moved = (await events_of(api, table))[-1]
    assert isinstance(moved, e.CheckersMoved) and moved.at == sent
    assert clock_of(await api.state(table), mover.account_id)["reserve_ms"] == 112_000
    assert arrivals(api) == 0
