"""The seed window before each game's first throw (docs/dice.md, issue 11 finding 7): every
player of the game adds a seed or waives; no die is thrown before it closes, when all have
answered or its time has run out; the chouette's line throws wait for it too."""

from __future__ import annotations

import random

import pytest

from events.domain import commands as c
from events.domain import dice as fair
from events.domain import types as e
from events.domain.decider import decide, evolve, fold
from events.domain.table import CommandError, NotAllowedError, TableState
from events.records.audit import audit_records
from events.records.simulate import simulate_chouette, simulate_table
from events.store.streams import table_stream
from tests.records import recorded

T0 = 1_764_000_000_000
"""A time (ms since the epoch) the tests' games start at."""
SEEDS = {g: bytes([g]) * 32 for g in range(1, 10)}


class Table:
    """A table decided with fair dice of known seeds at times the test gives."""

    def __init__(self, kind: str, players: list[str], window: int = 5) -> None:
        self.dice = fair.FairDice(SEEDS)
        self.state = TableState(table_id="t")
        self.log: list[e.Event] = []
        length = 3 if kind == "match" else 0
        options = e.TableOptions(seed_window=window, match_length=length)
        self.do(players[0], c.CreateTable(kind=kind, options=options), T0 - 1000)  # type: ignore[arg-type]
        for p in players:
            self.do(p, c.Join(display_name=p.title()), T0)

    def do(self, actor: str, command: c.Command, now: int) -> list[e.Event]:
        events = decide(self.state, actor, command, self.dice, now)
        for ev in events:
            self.state = evolve(self.state, e.decode(e.tag(ev), ev.schema_version, e.encode(ev)))
        self.log.extend(events)
        return events


def test_a_game_starts_with_its_window_open_and_no_throw_before_it_closes() -> None:
    t = Table("money", ["ann", "bob"])
    started = t.log[-1]
    assert isinstance(started, e.GameStarted) and started.at == T0
    assert t.state.window_open and t.state.seed_waiting == ("ann", "bob")
    with pytest.raises(CommandError, match=r"waiting for Ann and Bob .* \(5 s left"):
        t.do("ann", c.Roll(), T0 + 100)
    assert t.do("ann", c.AddSeed(seed="ann's"), T0 + 200) == [
        e.ClientSeedAdded(player="ann", game=1, seed="ann's", at=T0 + 200)
    ]
    with pytest.raises(CommandError, match=r"waiting for Bob .* \(3 s left"):
        t.do("bob", c.Roll(), T0 + 2000)
    # The last answer closes the window; then the dice, with ann's seed mixed in.
    assert t.do("bob", c.WaiveSeed(), T0 + 2500) == [
        e.ClientSeedWaived(player="bob", game=1, at=T0 + 2500),
        e.SeedWindowClosed(game=1, missing=[], at=T0 + 2500),
    ]
    assert not t.state.window_open
    thrown = t.do("bob", c.Roll(), T0 + 2600)
    first = thrown[0]
    assert isinstance(first, e.OpeningThrow)
    assert list(first.dice) == fair.derive_dice(SEEDS[1], ["ann's"], 2)


def test_the_window_closes_when_its_time_runs_out_naming_who_did_not_answer() -> None:
    t = Table("match", ["ann", "bob"], window=3)
    t.log.clear()
    t.do("ann", c.AddSeed(seed="x"), T0 + 10)
    with pytest.raises(CommandError, match="waiting for Bob"):
        t.do("ann", c.Roll(), T0 + 2999)
    events = t.do("ann", c.Roll(), T0 + 3000)
    assert events[0] == e.SeedWindowClosed(game=1, missing=["bob"], at=T0 + 3000)
    assert all(ev.at == T0 + 3000 for ev in events)
    assert isinstance(events[1], e.OpeningThrow)
    # Too late now: the window is closed.
    with pytest.raises(CommandError, match="seed window of game 1 has closed"):
        t.do("bob", c.AddSeed(seed="late"), T0 + 3100)


def test_answers_that_do_not_fit_the_window_are_refused() -> None:
    t = Table("money", ["ann", "bob"])
    t.do("ann", c.AddSeed(seed="one"), T0 + 1)
    with pytest.raises(CommandError, match="already added a seed or waived"):
        t.do("ann", c.AddSeed(seed="two"), T0 + 2)
    with pytest.raises(CommandError, match="already"):
        t.do("ann", c.WaiveSeed(), T0 + 3)
    with pytest.raises(NotAllowedError):
        t.do("cat", c.AddSeed(seed="three"), T0 + 4)


def test_without_a_window_nobody_waits_and_seeds_go_in_before_the_first_throw() -> None:
    t = Table("money", ["ann", "bob"], window=0)
    assert not t.state.window_open
    t.do("ann", c.AddSeed(seed="s"), T0 + 1)
    with pytest.raises(CommandError, match="no seed window open"):
        t.do("bob", c.WaiveSeed(), T0 + 2)
    assert isinstance(t.do("bob", c.Roll(), T0 + 3)[0], e.OpeningThrow)
    with pytest.raises(CommandError, match="before the game's first throw"):
        t.do("bob", c.AddSeed(seed="late"), T0 + 4)


