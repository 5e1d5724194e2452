"""Live event streams to clients: a table's WebSocket and its Server-Sent Events.

Each message is ``{"v": version, "s": stream, "t": type, "d": data}``; ``s`` is ``"table"`` or
``"chat"``, and each stream's versions are gap-free on their own. A chat message the recipient
may not read (the team channel, for the box and for spectators) arrives as ``{"v": n, "s":
"chat"}`` only, so versions never skip. A client resumes with ``?after=N`` (and ``chat_after``)
on the WebSocket or ``Last-Event-ID: "<table>.<chat>"`` on SSE. One asking for a version the
stream has not reached, or further back than the resync window, gets a ``resync`` control message
(and the socket closes): it should fetch ``GET /tables/{id}`` and reconnect from its version.

Each subscription catches up from the database and then follows the log; a client that falls
behind is moved back to reading from the database (see :mod:`events.store.subscription`), so a slow
client never grows the server's memory.

A client acts as an account with a ticket (``?ticket=``, from ``POST /tickets``: browsers cannot
send headers here) or the ``Authorization`` header, never a token in the URL. A connection counts
against the rate limits and caps of its address and account (:mod:`server.access.ratelimit`), and
stops
once its token is revoked or expires: a command on it is refused, and :class:`SessionWatch` closes
it within ``Config.session_check`` seconds. So does a stream of a private table once its account
may no longer see the table (the invitation that let it in revoked, :mod:`server.http.privacy`).

A tournament's stream is followed the same way (:mod:`server.http.tournament_streams`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import logging
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TypeVar

import msgspec
from aiohttp import WSCloseCode, WSMsgType, web

from events.domain.table import TableState
from events.service import Arrival
from events.store.errors import CorruptEventError, StoreError, StoreUnavailableError
from events.store.event_store import RecordedEvent
from events.store.streams import chat_stream, decode_recorded, table_stream
from events.store.subscription import LiveFeed
from server.access import auth, ratelimit
from server.http import privacy, wire
from server.http.common import (
    BIGINT_MAX,
    CommandEnvelope,
    bearer,
    int_in_range,
    query_int,
    table_id_of,
)
from server.http.handlers import run_command
from server.http.problems import Problem, bad_request, log_failure, to_problem, unauthorized
from server.keys import CONFIG, LIVE_FEED, LOBBY, METRICS, PRESENCE, SOCKETS, TABLES
from server.live.background import running
from server.live.presence import Watcher
from server.views.move import move_view
from server.views.throw import throw_view

log = logging.getLogger("chouette.streams")

_K = TypeVar("_K")

SSE_KEEP_ALIVE = 15.0
"""Seconds between the comment lines an idle Server-Sent Events stream is sent."""


class Resync(Exception):
    """The client's position cannot be resumed from."""

    def __init__(self, stream: str, asked: int, head: int, reason: str) -> None:
        super().__init__(reason)
        self.stream, self.asked, self.head, self.reason = stream, asked, head, reason

    def body(self) -> dict[str, object]:
        return wire.resync(self.stream, self.asked, self.head, self.reason)


THROWS = frozenset({"opening_throw", "dice_rolled"})
"""The throws, whose stream message carries ``m``: what the throw leaves the player to move."""
MOVES = frozenset({"checkers_moved"})
"""The moves, whose stream message carries ``m`` when the game goes on and a socket of the table
asked for views (``?views=1``, the web page's): every viewer's view after it
(:mod:`server.views.move`)."""
FOLLOWED = THROWS | MOVES
"""The events whose stream message may carry ``m``."""


