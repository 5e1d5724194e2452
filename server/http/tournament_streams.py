"""A tournament's live stream (docs/tournaments.md): ``GET /tournaments/{id}/ws`` and
``/events`` (Server-Sent Events), followed as a table's are (:mod:`server.http.streams`), with
the same tickets, limits and resume by version: its messages carry ``s: "tournament"``, SSE ids
are the version alone, and its socket takes no commands. A private tournament's is refused, to
anyone who may not see it, as an unknown tournament is (a 404).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable

from aiohttp import WSCloseCode, WSMsgType, web

from events.store.errors import StoreUnavailableError
from events.store.event_store import RecordedEvent
from events.store.streams import tournament_stream
from events.store.subscription import LiveFeed
from server.access import auth
from server.http import wire
from server.http.common import BIGINT_MAX, int_in_range
from server.http.problems import bad_request
from server.http.streams import (
    EVENT_STREAMS,
    SSE_KEEP_ALIVE,
    WATCH,
    Resync,
    admitted,
    check_after,
    message_command_id,
    set_event,
    version_param,
)
from server.http.tournaments import TOURNAMENTS, tournament_id_of, visible
from server.keys import CONFIG, LIVE_FEED, METRICS, SOCKETS

__all__ = ["TOURNAMENT", "tournament_sse", "tournament_websocket"]

log = logging.getLogger("chouette.streams")


TOURNAMENT = "tournament"
"""The ``s`` of a tournament stream's messages."""


def _tournament_after(request: web.Request) -> int:
    """The version to resume a tournament's stream after: ``Last-Event-ID`` (SSE), else
    ``?after=``; a 400 naming it when it is no version."""
    raw = request.headers.get("Last-Event-ID")
    if raw is None:
        return version_param(request, "after")
    return int_in_range("Last-Event-ID", raw, 0, BIGINT_MAX)


async def _tournament_head(
    request: web.Request, tournament_id: str, after: int, session: auth.Session | None
) -> None:
    """Check that the caller may follow the tournament (a private one is, to anyone else, an
    unknown tournament: the same 404, by the tournament API's own check) and that ``after``
    can be resumed from.

    :raises Resync: ``after`` is ahead of the stream or further back than the window."""
    account = session.account if session else None
    state = await visible(request.app, tournament_id, account)
    check_after(TOURNAMENT, after, state.version, request.app[CONFIG].resync_window)


async def _follow_tournament(
    app: web.Application,
    tournament_id: str,
    version: int,
    send: Callable[[RecordedEvent, bytes], Awaitable[object]],
) -> None:
    """The tournament's stream after ``version``, each event as its message, to ``send`` as
    the stream grows. Nothing on it is hidden from whoever may follow it; what a person typed
    (the tournament's name, an adjustment's reason) is opened with the store's keys, or is the
    pseudonym once its key is destroyed. A subscription reading the database while it is away
    ends with StoreUnavailableError: it waits and subscribes again after the last version
    sent, so that the client sees nothing but a pause."""
    feed: LiveFeed = app[LIVE_FEED]
    keys = app[TOURNAMENTS].store.keys
    stream = tournament_stream(tournament_id)
    while True:
        try:
            async with feed.subscribe_stream(stream, version) as sub:
                while True:
                    try:
                        batch = await sub.next_batch()
                    except StopAsyncIteration:
                        return
                    for rec in batch:
                        msg = wire.message(rec, TOURNAMENT, True, chain=True, keys=keys)
                        await send(rec, wire.encode(msg))
                        version = rec.version
        except StoreUnavailableError as exc:
            log.warning("stream paused: %s", exc, extra={"stream": stream})
            await asyncio.sleep(app[CONFIG].poll_interval)


async def tournament_websocket(request: web.Request) -> web.StreamResponse:
    """``GET /tournaments/{id}/ws?after=N``: the tournament's events, live. Read-only: what a
    client sends is refused (``ctl: error``, a 400) and the socket closes, since entering,
    starting and the rest are HTTP routes."""
    async with admitted(request) as session:
        # Who connects first (a bad ticket or token is a 401 whatever the path), then the path.
        tournament_id = tournament_id_of(request)
        return await _tournament_websocket(request, tournament_id, session)


