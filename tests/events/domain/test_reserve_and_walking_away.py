"""The clocks' last rules (docs/rules.md §10, issue 27) through the decider, each log audited:

- *Whose reserve*: a match's reserve lasts the match; at a money table or a chouette it is
  restored at the start of each game (tables created before the rule keep the old one: their
  logs audit as they were written);
- *Walking away*: a player who runs out of time while not connected (the ``absent`` that the
  timer's ``expire`` carries, recorded in ``time_expired``) leaves when that game ends; an
  expiry does not throw a game's first dice, nor start a chouette's next game, with fewer than
  two of the table's players connected;
- the record says who ran out of time, and who left."""

from __future__ import annotations

import pytest

from events.domain import clocks
from events.domain import commands as c
from events.domain import types as e
from events.domain.decider import decide, evolve
from events.domain.dice import FairDice
from events.domain.narration import event_text
from events.domain.table import CommandError, InvalidCommandError, TableState
from events.records.audit import audit_records
from events.records.record_text import record_lines
from events.store.streams import table_stream
from tests.dice import fair_seed
from tests.records import recorded

T0 = 1_764_000_000_000
DELAY, RESERVE = 10_000, 60_000


def clock(per_game: bool | None) -> e.ClockOptions:
    return e.ClockOptions(delay=10, reserve=60, reserve_per_game=per_game)


class Table:
    """A table through the decider, its dice fair and scripted game by game (``throws``), the
    text of every event kept as the replay tells it."""

    def __init__(
        self,
        kind: str,
        throws: dict[int, list[tuple[int, ...]]],
        *,
        per_game: bool | None,
        **options: object,
    ) -> None:
        seeds = {}
        for g in range(1, 9):
            dice = [d for t in throws.get(g, []) for d in t]
            seeds[g] = fair_seed(dice, f"walk{g}")
        self.dice = FairDice(seeds)
        self.state = TableState(table_id="t")
        self.steps: list[list[e.Event]] = []
        self.texts: list[str] = []
        opts = e.TableOptions(clock=clock(per_game), **{"seed_window": 0, **options})  # type: ignore[arg-type]
        self.do("ann", c.CreateTable(kind=kind, options=opts), T0)  # type: ignore[arg-type]

    def do(self, actor: str, command: c.Command, now: int) -> list[e.Event]:
        events = decide(self.state, actor, command, self.dice, now)
        for ev in events:
            before, self.state = self.state, evolve(self.state, ev)
            self.texts.append(event_text(before, ev, self.state))
        self.steps.append(events)
        return events

    def expire(self, now: int, *absent: str) -> list[e.Event]:
        return self.do("clock", c.Expire(absent=list(absent)), now)

    def events(self) -> list[e.Event]:
        return [ev for step in self.steps for ev in step]

    def reserve(self, player: str) -> int:
        return clocks.reserve_of(self.state, player)

    def audit_ok(self) -> None:
        report = audit_records(table_stream("t"), recorded("t", self.steps))
        assert report.failures == [], report.failures


def types(events: list[e.Event]) -> list[type[e.Event]]:
    return [type(ev) for ev in events]


# -- whose reserve ------------------------------------------------------------------------


def _duel_game_one(kind: str, per_game: bool | None, **options: object) -> Table:
    """Game 1 (ann opens 3-1 in both games): ann moves after 30 s, 20 s of her reserve; bob
    resigns a single at once and ann accepts. The next game's opening is 3-1 again."""
    t = Table(kind, {1: [(3, 1)], 2: [(3, 1)]}, per_game=per_game, **options)
    t.do("ann", c.Join(), T0)
    t.do("bob", c.Join(), T0)
    t.do("ann", c.Roll(), T0)
    t.do("ann", c.Move(notation="8/5 6/5"), T0 + 30_000)
    t.do("bob", c.Resign(level=1), T0 + 31_000)
    t.do("ann", c.Accept(), T0 + 32_000)
    assert t.reserve("ann") == RESERVE - 20_000
    return t


