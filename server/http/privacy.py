"""Private tables and invitations (issue 15; docs/social.md).

A private table is created with the ``private`` option: its row in ``private_tables`` is written
*before* the table is, so that there is no moment at which it could be seen. It is not in the
lobby, and to anyone but its creator, its players (anyone who ever joined it) and the holders of
a live invitation, every route of the table answers exactly what it answers for a table that
does not exist: ``404 no table '<id>'``. Access is decided before anything of the table is
looked up (:func:`privacy_middleware` for the HTTP routes, :func:`guard` for the streams once
their ticket names the account).

The creator hands out invitations: each is a code of 24 random bytes
(``secrets.token_urlsafe``), shown once; the database keeps its SHA-256. Redeeming a code
(``POST /invitations``) gives the caller's account access to the table for as long as the
invitation is not revoked; a revoked code stops working at once, for redeeming and for the
access it gave (a player who joined the table keeps their place as a player). An account keeps
one access row per invitation it redeemed, so that it has access while any of them is live.
An open stream's access is checked again every session-check interval, and as a command
arrives on it (:func:`still_see`, :class:`server.http.streams.SessionWatch`).
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from collections.abc import Awaitable, Callable, Collection
from typing import Annotated, Any

import msgspec
from aiohttp import web
from msgspec import Meta

from events.domain.table import TableNotFoundError
from events.domain.types import END_OF_STRING
from server.access import auth, ratelimit
from server.http.common import current_account, decode_body, json_response, table_id_of
from server.http.problems import Problem, bad_request, forbidden, not_found
from server.keys import ACCOUNTS_POOL, TABLES
from server.readmodels import invitations

__all__ = [
    "guard",
    "may_see",
    "no_table",
    "privacy_middleware",
    "still_see",
]

CODE_BYTES = 24
"""Random bytes in an invitation code (192 bits)."""

Code = Annotated[
    str, Meta(min_length=16, max_length=64, pattern=r"^[A-Za-z0-9_-]+" + END_OF_STRING)
]


class RedeemRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    code: Code


def _code_hash(code: str) -> bytes:
    return hashlib.sha256(code.encode("ascii", "replace")).digest()


def no_table(table_id: str) -> Problem:
    """Word for word what an unknown table answers
    (:class:`events.domain.table.TableNotFoundError`)."""
    return not_found(f"no table {table_id!r}")


async def _private_creator(app: web.Application, table_id: str) -> str | None:
    """The creator of a private table; None for a public (or unknown) one. A table's options
    never change, so a cached public state answers without the database."""
    state = app[TABLES].cached(table_id)
    if state is not None and state.version and not state.options.private:
        return None
    return await invitations.private_creator(app[ACCOUNTS_POOL], table_id)


async def may_see(app: web.Application, table_id: str, account_id: str | None) -> bool:
    """Whether ``account_id`` (None: anonymous) may know of the table."""
    creator = await _private_creator(app, table_id)
    if creator is None:
        return True
    if account_id is None:
        return False
    if account_id == creator:
        return True
    if await invitations.has_live_invitation(app[ACCOUNTS_POOL], table_id, account_id):
        return True
    tables = app[TABLES]
    state = tables.cached(table_id) or await tables.state(table_id)
    return any(p == account_id for p, _ in state.names)


async def guard(app: web.Application, table_id: str, account: auth.Account | None) -> None:
    """Raise the unknown table's 404 unless ``account`` may see the table."""
    if not await may_see(app, table_id, account.account_id if account else None):
        raise no_table(table_id)


def _played_at(app: web.Application, table_id: str, account_id: str) -> bool:
    """Whether the account ever joined the table, as this process last saw it (no query)."""
    state = app[TABLES].cached(table_id)
    return state is not None and any(p == account_id for p, _ in state.names)


async def still_see(
    app: web.Application, pairs: Collection[tuple[str, str]]
) -> set[tuple[str, str]]:
    """Of ``(table_id, account_id)`` pairs, each a private table and an account that could see
    it, those whose account still may (an open stream's, :class:`server.http.streams.SessionWatch`;
    a command on it). A player keeps access as a player: found in memory, without a query. The
    others are asked in one query whatever their number (the creator, the holders of an
    invitation not revoked), and a pair refused there is looked for in its table's log, in
    case its account joined through another process.

    :raises StoreError: the database is away (nothing is known: the caller stops nobody).
    """
    out = {pair for pair in pairs if _played_at(app, *pair)}
    asked = [pair for pair in pairs if pair not in out]
    if not asked:
        return out
    out.update(await invitations.still_invited(app[ACCOUNTS_POOL], asked))
    tables = app[TABLES]
    for table_id, account_id in asked:
        if (table_id, account_id) in out:
            continue
        try:
            state = await tables.state(table_id)
        except TableNotFoundError:
            continue
        if any(p == account_id for p, _ in state.names):
            out.add((table_id, account_id))
    return out


_STREAM_SUFFIXES = ("/ws", "/events")