class ThrowMessages:
    """The table streams' latest messages, each encoded once for every socket of the table,
    and the ``m`` of the latest throws (:func:`server.views.throw.throw_view`: the legal plays
    of the player to move, or that they cannot move) and moves
    (:func:`server.views.move.move_view`: every viewer's view after it). Bounded: the ``size``
    messages and the ``size`` throws and moves seen last.

    A move's view is made only for a table where a socket asked for views (:meth:`viewing`):
    a page shows the view and would fetch it after every move; a bot or a script follows the
    events, and the tables that only they watch are not charged for views nobody reads."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._viewing: collections.Counter[str] = collections.Counter()
        self._items: collections.OrderedDict[
            tuple[str, int], asyncio.Future[msgspec.Raw | None]
        ] = collections.OrderedDict()
        self._encoded: collections.OrderedDict[tuple[str, int], bytes] = collections.OrderedDict()

    def clear(self) -> None:
        """Forget every message made (an account was erased: they may name its player)."""
        self._items.clear()
        self._encoded.clear()

    @contextlib.contextmanager
    def viewing(self, table_id: str) -> Iterator[None]:
        """While in it, the table's moves carry their views (its sockets' messages, made once,
        are the same for all of them)."""
        self._viewing[table_id] += 1
        try:
            yield
        finally:
            self._viewing[table_id] -= 1
            if self._viewing[table_id] <= 0:
                del self._viewing[table_id]

    def encoded(self, rec: RecordedEvent) -> bytes | None:
        """The table stream's message for ``rec`` if it was made already (no ``await``)."""
        return self._encoded.get((rec.stream_id, rec.version))

    async def message(self, app: web.Application, table_id: str, rec: RecordedEvent) -> bytes:
        """A table stream's event as every socket gets it (the same for every viewer: nothing
        on the table stream is hidden), with ``m`` after a throw or a move; encoded once."""
        key = (rec.stream_id, rec.version)
        out = self._encoded.get(key)
        if out is not None:
            return out
        msg = wire.message(rec, "table", True, chain=True, keys=app[TABLES].store.keys)
        if rec.type in FOLLOWED:
            msg.m = await self.get(app, table_id, rec)
        out = wire.encode(msg)
        self._encoded[key] = out
        while len(self._encoded) > self.size:
            self._encoded.popitem(last=False)
        return out

    async def get(self, app: web.Application, table_id: str, rec: RecordedEvent) -> object:
        """The throw's or move's ``m``, or None when the table has moved on since (or it is
        neither, or a move after which the game does not go on). Computed once: the table's
        other sockets asking meanwhile wait for the same answer."""
        if rec.type not in FOLLOWED or (rec.type in MOVES and table_id not in self._viewing):
            return None
        key = (table_id, rec.version)
        known = self._items.get(key)
        if known is not None:
            return await asyncio.shield(known)
        future: asyncio.Future[msgspec.Raw | None] = asyncio.get_running_loop().create_future()
        self._items[key] = future
        while len(self._items) > self.size:
            self._items.popitem(last=False)
        try:
            out = await self._compute(app, table_id, rec)
        except BaseException:
            self._items.pop(key, None)
            future.set_result(None)
            raise
        future.set_result(out)
        return out

    async def _compute(
        self, app: web.Application, table_id: str, rec: RecordedEvent
    ) -> msgspec.Raw | None:
        tables = app[TABLES]
        state = tables.cached(table_id)
        if state is None or state.version < rec.version:
            try:
                state = await tables.state(table_id)
            except (StoreError, ValueError):
                return None
        if state.version != rec.version:
            return None
        if rec.type in MOVES:
            moved = move_view(state, tables.now())
            return None if moved is None else msgspec.Raw(wire.encode(moved))
        event = decode_recorded(rec, tables.store.keys)
        thrower = getattr(event, "player", "")
        dice = getattr(event, "dice", (0, 0))
        view = throw_view(state, rec.type, thrower, tuple(dice), tables.now())
        return None if view is None else msgspec.Raw(wire.encode(view))


THROW_MESSAGES = web.AppKey("throw_messages", ThrowMessages)


async def _stream_message(
    app: web.Application, table_id: str, name: str, rec: RecordedEvent, viewer: str | None
) -> bytes:
    """One event as a stream sends it (with ``m`` after a throw or a move)."""
    if name == "table":
        throws = app.get(THROW_MESSAGES)
        if throws is not None:
            return await throws.message(app, table_id, rec)
    keys = app[TABLES].store.keys
    visible = name != "chat" or readable(rec, viewer)
    return wire.encode(wire.message(rec, name, visible, chain=True, keys=keys))


