"""A round robin: everyone meets everyone once, by the circle method (docs/tournaments.md,
Round robin).

The field is numbered 0 to ``n - 1`` in seed order; an odd field gets a phantom ``n``, and who
meets the phantom has the bye. With ``m`` places (``n`` made even), the last place stays put and
the others turn round a circle: in round ``k + 1`` (``k`` from 0 to ``m - 2``) place ``m - 1``
meets ``k`` and, for ``i`` from 1 to ``m/2 - 1``, place ``(k + i) mod (m - 1)`` meets
``(k - i) mod (m - 1)``. These are Berger's tables up to the order of the rounds: every pair
meets exactly once in ``m - 1`` rounds. The schedule is fixed when the first round is paired; a
player who withdraws keeps their places, and their matches are forfeited (docs/tournaments.md,
Withdrawals).

>>> berger_round(4, 1), berger_round(4, 2), berger_round(4, 3)
(((0, 3), (1, 2)), ((0, 2), (1, 3)), ((0, 1), (2, 3)))
>>> berger_round(3, 1)                            # place 3 is the phantom: 0 has the bye
((1, 2), (0, None))
"""

from __future__ import annotations

from engine.errors import TournamentError
from engine.tournament.facts import Format, Pairing
from engine.tournament.state import Tournament

__all__ = ["berger_round", "round_robin_pairing"]


def berger_round(n: int, number: int) -> tuple[tuple[int, int | None], ...]:
    """Round ``number`` (from 1) of a round robin of ``n`` players: its pairs of places, each
    lower place first, in the order of their lower place; ``None`` is the bye.

    :raises TournamentError: fewer than 2 players, or no such round."""
    if not isinstance(n, int) or n < 2:
        raise TournamentError(f"a round robin needs at least 2 players: {n!r}")
    m = n + n % 2
    if not isinstance(number, int) or not 1 <= number <= m - 1:
        raise TournamentError(f"a round robin of {n} has rounds 1 to {m - 1}: {number!r}")
    k = number - 1
    pairs = [(k, m - 1)]
    for i in range(1, m // 2):
        pairs.append(((k + i) % (m - 1), (k - i) % (m - 1)))
    ordered = sorted((min(a, b), max(a, b)) for a, b in pairs)
    real = [(a, b) for a, b in ordered if b < n]
    byes: list[tuple[int, int | None]] = [(a, None) for a, b in ordered if b >= n]
    return (*real, *byes)


def round_robin_pairing(state: Tournament) -> tuple[Pairing, ...]:
    """The next round robin round's boards, the bye last.

    :raises TournamentError: not a round robin, a round still on, or every round played."""
    if state.spec.format is not Format.ROUND_ROBIN:
        raise TournamentError(f"a {state.spec.format} tournament is not a round robin")
    if state.has_started and not state.awaiting_pairing:
        raise TournamentError(
            "the tournament is over" if state.is_finished else "the last round is still on"
        )
    field = state.field
    pairs = berger_round(len(field), len(state.rounds) + 1)
    return tuple(Pairing(field[a], None if b is None else field[b]) for a, b in pairs)
