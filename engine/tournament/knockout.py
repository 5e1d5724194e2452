"""A single-elimination knockout: its seeded bracket, each round's pairing from the last, and
the bracket drawn to the final (docs/tournaments.md, Knockout).

The field, in seed order, fills a bracket of the next power of two; the empty places are
**byes**, and they fall to the top seeds. The seeds are placed the standard way (seed ``s``
meets seed ``size + 1 - s`` in the first round, and the halves are nested so that, if the
higher seed always wins, the last four are seeds 1 to 4 and seed 1 meets seed 2 in the final).
After the first round the winners of boards 1 and 2 meet, then of 3 and 4, and so on. With
``third_place`` the losers of the two semi-finals play for third, as board 2 of the final round
(only when both semi-finals were played).

>>> bracket_order(8)
(1, 8, 4, 5, 2, 7, 3, 6)
>>> from engine.tournament.facts import *
>>> from engine.tournament.state import Tournament
>>> t = Tournament.fold(TournamentSpec(Format.KNOCKOUT),
...                     [Entered(name, 2000 - 10 * i) for i, name in enumerate("abcde")])
>>> [str(p) for p in knockout_pairing(t)]             # 5 players: 3 byes to the top seeds
['a bye', 'd v e', 'b bye', 'c bye']
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import TournamentError
from engine.tournament.facts import Format, Pairing
from engine.tournament.state import Board, Tournament

__all__ = ["BracketMatch", "bracket", "bracket_order", "knockout_pairing", "winner"]


def bracket_order(size: int) -> tuple[int, ...]:
    """The seeds (from 1) down the first round of a bracket of ``size`` places (a power of
    two), two by two: each pair is a first-round match.

    :raises TournamentError: ``size`` is not a power of two."""
    if not isinstance(size, int) or size < 1 or size & (size - 1):
        raise TournamentError(f"a bracket has a power of two places: {size!r}")
    order = [1]
    while len(order) < size:
        mirror = 2 * len(order) + 1
        order = [x for s in order for x in (s, mirror - s)]
    return tuple(order)


def _size(players: int) -> int:
    return 1 << (players - 1).bit_length()


def knockout_pairing(state: Tournament) -> tuple[Pairing, ...]:
    """The next knockout round's boards, in bracket order; the higher seed is ``a``.

    :raises TournamentError: not a knockout, a round still on, or the final played."""
    if state.spec.format is not Format.KNOCKOUT:
        raise TournamentError(f"a {state.spec.format} tournament is not paired as a knockout")
    if not state.has_started:
        field = state.field
        if len(field) < 2:
            raise TournamentError(f"a knockout needs at least 2 players: {len(field)} entered")
        order = bracket_order(_size(len(field)))
        return tuple(
            Pairing(field[s - 1], field[t - 1] if t <= len(field) else None)
            for s, t in zip(order[::2], order[1::2], strict=True)
        )
    if not state.awaiting_pairing:
        raise TournamentError(
            "the tournament is over" if state.is_finished else "the last round is still on"
        )
    last = state.rounds[-1]
    seed = {p: i for i, p in enumerate(state.field)}
    winners = [b.winner for b in last.boards]
    pairings = []
    for x, y in zip(winners[::2], winners[1::2], strict=True):
        assert x is not None and y is not None  # a knockout board always has a winner
        a, b = sorted((x, y), key=seed.__getitem__)
        pairings.append(Pairing(a, b))
    if len(pairings) == 1 and state.spec.third_place:
        losers = [b.loser for b in last.boards]
        if all(p is not None for p in losers):
            a, b = sorted((p for p in losers if p is not None), key=seed.__getitem__)
            pairings.append(Pairing(a, b))
    return tuple(pairings)


def winner(state: Tournament) -> str | None:
    """The winner of the final, once it is played (``None`` before)."""
    if state.spec.format is not Format.KNOCKOUT or not state.is_finished:
        return None
    return state.rounds[-1].boards[0].winner


@dataclass(frozen=True, slots=True)
class BracketMatch:
    """A place in the bracket drawn to the final: who plays (``None``: not known yet)."""

    round: int
    a: str | None
    b: str | None
    bye: bool = False
    winner: str | None = None
    third_place: bool = False


def bracket(state: Tournament) -> tuple[tuple[BracketMatch, ...], ...]:
    """Every round of the bracket, the first to the final: the boards paired so far and, for
    the rounds to come, the players known to reach them.

    >>> from engine.tournament.facts import *
    >>> t = Tournament.fold(TournamentSpec(Format.KNOCKOUT), [
    ...     Entered("ann", 1600), Entered("bob", 1500), Entered("cat", 1400),
    ...     RoundPaired(1, (Pairing("ann"), Pairing("bob", "cat"))), Result(1, 2, "cat")])
    >>> [[(m.a, m.b, m.winner) for m in r] for r in bracket(t)]
    [[('ann', None, 'ann'), ('bob', 'cat', 'cat')], [('ann', 'cat', None)]]
    """
    if state.spec.format is not Format.KNOCKOUT:
        raise TournamentError(f"a {state.spec.format} tournament has no bracket")
    field = state.field
    if len(field) < 2:
        return ()
    pairings = state.rounds[0].boards if state.rounds else None
    rounds: list[tuple[BracketMatch, ...]] = []
    if pairings is None:
        first = tuple(
            BracketMatch(1, p.a, p.b, bye=p.is_bye, winner=p.a if p.is_bye else None)
            for p in knockout_pairing(state)
        )
    else:
        first = tuple(_drawn(1, b) for b in pairings)
    rounds.append(first)
    total = (len(field) - 1).bit_length()
    for number in range(2, total + 1):
        if number <= len(state.rounds):
            boards = state.rounds[number - 1].boards
            drawn = [_drawn(number, b) for b in boards]
            if number == total and len(boards) > 1:
                drawn[1] = _drawn(number, boards[1], third_place=True)
            rounds.append(tuple(drawn))
            continue
        before = rounds[-1]
        rounds.append(
            tuple(
                BracketMatch(number, x.winner, y.winner)
                for x, y in zip(before[::2], before[1::2], strict=True)
            )
        )
    return tuple(rounds)


def _drawn(number: int, board: Board, *, third_place: bool = False) -> BracketMatch:
    return BracketMatch(
        number,
        board.pairing.a,
        board.pairing.b,
        bye=board.is_bye,
        winner=board.winner if board.decided else None,
        third_place=third_place,
    )