class _Audience(msgspec.Struct):
    channel: str = "table"
    audience: list[str] = []


_AUDIENCE = msgspec.json.Decoder(_Audience)


def readable(rec: RecordedEvent, viewer: str | None) -> bool:
    """Whether ``viewer`` may read an event of a chat stream: its channel and audience, read
    without opening the message (they are in the clear; the text may be sealed)."""
    if rec.type != "chat_posted":
        return True
    try:
        posted = _AUDIENCE.decode(rec.data)
    except msgspec.DecodeError as exc:
        raise CorruptEventError(rec.stream_id, rec.version, str(exc)) from exc
    if posted.channel == "team":
        # Who may read team advice was fixed when it was posted (the team of that game).
        return viewer is not None and viewer in posted.audience
    return True


def check_after(stream: str, after: int, head: int, window: int) -> None:
    # A negative version never gets here: the parameters are parsed in range (a 400).
    if after > head:
        raise Resync(
            stream, after, head, f"version {after} is in the future; the stream is at {head}"
        )
    if head - after > window:
        raise Resync(stream, after, head, f"version {after} is too far back; resync from the state")


async def _pump(
    request: web.Request,
    ws: web.WebSocketResponse,
    table_id: str,
    name: str,
    version: int,
    viewer: str | None,
) -> None:
    """One stream of the table after ``version`` to the socket, as it grows, straight from its
    subscription's batches (no queue, task or generator in between: every socket waits once
    per batch). A subscription reading the database while it is away ends with
    StoreUnavailableError: it waits and subscribes again after the last version sent, so that
    the client sees nothing but a pause."""
    app = request.app
    notifier: LiveFeed = app[LIVE_FEED]
    metrics = app[METRICS]
    stream = table_stream(table_id) if name == "table" else chat_stream(table_id)
    throws = app.get(THROW_MESSAGES) if name == "table" else None
    while True:
        try:
            async with notifier.subscribe_stream(stream, version) as sub:
                while True:
                    try:
                        batch = await sub.next_batch()
                    except StopAsyncIteration:
                        return
                    for rec in batch:
                        # The table's other sockets made this message already, as a rule.
                        data = throws.encoded(rec) if throws is not None else None
                        if data is None:
                            data = await _stream_message(app, table_id, name, rec, viewer)
                        await ws.send_bytes(data)
                        metrics.sent(ws, rec.stream_id, rec.version)
                        version = rec.version
        except StoreUnavailableError as exc:
            log.warning("stream paused: %s", exc, extra={"stream": stream})
            await asyncio.sleep(app[CONFIG].poll_interval)


