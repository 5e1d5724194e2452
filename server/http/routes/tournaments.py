"""The tournaments' routes (docs/tournaments.md): creating one, entering and withdrawing, the
director's start and adjustments, the list and a tournament's state. Part of the one route
table (:mod:`server.http.routes`)."""

from __future__ import annotations

from server.http import tournament_streams
from server.http import tournaments as t
from server.http.common import BIGINT_MAX
from server.http.routes.route import Route
from server.openapi.operation import (
    BAD_BODY,
    BAD_TICKET,
    BAD_TOKEN,
    BEARER,
    NO_TOKEN,
    OPTIONAL_BEARER,
    STREAM_TICKET,
    TICKET,
    TOO_LARGE,
    UNAVAILABLE,
    answer,
    json_body,
    op,
    param,
    problem,
    slugs,
    text,
    too_many,
)

__all__ = ["ROUTES"]

TOURNAMENT = param(
    "tournament_id", "path", {"type": "string", "format": "uuid"}, "The tournament id."
)
NO_TOURNAMENT = (
    "No tournament has this id, or it is private and the caller is neither its director, nor"
    " invited, nor entered (`not-found`)"
)
VIEW = (
    "Answered with the tournament's state as `GET /tournaments/{tournament_id}` gives it. A"
    " `command_id` makes a retry record nothing twice."
)
AFTER = param(
    "after",
    "query",
    {"type": "integer", "minimum": 0, "maximum": BIGINT_MAX, "default": 0},
    "Resume after this version of the tournament's stream (the last `v` received).",
)
STREAM = (
    'Each message is an `EventMessage` `{"v": version, "s": "tournament", "t": type,'
    ' "d": event, "h": chain hash}`, one per event of the tournament\'s stream (its'
    " creation, entries, withdrawals, each round paired with its boards' match tables, the"
    " results and adjustments, its end), versions gap-free from 1; what a person typed (the"
    " name, an adjustment's reason) is opened, or is the pseudonym of an erased account. A"
    " version ahead of the stream, or further back than the resync window, is answered with a"
    " `Resync` (`ctl: resync`): fetch `GET /tournaments/{tournament_id}` (its `version`) and"
    " reconnect from there. The same tickets, caps and rate limits as a table's stream."
)

