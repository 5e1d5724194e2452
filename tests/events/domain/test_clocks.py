"""Clocks through the decider (docs/rules.md §10): the delay first, then the reserve; parallel
clocks for answers to the box's double; an overdue table throw is thrown; a player out of time
forfeits (the match, in a match); an expiry decided early is refused, and the audit refuses one
recorded early."""

from __future__ import annotations

import pytest

from engine.game import Phase
from events.domain import clocks
from events.domain import commands as c
from events.domain import types as e
from events.domain.decider import decide, evolve
from events.domain.dice import FairDice
from events.domain.table import CommandError, TableState
from events.records.audit import audit_records
from events.store.streams import table_stream
from tests.dice import fair_seed
from tests.records import recorded

T0 = 1_764_000_000_000
CLOCK = e.ClockOptions(delay=10, reserve=60)


class Table:
    def __init__(self, kind: str, throws: list[tuple[int, ...]], **options: object) -> None:
        # Fair dice whose seeds give these throws first: the audit checks every die.
        dice = [d for t in throws for d in t]
        self.dice = FairDice({g: fair_seed(dice if g == 1 else (), str(g)) for g in range(1, 9)})
        self.state = TableState(table_id="t")
        self.steps: list[list[e.Event]] = []
        opts = e.TableOptions(clock=CLOCK, seed_window=0, **options)  # type: ignore[arg-type]
        self.do("ann", c.CreateTable(kind=kind, options=opts), T0)  # type: ignore[arg-type]

    def do(self, actor: str, command: c.Command, now: int) -> list[e.Event]:
        events = decide(self.state, actor, command, self.dice, now)
        for ev in events:
            self.state = evolve(self.state, ev)
        self.steps.append(events)
        return events

    def reserve(self, player: str) -> int:
        return clocks.reserve_of(self.state, player)

    def audit(self) -> list[object]:
        report = audit_records(table_stream("t"), recorded("t", self.steps))
        return list(report.failures)


def _money(kind: str = "money", **options: object) -> Table:
    t = Table(kind, [(3, 1), (6, 5), (2, 1)], **options)
    t.do("ann", c.Join(), T0)
    t.do("bob", c.Join(), T0)
    return t


def test_an_overdue_opening_throw_is_thrown_by_the_table_clock() -> None:
    t = _money()
    assert t.state.clock_running == ((clocks.TABLE, T0),)
    with pytest.raises(CommandError, match=r"nothing has run out yet: .* in 1 s"):
        t.do("clock", c.Expire(), T0 + 9_999)
    thrown = t.do("clock", c.Expire(), T0 + 10_000)
    assert [type(ev) for ev in thrown] == [e.OpeningThrow]
    # Nobody forfeits; ann (3 beats 1) now moves, her clock started at the throw.
    assert t.state.clock_running == (("ann", T0 + 10_000),)
    assert t.reserve("ann") == t.reserve("bob") == 60_000
    assert t.audit() == []


def test_the_delay_is_used_first_then_the_reserve() -> None:
    t = _money()
    t.do("ann", c.Roll(), T0 + 1_000)
    t.do("ann", c.Move(notation="8/5 6/5"), T0 + 6_000)  # 5 s: within the delay
    assert t.reserve("ann") == 60_000
    assert clocks.remaining(t.state, "bob", T0 + 8_000) == (8_000, 60_000)
    assert clocks.remaining(t.state, "bob", T0 + 20_000) == (0, 56_000)
    t.do("bob", c.Roll(), T0 + 31_000)  # 25 s: the delay and 15 s of reserve
    assert t.reserve("bob") == 45_000
    # Rolling was a decision: the move has a fresh delay, and the unused one is not banked.
    assert dict(t.state.clock_running) == {"bob": T0 + 31_000}
    assert clocks.deadline_of(t.state, "bob") == T0 + 31_000 + 10_000 + 45_000
    assert t.audit() == []


def test_a_player_out_of_time_forfeits_and_stays_seated() -> None:
    t = _money()
    t.do("ann", c.Roll(), T0)
    deadline = T0 + 70_000
    with pytest.raises(CommandError, match="nothing has run out"):
        t.do("bob", c.Expire(), deadline - 1)
    events = t.do("bob", c.Expire(), deadline)
    assert [type(ev) for ev in events] == [e.TimeExpired, e.GameEnded]
    ended = events[1]
    assert isinstance(ended, e.GameEnded) and ended.how == "forfeit" and ended.winner == "bob"
    assert ended.result == 3  # ann moved nothing: her back checkers are in bob's home board
    assert t.state.seats == ("ann", "bob") and not t.state.in_game
    assert t.state.clock_running == ()
    assert t.audit() == []


