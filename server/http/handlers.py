"""HTTP handlers. Each one decodes its input with msgspec at the boundary, calls a service and
encodes the answer; errors are raised and mapped by :mod:`server.http.problems`' middleware.

What every route shares (the token, the table id, the integers, the request structs) is
:mod:`server.http.common`; the events' wire format is :mod:`server.http.wire`; the routes are
registered from one table, :mod:`server.http.routes`."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import uuid

import msgspec
from aiohttp import web

from events.domain import commands as c
from events.domain.clocks import with_reserve_rule
from events.service import Arrival
from events.store.errors import StoreError
from events.store.streams import parse_stream, table_stream
from server.access import auth, ratelimit
from server.access.social_options import prepare_create
from server.config import default_clock
from server.http.bot_accounts import me_of
from server.http.common import (
    CommandEnvelope,
    CommandResult,
    CreateTableRequest,
    GuestRequest,
    KeepGuest,
    Login,
    Register,
    TicketResponse,
    TokenResponse,
    bearer,
    current_account,
    current_session,
    decode_body,
    json_response,
    query_int,
    table_id_of,
)
from server.http.problems import bad_request, forbidden, unauthorized
from server.http.wire import message
from server.keys import (
    ACCOUNTS_POOL,
    CONFIG,
    LIVE_FEED,
    LOBBY,
    METRICS,
    PRESENCE,
    TABLES,
    TIMERS,
)
from server.live.bots import BOTS
from server.live.loop_watch import LOOP_WATCH
from server.readmodels.tournaments import tournament_of_table
from server.views.table import TournamentLinkView, table_view

log = logging.getLogger("chouette.server")

LOG_LIMIT_MAX = 10_000
"""The most events ``GET /log`` answers with at once."""

# -- accounts ---------------------------------------------------------------------------------


async def register(request: web.Request) -> web.Response:
    body = await decode_body(request, Register)
    limits = request.app[ratelimit.LIMITS]
    limits.hit("accounts", limits.address(request))
    account, token = await request.app[auth.ACCOUNTS].register(
        body.username, body.password, body.display_name
    )
    return json_response(_token(request, account, token), 201)


async def login(request: web.Request) -> web.Response:
    body = await decode_body(request, Login)
    limits = request.app[ratelimit.LIMITS]
    limits.hit("logins_address", limits.address(request))
    limits.hit("logins_username", body.username.lower())
    account, token = await request.app[auth.ACCOUNTS].login(body.username, body.password)
    return json_response(_token(request, account, token))


async def guest(request: web.Request) -> web.Response:
    raw = await request.read()
    body = msgspec.json.decode(raw, type=GuestRequest) if raw else GuestRequest()
    limits = request.app[ratelimit.LIMITS]
    limits.hit("guests", limits.address(request))
    account, token = await request.app[auth.ACCOUNTS].guest(body.display_name)
    return json_response(_token(request, account, token), 201)


async def keep_guest(request: web.Request) -> web.Response:
    """``POST /me/account``: the calling guest becomes a registered account, its id kept, and
    is answered with a fresh token (its guest tokens are revoked). Rate-limited as
    registering is, per address."""
    account = await current_account(request)
    assert account is not None
    body = await decode_body(request, KeepGuest)
    limits = request.app[ratelimit.LIMITS]
    limits.hit("accounts", limits.address(request))
    kept, token = await request.app[auth.ACCOUNTS].upgrade(account, body.username, body.password)
    return json_response(_token(request, kept, token), 201)


async def logout(request: web.Request) -> web.Response:
    """``DELETE /sessions``: revoke this token; ``?everywhere=true``: every token of the
    account (open sockets stop within ``Config.session_check`` seconds)."""
    everywhere = request.query.get("everywhere", "false")
    if everywhere not in ("true", "false"):
        raise bad_request(
            f"everywhere must be true or false, not {everywhere[:40]!r}", field="everywhere"
        )
    token = bearer(request)
    if token is None:
        raise unauthorized()
    accounts = request.app[auth.ACCOUNTS]
    session = await accounts.session(token)
    if everywhere == "true":
        await accounts.revoke_all(session.account.account_id)
    else:
        await accounts.revoke(token)
    return web.Response(status=204)


async def ticket(request: web.Request) -> web.Response:
    """``POST /tickets``: a single-use ticket for one WebSocket or SSE connection, for browsers,
    which cannot send the ``Authorization`` header there."""
    session = await current_session(request)
    assert session is not None
    request.app[ratelimit.LIMITS].hit("sockets_account", session.account.account_id)
    accounts = request.app[auth.ACCOUNTS]
    issued = await accounts.issue_ticket(session)
    return json_response(TicketResponse(ticket=issued, expires_in=accounts.ticket_ttl), 201)


async def me(request: web.Request) -> web.Response:
    account = await current_account(request)
    assert account is not None
    return json_response(me_of(account))


def _token(request: web.Request, account: auth.Account, token: str) -> TokenResponse:
    return TokenResponse(
        token=token,
        account_id=account.account_id,
        username=account.username,
        display_name=account.display_name,
        guest=account.guest,
        expires_in=request.app[auth.ACCOUNTS].ttl(account),
    )


# -- tables -----------------------------------------------------------------------------------


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
    options = body.options
    config = request.app[CONFIG]
    # The server's defaults are recorded with the table, so that its events say everything the
    # rules were given.
    if options.seed_window is None:
        options = msgspec.structs.replace(options, seed_window=config.seed_window)
    if options.clock is None:
        clock = config.table_clock or default_clock(body.kind)
        options = msgspec.structs.replace(options, clock=clock)
    # Whose reserve (docs/rules.md §10): restored at each game but in a match, said explicitly.
    options = with_reserve_rule(body.kind, options)
    # Rated and private tables (issue 15): checked, and a private table's row kept first.
    options = await prepare_create(request.app, account, body.kind, options, table_id)
    command = c.CreateTable(kind=body.kind, options=options, name=body.name)
    tables = request.app[TABLES]
    limits = request.app[ratelimit.LIMITS]
    pool = request.app[ACCOUNTS_POOL]
    if await ratelimit.reserve_table(pool, limits, account.account_id, table_id):
        # A new create, not a retry: counted, and within the cap on open tables.
        try:
            limits.hit("tables", account.account_id)
            outcome = await tables.execute(table_id, account.account_id, command, command_id)
        except BaseException:
            with contextlib.suppress(Exception):
                await asyncio.shield(ratelimit.release_table(pool, table_id))
            raise
    else:
        outcome = await tables.execute(table_id, account.account_id, command, command_id)
    # The command just folded its events into the cache; a retried create reads the store.
    state = tables.cached(table_id) or await tables.state(table_id)
    keys = tables.store.keys
    if keys is not None:
        await keys.ensure(outcome.events)
    return json_response(
        {
            "id": table_id,
            "duplicate": outcome.duplicate,
            "table": table_view(state, account.account_id, request.app[TABLES].now()),
            "events": [message(r, "table", keys=keys) for r in outcome.events],
        },
        200 if outcome.duplicate else 201,
    )


async def get_table(request: web.Request) -> web.Response:
    account = await current_account(request, required=False)
    table_id = table_id_of(request)
    tables = request.app[TABLES]
    state = await tables.state(table_id)
    head = await tables.store.chain_head(table_stream(table_id), state.version)
    viewer = account.account_id if account else None
    place = None
    if state.kind == "match":
        place = await tournament_of_table(tables.store.pool, table_id)
    return json_response(
        table_view(
            state,
            viewer,
            tables.now(),
            chain_head=head.hex() if head else None,
            presence=request.app[PRESENCE].at(table_id),
            tournament=None
            if place is None
            else TournamentLinkView(
                tournament_id=place.tournament_id, round=place.round, board=place.board
            ),
        )
    )


async def post_command(request: web.Request) -> web.Response:
    account = await current_account(request)
    assert account is not None
    table_id = table_id_of(request)
    body = await decode_body(request, CommandEnvelope)
    # Its time, and its place before any expiry of the table (events/service.py, "Arrivals"),
    # once the whole body is here: a slow body holds up nothing.
    with request.app[TABLES].arrival(table_id) as arrival:
        result = await run_command(request.app, table_id, account, body, arrival)
    return json_response(result, 200 if result.duplicate else 201)


async def run_command(
    app: web.Application,
    table_id: str,
    account: auth.Account,
    body: CommandEnvelope,
    arrival: Arrival | None = None,
) -> CommandResult:
    """Run one command for ``account``; ``arrival``: when its handler took it
    (:meth:`~events.service.TableService.arrival`), the time it is decided at."""
    command = body.command
    if isinstance(command, c.CreateTable):
        raise bad_request("create tables with POST /tables", field="command.type")
    limits = app[ratelimit.LIMITS]
    limits.hit("commands", account.account_id)
    if isinstance(command, c.Chat):
        limits.hit("chat", account.account_id)
    tables = app[TABLES]
    # 404 before anything else. (A table's options never change: the cached state's will do.)
    state = tables.cached(table_id) or await tables.state(table_id)
    if isinstance(command, c.Join):
        if account.guest and state.options.registered_only:
            raise forbidden("this table is for registered accounts")
        # Whether the player sits as a bot is the account's to say (docs/bots.md).
        if command.bot:
            raise bad_request(
                "bot is filled in by the server (whether the account is a bot account:"
                " POST /me/bot); leave it out",
                field="command.bot",
            )
        command = c.Join(
            seat=command.seat,
            display_name=command.display_name or account.display_name,
            bot=await app[auth.ACCOUNTS].sits_as_bot(account),
        )
    elif isinstance(command, c.Expire):
        # Who is connected is the server's to say (docs/rules.md §10, "Walking away").
        if command.absent:
            raise bad_request(
                "absent is filled in by the server (who has no stream open to the table);"
                " leave it out",
                field="command.absent",
            )
        timers = app.get(TIMERS)
        if timers is not None:
            command = c.Expire(absent=timers.absent(table_id, state))
    bots = app.get(BOTS)
    with bots.people.person() if bots is not None else contextlib.nullcontext():
        outcome = await tables.execute(
            table_id, account.account_id, command, body.command_id, arrival
        )
    name = parse_stream(outcome.stream)
    assert name is not None, outcome.stream  # the service appends to a table's streams only
    stream = name.kind
    keys = tables.store.keys
    if keys is not None:
        await keys.ensure(outcome.events)
    return CommandResult(
        command_id=outcome.command_id,
        duplicate=outcome.duplicate,
        stream=stream,
        first_version=outcome.first_version,
        last_version=outcome.last_version,
        events=[message(r, stream, keys=keys) for r in outcome.events],
    )


# -- operations -------------------------------------------------------------------------------


async def healthz(request: web.Request) -> web.Response:
    return json_response({"status": "ok"})


async def readyz(request: web.Request) -> web.Response:
    """Ready when the database answers within two seconds. Events the lobby had to skip are
    listed, but leave it ready: every instance reads the same log, so failing readiness for
    them would take every instance out of service for one bad event that none can apply. The
    driver's text is logged, never sent, and so is the skipped event's stream (anyone may ask,
    and a private table's id is no stranger's business): its log position finds it, through
    ``GET /log`` with the auditor token."""
    lobby = request.app[LOBBY]
    try:
        async with asyncio.timeout(2):
            await request.app[TABLES].store.ping()
            count, skipped = await lobby.skipped()
    except Exception as exc:
        log.warning("not ready: %r", exc, extra={"path": request.path})
        return json_response({"status": "unavailable", "detail": "database unavailable"}, 503)
    if holes := request.app[LIVE_FEED].holes:
        # A hole in the log cannot arise by design: the store is corrupt (docs/store.md).
        detail = "; ".join(hole.describe() for hole in holes)
        return json_response({"status": "corrupt", "detail": detail}, 503)
    return json_response(
        {
            "status": "ready",
            "lobby_lag": lobby.lag,
            "skipped_events": count,
            "skipped": [
                {
                    "projector": s.projector,
                    "partition": s.partition,
                    "position": s.position,
                    "version": s.version,
                    "type": s.type,
                    "cause": s.cause,
                    "skipped_at": s.skipped_at,
                }
                for s in skipped
            ],
        }
    )


async def metrics(request: web.Request) -> web.Response:
    registry = request.app[METRICS]
    watch = request.app.get(LOOP_WATCH)
    if watch is not None:
        watch.scraped()
    timers = request.app.get(TIMERS)
    if timers is not None:
        registry.timers_seen(timers.hook_seconds, timers.loop_seconds, len(timers))
    registry.skipped_seen(request.app[TABLES].skipped_events)
    registry.checks_seen(request.app[TABLES].check_cost)
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
    # In constant time: the comparison's duration tells nothing of the token.
    if not expected or not hmac.compare_digest(token.encode(), expected.encode()):
        raise forbidden("the global feed is for auditors")
    store = request.app[TABLES].store
    partition = query_int(request, "partition", 0, maximum=store.partitions - 1)
    after = query_int(request, "after", 0)
    limit = query_int(request, "limit", 1000, minimum=1, maximum=LOG_LIMIT_MAX)
    events = await store.read_log(partition, after, limit)
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
