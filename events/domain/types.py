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

import hashlib
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

# -- strings from clients ---------------------------------------------------------------------
#
# Every string a client sends is one of these, so that what PostgreSQL text cannot hold (NUL)
# and what no name needs (control characters) is refused when the request is decoded — a 400
# naming the field — and never reaches a read model to poison it. The patterns are written for
# Python's `re` and ECMA-262 alike, since the OpenAPI document shows them to clients: the end of
# the string is `(?![\s\S])`, because Python's `$` lets a trailing newline through and `\Z`
# is not ECMA-262. (JSON cannot carry a lone surrogate into a str: msgspec refuses it.)
#
# Stored events keep plain `str` on purpose: an event is read as it was stored, forever, and a
# rule added later must not make a stored event unreadable.

END_OF_STRING = r"(?![\s\S])"
"""Matches only at the end of the string, in Python and ECMA-262 regexes (see above)."""

NAME_PATTERN = r"^[^\x00-\x1f\x7f-\x9f]*" + END_OF_STRING
"""No control character at all (C0, DEL, C1): names, ids, seeds, notation, passwords."""

TEXT_PATTERN = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*" + END_OF_STRING
"""No control character but tab and newline: free text (chat)."""

Name = Annotated[str, Meta(pattern=NAME_PATTERN)]
"""A one-line string from a client: a name, an id, a seed. Add a length with another
``Annotated[Name, Meta(max_length=...)]``."""

Text = Annotated[str, Meta(pattern=TEXT_PATTERN)]
"""Free text from a client (chat): lines and tabs, but no other control character."""


class ClockOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A table's clocks (docs/rules.md §10): each decision's delay, then the player's reserve;
    a player whose reserve runs out forfeits."""

    delay: Annotated[int, Meta(ge=0, le=600, description="Seconds per decision, used first.")] = 12
    reserve: Annotated[
        int, Meta(ge=0, le=7200, description="Seconds each player has in reserve, after delays.")
    ] = 120
    reserve_per_point: Annotated[
        int, Meta(ge=0, le=600, description="Matches: reserve seconds added per point of length.")
    ] = 0
    reserve_per_game: Annotated[
        bool | None,
        Meta(
            description="Whether each game starts with a whole reserve: true at money tables"
            " and chouettes, false in a match (whose reserve lasts the match). Omitted: the rule"
            " for the table's kind, which the server records."
        ),
    ] = None
    """Whether each player's reserve is restored at the start of each game (docs/rules.md §10,
    "Whose reserve"): true at money tables and chouettes, false in a match, whose reserve lasts
    the whole match; any other value is refused. None in a request: the server records the
    rule for the table's kind (:func:`events.domain.clocks.with_reserve_rule`). None in a stored
    event
    (tables created before the rule): never restored, the reserve lasting the table's life, as
    their clocks were judged when their events were decided."""


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
    registered_only: Annotated[
        bool,
        Meta(
            description="Only registered accounts may join (guests are refused with a 403), so"
            " that nobody takes two places at the table as throwaway guests."
        ),
    ] = False
    """Only registered accounts may join: a guest's ``join`` is refused by the server, which
    knows who is a guest (docs/design.md, "How a command travels"), so that one person cannot
    take two places (the box and a team seat, say) as throwaway guests. Any kind of table; to be
    on for rated tables once there are ratings (issue 15)."""
    rated: Annotated[
        bool,
        Meta(
            description="Match tables: the match is rated (FIBS formula) when both players are"
            " registered accounts; a rated table is for registered accounts only."
        ),
    ] = False
    """A rated match (docs/social.md): rated when both its players are registered accounts
    (not guests, not bots). The server turns ``registered_only`` on with it. Matches only."""
    bots_rated: Annotated[
        bool,
        Meta(
            description="Rated matches: a player who sits as a bot account (docs/bots.md,"
            " 'Outside bots') is rated too. Without it a match where either player sat as a"
            " bot is not rated, against a person or another bot. Only with `rated`; the"
            " server's own bots are never rated."
        ),
    ] = False
    """A rated match rates its players even when one (or both) sat as a bot account
    (``player_joined.bot``; docs/bots.md, "Outside bots"); without it such a match is not
    rated. Only with ``rated``. The server's own bots (``b_...``) are never rated."""
    private: Annotated[
        bool,
        Meta(
            description="Not in the lobby: joined and watched only with an invitation code"
            " from its creator (POST /tables/{id}/invitations)."
        ),
    ] = False
    """A private table (docs/social.md): not in the lobby, and for anyone but its creator,
    its players and the holders of a live invitation, a 404 as if it did not exist."""
    seed_window: (
        Annotated[
            int,
            Meta(
                ge=0,
                le=60,
                description="Seconds each game's players have to add a dice seed of their own"
                " (or waive) before its first throw; no die is thrown before the window closes."
                " 0 turns the waiting off. Omitted: the server's default (5 s unless configured).",
            ),
        ]
        | None
    ) = None
    """The seed window before each game's first throw, in seconds (docs/dice.md): each of the
    game's players adds a seed or waives; it closes when all have answered or when this time
    has passed, and no die is thrown before it closes. 0: no waiting (a seed may still be added
    before the first throw). None in a request: the server's default, which it records in
    ``table_created``; None in a stored event (tables created before the window existed): 0."""
    clock: (
        Annotated[
            ClockOptions,
            Meta(description="The table's clocks: a delay per decision, then a reserve."),
        ]
        | Literal["off"]
        | None
    ) = None
    """The table's clocks (docs/rules.md §10), or ``"off"``. None in a request: the server's
    default for the table's kind, which it records in ``table_created``; None in a stored event
    (tables created before clocks existed): off."""


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every stored event."""

    schema_version: ClassVar[int] = 1
    """The version of this event type's payload; bump it with an upcaster in UPCASTERS."""
    at: int = 0
    """When the server decided it, in milliseconds since the Unix epoch: the time the decider
    was given with the command (every event of one command has the same). Deadlines (the seed
    window, clocks) are judged by these times, so an audit can check them. 0 in events
    recorded before times were kept."""


