"""A person's own data (docs/privacy.md): ``DELETE /me`` erases the account by crypto-shredding,
``GET /me/export`` hands over everything it holds of them.

Erasing: the account's tokens are revoked (its sockets stop), it leaves every unfinished table
as ``leave`` does (docs/rules.md §10: in mid-game a forfeit) and withdraws from every tournament
it is still in, its data key is destroyed — so
whatever it typed into any event (its name, its chat, its tables' names) reads as its
pseudonym from now on, in this process and every other — an ``account_erased`` event is
appended to its own stream, and the read models that keep its name are pseudonymised. The log
is not changed: the audit, the chain heads, the replays and the ratings are as before.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import uuid
from typing import Annotated, Any, Final

import msgspec
from aiohttp import web
from msgspec import Meta

from events.domain import commands as c
from events.domain import types as e
from events.records.replay import replayer_for
from events.store.errors import ConcurrencyError
from events.store.personal_keys import PersonalKeys
from events.store.streams import (
    account_stream,
    append_events,
    chat_stream,
    decode_recorded,
    table_stream,
)
from server.access import auth, ratelimit
from server.http.common import current_session, decode_body, json_response
from server.http.problems import Problem, bad_request, unauthorized
from server.http.social import READ_MODELS
from server.http.streams import THROW_MESSAGES, WATCH
from server.http.tournaments import TOURNAMENTS
from server.keys import ACCOUNTS_POOL, LOBBY, TABLES
from server.readmodels import erasure
from server.readmodels.profiles import player_profile
from server.readmodels.ratings import player_rating, rating_history

__all__ = [
    "FRESH_LOGIN",
    "EraseRequest",
    "ExportedChat",
    "ExportedGame",
    "PersonalExport",
    "erase_account",
    "erase_me",
    "export_me",
    "forget_personal",
]

log = logging.getLogger("chouette.server")

FRESH_LOGIN: Final = 900.0
"""How recent a guest's token must be to erase the guest (seconds): a guest has no password to
confirm with, and cannot log in again; a guest with an older token keeps the account first
(``POST /me/account``) and erases it with its password."""

_ERASE: Final = uuid.UUID("5b0c7d1e-3f2a-4e8b-9c6d-1a2b3c4d5e6f")
"""The namespace of the command ids an erasure appends with (one leave per table, one
``account_erased``): a retried erasure records nothing twice."""


class EraseRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """``DELETE /me``: the registered account's password (a guest sends none)."""

    password: Annotated[
        e.Name,
        Meta(max_length=256, description="The account's password; empty for a guest."),
    ] = ""


class ExportedChat(msgspec.Struct, kw_only=True):
    table_id: str
    version: int
    channel: e.Channel
    text: str
    game: int
    at: int


class ExportedGame(msgspec.Struct, kw_only=True):
    table_id: str
    game: int
    winner: str
    result: int
    cube: int
    how: str
    amount: int
    """What the person won (positive) or lost in it."""
    at: int


class PersonalExport(msgspec.Struct, kw_only=True):
    """Everything the server keeps of a person, decrypted (``GET /me/export``)."""

    account: dict[str, Any]
    profile: dict[str, Any]
    rating: dict[str, Any] | None
    rating_history: list[dict[str, Any]]
    tables: list[dict[str, Any]]
    games: list[ExportedGame]
    chat: list[ExportedChat]
    """Every chat message the person wrote, on either channel."""


def forget_personal(app: web.Application) -> None:
    """Forget whatever this process holds that was read with a person's key (an account was
    erased, or erasures may have gone unheard): folded states, replay snapshots, the streams'
    encoded messages. Read again, they name an erased player by the pseudonym."""
    tables = app.get(TABLES)
    if tables is not None:
        tables.forget_states()
        replayer_for(tables.store).clear()
    throws = app.get(THROW_MESSAGES)
    if throws is not None:
        throws.clear()
    tournaments = app.get(TOURNAMENTS)
    if tournaments is not None:
        tournaments.forget_states()


async def erase_me(request: web.Request) -> web.Response:
    """``DELETE /me``: erase the caller's account (see the module's docstring)."""
    session = await current_session(request)
    assert session is not None
    account = session.account
    raw = await request.read()
    body = await decode_body(request, EraseRequest) if raw else EraseRequest()
    limits = request.app[ratelimit.LIMITS]
    limits.hit("logins_address", limits.address(request))
    limits.hit("logins_username", account.username.lower())
    accounts = request.app[auth.ACCOUNTS]
    if account.guest:
        age = await erasure.token_age(request.app[ACCOUNTS_POOL], session.token_hash)
        if age is None or age > FRESH_LOGIN:
            raise Problem(
                403,
                "fresh-login-required",
                "A fresh login is needed",
                f"a guest is erased with a token issued in the last {FRESH_LOGIN / 60:.0f}"
                " minutes; keep the guest as an account (POST /me/account) and erase it with"
                " its password",
            )
    elif not body.password:
        raise bad_request("erasing an account asks for its password", field="password")
    elif not await accounts.check_password(account, body.password):
        raise unauthorized("wrong password")
    await erase_account(request.app, account.account_id)
    return web.Response(status=204)