async def _merged(
    app: web.Application,
    table_id: str,
    after: int,
    chat_after: int,
    stop: asyncio.Event | None = None,
) -> AsyncIterator[tuple[str, RecordedEvent]]:
    """The table and chat streams after the given versions, interleaved as they arrive, until
    ``stop`` is set."""
    notifier: LiveFeed = app[LIVE_FEED]
    retry = app[CONFIG].poll_interval
    queue: asyncio.Queue[tuple[str, RecordedEvent] | BaseException | None] = asyncio.Queue(
        maxsize=256
    )

    async def pump(name: str, stream: str, version: int) -> None:
        # A subscription reading the database while it is away ends with StoreUnavailableError:
        # wait and subscribe again after the last version queued, so that the client sees
        # nothing but a pause.
        while True:
            try:
                async with notifier.subscribe_stream(stream, version) as sub:
                    async for rec in sub:
                        await queue.put((name, rec))
                        version = rec.version
                return
            except asyncio.CancelledError:
                raise
            except StoreUnavailableError as exc:
                log.warning("stream paused: %s", exc, extra={"stream": stream})
                await asyncio.sleep(retry)
            except BaseException as exc:
                await queue.put(exc)
                return

    async def stopper(stop: asyncio.Event) -> None:
        await stop.wait()
        await queue.put(None)

    tasks = [
        asyncio.create_task(pump("table", table_stream(table_id), after)),
        asyncio.create_task(pump("chat", chat_stream(table_id), chat_after)),
    ]
    if stop is not None:
        tasks.append(asyncio.create_task(stopper(stop)))
    try:
        while True:
            item = await queue.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _positions(
    request: web.Request,
    table_id: str,
    after: int,
    chat_after: int,
    session: auth.Session | None,
) -> TableState:
    # A private table is unknown to whoever may not see it (server/http/privacy.py): the same 404,
    # where an unknown table's is raised.
    await privacy.guard(request.app, table_id, session.account if session else None)
    tables = request.app[TABLES]
    feed: LiveFeed = request.app[LIVE_FEED]
    # The state this process holds, when its live feed has seen nothing after it (the socket's
    # subscription then delivers anything later); else the store's.
    state = tables.cached(table_id)
    if (
        state is None
        or after > state.version
        or feed.known_version(table_stream(table_id)) != state.version
    ):
        state = await tables.state(table_id)
    window = request.app[CONFIG].resync_window
    check_after("table", after, state.version, window)
    chat_head = feed.known_version(chat_stream(table_id))
    if chat_head is None or chat_after > chat_head:
        chat_head = await tables.store.stream_version(chat_stream(table_id))
    check_after("chat", chat_after, chat_head, window)
    return state


def version_param(request: web.Request, name: str) -> int:
    """A version to resume after: 0 to the largest a stream can have, or a 400 naming it."""
    return query_int(request, name, 0)


# -- who is connecting ------------------------------------------------------------------------


Stop = Callable[[], Awaitable[object]]
"""How a socket is stopped (closed, or its stream ended)."""

AccessCheck = Callable[[list[tuple[str, str]]], Awaitable[set[tuple[str, str]]]]
"""Of ``(table_id, account_id)`` pairs, those whose account may still see the private table
(:func:`server.http.privacy.still_see`)."""


class SessionWatch:
    """The open sockets by the token they act for, and those of a private table by the table
    and the account watching it. Every ``interval`` seconds one query asks which of those
    tokens are still good, and another which of those accounts may still see those tables; the
    sockets of the others are stopped: a revoked or expired token stops acting, and a revoked
    invitation stops the streams it let in, within the interval, however many are open."""

    def __init__(
        self, accounts: auth.Accounts, interval: float, access: AccessCheck | None = None
    ) -> None:
        self.accounts = accounts
        self.interval = interval
        self.access = access
        self._stops: dict[bytes, set[Stop]] = {}
        self._watchers: dict[tuple[str, str], set[Stop]] = {}
        self._stopping: set[asyncio.Task[object]] = set()
        self.checked_at = -1e9
        """When the last check began that found every open socket's token good or stopped it
        (``time.monotonic()``)."""

    @contextlib.contextmanager
    def watching(self, session: auth.Session | None, stop: Stop) -> Iterator[None]:
        """While in the block, ``stop()`` is awaited (once) if the session's token ends."""
        if session is None:
            yield
            return
        with _registered(self._stops, session.token_hash, stop):
            yield

    @contextlib.contextmanager
    def watching_access(self, table_id: str, account_id: str, stop: Stop) -> Iterator[None]:
        """While in the block, ``stop()`` is awaited (once) if the account may no longer see
        the private table (the invitation that let it in was revoked)."""
        with _registered(self._watchers, (table_id, account_id), stop):
            yield

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            await self.check()

    async def check(self) -> None:
        """Stop the sockets whose token is no longer good, then those whose account may no
        longer see their private table (the database away: none)."""
        await self._check_tokens()
        await self._check_access()

    async def _check_tokens(self) -> None:
        asked = list(self._stops)
        began = time.monotonic()
        if not asked:
            self.checked_at = began
            return
        try:
            valid = await self.accounts.valid_tokens(asked)
        except StoreError as exc:
            log.warning("cannot check the sockets' tokens: %s", exc)
            return
        self.checked_at = began
        # Only the tokens asked about: a socket opened during the query is not judged by it.
        self._stop_all(self._stops, [digest for digest in asked if digest not in valid])

    async def _check_access(self) -> None:
        asked = list(self._watchers)
        if not asked or self.access is None:
            return
        try:
            allowed = await self.access(asked)
        except StoreError as exc:
            log.warning("cannot check the sockets' access to private tables: %s", exc)
            return
        self._stop_all(self._watchers, [pair for pair in asked if pair not in allowed])

    def _stop_all(self, stops: dict[_K, set[Stop]], keys: list[_K]) -> None:
        for key in keys:
            for stop in stops.pop(key, ()):
                task: asyncio.Task[object] = asyncio.ensure_future(stop())
                self._stopping.add(task)
                task.add_done_callback(self._stopping.discard)