def test_a_money_table_restores_the_reserve_at_each_game() -> None:
    t = _duel_game_one("money", True)
    assert not t.state.in_game
    started = t.do("ann", c.Roll(), T0 + 40_000)  # throws for game 2
    assert types(started)[:2] == [e.GameStarted, e.OpeningThrow]
    assert t.reserve("ann") == t.reserve("bob") == RESERVE
    # ann opens again: her whole reserve is hers in game 2.
    assert clocks.deadline_of(t.state, "ann") == T0 + 40_000 + DELAY + RESERVE
    with pytest.raises(CommandError, match="nothing has run out yet"):
        t.expire(T0 + 40_000 + DELAY + RESERVE - 20_000)
    t.audit_ok()


def test_a_match_keeps_the_reserve_across_its_games() -> None:
    t = _duel_game_one("match", False, match_length=5)
    assert t.state.in_game and t.state.game_no == 2  # a match starts its next game itself
    t.do("bob", c.Roll(), T0 + 33_000)  # the opening throw of game 2
    assert t.reserve("ann") == RESERVE - 20_000
    deadline = T0 + 33_000 + DELAY + RESERVE - 20_000
    assert clocks.deadline_of(t.state, "ann") == deadline
    assert types(t.expire(deadline)) == [e.TimeExpired, e.GameEnded, e.MatchEnded]
    t.audit_ok()


def test_a_table_created_before_the_rule_keeps_its_reserve_for_the_table() -> None:
    """A stored table with no ``reserve_per_game`` (created before issue 27): its players'
    reserves were never restored, and its forfeits on time audit as they were decided."""
    t = _duel_game_one("money", None)
    t.do("ann", c.Roll(), T0 + 40_000)
    assert t.reserve("ann") == RESERVE - 20_000
    old_deadline = T0 + 40_000 + DELAY + RESERVE - 20_000
    assert types(t.expire(old_deadline, "ann"))[:2] == [e.TimeExpired, e.GameEnded]
    t.audit_ok()


def test_a_chouette_restores_the_reserve_at_each_game() -> None:
    # The line: ann 6, bob 4, cat 2; the box (ann) opens 3-1 and takes 30 s to move.
    t = Table("chouette", {1: [(6, 4, 2), (3, 1)]}, per_game=True)
    for p in ("ann", "bob", "cat"):
        t.do(p, c.Join(), T0)
    t.do("ann", c.StartGame(), T0)
    t.do("ann", c.Roll(), T0)
    t.do("ann", c.Move(notation="8/5 6/5"), T0 + 30_000)
    assert t.reserve("ann") == RESERVE - 20_000
    t.do("bob", c.Resign(level=1), T0 + 31_000)
    t.do("ann", c.Accept(cube="bob"), T0 + 32_000)
    t.do("cat", c.Resign(level=1), T0 + 33_000)
    ended = t.do("ann", c.Accept(cube="cat"), T0 + 34_000)
    assert types(ended)[-3:] == [e.GameEnded, e.LineRotated, e.GameStarted]
    assert t.reserve("ann") == RESERVE and t.state.game_no == 2
    t.audit_ok()


@pytest.mark.parametrize(
    ("kind", "per_game", "words"),
    [
        ("match", True, "a match's reserve lasts the whole match"),
        ("money", False, "restored at the start of each game"),
        ("chouette", False, "restored at the start of each game"),
    ],
)
def test_the_reserve_rule_is_the_kinds(kind: str, per_game: bool, words: str) -> None:
    options = {"match_length": 3} if kind == "match" else {}
    opts = e.TableOptions(clock=clock(per_game), **options)  # type: ignore[arg-type]
    create = c.CreateTable(kind=kind, options=opts)  # type: ignore[arg-type]
    with pytest.raises(InvalidCommandError, match=words):
        decide(TableState(table_id="t"), "ann", create, FairDice({}), T0)


def test_the_rule_a_new_table_records() -> None:
    money = clocks.with_reserve_rule("money", e.TableOptions(clock=clock(None)))
    match = clocks.with_reserve_rule("match", e.TableOptions(clock=clock(None), match_length=3))
    off = clocks.with_reserve_rule("money", e.TableOptions(clock="off"))
    assert isinstance(money.clock, e.ClockOptions) and money.clock.reserve_per_game is True
    assert isinstance(match.clock, e.ClockOptions) and match.clock.reserve_per_game is False
    assert off.clock == "off"


