"""The OpenAPI description of ``GET /tables/{id}/analysis`` (merged into
:mod:`server.openapi.document`):
its answer's types and its operation."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

__all__ = ["Analysis", "paths"]


class AnalysisFigures(msgspec.Struct, kw_only=True):
    """A player's figures over a game or the whole table, in GNU Backgammon's units."""

    decisions: Annotated[
        int, Meta(description="Unforced checker plays and close or actual cube decisions.")
    ]
    checker_plays: int
    cube_decisions: int
    blunders: Annotated[int, Meta(description="Decisions that lost 0.08 EMG or more.")]
    error_total_emg: Annotated[float, Meta(description="Equity lost in all, EMG.")]
    error_rate_memg: Annotated[
        float, Meta(description="Equity lost per decision, mEMG (GNU's error rate).")
    ]
    luck_total_emg: Annotated[float, Meta(description="The rolls' luck in all, EMG.")]
    luck_rate_memg: Annotated[float, Meta(description="Luck per roll, mEMG.")]


class AnalysisPlayer(AnalysisFigures, kw_only=True):
    name: str


class AnalysisDecision(msgspec.Struct, kw_only=True):
    """One decision, GNU Backgammon's verdict on it."""

    game: int
    move: Annotated[int, Meta(description="GNU Backgammon's move number in the game.")]
    version: Annotated[int, Meta(description="The table's event version of the decision.")]
    cube: Annotated[str | None, Meta(description="A chouette: whose cube (the team member's id).")]
    player: Annotated[str, Meta(description="Who decided (a chouette's captain for the team).")]
    kind: Literal["play", "double", "take"]
    dice: list[int] | None = None
    action: Annotated[
        str, Meta(description="A play, `(no) double`, `(no) redouble`, `take`, `drop`, `beaver`")
    ]
    best: Annotated[str, Meta(description="GNU Backgammon's best action at the ply.")]
    equity_lost: Annotated[float, Meta(ge=0, description="EMG (cubeful, normalised in a match).")]
    mark: Literal["", "error", "blunder"]


class AnalysisGame(msgspec.Struct, kw_only=True):
    number: int
    players: dict[str, AnalysisFigures]
    decisions: list[AnalysisDecision]
    unmatched: Annotated[
        int, Meta(description="Moves GNU Backgammon read that match no event (left out).")
    ]


class Analysis(msgspec.Struct, kw_only=True):
    """The analysis of a table's finished games (`GET /tables/{table_id}/analysis`)."""

    table: str
    kind: Literal["money", "match", "chouette"]
    ply: int
    version: Annotated[int, Meta(description="The table's version the analysis read up to.")]
    engine: str
    thresholds: dict[str, float]
    players: dict[str, AnalysisPlayer]
    games: list[AnalysisGame]


def paths(o: Any) -> dict[str, Any]:
    """The operation, made with the pieces of :mod:`server.openapi.document` (passed in: ``o``)."""
    return {
        "/tables/{table_id}/analysis": {
            "get": o._op(
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
                    200: o._answer("The analysis", "Analysis"),
                    400: o._problem("`ply` is not 0, 1 or 2 (`bad-request`)"),
                    401: o._problem(o.BAD_TOKEN),
                    404: o._problem(o.NO_TABLE),
                    409: o._problem(
                        "The table has finished no game yet: nothing to analyse"
                        " (`no-finished-game`)"
                    ),
                    429: o._too_many(),
                    501: o._problem(
                        "The server has no GNU Backgammon module: install the extra, `pip"
                        " install 'chouette[gnubg]'` (`analysis-unavailable`)"
                    ),
                    503: o._problem(
                        f"{o.UNAVAILABLE}; or the analysis took longer than the server allows"
                        " (`CHOUETTE_ANALYSIS_TIMEOUT`) or its worker stopped (`analysis-failed`)"
                    ),
                },
                parameters=[
                    o.TABLE,
                    o._param(
                        "ply",
                        "query",
                        {"type": "integer", "minimum": 0, "maximum": 2, "default": 0},
                        "GNU Backgammon's evaluation depth: 0 (its neural nets), 1 or 2.",
                    ),
                ],
                security=o.OPTIONAL_BEARER,
            )
        }
    }
