"""Tournaments of matches (knockout, Swiss, round robin) and a chouette night's settlement:
pure rules, no database (docs/tournaments.md).

A tournament's state is the fold of plain facts (:mod:`~engine.tournament.facts`): entries,
withdrawals, each round's pairings, results and a director's adjustments. Pairing the next
round is a function of that state (:func:`next_round`), deterministic to the last tie, so the
event-sourced layer records its answer and anyone can pair every round again from the facts
(:func:`audit`). The standings (:func:`standings`) and the bracket (:func:`bracket`) are read
from the state too.

The package, one concept a module: :mod:`~engine.tournament.facts` (formats, the rules a
tournament is set up with, the facts), :mod:`~engine.tournament.state` (the fold),
:mod:`~engine.tournament.matching` (pairing as a matching search),
:mod:`~engine.tournament.swiss`, :mod:`~engine.tournament.knockout`,
:mod:`~engine.tournament.roundrobin` (each format's pairing), :mod:`~engine.tournament.standings`
(tie-breaks), :mod:`~engine.tournament.pairing` (any format's next round, and the audit) and
:mod:`~engine.tournament.settlement` (a night's fewest payments).

A Swiss tournament of four, two rounds:

>>> spec = TournamentSpec(Format.SWISS, rounds=2)
>>> t = Tournament.fold(spec, [Entered("ann", 1700), Entered("bob", 1650),
...                            Entered("cat", 1600), Entered("dan", 1550)])
>>> r1 = next_round(t)
>>> [str(p) for p in r1.pairings]             # the top half meets the bottom half
['ann v cat', 'bob v dan']
>>> t = t.apply(r1).apply(Result(1, 1, "ann")).apply(Result(1, 2, "dan", forfeit=True))
>>> [str(p) for p in next_round(t).pairings]  # winners meet, losers meet
['ann v dan', 'bob v cat']
>>> [(s.player, s.points) for s in standings(t)]
[('ann', 1), ('dan', 1), ('bob', 0), ('cat', 0)]
>>> t.apply(Result(1, 1, "cat"))
Traceback (most recent call last):
...
engine.errors.TournamentError: round 1 board 1 is already decided: a director adjusts it

A night's settlement:

>>> [str(p) for p in settle({"ann": 7, "bob": -4, "cat": -3}).payments]
['bob pays ann 4', 'cat pays ann 3']
"""

from engine.tournament.facts import (
    MAX_FIELD,
    MAX_ROUND_ROBIN,
    MAX_SWISS_ROUNDS,
    Adjusted,
    Entered,
    Fact,
    Format,
    Pairing,
    Result,
    RoundPaired,
    TournamentSpec,
    Withdrew,
)
from engine.tournament.knockout import BracketMatch, bracket, bracket_order, winner
from engine.tournament.pairing import audit, next_round, pairings
from engine.tournament.roundrobin import berger_round
from engine.tournament.settlement import (
    EXACT_LIMIT,
    Payment,
    SettlementPlan,
    night_balances,
    settle,
)
from engine.tournament.standings import Standing, match_points, standings
from engine.tournament.state import Board, Entrant, Round, Tournament, seed_key

__all__ = [
    "EXACT_LIMIT",
    "MAX_FIELD",
    "MAX_ROUND_ROBIN",
    "MAX_SWISS_ROUNDS",
    "Adjusted",
    "Board",
    "BracketMatch",
    "Entered",
    "Entrant",
    "Fact",
    "Format",
    "Pairing",
    "Payment",
    "Result",
    "Round",
    "RoundPaired",
    "SettlementPlan",
    "Standing",
    "Tournament",
    "TournamentSpec",
    "Withdrew",
    "audit",
    "berger_round",
    "bracket",
    "bracket_order",
    "match_points",
    "next_round",
    "night_balances",
    "pairings",
    "seed_key",
    "settle",
    "standings",
    "winner",
]