# -- the table's life -------------------------------------------------------------------------


class TableCreated(Event, frozen=True, kw_only=True, tag="table_created"):
    """A table is created. ``name`` is its creator's words, sealed under their data key
    (:data:`SEALED_FIELDS`; schema 2: schema 1 stored it in the clear)."""

    schema_version: ClassVar[int] = 2
    table_id: str
    kind: TableKind
    options: TableOptions
    created_by: PlayerId
    name: str = ""


class PlayerJoined(Event, frozen=True, kw_only=True, tag="player_joined"):
    """A player takes a seat (money, match) or joins the chouette (bottom of the line, playing
    from the next game). ``display_name`` is sealed under the player's data key
    (:data:`SEALED_FIELDS`; schema 2: schema 1 stored it in the clear)."""

    schema_version: ClassVar[int] = 2
    player: PlayerId
    display_name: str = ""
    seat: int | None = None
    """The seat at a two-player table (0 or 1); None in a chouette."""
    bot: bool = False
    """The player sat as a bot (docs/bots.md): an account its owner marked as one, played by
    an outside program, or one of the server's own (``b_...``). Set by the server from the
    account, never by the player; false in events recorded before it was (the server's own
    bots are then told by their ids). The table view, the lobby and the ratings read it."""


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
    """Who plays this game: the seats, or the chouette line (box first); for a chouette's
    first game, whose line is thrown for next, everyone at the table in join order."""


class ClientSeedAdded(Event, frozen=True, kw_only=True, tag="client_seed_added"):
    """A player's own seed, mixed into the game's dice key before the first throw."""

    player: PlayerId
    game: int
    seed: Annotated[str, Meta(min_length=1, max_length=128)]


