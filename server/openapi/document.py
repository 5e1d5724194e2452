"""The API reference: the OpenAPI 3.1 document at ``/openapi.json`` and an interactive page of
it at ``/docs``.

The schemas are generated from the msgspec types the handlers decode (:mod:`server.http.handlers`,
:mod:`events.domain.commands`) and encode (:mod:`server.views.schemas`, :mod:`events.domain.types`): no schema is
kept by hand. What the types cannot say is written here: each operation's purpose, the game
flow, the statuses it really answers with, its parameters and examples of its requests (which
``tests/server/test_api_reference.py`` decodes with the request types).

``/docs``, the interactive page of this document, is :mod:`server.openapi.docs_page`.
"""

from __future__ import annotations

import sys
from typing import Any

import msgspec
from aiohttp import web

from events.domain import commands as c
from events.domain import types as e
from events.store.heads import HeadsDocument
from server.http import bots as bh
from server.http import handlers as h
from server.http.history import HistoryPage
from server.http.problems import PROBLEM_BASE
from server.openapi import analysis as openapi_analysis
from server.openapi import docs_page as api_docs
from server.openapi import examples as x
from server.openapi import social as so
from server.openapi import table_extras as openapi_table_extras
from server.views import schemas as s
from server.views.table import ThrowView

__all__ = ["build_spec", "register_extras", "spec"]

_SPEC_KEY = web.AppKey("openapi", bytes)

# -- the schemas ------------------------------------------------------------------------------

NAMED: dict[str, Any] = {
    "Event": e.AnyEvent,
    "Command": c.AnyCommand,
    "TableView": s.TableView,
}
"""Types the document names that are not structs: msgspec names a struct after its class but
writes a union out where it is used. Each becomes ``#/components/schemas/<name>``."""

BODIES: list[Any] = [
    h.Register,
    h.Login,
    h.GuestRequest,
    h.TokenResponse,
    h.TicketResponse,
    h.CreateTableRequest,
    h.CommandEnvelope,
    h.CommandResult,
    bh.SeatBotRequest,
    bh.BotSeated,
    h.EventMessage,
    ThrowView,
    HistoryPage,
    s.Problem,
    s.Me,
    s.LobbyTables,
    s.CreatedTable,
    s.Replay,
    s.AuditReport,
    openapi_analysis.Analysis,
    s.LogFeed,
    HeadsDocument,
    s.SigningKey,
    s.Health,
    s.Ready,
    s.NotReady,
    s.Resync,
    s.Presence,
    s.CommandReply,
    s.CommandRefused,
    *so.BODIES,
]
"""Every request and response body (and the stream messages), by the type that decodes or
encodes it; each is a component named after its class."""


def _components() -> dict[str, Any]:
    types = [*BODIES, *NAMED.values()]
    generated, components = msgspec.json.schema_components(types, ref_template=s.COMPONENT)
    for name, schema in zip(NAMED, generated[len(BODIES) :], strict=True):
        if schema.get("$ref") != s.COMPONENT.format(name=name):
            components[name] = schema
    return dict(sorted(components.items()))


# -- pieces of operations ---------------------------------------------------------------------

JSON = "application/json"
PROBLEM = "application/problem+json"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": s.COMPONENT.format(name=name)}


def _json_body(name: str, examples: dict[str, Any] | None = None) -> dict[str, Any]:
    media: dict[str, Any] = {"schema": _ref(name)}
    if examples:
        media["examples"] = examples
    return {"content": {JSON: media}}


def _answer(description: str, name: str | None = None) -> dict[str, Any]:
    if name is None:
        return {"description": description}
    return {"description": description, **_json_body(name)}


def _text(description: str, media_type: str, **headers: str) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "description": description,
        "content": {media_type: {"schema": {"type": "string"}}},
    }
    if headers:
        answer["headers"] = {
            k: {"description": v, "schema": {"type": "string"}} for k, v in headers.items()
        }
    return answer


def _problem(description: str) -> dict[str, Any]:
    return {"description": description, "content": {PROBLEM: {"schema": _ref("Problem")}}}


