"""Property: what leaving would cost (:func:`events.domain.table.leave_cost`, the table view's
``leave_cost``, issue 29) is what ``leave`` then does (docs/rules.md §8, §10). Over random games
of money, match and chouette tables, played by commands ``allowed`` lists, at every state and
for everyone at the table: the decider's ``leave``, folded, moves the leaver's ledger by exactly
the stated points; a cost is stated exactly when the leave forfeits (a ``game_ended`` by
forfeit, a ``match_ended``, or a chouette member's forfeit noted in the game), and ``match``
exactly when it ends the match. Pure: no database, no server (the view calls the same
function).
"""

from __future__ import annotations

import contextlib
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import EngineError
from events.domain import commands as c
from events.domain import types as e
from events.domain.allowed import allowed
from events.domain.decider import decide, evolve
from events.domain.table import TableState, leave_cost
from tests.dice import SeededDice
from tests.events.domain.test_allowed_properties import NAMES, T0, table_options, variants

WEIGHTS = {"join": 1.0, "leave": 0.1, "resign": 2.0, "accept": 4.0, "double": 3.0}


def ledger_of(state: TableState, player: str) -> int:
    if state.kind == "chouette":
        return state.chouette.ledger.get(player, 0) if state.chouette is not None else 0
    return dict(state.ledger).get(player, 0)


def fold(state: TableState, events: list[e.Event]) -> TableState:
    for ev in events:
        state = evolve(state, ev)
    return state


def check_leaving(state: TableState, dice: SeededDice, now: int) -> int:
    """The property at ``state`` for everyone at the table; how many costs were stated."""
    stated = 0
    for player in state.players:
        cost = leave_cost(state, player)
        events = decide(state, player, c.Leave(), dice, now)
        after = fold(state, events)
        change = ledger_of(after, player) - ledger_of(state, player)
        # A forfeit ends the game (game_ended by forfeit), or the match, or (a chouette member
        # whose leaving does not end the game) is noted in the game's forfeits.
        same_game = after.game_no == state.game_no
        noted = same_game and (player, "left") in after.forfeits[len(state.forfeits) :]
        ended = [ev for ev in events if isinstance(ev, e.GameEnded | e.MatchEnded)]
        forfeits = noted or any(getattr(ev, "how", "forfeit") == "forfeit" for ev in ended)
        ends_match = any(isinstance(ev, e.MatchEnded) for ev in events)
        if cost is None:
            assert not forfeits and change == 0, (player, events)
            continue
        stated += 1
        assert forfeits, (player, cost, events)
        assert change == cost.points, (player, cost, change, events)
        assert cost.match == ends_match, (player, cost, events)
        assert cost.points == -sum(g.points for g in cost.games)
    return stated


def step(state: TableState, dice: SeededDice, now: int, rng: random.Random) -> list[e.Event]:
    """A random command someone may send now, accepted: its events."""
    choices = []
    for player in dict.fromkeys([*state.players, *NAMES[:5], state.created_by]):
        for name in allowed(state, player, now) - {"chat"}:
            choices.append((player, name))
    rng.shuffle(choices)
    weights = [WEIGHTS.get(name, 1.0) for _, name in choices]
    while choices:
        i = rng.choices(range(len(choices)), weights)[0]
        player, name = choices.pop(i)
        weights.pop(i)
        for command in variants(state, name):
            try:
                return decide(state, player, command, dice, now)
            except EngineError:
                continue
    return []


@pytest.mark.parametrize("kind", ["money", "match", "chouette"])
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_leaving_costs_what_the_view_says(kind: str, seed: int) -> None:
    rng = random.Random(seed)
    dice = SeededDice(seed)
    now = T0
    options = table_options(kind, rng)
    created = c.CreateTable(kind=kind, options=options)  # type: ignore[arg-type]
    state = fold(
        TableState(table_id="t"), decide(TableState(table_id="t"), NAMES[0], created, dice, now)
    )
    for _ in range(80):
        check_leaving(state, dice, now)
        expired = None
        with contextlib.suppress(EngineError):
            expired = decide(state, NAMES[0], c.Expire(), dice, now)
        state = fold(
            state, expired if expired and rng.random() < 0.7 else step(state, dice, now, rng)
        )
        now += rng.choice([0, 50, 400, 1500, 3000])


def test_some_examples_state_a_cost() -> None:
    """The property is not vacuous: the driver's games reach states where leaving costs."""
    total = 0
    for kind in ("money", "match", "chouette"):
        rng = random.Random(1)
        dice = SeededDice(1)
        now = T0
        created = c.CreateTable(
            kind=kind, options=e.TableOptions(match_length=5 if kind == "match" else 0)
        )  # type: ignore[arg-type]
        state = fold(
            TableState(table_id="t"), decide(TableState(table_id="t"), NAMES[0], created, dice, now)
        )
        stated = 0
        for _ in range(60):
            stated += check_leaving(state, dice, now)
            state = fold(state, step(state, dice, now, rng))
        assert stated, kind
        total += stated
    assert total >= 10
