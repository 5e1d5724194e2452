"""The analyses cache: the table ``analyses`` (migration 018), one document per table and ply.

:class:`server.http.analysis.Analyses` computes a table's analysis off the event loop and keeps
it here for the table's log up to its last game end (its ``version``): until another game ends,
the analysis is read from here. A later version replaces an earlier one, never the reverse, so
two processes computing the same analysis at once agree on what is kept.
"""

from __future__ import annotations

from typing import Final

import asyncpg

from events.store.personal_keys import hold_keys

__all__ = ["cached_analysis", "keep_analysis"]

_READ: Final = "SELECT doc::text FROM analyses WHERE table_id = $1 AND ply = $2 AND version = $3"
_KEEP: Final = (
    "INSERT INTO analyses (table_id, ply, version, doc) VALUES ($1, $2, $3, $4::jsonb)"
    " ON CONFLICT (table_id, ply) DO UPDATE SET version = excluded.version,"
    " doc = excluded.doc, computed_at = now()"
    " WHERE analyses.version < excluded.version"
)


async def cached_analysis(pool: asyncpg.Pool, table_id: str, ply: int, version: int) -> str | None:
    """The kept analysis (JSON text) of ``table_id`` at ``ply`` for its log up to ``version``,
    or ``None`` when none is kept for exactly that version."""
    row = await pool.fetchrow(_READ, table_id, ply, version)
    return None if row is None else str(row[0])


async def keep_analysis(
    pool: asyncpg.Pool, table_id: str, ply: int, version: int, doc: str, opened: set[str]
) -> set[str]:
    """Keep ``doc`` (JSON text) as the analysis of ``table_id`` at ``ply`` for its log up to
    ``version``, unless one of a later version is kept already.

    :param opened: the accounts whose names ``doc`` holds, opened with their keys.
    :returns: those of them whose keys were destroyed since (their erasure may have dropped
        the table's analyses already): nothing was kept then (:func:`hold_keys`).
    """
    async with pool.acquire() as conn, conn.transaction():
        late = await hold_keys(conn, opened)
        if not late:
            await conn.execute(_KEEP, table_id, ply, version, doc)
    return late