# -- walking away: a money table --------------------------------------------------------------


def _money_opened() -> Table:
    """ann opens 3-1 at T0 and does nothing: her clock runs out at T0 + 70 s."""
    t = Table("money", {1: [(3, 1)]}, per_game=True)
    t.do("ann", c.Join(display_name="Ann"), T0)
    t.do("bob", c.Join(display_name="Bob"), T0)
    t.do("ann", c.Roll(), T0)
    return t


def test_an_absent_player_out_of_time_leaves_when_the_game_ends() -> None:
    t = _money_opened()
    events = t.expire(T0 + 70_000, "ann")
    assert types(events) == [e.TimeExpired, e.GameEnded, e.PlayerLeft]
    assert events[0] == e.TimeExpired(player="ann", absent=True, at=T0 + 70_000)
    assert events[2] == e.PlayerLeft(player="ann", at=T0 + 70_000)
    ended = events[1]
    assert isinstance(ended, e.GameEnded) and (ended.how, ended.winner) == ("forfeit", "bob")
    assert t.state.seats == (None, "bob") and not t.state.in_game
    assert clocks.next_deadline(t.state) is None  # the table stops
    # The record says who ran out of time, and why she left.
    told = t.texts[-3:]
    assert told[0].startswith("Ann runs out of time") and "not connected" in told[0], told
    assert "forfeit: Ann ran out of time" in told[1], told
    assert told[2].startswith("Ann leaves") and "ran out of time" in told[2], told
    assert any("forfeit: Ann ran out of time" in line for line in record_lines(t.events()))
    t.audit_ok()


def test_a_connected_player_out_of_time_stays_seated() -> None:
    t = _money_opened()
    events = t.expire(T0 + 70_000, "bob")  # bob is away; ann, out of time, is here
    assert types(events) == [e.TimeExpired, e.GameEnded]
    assert events[0] == e.TimeExpired(player="ann", absent=False, at=T0 + 70_000)
    assert t.state.seats == ("ann", "bob")
    assert t.texts[-2] == "Ann runs out of time and forfeits"
    t.audit_ok()


def test_a_leave_in_mid_game_is_told_as_a_leave() -> None:
    t = _money_opened()
    t.do("ann", c.Leave(), T0 + 5_000)
    assert "forfeit: Ann left" in t.texts[-1], t.texts[-2:]
    assert any("forfeit: Ann left" in line for line in record_lines(t.events()))
    t.audit_ok()


def test_the_table_throws_nothing_by_itself_with_fewer_than_two_connected() -> None:
    t = Table("money", {1: [(3, 1)]}, per_game=True)
    t.do("ann", c.Join(), T0)
    t.do("bob", c.Join(), T0)  # game 1 starts: its opening is due at T0 + 10 s
    for absent in (["bob"], ["ann", "bob"]):
        with pytest.raises(CommandError, match="fewer than two of the table's players"):
            t.expire(T0 + 10_000, *absent)
    assert types(t.expire(T0 + 10_000)) == [e.OpeningThrow]  # both connected
    t.audit_ok()


def test_a_seed_window_does_not_close_by_itself_with_fewer_than_two_connected() -> None:
    t = Table("money", {1: [(3, 1)]}, per_game=True, seed_window=5)
    t.do("ann", c.Join(), T0)
    t.do("bob", c.Join(), T0)
    with pytest.raises(CommandError, match="fewer than two of the table's players"):
        t.expire(T0 + 5_000, "ann")
    # A player who is there may still throw: the window closes as the opening is thrown.
    assert types(t.do("bob", c.Roll(), T0 + 6_000)) == [e.SeedWindowClosed, e.OpeningThrow]
    t.audit_ok()


# -- walking away: a chouette ---------------------------------------------------------------


