"""Shutdown ends the Server-Sent Events streams as it closes the WebSockets (issue 12, finding 6).

A real ``serve`` process gets SIGTERM with an SSE client and a WebSocket client connected to a
table: it exits within five seconds (an SSE response used to keep it waiting for aiohttp's
shutdown timeout, a minute), the WebSocket closes with GOING_AWAY and the SSE stream ends.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import time
from collections.abc import Callable

import aiohttp
from aiohttp import WSCloseCode, WSMsgType

from tests.server.conftest import ServeProcess

SHUTDOWN = 5.0
"""Seconds ``serve`` may take to exit after SIGTERM."""


async def test_sigterm_with_sse_and_websocket_clients_exits_within_5_seconds(
    db_url: str, serve_processes: Callable[[str], ServeProcess]
) -> None:
    server = serve_processes(db_url)
    await server.start()
    async with aiohttp.ClientSession(base_url=server.url) as http:
        async with http.post("/guests", json={"display_name": "Ann"}) as r:
            assert r.status == 201, await r.text()
            token = (await r.json())["token"]
        async with http.post(
            "/tables",
            json={"kind": "money", "options": {}, "name": "shutdown"},
            headers={"Authorization": f"Bearer {token}"},
        ) as r:
            assert r.status == 201, await r.text()
            table = (await r.json())["id"]
        sse = await http.get(f"/tables/{table}/events")
        assert sse.status == 200
        assert (await sse.content.readuntil(b"\n\n")).startswith(b"id: ")  # the table's events
        ws = await http.ws_connect(f"/tables/{table}/ws")
        first = await ws.receive(timeout=5)
        assert first.type is WSMsgType.BINARY or first.type is WSMsgType.TEXT
        # The clients read on, as a browser does (a WebSocket answers the server's close).
        ws_reader = asyncio.create_task(_drain_ws(ws))
        sse_reader = asyncio.create_task(sse.content.read())

        assert server.proc is not None
        started = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.to_thread(server.proc.wait, SHUTDOWN + 10)
        except subprocess.TimeoutExpired:
            raise AssertionError("serve still running 15 s after SIGTERM") from None
        elapsed = time.monotonic() - started
        assert elapsed < SHUTDOWN, f"serve took {elapsed:.1f} s to exit"
        assert server.proc.returncode == 0

        # Each client was told, not cut off.
        assert await asyncio.wait_for(ws_reader, 5) == WSCloseCode.GOING_AWAY
        await asyncio.wait_for(sse_reader, 5)
        assert sse.content.at_eof()
        sse.close()


async def _drain_ws(ws: aiohttp.ClientWebSocketResponse) -> int | None:
    """Read a WebSocket to its end; its close code."""
    async for _ in ws:
        pass
    return ws.close_code
