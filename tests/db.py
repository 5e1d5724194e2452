"""Database fixtures, for the conftests of the folders whose tests need PostgreSQL
(``tests/events``, ``tests/server``, ``tests/e2e``, ``tests/bench``), which import them by name:
``tests/conftest.py`` holds none, so that ``pytest tests/engine`` needs only pytest and
hypothesis (no asyncpg, no project dependency).

Database tests run against the server named by ``DATABASE_URL`` or, when it is unset, an
embedded PostgreSQL started once for the session. Each test gets a fresh database: the session
creates one template database per server with every migration applied, and each test gets
``CREATE DATABASE ... TEMPLATE`` of it (a few tens of milliseconds), dropped afterwards.

- ``server_url``: the server (session-wide); override it to run tests against another one.
- ``owner_url``: a fresh, migrated database on ``server_url`` for this test, as the superuser
  that migrated it (the owner of its tables).
- ``db_url``: the same database as the server's role (:data:`TEST_SERVER_ROLE`, a member of
  ``chouette_server``), so that every test runs the store and the server with least privilege.
- ``pool``, ``store``: an asyncpg pool and an :class:`events.store.event_store.EventStore` on
  ``db_url``.
- ``owner_store``: a store on ``owner_url``.
- ``admin``: a superuser connection to the same database (``owner_url``), for tampering with it.
- ``empty_db``: a database with no migration applied, as the superuser.
- ``embedded_server``: the session's embedded server (started on first use).

Each importing conftest defines its own copy of the session fixtures; their state (the embedded
server, the template databases) lives in this module, so a run over several folders still starts
one server and migrates one template per server.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest

from events.store.embedded import EmbeddedPostgres, start_embedded, with_database, with_user
from events.store.event_store import EventStore
from events.store.migrations import migrate
from events.store.roles import SERVER_ROLE

__all__ = [
    "admin",
    "database_factories",
    "db_url",
    "embedded_server",
    "empty_db",
    "owner_store",
    "owner_url",
    "pool",
    "server_url",
    "store",
]
"""The fixtures, which a conftest imports with ``from tests.db import *``."""

_PREFIX = "chouette_t"
TEST_SERVER_ROLE = "chouette_test_server"
"""The role the tests log in as for the server: a member of ``chouette_server`` that may log in.
Roles are cluster-wide: it is created once per server, by whichever session comes first, and
shared by every session and database (each database's grants are its own)."""
_OURS = re.compile(rf"^{_PREFIX}(?:mpl)?_(\d+)(?:_\d+)?$")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class DatabaseFactory:
    """The template and per-test databases of this session on one server."""

    def __init__(self, server_url: str) -> None:
        self.server_url = server_url
        self.template = f"{_PREFIX}mpl_{os.getpid()}"
        self._ready = False
        self._count = 0

    async def _prepare(self, admin: asyncpg.Connection) -> None:
        # Databases left by sessions that died (their pid is gone) are dropped first.
        for row in await admin.fetch("SELECT datname FROM pg_database"):
            match = _OURS.match(row["datname"])
            if match and not _pid_alive(int(match.group(1))):
                await admin.execute(f'DROP DATABASE IF EXISTS "{row["datname"]}" WITH (FORCE)')
        await admin.execute(f'DROP DATABASE IF EXISTS "{self.template}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{self.template}"')
        conn = await asyncpg.connect(with_database(self.server_url, self.template))
        try:
            await migrate(conn)
        finally:
            await conn.close()
        if not await admin.fetchval("SELECT 1 FROM pg_roles WHERE rolname = $1", TEST_SERVER_ROLE):
            # Another session may create it at the same moment.
            with contextlib.suppress(asyncpg.DuplicateObjectError, asyncpg.UniqueViolationError):
                await admin.execute(f"CREATE ROLE {TEST_SERVER_ROLE} LOGIN IN ROLE {SERVER_ROLE}")
        self._ready = True

    async def create(self) -> str:
        """A fresh migrated database's name."""
        admin = await asyncpg.connect(self.server_url)
        try:
            if not self._ready:
                await self._prepare(admin)
            self._count += 1
            name = f"{_PREFIX}_{os.getpid()}_{self._count}"
            await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"')
            return name
        finally:
            await admin.close()

    async def drop(self, name: str) -> None:
        admin = await asyncpg.connect(self.server_url)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()

    def close(self) -> None:
        if not self._ready:
            return
        # An embedded server may have stopped first, taking its databases with it.
        with contextlib.suppress(OSError):
            asyncio.run(self.drop(self.template))


async def _execute(url: str, *statements: str) -> None:
    conn = await asyncpg.connect(url)
    try:
        for statement in statements:
            await conn.execute(statement)
    finally:
        await conn.close()


_embedded: list[EmbeddedPostgres] = []
"""The session's embedded server once started: one however many conftests import the fixture."""
_factories: dict[str, DatabaseFactory] = {}
"""The session's database factories by server URL, shared likewise."""


@pytest.fixture(scope="session")
def embedded_server() -> Iterator[EmbeddedPostgres]:
    """An embedded PostgreSQL in a temporary directory, for the whole session."""
    if _embedded:
        yield _embedded[0]
        return
    root = Path(tempfile.mkdtemp(prefix="chouette-pg-"))
    server = start_embedded(root / "pgdata", delete_on_exit=True)
    # A throwaway server: durability buys nothing here, and every test creates a database.
    asyncio.run(_execute(server.url, "ALTER SYSTEM SET fsync = off", "SELECT pg_reload_conf()"))
    # A run stopped by SIGTERM (a timeout) would otherwise leave the server running: let pytest
    # unwind as on Ctrl-C, which runs this fixture's teardown.
    previous = signal.getsignal(signal.SIGTERM)

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    _embedded.append(server)
    try:
        yield server
    finally:
        _embedded.clear()
        signal.signal(signal.SIGTERM, previous)
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def server_url(request: pytest.FixtureRequest) -> str:
    """The server database tests use: ``DATABASE_URL``, else the embedded one."""
    url = os.environ.get("DATABASE_URL")
    if url:
        return url
    server: EmbeddedPostgres = request.getfixturevalue("embedded_server")
    return server.url


@pytest.fixture(scope="session")
def database_factories() -> Iterator[dict[str, DatabaseFactory]]:
    yield _factories
    # Whichever conftest's copy of this fixture ends first closes them all (at the session's end).
    for databases in list(_factories.values()):
        databases.close()
    _factories.clear()


@pytest.fixture
async def owner_url(
    server_url: str, database_factories: dict[str, DatabaseFactory]
) -> AsyncIterator[str]:
    """A fresh database with the migrations applied, on ``server_url``, dropped afterwards; as
    the superuser that owns its tables."""
    databases = database_factories.get(server_url)
    if databases is None:
        databases = database_factories[server_url] = DatabaseFactory(server_url)
    name = await databases.create()
    try:
        yield with_database(server_url, name)
    finally:
        await databases.drop(name)


@pytest.fixture
def db_url(owner_url: str) -> str:
    """The test's database as the server's role (:data:`TEST_SERVER_ROLE`)."""
    return with_user(owner_url, TEST_SERVER_ROLE)


@pytest.fixture
async def empty_db(server_url: str, db_url: str) -> AsyncIterator[str]:
    """Another database on ``server_url`` with no migration applied, as the superuser, dropped
    afterwards. (It asks for ``db_url`` so that :data:`TEST_SERVER_ROLE` exists.)"""
    name = f"{_PREFIX}_{os.getpid()}_{uuid.uuid4().int % 10**9}"
    await _execute(server_url, f'CREATE DATABASE "{name}"')
    try:
        yield with_database(server_url, name)
    finally:
        await _execute(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
async def pool(db_url: str) -> AsyncIterator[asyncpg.Pool]:
    pool = await asyncpg.create_pool(db_url, min_size=1, max_size=10)
    try:
        yield pool
    finally:
        await pool.close()


@pytest.fixture
async def store(pool: asyncpg.Pool, db_url: str) -> AsyncIterator[EventStore]:
    store = EventStore(pool, dsn=db_url)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def owner_store(owner_url: str) -> AsyncIterator[EventStore]:
    """A store on the test's database as its owner: what ``rebuild`` (``chouette project
    rebuild``) runs as, since it creates and swaps the read models' tables."""
    store = await EventStore.connect(owner_url, min_size=1, max_size=4)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def admin(owner_url: str) -> AsyncIterator[asyncpg.Connection]:
    """A superuser connection to the test's database."""
    conn = await asyncpg.connect(owner_url)
    try:
        if not await conn.fetchval("SELECT rolsuper FROM pg_roles WHERE rolname = current_user"):
            raise RuntimeError("tests need a superuser connection (DATABASE_URL's user)")
        yield conn
    finally:
        await conn.close()