def _too_many() -> dict[str, Any]:
    """The ``429`` answer of a rate-limited operation (:mod:`server.http.ratelimit`)."""
    return {
        **_problem(TOO_MANY),
        "headers": {
            "Retry-After": {
                "description": "Seconds to wait before trying again.",
                "schema": {"type": "integer", "minimum": 1},
            }
        },
    }


def _slugs(*slugs: str) -> str:
    return ", ".join(f"`{slug}`" for slug in slugs)


BAD_BODY = f"The body is not JSON, not `application/json`, or does not fit the schema ({_slugs('malformed-json', 'invalid-field', 'bad-request')}; `field` names the input at fault)"
BAD_TOKEN = "The `Authorization` header is not `Bearer <token>`, the token is unknown, expired or revoked, or a token was sent in the URL (`unauthorized`)"
NO_TOKEN = "No token, a malformed `Authorization` header, an unknown, expired or revoked token, or a token in the URL (`unauthorized`)"
BAD_TICKET = "The ticket is unknown, used or expired (ask `POST /tickets` for another), the `Authorization` header is not `Bearer <token>` or its token is unknown, expired or revoked, or a token was sent in the URL (`unauthorized`)"
TOO_MANY = "Over a rate limit or a cap (`rate-limited`): wait the `Retry-After` seconds"
NO_TABLE = "No table has this id (`not-found`)"
TOO_LARGE = "The body is larger than the server's limit (`too-large`)"
UNAVAILABLE = f"The database is unavailable ({_slugs('unavailable', 'store-error')}); retry later (commands: with the same `command_id`)"
ABSENT = "No such file (`not-found`)"
NOT_MODIFIED = "Unchanged since the `ETag` or `Last-Modified` the client sent"


def _op(
    tag: str,
    summary: str,
    description: str,
    responses: dict[int, dict[str, Any]],
    *,
    body: dict[str, Any] | None = None,
    parameters: list[dict[str, Any]] | None = None,
    security: list[dict[str, list[str]]] | None = None,
) -> dict[str, Any]:
    op: dict[str, Any] = {"tags": [tag], "summary": summary, "description": description}
    if parameters:
        op["parameters"] = parameters
    if body is not None:
        op["requestBody"] = {"required": True, **body}
    if security is not None:
        op["security"] = security
    op["responses"] = {str(status): answer for status, answer in sorted(responses.items())}
    return op


BEARER: list[dict[str, list[str]]] = [{"bearer": []}]
"""A token is required."""
OPTIONAL_BEARER: list[dict[str, list[str]]] = [{"bearer": []}, {}]
"""A token is optional: without one the caller is an anonymous spectator."""
STREAM_TICKET: list[dict[str, list[str]]] = [{"bearer": []}, {"ticket": []}, {}]
"""Streams: a browser's WebSocket and EventSource cannot set headers, so a ticket
(``POST /tickets``) in the URL instead; never the token itself."""


def _param(
    name: str, where: str, schema: dict[str, Any], description: str, *, required: bool = False
) -> dict[str, Any]:
    return {
        "name": name,
        "in": where,
        "required": required or where == "path",
        "description": description,
        "schema": schema,
    }


TABLE = {
    **_param("table_id", "path", {"type": "string", "format": "uuid"}, "The table id (a UUID)."),
    "example": x.TABLE_ID,
}


def _resume_params(note: str) -> list[dict[str, Any]]:
    """The streams' ``after`` and ``chat_after``: the versions to resume after."""
    version = {"type": "integer", "minimum": 0, "maximum": h.BIGINT_MAX, "default": 0}
    return [
        _param("after", "query", version, f"Resume after this table version{note}."),
        _param("chat_after", "query", version, f"Resume after this chat version{note}."),
    ]


TICKET = _param(
    "ticket",
    "query",
    {"type": "string"},
    "A ticket from `POST /tickets`: the connection acts as its account (used up by this"
    " connection). Without a ticket or the header, the caller is an anonymous spectator.",
)


# -- the document -----------------------------------------------------------------------------

