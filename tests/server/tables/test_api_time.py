"""Time through the API: the seed window (the server's default recorded with the table, the
window in the table view, seeds and waivers over HTTP) and the clocks (their options checked,
the defaults recorded, the running clock in the view), with time from the service's clock (an
injected clock here, never a sleep)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from events.domain import types as e
from events.store.streams import decode_recorded, table_stream
from server.keys import TABLES
from tests.server.conftest import Api


class Clock:
    """A clock the test moves by hand (seconds since the epoch)."""

    def __init__(self) -> None:
        self.now = 1_764_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_a_table_records_the_servers_default_window(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    api = await make_api(seed_window=7)
    ann = await api.register()
    default = await api.create_table(ann, "money")
    chosen = await api.create_table(ann, "money", seed_window=0)
    assert (await api.state(default, ann))["options"]["seed_window"] == 7
    assert (await api.state(chosen, ann))["options"]["seed_window"] == 0


async def test_out_of_range_windows_are_refused(api: Api) -> None:
    ann = await api.register()
    for bad in (-1, 61, "5", 2**31):
        r = await api.request(
            "POST", "/tables", user=ann, json={"kind": "money", "options": {"seed_window": bad}}
        )
        assert r.status == 400, (bad, r.body)
        assert "seed_window" in r.body["detail"]


async def test_the_window_through_the_api(make_api: Callable[..., Awaitable[Api]]) -> None:
    clock = Clock()
    api = await make_api(clock=clock, seed_window=5)
    table, ann, bob = await api.seat_two()
    view = await api.state(table, ann)
    window = view["seed_window"]
    assert window["waiting"] == [ann.account_id, bob.account_id]
    assert window["deadline"] == window["now"] + 5000 == int(clock.now * 1000) + 5000
    assert {"add_seed", "waive_seed"} <= set(view["allowed"])
    spectator = await api.state(table)
    assert spectator["seed_window"]["waiting"] == window["waiting"]

    await api.ok(ann, table, "add_seed", seed="ann's own")
    after = await api.state(table, ann)
    assert "add_seed" not in after["allowed"] and after["seed_window"]["answered"] == [
        ann.account_id
    ]
    clock.now += 2
    early = await api.send(bob, table, {"type": "roll"})
    assert early.status == 409, early.body
    assert "seed window" in early.body["detail"] and "3 s left" in early.body["detail"]
    clock.now += 3  # the deadline: the throw closes the window, naming bob
    await api.ok(bob, table, "roll")
    assert (await api.state(table, ann))["seed_window"] is None
    closed = await _closing(api, table)
    assert closed.missing == [bob.account_id]
    assert closed.at == int(clock.now * 1000)


async def _closing(api: Api, table: str) -> e.SeedWindowClosed:
    """The table's seed_window_closed event, as stored."""
    assert api.app is not None
    records = await api.app[TABLES].store.read_stream(table_stream(table))
    closings = [ev for ev in map(decode_recorded, records) if isinstance(ev, e.SeedWindowClosed)]
    assert len(closings) == 1, closings
    return closings[0]


async def test_every_answer_closes_the_window_at_once(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    api = await make_api(clock=clock, seed_window=30)
    table, ann, bob = await api.seat_two()
    await api.ok(ann, table, "waive_seed")
    twice = await api.send(ann, table, {"type": "waive_seed"})
    assert twice.status == 409 and "already" in twice.body["detail"]
    await api.ok(bob, table, "add_seed", seed="b")
    await api.ok(ann, table, "roll")  # no time has passed: every player answered
    closed = await _closing(api, table)
    assert closed.missing == []


async def test_clock_options_are_checked_and_the_default_recorded(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    api = await make_api()
    ann = await api.register()
    for bad in (
        {"delay": 601},
        {"reserve": -1},
        {"reserve_per_point": 2**31},
        {"delay": "12"},
        {"delay": 12, "tick": 1},
        "on",
        12,
    ):
        r = await api.request(
            "POST", "/tables", user=ann, json={"kind": "match", "options": {"clock": bad}}
        )
        assert r.status == 400, (bad, r.body)
        assert "clock" in r.body["detail"], r.body
    match = await api.create_table(ann, "match", match_length=3)
    money = await api.create_table(ann, "money")
    off = await api.create_table(ann, "money", clock="off")
    mine = await api.create_table(ann, "chouette", clock={"delay": 5, "reserve": 30})
    assert (await api.state(match, ann))["options"]["clock"] == {
        "delay": 12,
        "reserve": 120,
        "reserve_per_point": 20,
        "reserve_per_game": False,  # a match's reserve lasts the match (docs/rules.md §10)
    }
    assert (await api.state(money, ann))["options"]["clock"]["reserve_per_point"] == 0
    assert (await api.state(off, ann))["options"]["clock"] == "off"
    assert (await api.state(mine, ann))["options"]["clock"] == {
        "delay": 5,
        "reserve": 30,
        "reserve_per_point": 0,
        "reserve_per_game": True,  # restored at each game
    }


async def test_the_view_shows_the_running_clock(make_api: Callable[..., Awaitable[Api]]) -> None:
    clock = Clock()
    api = await make_api(clock=clock)
    table, ann, bob = await api.seat_two()
    view = await api.state(table, ann)
    table_clock = view["clocks"][0]
    assert table_clock["player"] == "" and table_clock["running"]  # the opening is due
    assert table_clock["deadline"] == view["now"] + 12_000
    await api.ok(ann, table, "roll")
    clock.now += 20  # 8 s into the mover's reserve
    view = await api.state(table, ann)
    (running,) = [k for k in view["clocks"] if k["running"]]
    assert running["player"] in (ann.account_id, bob.account_id)
    assert (running["delay_ms"], running["reserve_ms"]) == (0, 112_000)
    idle = [k for k in view["clocks"] if not k["running"]]
    assert [k["reserve_ms"] for k in idle] == [120_000]
