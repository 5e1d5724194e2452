"""Client commands: what a player asks a table to do.

Commands are decoded at the boundary with unknown fields rejected, so a typo in a field name is a
400, never a silently ignored option. Every string is a :data:`~events.domain.types.Name` or a
:data:`~events.domain.types.Text`, so a control character (NUL above all, which PostgreSQL text
cannot
hold) is a 400 naming the field, never an event. The acting player is never part of a command: it
comes from authentication. The dice are never part of a command either: the server rolls them.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from events.domain.types import (
    Channel,
    MoveT,
    Name,
    PlayerId,
    TableKind,
    TableOptions,
    Text,
    TournamentOptions,
)

Member = Annotated[Name, Meta(min_length=1, max_length=64)]
"""An account id the client names: a chouette member (a cube, a resignation's ``to``)."""
Cube = Annotated[Name, Meta(max_length=64)]
"""Chouette: the member whose cube is answered (the box answering); else ''."""


class Command(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True
):
    """Base of every command."""


class CreateTable(Command, frozen=True, kw_only=True, tag="create_table"):
    kind: TableKind
    options: TableOptions = TableOptions()
    name: Annotated[Name, Meta(max_length=100)] = ""


class Join(Command, frozen=True, kw_only=True, tag="join"):
    """Take a seat (0 or 1, or the first free one) or join a chouette's line."""

    seat: Annotated[int, Meta(ge=0, le=1)] | None = None
    display_name: Annotated[Name, Meta(max_length=64)] = ""
    bot: Annotated[
        bool,
        Meta(
            description="Filled in by the server from the account's bot mark (docs/bots.md):"
            " leave it out; a request that sets it is refused."
        ),
    ] = False
    """Whether the player sits as a bot (``player_joined.bot``): the server's to say, from the
    account (``server.http.handlers.run_command``), as ``Expire.absent`` is."""


class Leave(Command, frozen=True, kw_only=True, tag="leave"):
    """Leave the table: in mid-game a forfeit (docs/rules.md §10; the table view's
    ``leave_cost`` says what it would cost now)."""

    at_most: Annotated[int, Meta(ge=0, le=2**53)] | None = None
    """The most points the player agreed to lose by leaving (what the page showed them): when
    set, leaving is refused, and nothing happens, if it would cost more now (the opponent's
    last move turned a single game into a gammon, say, or the game started meanwhile)."""


class StartGame(Command, frozen=True, kw_only=True, tag="start_game"):
    """Start the next game (and, in a new chouette, throw for the line)."""


class AddSeed(Command, frozen=True, kw_only=True, tag="add_seed"):
    """Mix a seed of the player's own into this game's dice (before the first throw)."""

    seed: Annotated[Name, Meta(min_length=1, max_length=128)]


class WaiveSeed(Command, frozen=True, kw_only=True, tag="waive_seed"):
    """Add no seed to this game's dice, so the seed window need not wait for this player."""


class Expire(Command, frozen=True, kw_only=True, tag="expire"):
    """Judge the clocks now: a player whose clock has run out forfeits, an expired seed window
    closes, an overdue opening or line throw is thrown. The server's timer sends it; anyone may,
    since it is refused unless something has truly run out.

    ``absent`` is the server's to say: which of the table's players have no stream open to it
    (docs/rules.md §10, "Walking away"). A player out of time who is absent leaves the table
    when the game ends; with fewer than two players connected, nothing the table throws by
    itself (a seed window's close, an overdue opening or line throw) is thrown, nor does a
    chouette's next game start. The server fills it in, for its timer and for a client's
    ``expire`` alike (a client may not)."""

    absent: Annotated[list[Member], Meta(max_length=12)] = []


class Roll(Command, frozen=True, kw_only=True, tag="roll"):
    """Throw the dice (the opening throw too); the server supplies them."""


class Move(Command, frozen=True, kw_only=True, tag="move"):
    """Play checkers: either standard notation or a list of ``[from, to]`` moves."""

    notation: Annotated[Name, Meta(max_length=200)] | None = None
    moves: Annotated[list[MoveT], Meta(max_length=4)] | None = None


class Double(Command, frozen=True, kw_only=True, tag="double"):
    """Offer a double. In a chouette the box names the members whose cubes it turns (empty:
    every cube it may turn); a member doubles their own cube."""

    cubes: Annotated[list[Member], Meta(max_length=12)] = []


class Take(Command, frozen=True, kw_only=True, tag="take"):
    cube: Cube = ""
    """Chouette: the member whose cube is answered (the box answering); else ''."""


class Drop(Command, frozen=True, kw_only=True, tag="drop"):
    cube: Cube = ""


class Beaver(Command, frozen=True, kw_only=True, tag="beaver"):
    cube: Cube = ""


class Resign(Command, frozen=True, kw_only=True, tag="resign"):
    level: Annotated[int, Meta(ge=1, le=3)]
    to: Annotated[list[Member], Meta(max_length=12)] = []
    """Chouette: the box names the members it offers to (empty: all)."""


class Accept(Command, frozen=True, kw_only=True, tag="accept"):
    cube: Cube = ""


class Decline(Command, frozen=True, kw_only=True, tag="decline"):
    cube: Cube = ""


class Chat(Command, frozen=True, kw_only=True, tag="chat"):
    channel: Channel = "table"
    text: Annotated[Text, Meta(min_length=1, max_length=2000)]


AnyCommand = (
    CreateTable
    | Join
    | Leave
    | StartGame
    | AddSeed
    | WaiveSeed
    | Expire
    | Roll
    | Move
    | Double
    | Take
    | Drop
    | Beaver
    | Resign
    | Accept
    | Decline
    | Chat
)

COMMAND_DECODER: msgspec.json.Decoder[AnyCommand] = msgspec.json.Decoder(AnyCommand)

__all__ = ["COMMAND_DECODER", "AnyCommand", "Command", "PlayerId"]


# -- tournaments (docs/tournaments.md; decided by events.domain.tournament) ---------------------


class TournamentCommand(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True
):
    """Base of what is asked of a tournament (never a table's command)."""


class CreateTournament(TournamentCommand, frozen=True, kw_only=True, tag="create_tournament"):
    """Create a tournament; its creator is its director."""

    options: TournamentOptions
    name: Annotated[Name, Meta(max_length=100)] = ""


class EnterTournament(TournamentCommand, frozen=True, kw_only=True, tag="enter_tournament"):
    """Enter. ``rating`` and ``guest`` are the server's to say (the player's rating, from the
    ratings read model, and whether the account is a guest), never the client's."""

    rating: float = 1500.0
    guest: bool = False


class WithdrawTournament(TournamentCommand, frozen=True, kw_only=True, tag="withdraw_tournament"):
    """Leave the tournament: not paired again; a match still to play is forfeited."""


class StartTournament(TournamentCommand, frozen=True, kw_only=True, tag="start_tournament"):
    """The director closes the entries and the first round is paired."""


Round = Annotated[int, Meta(ge=1, le=255)]
Board = Annotated[int, Meta(ge=1, le=128)]


class RecordResult(TournamentCommand, frozen=True, kw_only=True, tag="record_result"):
    """The server records a board's result: its table's ``match_ended``, or a no-show. Only
    the server's reactor sends it (:data:`events.domain.tournament.SERVER`)."""

    round: Round
    board: Board
    winner: Member | None
    forfeit: bool = False
    how: Literal["match", "no_show"] = "match"


class AdjustResult(TournamentCommand, frozen=True, kw_only=True, tag="adjust_result"):
    """The director changes a decided board's result, for a reason."""

    round: Round
    board: Board
    winner: Member | None
    forfeit: bool = False
    reason: Annotated[Text, Meta(min_length=1, max_length=500)]


AnyTournamentCommand = (
    CreateTournament
    | EnterTournament
    | WithdrawTournament
    | StartTournament
    | RecordResult
    | AdjustResult
)
