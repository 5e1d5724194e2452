"""The domain's events: every action at a table, as immutable msgspec structs.

One base, :class:`Event`, tagged by a ``type`` field; every event has an explicit, stable tag
(never derived from the class name, so renaming a class never changes stored data). Events are
frozen and keyword-only, and are always encoded with every field (never ``omit_defaults``), so
the stored bytes say everything.

Schema evolution (see msgspec's "schema evolution" guide): a new field gets a default; a
breaking change bumps the type's :attr:`Event.schema_version` and registers a pure upcaster in
:data:`UPCASTERS` that turns the old raw payload into the new one before decoding. Stored bytes
are never rewritten. Stored events tolerate unknown fields; client commands (``commands.py``)
reject them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Literal

import msgspec
from msgspec import Meta

Die = Annotated[int, Meta(ge=1, le=6)]
Dice = tuple[Die, Die]
PlayerId = Annotated[str, Meta(min_length=1, max_length=64)]
MoveT = tuple[Annotated[int, Meta(ge=0, le=25)], Annotated[int, Meta(ge=0, le=25)]]

TableKind = Literal["money", "match", "chouette"]
CubeMode = Literal["multiple", "single"]
Consultation = Literal["free", "none", "after_cube"]
Channel = Literal["table", "team"]


class TableOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The rules a table is created with (docs/rules.md §5–8)."""

    match_length: Annotated[int, Meta(ge=0, le=255)] = 0
    """Points to win a match; 0 for money play and chouettes."""
    auto_doubles: Annotated[int, Meta(ge=0, le=6)] = 0
    """Automatic doubles on tied opening throws, up to this many (0: off). Money only."""
    beavers: bool = False
    jacoby: bool = False
    cube_mode: CubeMode = "multiple"
    """Chouette: one cube per member (default) or one shared cube."""
    consultation: Consultation = "free"
    """Chouette: who may advise the captain."""
    box_must_take_half: bool = False
    """Chouette house rule: doubled on several initial cubes at once, the box takes at least
    half or drops all."""
    max_players: Annotated[int, Meta(ge=0, le=12)] = 0
    """Seats: 0 means the kind's default (2 for money and match tables, 8 for a chouette);
    a chouette takes 2 to 12."""


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every stored event."""

    schema_version: ClassVar[int] = 1
    """The version of this event type's payload; bump it with an upcaster in UPCASTERS."""


# -- the table's life -------------------------------------------------------------------------


class TableCreated(Event, frozen=True, kw_only=True, tag="table_created"):
    table_id: str
    kind: TableKind
    options: TableOptions
    created_by: PlayerId
    name: str = ""


class PlayerJoined(Event, frozen=True, kw_only=True, tag="player_joined"):
    """A player takes a seat (money, match) or joins the chouette (bottom of the line, playing
    from the next game)."""

    player: PlayerId
    display_name: str = ""
    seat: int | None = None
    """The seat at a two-player table (0 or 1); None in a chouette."""


class PlayerLeft(Event, frozen=True, kw_only=True, tag="player_left"):
    """A player leaves. In a game this also ends their part of it (see the chouette rules)."""

    player: PlayerId


class LineThrow(Event, frozen=True, kw_only=True, tag="line_throw"):
    """Chouette: one die each for the players still tied, to order the line."""

    throws: dict[str, Die]


class GameStarted(Event, frozen=True, kw_only=True, tag="game_started"):
    game: int
    """The game's number at this table, from 1."""
    dice_commitment: str = ""
    """SHA-256 (hex) of the server's secret dice seed for this game (provably fair dice)."""
    players: list[str] = []
    """Who plays this game: the seats, or the chouette line (box first)."""


class ClientSeedAdded(Event, frozen=True, kw_only=True, tag="client_seed_added"):
    """A player's own seed, mixed into the game's dice key before the first throw."""

    player: PlayerId
    game: int
    seed: Annotated[str, Meta(min_length=1, max_length=128)]


class OpeningThrow(Event, frozen=True, kw_only=True, tag="opening_throw"):
    """One die each: seat 0 then seat 1, or in a chouette the box then the captain."""

    dice: Dice


class DiceRolled(Event, frozen=True, kw_only=True, tag="dice_rolled"):
    player: PlayerId
    dice: Dice


class CheckersMoved(Event, frozen=True, kw_only=True, tag="checkers_moved"):
    player: PlayerId
    moves: list[MoveT]
    notation: str = ""


class CubeOffered(Event, frozen=True, kw_only=True, tag="cube_offered"):
    """A double. In a chouette ``cubes`` names the members whose cubes are turned (the box
    doubling some or all; a member doubling their own)."""

    player: PlayerId
    cubes: list[str] = []


