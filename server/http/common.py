"""What every route of the HTTP API shares: reading a request (its token and account, its
table id, its integers, its JSON body) and writing a JSON answer, and the request and response
structs of the accounts' and tables' routes (the OpenAPI document's schemas are generated from
them: :mod:`server.openapi.document`).

Errors are raised as problems (:mod:`server.http.problems`) and answered by its middleware.
"""

from __future__ import annotations

import re
import uuid
from typing import Annotated, TypeVar

import msgspec
from aiohttp import web
from msgspec import Meta

from events.domain import commands as c
from events.domain.types import END_OF_STRING, Name, TableKind, TableOptions
from server.access import auth
from server.http.problems import bad_request, not_found, unauthorized
from server.http.wire import EventMessage

__all__ = [
    "BIGINT_MAX",
    "CommandEnvelope",
    "CommandResult",
    "CreateTableRequest",
    "GuestRequest",
    "KeepGuest",
    "Login",
    "Register",
    "TicketResponse",
    "TokenResponse",
    "bearer",
    "current_account",
    "current_session",
    "decode_body",
    "int_in_range",
    "json_response",
    "query_int",
    "table_id_of",
]

T = TypeVar("T")

BIGINT_MAX = 2**63 - 1
"""The largest version or log position there can be (PostgreSQL ``bigint``)."""

_INTEGER = re.compile(r"-?[0-9]{1,30}")

# Every string of a request is a Name (events.domain.types): no control characters, NUL above all.
Username = Annotated[
    str, Meta(min_length=3, max_length=32, pattern=r"^[A-Za-z0-9_.-]+" + END_OF_STRING)
]
Password = Annotated[Name, Meta(min_length=8, max_length=256)]
DisplayName = Annotated[Name, Meta(max_length=64)]


class Register(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    username: Username
    password: Password
    display_name: DisplayName = ""


class Login(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    username: Username
    password: Password


class KeepGuest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A guest kept as a registered account (``POST /me/account``): its username and password,
    under the rules of registering; the display name stays."""

    username: Username
    password: Password


class GuestRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    display_name: DisplayName = ""


class TokenResponse(msgspec.Struct, kw_only=True):
    token: str
    account_id: str
    username: str
    display_name: str
    guest: bool
    expires_in: Annotated[
        float,
        Meta(
            description="Seconds the token is good for (a guest's `guest_token_ttl`, an"
            " account's `token_ttl`), unless revoked first."
        ),
    ]


class TicketResponse(msgspec.Struct, kw_only=True):
    """A stream ticket: pass it as ``?ticket=`` to a table's WebSocket or SSE within
    ``expires_in`` seconds; it opens one connection."""

    ticket: str
    expires_in: float


class CommandEnvelope(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A command with the client's id for it: a retry with the same id returns the first
    outcome and writes nothing new."""

    command_id: uuid.UUID
    command: c.AnyCommand


class CreateTableRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    command_id: uuid.UUID | None = None
    kind: TableKind
    options: TableOptions = TableOptions()
    name: Annotated[Name, Meta(max_length=100)] = ""


class CommandResult(msgspec.Struct, kw_only=True):
    command_id: str
    duplicate: bool
    stream: str
    first_version: int
    last_version: int
    events: list[EventMessage]


_json = msgspec.json.Encoder()


def json_response(body: object, status: int = 200) -> web.Response:
    return web.Response(body=_json.encode(body), status=status, content_type="application/json")


async def decode_body(request: web.Request, type_: type[T]) -> T:
    if request.content_type not in ("application/json", ""):
        raise bad_request(f"the body must be application/json, not {request.content_type!r}")
    raw = await request.read()
    if not raw:
        raise bad_request("the request body is empty; a JSON object is expected")
    return msgspec.json.decode(raw, type=type_)


def int_in_range(name: str, raw: str, minimum: int, maximum: int) -> int:
    """``raw`` as an integer from ``minimum`` to ``maximum``; anything else is a 400 naming
    ``name``, so that no out-of-range number ever reaches SQL (where it would be a driver
    error). Plain ASCII digits only: not ``int()``'s ``1_000``, ``+1`` or other scripts' digits."""
    shown = raw if len(raw) <= 40 else raw[:40] + "..."
    if not _INTEGER.fullmatch(raw):
        raise bad_request(f"{name} must be an integer, not {shown!r}", field=name)
    value = int(raw)
    if not minimum <= value <= maximum:
        raise bad_request(
            f"{name} must be an integer from {minimum} to {maximum}, not {shown}", field=name
        )
    return value


def query_int(
    request: web.Request, name: str, default: int, *, minimum: int = 0, maximum: int = BIGINT_MAX
) -> int:
    """An integer query parameter in range (see :func:`int_in_range`), or ``default``."""
    raw = request.query.get(name)
    return default if raw is None else int_in_range(name, raw, minimum, maximum)


def bearer(request: web.Request) -> str | None:
    """The token of the ``Authorization`` header, the one place a token may travel: in a URL
    it would land in logs and ``Referer`` headers (issue 11)."""
    if "token" in request.query:
        raise unauthorized(
            "a token is never accepted in the URL: send it as 'Authorization: Bearer <token>';"
            " a WebSocket or EventSource takes a ticket from POST /tickets as ?ticket="
        )
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise unauthorized("the Authorization header must be 'Bearer <token>'")
        return token.strip()
    return None


async def current_session(request: web.Request, required: bool = True) -> auth.Session | None:
    token = bearer(request)
    if token is None:
        if required:
            raise unauthorized()
        return None
    return await request.app[auth.ACCOUNTS].session(token)


async def current_account(request: web.Request, required: bool = True) -> auth.Account | None:
    session = await current_session(request, required)
    return session.account if session else None


def table_id_of(request: web.Request) -> str:
    """The table id of the request's path (``{table_id}``) in its canonical form: the one
    parser of a table id for every route of a table (the streams, the bots, the records, the
    invitations...). An id that is no UUID names no table: the 404 an unknown table gets, never
    the ``ValueError`` of :class:`uuid.UUID` (a 500).

    A route that needs a token checks it first (:func:`current_account`), so that a caller
    without one is told that, whatever the path says ("authorise before you look anything
    up"). Named ``table_id_of``, not ``table_id``, because the handlers call what it returns
    ``table_id``.

    :raises Problem: 404 ``no table '<id>'``.
    """
    raw = request.match_info["table_id"]
    try:
        return str(uuid.UUID(raw))
    except ValueError:
        shown = raw if len(raw) <= 40 else raw[:40] + "..."
        raise not_found(f"no table {shown!r}") from None
