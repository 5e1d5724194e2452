"""Helpers for the tournament tests: a field, and a tournament played out with chosen results."""

from __future__ import annotations

import random

from engine.tournament import (
    Entered,
    Fact,
    Result,
    Tournament,
    TournamentSpec,
    Withdrew,
    next_round,
)


def field(n: int) -> list[Entered]:
    """``p1`` .. ``pn``, rated so that ``p1`` is the top seed."""
    return [Entered(f"p{i}", 2000 - 10 * i) for i in range(1, n + 1)]


def play_out(
    spec: TournamentSpec, n: int, seed: int, withdraw: float = 0.0
) -> tuple[Tournament, list[Fact], list[Tournament]]:
    """A tournament of ``n`` played to the end with random results; each round a player may
    withdraw with probability ``withdraw``. Returns the end state, the facts, and the state
    just before each round was paired."""
    r = random.Random(seed)
    facts: list[Fact] = list(field(n))
    state = Tournament.fold(spec, facts)
    before = []
    while not state.is_finished:
        if state.has_started and withdraw and r.random() < withdraw and len(state.active) > 2:
            fact: Fact = Withdrew(r.choice(state.active))
            facts.append(fact)
            state = state.apply(fact)
            if state.is_finished:
                break
        if state.has_started and not state.rounds[-1].is_complete:
            for board in state.rounds[-1].boards:
                if not board.decided:
                    fact = Result(state.rounds[-1].number, board.number, r.choice(board.players))
                    facts.append(fact)
                    state = state.apply(fact)
            continue
        before.append(state)
        fact = next_round(state)
        facts.append(fact)
        state = state.apply(fact)
    return state, facts, before