LIMITS = (
    " A tournament counts as a table created (`CHOUETTE_RATE_TABLES`); entering, withdrawing,"
    " starting and adjusting as commands (`CHOUETTE_RATE_COMMANDS`). Limits: a knockout or Swiss field of at most 256, a round robin of 32 (`max_field` no"
    " more), Swiss rounds 1 to 20, matches of 1 to 25 points, 256 invited accounts."
)

ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/tournaments",
        t.listing,
        op(
            "Tournaments",
            "The tournaments",
            "Every public tournament (and the private ones the caller directs, is invited to or"
            " entered), with its status: `entering`, `playing` or `finished`. Folded from each"
            " tournament's stream of the log.",
            {
                200: answer("The tournaments", t.TournamentList),
                401: problem(BAD_TOKEN),
                503: problem(UNAVAILABLE),
            },
            security=OPTIONAL_BEARER,
        ),
    ),
    Route(
        "POST",
        "/tournaments",
        t.create,
        op(
            "Tournaments",
            "Create a tournament",
            "A registered account creates a knockout, a Swiss tournament or a round robin of"
            " matches, and is its director (guests may not: 403). The id is derived from"
            " `command_id`, so a retry names the same tournament. Each round's match tables"
            " are created by the server when the round is paired, with the tournament's"
            " match length, clock and rated flag, and both players seated." + LIMITS,
            {
                200: answer("A retry (same `command_id`)", t.CreatedTournament),
                201: answer("Created", t.CreatedTournament),
                400: problem(f"{BAD_BODY}, or options that do not go together (`invalid-command`)"),
                401: problem(NO_TOKEN),
                403: problem("A guest (`forbidden`)"),
                409: problem(
                    f"The `command_id` was used for another command ({slugs('command-id-reused', 'not-now')})"
                ),
                413: problem(TOO_LARGE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            body=json_body(t.CreateTournamentRequest),
            security=BEARER,
        ),
    ),
    Route(
        "GET",
        "/tournaments/{tournament_id}",
        t.get,
        op(
            "Tournaments",
            "A tournament",
            "Its options, entrants (with their seeding rating), every round's boards with"
            " their match tables' links and results (how each was decided: the match, a"
            " no-show, a withdrawal, the director's adjustment and its reason), and the"
            " standings (Swiss, round robin) or the bracket to the final (knockout).",
            {
                200: answer("The tournament", t.TournamentView),
                401: problem(BAD_TOKEN),
                404: problem(NO_TOURNAMENT),
                503: problem(UNAVAILABLE),
            },
            parameters=[TOURNAMENT],
            security=OPTIONAL_BEARER,
        ),
    ),
    Route(
        "POST",
        "/tournaments/{tournament_id}/entries",
        t.enter,
        op(
            "Tournaments",
            "Enter a tournament",
            "The caller enters, seeded by their rating. A guest may not enter a rated"
            " tournament (403); entering twice, after the entry window or the start, or a"
            " full field is a 409. The body (a `command_id`) is optional. " + VIEW,
            {
                200: answer("Entered", t.TournamentView),
                400: problem(BAD_BODY),
                401: problem(NO_TOKEN),
                403: problem("A guest in a rated tournament (`not-your-role`)"),
                404: problem(NO_TOURNAMENT),
                409: problem(
                    "Already entered, the entries closed or the field full (`not-now`), or"
                    " the `command_id` used for another command (`command-id-reused`)"
                ),
                413: problem(TOO_LARGE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            body=json_body(t.EntryRequest),
            parameters=[TOURNAMENT],
            security=BEARER,
        ),
    ),
    Route(
        "DELETE",
        "/tournaments/{tournament_id}/entries/me",
        t.withdraw,
        op(
            "Tournaments",
            "Withdraw from a tournament",
            "The caller withdraws: not paired again; a match of theirs still to play is"
            " forfeited (and they leave its table). " + VIEW,
            {
                200: answer("Withdrawn", t.TournamentView),
                401: problem(NO_TOKEN),
                404: problem(NO_TOURNAMENT),
                409: problem("Not entered, already withdrawn, or the tournament over (`not-now`)"),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            parameters=[TOURNAMENT],
            security=BEARER,
        ),
    ),
    Route(
        "POST",
        "/tournaments/{tournament_id}/start",
        t.start,
        op(
            "Tournaments",
            "Start a tournament",
            "The director closes the entries and the first round is paired (its tables"
            " created at once); from then on each round is paired as the last result of the"
            " one before is in. The body (a `command_id`) is optional. " + VIEW,
            {
                200: answer("Started", t.TournamentView),
                400: problem(BAD_BODY),
                401: problem(NO_TOKEN),
                403: problem("Not the director (`not-your-role`)"),
                404: problem(NO_TOURNAMENT),
                409: problem("Already started, or fewer than 2 entrants (`not-now`)"),
                413: problem(TOO_LARGE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            body=json_body(t.EntryRequest),
            parameters=[TOURNAMENT],
            security=BEARER,
        ),
    ),
    Route(
        "POST",
        "/tournaments/{tournament_id}/adjust",
        t.adjust,
        op(
            "Tournaments",
            "Adjust a result",
            "The director changes a decided board's result, for a reason that is recorded."
            " A knockout's result can be adjusted only until the next round is paired from"
            " it; nothing after the tournament is over. " + VIEW,
            {
                200: answer("Adjusted", t.TournamentView),
                400: problem(BAD_BODY),
                401: problem(NO_TOKEN),
                403: problem("Not the director (`not-your-role`)"),
                404: problem(NO_TOURNAMENT),
                409: problem(
                    "No such round or board, a bye, a board not decided, a winner not on it,"
                    " or the tournament over (`not-now`)"
                ),
                413: problem(TOO_LARGE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            body=json_body(t.AdjustRequest),
            parameters=[TOURNAMENT],
            security=BEARER,
        ),
    ),
    Route(
        "GET",
        "/tournaments/{tournament_id}/ws",
        tournament_streams.tournament_websocket,
        op(
            "Streams",
            "Follow a tournament (WebSocket)",
            f"The tournament's events, live. {STREAM} The socket takes no commands: anything"
            " sent is answered with a `CommandRefused` (`ctl: error`, a 400) and the socket"
            " closes (`1008`); so does it once its token is revoked or expired.",
            {
                101: answer("Switching to the WebSocket protocol"),
                400: problem(
                    "`after` is not an integer from 0 to 2^63 − 1, or the request is no"
                    " WebSocket upgrade (`bad-request`, `http-error`)"
                ),
                401: problem(BAD_TICKET),
                404: problem(NO_TOURNAMENT),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            parameters=[TOURNAMENT, TICKET, AFTER],
            security=STREAM_TICKET,
        ),
    ),
    Route(
        "GET",
        "/tournaments/{tournament_id}/events",
        tournament_streams.tournament_sse,
        op(
            "Streams",
            "Follow a tournament (Server-Sent Events)",
            "The same messages as the WebSocket, one per event (`data:`), each with `id:"
            f" <version>` so that the browser's `Last-Event-ID` resumes. {STREAM} On SSE a"
            " `Resync` is the `resync` event.",
            {
                200: text("`text/event-stream` of `EventMessage`s", "text/event-stream"),
                400: problem(
                    "`after` or `Last-Event-ID` is malformed or out of range (`bad-request`)"
                ),
                401: problem(BAD_TICKET),
                404: problem(NO_TOURNAMENT),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            parameters=[
                TOURNAMENT,
                TICKET,
                AFTER,
                param(
                    "Last-Event-ID",
                    "header",
                    {"type": "string", "pattern": r"^[0-9]+$"},
                    "The `id` of the last event received (its version); before `after`.",
                ),
            ],
            security=STREAM_TICKET,
        ),
    ),
)
