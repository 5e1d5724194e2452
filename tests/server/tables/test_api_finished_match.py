"""A finished match is finished (docs/rules.md §10; issue 27), over a real server and PostgreSQL.

- The player's sequence end to end, with clocks and an injected clock (nothing sleeps): a
  3-point match, game 1 dropped (1-0), game 2 started and not thrown, the leader leaves. The
  server ends game 2 unplayed and the match; the timers have nothing to fire, however late, no
  ``opening_throw`` is ever written, every further command is refused with 409 "the match is
  over", and the audit is ok (the unplayed game's seed matches its commitment).
- A table that a server before the fix poisoned (the same match, then the timer's opening throw
  written into it: :func:`tests.poisoned.poisoned_steps`, appended to the real store) still
  opens (200, the match ended, the bad event skipped and counted), refuses commands with a
  proper 409 and writes nothing, replays (HTTP and ``chouette replay``, exit 0, the skipped
  event named), and audits (HTTP and ``chouette audit``) as a ``rules`` failure at the opening
  throw's version.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from events.store.event_store import EventStore
from events.store.streams import append_events, decode_recorded, table_stream
from server.cli.main import main
from server.keys import TABLES, TIMERS
from tests.poisoned import poisoned_steps
from tests.server.conftest import Api, User, samples

CLOCK = {"delay": 3, "reserve": 20}
OVER = "the match is over"


class Clock:
    """A clock the test moves by hand (seconds since the epoch)."""

    def __init__(self) -> None:
        self.now = 1_764_000_000.0

    def __call__(self) -> float:
        return self.now


async def types_at(api: Api, table: str) -> list[str]:
    assert api.app is not None
    records = await api.app[TABLES].store.read_stream(table_stream(table))
    return [r.type for r in records]


async def refused(api: Api, user: User, table: str, command: dict[str, Any]) -> dict[str, Any]:
    """Send ``command``; it must be refused with 409 "the match is over", nothing written."""
    before = await api.versions(table)
    body = (await api.send(user, table, command)).problem(409, "game-over")
    assert body["detail"] == OVER, body
    assert await api.versions(table) == before
    return body


async def test_leaving_a_match_before_game_two_is_thrown_ends_it_and_no_timer_acts(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    clock = Clock()
    # The production dice, so that the audit re-derives every throw from the revealed seeds.
    api = await make_api(clock=clock, dice_factory=None, seed_key=bytes(range(1, 33)))
    assert api.app is not None
    timers = api.app[TIMERS]
    table, ann, bob = await api.seat_two("match", match_length=3, clock=CLOCK)
    users = {ann.account_id: ann, bob.account_id: bob}

    # Game 1: the opening throw, a play, a double and a drop: the doubler leads 1-0.
    await api.ok(users[(await api.state(table))["seats"][0]], table, "roll")
    view = await api.state(table)
    mover = users[view["game"]["to_act"][0]]
    leader = bob if mover is ann else ann
    clock.now += 1
    await api.ok(mover, table, "move", notation=view["game"]["legal_plays"][0]["notation"])
    clock.now += 1
    await api.ok(leader, table, "double")
    dropped = await api.ok(mover, table, "drop")
    assert [m["t"] for m in dropped["events"]] == ["cube_dropped", "game_ended", "game_started"]
    view = await api.state(table)
    assert view["game"]["number"] == 2 and view["game"]["phase"] == "opening"
    # Game 2's opening throw is the table's: its clock runs and the timer would throw it in 3 s.
    assert timers.deadline(table) == int(clock.now * 1000) + 3000

    clock.now += 1
    left = await api.ok(leader, table, "leave")

    assert [m["t"] for m in left["events"]] == ["player_left", "game_ended", "match_ended"]
    ended, over = left["events"][1]["d"], left["events"][2]["d"]
    assert ended["game"] == 2 and ended["how"] == "unplayed" and ended["settlements"] == []
    assert ended["seed"]  # revealed, as every game_ended reveals its seed
    assert over["winner"] == mover.account_id
    # Nothing is scheduled for the finished table, and however late it gets, nothing fires.
    assert timers.deadline(table) is None
    written = await types_at(api, table)
    for _ in range(3):
        clock.now += 3600
        assert await timers.fire_due() == 0
    assert await types_at(api, table) == written
    assert "opening_throw" not in written[written.index("game_started", 4) :]

    view = await api.state(table, mover)
    assert view["match_winner"] == mover.account_id and view["in_game"] is False
    assert view["allowed"] == ["chat", "leave"] and view["seed_window"] is None
    assert all(not c["running"] for c in view["clocks"])
    for command in ({"type": "roll"}, {"type": "start_game"}, {"type": "expire"}):
        await refused(api, mover, table, command)
    body = await refused(api, mover, table, {"type": "add_seed", "seed": "too late"})
    assert "Traceback" not in body["detail"]

    audit = await api.request("GET", f"/tables/{table}/audit")
    assert audit.status == 200 and audit.body["status"] == "ok", audit.body
    assert audit.body["streams"][0]["games"]["dice_verified"] == [1, 2]


# -- a table poisoned before the fix ----------------------------------------------------------


async def poison(api: Api) -> tuple[str, User, User, int]:
    """The poisoned log of issue 27 in the app's store, with real accounts as its players:
    (table, the remaining player who won the match, the leader who left, the version of the
    opening throw the timer wrote into the finished match)."""
    assert api.app is not None
    ann, bob = await api.register(), await api.register()
    table = str(uuid.uuid4())
    store = api.app[TABLES].store
    version = 0
    for events in poisoned_steps(table, ann.account_id, bob.account_id):
        # As the old server appended them, one command each (``append_steps`` would refuse
        # them today: it checks every step against the rules first).
        result = await append_events(
            store, table_stream(table), events, expected_version=version, command_id=uuid.uuid4()
        )
        version = result.last_version
    records = await api.app[TABLES].store.read_stream(table_stream(table))
    assert [r.type for r in records[-3:]] == ["player_left", "match_ended", "opening_throw"]
    return table, ann, bob, version


async def test_a_poisoned_table_opens_with_the_match_ended_and_refuses_commands(
    api: Api,
) -> None:
    assert api.app is not None
    table, ann, bob, bad = await poison(api)

    view = await api.state(table, ann)

    assert view["version"] == bad  # past the skipped event
    assert view["match_winner"] == ann.account_id and view["score"] == [0, 1]
    assert view["in_game"] is False and view["allowed"] == ["chat", "leave"]
    assert view["game"]["to_act"] == []
    assert all(not c["running"] for c in view["clocks"])
    assert api.app[TABLES].skipped_events >= 1
    scraped = await api.request("GET", "/metrics")
    assert samples(scraped.body, "chouette_stored_events_skipped_total")[""] >= 1
    state = api.app[TABLES].cached(table)
    assert state is not None and state.skipped == (bad,)
    assert api.app[TIMERS].deadline(table) is None  # no timer acts on a finished table
    assert await api.app[TIMERS].fire_due() == 0

    for command in (
        {"type": "roll"},
        {"type": "double"},
        {"type": "start_game"},
        {"type": "add_seed", "seed": "mine"},
        {"type": "expire"},
    ):
        await refused(api, ann, table, command)
    # Nor the one who left (no longer seated: told so first, as at any table), nor a newcomer
    # who would sit down in the finished match.
    before = await api.versions(table)
    body = (await api.send(bob, table, {"type": "roll"})).problem(403, "not-your-role")
    assert "not seated" in body["detail"]
    assert await api.versions(table) == before
    await refused(api, await api.register(), table, {"type": "join"})
    # The winner may still leave (it costs nothing): only that is written.
    left = await api.ok(ann, table, "leave")
    assert [m["t"] for m in left["events"]] == ["player_left"]


async def test_a_poisoned_table_replays_and_audits_the_bad_event_at_its_version(
    api: Api,
) -> None:
    table, ann, _bob, bad = await poison(api)

    replay = await api.request("GET", f"/tables/{table}/replay?at={bad}")
    assert replay.status == 200, replay.body
    event = replay.body["event"]
    assert event["type"] == "opening_throw" and event["skipped"] is True
    assert "skipped" in event["text"]
    assert replay.body["table"]["match_winner"] == ann.account_id
    before = await api.request("GET", f"/tables/{table}/replay?at={bad - 1}")
    assert before.status == 200 and "skipped" not in before.body["event"]
    assert (await api.request("GET", f"/tables/{table}/replay")).status == 200

    audit = await api.request("GET", f"/tables/{table}/audit")
    assert audit.status == 200, audit.body
    assert audit.body["status"] == "failed"
    assert audit.body["first_failure"] == {
        "stream": table_stream(table),
        "check": "rules",
        "version": bad,
        "event": "opening_throw",
        "reason": f"opening_throw is not allowed: {OVER}",
    }
    export = await api.request("GET", f"/tables/{table}/export.mat")
    assert export.status == 200, export.body


async def _cli(*argv: str) -> int:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        return await asyncio.to_thread(main, list(argv))
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


async def test_chouette_replay_and_audit_of_a_poisoned_table(
    api: Api, store: EventStore, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    table, _ann, _bob, bad = await poison(api)
    records = await store.read_stream(table_stream(table))
    assert decode_recorded(records[-1]).at  # the same database as the app's

    assert await _cli("replay", table, "--database-url", db_url) == 0
    out, err = capsys.readouterr()
    assert f"version {bad}: opening_throw skipped ({OVER})" in out, out
    assert "wins the match 0-1" in out and "Traceback" not in err

    assert await _cli("replay", table, "--at", str(bad), "--database-url", db_url) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"version {bad} of {bad}: opening throw:") and "skipped" in out, out
    assert "Traceback" not in err

    assert await _cli("audit", "--table", table, "--database-url", db_url) == 1
    out, err = capsys.readouterr()
    assert f"v{bad} (opening_throw) [rules] opening_throw is not allowed: {OVER}" in out, out
    assert "Traceback" not in err
