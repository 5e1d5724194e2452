"""The next round of any format, and the audit of a tournament's recorded rounds.

Pairing is a function of the state, and the state a fold of the facts, so anyone holding a
tournament's facts can pair each round again and compare it with what was recorded
(:func:`audit`): the event-sourced layer records :func:`next_round`'s answer, and a round that
differs was paired by something else.

>>> from engine.tournament.facts import *
>>> spec = TournamentSpec(Format.ROUND_ROBIN)
>>> facts = [Entered("ann", 1600), Entered("bob", 1500), Entered("cat", 1400)]
>>> t = Tournament.fold(spec, facts)
>>> first = next_round(t)
>>> [str(p) for p in first.pairings]
['bob v cat', 'ann bye']
>>> audit(spec, [*facts, first, Result(1, 1, "bob")])
()
>>> audit(spec, [*facts, RoundPaired(1, (Pairing("ann", "bob"), Pairing("cat")))])
(1,)
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.errors import TournamentError
from engine.tournament.facts import Fact, Format, Pairing, RoundPaired, TournamentSpec
from engine.tournament.knockout import knockout_pairing
from engine.tournament.roundrobin import round_robin_pairing
from engine.tournament.state import Tournament
from engine.tournament.swiss import swiss_pairing

__all__ = ["audit", "next_round", "pairings"]


def pairings(state: Tournament) -> tuple[Pairing, ...]:
    """The next round's boards, by the tournament's format.

    :raises TournamentError: a round still on, the tournament over, or too few players."""
    match state.spec.format:
        case Format.KNOCKOUT:
            return knockout_pairing(state)
        case Format.SWISS:
            return swiss_pairing(state)
        case Format.ROUND_ROBIN:
            return round_robin_pairing(state)


def next_round(state: Tournament) -> RoundPaired:
    """The fact that pairs the next round.

    :raises TournamentError: as :func:`pairings`."""
    return RoundPaired(len(state.rounds) + 1, pairings(state))


def audit(spec: TournamentSpec, facts: Iterable[Fact]) -> tuple[int, ...]:
    """The rounds among ``facts`` whose recorded pairing is not what :func:`next_round` gives
    from the facts before it, or that it would not have paired at all (an empty tuple: every
    round re-derived exactly).

    :raises TournamentError: a fact the fold refuses."""
    state = Tournament.new(spec)
    wrong = []
    for fact in facts:
        if isinstance(fact, RoundPaired):
            try:
                expected: RoundPaired | None = next_round(state)
            except TournamentError:
                expected = None
            if fact != expected:
                wrong.append(fact.round)
        state = state.apply(fact)
    return tuple(wrong)
