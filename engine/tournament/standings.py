"""Standings of a Swiss tournament or a round robin, with their tie-breaks (docs/tournaments.md,
Standings).

A match won is 1 match point, a match lost 0 (a backgammon match has no draw). A Swiss bye is
worth a win; a round robin's bye (an odd field's rest) nothing. Tie-breaks, in order:

- Swiss: match points, then **Buchholz** (the sum of the opponents' match points), then
  **Sonneborn-Berger** (the sum of the match points of the opponents beaten), then the seeding
  order (rating, entry order, id: :func:`~engine.tournament.state.seed_key`).
- Round robin: match points, then Sonneborn-Berger (everyone has met everyone, so Buchholz would
  only repeat the points), then the seeding order.

Only decided boards count. **Choice:** a bye adds nothing to Buchholz or Sonneborn-Berger (it
has no opponent); a match won or lost by forfeit counts as played, like any other.

>>> from engine.tournament.facts import *
>>> t = Tournament.fold(TournamentSpec(Format.SWISS, rounds=2), [
...     Entered("ann", 1700), Entered("bob", 1600), Entered("cat", 1500), Entered("dan", 1400),
...     RoundPaired(1, (Pairing("ann", "cat"), Pairing("bob", "dan"))),
...     Result(1, 1, "cat"), Result(1, 2, "bob")])
>>> [(s.player, s.points, s.buchholz) for s in standings(t)]
[('bob', 1, 0), ('cat', 1, 0), ('ann', 0, 1), ('dan', 0, 1)]
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import TournamentError
from engine.tournament.facts import Format
from engine.tournament.state import Tournament, seed_key

__all__ = ["Standing", "match_points", "standings"]


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's line in the standings."""

    rank: int
    """From 1; every tie is broken, so no two players share a rank."""
    player: str
    points: int
    """Match points: 1 for each match won (and each Swiss bye)."""
    played: int
    """Matches decided, byes not counted."""
    won: int
    buchholz: int
    sonneborn_berger: int
    rating: float
    withdrawn: bool


def match_points(state: Tournament) -> dict[str, int]:
    """Each player of the field's match points, from the decided boards."""
    bye = 1 if state.spec.format is Format.SWISS else 0
    points = dict.fromkeys(state.field, 0)
    for r in state.rounds:
        for board in r.boards:
            if not board.decided or board.winner is None:
                continue
            points[board.winner] += bye if board.is_bye else 1
    return points


def standings(state: Tournament) -> tuple[Standing, ...]:
    """The field ranked by its tie-breaks (the module's docstring).

    :raises TournamentError: a knockout, which has a bracket instead
        (:func:`~engine.tournament.knockout.bracket`)."""
    if state.spec.format is Format.KNOCKOUT:
        raise TournamentError("a knockout has a bracket, not standings")
    points = match_points(state)
    opponents: dict[str, list[str]] = {p: [] for p in points}
    beaten: dict[str, list[str]] = {p: [] for p in points}
    for r in state.rounds:
        for board in r.boards:
            if not board.decided or board.pairing.b is None:
                continue
            a, b = board.pairing.a, board.pairing.b
            opponents[a].append(b)
            opponents[b].append(a)
            if board.winner is not None:
                beaten[board.winner].append(b if board.winner == a else a)
    swiss = state.spec.format is Format.SWISS
    lines = []
    for player in points:
        buchholz = sum(points[o] for o in opponents[player])
        sb = sum(points[o] for o in beaten[player])
        breaks = (-buchholz, -sb) if swiss else (-sb,)
        key = (-points[player], *breaks, *seed_key(state.entrant(player)))
        lines.append((key, player, buchholz, sb))
    lines.sort()
    return tuple(
        Standing(
            rank=i,
            player=player,
            points=points[player],
            played=len(opponents[player]),
            won=len(beaten[player]),
            buchholz=buchholz,
            sonneborn_berger=sb,
            rating=state.entrant(player).rating,
            withdrawn=player in state.withdrawn,
        )
        for i, (_, player, buchholz, sb) in enumerate(lines, 1)
    )
