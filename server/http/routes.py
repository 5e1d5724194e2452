"""Every route of the server, in one table (:data:`ROUTES`), and the one function that registers
them on the app (:func:`add_routes`, which :func:`server.app.create_app` calls): nothing else
adds a route.

Each :class:`Route` is its method, its path (aiohttp's template), its handler and what the API
reference says of it (:class:`~server.openapi.operation.Operation`): its tag, summary and
description, the statuses it answers with and the types of their bodies, the problems it can
answer, its request body's type and examples, its parameters and who may call it. The OpenAPI
document (:mod:`server.openapi.document`) is generated from this table, so a route added here is
in the document; ``tests/server/test_api_reference.py`` checks that every route the app has is.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

from events.store.heads import HeadsDocument
from server.http import analysis, heads, history, privacy, social, streams
from server.http import bots as bh
from server.http import handlers as h
from server.http import records as record_handlers
from server.http import web as page
from server.http.bots import BotSeated, SeatBotRequest
from server.http.common import (
    BIGINT_MAX,
    CommandEnvelope,
    CommandResult,
    CreateTableRequest,
    GuestRequest,
    Login,
    Register,
    TicketResponse,
    TokenResponse,
)
from server.http.handlers import LOG_LIMIT_MAX
from server.http.history import MAX_PAGE, HistoryPage
from server.http.privacy import RedeemRequest
from server.openapi import docs_page as api_docs
from server.openapi import examples as x
from server.openapi.analysis import Analysis
from server.openapi.operation import (
    ABSENT,
    BAD_BODY,
    BAD_TICKET,
    BAD_TOKEN,
    BEARER,
    DAY,
    JSON,
    NO_TABLE,
    NO_TOKEN,
    NOT_MODIFIED,
    OPTIONAL_BEARER,
    PAGE_PARAMS,
    PRIVATE_NO_TABLE,
    SOCIAL_CREATOR,
    SOCIAL_TABLE,
    SOCIAL_UNAVAILABLE,
    STREAM_MESSAGES,
    STREAM_TICKET,
    TABLE,
    TABLE_VIEW,
    TICKET,
    TOO_LARGE,
    UNAVAILABLE,
    Operation,
    answer,
    json_body,
    op,
    param,
    problem,
    resume_params,
    slugs,
    text,
    too_many,
)
from server.openapi.social import (
    ChouetteLeaderboard,
    Invitation,
    Invitations,
    MyTables,
    Profile,
    RatingLeaderboard,
    Redeemed,
    TableRatings,
)
from server.views.schemas import (
    AuditReport,
    CreatedTable,
    Health,
    LobbyTables,
    LogFeed,
    Me,
    NotReady,
    Ready,
    Replay,
    SigningKey,
)

__all__ = ["ROUTES", "Route", "add_routes"]

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

_PATTERN = re.compile(r"\{(\w+):[^}]*\}")


@dataclass(frozen=True)
class Route:
    """One route: ``method`` on ``path`` (aiohttp's template, ``{name}`` or ``{name:regex}``)
    is answered by ``handler``; ``operation`` is what the API reference says of it."""

    method: str
    path: str
    handler: Handler
    operation: Operation

    @property
    def template(self) -> str:
        """The path as OpenAPI writes it: ``{name}`` for aiohttp's ``{name:regex}``."""
        return _PATTERN.sub(r"{\1}", self.path)

    @property
    def operation_id(self) -> str:
        """The document's ``operationId``: the handler's name (``handle_`` left off)."""
        return self.handler.__name__.removeprefix("handle_")


def add_routes(app: web.Application) -> None:
    """Register every route of :data:`ROUTES` on ``app``, in the table's order. A ``GET`` also
    answers ``HEAD`` (aiohttp's ``add_get``), as it always has."""
    for route in ROUTES:
        if route.method == "GET":
            app.router.add_get(route.path, route.handler)
        else:
            app.router.add_route(route.method, route.path, route.handler)


ROUTES: tuple[Route, ...] = (
    Route(
        "POST",
        "/accounts",
        h.register,
        op(
            "Accounts",
            "Register an account",
            "Creates an account with a password and answers with a first token.",
            {
                201: answer("The account and a token", TokenResponse),
                400: problem(BAD_BODY),
                409: problem("The username is taken (`username-taken`)"),
                413: problem(TOO_LARGE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            body=json_body(Register, x.ACCOUNT_EXAMPLES),
        ),
    ),
    Route(
        "POST",
        "/sessions",
        h.login,
        op(
            "Accounts",
            "Log in",
            "Checks a password and answers with a fresh token.",
            {
                200: answer("A fresh token", TokenResponse),
                400: problem(BAD_BODY),
                401: problem("Wrong username or password (`unauthorized`)"),
                413: problem(TOO_LARGE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            body=json_body(Login, x.LOGIN_EXAMPLES),
        ),
    ),
    Route(
        "DELETE",
        "/sessions",
        h.logout,
        op(
            "Accounts",
            "Log out",
            "Revokes the token the request carries; with `everywhere=true`, every token of"
            " the account (log out everywhere). A WebSocket or SSE connection made with a"
            " revoked token refuses its commands and closes within seconds.",
            {
                204: answer("Revoked"),
                400: problem("`everywhere` is not `true` or `false` (`bad-request`)"),
                401: problem(NO_TOKEN),
                503: problem(UNAVAILABLE),
            },
            parameters=[
                param(
                    "everywhere",
                    "query",
                    {"type": "boolean", "default": False},
                    "Revoke every token of the account, not only this one.",
                )
            ],
            security=BEARER,
        ),
    ),
    Route(
        "POST",
        "/tickets",
        h.ticket,
        op(
            "Accounts",
            "A ticket for a stream",
            "A browser's WebSocket and EventSource cannot send the `Authorization` header,"
            " and a token must never be in a URL: this answers with a ticket to pass as"
            " `?ticket=` to `GET /tables/{table_id}/ws` or `/events` instead. A ticket opens"
            " one connection, within `expires_in` seconds, as the account of the token that"
            " asked for it; the connection stops when that token is revoked or expires.",
            {
                201: answer("The ticket", TicketResponse),
                401: problem(NO_TOKEN),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            security=BEARER,
        ),
    ),
    Route(
        "POST",
        "/guests",
        h.guest,
        op(
            "Accounts",
            "Play as a guest",
            "Creates a guest account (no password) and answers with its token. The body is"
            " optional.",
            {
                201: answer("The guest account and a token", TokenResponse),
                400: problem(BAD_BODY),
                413: problem(TOO_LARGE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            body={"required": False, **json_body(GuestRequest, x.GUEST_EXAMPLES)},
        ),
    ),
    Route(
        "GET",
        "/me",
        h.me,
        op(
            "Accounts",
            "The caller's account",
            "The account the token belongs to.",
            {
                200: answer("The account", Me),
                401: problem(NO_TOKEN),
                503: problem(UNAVAILABLE),
            },
            security=BEARER,
        ),
    ),
    Route(
        "GET",
        "/tables",
        h.lobby,
        op(
            "Tables",
            "The lobby",
            "Open and running tables, most recently active first: a projection of the log,"
            " a moment behind the tables themselves (poll it).",
            {
                200: answer("The tables", LobbyTables),
                400: problem("`kind` is not `money`, `match` or `chouette` (`bad-request`)"),
                503: problem(UNAVAILABLE),
            },
            parameters=[
                param(
                    "kind",
                    "query",
                    {"enum": ["money", "match", "chouette"]},
                    "Only tables of this kind.",
                )
            ],
        ),
    ),
    Route(
        "POST",
        "/tables",
        h.create_table,
        op(
            "Tables",
            "Create a table",
            "Creates a money table, a match or a chouette with its options (`TableOptions`;"
            " an option that does not apply to the kind is a 400). The creator is not"
            " seated: they `join` like everyone else. The table id is derived from"
            " `command_id`, so a retry names the same table.",
            {
                200: answer("A retry (same `command_id`): the table it created", CreatedTable),
                201: answer("Created: the table as its creator sees it", CreatedTable),
                400: problem(
                    f"{BAD_BODY}, or an option that does not apply to the kind (`invalid-command`)"
                ),
                401: problem(NO_TOKEN),
                409: problem(
                    f"The `command_id` was used for another command ({slugs('command-id-reused', 'exists')})"
                ),
                413: problem(TOO_LARGE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            body=json_body(CreateTableRequest, x.CREATE_EXAMPLES),
            security=BEARER,
        ),
    ),
    Route(
        "GET",
        "/tables/{table_id}",
        h.get_table,
        op(
            "Tables",
            "A table, as the caller sees it",
            "Whose turn it is and what the table waits for, what the caller may do now"
            " (`allowed`: commands only), the legal plays of the player on roll, the cubes,"
            " the Position ID and Match ID, the line and the ledger. The view's `kind`"
            " (`money`, `match` or `chouette`) says which fields it has. Without a token the"
            " caller is an anonymous spectator.",
            {
                200: answer("The table", TABLE_VIEW),
                401: problem(BAD_TOKEN),
                404: problem(NO_TABLE),
                503: problem(UNAVAILABLE),
            },
            parameters=[TABLE],
            security=OPTIONAL_BEARER,
        ),
    ),
    Route(
        "POST",
        "/tables/{table_id}/commands",
        h.post_command,
        op(
            "Tables",
            "Send a command",
            "Decides the command against the table and records its events (`Command`: its"
            " `type` says which). Nothing is recorded when it is refused. Retry-safe: the same"
            " `command_id` answers with the first outcome. `chat` goes to the table's chat"
            " stream (`stream: chat`); everything else to the table stream. Tables are"
            " created with `POST /tables`, not `create_table`.",
            {
                200: answer(
                    "A retry (same `command_id`): the first outcome, nothing new recorded",
                    CommandResult,
                ),
                201: answer("Recorded: the events it produced", CommandResult),
                400: problem(
                    f"{BAD_BODY}; a field that does not apply (`invalid-command`); a malformed play (`invalid-play`); `create_table`"
                ),
                401: problem(NO_TOKEN),
                403: problem(
                    f"Not the caller's turn or role ({slugs('not-your-turn', 'not-your-role', 'forbidden')})"
                ),
                404: problem(NO_TABLE),
                409: problem(
                    f"Not allowed now, the game is over, the `command_id` was used for another command, or a concurrent command won ({slugs('not-now', 'game-over', 'command-id-reused', 'version-conflict')})"
                ),
                413: problem(TOO_LARGE),
                422: problem("An illegal play; `detail` says why (`illegal-play`)"),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            body=json_body(CommandEnvelope, x.COMMAND_EXAMPLES),
            parameters=[TABLE],
            security=BEARER,
        ),
    ),
    Route(
        "GET",
        "/tables/{table_id}/ws",
        streams.websocket,
        op(
            "Streams",
            "Follow a table (WebSocket)",
            f"The table's events and chat, live. {STREAM_MESSAGES} Send a `CommandEnvelope`"
            " on the socket to play: the answer is a `CommandReply` (`ctl: result`) or a"
            " `CommandRefused` (`ctl: error`); commands need a `ticket` (or the header), and"
            " once its token is revoked or expired they are refused and the socket closes"
            " (`1008`).",
            {
                101: answer("Switching to the WebSocket protocol"),
                400: problem(
                    "`after` or `chat_after` is not an integer from 0 to 2^63 − 1, or the request is no WebSocket upgrade (`bad-request`, `http-error`)"
                ),
                401: problem(BAD_TICKET),
                404: problem(NO_TABLE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            parameters=[
                TABLE,
                TICKET,
                *resume_params(""),
            ],
            security=STREAM_TICKET,
        ),
    ),
    Route(
        "GET",
        "/tables/{table_id}/events",
        streams.sse,
        op(
            "Streams",
            "Follow a table (Server-Sent Events)",
            f"The same messages as the WebSocket, one per event (`data:`), each with `id:"
            f" <table version>.<chat version>` so that the browser's `Last-Event-ID` resumes"
            f" both streams. {STREAM_MESSAGES} On SSE a `Resync` is the `resync` event.",
            {
                200: text("`text/event-stream` of `EventMessage`s", "text/event-stream"),
                400: problem(
                    "`after`, `chat_after` or `Last-Event-ID` is malformed or out of range (`bad-request`)"
                ),
                401: problem(BAD_TICKET),
                404: problem(NO_TABLE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            parameters=[
                TABLE,
                TICKET,
                *resume_params(" (without `Last-Event-ID`)"),
                param(
                    "Last-Event-ID",
                    "header",
                    {"type": "string", "pattern": r"^[0-9]+(\.[0-9]*)?$"},
                    "`<table version>.<chat version>`, the `id` of the last event received.",
                ),
            ],
            security=STREAM_TICKET,
        ),
    ),
    Route(
        "GET",
        "/tables/{table_id}/replay",
        record_handlers.handle_replay,
        op(
            "Record",
            "The table at a version",
            "The table as it stood after version `at` (the fold of its events up to it), as"
            " the caller would have seen it, with the event at that version in words and"
            " notation and the table's latest `version` (a replay slider's range is 1 to"
            " `version`).",
            {
                200: answer("The table then, and the event", Replay),
                400: problem("`at` is not an integer from 0 to 2^63 − 1 (`bad-request`)"),
                401: problem(BAD_TOKEN),
                404: problem(f"{NO_TABLE}, or it has no version `at`"),
                503: problem(UNAVAILABLE),
            },
            parameters=[
                TABLE,
                param(
                    "at",
                    "query",
                    {"type": "integer", "minimum": 1, "maximum": BIGINT_MAX},
                    "The version, 1 to the table's latest (the default).",
                ),
            ],
            security=OPTIONAL_BEARER,
        ),
    ),
    Route(
        "GET",
        "/tables/{table_id}/audit",
        record_handlers.handle_audit,
        op(
            "Record",
            "Audit a table",
            "Checks every stream of the table: its hash chain, dense versions, each event"
            " decoded and re-decided by the rules, and each throw re-derived from its game's"
            " revealed seed (a game still in play is `pending`: its seed is secret). Names"
            " the first failure per stream with its version. 200 whatever it finds. The"
            " server keeps a table's audit: asked again, it checks only the events appended"
            " since. Limited per address (`CHOUETTE_RATE_AUDITS`).",
            {
                200: answer("The audit report", AuditReport),
                404: problem(NO_TABLE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            parameters=[TABLE],
        ),
    ),
    Route(
        "GET",
        "/tables/{table_id}/export.mat",
        record_handlers.handle_export_mat,
        op(
            "Record",
            "Export as a .mat file",
            "The table's games in GNU Backgammon's `.mat` format (`import mat`). A chouette"
            " exports one file per team member, their games against the box: name them"
            " with `member`.",
            {
                200: text(
                    "The `.mat` file",
                    "text/plain",
                    **{"Content-Disposition": '`attachment; filename="table-<id>.mat"`'},
                ),
                400: problem("A chouette, and no `member` (`member-required`)"),
                404: problem(f"{NO_TABLE}, or `member` never played at it (`no-such-member`)"),
                503: problem(UNAVAILABLE),
            },
            parameters=[
                TABLE,
                param(
                    "member",
                    "query",
                    {"type": "string"},
                    "A chouette: the account id of the member whose games to export (required there).",
                ),
            ],
        ),
    ),
    Route(
        "GET",
        "/log",
        h.global_feed,
        op(
            "Operations",
            "The global log (auditors)",
            "Events of every stream by their position in one partition of the log, for"
            " auditors and projectors. The token is the server's configured auditor token.",
            {
                200: answer("Events after `after`, at most `limit`", LogFeed),
                400: problem(
                    "`partition`, `after` or `limit` is not an integer in range (`bad-request`)"
                ),
                401: problem("No token, or a malformed `Authorization` header (`unauthorized`)"),
                403: problem("Not the auditor token (`forbidden`)"),
                503: problem(UNAVAILABLE),
            },
            parameters=[
                param(
                    "partition",
                    "query",
                    {"type": "integer", "minimum": 0, "default": 0},
                    "The log partition, 0 to the server's partitions − 1.",
                ),
                param(
                    "after",
                    "query",
                    {"type": "integer", "minimum": 0, "maximum": BIGINT_MAX, "default": 0},
                    "Events after this position.",
                ),
                param(
                    "limit",
                    "query",
                    {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": LOG_LIMIT_MAX,
                        "default": 1000,
                    },
                    "At most this many events.",
                ),
            ],
            security=BEARER,
        ),
    ),
    Route(
        "GET",
        "/log/heads",
        heads.log_heads,
        op(
            "Operations",
            "The signed chain heads",
            "Every log partition's last position with a running hash of its events, signed"
            " with the server's Ed25519 key (kept outside the database; the public key is at"
            " `/.well-known/chouette-signing-key`). Save it: `chouette audit --against` later"
            " shows any rewrite of the log since, however consistent. With `streams=true` and"
            " the auditor token, every stream's version and chain head too (they list every"
            " table id). The running hash and the signed bytes: docs/heads.md.",
            {
                200: answer("The heads, signed", HeadsDocument),
                400: problem("`streams` is not `true` or `false` (`bad-request`)"),
                401: problem(
                    "`streams=true` without a token, or a malformed `Authorization` header"
                    " (`unauthorized`)"
                ),
                403: problem("`streams=true` with a token that is not the auditor's (`forbidden`)"),
                429: too_many(),
                500: problem(
                    "The log has a hole (`corrupt-log`: the detail names each partition and"
                    " its first missing position, as `/readyz` does): the store is corrupt,"
                    " and no heads are signed until it is repaired"
                ),
                503: problem(UNAVAILABLE),
            },
            parameters=[
                param(
                    "streams",
                    "query",
                    {"type": "boolean", "default": False},
                    "Add every stream's head (the auditor token only).",
                )
            ],
            security=OPTIONAL_BEARER,
        ),
    ),
    Route(
        "GET",
        "/.well-known/chouette-signing-key",
        heads.signing_key,
        op(
            "Operations",
            "The heads' public key",
            "The Ed25519 public key that verifies `GET /log/heads` documents, and its"
            " fingerprint (each document names the key that signed it by it).",
            {200: answer("The public key", SigningKey)},
        ),
    ),
    Route(
        "GET",
        "/healthz",
        h.healthz,
        op("Operations", "Liveness", "The process answers.", {200: answer("Alive", Health)}),
    ),
    Route(
        "GET",
        "/readyz",
        h.readyz,
        op(
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
            {200: answer("Ready", Ready), 503: answer("Not ready", NotReady)},
        ),
    ),
    Route(
        "GET",
        "/metrics",
        h.metrics,
        op(
            "Operations",
            "Prometheus metrics",
            "Commands, latencies, connected clients and subscriber lag.",
            {200: text("The Prometheus text exposition format", "text/plain")},
        ),
    ),
    Route(
        "GET",
        "/openapi.json",
        api_docs.spec,
        op(
            "Reference",
            "This document",
            "The OpenAPI 3.1 document, generated from the server's types.",
            {
                200: {
                    "description": "OpenAPI 3.1",
                    "content": {JSON: {"schema": {"type": "object"}}},
                }
            },
        ),
    ),
    Route(
        "GET",
        "/docs",
        api_docs.docs,
        op(
            "Reference",
            "The interactive reference",
            "This document in Swagger UI: schemas, examples and *Try it out*. Served with"
            " its assets from this server, so it works offline.",
            {200: text("The page", "text/html")},
        ),
    ),
    Route(
        "GET",
        "/docs/static/{asset}",
        api_docs.docs_asset,
        op(
            "Reference",
            "An asset of the interactive reference",
            "Swagger UI's scripts, styles and icons, from the installed `swagger-ui-py` package.",
            {
                200: {
                    "description": "The asset",
                    "content": {
                        t: {"schema": {"type": "string"}}
                        for t in ("text/javascript", "text/css", "image/png")
                    },
                },
                304: answer(NOT_MODIFIED),
                404: problem(ABSENT),
            },
            parameters=[param("asset", "path", {"type": "string"}, "The file's name.")],
        ),
    ),
    Route(
        "GET",
        "/",
        page.index,
        op(
            "Page",
            "The web client",
            "The page a player opens in a browser: the lobby, the tables and their replays.",
            {200: text("The page", "text/html"), 304: answer(NOT_MODIFIED)},
        ),
    ),
    Route(
        "GET",
        "/static/{path:.+}",
        page.static,
        op(
            "Page",
            "A file of the web client",
            "The page's modules, styles and images.",
            {
                200: {
                    "description": "The file",
                    "content": {"*/*": {"schema": {"type": "string"}}},
                },
                304: answer(NOT_MODIFIED),
                404: problem(ABSENT),
            },
            parameters=[
                param("path", "path", {"type": "string"}, "The file's path under `/static/`.")
            ],
        ),
    ),
    Route(
        "GET",
        "/tables/{table_id}/analysis",
        analysis.handle_analysis,
        op(
            "Record",
            "Analyse the finished games",
            "GNU Backgammon's analysis of every finished game of the table at `ply`: each"
            " checker play and each close or actual cube decision with the action taken,"
            " the best action and the equity lost (EMG), marked `error` from 0.04 and"
            " `blunder` from 0.08; per player and per game the error rate (mEMG per"
            " decision) and luck (EMG). In a chouette each member's cube is analysed as"
            " their own game against the box, and the team's plays are credited to the"
            " acting captain. Computed off the event loop and kept until another game"
            " ends; never written to the table's log. Needs the server's optional extra"
            " (`pip install 'chouette[gnubg]'`): without it, 501. Limited per address"
            " (`CHOUETTE_RATE_ANALYSES`).",
            {
                200: answer("The analysis", Analysis),
                400: problem("`ply` is not 0, 1 or 2 (`bad-request`)"),
                401: problem(BAD_TOKEN),
                404: problem(NO_TABLE),
                409: problem(
                    "The table has finished no game yet: nothing to analyse (`no-finished-game`)"
                ),
                429: too_many(),
                501: problem(
                    "The server has no GNU Backgammon module: install the extra, `pip"
                    " install 'chouette[gnubg]'` (`analysis-unavailable`)"
                ),
                503: problem(
                    f"{UNAVAILABLE}; or the analysis took longer than the server allows"
                    " (`CHOUETTE_ANALYSIS_TIMEOUT`) or its worker stopped (`analysis-failed`)"
                ),
            },
            parameters=[
                TABLE,
                param(
                    "ply",
                    "query",
                    {"type": "integer", "minimum": 0, "maximum": 2, "default": 0},
                    "GNU Backgammon's evaluation depth: 0 (its neural nets), 1 or 2.",
                ),
            ],
            security=OPTIONAL_BEARER,
        ),
    ),
    Route(
        "POST",
        "/tables/{table_id}/bots",
        bh.seat_bot,
        op(
            "Tables",
            "Seat a bot",
            "The table's creator seats a bot (docs/bots.md): a new bot account joins like"
            " anyone"
            " (a seat, or the bottom of a chouette's line) and the server plays it through the"
            " same commands, at the `strength` asked for (required), `basic` or `gnubg`. A"
            " bot waives its seeds, never resigns, and never starts a money game. Retry-safe"
            " with `command_id`.",
            {
                200: answer("A retry: the bot seated the first time", BotSeated),
                201: answer("Seated; the table as the creator sees it", BotSeated),
                400: problem(
                    f"{BAD_BODY}, `strength` left out (`invalid-field`, naming it); a"
                    " seat at a chouette (`invalid-command`)"
                ),
                401: problem(NO_TOKEN),
                403: problem("Not the table's creator (`forbidden`)"),
                404: problem(NO_TABLE),
                409: problem(f"No free seat ({slugs('table-full', 'not-now')})"),
                413: problem(TOO_LARGE),
                429: too_many(),
                501: problem("`gnubg` without the extra installed (`extra-not-installed`)"),
                503: problem(UNAVAILABLE),
            },
            body=json_body(SeatBotRequest, {"basic": {"value": {"strength": "basic"}}}),
            parameters=[TABLE],
            security=BEARER,
        ),
    ),
    Route(
        "DELETE",
        "/tables/{table_id}/bots/{bot_id}",
        bh.remove_bot,
        op(
            "Tables",
            "Remove a bot",
            "The table's creator removes a bot: it leaves (a forfeit in mid-game,"
            " docs/rules.md §10). The answer is the table as the creator sees it.",
            {
                200: answer("Removed", TABLE_VIEW),
                401: problem(NO_TOKEN),
                403: problem("Not the table's creator (`forbidden`)"),
                404: problem(f"{NO_TABLE}, or no such bot at it"),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            parameters=[
                TABLE,
                param("bot_id", "path", {"type": "string"}, "The bot's id."),
            ],
            security=BEARER,
        ),
    ),
    Route(
        "GET",
        "/tables/{table_id}/history",
        history.handle_history,
        op(
            "Record",
            "A chouette's finished games",
            "A page of the table's finished games, oldest first, read back from its stream"
            " (the table view's `history` holds only the last few): each game's number, its"
            " box and captain as it started, and every member's game against the box as it"
            " was settled. Page back with `before` = the answer's `next_before`. Other kinds"
            " of table have none (an empty page). Limited per address"
            " (`CHOUETTE_RATE_HISTORY`).",
            {
                200: answer("A page of games", HistoryPage),
                400: problem(
                    f"`before` is not an integer from 1 to 2^63 − 1, or `limit` not one from"
                    f" 1 to {MAX_PAGE} (`bad-request`)"
                ),
                404: problem(NO_TABLE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            parameters=[
                TABLE,
                param(
                    "before",
                    "query",
                    {"type": "integer", "minimum": 1, "maximum": BIGINT_MAX},
                    "Only games numbered below this (default: up to the last one finished).",
                ),
                param(
                    "limit",
                    "query",
                    {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
                    "The most games in the page (default 20).",
                ),
            ],
        ),
    ),
    Route(
        "GET",
        "/players/{name}",
        social.player,
        op(
            "Social",
            "A player's profile",
            "Display name, when they joined, statistics per table kind (games, matches"
            " played and won, gammons, the ledger, time played), their recent tables with"
            " links to the replays, their rating and its history. To anyone but the player,"
            " private tables are neither listed nor counted (statistics, and the rating's"
            " experience, matches and wins). Read models of the log: a moment behind the"
            " tables."
            " Limited per address (`CHOUETTE_RATE_SOCIAL`).",
            {
                200: answer("The profile", Profile),
                400: problem(
                    "The name is not a username, or `recent` out of range (`bad-request`)"
                ),
                401: problem(BAD_TOKEN),
                404: problem("No player has this username (`not-found`)"),
                429: too_many(),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            parameters=[
                param(
                    "name",
                    "path",
                    {"type": "string", "pattern": "^[A-Za-z0-9_.-]{3,34}$"},
                    "The player's username, or account id (as the events name players).",
                ),
                param(
                    "recent",
                    "query",
                    {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
                    "How many recent tables and rated matches.",
                ),
            ],
            security=OPTIONAL_BEARER,
        ),
    ),
    Route(
        "GET",
        "/tables/{table_id}/ratings",
        social.table_ratings,
        op(
            "Social",
            "A match's rating change",
            "For a rated match that is over, both players' ratings before and after it;"
            " `changes` is empty before the end and for unrated tables.",
            {
                200: answer("The changes", TableRatings),
                401: problem(BAD_TOKEN),
                404: problem(PRIVATE_NO_TABLE),
                429: too_many(),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            parameters=[SOCIAL_TABLE],
            security=OPTIONAL_BEARER,
        ),
    ),
    Route(
        "GET",
        "/leaderboards/rating",
        social.rating_leaderboard,
        op(
            "Social",
            "The rating leaderboard",
            "Registered players by rating, best first, with at least the server's minimum"
            " experience (`CHOUETTE_LEADERBOARD_MIN_EXPERIENCE`); `min_experience` may ask"
            " for more, never less.",
            {
                200: answer("The leaderboard", RatingLeaderboard),
                400: problem("A parameter out of range (`bad-request`)"),
                429: too_many(),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            parameters=[
                param(
                    "min_experience",
                    "query",
                    {"type": "integer", "minimum": 0, "maximum": 1000000},
                    "Points of rated matches a player needs.",
                ),
                *PAGE_PARAMS,
            ],
        ),
    ),
    Route(
        "GET",
        "/leaderboards/chouette",
        social.chouette_leaderboard,
        op(
            "Social",
            "The chouette leaderboard",
            "Chouette winnings (points) over a period of UTC days, inclusive, best first;"
            " by default the last 30 days. A period is at most 3660 days, from 1970-01-01.",
            {
                200: answer("The leaderboard", ChouetteLeaderboard),
                400: problem(
                    "A date that is not YYYY-MM-DD or is before 1970-01-01, `since` after `until`, a period too long, or a parameter out of range (`bad-request`)"
                ),
                429: too_many(),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            parameters=[
                param(
                    "since",
                    "query",
                    DAY,
                    "The first day, from 1970-01-01 (default: 29 days before `until`, or"
                    " 1970-01-01 if that is later).",
                ),
                param("until", "query", DAY, "The last day, from 1970-01-01 (default: today)."),
                *PAGE_PARAMS,
            ],
        ),
    ),
    Route(
        "POST",
        "/tables/{table_id}/invitations",
        privacy.create_invitation,
        op(
            "Social",
            "Invite to a private table",
            f"A new invitation code, shown this once (the server keeps its hash). {SOCIAL_CREATOR}"
            " Limited per address (`CHOUETTE_RATE_INVITATIONS`).",
            {
                201: answer("The invitation", Invitation),
                401: problem(NO_TOKEN),
                403: problem("The caller did not create the table (`forbidden`)"),
                404: problem(PRIVATE_NO_TABLE),
                409: problem("The table is not private (`not-private`)"),
                429: too_many(),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            parameters=[SOCIAL_TABLE],
            security=BEARER,
        ),
    ),
    Route(
        "GET",
        "/tables/{table_id}/invitations",
        privacy.list_invitations,
        op(
            "Social",
            "A private table's invitations",
            f"Each invitation (never its code), revoked or not, and how many redeemed it. {SOCIAL_CREATOR}",
            {
                200: answer("The invitations", Invitations),
                401: problem(NO_TOKEN),
                403: problem("The caller did not create the table (`forbidden`)"),
                404: problem(PRIVATE_NO_TABLE),
                409: problem("The table is not private (`not-private`)"),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            parameters=[SOCIAL_TABLE],
            security=BEARER,
        ),
    ),
    Route(
        "DELETE",
        "/tables/{table_id}/invitations/{invitation_id}",
        privacy.revoke_invitation,
        op(
            "Social",
            "Revoke an invitation",
            "The code stops working at once, and so does the access it gave to those who"
            " have not joined the table (unless another live invitation they redeemed gives"
            " it): their open WebSocket and SSE connections close within the session-check"
            f" interval. {SOCIAL_CREATOR}",
            {
                204: answer("Revoked"),
                401: problem(NO_TOKEN),
                403: problem("The caller did not create the table (`forbidden`)"),
                404: problem(f"{PRIVATE_NO_TABLE}, or no such invitation"),
                409: problem("The table is not private (`not-private`)"),
                429: too_many(),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            parameters=[
                SOCIAL_TABLE,
                param(
                    "invitation_id",
                    "path",
                    {"type": "string", "pattern": "^[0-9a-f]{32}$"},
                    "The invitation's id (from its creation or the list).",
                ),
            ],
            security=BEARER,
        ),
    ),
    Route(
        "POST",
        "/invitations",
        privacy.redeem_invitation,
        op(
            "Social",
            "Redeem an invitation",
            "The caller's account may then see, watch and join the private table, while"
            " the invitation is not revoked. Limited per address.",
            {
                200: answer("The table", Redeemed),
                400: problem(BAD_BODY),
                401: problem(NO_TOKEN),
                404: problem("The code is unknown or revoked (`not-found`)"),
                413: problem("The body is larger than the server's limit (`too-large`)"),
                429: too_many(),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            body=json_body(RedeemRequest),
            security=BEARER,
        ),
    ),
    Route(
        "GET",
        "/me/tables",
        privacy.my_tables,
        op(
            "Social",
            "My private tables",
            "The private tables the caller created, was invited to or played at, newest"
            " first; `name` keeps those whose name contains each of its words, in any order"
            " and however spaced (case aside): how a club"
            " finds its standing chouette.",
            {
                200: answer("The tables", MyTables),
                400: problem("`name` too long or with control characters (`bad-request`)"),
                401: problem(NO_TOKEN),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            parameters=[
                param(
                    "name",
                    "query",
                    {"type": "string", "maxLength": 100},
                    "Part of the table's name.",
                ),
            ],
            security=BEARER,
        ),
    ),
)
"""Every route of the server, in the order the reference lists them."""
