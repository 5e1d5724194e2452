"""Leaving a table (docs/rules.md §10) through the decider: free before a game's first throw,
a forfeit at the worst result still possible in mid-game, the match lost in mid-match; a money
table waits for a player to throw for its next game. Every log audits clean."""

from __future__ import annotations

import random

from engine.game import Phase
from events.domain import commands as c
from events.domain import types as e
from events.domain.decider import decide, evolve
from events.domain.dice import FairDice
from events.domain.table import TableState
from events.records.audit import audit_records
from events.records.simulate import simulate_chouette
from events.store.streams import table_stream
from tests.dice import fair_seed
from tests.records import recorded


class Table:
    def __init__(self, kind: str, throws: list[tuple[int, int]], **options: object) -> None:
        # Fair dice whose seeds give these throws first: the audit checks every die.
        dice = [d for t in throws for d in t]
        self.dice = FairDice({g: fair_seed(dice if g == 1 else (), str(g)) for g in range(1, 9)})
        self.state = TableState(table_id="t")
        self.steps: list[list[e.Event]] = []
        self.do("ann", c.CreateTable(kind=kind, options=e.TableOptions(**options)))  # type: ignore[arg-type]

    def do(self, actor: str, command: c.Command) -> list[e.Event]:
        events = decide(self.state, actor, command, self.dice)
        for ev in events:
            self.state = evolve(self.state, ev)
        self.steps.append(events)
        return events

    def audit_ok(self) -> None:
        report = audit_records(table_stream("t"), recorded("t", self.steps))
        assert report.failures == [], report.as_dict()


def _seated(kind: str = "money", **options: object) -> Table:
    t = Table(kind, [(3, 1), (6, 6)], **options)
    t.do("ann", c.Join())
    t.do("bob", c.Join())
    return t


def test_leaving_before_the_first_throw_costs_nothing() -> None:
    t = _seated()
    events = t.do("bob", c.Leave())
    assert [type(ev) for ev in events] == [e.PlayerLeft, e.GameEnded]
    ended = events[1]
    assert isinstance(ended, e.GameEnded)
    assert (ended.how, ended.winner, ended.settlements) == ("unplayed", "", [])
    assert ended.seed == t.dice.reveal(1)  # the unplayed game's seed is revealed, not kept
    assert not t.state.in_game and dict(t.state.ledger) == {}
    # Someone else sits down: the next game starts afresh.
    started = t.do("cat", c.Join())
    assert isinstance(started[-1], e.GameStarted) and started[-1].game == 2
    assert t.state.game is not None and t.state.game.phase is Phase.OPENING
    t.audit_ok()


def test_leaving_mid_game_forfeits_a_gammon_with_no_checker_off() -> None:
    t = _seated()
    t.do("ann", c.Roll())  # the opening 3-1: ann plays
    t.do("ann", c.Move(notation="8/5 6/5"))
    events = t.do("ann", c.Leave())
    ended = events[1]
    assert isinstance(ended, e.GameEnded) and ended.how == "forfeit"
    # Ann has borne off nothing and has no checker in Bob's home board or on the bar... but
    # her two back checkers are on Bob's 1-point (her 24): a backgammon.
    assert (ended.winner, ended.result, ended.cube) == ("bob", 3, 1)
    assert dict(t.state.ledger) == {"bob": 3, "ann": -3}
    assert not t.state.in_game and t.state.seats == (None, "bob")
    t.audit_ok()


def test_leaving_mid_match_forfeits_the_match() -> None:
    t = _seated("match", match_length=5)
    t.do("ann", c.Roll())
    t.do("ann", c.Move(notation="8/5 6/5"))
    t.do("bob", c.Double())
    events = t.do("ann", c.Leave())  # a double pending: not counted
    assert [type(ev) for ev in events] == [e.PlayerLeft, e.GameEnded, e.MatchEnded]
    ended, over = events[1], events[2]
    assert isinstance(ended, e.GameEnded) and ended.cube == 1 and ended.winner == "bob"
    assert isinstance(over, e.MatchEnded) and over.winner == "bob"
    assert t.state.match_winner == "bob"
    t.audit_ok()


def test_a_money_table_waits_for_a_throw_for_its_next_game() -> None:
    t = _seated()
    t.do("ann", c.Roll())
    t.do("ann", c.Move(notation="8/5 6/5"))
    t.do("bob", c.Double())
    ended = t.do("ann", c.Drop())
    assert isinstance(ended[-1], e.GameEnded)  # and no game_started after it
    assert not t.state.in_game
    thrown = t.do("bob", c.Roll())  # throws for the next game: it starts and is thrown
    assert [type(ev) for ev in thrown[:2]] == [e.GameStarted, e.OpeningThrow]
    t.audit_ok()


def test_leaving_between_games_is_free() -> None:
    t = _seated()
    t.do("ann", c.Roll())
    t.do("ann", c.Move(notation="8/5 6/5"))
    t.do("bob", c.Double())
    t.do("ann", c.Drop())
    left = t.do("bob", c.Leave())
    assert [type(ev) for ev in left] == [e.PlayerLeft]
    assert dict(t.state.ledger) == {"bob": 1, "ann": -1}
    t.audit_ok()


def test_simulated_chouettes_with_members_leaving_audit_clean() -> None:
    for seed in (1, 2):
        table = simulate_chouette(
            "c", games=4, rng=random.Random(seed), leave_rate=0.05, options=e.TableOptions()
        )
        forfeits = [
            m
            for ev in table.events
            if isinstance(ev, e.GameEnded)
            for m in ev.members
            if m.how == "forfeit"
        ]
        assert forfeits, "a member left in mid-game"
        report = audit_records(table_stream("c"), recorded("c", [s.events for s in table.steps]))
        assert report.failures == [], report.as_dict()
