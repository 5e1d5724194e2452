"""A wrong decision is never appended (issue 27): the server is given a deliberately wrong
decider, and every batch it decides is checked as the audit checks a stream before the append.
Nothing reaches the log, the player gets ``500 decision-rejected`` naming the table and the
event type (no internals), the failure is logged with the table and command ids and counted in
``/metrics``, and the table goes on playing and auditing clean."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import pytest

from events.domain import commands as c
from events.domain import types as e
from events.domain.decider import decide
from events.domain.table import DiceSource, TableState
from server.keys import METRICS, TIMERS
from tests.server.conftest import Api, connect, samples

FAIR = {"dice_factory": None, "seed_key": bytes(range(1, 33))}


class WrongDecider:
    """The real decider, except while :attr:`wrong` is set: then a throw records other dice
    than the seed gives, and a clock's expiry forfeits someone who is not at the table."""

    def __init__(self) -> None:
        self.wrong = True
        self.calls = 0

    def __call__(
        self, state: TableState, actor: str, command: c.Command, dice: DiceSource, now: int
    ) -> list[e.Event]:
        events = decide(state, actor, command, dice, now)
        if not self.wrong:
            return events
        self.calls += 1
        if isinstance(command, c.Expire):
            return [e.TimeExpired(player="nobody-at-this-table", at=now)]
        out: list[e.Event] = []
        for ev in events:
            if isinstance(ev, (e.OpeningThrow, e.DiceRolled)):
                a, b = ev.dice
                ev = msgspec.structs.replace(ev, dice=(a % 6 + 1, b))
            out.append(ev)
        return out


def _rejected(body: dict[str, Any], table: str, event: str) -> None:
    assert body["type"].endswith("/decision-rejected"), body
    assert body["status"] == 500
    assert table in body["detail"] and event in body["detail"]
    assert body["table"] == table and body["event"] == event
    # No internals: not the rule, the events, nor a traceback.
    for leak in ("rules give", "Traceback", "{", "decided "):
        assert leak not in body["detail"]


async def test_a_wrong_decision_writes_nothing_and_the_table_plays_on(
    make_api: Callable[..., Awaitable[Api]], caplog: pytest.LogCaptureFixture
) -> None:
    wrong = WrongDecider()
    api = await make_api(decider=wrong, **FAIR)
    wrong.wrong = False
    table, ann, _bob = await api.seat_two("money")
    wrong.wrong = True
    before = await api.versions(table)
    view = await api.state(table)

    command_id = str(uuid.uuid4())
    with caplog.at_level(logging.ERROR, logger="chouette.tables"):
        r = await api.send(ann, table, {"type": "roll"}, command_id=command_id)
    assert r.status == 500, r.body
    _rejected(r.body, table, "opening_throw")
    assert wrong.calls == 1
    # Nothing reached the log, and the table answers as it did.
    assert await api.versions(table) == before
    assert (await api.state(table))["version"] == view["version"]
    logged = [rec for rec in caplog.records if "rejected" in rec.getMessage()]
    assert logged, caplog.text
    assert getattr(logged[0], "table_id", None) == table
    assert getattr(logged[0], "command_id", None) == command_id
    scraped = await api.request("GET", "/metrics")
    assert scraped.status == 200
    metrics = scraped.body
    assert samples(metrics, "chouette_decisions_rejected_total") == {'{event="opening_throw"}': 1.0}
    assert samples(metrics, "chouette_decision_check_seconds_total")[""] > 0
    # Another decider than decide() itself: always decided again in full.
    assert samples(metrics, "chouette_decisions_decided_again_total")[""] >= 1
    commands = samples(metrics, "chouette_commands_total")
    assert commands['{outcome="rejected",type="roll"}'] == 1.0

    # Over the socket the same: an error reply, nothing written.
    ws = await connect(api.client, table, ann)
    reply = await ws.command({"type": "roll"})
    assert reply["ctl"] == "error"
    _rejected(reply["problem"], table, "opening_throw")
    assert await api.versions(table) == before

    # Once the decisions are right again the table plays on, the same command id included.
    wrong.wrong = False
    r = await api.send(ann, table, {"type": "roll"}, command_id=command_id)
    assert r.status == 201, r.body
    await ws.close()
    assert (await api.versions(table))[0] > before[0]
    audit = await api.request("GET", f"/tables/{table}/audit")
    assert audit.status == 200 and audit.body["status"] in ("ok", "pending"), audit.body
    assert not audit.body["first_failure"]


async def test_a_timers_wrong_expiry_writes_nothing(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    class Clock:
        now = 1_764_000_000.0

        def __call__(self) -> float:
            return self.now

    clock = Clock()
    wrong = WrongDecider()
    wrong.wrong = False
    api = await make_api(decider=wrong, clock=clock, **FAIR)
    table, ann, _bob = await api.seat_two("money", clock={"delay": 2, "reserve": 3})
    await api.ok(ann, table, "roll")
    before = await api.versions(table)
    wrong.wrong = True
    clock.now += 60
    assert api.app is not None
    await api.app[TIMERS].fire_due()
    assert wrong.calls >= 1
    assert await api.versions(table) == before
    metrics = api.app[METRICS].render()
    assert samples(metrics, "chouette_timer_expiries_total").get('{outcome="rejected"}', 0) >= 1
    assert samples(metrics, "chouette_decisions_rejected_total") == {
        '{event="time_expired"}': wrong.calls
    }
    # Right again: the forfeit on time is decided and recorded, and the audit holds.
    wrong.wrong = False
    clock.now += 60
    await api.app[TIMERS].fire_due()
    assert (await api.versions(table))[0] > before[0]
    audit = await api.request("GET", f"/tables/{table}/audit")
    assert audit.status == 200 and audit.body["status"] in ("ok", "pending"), audit.body