class ClientSeedWaived(Event, frozen=True, kw_only=True, tag="client_seed_waived"):
    """A player adds no seed to this game's dice and says so, so the seed window need not wait
    for them."""

    player: PlayerId
    game: int


class SeedWindowClosed(Event, frozen=True, kw_only=True, tag="seed_window_closed"):
    """The seed window of a game closed: every player answered (``missing`` empty), or its time
    ran out and ``missing`` names who neither added a seed nor waived. The game's dice may be
    thrown only after this event."""

    game: int
    missing: list[str] = []


class TimeExpired(Event, frozen=True, kw_only=True, tag="time_expired"):
    """A player's clock ran out (their delay and reserve used up): they forfeit as if they had
    left in mid-game (docs/rules.md §10). Decided only when the recorded times show the clock
    ran out. A player who was connected stays at the table; one who was not (``absent``) leaves
    it when the game ends (``player_left`` then, docs/rules.md §10, "Walking away")."""

    player: PlayerId
    absent: bool = False
    """The player had no stream open to the table when their time ran out, as the server's
    timer saw it (the ``absent`` of its ``expire``): they leave the table when this game ends.
    False in events recorded before the rule."""


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
    """A double.

    In a chouette ``cubes`` names every member whose cube is turned: the box's choice (all the
    cubes it may turn when it named none), a member's own cube, or with a single cube the
    whole team's. Empty at a two-player table. Schema 1 left it empty when the box doubled
    every cube it could (an auditor folding the state resolves those)."""

    schema_version: ClassVar[int] = 2
    player: PlayerId
    cubes: list[str] = []


class Answer(Event, frozen=True, kw_only=True):
    """An answer to a double or to a resignation offer.

    In a chouette ``cube`` names the member whose cube is answered, and ``cubes`` every member
    the answer covers: that one member, or with a single cube and the box answering the
    team's double, the whole team (then ``cube`` is ''). Both are empty at a two-player table.
    Schema 1 left ``cube`` empty for a member's answer on their own cube and had no
    ``cubes``."""

    schema_version: ClassVar[int] = 2
    player: PlayerId
    cube: str = ""
    cubes: list[str] = []


class CubeTaken(Answer, frozen=True, kw_only=True, tag="cube_taken"):
    pass


class CubeDropped(Answer, frozen=True, kw_only=True, tag="cube_dropped"):
    pass


class CubeBeavered(Answer, frozen=True, kw_only=True, tag="cube_beavered"):
    pass


class ResignationOffered(Event, frozen=True, kw_only=True, tag="resignation_offered"):
    """A resignation offer of a single (1), gammon (2) or backgammon (3).

    In a chouette ``to`` names every member the offer concerns: the members the box offers it
    to (all it may when it named none), or the member offering to the box. Empty at a
    two-player table. Schema 1 left it empty for a member's offer and for the box's offer to
    everyone."""

    schema_version: ClassVar[int] = 2
    player: PlayerId
    level: Annotated[int, Meta(ge=1, le=3)]
    to: list[str] = []


class ResignationAccepted(Answer, frozen=True, kw_only=True, tag="resignation_accepted"):
    pass


class ResignationDeclined(Answer, frozen=True, kw_only=True, tag="resignation_declined"):
    pass


class Settlement(msgspec.Struct, frozen=True, kw_only=True):
    """What one player won (positive) or lost (negative) in a game."""

    player: str
    amount: int
    reason: str = ""


class MemberResult(msgspec.Struct, frozen=True, kw_only=True):
    """A chouette member's game against the box, as it was settled."""

    member: str
    winner: str
    """The box's id or the member's."""
    loser: str
    result: int
    """1 single, 2 gammon, 3 backgammon, as counted on this member's cube (Jacoby per cube)."""
    cube: int
    """The member's cube value the game was settled at."""
    points: int
    """result × cube: what the loser paid the winner."""
    how: str
    """drop, resign, bear_off or forfeit (``leave`` in events recorded before forfeits)."""