def _chouette(opening: tuple[int, int]) -> Table:
    """The line: ann 6 (box), bob 4 (captain), cat 2; the opening at T0."""
    t = Table("chouette", {1: [(6, 4, 2), opening]}, per_game=True)
    for p in ("ann", "bob", "cat"):
        t.do(p, c.Join(display_name=p.title()), T0)
    t.do("ann", c.StartGame(), T0)
    t.do("ann", c.Roll(), T0)
    return t


def test_an_abandoned_chouette_stops_after_its_game() -> None:
    """Nobody is connected. The team opens and moves; the box runs out of time and forfeits
    to both members, which ends the game: the box leaves, and the two left in the line are
    not there either, so no game follows and nothing more runs out."""
    t = _chouette((1, 3))
    t.do("bob", c.Move(notation="8/5 6/5"), T0 + 1_000)
    events = t.expire(T0 + 71_000, "ann", "bob", "cat")
    assert types(events) == [e.TimeExpired, e.GameEnded, e.PlayerLeft, e.LineRotated]
    assert events[0] == e.TimeExpired(player="ann", absent=True, at=T0 + 71_000)
    assert events[2] == e.PlayerLeft(player="ann", at=T0 + 71_000)
    assert events[3] == e.LineRotated(line=["bob", "cat"], absent=["bob", "cat"], at=T0 + 71_000)
    assert t.state.members == ("bob", "cat") and not t.state.in_game
    assert clocks.next_deadline(t.state) is None
    assert "the next game waits" in t.texts[-1], t.texts[-1]
    assert "Ann ran out of time" in t.texts[-3], t.texts[-3]
    lines = list(record_lines(t.events()))
    assert any("'s game: " in x and "forfeit: Ann ran out of time" in x for x in lines), lines
    # Someone who comes back starts it.
    assert types(t.do("bob", c.StartGame(), T0 + 500_000)) == [e.GameStarted]
    t.audit_ok()


def test_a_chouette_whose_players_are_there_goes_on_to_its_next_game() -> None:
    t = _chouette((1, 3))
    t.do("bob", c.Move(notation="8/5 6/5"), T0 + 1_000)
    events = t.expire(T0 + 71_000, "ann")  # bob and cat are connected
    assert types(events) == [
        e.TimeExpired,
        e.GameEnded,
        e.PlayerLeft,
        e.LineRotated,
        e.GameStarted,
    ]
    assert events[3] == e.LineRotated(line=["bob", "cat"], absent=[], at=T0 + 71_000)
    t.audit_ok()


def test_an_absent_member_stays_in_the_line_until_the_game_ends() -> None:
    t = _chouette((3, 1))
    t.do("ann", c.Move(notation="8/5 6/5"), T0 + 1_000)
    # The captain, away, runs out of time: his own game is forfeited, the board plays on.
    events = t.expire(T0 + 71_000, "bob")
    assert events == [e.TimeExpired(player="bob", absent=True, at=T0 + 71_000)]
    assert "bob" in t.state.members and t.state.walking_away == ("bob",)
    # cat, acting captain, resigns and the box accepts: the game ends, and bob leaves then.
    t.do("cat", c.Resign(level=1), T0 + 72_000)
    ended = t.do("ann", c.Accept(cube="cat"), T0 + 73_000)
    assert types(ended) == [
        e.ResignationAccepted,
        e.GameEnded,
        e.PlayerLeft,
        e.LineRotated,
        e.GameStarted,
    ]
    assert ended[2] == e.PlayerLeft(player="bob", at=T0 + 73_000)
    assert t.state.members == ("ann", "cat") and t.state.walking_away == ()
    t.audit_ok()


def test_the_audit_requires_the_leave_of_a_player_who_walked_away() -> None:
    """The fact "not connected" is the input recorded in ``time_expired``: a log that records
    it, but not the leave that must follow at the game's end, fails the audit."""
    t = _money_opened()
    t.expire(T0 + 70_000, "ann")
    t.steps[-1] = [ev for ev in t.steps[-1] if not isinstance(ev, e.PlayerLeft)]
    report = audit_records(table_stream("t"), recorded("t", t.steps))
    assert report.failures, "a walk-away with no leave passed the audit"
    assert "player_left" in report.failures[0].reason, report.failures
