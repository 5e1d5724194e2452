"""A tournament's vocabulary: its formats, the rules it is set up with, and the plain facts its
state is folded from (docs/tournaments.md).

The facts are what the event-sourced layer records, in the order it records them: entries and
withdrawals, each round's pairings, each board's result, and a director's adjustment with its
reason. They are plain values; :mod:`~engine.tournament.state` folds them.

>>> TournamentSpec(Format.SWISS, rounds=5).rounds
5
>>> TournamentSpec(Format.SWISS)
Traceback (most recent call last):
...
engine.errors.TournamentError: a swiss tournament needs 1 to 20 rounds: None
>>> Pairing("ann", None).is_bye
True
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.errors import TournamentError

__all__ = [
    "MAX_FIELD",
    "MAX_ROUND_ROBIN",
    "MAX_SWISS_ROUNDS",
    "Adjusted",
    "Entered",
    "Fact",
    "Format",
    "Pairing",
    "Result",
    "RoundPaired",
    "TournamentSpec",
    "Withdrew",
]

MAX_FIELD = 256
"""The most entrants a knockout or a Swiss tournament takes (docs/tournaments.md, Limits):
a round of 128 tables, the field ``bench/tournaments.py`` pairs."""
MAX_ROUND_ROBIN = 32
"""The most entrants a round robin takes: 31 rounds of matches, already a season."""
MAX_SWISS_ROUNDS = 20
"""The most rounds a Swiss tournament is set up with (8 rounds separate 256 players)."""


class Format(StrEnum):
    """How a tournament pairs its rounds (docs/tournaments.md)."""

    KNOCKOUT = "knockout"
    """Single elimination, seeded by rating, byes to the top seeds."""
    SWISS = "swiss"
    """A fixed number of rounds, players of equal score paired, no one met twice."""
    ROUND_ROBIN = "round_robin"
    """Everyone meets everyone once (Berger tables)."""


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    """The rules a tournament is set up with."""

    format: Format
    rounds: int | None = None
    """A Swiss tournament's number of rounds (1 to :data:`MAX_SWISS_ROUNDS`); the other formats
    have the rounds their field gives them, and take ``None``."""
    third_place: bool = False
    """A knockout's consolation: the losers of the two semi-finals play for third place.
    **Choice:** a third-place match rather than a bracket of the first round's losers."""

    def __post_init__(self) -> None:
        if not isinstance(self.format, Format):
            raise TournamentError(f"format must be knockout, swiss or round_robin: {self.format!r}")
        if self.format is Format.SWISS:
            if (
                not isinstance(self.rounds, int)
                or isinstance(self.rounds, bool)
                or not 1 <= self.rounds <= MAX_SWISS_ROUNDS
            ):
                raise TournamentError(
                    f"a swiss tournament needs 1 to {MAX_SWISS_ROUNDS} rounds: {self.rounds!r}"
                )
        elif self.rounds is not None:
            raise TournamentError(f"a {self.format} tournament takes no number of rounds")
        if self.third_place and self.format is not Format.KNOCKOUT:
            raise TournamentError("only a knockout has a third-place match")

    @property
    def max_field(self) -> int:
        """The most entrants this format takes."""
        return MAX_ROUND_ROBIN if self.format is Format.ROUND_ROBIN else MAX_FIELD


@dataclass(frozen=True, slots=True)
class Pairing:
    """One board of a round: ``a`` plays ``b``, or has the bye when ``b`` is ``None``.

    In a knockout ``a`` is the higher seed; in a Swiss round the higher-ranked player."""

    a: str
    b: str | None = None

    @property
    def is_bye(self) -> bool:
        return self.b is None

    @property
    def players(self) -> tuple[str, ...]:
        return (self.a,) if self.b is None else (self.a, self.b)

    def __str__(self) -> str:
        return f"{self.a} bye" if self.b is None else f"{self.a} v {self.b}"


@dataclass(frozen=True, slots=True)
class Entered:
    """A player entered, with the rating they are seeded by."""

    player: str
    rating: float = 1500.0


@dataclass(frozen=True, slots=True)
class Withdrew:
    """A player left the tournament: not paired again; a match of theirs still to be played is
    forfeited (docs/tournaments.md, Withdrawals)."""

    player: str


@dataclass(frozen=True, slots=True)
class RoundPaired:
    """Round ``round`` (from 1) was paired: its boards, in order (board 1 first)."""

    round: int
    pairings: tuple[Pairing, ...]


@dataclass(frozen=True, slots=True)
class Result:
    """Board ``board`` (from 1) of round ``round`` was decided: ``winner`` won the match, or
    nobody did (``None``: both forfeited). ``forfeit``: the loser did not play (a no-show,
    docs/rules.md §10)."""

    round: int
    board: int
    winner: str | None
    forfeit: bool = False


@dataclass(frozen=True, slots=True)
class Adjusted:
    """The director changed a decided board's result, for a recorded ``reason``."""

    round: int
    board: int
    winner: str | None
    reason: str
    forfeit: bool = False


Fact = Entered | Withdrew | RoundPaired | Result | Adjusted
"""What a tournament's state is folded from."""
