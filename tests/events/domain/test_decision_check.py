"""Every decided batch is checked as the audit checks a stream before it is appended
(events.domain.rules_check): what the rules give passes, anything else is refused and names its
event."""

from __future__ import annotations

import random

import msgspec
import pytest

from events.domain import commands as c
from events.domain import types as e
from events.domain.decider import evolve, fold
from events.domain.dice import FairDice
from events.domain.rules_check import DecisionRejectedError, check_batch, check_steps
from events.domain.table import TableState
from events.records.simulate import SimulatedTable, simulate_chouette, simulate_table


def tables() -> list[SimulatedTable]:
    return [
        simulate_table("money", games=3, rng=random.Random(1)),
        simulate_table("match", kind="match", games=9, rng=random.Random(2)),
        simulate_chouette("chouette", games=3, rng=random.Random(3), leave_rate=0.02),
    ]


@pytest.mark.parametrize("table", tables(), ids=lambda t: t.table_id)
def test_every_decided_step_passes_with_its_dice_and_gives_the_fold(
    table: SimulatedTable,
) -> None:
    state = TableState(table_id=table.table_id)
    dice = FairDice(table.seeds)
    for step in table.steps:
        after = check_batch(state, step.events, dice)
        expected = state
        for ev in step.events:
            expected = evolve(expected, ev)
        assert after == expected
        # What decide() itself gave (the service's case) folds to the same state, decided
        # again or not.
        assert check_batch(state, step.events, dice, decided_as=(step.actor, step.command)) == after
        state = after
    assert state == table.state
    # An import's check takes the dice as recorded, and agrees.
    assert check_steps(table.table_id, [s.events for s in table.steps]) == table.state


def _before(table: SimulatedTable, index: int) -> TableState:
    return fold(
        [ev for s in table.steps[:index] for ev in s.events], TableState(table_id=table.table_id)
    )


def _find(table: SimulatedTable, kind: type[e.Event]) -> int:
    return next(i for i, s in enumerate(table.steps) if isinstance(s.events[0], kind))


def test_a_throw_into_a_finished_match_is_rejected() -> None:
    # The bug that poisoned matches: an opening throw decided after match_ended.
    match = simulate_table("m", kind="match", games=9, rng=random.Random(2))
    assert match.state.match_winner
    late = e.OpeningThrow(dice=(3, 1), at=match.now + 1000)
    with pytest.raises(DecisionRejectedError) as caught:
        check_batch(match.state, [late])
    assert caught.value.event_type == "opening_throw"
    assert caught.value.version == match.state.version + 1
    assert caught.value.table_id == "m"
    # Claimed to be decide()'s own answer to a roll, it still has to fold: it does not.
    winner = match.state.match_winner
    with pytest.raises(DecisionRejectedError, match="does not apply"):
        check_batch(match.state, [late], decided_as=(winner, c.Roll()))


def test_an_illegal_play_is_rejected_at_its_version() -> None:
    table = simulate_table("t", games=1, rng=random.Random(5))
    i = _find(table, e.CheckersMoved)
    moved = table.steps[i].events[0]
    assert isinstance(moved, e.CheckersMoved)
    wrong = msgspec.structs.replace(moved, moves=((24, 1),))
    state = _before(table, i)
    with pytest.raises(DecisionRejectedError) as caught:
        check_batch(state, [wrong, *table.steps[i].events[1:]], FairDice(table.seeds))
    assert caught.value.event_type == "checkers_moved"
    assert caught.value.version == state.version + 1
    assert "not allowed" in caught.value.reason


def test_a_throw_the_seed_does_not_give_is_rejected() -> None:
    table = simulate_table("t", games=1, rng=random.Random(6))
    i = _find(table, e.DiceRolled)
    rolled = table.steps[i].events[0]
    assert isinstance(rolled, e.DiceRolled)
    other = (1, 2) if sorted(rolled.dice) != [1, 2] else (3, 4)
    state = _before(table, i)
    with pytest.raises(DecisionRejectedError) as caught:
        check_batch(state, [msgspec.structs.replace(rolled, dice=other)], FairDice(table.seeds))
    assert caught.value.event_type == "dice_rolled"
    # With the dice as recorded (an import) the same throw is a legal one.
    check_batch(state, [msgspec.structs.replace(rolled, dice=other)])


def test_a_batch_that_stops_short_of_the_rules_is_rejected() -> None:
    table = simulate_table("t", games=2, rng=random.Random(7))
    i = next(
        k
        for k, s in enumerate(table.steps)
        if len(s.events) > 1 and any(isinstance(ev, e.GameEnded) for ev in s.events)
    )
    events = table.steps[i].events
    cut = [ev for ev in events if not isinstance(ev, e.GameEnded)]
    with pytest.raises(DecisionRejectedError) as caught:
        check_batch(_before(table, i), cut, FairDice(table.seeds))
    assert "stops short" in caught.value.reason or "rules give" in caught.value.reason


def test_an_event_no_command_produces_first_is_rejected() -> None:
    table = simulate_table("t", games=1, rng=random.Random(8))
    i = next(
        k for k, s in enumerate(table.steps) if any(isinstance(ev, e.GameEnded) for ev in s.events)
    )
    ended = next(ev for ev in table.steps[i].events if isinstance(ev, e.GameEnded))
    with pytest.raises(DecisionRejectedError) as caught:
        check_batch(_before(table, i), [ended], FairDice(table.seeds))
    assert caught.value.event_type == "game_ended"
    assert "no command produces" in caught.value.reason


def test_a_second_table_created_over_one_is_rejected() -> None:
    table = simulate_table("t", games=1, rng=random.Random(9))
    again = e.TableCreated(table_id="t", kind="money", options=e.TableOptions(), created_by="x")
    with pytest.raises(DecisionRejectedError):
        check_batch(table.state, [again])


def test_an_empty_command_decided_from_nothing_is_rejected() -> None:
    # A join that decides a seat the table does not have.
    table = simulate_table("t", games=1, rng=random.Random(10))
    join = e.PlayerJoined(player="zed", seat=7, display_name="Zed")
    with pytest.raises(DecisionRejectedError) as caught:
        check_batch(table.state, [join])
    assert caught.value.event_type == "player_joined"