OVERVIEW = f"""An event-sourced backgammon server for chouettes, matches and money play.

**Getting in.** `POST /guests`, `POST /accounts` or `POST /sessions` answers with a `token`: send \
it as `Authorization: Bearer <token>` (the *Authorize* button, for *Try it out*), never in a URL. \
A token expires (an account's after 30 days, a guest's after 7, by default); `DELETE /sessions` \
revokes it, `DELETE /sessions?everywhere=true` every token of the account. A browser's WebSocket \
or EventSource cannot send the header: it asks `POST /tickets` for a ticket, good for one \
connection within seconds, and passes it as `?ticket=`.

**Fair use.** Requests are rate-limited per address and per account, with caps on open tables \
and open connections; over a limit the answer is `429` with `Retry-After` (seconds).

**Account ids.** Every `player`, `member`, `cube`, `cubes`, `to`, `owner`, `by`, `to_answer`, \
`winner` and `created_by` field holds **account ids** (the `account_id` of those answers), never a \
seat number or a display name. Display names are in the table view's `players`.

**A money game or a match.** Create the table (`POST /tables`); each player sends `join` \
(optionally with `seat` 0 or 1). The first game starts by itself when the second player sits \
down, and each next game when the previous one ends (`start_game` starts one when both seats are \
taken and no game is in play). Either seated player then sends `roll` for the **opening throw**: \
the server throws one die for each (again on a tie), and the higher die moves first, playing both \
dice. From then on the player on roll sends `double` or `roll`, then `move`; the opponent answers \
a double with `take`, `drop` or `beaver`.

**A chouette.** Create it with kind `chouette`; players `join` the line. Once two or more have \
joined, any of them sends `start_game`: the server throws for the line (the highest die is the \
box, the next the captain, then the others) and the first game starts. The **box or the captain** \
sends `roll` for the opening throw; the captain (or the acting captain, once the captain's own \
game is over) plays the team's checkers. After each game the line rotates and the next game \
starts by itself while two or more players remain. With multiple cubes, the box names the cubes \
it doubles in `cubes` (member account ids; empty: every cube it may turn) and a member doubles \
their own cube with a plain `double`; the box answering a member's double or resignation names \
that member in `cube`, and offering a resignation names members in `to`; a member answering \
names nobody (the answer is for their own cube).

**What may I do now?** `GET /tables/{{table_id}}` is the table as the caller sees it: whose turn \
it is, `allowed` (the commands the caller may send now), the legal plays after a roll, the cubes, \
the line and the ledger. A client needs no rules of its own.

**Commands are retry-safe.** Each carries a `command_id` (a UUID the client makes): sending the \
same envelope again answers with the first outcome (200, `duplicate: true`) and records nothing \
new. After a 503, retry with the same `command_id`.

**Following a table.** `GET /tables/{{table_id}}/ws` (WebSocket) or `/events` (Server-Sent \
Events) stream every event as an `EventMessage` (a throw's with the legal plays, `m`); \
refetch the table view after other table events.

**Errors** are RFC 9457 problems (`Problem`, `application/problem+json`): show `detail`. Their \
`type` is `{PROBLEM_BASE}<slug>`; each response below names its slugs.

The rules are in `docs/rules.md`, the design in `docs/design.md`."""

STREAM_MESSAGES = """Each message is an `EventMessage` `{"v": version, "s": "table" | "chat", \
"t": type, "d": event, "h": chain hash}`; each stream's versions are gap-free, and `h` is the \
event's stored chain hash (its stream's chain head at `v`: keep it, see `GET /log/heads`). A \
team-channel chat message the viewer may not read (the box, spectators) comes as `{"v", "s"}` \
only, so versions never skip. \
A throw (`opening_throw`, `dice_rolled`) also carries `m`, a `ThrowView`: who moves, the dice and \
the legal plays (the table view's `legal_plays`), or `plays: []` when the thrower cannot move \
(the turn has passed): the player to move never needs to fetch the table view to play. \
Resume with `after` (the last table version seen) and `chat_after` (the last chat version). A \
position that cannot be resumed from (ahead of the stream, or older than the resync window) gets \
a `Resync` message instead: fetch `GET /tables/{table_id}` and reconnect from its version. One \
that is no version at all (negative, or past 2^63 − 1) is a 400. \
Who is connected to the table comes as a `Presence` message (`ctl: presence`; on SSE the \
`presence` event) whenever it changes: ephemeral, not an event, with no version."""


