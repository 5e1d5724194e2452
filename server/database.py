"""Which database the server uses, and as whom (docs/store.md, "Roles").

- **Embedded** (no ``DATABASE_URL``): the embedded server's superuser is the owner: it applies
  the migrations and lets ``chouette_server`` log in; the server then connects as
  ``chouette_server``. One command, as before.
- **``DATABASE_URL``**: the server's role. ``CHOUETTE_OWNER_DATABASE_URL``, when set, is the
  owner's, and the migrations are applied with it first; otherwise the database must already be
  migrated (``chouette migrate`` with the owner's URL). A ``DATABASE_URL`` that logs in as a
  superuser is refused unless ``--allow-superuser`` (``CHOUETTE_ALLOW_SUPERUSER=1``) says so:
  a superuser can switch the append-only protections off.
"""

from __future__ import annotations

import asyncio

import asyncpg

from events.store.embedded import start_embedded, with_user
from events.store.errors import StoreError, translate_errors
from events.store.migrations import migrate
from events.store.roles import SERVER_ROLE, allow_login, current_user, is_superuser
from server.config import Config

__all__ = ["SuperuserRefusedError", "migrate_as_owner", "server_database_url"]


class SuperuserRefusedError(StoreError):
    """``DATABASE_URL`` logs in as a superuser and ``--allow-superuser`` was not given."""

    def __init__(self, user: str) -> None:
        super().__init__(
            f"DATABASE_URL logs in as {user}, a superuser, who can switch the event store's "
            f"append-only protections off: give the server its own role ({SERVER_ROLE}, see "
            "docs/store.md) and the owner's URL in CHOUETTE_OWNER_DATABASE_URL, or pass "
            "--allow-superuser (CHOUETTE_ALLOW_SUPERUSER=1)"
        )


async def _connect(url: str) -> asyncpg.Connection:
    with translate_errors():
        return await asyncpg.connect(url)


async def _embedded_owner_url(config: Config) -> str:
    embedded = await asyncio.to_thread(start_embedded, config.data_dir)
    return embedded.url


async def migrate_as_owner(config: Config) -> list[str]:
    """Apply the migrations as the owner (``chouette migrate``): the embedded server's
    superuser, else ``CHOUETTE_OWNER_DATABASE_URL``, else ``DATABASE_URL``. Returns the names
    of those applied now.

    :raises StoreError: one fails, or the role may not apply them.
    """
    if config.database_url is None:
        url = await _embedded_owner_url(config)
    else:
        url = config.owner_database_url or config.database_url
    conn = await _connect(url)
    try:
        applied = await migrate(conn)
        if config.database_url is None:
            await allow_login(conn)
        return applied
    finally:
        await conn.close()


async def owner_database_url(config: Config) -> str:
    """The owner's URL (migrated first): the embedded server's superuser, else
    ``CHOUETTE_OWNER_DATABASE_URL``, else ``DATABASE_URL``; for the tools that change tables
    (``chouette project rebuild``)."""
    await migrate_as_owner(config)
    if config.database_url is None:
        return await _embedded_owner_url(config)
    return config.owner_database_url or config.database_url


async def server_database_url(config: Config, *, refuse_superuser: bool = True) -> str:
    """Migrate as the owner where one is known, then the URL the server connects with.

    :param refuse_superuser: refuse a ``DATABASE_URL`` that logs in as a superuser unless
        ``config.allow_superuser`` (``serve`` does; the record tools, run by an operator, do
        not).
    :raises SuperuserRefusedError: see ``refuse_superuser``.
    :raises StoreError: the database is not migrated and no owner is configured, or it cannot
        be reached.
    """
    if config.database_url is None or config.owner_database_url:
        await migrate_as_owner(config)
    if config.database_url is None:
        return with_user(await _embedded_owner_url(config), SERVER_ROLE)
    conn = await _connect(config.database_url)
    try:
        if refuse_superuser and not config.allow_superuser and await is_superuser(conn):
            raise SuperuserRefusedError(await current_user(conn))
        # Nothing when it is migrated; a superuser (allowed) or the owner migrates it; for the
        # server's own role, an error that says to run `chouette migrate`.
        await migrate(conn)
    finally:
        await conn.close()
    return config.database_url
