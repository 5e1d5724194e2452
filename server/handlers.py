"""HTTP handlers. Each one decodes its input with msgspec at the boundary, calls a service and
encodes the answer; errors are raised and mapped by :mod:`server.problems`' middleware."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from typing import Annotated, Any, TypeVar

import msgspec
from aiohttp import web
from msgspec import Meta

from events import commands as c
from events.errors import StoreError
from events.store import RecordedEvent
from events.streams import parse_stream
from events.types import TableKind, TableOptions
from server import auth
from server.keys import ACCOUNTS_POOL, CONFIG, LOBBY, METRICS, TABLES
from server.problems import bad_request, forbidden, unauthorized
from server.table_view import table_view

T = TypeVar("T")

Username = Annotated[str, Meta(min_length=3, max_length=32, pattern=r"^[A-Za-z0-9_.-]+$")]
Password = Annotated[str, Meta(min_length=8, max_length=256)]
DisplayName = Annotated[str, Meta(max_length=64)]


class Register(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    username: Username
    password: Password
    display_name: DisplayName = ""


class Login(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
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


class CommandEnvelope(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A command with the client's id for it: a retry with the same id returns the first
    outcome and writes nothing new."""

    command_id: uuid.UUID
    command: c.AnyCommand


class CreateTableRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    command_id: uuid.UUID | None = None
    kind: TableKind
    options: TableOptions = TableOptions()
    name: Annotated[str, Meta(max_length=100)] = ""


