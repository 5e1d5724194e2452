"""The response bodies of the HTTP API as msgspec types, so that ``/openapi.json`` describes each
answer from the type that encodes it (:mod:`server.openapi.document`), with no hand-kept copy of a
schema.

Each struct encodes to exactly the JSON the handlers answer with today (same keys, same order,
same omissions), so switching a handler from its dict to the struct changes no byte a client
sees; ``tests/server/operations/test_api_reference.py`` decodes real answers with these types to
hold them to it. The request bodies are the decoding types of :mod:`server.http.handlers` and
:mod:`events.domain.commands`.

Account ids are opaque strings (``u_…`` for accounts, ``g_…`` for guests): every ``player``,
``member``, ``cube``, ``cubes``, ``to``, ``owner``, ``by``, ``created_by`` and ``players`` field
holds them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from events.domain.types import TableKind, TableOptions
from server.views.table import TableView

__all__ = [
    "COMPONENT",
    "AuditChecks",
    "AuditFailure",
    "AuditGames",
    "AuditReport",
    "CommandRefused",
    "CommandReply",
    "CreatedTable",
    "EventData",
    "Health",
    "LobbyTable",
    "LobbyTables",
    "LogEvent",
    "LogFeed",
    "Me",
    "NotReady",
    "Problem",
    "Ready",
    "Replay",
    "ReplayedEvent",
    "Resync",
    "SkippedEvent",
    "StreamAudit",
    "TableAuditFailure",
    "TableView",
]

COMPONENT = "#/components/schemas/{name}"
"""Where the OpenAPI document keeps a named schema (the ``ref_template`` of msgspec)."""

AccountId = Annotated[str, Meta(description="An account id (opaque: `u_…` or `g_…` for a guest).")]

EventData = Annotated[
    Any,
    Meta(
        description="The event's payload: one of the `Event` schemas, tagged by its `type`.",
        extra_json_schema={"$ref": COMPONENT.format(name="Event")},
    ),
]
"""An event's payload, documented as the event union (registered as ``Event`` by
:mod:`server.openapi.document`). Typed ``Any`` because the handlers pass the stored bytes through
(``msgspec.Raw``) rather than decode and encode them again."""

EventMessageRef = Annotated[
    Any, Meta(extra_json_schema={"$ref": COMPONENT.format(name="EventMessage")})
]
"""A :class:`server.http.wire.EventMessage` (named, not imported: the handlers will import this
module, and an import the other way would make a circle)."""

# -- errors -----------------------------------------------------------------------------------


class Problem(msgspec.Struct, kw_only=True):
    """An RFC 9457 problem: every error answer (`application/problem+json`). Show `detail` to the
    user; `type` is a stable URI per kind of error; `field` names the input at fault, when one
    is."""

    type: Annotated[str, Meta(examples=["https://chouette.invalid/problems/not-your-turn"])]
    title: str
    status: Annotated[int, Meta(ge=400, le=599)]
    detail: str
    field: str | UnsetType = UNSET


# -- accounts ---------------------------------------------------------------------------------


class Me(msgspec.Struct, kw_only=True):
    """The caller's account (`GET /me`)."""

    account_id: AccountId
    username: str
    display_name: str
    guest: bool
    bot: Annotated[
        bool,
        Meta(
            description="Marked a bot account by its owner (`POST /me/bot`, for good): it"
            " sits down as a bot (docs/bots.md, 'Outside bots')."
        ),
    ] = False


# -- the lobby --------------------------------------------------------------------------------


class LobbyTable(msgspec.Struct, kw_only=True):
    """One table of the lobby: a row of a projection of the log, a moment behind the tables
    themselves."""

    id: Annotated[str, Meta(description="The table id (a UUID).")]
    kind: TableKind
    name: str
    options: TableOptions
    created_by: AccountId
    players: Annotated[
        list[AccountId], Meta(description="Who sits at the table (or is in the chouette's line).")
    ]
    names: Annotated[dict[str, str], Meta(description="Each player's display name, by account id.")]
    bots: Annotated[
        list[AccountId], Meta(description="The players who are bots (docs/bots.md), in order.")
    ] = []
    seats: Annotated[int, Meta(description="How many players the table takes.")]
    free_seats: int
    status: Annotated[
        Literal["open", "playing"],
        Meta(description="`open` until its first game starts (finished tables are not listed)."),
    ]
    games: Annotated[int, Meta(description="Games started so far.")]
    version: Annotated[int, Meta(description="The table stream's version the row reflects.")]
    spectators: Annotated[
        int, Meta(description="Stream clients watching without a seat (this server's count).")
    ]


