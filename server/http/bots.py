"""Seating and removing bots: ``POST /tables/{id}/bots`` and ``DELETE /tables/{id}/bots/{bot}``.

Whoever created a table may seat a bot there (docs/bots.md): a new bot account (``b_...``) joins
through the ordinary command path like anyone (a seat at a money or match table, the bottom of
a chouette's line), and the process's bot runner (:mod:`server.live.bots`) plays it from then on.
The
creator removes it the same way it would leave: a ``leave`` by the bot, free between games, a
forfeit in mid-game (docs/rules.md §10).
"""

from __future__ import annotations

import uuid
from typing import Annotated, Literal

import msgspec
from aiohttp import web
from msgspec import Meta

from events.domain import commands as c
from events.domain.bots import gnubg_available
from events.domain.table import TableState
from server.access import auth, ratelimit
from server.http.common import current_account, decode_body, json_response, table_id_of
from server.http.problems import Problem, forbidden, not_found
from server.keys import TABLES
from server.live.bots import BOTS, bot_command_id, is_bot
from server.views.table import TableView, table_view

__all__ = ["BotSeated", "SeatBotRequest", "remove_bot", "seat_bot"]

SEAT_NAMESPACE = uuid.UUID("8a3f7f0e-2d0b-4f7b-8f54-3c1e6a9b9d21")
"""The namespace of the bots' account ids, derived from the seating's command id."""

NAMES = {"basic": "Basic bot", "gnubg": "GNU bot"}


class SeatBotRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Seat a bot at the table."""

    strength: Literal["basic", "gnubg"]
    """``basic``: the pure-Python bot; ``gnubg``: GNU Backgammon's evaluation (the server needs
    the ``chouette[gnubg]`` extra, else a 501). Required: a bot seated at a strength nobody
    chose would be a surprise at the board."""
    seat: Annotated[int, Meta(ge=0, le=1)] | None = None
    """Money and match tables: the seat (the first free one if left out). Not for a chouette,
    where a bot joins the bottom of the line."""
    command_id: uuid.UUID | None = None
    """A retry with the same id seats the same bot once."""


class BotSeated(msgspec.Struct, kw_only=True):
    bot_id: str
    """The bot's account id (``b_...``)."""
    strength: str
    display_name: str
    duplicate: bool
    """A retry of a seating already done."""
    table: TableView


async def _caller(request: web.Request) -> str:
    """The caller's account id: a token first, before the path or the body is read."""
    account = await current_account(request)
    assert account is not None
    return account.account_id


async def _creator_state(request: web.Request, caller: str, table_id: str) -> TableState:
    """The table's state, for its creator only (the caller)."""
    state = await request.app[TABLES].state(table_id)
    if state.created_by != caller:
        raise forbidden("only the table's creator may seat or remove its bots")
    request.app[ratelimit.LIMITS].hit("commands", caller)
    return state


async def seat_bot(request: web.Request) -> web.Response:
    caller = await _caller(request)
    table_id = table_id_of(request)
    body = await decode_body(request, SeatBotRequest)
    state = await _creator_state(request, caller, table_id)
    if body.strength == "gnubg" and not gnubg_available():
        raise Problem(
            501,
            "extra-not-installed",
            "Not installed",
            "the gnubg strength needs GNU Backgammon: install the extra, "
            "pip install 'chouette[gnubg]'",
            field="strength",
        )
    command_id = body.command_id or uuid.uuid4()
    bot_id = "b_" + uuid.uuid5(SEAT_NAMESPACE, f"{table_id}:{caller}:{command_id}").hex
    if bot_id not in state.players and len(state.players) >= state.max_players:
        raise Problem(409, "table-full", "Table full", "the table is full: no seat for a bot")
    # A retry finds its bot seated already, under the name it was given.
    bots = sum(1 for p in state.players if is_bot(p) and p != bot_id)
    name = state.display_name(bot_id) if bot_id in state.players else ""
    name = name or f"{NAMES[body.strength]} {bots + 1}"
    account = await request.app[auth.ACCOUNTS].bot(bot_id, body.strength, name)
    tables = request.app[TABLES]
    outcome = await tables.execute(
        table_id,
        bot_id,
        c.Join(seat=body.seat, display_name=account.display_name, bot=True),
        bot_command_id(table_id, 0, bot_id, "join"),
    )
    request.app[BOTS].watch(table_id, bot_id, body.strength)
    fresh = tables.cached(table_id) or await tables.state(table_id)
    return json_response(
        BotSeated(
            bot_id=bot_id,
            strength=body.strength,
            display_name=fresh.display_name(bot_id),
            duplicate=outcome.duplicate,
            table=table_view(fresh, caller, tables.now()),
        ),
        200 if outcome.duplicate else 201,
    )


async def remove_bot(request: web.Request) -> web.Response:
    caller = await _caller(request)
    table_id = table_id_of(request)
    bot_id = request.match_info["bot_id"]
    state = await _creator_state(request, caller, table_id)
    if not is_bot(bot_id) or bot_id not in state.players:
        raise not_found(f"no bot {bot_id[:64]!r} at this table")
    request.app[BOTS].forget(table_id, bot_id)
    tables = request.app[TABLES]
    await tables.execute(
        table_id, bot_id, c.Leave(), bot_command_id(table_id, state.version, bot_id, "remove")
    )
    fresh = tables.cached(table_id) or await tables.state(table_id)
    return json_response(table_view(fresh, caller, tables.now()))
