"""The tournaments' HTTP handlers and their request and answer structs (docs/tournaments.md).

A tournament's own answers are read from its stream folded (:class:`events.tournament_service.
TournamentService` keeps the folds cached and catches them up with one read of what is new): a
tournament's stream is short (its entries, its rounds, their results). The list is a read model
(:mod:`server.readmodels.tournaments`), caught up with the log before it is read. A private
tournament is, to anyone but its director, the accounts it invites and its entrants, exactly what
an unknown tournament is: a 404 (and it is not listed).
"""

from __future__ import annotations

import uuid
from typing import Annotated, Literal

import msgspec
from aiohttp import web
from msgspec import Meta

from engine.tournament import Format, bracket, standings
from events.domain import commands as c
from events.domain.tournament import TournamentNotFoundError, TournamentState
from events.domain.types import Name, Text, TournamentOptions
from events.tournament_service import TournamentService
from server.access import auth, ratelimit
from server.http.common import current_account, decode_body, json_response
from server.http.problems import forbidden
from server.http.social import READ_MODELS
from server.keys import ACCOUNTS_POOL, TABLES
from server.readmodels.ratings import player_rating
from server.readmodels.tournaments import caught_up, display_names, listed, status_of

__all__ = [
    "TOURNAMENTS",
    "AdjustRequest",
    "CreateTournamentRequest",
    "CreatedTournament",
    "EntryRequest",
    "TournamentList",
    "TournamentView",
    "adjust",
    "create",
    "enter",
    "get",
    "listing",
    "start",
    "tournament_id_of",
    "visible",
    "withdraw",
]

TOURNAMENTS: web.AppKey[TournamentService] = web.AppKey("tournaments")

Id = Annotated[str, Meta(min_length=1, max_length=64)]


# -- requests -----------------------------------------------------------------------------------


class CreateTournamentRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    command_id: uuid.UUID | None = None
    options: TournamentOptions
    name: Annotated[Name, Meta(max_length=100)] = ""


class EntryRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Optional: a command id, so that a retried request records once."""

    command_id: uuid.UUID | None = None


class AdjustRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    command_id: uuid.UUID | None = None
    round: Annotated[int, Meta(ge=1, le=255)]
    board: Annotated[int, Meta(ge=1, le=128)]
    winner: Annotated[Name, Meta(min_length=1, max_length=64)] | None
    """Who wins the board now (null: nobody, which needs ``forfeit``; never in a knockout)."""
    forfeit: bool = False
    reason: Annotated[Text, Meta(min_length=1, max_length=500)]


# -- answers ------------------------------------------------------------------------------------


class EntrantView(msgspec.Struct, kw_only=True):
    player: str
    name: str
    rating: float
    withdrawn: bool


class BoardView(msgspec.Struct, kw_only=True):
    board: int
    a: str
    b: str | None
    """null: ``a`` has the bye."""
    table_id: str | None
    table: str | None
    """The match table's link (``/tables/{id}``); null for a bye or a board decided unplayed."""
    decided: bool
    winner: str | None
    forfeit: bool
    how: str | None
    """``match``, ``no_show``, ``adjusted``, ``bye`` or ``withdrawal``; null while undecided."""
    reason: str | None


class RoundView(msgspec.Struct, kw_only=True):
    round: int
    complete: bool
    boards: list[BoardView]


class StandingView(msgspec.Struct, kw_only=True):
    rank: int
    player: str
    points: int
    played: int
    won: int
    buchholz: int
    sonneborn_berger: int
    withdrawn: bool


class BracketView(msgspec.Struct, kw_only=True):
    round: int
    a: str | None
    b: str | None
    bye: bool
    winner: str | None
    third_place: bool


class TournamentView(msgspec.Struct, kw_only=True):
    id: str
    name: str
    director: str
    director_name: str = ""
    """The director's display name (a pseudonym once they are erased)."""
    options: TournamentOptions
    status: Literal["entering", "playing", "finished"]
    version: int
    entrants: list[EntrantView]
    rounds: list[RoundView]
    total_rounds: int | None
    standings: list[StandingView] | None
    """Swiss and round robin (null for a knockout)."""
    bracket: list[list[BracketView]] | None
    """A knockout: every round to the final (null otherwise)."""
    winner: str | None