async def erase_account(app: web.Application, account_id: str) -> None:
    """Erase ``account_id`` (see the module's docstring). Each step can be run again: an
    erasure cut short is finished by the next."""
    tables = app[TABLES]
    store = tables.store
    keys = store.keys
    if not isinstance(keys, PersonalKeys):
        raise RuntimeError("erasing an account needs the server's personal keys")
    accounts = app[auth.ACCOUNTS]
    await accounts.revoke_all(account_id)
    # This process's sockets of the account stop now; another's within its session check.
    watch = app.get(WATCH)
    if watch is not None:
        await watch.check()
    lobby = app[LOBBY]
    await lobby.catch_up()
    for table_id in await erasure.unfinished_tables(app[ACCOUNTS_POOL], account_id):
        try:
            await tables.execute(
                table_id, account_id, c.Leave(), uuid.uuid5(_ERASE, f"{account_id}/{table_id}")
            )
        except ValueError as exc:  # not seated any more, say: nothing to leave
            log.info("erasure: no leave at a table: %s", exc, extra={"table_id": table_id})
    await _withdraw_from_tournaments(app, account_id)
    await keys.destroy(account_id)
    forget_personal(app)
    # A retried erasure finds the event there (expected version 0: a conflict).
    with contextlib.suppress(ConcurrencyError):
        await append_events(
            store,
            account_stream(account_id),
            [e.AccountErased(account=account_id, at=tables.now())],
            expected_version=0,
            command_id=uuid.uuid5(_ERASE, account_id),
            actor=account_id,
        )
    await erasure.pseudonymise(app[ACCOUNTS_POOL], account_id)
    accounts.sessions.forget(account_id)
    log.info("account erased", extra={"actor": account_id})


async def _withdraw_from_tournaments(app: web.Application, account_id: str) -> None:
    """The account withdraws from every tournament it is still in (docs/tournaments.md): it is
    paired no more, and a match of its still to play is forfeited."""
    service = app.get(TOURNAMENTS)
    if service is None:
        return
    for tid in await service.ids():
        s = await service.state(tid)
        t = s.t
        if s.finished or account_id in t.withdrawn:
            continue
        if not any(x.player == account_id for x in t.entrants):
            continue
        command_id = uuid.uuid5(_ERASE, f"{account_id}/tournament/{tid}")
        try:
            await service.execute(tid, account_id, c.WithdrawTournament(), command_id)
        except ValueError as exc:  # withdrawn meanwhile, or the tournament over
            log.info("erasure: no withdrawal from a tournament: %s", exc)


async def export_me(request: web.Request) -> web.Response:
    """``GET /me/export``: the caller's own data as one JSON document, decrypted."""
    session = await current_session(request)
    assert session is not None
    account_id = session.account.account_id
    limits = request.app[ratelimit.LIMITS]
    limits.hit("social", limits.address(request))
    pool = request.app[ACCOUNTS_POOL]
    store = request.app[TABLES].store
    # What the log says so far, the person's last match and table included.
    await request.app[LOBBY].catch_up()
    await request.app[READ_MODELS].catch_up()
    row = await erasure.account_row(pool, account_id)
    assert row is not None  # a live token's account
    tables = await erasure.tables_of(pool, account_id)
    games: list[ExportedGame] = []
    chat: list[ExportedChat] = []
    for t in tables:
        table_id = t["table_id"]
        for rec in await store.read_stream(table_stream(table_id)):
            if rec.type != "game_ended":
                continue
            ended = decode_recorded(rec, store.keys)
            assert isinstance(ended, e.GameEnded)
            mine = [s.amount for s in ended.settlements if s.player == account_id]
            if mine:
                games.append(
                    ExportedGame(
                        table_id=table_id,
                        game=ended.game,
                        winner=ended.winner,
                        result=ended.result,
                        cube=ended.cube,
                        how=ended.how,
                        amount=sum(mine),
                        at=ended.at,
                    )
                )
        for rec in await store.read_stream(chat_stream(table_id)):
            posted = decode_recorded(rec, store.keys)
            if isinstance(posted, e.ChatPosted) and posted.player == account_id:
                chat.append(
                    ExportedChat(
                        table_id=table_id,
                        version=rec.version,
                        channel=posted.channel,
                        text=posted.text,
                        game=posted.game,
                        at=posted.at,
                    )
                )
    registered = not row.guest
    export = PersonalExport(
        account={
            "account_id": row.account_id,
            "username": row.username,
            "display_name": row.display_name,
            "guest": row.guest,
            "created_at": row.created_at.astimezone(dt.UTC).isoformat(),
        },
        profile=await player_profile(store, account_id, show_private=True, recent=100),
        rating=await player_rating(store, account_id, show_private=True) if registered else None,
        rating_history=(
            await rating_history(store, account_id, 100, show_private=True) if registered else []
        ),
        tables=tables,
        games=games,
        chat=chat,
    )
    return json_response(export)
