"""The cap on open tables, counted in the database so it holds across processes (issue 11):
the table ``table_creators``, who created which table, read with the lobby's ``lobby_tables``.

:func:`server.access.ratelimit.reserve_table` says what the cap is and answers a refusal; this
module counts and records, one account's creates one after the other in every process.
"""

from __future__ import annotations

import asyncpg

from events.store.errors import translate_errors

__all__ = ["OpenTablesCapError", "forget_table", "record_table"]


class OpenTablesCapError(Exception):
    """The account already has its cap of open tables (nothing was recorded)."""

    def __init__(self, count: int) -> None:
        super().__init__(f"{count} open tables")
        self.count = count  #: how many open tables the account has


async def record_table(
    pool: asyncpg.Pool, account_id: str, table_id: str, cap: int | None, idle: float
) -> bool:
    """Record that ``account_id`` creates ``table_id``, in one transaction: under an advisory
    lock per account when there is a ``cap`` (so that concurrent creates count one after the
    other), and only while the account has fewer than ``cap`` open tables. A table is open
    while it is not finished and something happened at it within ``idle`` seconds; one
    created but not yet in the lobby counts too. Returns False when the table was already
    recorded (a retried create).

    :raises OpenTablesCapError: the account has ``cap`` open tables already.
    """
    with translate_errors():
        async with pool.acquire() as conn, conn.transaction():
            if cap is not None:
                await conn.execute(
                    "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                    f"chouette:open-tables:{account_id}",
                )
            if await conn.fetchval("SELECT 1 FROM table_creators WHERE table_id = $1", table_id):
                return False
            if cap is not None:
                count = await conn.fetchval(
                    "SELECT count(*) FROM table_creators c LEFT JOIN lobby_tables l USING"
                    " (table_id) WHERE c.account_id = $1"
                    " AND coalesce(l.status, 'open') <> 'finished'"
                    " AND coalesce(l.updated_at, c.created_at) > now() - make_interval(secs => $2)",
                    account_id,
                    idle,
                )
                if count >= cap:
                    raise OpenTablesCapError(count)
            await conn.execute(
                "INSERT INTO table_creators (table_id, account_id) VALUES ($1, $2)",
                table_id,
                account_id,
            )
    return True


async def forget_table(pool: asyncpg.Pool, table_id: str) -> None:
    """Forget that a table was created (its create was refused after all)."""
    with translate_errors():
        await pool.execute("DELETE FROM table_creators WHERE table_id = $1", table_id)