class CreatedTournament(msgspec.Struct, kw_only=True):
    id: str
    duplicate: bool
    tournament: TournamentView


class TournamentSummary(msgspec.Struct, kw_only=True):
    id: str
    name: str
    director: str
    format: str
    status: Literal["entering", "playing", "finished"]
    entrants: int
    rounds: int
    rated: bool
    private: bool
    winner: str | None


class TournamentList(msgspec.Struct, kw_only=True):
    tournaments: list[TournamentSummary]


def _how(s: TournamentState, number: int, board_no: int) -> str | None:
    board = s.t.rounds[number - 1].boards[board_no - 1]
    if not board.decided:
        return None
    if board.is_bye:
        return "bye"
    return s.how.get((number, board_no), "withdrawal")


async def view(app: web.Application, s: TournamentState) -> TournamentView:
    """What ``GET /tournaments/{id}`` answers for ``s``."""
    t = s.t
    assert s.options is not None
    names = await _names(app, [s.created_by, *(x.player for x in t.entrants)])
    rounds = [
        RoundView(
            round=r.number,
            complete=r.is_complete,
            boards=[
                BoardView(
                    board=b.number,
                    a=b.pairing.a,
                    b=b.pairing.b,
                    table_id=(tid := s.tables.get((r.number, b.number))),
                    table=None if tid is None else f"/tables/{tid}",
                    decided=b.decided,
                    winner=b.winner,
                    forfeit=b.forfeit,
                    how=_how(s, r.number, b.number),
                    reason=b.reason,
                )
                for b in r.boards
            ],
        )
        for r in t.rounds
    ]
    table = drawn = None
    if t.format is Format.KNOCKOUT:
        drawn = [
            [
                BracketView(
                    round=m.round,
                    a=m.a,
                    b=m.b,
                    bye=m.bye,
                    winner=m.winner,
                    third_place=m.third_place,
                )
                for m in r
            ]
            for r in bracket(t)
        ]
    else:
        table = [
            StandingView(
                rank=x.rank,
                player=x.player,
                points=x.points,
                played=x.played,
                won=x.won,
                buchholz=x.buchholz,
                sonneborn_berger=x.sonneborn_berger,
                withdrawn=x.withdrawn,
            )
            for x in standings(t)
        ]
    return TournamentView(
        id=s.tournament_id,
        name=s.name,
        director=s.created_by,
        director_name=names.get(s.created_by, ""),
        options=s.options,
        status=status_of(s),
        version=s.version,
        entrants=[
            EntrantView(
                player=x.player,
                name=names.get(x.player, ""),
                rating=x.rating,
                withdrawn=x.player in t.withdrawn,
            )
            for x in t.entrants
        ],
        rounds=rounds,
        total_rounds=t.total_rounds,
        standings=table,
        bracket=drawn,
        winner=s.winner,
    )


async def _names(app: web.Application, players: list[str]) -> dict[str, str]:
    return await display_names(app[ACCOUNTS_POOL], players)


# -- handlers -----------------------------------------------------------------------------------


def tournament_id_of(request: web.Request) -> str:
    """The path's tournament id in its canonical form; an id that is no UUID names no
    tournament (the 404 an unknown one gets)."""
    raw = request.match_info["tournament_id"]
    try:
        return str(uuid.UUID(raw))
    except ValueError:
        raise TournamentNotFoundError(raw[:40]) from None


async def visible(app: web.Application, tid: str, account: auth.Account | None) -> TournamentState:
    """The tournament, if the caller may know of it; else the unknown tournament's 404 (its
    routes and its live stream, :mod:`server.http.streams`, ask this one check)."""
    state = await app[TOURNAMENTS].state(tid)
    if not state.may_see(account.account_id if account else None):
        raise TournamentNotFoundError(tid)
    return state


async def _optional_body(request: web.Request) -> EntryRequest:
    if not request.can_read_body:
        return EntryRequest()
    return await decode_body(request, EntryRequest)