def build_spec() -> dict[str, Any]:
    """The OpenAPI 3.1 document of the app's routes (every route, every status it answers)."""
    paths: dict[str, Any] = {
        "/accounts": {
            "post": _op(
                "Accounts",
                "Register an account",
                "Creates an account with a password and answers with a first token.",
                {
                    201: _answer("The account and a token", "TokenResponse"),
                    400: _problem(BAD_BODY),
                    409: _problem("The username is taken (`username-taken`)"),
                    413: _problem(TOO_LARGE),
                    429: _too_many(),
                    503: _problem(UNAVAILABLE),
                },
                body=_json_body("Register", x.ACCOUNT_EXAMPLES),
            )
        },
        "/sessions": {
            "post": _op(
                "Accounts",
                "Log in",
                "Checks a password and answers with a fresh token.",
                {
                    200: _answer("A fresh token", "TokenResponse"),
                    400: _problem(BAD_BODY),
                    401: _problem("Wrong username or password (`unauthorized`)"),
                    413: _problem(TOO_LARGE),
                    429: _too_many(),
                    503: _problem(UNAVAILABLE),
                },
                body=_json_body("Login", x.LOGIN_EXAMPLES),
            ),
            "delete": _op(
                "Accounts",
                "Log out",
                "Revokes the token the request carries; with `everywhere=true`, every token of"
                " the account (log out everywhere). A WebSocket or SSE connection made with a"
                " revoked token refuses its commands and closes within seconds.",
                {
                    204: _answer("Revoked"),
                    400: _problem("`everywhere` is not `true` or `false` (`bad-request`)"),
                    401: _problem(NO_TOKEN),
                    503: _problem(UNAVAILABLE),
                },
                parameters=[
                    _param(
                        "everywhere",
                        "query",
                        {"type": "boolean", "default": False},
                        "Revoke every token of the account, not only this one.",
                    )
                ],
                security=BEARER,
            ),
        },
        "/tickets": {
            "post": _op(
                "Accounts",
                "A ticket for a stream",
                "A browser's WebSocket and EventSource cannot send the `Authorization` header,"
                " and a token must never be in a URL: this answers with a ticket to pass as"
                " `?ticket=` to `GET /tables/{table_id}/ws` or `/events` instead. A ticket opens"
                " one connection, within `expires_in` seconds, as the account of the token that"
                " asked for it; the connection stops when that token is revoked or expires.",
                {
                    201: _answer("The ticket", "TicketResponse"),
                    401: _problem(NO_TOKEN),
                    429: _too_many(),
                    503: _problem(UNAVAILABLE),
                },
                security=BEARER,
            )
        },
        "/guests": {
            "post": _op(
                "Accounts",
                "Play as a guest",
                "Creates a guest account (no password) and answers with its token. The body is"
                " optional.",
                {
                    201: _answer("The guest account and a token", "TokenResponse"),
                    400: _problem(BAD_BODY),
                    413: _problem(TOO_LARGE),
                    429: _too_many(),
                    503: _problem(UNAVAILABLE),
                },
                body={"required": False, **_json_body("GuestRequest", x.GUEST_EXAMPLES)},
            )
        },
        "/me": {
            "get": _op(
                "Accounts",
                "The caller's account",
                "The account the token belongs to.",
                {
                    200: _answer("The account", "Me"),
                    401: _problem(NO_TOKEN),
                    503: _problem(UNAVAILABLE),
                },
                security=BEARER,
            )
        },
        "/tables": {
            "get": _op(
                "Tables",
                "The lobby",
                "Open and running tables, most recently active first: a projection of the log,"
                " a moment behind the tables themselves (poll it).",
                {
                    200: _answer("The tables", "LobbyTables"),
                    400: _problem("`kind` is not `money`, `match` or `chouette` (`bad-request`)"),
                    503: _problem(UNAVAILABLE),
                },
                parameters=[
                    _param(
                        "kind",
                        "query",
                        {"enum": ["money", "match", "chouette"]},
                        "Only tables of this kind.",
                    )
                ],
            ),
            "post": _op(
                "Tables",
                "Create a table",
                "Creates a money table, a match or a chouette with its options (`TableOptions`;"
                " an option that does not apply to the kind is a 400). The creator is not"
                " seated: they `join` like everyone else. The table id is derived from"
                " `command_id`, so a retry names the same table.",
                {
                    200: _answer(
                        "A retry (same `command_id`): the table it created", "CreatedTable"
                    ),
                    201: _answer("Created: the table as its creator sees it", "CreatedTable"),
                    400: _problem(
                        f"{BAD_BODY}, or an option that does not apply to the kind (`invalid-command`)"
                    ),
                    401: _problem(NO_TOKEN),
                    409: _problem(
                        f"The `command_id` was used for another command ({_slugs('command-id-reused', 'exists')})"
                    ),
                    413: _problem(TOO_LARGE),
                    429: _too_many(),
                    503: _problem(UNAVAILABLE),
                },
                body=_json_body("CreateTableRequest", x.CREATE_EXAMPLES),
                security=BEARER,
            ),
        },
        "/tables/{table_id}": {
            "get": _op(
                "Tables",
                "A table, as the caller sees it",
                "Whose turn it is and what the table waits for, what the caller may do now"
                " (`allowed`: commands only), the legal plays of the player on roll, the cubes,"
                " the Position ID and Match ID, the line and the ledger. The view's `kind`"
                " (`money`, `match` or `chouette`) says which fields it has. Without a token the"
                " caller is an anonymous spectator.",
                {
                    200: _answer("The table", "TableView"),
                    401: _problem(BAD_TOKEN),
                    404: _problem(NO_TABLE),
                    503: _problem(UNAVAILABLE),
                },
                parameters=[TABLE],
                security=OPTIONAL_BEARER,
            )
        },
        "/tables/{table_id}/commands": {
            "post": _op(
                "Tables",
                "Send a command",
                "Decides the command against the table and records its events (`Command`: its"
                " `type` says which). Nothing is recorded when it is refused. Retry-safe: the same"
                " `command_id` answers with the first outcome. `chat` goes to the table's chat"
                " stream (`stream: chat`); everything else to the table stream. Tables are"
                " created with `POST /tables`, not `create_table`.",
                {
                    200: _answer(
                        "A retry (same `command_id`): the first outcome, nothing new recorded",
                        "CommandResult",
                    ),
                    201: _answer("Recorded: the events it produced", "CommandResult"),
                    400: _problem(
                        f"{BAD_BODY}; a field that does not apply (`invalid-command`); a malformed play (`invalid-play`); `create_table`"
                    ),
                    401: _problem(NO_TOKEN),
                    403: _problem(
                        f"Not the caller's turn or role ({_slugs('not-your-turn', 'not-your-role', 'forbidden')})"
                    ),
                    404: _problem(NO_TABLE),
                    409: _problem(
                        f"Not allowed now, the game is over, the `command_id` was used for another command, or a concurrent command won ({_slugs('not-now', 'game-over', 'command-id-reused', 'version-conflict')})"
                    ),
                    413: _problem(TOO_LARGE),
                    422: _problem("An illegal play; `detail` says why (`illegal-play`)"),
                    429: _too_many(),
                    503: _problem(UNAVAILABLE),
                },
                body=_json_body("CommandEnvelope", x.COMMAND_EXAMPLES),
                parameters=[TABLE],
                security=BEARER,
            )
        },
        "/tables/{table_id}/ws": {
            "get": _op(
                "Streams",
                "Follow a table (WebSocket)",
                f"The table's events and chat, live. {STREAM_MESSAGES} Send a `CommandEnvelope`"
                " on the socket to play: the answer is a `CommandReply` (`ctl: result`) or a"
                " `CommandRefused` (`ctl: error`); commands need a `ticket` (or the header), and"
                " once its token is revoked or expired they are refused and the socket closes"
                " (`1008`).",
                {
                    101: _answer("Switching to the WebSocket protocol"),
                    400: _problem(
                        "`after` or `chat_after` is not an integer from 0 to 2^63 − 1, or the request is no WebSocket upgrade (`bad-request`, `http-error`)"
                    ),
                    401: _problem(BAD_TICKET),
                    404: _problem(NO_TABLE),
                    429: _too_many(),
                    503: _problem(UNAVAILABLE),
                },
                parameters=[
                    TABLE,
                    TICKET,
                    *_resume_params(""),
                ],
                security=STREAM_TICKET,
            )
        },
        "/tables/{table_id}/events": {
            "get": _op(
                "Streams",
                "Follow a table (Server-Sent Events)",
                f"The same messages as the WebSocket, one per event (`data:`), each with `id:"
                f" <table version>.<chat version>` so that the browser's `Last-Event-ID` resumes"
                f" both streams. {STREAM_MESSAGES} On SSE a `Resync` is the `resync` event.",
                {
                    200: _text("`text/event-stream` of `EventMessage`s", "text/event-stream"),
                    400: _problem(
                        "`after`, `chat_after` or `Last-Event-ID` is malformed or out of range (`bad-request`)"
                    ),
                    401: _problem(BAD_TICKET),
                    404: _problem(NO_TABLE),
                    429: _too_many(),
                    503: _problem(UNAVAILABLE),
                },
                parameters=[
                    TABLE,
                    TICKET,
                    *_resume_params(" (without `Last-Event-ID`)"),
                    _param(
                        "Last-Event-ID",
                        "header",
                        {"type": "string", "pattern": r"^[0-9]+(\.[0-9]*)?$"},
                        "`<table version>.<chat version>`, the `id` of the last event received.",
                    ),
                ],
                security=STREAM_TICKET,
            )
        },
        "/tables/{table_id}/replay": {
            "get": _op(
                "Record",
                "The table at a version",
                "The table as it stood after version `at` (the fold of its events up to it), as"
                " the caller would have seen it, with the event at that version in words and"
                " notation and the table's latest `version` (a replay slider's range is 1 to"
                " `version`).",
                {
                    200: _answer("The table then, and the event", "Replay"),
                    400: _problem("`at` is not an integer from 0 to 2^63 − 1 (`bad-request`)"),
                    401: _problem(BAD_TOKEN),
                    404: _problem(f"{NO_TABLE}, or it has no version `at`"),
                    503: _problem(UNAVAILABLE),
                },
                parameters=[
                    TABLE,
                    _param(
                        "at",
                        "query",
                        {"type": "integer", "minimum": 1, "maximum": h.BIGINT_MAX},
                        "The version, 1 to the table's latest (the default).",
                    ),
                ],
                security=OPTIONAL_BEARER,
            )
        },
        "/tables/{table_id}/audit": {
            "get": _op(
                "Record",
                "Audit a table",
                "Checks every stream of the table: its hash chain, dense versions, each event"
                " decoded and re-decided by the rules, and each throw re-derived from its game's"
                " revealed seed (a game still in play is `pending`: its seed is secret). Names"
                " the first failure per stream with its version. 200 whatever it finds. The"
                " server keeps a table's audit: asked again, it checks only the events appended"
                " since. Limited per address (`CHOUETTE_RATE_AUDITS`).",
                {
                    200: _answer("The audit report", "AuditReport"),
                    404: _problem(NO_TABLE),
                    429: _too_many(),
                    503: _problem(UNAVAILABLE),
                },
                parameters=[TABLE],
            )
        },
        "/tables/{table_id}/export.mat": {
            "get": _op(
                "Record",
                "Export as a .mat file",
                "The table's games in GNU Backgammon's `.mat` format (`import mat`). A chouette"
                " exports one file per team member, their games against the box: name them"
                " with `member`.",
                {
                    200: _text(
                        "The `.mat` file",
                        "text/plain",
                        **{"Content-Disposition": '`attachment; filename="table-<id>.mat"`'},
                    ),
                    400: _problem("A chouette, and no `member` (`member-required`)"),
                    404: _problem(f"{NO_TABLE}, or `member` never played at it (`no-such-member`)"),
                    503: _problem(UNAVAILABLE),
                },
                parameters=[
                    TABLE,
                    _param(
                        "member",
                        "query",
                        {"type": "string"},
                        "A chouette: the account id of the member whose games to export (required there).",
                    ),
                ],
            )
        },
        "/log": {
            "get": _op(
                "Operations",
                "The global log (auditors)",
                "Events of every stream by their position in one partition of the log, for"
                " auditors and projectors. The token is the server's configured auditor token.",
                {
                    200: _answer("Events after `after`, at most `limit`", "LogFeed"),
                    400: _problem(
                        "`partition`, `after` or `limit` is not an integer in range (`bad-request`)"
                    ),
                    401: _problem(
                        "No token, or a malformed `Authorization` header (`unauthorized`)"
                    ),
                    403: _problem("Not the auditor token (`forbidden`)"),
                    503: _problem(UNAVAILABLE),
                },
                parameters=[
                    _param(
                        "partition",
                        "query",
                        {"type": "integer", "minimum": 0, "default": 0},
                        "The log partition, 0 to the server's partitions − 1.",
                    ),
                    _param(
                        "after",
                        "query",
                        {"type": "integer", "minimum": 0, "maximum": h.BIGINT_MAX, "default": 0},
                        "Events after this position.",
                    ),
                    _param(
                        "limit",
                        "query",
                        {
                            "type": "integer",
                            "minimum": 1,
                            "maximum": h.LOG_LIMIT_MAX,
                            "default": 1000,
                        },
                        "At most this many events.",
                    ),
                ],
                security=BEARER,
            )
        },
        "/log/heads": {
            "get": _op(
                "Operations",
                "The signed chain heads",
                "Every log partition's last position with a running hash of its events, signed"
                " with the server's Ed25519 key (kept outside the database; the public key is at"
                " `/.well-known/chouette-signing-key`). Save it: `chouette audit --against` later"
                " shows any rewrite of the log since, however consistent. With `streams=true` and"
                " the auditor token, every stream's version and chain head too (they list every"
                " table id). The running hash and the signed bytes: docs/heads.md.",
                {
                    200: _answer("The heads, signed", "HeadsDocument"),
                    400: _problem("`streams` is not `true` or `false` (`bad-request`)"),
                    401: _problem(
                        "`streams=true` without a token, or a malformed `Authorization` header"
                        " (`unauthorized`)"
                    ),
                    403: _problem(
                        "`streams=true` with a token that is not the auditor's (`forbidden`)"
                    ),
                    429: _too_many(),
                    500: _problem(
                        "The log has a hole (`corrupt-log`: the detail names each partition and"
                        " its first missing position, as `/readyz` does): the store is corrupt,"
                        " and no heads are signed until it is repaired"
                    ),
                    503: _problem(UNAVAILABLE),
                },
                parameters=[
                    _param(
                        "streams",
                        "query",
                        {"type": "boolean", "default": False},
                        "Add every stream's head (the auditor token only).",
                    )
                ],
                security=OPTIONAL_BEARER,
            )
        },
        "/.well-known/chouette-signing-key": {
            "get": _op(
                "Operations",
                "The heads' public key",
                "The Ed25519 public key that verifies `GET /log/heads` documents, and its"
                " fingerprint (each document names the key that signed it by it).",
                {200: _answer("The public key", "SigningKey")},
            )
        },
        "/healthz": {
            "get": _op(
                "Operations", "Liveness", "The process answers.", {200: _answer("Alive", "Health")}
            )
        },
        "/readyz": {
            "get": _op(
                "Operations",
                "Readiness",
                "The database answers within two seconds. Events the lobby could not apply"
                " (a stored event whose data its read model cannot hold) are skipped and listed"
                " here, and leave the server ready: every instance reads the same log and goes"
                " on past them. The reasons are in the server's log, never in an answer. A hole"
                " anywhere in the log (a missing position, which cannot arise by design) makes it"
                " not ready (`corrupt`; the detail names each: `log partition P has no event at"
                ' position N`), from start-up on; how soon it is found: docs/store.md, "Holes in'
                ' the log".',
                {200: _answer("Ready", "Ready"), 503: _answer("Not ready", "NotReady")},
            )
        },
        "/metrics": {
            "get": _op(
                "Operations",
                "Prometheus metrics",
                "Commands, latencies, connected clients and subscriber lag.",
                {200: _text("The Prometheus text exposition format", "text/plain")},
            )
        },
        "/openapi.json": {
            "get": _op(
                "Reference",
                "This document",
                "The OpenAPI 3.1 document, generated from the server's types.",
                {
                    200: {
                        "description": "OpenAPI 3.1",
                        "content": {JSON: {"schema": {"type": "object"}}},
                    }
                },
            )
        },
        "/docs": {
            "get": _op(
                "Reference",
                "The interactive reference",
                "This document in Swagger UI: schemas, examples and *Try it out*. Served with"
                " its assets from this server, so it works offline.",
                {200: _text("The page", "text/html")},
            )
        },
        "/docs/static/{asset}": {
            "get": _op(
                "Reference",
                "An asset of the interactive reference",
                "Swagger UI's scripts, styles and icons, from the installed `swagger-ui-py`"
                " package.",
                {
                    200: {
                        "description": "The asset",
                        "content": {
                            t: {"schema": {"type": "string"}}
                            for t in ("text/javascript", "text/css", "image/png")
                        },
                    },
                    304: _answer(NOT_MODIFIED),
                    404: _problem(ABSENT),
                },
                parameters=[_param("asset", "path", {"type": "string"}, "The file's name.")],
            )
        },
        "/": {
            "get": _op(
                "Page",
                "The web client",
                "The page a player opens in a browser: the lobby, the tables and their replays.",
                {200: _text("The page", "text/html"), 304: _answer(NOT_MODIFIED)},
            )
        },
        "/static/{path}": {
            "get": _op(
                "Page",
                "A file of the web client",
                "The page's modules, styles and images.",
                {
                    200: {
                        "description": "The file",
                        "content": {"*/*": {"schema": {"type": "string"}}},
                    },
                    304: _answer(NOT_MODIFIED),
                    404: _problem(ABSENT),
                },
                parameters=[
                    _param("path", "path", {"type": "string"}, "The file's path under `/static/`.")
                ],
            )
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "chouette",
            "version": "0.1.0",
            "description": OVERVIEW,
            "license": {"name": "AGPL-3.0-or-later", "identifier": "AGPL-3.0-or-later"},
        },
        "tags": [
            {"name": "Accounts", "description": "Tokens: register, log in, play as a guest."},
            {"name": "Tables", "description": "The lobby, creating tables, playing."},
            {"name": "Streams", "description": "A table's events, live."},
            {"name": "Record", "description": "A table's history: replay, audit, export."},
            {"name": "Operations", "description": "Health, metrics, the global log."},
            {"name": "Reference", "description": "This document."},
            {"name": "Page", "description": "The web client, for a browser."},
            {"name": "Social", "description": "Profiles, ratings, leaderboards, invitations."},
        ],
        "paths": paths
        | openapi_analysis.paths(sys.modules[__name__])
        | openapi_table_extras.paths(sys.modules[__name__])
        | so.paths(sys.modules[__name__]),
        "components": {
            "schemas": _components(),
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A token from `POST /accounts`, `POST /sessions` or `POST /guests` (for `GET /log`: the auditor token).",
                },
                "ticket": {
                    "type": "apiKey",
                    "in": "query",
                    "name": "ticket",
                    "description": "A single-use ticket from `POST /tickets`, for a browser's WebSocket or EventSource (which cannot send headers). A token is never accepted in a URL.",
                },
            },
        },
    }


def register_extras(app: web.Application) -> None:
    """Build the document and the page once (they depend on the code only)."""
    app[_SPEC_KEY] = msgspec.json.encode(build_spec())
    api_docs.register(app)


async def spec(request: web.Request) -> web.Response:
    """``GET /openapi.json``."""
    return web.Response(body=request.app[_SPEC_KEY], content_type=JSON)