class GameEnded(Event, frozen=True, kw_only=True, tag="game_ended"):
    """The game is over. ``settlements`` sum to zero; ``seed`` reveals the dice seed.

    At a two-player table ``winner`` won ``result`` × ``cube`` = the points, ``how`` says why.
    In a chouette the board's end is the last member's game settled: ``winner`` is who won it
    (the box, or the member who bore off or whose double or resignation ended it), ``result``
    and ``cube`` are that game's, and ``members`` gives every member's own game: the result,
    the cube and the points on each member's cube. Who keeps the box follows in
    ``line_rotated``. Schema 1 chouette events named the rotation's winner and always said
    ``result`` 1, ``cube`` 1, with no ``members``."""

    schema_version: ClassVar[int] = 2
    game: int
    winner: str = ""
    result: int = 1
    """1 single, 2 gammon, 3 backgammon (as counted)."""
    cube: int = 1
    how: str = ""
    settlements: list[Settlement] = []
    members: list[MemberResult] = []
    """Chouette: every member's game against the box, in the order they were settled."""
    seed: str = ""
    """The revealed dice seed (hex), checkable against the game's commitment."""


class LineRotated(Event, frozen=True, kw_only=True, tag="line_rotated"):
    """Chouette: the line after a game (box first, then the captain...), without those who
    left as it ended (who ran out of time while not connected, docs/rules.md §10)."""

    line: list[str]
    absent: list[str] = []
    """A game the clock ended (an ``expire``): who of ``line`` had no stream open to the table
    then, as the server's timer saw it. The next game starts by itself only when at least two
    of the line are connected; otherwise none follows until a player starts it (docs/rules.md
    §10, "Walking away"). Empty after a player's command, and in events recorded before the
    rule."""


class MatchEnded(Event, frozen=True, kw_only=True, tag="match_ended"):
    winner: str
    score: list[int]


class ChatPosted(Event, frozen=True, kw_only=True, tag="chat_posted"):
    """A chat message, in the table's chat stream (never the play stream). ``text`` is sealed
    under the player's data key (:data:`SEALED_FIELDS`; schema 2: schema 1 stored it in the
    clear)."""

    schema_version: ClassVar[int] = 2
    player: PlayerId
    channel: Channel = "table"
    text: Annotated[str, Meta(min_length=1, max_length=2000)]
    game: int = 0
    """The game it was posted during (0: between games)."""
    audience: list[str] = []
    """Team channel: who may read it, fixed when it was posted (the team of that game), so a
    later box never reads advice given against it. Empty on the table channel: everyone."""


class AccountErased(Event, frozen=True, kw_only=True, tag="account_erased"):
    """An account was erased (docs/privacy.md): its data key is destroyed, so whatever it typed
    into any event reads as its pseudonym, no table name or ``[erased]`` from now on. In the
    account's own stream (``account-<id>``); nothing personal in it."""

    account: PlayerId


# -- tournaments (docs/tournaments.md) --------------------------------------------------------
#
# A tournament's stream (``tournament-<id>``) holds these only; its state is the fold of them
# through engine.tournament's rules (events/domain/tournament.py). The limits are the engine's
# (engine/tournament/facts.py), written out here so that the request schema shows them.

TournamentFormat = Literal["knockout", "swiss", "round_robin"]


class TournamentOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The rules a tournament is created with (docs/tournaments.md)."""

    format: TournamentFormat
    rounds: (
        Annotated[int, Meta(ge=1, le=20, description="Swiss only: its number of rounds.")] | None
    ) = None
    third_place: Annotated[
        bool, Meta(description="Knockout only: the semi-finals' losers play for third.")
    ] = False
    match_length: Annotated[
        int, Meta(ge=1, le=25, description="Points to win each match of the tournament.")
    ] = 3
    rated: Annotated[
        bool,
        Meta(description="Its matches are rated: for registered accounts only (no guest)."),
    ] = False
    private: Annotated[
        bool,
        Meta(
            description="Not listed: seen only by its director and the accounts they"
            " invited (`invited`); its match tables are private tables."
        ),
    ] = False
    invited: Annotated[
        list[Annotated[str, Meta(min_length=1, max_length=64, pattern=NAME_PATTERN)]],
        Meta(max_length=256, description="A private tournament: the account ids invited."),
    ] = []
    max_field: (
        Annotated[
            int,
            Meta(
                ge=2,
                le=256,
                description="The most entrants (at most 256; a round robin 32). Omitted:"
                " the format's most.",
            ),
        ]
        | None
    ) = None
    entries_close: (
        Annotated[
            int,
            Meta(
                ge=0,
                le=2**53,
                description="When entries close, in milliseconds since the Unix epoch."
                " Omitted: open until the director starts the tournament.",
            ),
        ]
        | None
    ) = None
    show_seconds: Annotated[
        int,
        Meta(
            ge=5,
            le=86_400,
            description="A match nobody has started (no opening throw) this many seconds"
            " after its round was paired is decided as both players' no-show.",
        ),
    ] = 600
    clock: (
        Annotated[ClockOptions, Meta(description="The match tables' clocks.")]
        | Literal["off"]
        | None
    ) = None
    """The match tables' clocks (docs/rules.md §10); None in a request: the server's default
    for a match, which it records."""


class TournamentCreated(Event, frozen=True, kw_only=True, tag="tournament_created"):
    """A tournament is created by its director, with its rules: its stream's first event.
    ``name`` is the director's words, sealed under their data key (:data:`SEALED_FIELDS`)."""

    tournament_id: str
    options: TournamentOptions
    created_by: PlayerId
    name: str = ""


class TournamentEntered(Event, frozen=True, kw_only=True, tag="tournament_entered"):
    """A player entered, seeded by ``rating`` (their rating as they entered)."""

    player: PlayerId
    rating: float = 1500.0


class TournamentWithdrew(Event, frozen=True, kw_only=True, tag="tournament_withdrew"):
    """A player left the tournament: not paired again, a match still to play forfeited."""

    player: PlayerId


class PairedBoard(msgspec.Struct, frozen=True, kw_only=True):
    """One board of a paired round: ``a`` plays ``b`` at ``table_id``, or has the bye (``b``
    and ``table_id`` null)."""

    a: str
    b: str | None = None
    table_id: str | None = None


class TournamentRoundPaired(Event, frozen=True, kw_only=True, tag="tournament_round_paired"):
    """Round ``round`` (from 1) was paired as the rules pair it (the audit pairs it again):
    its boards in order, each with the match table the tournament creates for it."""

    round: int
    boards: list[PairedBoard]


class TournamentResult(Event, frozen=True, kw_only=True, tag="tournament_result"):
    """A board was decided: ``winner`` won (null: nobody, both forfeited). ``how``: ``match``
    (its table's ``match_ended``), ``no_show`` (nobody started it in time) or ``withdrawal``."""

    round: int
    board: int
    winner: str | None
    forfeit: bool = False
    how: str = "match"


class TournamentResultAdjusted(Event, frozen=True, kw_only=True, tag="tournament_result_adjusted"):
    """The director changed a decided board's result, for a reason (sealed under the
    director's data key: :data:`SEALED_FIELDS`)."""

    round: int
    board: int
    winner: str | None
    forfeit: bool = False
    director: PlayerId
    reason: str


class TournamentFinished(Event, frozen=True, kw_only=True, tag="tournament_finished"):
    """The last round's last result is in: the tournament is over, won by ``winner`` (the
    knockout's final, the top of the standings otherwise)."""

    winner: str | None