class LobbyTables(msgspec.Struct, kw_only=True):
    """The lobby (`GET /tables`): open and running tables, most recently active first (at most
    500)."""

    tables: list[LobbyTable]


# -- tables -----------------------------------------------------------------------------------


class CreatedTable(msgspec.Struct, kw_only=True):
    """A new table (`POST /tables`), or on a retry with the same `command_id` the one that
    retry created."""

    id: Annotated[str, Meta(description="The table id (a UUID derived from the command id).")]
    duplicate: bool
    table: TableView
    events: list[EventMessageRef]
    """The events the creation recorded (``table_created``), as the table's stream carries
    them."""


# -- the live streams (WebSocket and SSE) ---------------------------------------------------


class Control(msgspec.Struct, kw_only=True, tag_field="ctl"):
    """A control message on a table's stream (not an event): it carries `ctl`, never `v`."""


class Resync(Control, kw_only=True, tag="resync"):
    """The client asked to resume from a version the stream cannot resume from (in the future,
    negative, or older than the resync window): fetch `GET /tables/{table_id}` (a tournament's
    stream: `GET /tournaments/{tournament_id}`) and reconnect from its version. The WebSocket
    closes after it; on SSE it is the `resync` event."""

    stream: Literal["table", "chat", "tournament"]
    asked: int
    version: Annotated[int, Meta(description="The stream's version now.")]
    reason: str


class Presence(Control, kw_only=True, tag="presence"):
    """Who is connected to the table now, sent on every stream of the table when an account's
    first stream opens or its last closes, or an anonymous watcher comes or goes (not to the
    stream that just opened: the table view has the same fields). Ephemeral: not an event,
    never stored, no version; on SSE the `presence` event (with no `id`). Each server process
    counts the streams it serves."""

    connected: Annotated[
        list[str], Meta(description="Account ids with a stream open to the table, sorted.")
    ]
    anonymous: Annotated[
        int, Meta(ge=0, description="Streams open by watchers who are not signed in.")
    ]


class CommandReply(Control, kw_only=True, tag="result"):
    """The WebSocket's answer to a command envelope it recorded (or a retry of one): the fields
    of `CommandResult`."""

    command_id: str
    duplicate: bool
    stream: Literal["table", "chat"]
    first_version: int
    last_version: int
    events: list[EventMessageRef]


class CommandRefused(Control, kw_only=True, tag="error"):
    """The WebSocket's answer to a command it refused: the problem an HTTP request would have
    got. `command_id` is null when the message was not a command envelope."""

    command_id: str | None
    problem: Problem


# -- a table's record -------------------------------------------------------------------------


class ReplayedEvent(msgspec.Struct, kw_only=True):
    """The event at the replayed version, with what it did in words."""

    v: int
    type: Annotated[str, Meta(description="The event's type (its tag).")]
    data: EventData
    text: Annotated[str, Meta(description="What the event did, in words, naming players.")]
    notation: Annotated[
        str | UnsetType, Meta(description="A checker play: its notation (`13/7 8/7`).")
    ] = UNSET
    position_id_before: Annotated[
        str | UnsetType, Meta(description="A checker play: the Position ID it was played from.")
    ] = UNSET


class Replay(msgspec.Struct, kw_only=True):
    """A table as it stood after one version (`GET /tables/{table_id}/replay`)."""

    at: Annotated[int, Meta(description="The version replayed.")]
    event: ReplayedEvent
    table: TableView
    version: Annotated[int, Meta(description="The table's latest version (the slider's end).")]


Check = Literal["chain", "versions", "decode", "rules", "dice"]
CheckStatus = Literal["ok", "failed", "pending", "uncommitted"]
AuditStatus = Literal["ok", "pending", "failed"]


class AuditFailure(msgspec.Struct, kw_only=True):
    """The first failure of one check in one stream."""

    check: Check
    version: Annotated[int, Meta(description="The stream version at fault.")]
    event: Annotated[str, Meta(description="The type of the event at that version, or ''.")]
    reason: str


