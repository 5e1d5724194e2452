"""A task that runs while a block does (an app's cleanup context, say), cancelled and awaited at
the block's end."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine
from typing import Any

__all__ = ["running"]


@contextlib.asynccontextmanager
async def running(
    coro: Coroutine[Any, Any, object], name: str | None = None
) -> AsyncIterator[None]:
    """Run ``coro`` as a task for as long as the block runs; cancel it and wait for it after."""
    task = asyncio.create_task(coro, name=name)
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