AnyEvent = (
    TableCreated
    | PlayerJoined
    | PlayerLeft
    | LineThrow
    | GameStarted
    | ClientSeedAdded
    | ClientSeedWaived
    | SeedWindowClosed
    | TimeExpired
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
    | AccountErased
    | TournamentCreated
    | TournamentEntered
    | TournamentWithdrew
    | TournamentRoundPaired
    | TournamentResult
    | TournamentResultAdjusted
    | TournamentFinished
)

EVENT_TYPES: dict[str, type[Event]] = {cls.__struct_config__.tag: cls for cls in AnyEvent.__args__}
"""Every event class by its tag."""

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
UPCASTERS: dict[tuple[str, int], Upcaster] = {}
"""``(tag, from_version) -> upcaster`` turning a raw payload of that version into the next."""


def _explicit(raw: dict[str, Any]) -> dict[str, Any]:
    """Schema 1 -> 2 of the cube, resignation and game-end events: version 2 only adds fields
    (with defaults) and always fills them; a version-1 payload reads as it is, its empty lists
    keeping their old meaning ("every cube the box may turn"...), which the fold resolves."""
    return raw


for _tag in (
    "cube_offered",
    "cube_taken",
    "cube_dropped",
    "cube_beavered",
    "resignation_offered",
    "resignation_accepted",
    "resignation_declined",
    "game_ended",
):
    UPCASTERS[(_tag, 1)] = _explicit

# -- personal data, sealed ---------------------------------------------------------------------
#
# What a person typed (docs/privacy.md) is stored sealed under their own data key, so that
# destroying the key erases it from every event without changing a byte of the log: the field's
# JSON value is then {"k": key id, "c": base64(nonce || ciphertext || tag)}. The key id is the
# owner's account id (the event's own ``owner`` field: :data:`SEALED_FIELDS`). The cipher itself
# is the store's (events/store/personal_keys.py); the domain only says which fields, whose, and
# what a field reads as once its key is gone.

SEALED_FIELDS: dict[str, tuple[str, str]] = {
    "table_created": ("name", "created_by"),
    "player_joined": ("display_name", "player"),
    "chat_posted": ("text", "player"),
    "tournament_created": ("name", "created_by"),
    "tournament_result_adjusted": ("reason", "director"),
}
"""``tag -> (field, owner field)``: the one field of each event type a person typed, and the
field naming whose data key seals it."""

SEALED_MARK = b'{"k":'
"""How a sealed value starts in a stored payload. A plain string can never hold these bytes
unescaped (JSON escapes the quotes inside a string), so a payload without them has no sealed
value and decodes on the fast path."""

Sealer = Callable[[str, str, str, str], dict[str, str]]
"""``(owner, tag, field, text) -> {"k": ..., "c": ...}``: ``text`` sealed under ``owner``'s key."""

Opener = Callable[[str, str, str, str], str | None]
"""``(key id, ciphertext, tag, field) -> text``, or None when the key was destroyed (the
person's account was erased). Raises ``msgspec.ValidationError`` for a value that does not open
(changed bytes, another field's value)."""

ERASED_TEXT = "[erased]"
"""What a chat message reads as once its writer's key is destroyed."""


def pseudonym(account_id: str) -> str:
    """The name an erased account is shown by: stable, and telling nothing of the person.

    >>> pseudonym("u_1")
    'former player 2308'
    """
    return "former player " + hashlib.sha256(account_id.encode("utf-8")).hexdigest()[:4]


def erased_value(tag_: str, owner: str) -> str:
    """What the sealed field of a ``tag_`` event reads as once ``owner``'s key is destroyed:
    the pseudonym for a display name, no name for a table or a tournament, :data:`ERASED_TEXT`
    for chat and a director's reason (never empty: an adjustment's reason never is)."""
    if tag_ == "player_joined":
        return pseudonym(owner)
    if tag_ in ("chat_posted", "tournament_result_adjusted"):
        return ERASED_TEXT
    return ""


