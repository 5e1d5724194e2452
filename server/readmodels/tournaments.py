"""What the tournaments read beside their streams (docs/tournaments.md): the display names of
their entrants, from ``accounts`` (pseudonymised there when an account is erased)."""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg

from events.store.errors import translate_errors

__all__ = ["display_names"]


async def display_names(pool: asyncpg.Pool, account_ids: Sequence[str]) -> dict[str, str]:
    """Each of ``account_ids``' display name (an unknown account is left out)."""
    if not account_ids:
        return {}
    with translate_errors():
        rows = await pool.fetch(
            "SELECT account_id, display_name FROM accounts WHERE account_id = ANY($1::text[])",
            list(account_ids),
        )
    return {r["account_id"]: r["display_name"] for r in rows}
