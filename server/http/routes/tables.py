"""The tables' routes: the lobby, creating a table, a table's view, its commands, seating and
removing bots, and following it live (WebSocket and Server-Sent Events). Part of the one route
table (:mod:`server.http.routes`)."""

from __future__ import annotations

from server.http import bots as bh
from server.http import handlers as h
from server.http import streams
from server.http.bots import BotSeated, SeatBotRequest
from server.http.common import (
    CommandEnvelope,
    CommandResult,
    CreateTableRequest,
)
from server.http.routes.route import Route
from server.openapi import examples as x
from server.openapi.operation import (
    BAD_BODY,
    BAD_TICKET,
    BAD_TOKEN,
    BEARER,
    NO_TABLE,
    NO_TOKEN,
    OPTIONAL_BEARER,
    STREAM_MESSAGES,
    STREAM_TICKET,
    TABLE,
    TABLE_VIEW,
    TICKET,
    TOO_LARGE,
    UNAVAILABLE,
    VIEWS,
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
from server.views.schemas import (
    CreatedTable,
    LobbyTables,
)

__all__ = ["ROUTES"]

ROUTES: tuple[Route, ...] = (
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
                    "`after` or `chat_after` is not an integer from 0 to 2^63 − 1, `views` is"
                    " not 0 or 1, or the request is no WebSocket upgrade (`bad-request`,"
                    " `http-error`)"
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
                VIEWS,
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
)
