"""A benchmark's own database, made empty on a PostgreSQL server and dropped afterwards."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

import asyncpg

from events.store.embedded import with_database

__all__ = ["LOCAL", "in_scratch", "scratch_database"]

T = TypeVar("T")


@contextlib.asynccontextmanager
async def scratch_database(server: str, prefix: str) -> AsyncIterator[str]:
    """The URL of a new, empty database ``<prefix>_<pid>`` on ``server`` (a URL whose user may
    create databases), dropped, whoever is still connected, when the block ends."""
    name = f"{prefix}_{os.getpid()}"
    admin = await asyncpg.connect(server)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        await admin.execute(f'CREATE DATABASE "{name}"')
        yield with_database(server, name)
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


LOCAL = "postgresql://postgres@127.0.0.1:5432/test"
"""The PostgreSQL server a bench uses when ``DATABASE_URL`` names none."""


async def in_scratch(prefix: str, go: Callable[[str], Awaitable[T]]) -> T:
    """``go(url)`` on a scratch database (:func:`scratch_database`) of ``DATABASE_URL``'s
    server, or of :data:`LOCAL`."""
    async with scratch_database(os.environ.get("DATABASE_URL", LOCAL), prefix) as dsn:
        return await go(dsn)
