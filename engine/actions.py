"""What a player can do, as one vocabulary for games, matches and chouettes.

A two-player :class:`~engine.game.Game` answers the game's subset (:meth:`Game.allowed
<engine.game.Game.allowed>`: the opening throw, the roll, the move and the cube and resignation
actions); a :class:`~engine.chouette.table.Chouette` adds the table's own (joining, leaving,
throwing for the line, starting a game, advising the captain). One enum, so a client, the server's
views and the bots name an action the same way whatever the table.

>>> Action("double") is Action.DOUBLE
True
>>> sorted(a.value for a in Action)[:3]
['accept', 'advise', 'beaver']
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Action"]


class Action(StrEnum):
    """Every action a player can take; the value is its name in the API."""

    JOIN = "join"
    """Sit down at a chouette (from the next game)."""
    LEAVE = "leave"
    """Leave a table. Before a game's first throw it costs nothing; in mid-game it forfeits
    (docs/rules.md §10)."""
    ORDER_THROW = "order_throw"
    """Throw one die for a chouette's line (the dice are the server's)."""
    START_GAME = "start_game"
    """Start a chouette's next game."""
    OPENING_THROW = "opening_throw"
    """Each side throws one die for the first move (the dice are the server's)."""
    ROLL = "roll"
    MOVE = "move"
    DOUBLE = "double"
    TAKE = "take"
    DROP = "drop"
    BEAVER = "beaver"
    RESIGN = "resign"
    ACCEPT = "accept"
    DECLINE = "decline"
    ADVISE = "advise"
    """Advise a chouette's captain on the team's channel (nothing changes in the state)."""
