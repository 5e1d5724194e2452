"""Live event streams to clients: a table's WebSocket and its Server-Sent Events.

Each message is ``{"v": version, "s": stream, "t": type, "d": data}``; ``s`` is ``"table"`` or
``"chat"``, and each stream's versions are gap-free on their own. A chat message the recipient
may not read (the team channel, for the box and for spectators) arrives as ``{"v": n, "s":
"chat"}`` only, so versions never skip. A client resumes with ``?after=N`` (and ``chat_after``)
on the WebSocket or ``Last-Event-ID: "<table>.<chat>"`` on SSE. One asking for a version the
stream has not reached, or further back than the resync window, gets a ``resync`` control message
(and the socket closes): it should fetch ``GET /tables/{id}`` and reconnect from its version.

Each subscription catches up from the database and then follows the log; a client that falls
behind is moved back to reading from the database (see :mod:`events.subscription`), so a slow
client never grows the server's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import AsyncIterator

import msgspec
from aiohttp import WSCloseCode, WSMsgType, web

from events.errors import StoreUnavailableError
from events.store import RecordedEvent
from events.streams import chat_stream, decode_recorded, table_stream
from events.subscription import LiveFeed
from events.table import TableState
from events.types import ChatPosted
from server import handlers as h
from server.keys import CONFIG, LIVE_FEED, LOBBY, METRICS, SOCKETS, TABLES
from server.problems import Problem, bad_request, to_problem

log = logging.getLogger("chouette.streams")

_encoder = msgspec.json.Encoder()


class Resync(Exception):
    """The client's position cannot be resumed from."""

    def __init__(self, stream: str, asked: int, head: int, reason: str) -> None:
        super().__init__(reason)
        self.stream, self.asked, self.head, self.reason = stream, asked, head, reason

    def body(self) -> dict[str, object]:
        return {
            "ctl": "resync",
            "stream": self.stream,
            "asked": self.asked,
            "version": self.head,
            "reason": self.reason,
        }


def _readable(rec: RecordedEvent, viewer: str | None) -> bool:
    event = decode_recorded(rec)
    if isinstance(event, ChatPosted) and event.channel == "team":
        # Who may read team advice was fixed when it was posted (the team of that game).
        return viewer is not None and viewer in event.audience
    return True


def _check_after(stream: str, after: int, head: int, window: int) -> None:
    if after < 0:
        raise Resync(stream, after, head, "a version cannot be negative")
    if after > head:
        raise Resync(
            stream, after, head, f"version {after} is in the future; the stream is at {head}"
        )
    if head - after > window:
        raise Resync(stream, after, head, f"version {after} is too far back; resync from the state")


async def _merged(
    app: web.Application, table_id: str, after: int, chat_after: int
) -> AsyncIterator[tuple[str, RecordedEvent]]:
    """The table and chat streams after the given versions, interleaved as they arrive."""
    notifier: LiveFeed = app[LIVE_FEED]
    retry = app[CONFIG].poll_interval
    queue: asyncio.Queue[tuple[str, RecordedEvent] | BaseException] = asyncio.Queue(maxsize=256)

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

    tasks = [
        asyncio.create_task(pump("table", table_stream(table_id), after)),
        asyncio.create_task(pump("chat", chat_stream(table_id), chat_after)),
    ]
    try:
        while True:
            item = await queue.get()
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _positions(
    request: web.Request, table_id: str, after: int, chat_after: int
) -> TableState:
    tables = request.app[TABLES]
    state = await tables.state(table_id)
    window = request.app[CONFIG].resync_window
    _check_after("table", after, state.version, window)
    chat_head = await tables.store.stream_version(chat_stream(table_id))
    _check_after("chat", chat_after, chat_head, window)
    return state


def _int_param(request: web.Request, name: str) -> int:
    raw = request.query.get(name, "0")
    try:
        return int(raw)
    except ValueError:
        raise bad_request(f"{name} must be an integer, not {raw!r}", field=name) from None