class EventMessage(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One event as clients receive it: ``{"v": version, "t": type, "d": data, "s": stream}``.
    An event the recipient may not see carries only ``v`` and ``s``.

    ``s`` has no default on purpose: with ``omit_defaults`` a default of ``"table"`` left it out
    of every table-stream message, and clients could not tell the two streams apart."""

    v: int
    s: str
    t: str | None = None
    d: Any = None


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


def bearer(request: web.Request) -> str | None:
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise unauthorized("the Authorization header must be 'Bearer <token>'")
        return token.strip()
    return request.query.get("token") or None


async def current_account(request: web.Request, required: bool = True) -> auth.Account | None:
    token = bearer(request)
    if token is None:
        if required:
            raise unauthorized()
        return None
    return await auth.authenticate(request.app[ACCOUNTS_POOL], token)


def message(rec: RecordedEvent, stream: str, visible: bool = True) -> EventMessage:
    if not visible:
        return EventMessage(v=rec.version, s=stream)
    return EventMessage(v=rec.version, s=stream, t=rec.type, d=msgspec.Raw(rec.data))


# -- accounts ---------------------------------------------------------------------------------


async def register(request: web.Request) -> web.Response:
    body = await decode_body(request, Register)
    account, token = await auth.register(
        request.app[ACCOUNTS_POOL], body.username, body.password, body.display_name
    )
    return json_response(_token(account, token), 201)


async def login(request: web.Request) -> web.Response:
    body = await decode_body(request, Login)
    account, token = await auth.login(request.app[ACCOUNTS_POOL], body.username, body.password)
    return json_response(_token(account, token))


async def guest(request: web.Request) -> web.Response:
    raw = await request.read()
    body = msgspec.json.decode(raw, type=GuestRequest) if raw else GuestRequest()
    account, token = await auth.guest(request.app[ACCOUNTS_POOL], body.display_name)
    return json_response(_token(account, token), 201)


async def logout(request: web.Request) -> web.Response:
    token = bearer(request)
    if token is None:
        raise unauthorized()
    await auth.authenticate(request.app[ACCOUNTS_POOL], token)
    await auth.revoke(request.app[ACCOUNTS_POOL], token)
    return web.Response(status=204)


async def me(request: web.Request) -> web.Response:
    account = await current_account(request)
    assert account is not None
    return json_response(
        {
            "account_id": account.account_id,
            "username": account.username,
            "display_name": account.display_name,
            "guest": account.guest,
        }
    )


def _token(account: auth.Account, token: str) -> TokenResponse:
    return TokenResponse(
        token=token,
        account_id=account.account_id,
        username=account.username,
        display_name=account.display_name,
        guest=account.guest,
    )


# -- tables -----------------------------------------------------------------------------------


def _table_id(request: web.Request) -> str:
    table_id = request.match_info["table_id"]
    try:
        return str(uuid.UUID(table_id))
    except ValueError:
        raise web.HTTPNotFound(text=f"no table {table_id!r}") from None


async def lobby(request: web.Request) -> web.Response:
    kind = request.query.get("kind")
    if kind is not None and kind not in ("money", "match", "chouette"):
        raise bad_request(f"kind must be money, match or chouette, not {kind!r}", field="kind")
    tables = await request.app[LOBBY].list(kind)
    return json_response({"tables": tables})


async def create_table(request: web.Request) -> web.Response:
    account = await current_account(request)
    assert account is not None
    body = await decode_body(request, CreateTableRequest)
    command_id = body.command_id or uuid.uuid4()
    # The table's id is derived from the command id, so a retried create names the same table.
    table_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"chouette:table:{command_id}"))
    command = c.CreateTable(kind=body.kind, options=body.options, name=body.name)
    tables = request.app[TABLES]
    outcome = await tables.execute(table_id, account.account_id, command, command_id)
    # The command just folded its events into the cache; a retried create reads the store.
    state = tables.cached(table_id) or await tables.state(table_id)
    return json_response(
        {
            "id": table_id,
            "duplicate": outcome.duplicate,
            "table": table_view(state, account.account_id),
        },
        200 if outcome.duplicate else 201,
    )


async def get_table(request: web.Request) -> web.Response:
    table_id = _table_id(request)
    account = await current_account(request, required=False)
    state = await request.app[TABLES].state(table_id)
    return json_response(table_view(state, account.account_id if account else None))


async def post_command(request: web.Request) -> web.Response:
    table_id = _table_id(request)
    account = await current_account(request)
    assert account is not None
    body = await decode_body(request, CommandEnvelope)
    result = await run_command(request.app, table_id, account, body)
    return json_response(result, 200 if result.duplicate else 201)


async def run_command(
    app: web.Application, table_id: str, account: auth.Account, body: CommandEnvelope
) -> CommandResult:
    command = body.command
    if isinstance(command, c.CreateTable):
        raise bad_request("create tables with POST /tables", field="command.type")
    tables = app[TABLES]
    if tables.cached(table_id) is None:
        await tables.state(table_id)  # 404 before anything else
    if isinstance(command, c.Join) and not command.display_name:
        command = c.Join(seat=command.seat, display_name=account.display_name)
    outcome = await tables.execute(table_id, account.account_id, command, body.command_id)
    name = parse_stream(outcome.stream)
    assert name is not None, outcome.stream  # the service appends to a table's streams only
    stream = name.kind
    return CommandResult(
        command_id=outcome.command_id,
        duplicate=outcome.duplicate,
        stream=stream,
        first_version=outcome.first_version,
        last_version=outcome.last_version,
        events=[message(r, stream) for r in outcome.events],
    )


# -- operations -------------------------------------------------------------------------------


async def healthz(request: web.Request) -> web.Response:
    return json_response({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    try:
        await asyncio.wait_for(request.app[TABLES].store.ping(), timeout=2)
    except (TimeoutError, OSError, Exception) as exc:
        return json_response({"status": "unavailable", "detail": str(exc)}, 503)
    return json_response({"status": "ready", "lobby_lag": request.app[LOBBY].lag})


async def metrics(request: web.Request) -> web.Response:
    registry = request.app[METRICS]
    streams = registry.followed_streams()
    if streams:
        # The database down: report the last lag measured.
        with contextlib.suppress(StoreError):
            registry.update_lag(await request.app[TABLES].store.stream_versions(sorted(streams)))
    else:
        registry.update_lag({})
    return web.Response(text=registry.render(), content_type="text/plain", charset="utf-8")


async def global_feed(request: web.Request) -> web.Response:
    """The log by position, for auditors and projectors (the configured auditor token)."""
    token = bearer(request)
    expected = request.app[CONFIG].auditor_token
    if token is None:
        raise unauthorized()
    if not expected or token != expected:
        raise forbidden("the global feed is for auditors")
    try:
        partition = int(request.query.get("partition", "0"))
        after = int(request.query.get("after", "0"))
        limit = min(int(request.query.get("limit", "1000")), 10_000)
    except ValueError:
        raise bad_request("partition, after and limit must be integers") from None
    if partition < 0 or after < 0 or limit < 1:
        raise bad_request("partition and after must be >= 0 and limit >= 1")
    events = await request.app[TABLES].store.read_log(partition, after, limit)
    return json_response(
        {
            "partition": partition,
            "events": [
                {
                    "position": r.position,
                    "stream": r.stream_id,
                    "v": r.version,
                    "t": r.type,
                    "d": msgspec.Raw(r.data),
                }
                for r in events
            ],
        }
    )