def test_the_chouette_line_is_thrown_with_every_players_seed() -> None:
    """The throws that order the line are the first game's first dice: they wait for the
    window, and the seed of the last player to answer is mixed into them."""
    t = Table("chouette", ["ann", "bob", "cat"])
    assert isinstance(t.do("ann", c.StartGame(), T0 + 10)[-1], e.GameStarted)
    assert t.state.chouette is not None and t.state.chouette.ordering is not None
    with pytest.raises(CommandError, match="waiting for Ann, Bob and Cat to add"):
        t.do("bob", c.Roll(), T0 + 20)
    t.do("ann", c.AddSeed(seed="a"), T0 + 30)
    t.do("bob", c.WaiveSeed(), T0 + 40)
    last = t.do("cat", c.AddSeed(seed="c"), T0 + 50)
    assert [type(ev) for ev in last[:2]] == [e.ClientSeedAdded, e.SeedWindowClosed]
    throws = [d for ev in last if isinstance(ev, e.LineThrow) for d in ev.throws.values()]
    assert throws and throws == fair.derive_dice(SEEDS[1], ["a", "c"], len(throws))
    assert t.state.chouette.ordering is None and t.state.chouette.box is not None


def test_the_chouette_line_waits_out_the_window_then_any_member_throws_it() -> None:
    t = Table("chouette", ["ann", "bob", "cat"], window=4)
    t.do("ann", c.StartGame(), T0)
    t.do("cat", c.AddSeed(seed="c"), T0 + 100)
    with pytest.raises(CommandError, match="the line is thrown for next"):
        t.do("ann", c.StartGame(), T0 + 200)
    with pytest.raises(CommandError, match="waiting for Ann and Bob"):
        t.do("cat", c.Roll(), T0 + 3999)
    events = t.do("cat", c.Roll(), T0 + 4000)
    assert events[0] == e.SeedWindowClosed(game=1, missing=["ann", "bob"], at=T0 + 4000)
    throws = [d for ev in events if isinstance(ev, e.LineThrow) for d in ev.throws.values()]
    assert throws == fair.derive_dice(SEEDS[1], ["c"], len(throws))
    with pytest.raises(CommandError, match="a game is already in progress"):
        t.do("ann", c.StartGame(), T0 + 4100)


def test_a_player_who_leaves_during_the_window_is_not_waited_for() -> None:
    t = Table("chouette", ["ann", "bob", "cat"])
    t.do("ann", c.StartGame(), T0)
    t.do("ann", c.WaiveSeed(), T0 + 1)
    t.do("bob", c.WaiveSeed(), T0 + 2)
    t.do("cat", c.Leave(), T0 + 3)
    assert t.state.seed_waiting == ()
    events = t.do("ann", c.Roll(), T0 + 4)  # before the deadline: nobody is waited for
    assert events[0] == e.SeedWindowClosed(game=1, missing=[], at=T0 + 4)


# -- the fold refuses records that break the window's rules (what an audit reports) -------------


def _window_log() -> list[e.Event]:
    t = Table("money", ["ann", "bob"])
    t.do("ann", c.AddSeed(seed="x"), T0 + 10)
    t.do("ann", c.Roll(), T0 + 5000)
    return t.log


def test_a_throw_recorded_inside_the_window_does_not_fold() -> None:
    log = _window_log()
    closed = next(i for i, ev in enumerate(log) if isinstance(ev, e.SeedWindowClosed))
    with pytest.raises(ValueError, match="before the seed window closed"):
        fold(log[:closed] + log[closed + 1 :])


def test_a_window_closed_early_on_time_does_not_fold() -> None:
    """A closing that names a missing player must come after the deadline: a server (or a
    tamperer) cannot cut a player's time short and pass the audit."""
    log = _window_log()
    closed = next(i for i, ev in enumerate(log) if isinstance(ev, e.SeedWindowClosed))
    early = e.SeedWindowClosed(game=1, missing=["bob"], at=T0 + 4999)
    with pytest.raises(ValueError, match="before its time ran out"):
        fold([*log[:closed], early])
    wrong = e.SeedWindowClosed(game=1, missing=[], at=T0 + 5000)
    with pytest.raises(ValueError, match="was waiting for"):
        fold([*log[:closed], wrong])


def test_an_early_closing_fails_the_audit_at_its_version() -> None:
    table = simulate_table(
        "w", games=3, rng=random.Random(5), options=e.TableOptions(seed_window=5), seed_rate=0.3
    )
    steps = [list(s.events) for s in table.steps]
    assert audit_records(table_stream("w"), recorded("w", steps)).failures == []
    closings = [
        (i, j)
        for i, step in enumerate(steps)
        for j, ev in enumerate(step)
        if isinstance(ev, e.SeedWindowClosed) and ev.missing
    ]
    assert closings, "the simulation let a window run out"
    i, _ = closings[0]
    started = [ev for step in steps[:i] for ev in step if isinstance(ev, e.GameStarted)][-1]
    # Decided a millisecond early: every event of that command says so, as a server records.
    early = started.at + 5000 - 1
    steps[i] = [type(ev)(**{**_fields(ev), "at": early}) for ev in steps[i]]
    report = audit_records(table_stream("w"), recorded("w", steps))
    failure = report.first_failure
    assert failure is not None and failure.check == "rules", report.as_dict()
    assert "waiting for" in failure.reason
    version = sum(len(s) for s in steps[:i]) + 1
    assert failure.version == version


def _fields(ev: e.Event) -> dict[str, object]:
    return {f: getattr(ev, f) for f in ev.__struct_fields__}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_simulated_tables_with_windows_audit_clean(seed: int) -> None:
    options = e.TableOptions(seed_window=5)
    money = simulate_table("m", games=3, rng=random.Random(seed), options=options)
    chouette = simulate_chouette("c", games=3, rng=random.Random(seed), options=options)
    for table_id, table in (("m", money), ("c", chouette)):
        kinds = {type(ev) for ev in table.events}
        assert e.SeedWindowClosed in kinds
        report = audit_records(
            table_stream(table_id), recorded(table_id, [s.events for s in table.steps])
        )
        assert report.failures == [], report.as_dict()
        assert report.dice_verified
