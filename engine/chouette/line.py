"""The line: who is box, who is captain, who plays next (docs/rules.md §8).

Everyone throws one die for the order of the line (:class:`LineOrder`); the first is the box,
the second the captain, the rest the team in order. After each game the line rotates
(:func:`rotate`), and with a single cube a captain whose own game has ended hands the captaincy
on for good (:func:`pass_captaincy`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from engine.chouette.game import ChouetteGame
from engine.chouette.options import Side
from engine.errors import ChouetteError, InvalidDiceError
from engine.frozen import replace

__all__ = ["LineOrder", "pass_captaincy", "player_ids", "rotate"]


@dataclass(frozen=True, slots=True)
class LineOrder:
    """Everyone throws one die for the line; ties throw again among the tied players only.

    ``groups`` ranks the players, highest first; a group of more than one is a tie still to
    be thrown off. Within a group players keep the order in which they sat down.

    >>> o = LineOrder.start(["a", "b", "c", "d"]).throw({"a": 2, "b": 5, "c": 2, "d": 5})
    >>> o.ties
    (('b', 'd'), ('a', 'c'))
    >>> o = o.throw({"b": 1, "d": 4, "a": 6, "c": 3})
    >>> o.is_settled, o.line
    (True, ('d', 'b', 'a', 'c'))
    """

    groups: tuple[tuple[str, ...], ...] = ()

    @classmethod
    def start(cls, players: Iterable[str]) -> LineOrder:
        """Nobody has thrown yet: all of ``players`` are tied."""
        players = tuple(players)
        return cls((players,) if players else ())

    @property
    def ties(self) -> tuple[tuple[str, ...], ...]:
        """The groups still tied, highest first."""
        return tuple(g for g in self.groups if len(g) > 1)

    @property
    def to_throw(self) -> tuple[str, ...]:
        """Who throws in the next round: every tied player."""
        return tuple(p for g in self.ties for p in g)

    @property
    def is_settled(self) -> bool:
        return not self.ties

    @property
    def line(self) -> tuple[str, ...]:
        """The players in order, highest throw first (final once :attr:`is_settled`)."""
        return tuple(p for g in self.groups for p in g)

    def throw(self, throws: Mapping[str, int]) -> LineOrder:
        """One round: a die for each tied player (exactly those). Each tied group splits by
        its own throws; players who threw the same again stay tied.

        :raises ChouetteError: a throw missing, or from a player who is not tied.
        :raises InvalidDiceError: a die outside 1..6.
        """
        due = self.to_throw
        if not due:
            raise ChouetteError("the line is settled: nobody throws for it")
        extra = [p for p in throws if p not in due]
        if extra:
            raise ChouetteError(
                f"only the tied players throw again ({', '.join(due)}), not {', '.join(extra)}"
            )
        missing = [p for p in due if p not in throws]
        if missing:
            raise ChouetteError(f"waiting for the throw of {', '.join(missing)}")
        for p, die in throws.items():
            if not isinstance(die, int) or isinstance(die, bool) or not 1 <= die <= 6:
                raise InvalidDiceError(f"{p}'s die must be an integer from 1 to 6, got {die!r}")
        groups: list[tuple[str, ...]] = []
        for group in self.groups:
            if len(group) == 1:
                groups.append(group)
                continue
            for die in sorted({throws[p] for p in group}, reverse=True):
                groups.append(tuple(p for p in group if throws[p] == die))
        return LineOrder(tuple(groups))

    def without(self, player: str) -> LineOrder:
        """The order with ``player`` gone (they left before it was settled)."""
        groups = (tuple(p for p in g if p != player) for g in self.groups)
        return LineOrder(tuple(g for g in groups if g))


def player_ids(players: Iterable[str], what: str = "player") -> tuple[str, ...]:
    """``players`` as a tuple of ids, checked: each a non-empty string, none twice.

    :raises ChouetteError: one string instead of a collection, a bad id, or an id twice.
    """
    if isinstance(players, str):
        raise ChouetteError(f"{what}s must be a collection of ids, not one string: {players!r}")
    out = tuple(players)
    for p in out:
        if not isinstance(p, str) or not p:
            raise ChouetteError(f"a {what} id must be a non-empty string: {p!r}")
    dup = sorted({p for p in out if out.count(p) > 1})
    if dup:
        raise ChouetteError(f"{what}s named twice: {', '.join(dup)}")
    return out


def pass_captaincy(g: ChouetteGame, line: tuple[str, ...]) -> tuple[ChouetteGame, tuple[str, ...]]:
    """Single cube: once the captain's game has ended while others play on (and every member
    has answered the box's double), the first remaining member in line order is captain for
    good and the former captain goes to the bottom of the line."""
    captain = g.member(g.captain)
    assert captain is not None
    remaining = g.in_game
    if g.is_over or captain.in_game or not remaining:
        return g, line
    if any(
        m.in_game and m.pending is not None and m.pending.responder == Side.TEAM for m in g.members
    ):
        return g, line
    new = remaining[0]
    rest = [p for p in line[1:] if p not in (g.captain, new)]
    tail = [g.captain] if g.captain in line else []
    return replace(g, captain=new), (line[0], new, *rest, *tail)


def rotate(g: ChouetteGame, line: tuple[str, ...]) -> tuple[str, ...]:
    """docs/rules.md §8, rotation: if the box beat the captain it stays and the captain goes to the
    bottom of the line; otherwise the captain becomes the box and the old box goes to the
    bottom. Players who left are already out of ``line``; newcomers are in it, above the one
    sent to the bottom (Choice: the player rotated out goes below newcomers who joined during
    the game, as they go to the bottom at the end of it)."""
    box, captain = g.box, g.captain
    others = [p for p in line if p not in (box, captain)]
    order = [box, *others, captain] if g.box_won() else [captain, *others, box]
    return tuple(p for p in order if p in line)
