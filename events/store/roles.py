"""The database roles (docs/store.md, "Roles"): the owner, who runs the migrations and owns
every table and function, and :data:`SERVER_ROLE`, which the server runs as.

The migrations create ``chouette_server`` (NOLOGIN) and grant it exactly what the server needs
(``sql/016_server_role_and_chain_v2.sql``): it reads everything, writes its read models and
session tables, and appends events, keeps dice seeds and seals old ones only through the owner's
functions. It cannot alter a table, disable or drop a trigger, replace a function, nor update,
delete or truncate anything of the event store. The server logs in as ``chouette_server``
itself (the embedded default: :func:`allow_login`) or as any role granted it.
"""

from __future__ import annotations

from typing import Final

import asyncpg

from events.store.errors import translate_errors

__all__ = ["SERVER_ROLE", "allow_login", "current_user", "is_superuser"]

SERVER_ROLE: Final = "chouette_server"
"""The server's role, created by the migrations (cluster-wide, shared by every database)."""


async def is_superuser(conn: asyncpg.Connection) -> bool:
    """Whether ``conn`` is logged in as a superuser (who can switch any protection off)."""
    with translate_errors():
        return bool(
            await conn.fetchval("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        )


async def current_user(conn: asyncpg.Connection) -> str:
    """The role ``conn`` is logged in as."""
    with translate_errors():
        return str(await conn.fetchval("SELECT current_user"))


async def allow_login(owner: asyncpg.Connection) -> None:
    """Let :data:`SERVER_ROLE` log in (it is created NOLOGIN), as the owner of a server of our
    own, the embedded default, whose only way in is its Unix socket. Idempotent."""
    with translate_errors():
        can = await owner.fetchval(
            "SELECT rolcanlogin FROM pg_roles WHERE rolname = $1", SERVER_ROLE
        )
        if not can:
            await owner.execute(f"ALTER ROLE {SERVER_ROLE} LOGIN")