async def _run(
    request: web.Request,
    tid: str,
    account: auth.Account,
    command: c.TournamentCommand,
    command_id: uuid.UUID | None,
) -> web.Response:
    request.app[ratelimit.LIMITS].hit("commands", account.account_id)
    service = request.app[TOURNAMENTS]
    await service.execute(tid, account.account_id, command, command_id or uuid.uuid4())
    return json_response(await view(request.app, await service.state(tid)))


async def create(request: web.Request) -> web.Response:
    """``POST /tournaments``: a registered account creates one and directs it."""
    account = await current_account(request)
    assert account is not None
    body = await decode_body(request, CreateTournamentRequest)
    if account.guest:
        raise forbidden("a guest cannot direct a tournament; register first")
    # A tournament makes tables: it counts as one created (CHOUETTE_RATE_TABLES).
    request.app[ratelimit.LIMITS].hit("tables", account.account_id)
    command_id = body.command_id or uuid.uuid4()
    tid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"chouette:tournament:{command_id}"))
    service = request.app[TOURNAMENTS]
    command = c.CreateTournament(options=body.options, name=body.name)
    outcome = await service.execute(tid, account.account_id, command, command_id)
    state = await service.state(tid)
    return json_response(
        CreatedTournament(
            id=tid, duplicate=outcome.duplicate, tournament=await view(request.app, state)
        ),
        200 if outcome.duplicate else 201,
    )


async def listing(request: web.Request) -> web.Response:
    """``GET /tournaments``: the public tournaments (and the private ones the caller may
    see), newest first, from the list's read model caught up with the log."""
    account = await current_account(request, required=False)
    await caught_up(request.app[READ_MODELS])
    rows = await listed(request.app[ACCOUNTS_POOL], account.account_id if account else None)
    out = [
        TournamentSummary(
            id=r.tournament_id,
            name=r.name,
            director=r.director,
            format=r.format,
            status=r.status,
            entrants=r.entrants,
            rounds=r.rounds,
            rated=r.rated,
            private=r.private,
            winner=r.winner,
        )
        for r in rows
    ]
    return json_response(TournamentList(tournaments=out))


async def get(request: web.Request) -> web.Response:
    """``GET /tournaments/{id}``: its state, as anyone who may see it sees it."""
    account = await current_account(request, required=False)
    state = await visible(request.app, tournament_id_of(request), account)
    return json_response(await view(request.app, state))


async def enter(request: web.Request) -> web.Response:
    """``POST /tournaments/{id}/entries``: the caller enters, seeded by their rating."""
    account = await current_account(request)
    assert account is not None
    tid = tournament_id_of(request)
    body = await _optional_body(request)
    await visible(request.app, tid, account)
    rating = await player_rating(request.app[TABLES].store, account.account_id)
    command = c.EnterTournament(rating=float(rating["rating"]), guest=account.guest)
    return await _run(request, tid, account, command, body.command_id)


async def withdraw(request: web.Request) -> web.Response:
    """``DELETE /tournaments/{id}/entries/me``: the caller withdraws."""
    account = await current_account(request)
    assert account is not None
    tid = tournament_id_of(request)
    await visible(request.app, tid, account)
    return await _run(request, tid, account, c.WithdrawTournament(), None)


async def start(request: web.Request) -> web.Response:
    """``POST /tournaments/{id}/start``: the director closes the entries; round 1 is paired."""
    account = await current_account(request)
    assert account is not None
    tid = tournament_id_of(request)
    body = await _optional_body(request)
    await visible(request.app, tid, account)
    return await _run(request, tid, account, c.StartTournament(), body.command_id)


async def adjust(request: web.Request) -> web.Response:
    """``POST /tournaments/{id}/adjust``: the director changes a result, for a reason."""
    account = await current_account(request)
    assert account is not None
    tid = tournament_id_of(request)
    body = await decode_body(request, AdjustRequest)
    await visible(request.app, tid, account)
    command = c.AdjustResult(
        round=body.round,
        board=body.board,
        winner=body.winner,
        forfeit=body.forfeit,
        reason=body.reason,
    )
    return await _run(request, tid, account, command, body.command_id)
