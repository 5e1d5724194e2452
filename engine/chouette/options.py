"""A chouette's vocabulary and the rules it is set up with (docs/rules.md §6, §8).

>>> ChouetteOptions(cubes=CubeMode.SINGLE).single
True
>>> ChouetteOptions(auto_doubles=7)
Traceback (most recent call last):
...
engine.errors.ChouetteError: automatic doubles limit must be 0 to 6: 7
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, StrEnum

from engine.actions import Action
from engine.errors import ChouetteError

__all__ = ["TARGETED_ACTIONS", "ChouetteOptions", "Consultation", "CubeMode", "Side"]


class Side(IntEnum):
    """The two sides of the board. In a member's :class:`~engine.game.Cube` and
    :class:`~engine.game.PendingDouble` these are the "players" 0 and 1: the box and that member
    (with a single cube, the team)."""

    BOX = 0
    TEAM = 1


class CubeMode(StrEnum):
    """How the team's cubes work (docs/rules.md §8)."""

    MULTIPLE = "multiple"
    """Every team member has a cube of their own against the box (the default)."""
    SINGLE = "single"
    """The team shares one cube; the captain decides the team's doubles."""


class Consultation(StrEnum):
    """Who on the team may advise the captain (docs/rules.md §8)."""

    FREE = "free"
    """Every member still in the game, throughout."""
    NONE = "none"
    """Nobody."""
    AFTER_CUBE = "after_cube"
    """A member whose own cube has been turned (offered and taken): "no cube, no talk"."""


TARGETED_ACTIONS = frozenset(
    {
        Action.DOUBLE,
        Action.TAKE,
        Action.DROP,
        Action.BEAVER,
        Action.RESIGN,
        Action.ACCEPT,
        Action.DECLINE,
    }
)
"""The actions on one member's cube: the box names the member
(:meth:`~engine.chouette.table.Chouette.targets` says which), a member acts on their own."""


@dataclass(frozen=True, slots=True)
class ChouetteOptions:
    """The rules a chouette is played under, chosen when it is set up (docs/rules.md §6, §8)."""

    cubes: CubeMode = CubeMode.MULTIPLE
    consultation: Consultation = Consultation.FREE
    """Choice: free consultation unless the table says otherwise; docs/rules.md names no
    default."""
    auto_doubles: int = 0
    """How many automatic doubles tied opening throws may make (0: off); every member's cube."""
    beavers: bool = False
    jacoby: bool = False
    """Gammons count single on a member's cube until that cube has been offered and taken."""
    box_must_take_half: bool = False
    """House rule: a box doubled on several initial cubes at once takes at least half or drops
    them all (see :meth:`~engine.chouette.table.Chouette.take`)."""

    def __post_init__(self) -> None:
        if not isinstance(self.cubes, CubeMode):
            raise ChouetteError(f"cube mode must be multiple or single: {self.cubes!r}")
        if not isinstance(self.consultation, Consultation):
            raise ChouetteError(
                f"consultation must be free, none or after_cube: {self.consultation!r}"
            )
        if (
            not isinstance(self.auto_doubles, int)
            or isinstance(self.auto_doubles, bool)
            or not 0 <= self.auto_doubles <= 6
        ):
            raise ChouetteError(f"automatic doubles limit must be 0 to 6: {self.auto_doubles!r}")

    @property
    def single(self) -> bool:
        return self.cubes is CubeMode.SINGLE
