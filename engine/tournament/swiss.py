"""Pairing a Swiss round (docs/tournaments.md, Swiss).

The players still in (not withdrawn) are ranked by match points, then by seed (rating, entry
order, id): **Choice:** the tie-breaks order the standings, not the pairing, as in the Dutch
system. Then, as the Dutch system does when nothing is in the way:

- a **score group** (the unpaired players with the most points) is split in halves and the
  top half meets the bottom half in order: of 8 players level, 1 v 5, 2 v 6, 3 v 7, 4 v 8;
- an odd group's last player **floats down** and meets the top of the next group;
- with an odd number of players, the **bye** goes first, to the lowest-ranked player who has
  not had one.

A repeat is what gets in the way. The highest-ranked unpaired player takes the first opponent,
in the order above, with whom the rest of the round can still be paired without a repeat
(:func:`~engine.tournament.matching.pair`); the bye likewise goes to the lowest-ranked player
without one *such that the rest can be paired*. So no pairing repeats while one that does not
exists; when none exists, as few repeat as possible. A player's order of preference is their
score group's opposite half (its next players first), then their own half upwards, then the
lower groups in rank order: every other unpaired player, so the search is complete. Within the
group, those after whom the rest of the group can still be paired inside it come first (as
the Dutch system transposes the bottom half before it floats anyone): in a group of 1, 2, 3,
4 where 2 and 4 have met, 1 v 4 and 2 v 3, not 1 v 3 with 2 and 4 floated down.

>>> from engine.tournament.facts import *
>>> from engine.tournament.state import Tournament
>>> players = [Entered(name, 2000 - 10 * i) for i, name in enumerate("abcdefgh")]
>>> t = Tournament.fold(TournamentSpec(Format.SWISS, rounds=3), players)
>>> [str(p) for p in swiss_pairing(t)]
['a v e', 'b v f', 'c v g', 'd v h']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from engine.errors import TournamentError
from engine.tournament.facts import Format, Pairing
from engine.tournament.matching import max_matching, pair, pair_greedily
from engine.tournament.standings import match_points
from engine.tournament.state import Tournament

__all__ = ["swiss_pairing"]


def swiss_pairing(state: Tournament, *, method: str = "auto") -> tuple[Pairing, ...]:
    """The next Swiss round's boards: board 1 the highest-ranked player's, the bye last.

    ``method`` is for ``bench/tournaments.py`` to compare the ways to the same answer:
    ``"auto"`` (the plain rule first, the search when it runs into a repeat), ``"search"``
    (always the matching search), ``"greedy"`` (the plain rule alone: each player takes the
    first candidate not met; when one finds none, the round is not paired and this raises).

    :raises TournamentError: not a Swiss tournament, a round still on, or none left."""
    if state.spec.format is not Format.SWISS:
        raise TournamentError(f"a {state.spec.format} tournament is not paired as a swiss")
    if state.has_started and not state.awaiting_pairing:
        raise TournamentError(
            "the tournament is over" if state.is_finished else "the last round is still on"
        )
    players = state.active
    if len(players) < (1 if state.has_started else 2):
        raise TournamentError(f"too few players left to pair: {len(players)}")
    points = match_points(state)
    seed = {p: i for i, p in enumerate(state.field)}
    ranked = sorted(players, key=lambda p: (-points[p], seed[p]))
    index = {p: i for i, p in enumerate(ranked)}
    n = len(ranked)
    bye = n if n % 2 else -1
    forbidden: list[set[int]] = [set() for _ in range(n + (1 if bye >= 0 else 0))]
    for r in state.rounds:
        for board in r.boards:
            a, b = board.pairing.a, board.pairing.b
            if a not in index:
                continue
            if b is None:
                if bye >= 0:
                    forbidden[index[a]].add(bye)
                    forbidden[bye].add(index[a])
            elif b in index:
                forbidden[index[a]].add(index[b])
                forbidden[index[b]].add(index[a])
    score = [points[p] for p in ranked]

    def candidates(p: int, remaining: list[int]) -> Iterable[int]:
        if p == bye:
            return remaining[:0:-1]  # the lowest-ranked first
        group = 1
        while group < len(remaining) and score[remaining[group]] == score[p]:
            group += 1
        if group == 1:
            return remaining[1:]
        half = group // 2
        inside = remaining[half:group] + remaining[half - 1 : 0 : -1]
        return _group_first(p, inside, remaining[:group], remaining[group:], forbidden)

    order = ([bye] if bye >= 0 else []) + list(range(n))
    if method == "greedy":
        found = pair_greedily(order, forbidden, candidates)
        if found is None:
            raise TournamentError("the plain rule ran into a repeat it cannot get round")
        pairs = found
    elif method in ("auto", "search"):
        pairs = pair(order, forbidden, candidates, shortcut=method == "auto")
    else:
        raise TournamentError(f"no pairing method {method!r}")
    boards = []
    byes = []
    for u, v in pairs:
        if bye in (u, v):
            byes.append(Pairing(ranked[v if u == bye else u]))
        else:
            boards.append((min(u, v), Pairing(ranked[min(u, v)], ranked[max(u, v)])))
    boards.sort(key=lambda b: b[0])
    return (*(p for _, p in boards), *byes)


def _group_first(
    p: int,
    inside: list[int],
    group: list[int],
    below: list[int],
    forbidden: list[set[int]],
) -> Iterator[int]:
    """``p``'s candidates: first those of its score group (in ``inside``'s order) after whom
    the rest of the group can still be paired inside it, then the others of the group, then
    the players ``below``. Lazily: the search mostly takes the first."""
    later = []
    for c in inside:
        if c in forbidden[p] or not _group_pairable(p, c, group, forbidden):
            later.append(c)
        else:
            yield c
    yield from later
    yield from below


def _group_pairable(p: int, c: int, group: list[int], forbidden: list[set[int]]) -> bool:
    """Whether ``group`` without ``p`` and ``c`` can be paired among itself without a repeat
    (all but one, if odd). Mostly answered by Dirac's theorem: when no one has met more than
    half of the others (rounded up, less one), a Hamiltonian cycle exists, and so the pairing;
    otherwise by a maximum matching."""
    rest = [v for v in group if v != p and v != c]
    k = len(rest)
    members = set(rest)
    limit = (k + 1) // 2 - 1
    if all(len(forbidden[v] & members) <= limit for v in rest):
        return True
    alive = [False] * len(forbidden)
    for v in rest:
        alive[v] = True
    mate = max_matching(rest, forbidden, alive)
    return sum(1 for v in rest if mate[v] != -1) // 2 == k // 2
