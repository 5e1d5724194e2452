"""A table's record: its replay, audit, ``.mat`` export, analysis and a chouette's paged
history. Part of the one route table (:mod:`server.http.routes`)."""

from __future__ import annotations

from server.http import analysis, history
from server.http import records as record_handlers
from server.http.common import (
    BIGINT_MAX,
)
from server.http.history import MAX_PAGE, HistoryPage
from server.http.routes.route import Route
from server.openapi.analysis import Analysis
from server.openapi.operation import (
    BAD_TOKEN,
    NO_TABLE,
    OPTIONAL_BEARER,
    TABLE,
    UNAVAILABLE,
    answer,
    op,
    param,
    problem,
    text,
    too_many,
)
from server.views.schemas import (
    AuditReport,
    Replay,
)

__all__ = ["ROUTES"]

ROUTES: tuple[Route, ...] = (
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
)