def _upcast_sealed(raw: dict[str, Any]) -> dict[str, Any]:
    """Schema 1 -> 2 of the events with a sealed field: schema 1 stored it in the clear, which
    schema 2 reads as it is (such events are not erasable: docs/privacy.md)."""
    return raw


for _tag in SEALED_FIELDS:
    UPCASTERS[(_tag, 1)] = _upcast_sealed

_encoder = msgspec.json.Encoder()
_decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(AnyEvent)


def encode(event: Event, sealer: Sealer | None = None) -> bytes:
    """The exact bytes to store for ``event`` (its tag included), its personal field sealed by
    ``sealer`` when one is given (an empty field stays empty: there is nothing to hide)."""
    spec = SEALED_FIELDS.get(tag(event)) if sealer is not None else None
    if spec is None or not getattr(event, spec[0]):
        return _encoder.encode(event)
    assert sealer is not None
    field, owner = spec
    t = tag(event)
    raw: dict[str, Any] = {"type": t, **msgspec.structs.asdict(event)}
    raw[field] = sealer(raw[owner], t, field, raw[field])
    return _encoder.encode(raw)


def tag(event: Event) -> str:
    """The stable tag of an event."""
    return event.__struct_config__.tag  # type: ignore[return-value]


def is_sealed(type_: str, data: bytes) -> bool:
    """Whether a stored payload holds a sealed value (see :data:`SEALED_MARK`)."""
    return type_ in SEALED_FIELDS and SEALED_MARK in data


def _open(raw: dict[str, Any], type_: str, opener: Opener | None) -> None:
    field, owner = SEALED_FIELDS[type_]
    value = raw.get(field)
    if not isinstance(value, dict):
        return
    if opener is None:
        raise msgspec.ValidationError(
            f"{type_}.{field} is sealed and no keys were given to open it"
        )
    key_id, sealed = value.get("k"), value.get("c")
    if not isinstance(key_id, str) or not isinstance(sealed, str) or key_id != raw.get(owner):
        raise msgspec.ValidationError(f"{type_}.{field} is not sealed under its owner's key")
    opened = opener(key_id, sealed, type_, field)
    raw[field] = erased_value(type_, key_id) if opened is None else opened


def forget_plain(event: Event, erased: Callable[[str], bool]) -> Event:
    """``event`` with its personal field read as its :func:`erased_value` when its owner was
    erased (``erased(owner)``): for a field stored in the clear (schema 1, written before
    sealing, or a tool's), which no key can erase from the log, so that no view shows it
    (docs/privacy.md). Anything else is returned as it is."""
    spec = SEALED_FIELDS.get(tag(event))
    if spec is None:
        return event
    field, owner = spec
    who = getattr(event, owner)
    if not getattr(event, field) or not erased(who):
        return event
    gone = erased_value(tag(event), who)
    if getattr(event, field) == gone:
        return event
    return msgspec.structs.replace(event, **{field: gone})


def decode(type_: str, schema_version: int, data: bytes, opener: Opener | None = None) -> Event:
    """Decode a stored event, upcasting an old payload first and opening a sealed field with
    ``opener`` (a destroyed key: the field's :func:`erased_value`).

    :raises msgspec.ValidationError, msgspec.DecodeError: a payload that does not decode, or
        a sealed value without ``opener`` or that does not open (the store wraps these in
        ``CorruptEventError`` naming stream and version).
    :raises KeyError: an unknown event type.
    """
    cls = EVENT_TYPES[type_]
    sealed = is_sealed(type_, data)
    if schema_version == cls.schema_version and not sealed:
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
    if sealed:
        _open(raw, type_, opener)
    raw["type"] = type_
    # Into the event's own class: converting into the whole union costs some 60 µs a call.
    event = msgspec.convert(raw, cls)
    return event