@contextlib.contextmanager
def _registered(stops: dict[_K, set[Stop]], key: _K, stop: Stop) -> Iterator[None]:
    """``stop`` in ``stops[key]`` while in the block (the key gone with its last stop)."""
    stops.setdefault(key, set()).add(stop)
    try:
        yield
    finally:
        left = stops.get(key)
        if left is not None:
            left.discard(stop)
            if not left:
                del stops[key]


WATCH = web.AppKey("session_watch", SessionWatch)


class EventStreams:
    """The open Server-Sent Events streams. A stream ends only when its handler returns, so
    shutdown ends each (as it closes the WebSockets) rather than wait for the client to go."""

    def __init__(self) -> None:
        self._stops: set[asyncio.Event] = set()

    @contextlib.contextmanager
    def open(self, stop: asyncio.Event) -> Iterator[None]:
        """While in the block, :meth:`close_all` sets ``stop``."""
        self._stops.add(stop)
        try:
            yield
        finally:
            self._stops.discard(stop)

    def close_all(self) -> None:
        for stop in self._stops:
            stop.set()


EVENT_STREAMS = web.AppKey("event_streams", EventStreams)


async def watch_sessions(app: web.Application) -> AsyncIterator[None]:
    """The app's :class:`SessionWatch` (a cleanup context, after the database's)."""
    watch = app[WATCH] = SessionWatch(
        app[auth.ACCOUNTS], app[CONFIG].session_check, functools.partial(privacy.still_see, app)
    )
    async with running(watch.run()):
        yield


async def _stream_session(request: web.Request) -> auth.Session | None:
    """Who connects: a ticket's session (the account was counted when it was issued), the
    header's (counted now), or nobody."""
    ticket = request.query.get("ticket")
    token = bearer(request)  # a token in the URL is refused here
    if ticket is not None:
        return await request.app[auth.ACCOUNTS].redeem_ticket(ticket)
    if token is None:
        return None
    session = await request.app[auth.ACCOUNTS].session(token)
    request.app[ratelimit.LIMITS].hit("sockets_account", session.account.account_id)
    return session


@contextlib.asynccontextmanager
async def admitted(request: web.Request) -> AsyncIterator[auth.Session | None]:
    """A stream connection within the limits of its address and account, held open (for the
    caps) while in the block; yields who connects.

    :raises Problem: 429 over a limit or cap, 401 for a bad ticket or token.
    """
    limits = request.app[ratelimit.LIMITS]
    address = limits.address(request)
    limits.hit("sockets_address", address)
    session = await _stream_session(request)
    with limits.socket(session.account.account_id if session else None, address):
        yield session


class _Checked:
    """When a socket's token was last found good (its connection's own check, or its last
    command's), and the revocations this process had made by then."""

    __slots__ = ("at", "revocations")

    def __init__(self, revocations: int) -> None:
        self.at = time.monotonic()
        self.revocations = revocations


