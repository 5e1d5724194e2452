"""The chouette's money: each member's game against the box, settled, and the running ledger.

Every member plays their own game against the box on their own cube (docs/rules.md §8); when it
ends (a bear-off, a drop, an accepted resignation, a forfeit) it becomes a :class:`Settlement`,
and the :class:`Ledger` books it. Points only move from one player to another, so the ledger
always sums to zero.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum

from engine.game import Result

__all__ = ["Ledger", "SettledBy", "Settlement"]


class SettledBy(StrEnum):
    """Why a member's game against the box was settled."""

    DROP = "drop"
    """A double was dropped (by the member, or by the box)."""
    RESIGN = "resign"
    """A resignation was accepted."""
    BEAR_OFF = "bear_off"
    """A side bore off its last checker."""
    FORFEIT = "forfeit"
    """The member (or the box) forfeited: left in mid-game or ran out of time (docs/rules.md
    §10)."""


@dataclass(frozen=True, slots=True)
class Settlement:
    """One member's game against the box, settled: who paid whom, how much, and why."""

    member: str
    """The team member whose cube this was."""
    box: str
    winner: str
    """Who is paid: the member or the box."""
    loser: str
    """Who pays."""
    how: SettledBy
    result: Result
    """Single, gammon or backgammon as counted (after the Jacoby rule); a drop counts single,
    a forfeit the worst result still possible for the side that forfeited."""
    cube: int
    """The cube value it is paid at (for a drop, the value before the double)."""

    @property
    def points(self) -> int:
        """What the loser pays the winner: result × cube."""
        return int(self.result) * self.cube

    def __str__(self) -> str:
        return f"{self.loser} pays {self.winner} {self.points} ({self.how}, {self.member}'s cube)"


class Ledger(Mapping[str, int]):
    """Points won (+) and lost (−) by each player over the whole chouette, in order of
    arrival. Every settlement moves points from one player to another, so it sums to zero.

    >>> Ledger({"ann": 0, "bob": 0}).credit(
    ...     Settlement("ann", "bob", "bob", "ann", SettledBy.DROP, Result.SINGLE, 2))
    Ledger({'ann': -2, 'bob': 2})
    """

    __slots__ = ("_points",)

    def __init__(self, points: Mapping[str, int] | Iterable[tuple[str, int]] = ()) -> None:
        self._points: dict[str, int] = dict(points)

    def __getitem__(self, player: str) -> int:
        return self._points[player]

    def __iter__(self) -> Iterator[str]:
        return iter(self._points)

    def __len__(self) -> int:
        return len(self._points)

    def __hash__(self) -> int:
        return hash(tuple(self._points.items()))

    def __repr__(self) -> str:
        return f"Ledger({self._points!r})"

    def total(self) -> int:
        """The sum of every balance: always 0."""
        return sum(self._points.values())

    def with_player(self, player: str) -> Ledger:
        """The ledger with an entry (at 0) for ``player`` if they have none yet."""
        if player in self._points:
            return self
        return Ledger({**self._points, player: 0})

    def credit(self, settlement: Settlement) -> Ledger:
        """The ledger after ``settlement``: the loser pays the winner."""
        points = dict(self._points)
        points[settlement.winner] = points.get(settlement.winner, 0) + settlement.points
        points[settlement.loser] = points.get(settlement.loser, 0) - settlement.points
        return Ledger(points)
