"""The machinery of the browser tests (``tests/e2e``), apart from their fixtures so that a test
can name its types: the thread that owns Playwright, the live server, the system Chromium.

Playwright's sync API leaves its event loop marked as running in the thread that calls it, after
which pytest-asyncio could run no loop of its own in that thread: so Playwright lives in one
thread of its own (:class:`BrowserThread`), where the browser tests run too. The server runs on
an event loop in a third thread (:class:`LiveServer`), so the browser and the server never wait
for each other.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from aiohttp.test_utils import TestClient, TestServer

from server.app import create_app
from server.config import Config
from tests.server.conftest import Api

__all__ = ["BrowserThread", "LiveServer", "chromium_path"]

T = TypeVar("T")


class BrowserThread:
    """The one thread that calls Playwright: ``call(fn, ...)`` runs ``fn`` there (directly when
    already there) and returns its result or raises its exception."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="playwright")
        self._thread = self._pool.submit(threading.current_thread).result()

    def call(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        if threading.current_thread() is self._thread:
            return fn(*args, **kwargs)
        return self._pool.submit(fn, *args, **kwargs).result()

    def close(self) -> None:
        self._pool.shutdown(wait=True)


def chromium_path() -> str | None:
    """The system Chromium: ``$CHOUETTE_CHROMIUM``, ``/usr/bin/chromium`` or on PATH."""
    named = os.environ.get("CHOUETTE_CHROMIUM")
    if named:
        return named if os.access(named, os.X_OK) else None
    for candidate in (
        "/usr/bin/chromium",
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
    ):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


class LiveServer:
    """The real app on a free localhost port, served from an event loop in a thread of its own
    (the test's thread is busy driving the browser)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="e2e-server")
        self.client: TestClient[Any, Any] | None = None
        self.api: Api

    @property
    def url(self) -> str:
        """The server's base URL, without a trailing slash."""
        assert self.client is not None
        return str(self.client.make_url("")).rstrip("/")

    def run(self, coroutine: Coroutine[Any, Any, T] | Awaitable[T], timeout: float = 60) -> T:
        """Run a coroutine on the server's loop (an :class:`Api` call, say) and wait for it."""

        async def wrapped() -> T:
            return await coroutine

        return asyncio.run_coroutine_threadsafe(wrapped(), self._loop).result(timeout)

    def start(self) -> LiveServer:
        self._thread.start()
        self.run(self._start())
        return self

    async def _start(self) -> None:
        app = create_app(self.config)
        self.client = TestClient(TestServer(app, host="127.0.0.1"))
        await self.client.start_server()
        self.api = Api(self.client, app)

    def stop(self) -> None:
        if self._thread.is_alive():
            try:
                if self.client is not None:
                    self.run(self.client.close())
                self.run(_cancel_the_rest())
            finally:
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._thread.join(30)
        self._loop.run_until_complete(self._loop.shutdown_asyncgens())
        self._loop.close()


async def _cancel_the_rest() -> None:
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