async def _tournament_websocket(
    request: web.Request, tournament_id: str, session: auth.Session | None
) -> web.StreamResponse:
    after = version_param(request, "after")
    config = request.app[CONFIG]
    ws = web.WebSocketResponse(
        heartbeat=20, max_msg_size=config.max_body, compress=config.ws_compress
    )
    try:
        await _tournament_head(request, tournament_id, after, session)
    except Resync as r:
        await ws.prepare(request)
        await ws.send_bytes(wire.encode(r.body()))
        await ws.close(code=WSCloseCode.POLICY_VIOLATION, message=b"resync")
        return ws
    await ws.prepare(request)
    request.app[SOCKETS].add(ws)
    metrics = request.app[METRICS]
    metrics.clients.inc(kind="ws")
    metrics.sent(ws, tournament_stream(tournament_id), after)

    async def send(rec: RecordedEvent, data: bytes) -> None:
        await ws.send_bytes(data)
        metrics.sent(ws, rec.stream_id, rec.version)

    async def writer() -> None:
        try:
            await _follow_tournament(request.app, tournament_id, after, send)
        except ConnectionError:
            pass  # the client went away: it resumes by version
        except Exception:
            # Never leave a socket open that no longer delivers: the client resumes.
            log.exception("stream to a socket failed", extra={"tournament_id": tournament_id})
            await ws.close(code=WSCloseCode.INTERNAL_ERROR, message=b"stream failed; resume")

    pump = asyncio.create_task(writer())
    revoked = functools.partial(
        ws.close, code=WSCloseCode.POLICY_VIOLATION, message=b"the token was revoked or expired"
    )
    # No watch of access: who may see a private tournament only grows (its director, its
    # invited, which never change, and its entrants, who stay entrants once withdrawn).
    with request.app[WATCH].watching(session, revoked):
        try:
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT and msg.type is not WSMsgType.BINARY:
                    continue
                refused = bad_request(
                    "a tournament's socket takes no commands: enter, withdraw, start and adjust"
                    f" with POST /tournaments/{tournament_id}/..."
                )
                with contextlib.suppress(ConnectionError):
                    await ws.send_bytes(
                        wire.encode(wire.error(message_command_id(msg.data), refused.body()))
                    )
                await ws.close(code=WSCloseCode.POLICY_VIOLATION, message=b"no commands here")
                break
        finally:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pump
            metrics.clients.inc(-1, kind="ws")
            metrics.gone(ws)
            await ws.close()
    return ws


async def _keep_alive(resp: web.StreamResponse, stopped: asyncio.Event) -> None:
    """A comment line now and then: a client that went away is noticed (the write fails) even
    on a quiet stream, so its connection stops counting against the caps."""
    try:
        while True:
            await asyncio.sleep(SSE_KEEP_ALIVE)
            await resp.write(b": keep-alive\n\n")
    except (ConnectionError, RuntimeError):
        stopped.set()


async def tournament_sse(request: web.Request) -> web.StreamResponse:
    """``GET /tournaments/{id}/events``: the same events as Server-Sent Events; each ``id`` is
    the event's version, so ``Last-Event-ID`` resumes."""
    async with admitted(request) as session:
        tournament_id = tournament_id_of(request)
        return await _tournament_sse(request, tournament_id, session)


async def _tournament_sse(
    request: web.Request, tournament_id: str, session: auth.Session | None
) -> web.StreamResponse:
    after = _tournament_after(request)
    resp = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
    )
    try:
        await _tournament_head(request, tournament_id, after, session)
    except Resync as r:
        await resp.prepare(request)
        await resp.write(b"event: resync\ndata: " + wire.encode(r.body()) + b"\n\n")
        return resp
    await resp.prepare(request)
    metrics = request.app[METRICS]
    metrics.clients.inc(kind="sse")
    metrics.sent(resp, tournament_stream(tournament_id), after)
    stopped = asyncio.Event()

    async def send(rec: RecordedEvent, data: bytes) -> None:
        await resp.write(f"id: {rec.version}\n".encode() + b"data: " + data + b"\n\n")
        metrics.sent(resp, rec.stream_id, rec.version)

    with (
        request.app[WATCH].watching(session, functools.partial(set_event, stopped)),
        request.app[EVENT_STREAMS].open(stopped),
    ):
        tasks = (
            asyncio.create_task(_follow_tournament(request.app, tournament_id, after, send)),
            asyncio.create_task(_keep_alive(resp, stopped)),
            asyncio.create_task(stopped.wait()),
        )
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            pump = tasks[0]
            if pump.done() and not pump.cancelled():
                failed = pump.exception()
                if failed is not None and not isinstance(failed, ConnectionError | RuntimeError):
                    log.error(
                        "stream failed",
                        exc_info=failed,
                        extra={"tournament_id": tournament_id},
                    )
        finally:
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            metrics.clients.inc(-1, kind="sse")
            metrics.gone(resp)
    return resp