def test_running_out_of_time_in_a_match_forfeits_the_match() -> None:
    t = _money("match", match_length=7)
    t.do("ann", c.Roll(), T0)
    t.do("ann", c.Move(notation="8/5 6/5"), T0 + 1_000)
    deadline = clocks.deadline_of(t.state, "bob")
    assert deadline == T0 + 1_000 + 10_000 + (60 + 0) * 1000
    events = t.do("ann", c.Expire(), deadline)  # anyone may claim it: time alone decides
    assert [type(ev) for ev in events] == [e.TimeExpired, e.GameEnded, e.MatchEnded]
    assert t.state.match_winner == "ann"
    assert t.audit() == []


def test_a_match_adds_reserve_per_point() -> None:
    clock = e.ClockOptions(delay=10, reserve=60, reserve_per_point=20)
    opts = e.TableOptions(clock=clock, seed_window=0, match_length=5)
    state = TableState(table_id="m")
    state = evolve(state, e.TableCreated(table_id="m", kind="match", options=opts, created_by="a"))
    assert clocks.reserve_of(state, "a") == (60 + 5 * 20) * 1000


def test_members_answer_the_box_double_on_parallel_clocks() -> None:
    # The line: ann 6, bob 4, cat 2 (ann is the box, bob the captain); the box opens 3-1.
    t = Table("chouette", [(6, 4, 2), (3, 1)])
    for p in ("ann", "bob", "cat"):
        t.do(p, c.Join(), T0)
    t.do("ann", c.StartGame(), T0)
    t.do("ann", c.Roll(), T0 + 1_000)
    t.do("ann", c.Move(notation="8/5 6/5"), T0 + 2_000)
    t.do("bob", c.Roll(), T0 + 3_000)
    ch = t.state.chouette
    assert ch is not None and ch.game is not None and ch.game.phase is Phase.MOVE
    plays = ch.legal_plays()
    t.do("bob", c.Move(moves=[(a, b) for a, b in plays[0].moves]), T0 + 4_000)
    t.do("ann", c.Double(), T0 + 5_000)
    assert dict(t.state.clock_running) == {"bob": T0 + 5_000, "cat": T0 + 5_000}
    t.do("bob", c.Take(), T0 + 30_000)  # 25 s: 15 s of his reserve
    assert t.reserve("bob") == 45_000 and dict(t.state.clock_running) == {"cat": T0 + 5_000}
    events = t.do("clock", c.Expire(), T0 + 5_000 + 70_000)
    assert events[0] == e.TimeExpired(player="cat", at=T0 + 75_000)
    assert t.state.chouette is not None and t.state.chouette.in_progress  # bob plays on
    assert t.audit() == []


def test_the_audit_refuses_a_time_expired_recorded_early() -> None:
    t = _money()
    t.do("ann", c.Roll(), T0)
    t.do("bob", c.Expire(), T0 + 70_000)
    i = next(i for i, step in enumerate(t.steps) if isinstance(step[0], e.TimeExpired))
    early = T0 + 69_999
    t.steps[i] = [
        type(ev)(**{**{f: getattr(ev, f) for f in ev.__struct_fields__}, "at": early})
        for ev in t.steps[i]
    ]
    failures = t.audit()
    assert failures, "an early time_expired passed the audit"
    assert "nothing has run out" in failures[0].reason  # type: ignore[attr-defined]


def test_a_table_without_a_clock_runs_none() -> None:
    t = Table("money", [(3, 1)])
    t.state = TableState(table_id="n")
    opts = e.TableOptions(clock="off", seed_window=0)
    t.steps = []
    t.do("ann", c.CreateTable(kind="money", options=opts), T0)
    t.do("ann", c.Join(), T0)
    t.do("bob", c.Join(), T0)
    assert t.state.clock_running == () and clocks.next_deadline(t.state) is None
    with pytest.raises(CommandError, match="no clock is running"):
        t.do("ann", c.Expire(), T0 + 10**9)