async def _still_valid(
    request: web.Request, session: auth.Session | None, checked: _Checked
) -> bool:
    """Whether a socket's token may still act (checked as a command arrives). A token found
    good, by this socket or by :class:`SessionWatch`'s last check of every socket's token, is
    taken as good for two ``Config.session_check`` intervals unless this process revoked a
    token since: no query per command. Revoked through another process, its socket is closed
    within an interval by :class:`SessionWatch` (and refuses commands within two)."""
    if session is None:
        return True
    accounts = request.app[auth.ACCOUNTS]
    now = time.monotonic()
    fresh = max(checked.at, request.app[WATCH].checked_at)
    # Two intervals: the watch checks every interval, and its query takes a moment.
    if (
        now - fresh < 2 * request.app[CONFIG].session_check
        and checked.revocations == accounts.revocations
    ):
        return True
    revocations = accounts.revocations
    try:
        good = await accounts.is_valid(session.token_hash)
    except StoreError:
        return True  # the database is away: the command itself is answered with a 503
    if good:
        checked.at, checked.revocations = now, revocations
    return good


async def set_event(event: asyncio.Event) -> None:
    event.set()


def _watching_access(
    app: web.Application, table_id: str, viewer: str | None, stop: Stop
) -> contextlib.AbstractContextManager[None]:
    """A stream of a private table (``viewer`` None: of a public one, or anonymous, and not
    watched): stopped by :class:`SessionWatch` once the viewer may no longer see the table."""
    if viewer is None:
        return contextlib.nullcontext()
    return app[WATCH].watching_access(table_id, viewer, stop)


async def _may_still_see(app: web.Application, table_id: str, viewer: str | None) -> bool:
    """Whether a socket's account may still see its private table (checked as a command
    arrives; a player without a query). The database away: yes (the command itself is
    answered with a 503)."""
    if viewer is None:
        return True
    try:
        return (table_id, viewer) in await privacy.still_see(app, [(table_id, viewer)])
    except StoreError:
        return True


async def _announce(
    app: web.Application,
    table_id: str,
    watcher: Watcher,
    send: Callable[[bytes], Awaitable[object]],
) -> None:
    """Send who is connected each time it changes (the newest state only: never a backlog)."""
    presence = app[PRESENCE]
    while True:
        await watcher.changed.wait()
        watcher.changed.clear()
        await send(wire.encode(presence.message(table_id)))


def message_command_id(data: str | bytes) -> str | None:
    """The ``command_id`` of a socket message, if it has a readable one."""
    try:
        return str(msgspec.json.decode(data, type=_Envelope).command_id)
    except (msgspec.DecodeError, ValueError):
        return None


class _Envelope(msgspec.Struct):
    command_id: str | None = None


# -- the WebSocket ----------------------------------------------------------------------------


async def websocket(request: web.Request) -> web.StreamResponse:
    """``GET /tables/{id}/ws?after=N&chat_after=M&views=0|1``: events out, commands in; with
    ``views=1`` a move's message carries the views after it (:class:`ThrowMessages`)."""
    async with admitted(request) as session:
        # Who connects first (a bad ticket or token is a 401 whatever the path), then the path.
        table_id = table_id_of(request)
        return await _websocket(request, table_id, session)


