"""Ratings by the FIBS formula: pure functions, no I/O (the projector is
``server/readmodels/ratings.py``).

For ratings ``r1`` and ``r2`` and a match of length ``n``: ``D = |r1 - r2|``; the underdog (the
lower rating) wins with probability ``P_upset = 1 / (10^(D·√n/2000) + 1)``. The winner gains
``4·K·√n·P`` and the loser loses ``4·K·√n·P``, where ``P = 1 - P_upset`` when the underdog won
and ``P = P_upset`` when the favourite won, and each player uses their own
``K = max(1, 5 - experience/100)``; experience is the sum of the lengths of the player's
finished rated matches. Everyone starts at 1500 with experience 0. With equal ratings either
player counts as the underdog: ``P_upset = 1/2`` and both formulas agree.

**Choice:** experience does *not* count the match being rated: ``K`` is each player's factor as
the match starts (experience before it), as FIBS computes it; the match's length is added to
both players' experience afterwards. A newcomer's first match is rated with ``K = 5``.

Ratings are kept to :data:`DECIMALS` decimals: each change is rounded (half to even) to six
places, and so is each new rating, so that a rating read back from the database, a rebuild and a
hand-worked case all agree to the last decimal kept.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = [
    "DECIMALS",
    "START_RATING",
    "MatchRating",
    "is_rateable",
    "k_factor",
    "p_upset",
    "rate_match",
]

START_RATING = 1500.0
"""Everyone's rating before their first rated match."""

DECIMALS = 6
"""Decimals a rating and a change are kept to."""

RATEABLE_PREFIXES = ("u_", "g_")
"""Registered accounts' ids start ``u_``, guests' ``g_`` and bots' ``b_``. A guest kept as an
account (``POST /me/account``) keeps its ``g_`` id, so the id alone cannot tell it from a guest:
a rated table is for registered accounts only (the server refuses a guest's join there, and
turns ``registered_only`` on with ``rated``), so a ``g_`` player of a rated match was registered
when they sat down. Only bots are never rated."""


def is_rateable(player: str) -> bool:
    """Whether ``player`` (an account id) of a rated match can be rated: an account, not a bot
    (a rated match's players are registered: see :data:`RATEABLE_PREFIXES`)."""
    return player.startswith(RATEABLE_PREFIXES)


def k_factor(experience: int) -> float:
    """``max(1, 5 - experience/100)``: newcomers' ratings move up to five times as fast."""
    # (500 - x) / 100 is one correctly rounded division: 5 - 399/100 would be 1.00999...
    return max(1.0, (500 - experience) / 100)


def p_upset(difference: float, length: int) -> float:
    """The probability that the underdog wins a match of ``length`` points, ratings
    ``difference`` apart: ``1 / (10^(D·√n/2000) + 1)``."""
    return 1.0 / (10.0 ** (abs(difference) * math.sqrt(length) / 2000.0) + 1.0)


@dataclass(frozen=True, slots=True)
class MatchRating:
    """A rated match's outcome for both players."""

    winner_before: float
    loser_before: float
    gain: float
    """What the winner gains (positive)."""
    loss: float
    """What the loser loses (positive)."""

    @property
    def winner_after(self) -> float:
        return round(self.winner_before + self.gain, DECIMALS)

    @property
    def loser_after(self) -> float:
        return round(self.loser_before - self.loss, DECIMALS)


def rate_match(
    winner: float, loser: float, length: int, winner_experience: int, loser_experience: int
) -> MatchRating:
    """The ratings' changes after a rated match of ``length`` points (1 or more), given both
    players' ratings and experience before it (see the module's **Choice**)."""
    if length < 1:
        raise ValueError(f"a rated match has a length of 1 or more, not {length}")
    upset = p_upset(winner - loser, length)
    # The winner was the underdog (or the ratings were equal: 1 - 1/2 = 1/2 either way).
    p = 1.0 - upset if winner <= loser else upset
    scale = 4.0 * math.sqrt(length) * p
    return MatchRating(
        winner_before=winner,
        loser_before=loser,
        gain=round(k_factor(winner_experience) * scale, DECIMALS),
        loss=round(k_factor(loser_experience) * scale, DECIMALS),
    )
