"""The types of ``GET /tables/{id}/analysis``'s answer, for the OpenAPI document (the operation
is the route table's: :mod:`server.http.routes`)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

__all__ = ["Analysis"]


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