async def _websocket(
    request: web.Request, table_id: str, session: auth.Session | None
) -> web.StreamResponse:
    account = session.account if session else None
    viewer = account.account_id if account else None
    after, chat_after = version_param(request, "after"), version_param(request, "chat_after")
    views = query_int(request, "views", 0, maximum=1)
    config = request.app[CONFIG]
    ws = web.WebSocketResponse(
        heartbeat=20, max_msg_size=config.max_body, compress=config.ws_compress
    )
    try:
        state = await _positions(request, table_id, after, chat_after, session)
    except Resync as r:
        await ws.prepare(request)
        await ws.send_bytes(wire.encode(r.body()))
        await ws.close(code=WSCloseCode.POLICY_VIOLATION, message=b"resync")
        return ws
    await ws.prepare(request)
    sockets: weakref.WeakSet[web.WebSocketResponse] = request.app[SOCKETS]
    sockets.add(ws)
    metrics = request.app[METRICS]
    metrics.clients.inc(kind="ws")
    metrics.sent(ws, table_stream(table_id), after)
    metrics.sent(ws, chat_stream(table_id), chat_after)

    async def writer(name: str, version: int) -> None:
        # Each stream straight to the socket (a frame is written whole, so the two streams'
        # messages never mix): no queue and no task between the feed and the socket.
        try:
            await _pump(request, ws, table_id, name, version, viewer)
        except ConnectionError:
            pass  # the client went away: it resumes by version
        except Exception:
            # Never leave a socket open that no longer delivers: the client reconnects with
            # its last version and resumes exactly.
            log.exception("stream to a socket failed", extra={"table_id": table_id})
            await ws.close(code=WSCloseCode.INTERNAL_ERROR, message=b"stream failed; resume")

    pumps = (
        asyncio.create_task(writer("table", after)),
        asyncio.create_task(writer("chat", chat_after)),
    )
    revoked = functools.partial(
        ws.close, code=WSCloseCode.POLICY_VIOLATION, message=b"the token was revoked or expired"
    )
    uninvited = functools.partial(
        ws.close, code=WSCloseCode.POLICY_VIOLATION, message=b"the invitation was revoked"
    )
    private = state.options.private and viewer is not None
    throws = request.app.get(THROW_MESSAGES)
    with (
        throws.viewing(table_id) if views and throws is not None else contextlib.nullcontext(),
        request.app[LOBBY].watching(table_id, viewer not in state.players),
        request.app[WATCH].watching(session, revoked),
        _watching_access(request.app, table_id, viewer if private else None, uninvited),
        request.app[PRESENCE].connected(table_id, viewer) as watcher,
    ):
        announcer = asyncio.create_task(_announce(request.app, table_id, watcher, ws.send_bytes))
        checked = _Checked(request.app[auth.ACCOUNTS].revocations)
        tables = request.app[TABLES]
        try:
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT and msg.type is not WSMsgType.BINARY:
                    continue
                # The command's time, and its place before any expiry, taken at once: it is
                # decided at this time, and a clock's expiry of this table waits for it.
                arrival = tables.arrival(table_id) if account is not None else None
                with arrival or contextlib.nullcontext():
                    if not await _still_valid(request, session, checked):
                        refused = unauthorized(auth.INVALID_TOKEN)
                        await ws.send_bytes(
                            wire.encode(wire.error(message_command_id(msg.data), refused.body()))
                        )
                        await revoked()
                        break
                    if private and not await _may_still_see(request.app, table_id, viewer):
                        # Its invitation revoked since it connected: what the command would
                        # be answered for a table that does not exist, and the socket closes.
                        gone = privacy.no_table(table_id)
                        await ws.send_bytes(
                            wire.encode(wire.error(message_command_id(msg.data), gone.body()))
                        )
                        await uninvited()
                        break
                    reply = await _ws_command(request, table_id, account, msg.data, arrival)
                try:
                    await ws.send_bytes(wire.encode(reply))
                except ConnectionError:
                    break  # the client went away before its answer: it resumes by version
                # Not kept while the socket waits for its next command (seconds to hours):
                # the message, its registration and the answer with its events.
                del msg, arrival, reply
                if pumps[0].done() or pumps[1].done():
                    break
        finally:
            for task in (announcer, *pumps):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            metrics.clients.inc(-1, kind="ws")
            metrics.gone(ws)
            await ws.close()
    return ws


async def _ws_command(
    request: web.Request,
    table_id: str,
    account: auth.Account | None,
    data: str | bytes,
    arrival: Arrival | None = None,
) -> dict[str, object]:
    """Run one command received on a socket; answer with its result or its problem."""
    command_id: str | None = None
    try:
        body = msgspec.json.decode(data, type=CommandEnvelope)
        command_id = str(body.command_id)
        # After decoding, so that the refusal names the command id it answers.
        if account is None:
            raise unauthorized(
                "connect with a ticket (or the Authorization header) to send commands"
            )
        result = await run_command(request.app, table_id, account, body, arrival)
        return wire.result(result)
    except Exception as exc:
        problem = to_problem(exc)
        if problem is None:
            log.exception("command on socket failed", extra={"table_id": table_id})
            problem = Problem(500, "internal", "Internal error", "an unexpected error occurred")
        elif problem.status >= 500:
            log_failure(request, exc, command_id=command_id)
        return wire.error(command_id, problem.body())


