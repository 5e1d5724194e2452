"""The OpenAPI description of a table's bots (``POST /tables/{id}/bots``, ``DELETE
/tables/{id}/bots/{bot}``) and its history (``GET /tables/{id}/history``), merged into
:mod:`server.openapi.document`."""

from __future__ import annotations

from typing import Any

from server.http.history import MAX_PAGE

__all__ = ["paths"]


def paths(o: Any) -> dict[str, Any]:
    """The operation, made with the pieces of :mod:`server.openapi.document` (passed in: ``o``)."""
    return {
        "/tables/{table_id}/bots": {
            "post": o._op(
                "Tables",
                "Seat a bot",
                "The table's creator seats a bot (docs/bots.md): a new bot account joins like"
                " anyone"
                " (a seat, or the bottom of a chouette's line) and the server plays it through the"
                " same commands, at the `strength` asked for (required), `basic` or `gnubg`. A"
                " bot waives its seeds, never resigns, and never starts a money game. Retry-safe"
                " with `command_id`.",
                {
                    200: o._answer("A retry: the bot seated the first time", "BotSeated"),
                    201: o._answer("Seated; the table as the creator sees it", "BotSeated"),
                    400: o._problem(
                        f"{o.BAD_BODY}, `strength` left out (`invalid-field`, naming it); a"
                        " seat at a chouette (`invalid-command`)"
                    ),
                    401: o._problem(o.NO_TOKEN),
                    403: o._problem("Not the table's creator (`forbidden`)"),
                    404: o._problem(o.NO_TABLE),
                    409: o._problem(f"No free seat ({o._slugs('table-full', 'not-now')})"),
                    413: o._problem(o.TOO_LARGE),
                    429: o._too_many(),
                    501: o._problem("`gnubg` without the extra installed (`extra-not-installed`)"),
                    503: o._problem(o.UNAVAILABLE),
                },
                body=o._json_body("SeatBotRequest", {"basic": {"value": {"strength": "basic"}}}),
                parameters=[o.TABLE],
                security=o.BEARER,
            )
        },
        "/tables/{table_id}/bots/{bot_id}": {
            "delete": o._op(
                "Tables",
                "Remove a bot",
                "The table's creator removes a bot: it leaves (a forfeit in mid-game,"
                " docs/rules.md §10). The answer is the table as the creator sees it.",
                {
                    200: o._answer("Removed", "TableView"),
                    401: o._problem(o.NO_TOKEN),
                    403: o._problem("Not the table's creator (`forbidden`)"),
                    404: o._problem(f"{o.NO_TABLE}, or no such bot at it"),
                    429: o._too_many(),
                    503: o._problem(o.UNAVAILABLE),
                },
                parameters=[
                    o.TABLE,
                    o._param("bot_id", "path", {"type": "string"}, "The bot's id."),
                ],
                security=o.BEARER,
            )
        },
        "/tables/{table_id}/history": {
            "get": o._op(
                "Record",
                "A chouette's finished games",
                "A page of the table's finished games, oldest first, read back from its stream"
                " (the table view's `history` holds only the last few): each game's number, its"
                " box and captain as it started, and every member's game against the box as it"
                " was settled. Page back with `before` = the answer's `next_before`. Other kinds"
                " of table have none (an empty page). Limited per address"
                " (`CHOUETTE_RATE_HISTORY`).",
                {
                    200: o._answer("A page of games", "HistoryPage"),
                    400: o._problem(
                        f"`before` is not an integer from 1 to 2^63 − 1, or `limit` not one from"
                        f" 1 to {MAX_PAGE} (`bad-request`)"
                    ),
                    404: o._problem(o.NO_TABLE),
                    429: o._too_many(),
                    503: o._problem(o.UNAVAILABLE),
                },
                parameters=[
                    o.TABLE,
                    o._param(
                        "before",
                        "query",
                        {"type": "integer", "minimum": 1, "maximum": o.h.BIGINT_MAX},
                        "Only games numbered below this (default: up to the last one finished).",
                    ),
                    o._param(
                        "limit",
                        "query",
                        {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
                        "The most games in the page (default 20).",
                    ),
                ],
            )
        },
    }