async def websocket(request: web.Request) -> web.StreamResponse:
    """``GET /tables/{id}/ws?after=N&chat_after=M``: events out, commands in."""
    table_id = h._table_id(request)
    account = await h.current_account(request, required=False)
    viewer = account.account_id if account else None
    after, chat_after = _int_param(request, "after"), _int_param(request, "chat_after")
    ws = web.WebSocketResponse(heartbeat=20, max_msg_size=request.app[CONFIG].max_body)
    try:
        state = await _positions(request, table_id, after, chat_after)
    except Resync as r:
        await ws.prepare(request)
        await ws.send_bytes(_encoder.encode(r.body()))
        await ws.close(code=WSCloseCode.POLICY_VIOLATION, message=b"resync")
        return ws
    await ws.prepare(request)
    sockets: weakref.WeakSet[web.WebSocketResponse] = request.app[SOCKETS]
    sockets.add(ws)
    metrics = request.app[METRICS]
    metrics.clients.inc(kind="ws")
    metrics.sent(ws, table_stream(table_id), after)
    metrics.sent(ws, chat_stream(table_id), chat_after)

    async def writer() -> None:
        try:
            async for name, rec in _merged(request.app, table_id, after, chat_after):
                visible = name != "chat" or _readable(rec, viewer)
                await ws.send_bytes(_encoder.encode(h.message(rec, name, visible)))
                metrics.sent(ws, rec.stream_id, rec.version)
        except Exception:
            # Never leave a socket open that no longer delivers: the client reconnects with
            # its last version and resumes exactly.
            log.exception("stream to a socket failed", extra={"table_id": table_id})
            await ws.close(code=WSCloseCode.INTERNAL_ERROR, message=b"stream failed; resume")

    pump = asyncio.create_task(writer())
    with request.app[LOBBY].watching(table_id, viewer not in state.players):
        try:
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT and msg.type is not WSMsgType.BINARY:
                    continue
                reply = await _ws_command(request, table_id, account, msg.data)
                await ws.send_bytes(_encoder.encode(reply))
                if pump.done():
                    break
        finally:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pump
            metrics.clients.inc(-1, kind="ws")
            metrics.gone(ws)
            await ws.close()
    return ws


async def _ws_command(
    request: web.Request, table_id: str, account: object, data: str | bytes
) -> dict[str, object]:
    """Run one command received on a socket; answer with its result or its problem."""
    command_id: str | None = None
    try:
        body = msgspec.json.decode(data, type=h.CommandEnvelope)
        command_id = str(body.command_id)
        # After decoding, so that the refusal names the command id it answers.
        if account is None:
            raise Problem(
                401, "unauthorized", "Unauthorized", "connect with a token to send commands"
            )
        result = await h.run_command(request.app, table_id, account, body)  # type: ignore[arg-type]
        # The result's fields as they are (not to_builtins, which cannot take the events'
        # msgspec.Raw payloads): the encoder writes them exactly as over HTTP.
        return {"ctl": "result", **{f: getattr(result, f) for f in result.__struct_fields__}}
    except Exception as exc:
        problem = to_problem(exc)
        if problem is None:
            log.exception("command on socket failed", extra={"table_id": table_id})
            problem = Problem(500, "internal", "Internal error", "an unexpected error occurred")
        return {"ctl": "error", "command_id": command_id, "problem": problem.body()}


def _last_event_id(request: web.Request) -> tuple[int, int]:
    raw = request.headers.get("Last-Event-ID")
    if raw is None:
        return _int_param(request, "after"), _int_param(request, "chat_after")
    table, _, chat = raw.partition(".")
    try:
        return int(table), int(chat or 0)
    except ValueError:
        raise bad_request(f"Last-Event-ID must be '<table>.<chat>', not {raw!r}") from None


async def sse(request: web.Request) -> web.StreamResponse:
    """``GET /tables/{id}/events``: the same events as Server-Sent Events; ``id`` is
    ``<table version>.<chat version>`` so ``Last-Event-ID`` resumes both streams."""
    table_id = h._table_id(request)
    account = await h.current_account(request, required=False)
    viewer = account.account_id if account else None
    after, chat_after = _last_event_id(request)
    resp = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
    )
    try:
        state = await _positions(request, table_id, after, chat_after)
    except Resync as r:
        await resp.prepare(request)
        await resp.write(b"event: resync\ndata: " + _encoder.encode(r.body()) + b"\n\n")
        return resp
    await resp.prepare(request)
    metrics = request.app[METRICS]
    metrics.clients.inc(kind="sse")
    metrics.sent(resp, table_stream(table_id), after)
    metrics.sent(resp, chat_stream(table_id), chat_after)

    with request.app[LOBBY].watching(table_id, viewer not in state.players):
        versions = {"table": after, "chat": chat_after}
        try:
            async for name, rec in _merged(request.app, table_id, after, chat_after):
                visible = name != "chat" or _readable(rec, viewer)
                versions[name] = rec.version
                body = _encoder.encode(h.message(rec, name, visible))
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
            metrics.clients.inc(-1, kind="sse")
            metrics.gone(resp)
    return resp
