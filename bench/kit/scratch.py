"""A benchmark's own database, made empty on a PostgreSQL server and dropped afterwards."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator

import asyncpg

from events.store.embedded import with_database

__all__ = ["scratch_database"]


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
