"""What every kind of table shares: its state, the errors a command can meet, the dice it is
given, and the few steps money, match and chouette tables take alike (a game starts, a player
adds a seed).

:class:`TableState` is only ever built by folding events (:func:`events.decider.fold`); the
rules of each kind live in :mod:`events.duel_table` (money and match) and
:mod:`events.chouette_table`, and :mod:`events.decider` dispatches between them. This module
imports neither, so each of them can import it (docs/design.md, "Dependencies point one way").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from engine.chouette import Chouette
from engine.errors import IllegalActionError, NotYourTurnError
from engine.frozen import replace
from engine.game import Game
from engine.match import Match
from events import commands as c
from events import types as e

__all__ = [
    "ChatNotAllowedError",
    "CommandError",
    "CommandIdReusedError",
    "DiceSource",
    "InvalidCommandError",
    "NotAllowedError",
    "TableExistsError",
    "TableNotFoundError",
    "TableState",
    "add_seed",
    "evolve_seed",
    "game_started",
    "start_game",
]


# -- errors -----------------------------------------------------------------------------------
# Domain errors only: the HTTP layer maps each to its problem response (server/problems.py).


class CommandError(IllegalActionError):
    """A command that does not fit the table (not seated, no such seat, wrong kind...)."""


class InvalidCommandError(CommandError):
    """A command whose shape does not fit this table whatever its state: a field that does
    not apply, two fields where one is expected (like a malformed body)."""


class NotAllowedError(NotYourTurnError):
    """The actor's role at this table does not allow the command."""


class TableNotFoundError(CommandError):
    """No table has this id (nothing was ever recorded in its stream)."""

    def __init__(self, table_id: str) -> None:
        super().__init__(f"no table {table_id!r}")
        self.table_id = table_id


class TableExistsError(CommandError):
    """A table was to be created under an id that another command already used."""

    def __init__(self, table_id: str) -> None:
        super().__init__("the table already exists")
        self.table_id = table_id


class CommandIdReusedError(CommandError):
    """A command id already recorded for another command (another stream, another actor, or
    the same actor saying something else): a client reusing ids, never a retry.

    Unlike the store's :class:`~events.errors.CommandReusedError`, the message says nothing of
    the first command: not its stream (maybe another table's), not its actor, not its events."""

    def __init__(self, command_id: object) -> None:
        super().__init__(f"command id {command_id} was already used for another command")
        self.command_id = command_id


class ChatNotAllowedError(NotAllowedError):
    """The actor may not post on this channel of the table's chat (not at the table, or not on
    the team now)."""


# -- dice -------------------------------------------------------------------------------------


class DiceSource(Protocol):
    """Where a table's dice come from: provably fair in production (:class:`events.dice.FairDice`,
    given the seeds of the games a command may touch), scripted in tests. An input of
    :func:`events.decider.decide`, which stays pure: every throw can be derived again."""

    def commitment(self, game: int) -> str:
        """The published hash of the seed for ``game``."""
        ...

    def die(self, game: int, counter: int) -> int:
        """The ``counter``-th die (from 0) thrown in ``game``, 1..6."""
        ...

    def reveal(self, game: int) -> str:
        """The seed of ``game``, revealed when it ends."""
        ...


# -- state ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableState:
    """A table's state: only ever built by folding its events."""

    version: int = 0
    """The number of events folded (the stream version)."""
    table_id: str = ""
    kind: str = ""
    options: e.TableOptions = e.TableOptions()
    created_by: str = ""
    name: str = ""
    seats: tuple[str | None, str | None] = (None, None)
    """Money and match tables: who sits in seats 0 and 1."""
    members: tuple[str, ...] = ()
    """Chouette: everyone at the table, in join order (the line is in :attr:`chouette`)."""
    names: tuple[tuple[str, str], ...] = ()
    """Display names, as (player, name) pairs."""
    match: Match | None = None
    """Money and match tables: the score and the current game."""
    chouette: Chouette | None = None
    """Chouette tables: the line, the cubes, the game and the ledger."""
    game_no: int = 0
    in_game: bool = False
    dice_counter: int = 0
    """Dice thrown so far in the current game (the provably-fair counter)."""
    commitment: str = ""
    client_seeds: tuple[str, ...] = ()
    """Seeds the players mixed into this game's dice, in order."""
    match_winner: str = ""
    ledger: tuple[tuple[str, int], ...] = ()
    """Money won (positive) and lost per player over the table's life."""

    @property
    def max_players(self) -> int:
        if self.options.max_players:
            return self.options.max_players
        return 8 if self.kind == "chouette" else 2

    @property
    def players(self) -> tuple[str, ...]:
        """Everyone seated or in the chouette."""
        if self.kind == "chouette":
            return self.members
        return tuple(p for p in self.seats if p is not None)

    @property
    def game(self) -> Game | None:
        return self.match.game if self.match else None

    def seat_of(self, player: str) -> int | None:
        for i, p in enumerate(self.seats):
            if p == player:
                return i
        return None

    def display_name(self, player: str) -> str:
        return dict(self.names).get(player, player)


# -- what every kind decides alike ------------------------------------------------------------


def start_game(state: TableState, dice: DiceSource, players: list[str]) -> e.GameStarted:
    """The next game starts, committed to its dice seed before any die is thrown
    (docs/dice.md)."""
    number = state.game_no + 1
    return e.GameStarted(game=number, dice_commitment=dice.commitment(number), players=players)


def add_seed(state: TableState, actor: str, cmd: c.AddSeed) -> e.ClientSeedAdded:
    """A player's seed for the current game, accepted only before its first throw (so the
    server, having committed first, cannot choose the throws after seeing it)."""
    if not state.in_game:
        raise CommandError("no game in progress")
    if state.dice_counter:
        raise CommandError("seeds can only be added before the game's first throw")
    return e.ClientSeedAdded(player=actor, game=state.game_no, seed=cmd.seed)


# -- what every kind folds alike --------------------------------------------------------------


def game_started(s: TableState, event: e.GameStarted, **changes: Any) -> TableState:
    """The state as a game starts (for every kind of table): its number, commitment, a fresh
    dice counter and no client seeds yet, plus the kind's own ``changes``."""
    return replace(
        s,
        game_no=event.game,
        in_game=True,
        dice_counter=0,
        commitment=event.dice_commitment,
        client_seeds=(),
        **changes,
    )


def evolve_seed(s: TableState, event: e.ClientSeedAdded) -> TableState:
    """A client seed joins the current game's, in order; one recorded after the first throw
    does not fit the rules (an audit reports it)."""
    if not s.in_game or s.dice_counter or event.game != s.game_no:
        raise IllegalActionError("a client seed recorded after the game's first throw")
    return replace(s, client_seeds=(*s.client_seeds, event.seed))