class TableAuditFailure(msgspec.Struct, kw_only=True):
    """The table's first failure, and the stream it is in."""

    stream: str
    check: Check
    version: int
    event: str
    reason: str


class AuditChecks(msgspec.Struct, kw_only=True):
    """Each check's outcome in a stream (`uncommitted`: dice never committed to, as in an
    imported game)."""

    chain: CheckStatus
    versions: CheckStatus
    decode: CheckStatus
    rules: CheckStatus
    dice: CheckStatus


class AuditGames(msgspec.Struct, kw_only=True):
    """The games of a stream, by game number."""

    started: int
    dice_verified: Annotated[
        list[int], Meta(description="Games whose every throw was re-derived from the seed.")
    ]
    pending: Annotated[list[int], Meta(description="Games in play: their seed is still secret.")]
    uncommitted: Annotated[list[int], Meta(description="Games with no dice commitment.")]


class StreamAudit(msgspec.Struct, kw_only=True):
    """The audit of one of the table's streams (`table-…` or `chat-…`)."""

    stream: str
    status: AuditStatus
    events: int
    first_failure: AuditFailure | None
    failures: Annotated[list[AuditFailure], Meta(description="At most one per check.")]
    checks: AuditChecks
    games: AuditGames


class AuditReport(msgspec.Struct, kw_only=True):
    """A table's audit (`GET /tables/{table_id}/audit`): `ok`, `pending` (every check that can
    be made holds; a game in play keeps its seed secret) or `failed`, with the first failure."""

    table: str
    status: AuditStatus
    events: int
    first_failure: TableAuditFailure | None
    streams: list[StreamAudit]


# -- operations -------------------------------------------------------------------------------


class LogEvent(msgspec.Struct, kw_only=True):
    """One event of the global log, with its position in its partition."""

    position: int
    stream: Annotated[str, Meta(description="`table-<id>` or `chat-<id>`.")]
    v: Annotated[int, Meta(description="The event's version in its stream.")]
    t: Annotated[str, Meta(description="The event's type.")]
    d: EventData


class LogFeed(msgspec.Struct, kw_only=True):
    """A page of one partition of the global log (`GET /log`), by position."""

    partition: int
    events: list[LogEvent]


class SigningKey(msgspec.Struct, kw_only=True):
    """The public key that verifies the chain heads (`GET /.well-known/chouette-signing-key`)."""

    algorithm: Literal["Ed25519"]
    public_key: Annotated[str, Meta(description="The 32-byte Ed25519 public key, in base64.")]
    fingerprint: Annotated[
        str, Meta(description="SHA-256 of the public key, in hex: the heads' `key`.")
    ]
    format: Annotated[str, Meta(description="The heads documents it signs: `chouette-heads/1`.")]


class Health(msgspec.Struct, kw_only=True):
    """The process is alive (`GET /healthz`)."""

    status: Literal["ok"]


class SkippedEvent(msgspec.Struct, kw_only=True):
    """An event a projector could not apply and skipped (recorded for good; the reason is in
    the server's log and its `projection_skipped` table)."""

    projector: str
    partition: int
    position: Annotated[
        int,
        Meta(
            description="Its position in the partition's log (its stream, not shown here: `GET"
            " /log` with the auditor token)."
        ),
    ]
    version: int
    type: str
    cause: Annotated[
        Literal["undecodable", "unwritable", "refused"],
        Meta(
            description="It does not decode, its data cannot be written to the read model, or"
            " the projector refused it."
        ),
    ]
    skipped_at: datetime


class Ready(msgspec.Struct, kw_only=True):
    """The database answers (`GET /readyz`). Skipped events do not make the server unready:
    every instance reads the same log, and each goes on past them."""

    status: Literal["ready"]
    lobby_lag: Annotated[int, Meta(description="Events the lobby projection is behind the log.")]
    skipped_events: Annotated[
        int, Meta(description="How many events the lobby projection has skipped, ever.")
    ]
    skipped: Annotated[
        list[SkippedEvent], Meta(description="The latest of them (20 at most), newest first.")
    ]


class NotReady(msgspec.Struct, kw_only=True):
    """The database does not answer, or the log has a hole (`corrupt`: the detail names each
    partition and position; `GET /readyz`, 503)."""

    status: Literal["unavailable", "corrupt"]
    detail: str
