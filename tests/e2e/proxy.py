"""A TCP proxy in front of the live server that a test can cut, as a real network fails: every
open connection is reset and new ones are refused until it is restored. The browser is told
nothing (no ``offline`` event): the page learns of the cut only from its sockets and requests
failing, and must find its own way back.
"""

from __future__ import annotations

import asyncio
import contextlib

from tests.e2e.harness import LiveServer

__all__ = ["CuttableProxy"]


class CuttableProxy:
    """``url`` forwards to ``server``; ``cut()`` and ``restore()`` are called from the test's
    thread (they run on the server's event loop)."""

    def __init__(self, server: LiveServer) -> None:
        self.server = server
        self._target = server.url.removeprefix("http://")
        self._listener: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()
        self._cut = False
        self.refused = 0
        """Connections refused while cut (the page's attempts to come back)."""

    @property
    def url(self) -> str:
        assert self._listener is not None
        host, port = self._listener.sockets[0].getsockname()[:2]
        return f"http://{host}:{port}"

    def start(self) -> CuttableProxy:
        self.server.run(self._start())
        return self

    async def _start(self) -> None:
        self._listener = await asyncio.start_server(self._accept, "127.0.0.1", 0)

    def cut(self) -> None:
        """Reset every connection through the proxy and refuse new ones."""
        self.server.run(self._sever())

    async def _sever(self) -> None:
        self._cut = True
        for writer in list(self._open):
            writer.transport.abort()
        self._open.clear()

    def restore(self) -> None:
        self.server.run(self._restore())

    async def _restore(self) -> None:
        self._cut = False

    def stop(self) -> None:
        self.server.run(self._stop())

    async def _stop(self) -> None:
        await self._sever()
        if self._listener is not None:
            self._listener.close()
            await self._listener.wait_closed()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._cut:
            self.refused += 1
            writer.transport.abort()
            return
        host, port = self._target.rsplit(":", 1)
        try:
            up_reader, up_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            writer.transport.abort()
            return
        self._open |= {writer, up_writer}
        try:
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        finally:
            for w in (writer, up_writer):
                self._open.discard(w)
                w.transport.abort()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, OSError, asyncio.CancelledError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    # One direction ended: end the other (a half-closed HTTP connection is not kept).
    writer.transport.abort()
