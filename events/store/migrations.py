"""Apply the numbered plain-SQL migrations in ``sql/`` at start-up.

Files are named ``NNN_description.sql`` and applied in number order, each once, recorded in
``schema_migrations`` with a SHA-256 of its text. The whole run is one transaction holding a
transaction-level advisory lock, so running it twice, or from two processes at once, is safe: the
second waits for the first, then finds nothing left to do. A migration whose file changed after
it was applied is an error: migrations are append-only too; write a new one.

A database with nothing left to apply is only read (no lock, no ``CREATE``), so the server's role,
which may not migrate, passes the start-up check; a role that may not apply what is pending is
told to run ``chouette migrate`` as the owner (docs/store.md, "Roles").
"""

from __future__ import annotations

import hashlib
import itertools
import re
from pathlib import Path
from typing import Final, NamedTuple

import asyncpg

from events.store.errors import StoreError, translate_errors

__all__ = ["SQL_DIR", "Migration", "load_migrations", "migrate", "pending"]

# The top-level sql/ directory of the repository (fixed by the design). It is found relative to
# this file, which works for a source checkout and the editable install we use; a wheel would
# need the files shipped as package data and this path changed with it.
SQL_DIR: Final = Path(__file__).resolve().parents[2] / "sql"

# Any constant will do, as long as every runner uses the same one: "chouette" in ASCII.
_LOCK_KEY: Final = 0x63686F7565747465

_NAME = re.compile(r"^(\d+)_[A-Za-z0-9_]+\.sql$")


class Migration(NamedTuple):
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def load_migrations(directory: Path = SQL_DIR) -> list[Migration]:
    """The migrations in ``directory``, in order.

    :raises StoreError: a file is misnamed or two share a number.
    """
    migrations: list[Migration] = []
    for path in sorted(directory.glob("*.sql")):
        match = _NAME.match(path.name)
        if match is None:
            raise StoreError(f"migration file {path.name!r} is not named NNN_description.sql")
        migrations.append(Migration(int(match.group(1)), path.name, path.read_text()))
    migrations.sort(key=lambda m: m.version)
    for a, b in itertools.pairwise(migrations):
        if a.version == b.version:
            raise StoreError(f"migrations {a.name!r} and {b.name!r} share number {a.version}")
    return migrations


async def migrate(
    target: asyncpg.Connection | asyncpg.Pool, *, directory: Path = SQL_DIR
) -> list[str]:
    """Apply the migrations not yet applied; return the names of those applied now.

    :raises StoreError: an applied migration's file has changed, or one fails (then none of
        this run's migrations is applied).
    """
    migrations = load_migrations(directory)
    with translate_errors():
        if isinstance(target, asyncpg.Pool):
            async with target.acquire() as conn:
                return await _migrate(conn, migrations)
        return await _migrate(target, migrations)


async def pending(conn: asyncpg.Connection, directory: Path = SQL_DIR) -> list[str]:
    """The names of the migrations not yet applied, read without writing or locking anything
    (the server's role, which may not migrate, checks this at start-up).

    :raises StoreError: an applied migration's file has changed.
    """
    with translate_errors():
        return await _pending(conn, load_migrations(directory))


async def _pending(conn: asyncpg.Connection, migrations: list[Migration]) -> list[str]:
    if await conn.fetchval("SELECT to_regclass('schema_migrations')") is None:
        return [m.name for m in migrations]
    rows = await conn.fetch("SELECT version, name, checksum FROM schema_migrations")
    applied = {r["version"]: r for r in rows}
    for migration in migrations:
        done = applied.get(migration.version)
        if done is not None and done["checksum"] != migration.checksum:
            raise StoreError(
                f"migration {migration.name!r} has changed since it was applied "
                f"as {done['name']!r}; add a new migration instead"
            )
    return [m.name for m in migrations if m.version not in applied]


async def _migrate(conn: asyncpg.Connection, migrations: list[Migration]) -> list[str]:
    # Nothing to do: nothing is locked or created, so any role that may read the schema gets
    # here (the server's role included, which may create nothing).
    todo = await _pending(conn, migrations)
    if not todo:
        return []
    try:
        return await _apply(conn, migrations)
    except asyncpg.InsufficientPrivilegeError as e:
        user = await conn.fetchval("SELECT current_user")
        raise StoreError(
            f"the database needs {len(todo)} migration(s) ({', '.join(todo)}) and the role "
            f"{user} may not apply them: run `chouette migrate` as the tables' owner "
            "(CHOUETTE_OWNER_DATABASE_URL)"
        ) from e


async def _apply(conn: asyncpg.Connection, migrations: list[Migration]) -> list[str]:
    applied_now: list[str] = []
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", _LOCK_KEY)
        await conn.execute(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                checksum text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """
        )
        rows = await conn.fetch("SELECT version, name, checksum FROM schema_migrations")
        applied = {r["version"]: r for r in rows}
        for migration in migrations:
            done = applied.get(migration.version)
            if done is not None:
                if done["checksum"] != migration.checksum:
                    raise StoreError(
                        f"migration {migration.name!r} has changed since it was applied "
                        f"as {done['name']!r}; add a new migration instead"
                    )
                continue
            await conn.execute(migration.sql)
            await conn.execute(
                "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                migration.version,
                migration.name,
                migration.checksum,
            )
            applied_now.append(migration.name)
    return applied_now