def _last_event_id(request: web.Request) -> tuple[int, int]:
    raw = request.headers.get("Last-Event-ID")
    if raw is None:
        return version_param(request, "after"), version_param(request, "chat_after")
    table, _, chat = raw.partition(".")
    try:
        return (
            int_in_range("Last-Event-ID", table, 0, BIGINT_MAX),
            int_in_range("Last-Event-ID", chat or "0", 0, BIGINT_MAX),
        )
    except Problem:
        raise bad_request(
            f"Last-Event-ID must be '<table>.<chat>', two versions from 0 to {BIGINT_MAX},"
            f" not {raw[:60]!r}",
            field="Last-Event-ID",
        ) from None


async def sse(request: web.Request) -> web.StreamResponse:
    """``GET /tables/{id}/events``: the same events as Server-Sent Events; ``id`` is
    ``<table version>.<chat version>`` so ``Last-Event-ID`` resumes both streams."""
    async with admitted(request) as session:
        table_id = table_id_of(request)
        return await _sse(request, table_id, session)


async def _sse(
    request: web.Request, table_id: str, session: auth.Session | None
) -> web.StreamResponse:
    viewer = session.account.account_id if session else None
    after, chat_after = _last_event_id(request)
    resp = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
    )
    try:
        state = await _positions(request, table_id, after, chat_after, session)
    except Resync as r:
        await resp.prepare(request)
        await resp.write(b"event: resync\ndata: " + wire.encode(r.body()) + b"\n\n")
        return resp
    await resp.prepare(request)
    metrics = request.app[METRICS]
    metrics.clients.inc(kind="sse")
    metrics.sent(resp, table_stream(table_id), after)
    metrics.sent(resp, chat_stream(table_id), chat_after)

    stopped = asyncio.Event()

    async def keep_alive() -> None:
        # A comment line now and then: a client that went away is noticed (the write fails)
        # even at a quiet table, so its connection stops counting against the caps.
        try:
            while True:
                await asyncio.sleep(SSE_KEEP_ALIVE)
                await resp.write(b": keep-alive\n\n")
        except (ConnectionError, RuntimeError):
            stopped.set()

    async def presence_event(body: bytes) -> None:
        # No id: the browser's Last-Event-ID stays the last event's.
        try:
            await resp.write(b"event: presence\ndata: " + body + b"\n\n")
        except (ConnectionError, RuntimeError):
            stopped.set()

    beat = asyncio.create_task(keep_alive())
    with (
        request.app[LOBBY].watching(table_id, viewer not in state.players),
        request.app[WATCH].watching(session, functools.partial(set_event, stopped)),
        _watching_access(
            request.app,
            table_id,
            viewer if state.options.private else None,
            functools.partial(set_event, stopped),
        ),
        request.app[EVENT_STREAMS].open(stopped),
        request.app[PRESENCE].connected(table_id, viewer) as watcher,
    ):
        announcer = asyncio.create_task(_announce(request.app, table_id, watcher, presence_event))
        versions = {"table": after, "chat": chat_after}
        try:
            async for name, rec in _merged(request.app, table_id, after, chat_after, stopped):
                versions[name] = rec.version
                body = await _stream_message(request.app, table_id, name, rec, viewer)
                await resp.write(
                    f"id: {versions['table']}.{versions['chat']}\n".encode()
                    + b"data: "
                    + body
                    + b"\n\n"
                )
                metrics.sent(resp, rec.stream_id, rec.version)
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            beat.cancel()
            announcer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await announcer
            metrics.clients.inc(-1, kind="sse")
            metrics.gone(resp)
    return resp