class CubeTaken(Event, frozen=True, kw_only=True, tag="cube_taken"):
    player: PlayerId
    cube: str = ""
    """Chouette: the member whose cube it is ('' at a two-player table)."""


class CubeDropped(Event, frozen=True, kw_only=True, tag="cube_dropped"):
    player: PlayerId
    cube: str = ""


class CubeBeavered(Event, frozen=True, kw_only=True, tag="cube_beavered"):
    player: PlayerId
    cube: str = ""


class ResignationOffered(Event, frozen=True, kw_only=True, tag="resignation_offered"):
    player: PlayerId
    level: Annotated[int, Meta(ge=1, le=3)]
    to: list[str] = []
    """Chouette: the members the offer is made to (the box offering), or []."""


class ResignationAccepted(Event, frozen=True, kw_only=True, tag="resignation_accepted"):
    player: PlayerId
    cube: str = ""


class ResignationDeclined(Event, frozen=True, kw_only=True, tag="resignation_declined"):
    player: PlayerId
    cube: str = ""


class Settlement(msgspec.Struct, frozen=True, kw_only=True):
    """What one player won (positive) or lost (negative) in a game."""

    player: str
    amount: int
    reason: str = ""


class GameEnded(Event, frozen=True, kw_only=True, tag="game_ended"):
    """The game is over. ``settlements`` sum to zero; ``seed`` reveals the dice seed."""

    game: int
    winner: str = ""
    result: int = 1
    """1 single, 2 gammon, 3 backgammon (as counted)."""
    cube: int = 1
    how: str = ""
    settlements: list[Settlement] = []
    seed: str = ""
    """The revealed dice seed (hex), checkable against the game's commitment."""


class LineRotated(Event, frozen=True, kw_only=True, tag="line_rotated"):
    """Chouette: the line after a game (box first, then the captain...)."""

    line: list[str]


class MatchEnded(Event, frozen=True, kw_only=True, tag="match_ended"):
    winner: str
    score: list[int]


class ChatPosted(Event, frozen=True, kw_only=True, tag="chat_posted"):
    """A chat message, in the table's chat stream (never the play stream)."""

    player: PlayerId
    channel: Channel = "table"
    text: Annotated[str, Meta(min_length=1, max_length=2000)]
    game: int = 0
    """The game it was posted during (0: between games)."""
    audience: list[str] = []
    """Team channel: who may read it, fixed when it was posted (the team of that game), so a
    later box never reads advice given against it. Empty on the table channel: everyone."""


AnyEvent = (
    TableCreated
    | PlayerJoined
    | PlayerLeft
    | LineThrow
    | GameStarted
    | ClientSeedAdded
    | OpeningThrow
    | DiceRolled
    | CheckersMoved
    | CubeOffered
    | CubeTaken
    | CubeDropped
    | CubeBeavered
    | ResignationOffered
    | ResignationAccepted
    | ResignationDeclined
    | GameEnded
    | LineRotated
    | MatchEnded
    | ChatPosted
)

EVENT_TYPES: dict[str, type[Event]] = {cls.__struct_config__.tag: cls for cls in AnyEvent.__args__}
"""Every event class by its tag."""

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
UPCASTERS: dict[tuple[str, int], Upcaster] = {}
"""``(tag, from_version) -> upcaster`` turning a raw payload of that version into the next."""

_encoder = msgspec.json.Encoder()
_decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(AnyEvent)


def encode(event: Event) -> bytes:
    """The exact bytes to store for ``event`` (its tag included)."""
    return _encoder.encode(event)


def tag(event: Event) -> str:
    """The stable tag of an event."""
    return event.__struct_config__.tag  # type: ignore[return-value]


def decode(type_: str, schema_version: int, data: bytes) -> Event:
    """Decode a stored event, upcasting an old payload first.

    :raises msgspec.ValidationError, msgspec.DecodeError: a payload that does not decode
        (the store wraps these in ``CorruptEventError`` naming stream and version).
    :raises KeyError: an unknown event type.
    """
    cls = EVENT_TYPES[type_]
    if schema_version == cls.schema_version:
        event: Event = _decoder.decode(data)
        return event
    raw = msgspec.json.decode(data)
    version = schema_version
    while version < cls.schema_version:
        raw = UPCASTERS[(type_, version)](raw)
        version += 1
    if version != cls.schema_version:
        raise msgspec.ValidationError(
            f"{type_} payload has schema version {schema_version}, newer than this server's "
            f"{cls.schema_version}"
        )
    raw["type"] = type_
    event = msgspec.convert(raw, AnyEvent)
    return event