@web.middleware
async def privacy_middleware(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Every HTTP route of a table: to whoever may not see a private table, the route answers
    exactly what it answers for a table that does not exist — the handler runs on a fresh id
    that names no table (so a bad body, a missing token or the order of the checks tell
    nothing), and the answer names the id that was asked for. (The streams call :func:`guard`
    where they look the table up.)"""
    if _TABLE_ID not in request.match_info or request.path.endswith(_STREAM_SUFFIXES):
        return await handler(request)
    try:
        table_id = table_id_of(request)
    except Problem:
        return await handler(request)  # the handler's own 404 (after its token's check)
    if await _private_creator(request.app, table_id) is None:
        return await handler(request)
    try:
        account = await current_account(request, required=False)
    except Problem:
        account = None  # (the handler refuses the token itself, as for any table)
    if await may_see(request.app, table_id, account.account_id if account else None):
        return await handler(request)
    decoy = str(uuid.uuid4())
    request.match_info[_TABLE_ID] = decoy
    try:
        return await handler(request)
    except TableNotFoundError:
        raise TableNotFoundError(table_id) from None
    except Problem as p:
        p.detail = p.detail.replace(decoy, table_id)
        raise


_TABLE_ID = "table_id"


# -- invitations ------------------------------------------------------------------------------


async def _creator_of(request: web.Request) -> tuple[str, auth.Account]:
    """The table of the path and its creator, the caller (the middleware let them see it)."""
    account = await current_account(request)
    assert account is not None
    table_id = table_id_of(request)
    creator = await _private_creator(request.app, table_id)
    if creator is None:
        tables = request.app[TABLES]
        await tables.state(table_id)  # 404 for an unknown table
        raise Problem(409, "not-private", "Not private", "only private tables have invitations")
    if creator != account.account_id:
        raise forbidden("only the table's creator manages its invitations")
    return table_id, account


async def create_invitation(request: web.Request) -> web.Response:
    """``POST /tables/{id}/invitations``: a new invitation code (shown this once)."""
    limits = request.app[ratelimit.LIMITS]
    limits.hit("invitations", limits.address(request))
    table_id, account = await _creator_of(request)
    code = secrets.token_urlsafe(CODE_BYTES)
    invitation_id = uuid.uuid4().hex
    created = await invitations.create_invitation(
        request.app[ACCOUNTS_POOL], invitation_id, _code_hash(code), table_id, account.account_id
    )
    return json_response(
        {
            "invitation_id": invitation_id,
            "table_id": table_id,
            "code": code,
            "link": f"/#/invite/{code}",
            "created_at": created,
        },
        201,
    )


async def list_invitations(request: web.Request) -> web.Response:
    """``GET /tables/{id}/invitations``: the table's invitations (never their codes)."""
    table_id, _ = await _creator_of(request)
    rows = await invitations.invitations(request.app[ACCOUNTS_POOL], table_id)
    return json_response(
        {
            "invitations": [
                {
                    "invitation_id": r.invitation_id,
                    "created_at": r.created_at,
                    "revoked_at": r.revoked_at,
                    "redeemed_by": r.redeemed_by,
                }
                for r in rows
            ]
        }
    )


async def revoke_invitation(request: web.Request) -> web.Response:
    """``DELETE /tables/{id}/invitations/{invitation_id}``: the code stops working, and so does
    the access it gave to those who have not joined."""
    limits = request.app[ratelimit.LIMITS]
    limits.hit("invitations", limits.address(request))
    table_id, _ = await _creator_of(request)
    invitation_id = request.match_info["invitation_id"]
    if len(invitation_id) != 32 or not all(ch in "0123456789abcdef" for ch in invitation_id):
        raise not_found(f"no invitation {invitation_id[:40]!r}")
    if not await invitations.revoke_invitation(request.app[ACCOUNTS_POOL], invitation_id, table_id):
        raise not_found(f"no invitation {invitation_id!r}")
    return web.Response(status=204)


async def redeem_invitation(request: web.Request) -> web.Response:
    """``POST /invitations``: redeem a code; the caller's account may then see, watch and join
    the table (if it takes guests)."""
    limits = request.app[ratelimit.LIMITS]
    limits.hit("invitations", limits.address(request))
    account = await current_account(request)
    assert account is not None
    body = await decode_body(request, RedeemRequest)
    table_id = await invitations.redeem(
        request.app[ACCOUNTS_POOL], _code_hash(body.code), account.account_id
    )
    if table_id is None:
        raise not_found("this invitation is unknown or was revoked")
    state = await request.app[TABLES].state(table_id)
    return json_response(
        {
            "table_id": table_id,
            "kind": state.kind,
            "name": state.name,
            "page": f"/#/table/{table_id}",
        }
    )


async def my_tables(request: web.Request) -> web.Response:
    """``GET /me/tables?name=``: the private tables the caller may see (created, invited to or
    played at), newest first; ``name`` keeps those whose name contains each of its words, in
    any order and however spaced (case aside). This is how a club finds its standing chouette
    by name."""
    account = await current_account(request)
    assert account is not None
    name = request.query.get("name", "")
    if len(name) > 100 or any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in name):
        raise bad_request("name is up to 100 characters, without control characters", field="name")
    words = name.split()
    rows = await invitations.visible_private_tables(
        request.app[ACCOUNTS_POOL], account.account_id, words
    )
    tables: list[dict[str, Any]] = [
        {
            "table_id": r.table_id,
            "kind": r.kind,
            "name": r.name,
            "mine": r.created_by == account.account_id,
            "page": f"/#/table/{r.table_id}",
        }
        for r in rows
    ]
    return json_response({"tables": tables})
