"""What erasing an account changes beside the log (docs/privacy.md), and what a person's export
reads: the rows of ``accounts``, the lobby, the profiles and the analyses that hold their name
or their tables' names. The log itself is never changed: what a person typed is sealed there,
and their key is destroyed (:mod:`events.store.personal_keys`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import asyncpg

from events.domain.types import pseudonym
from events.store.errors import translate_errors
from server.readmodels.accounts import ACCOUNTS_CHANNEL

__all__ = [
    "ExportedAccount",
    "account_row",
    "erased_username",
    "pseudonymise",
    "tables_of",
    "token_age",
    "unfinished_tables",
]


def erased_username(account_id: str) -> str:
    """The username an erased account keeps (unique, and no name anyone chose).

    >>> erased_username("u_1")
    'erased-u_1'
    """
    return "erased-" + account_id


async def token_age(pool: asyncpg.Pool, token_digest: bytes) -> float | None:
    """How many seconds ago a live token was issued; None for a revoked or expired one."""
    with translate_errors():
        age = await pool.fetchval(
            "SELECT extract(epoch FROM now() - created_at)::float8 FROM tokens"
            " WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > now()",
            token_digest,
        )
    return None if age is None else float(age)


async def unfinished_tables(pool: asyncpg.Pool, account_id: str) -> list[str]:
    """The tables the lobby lists ``account_id`` as a player of and not finished."""
    with translate_errors():
        rows = await pool.fetch(
            "SELECT table_id FROM lobby_tables WHERE $1 = ANY (players) AND status <> 'finished'"
            " ORDER BY table_id",
            account_id,
        )
    return [r["table_id"] for r in rows]


async def tables_of(pool: asyncpg.Pool, account_id: str) -> list[dict[str, Any]]:
    """Every table the lobby knows ``account_id`` at: created, sat at or joined (their names
    as the lobby has them)."""
    with translate_errors():
        rows = await pool.fetch(
            "SELECT table_id, kind, name, created_by, status, games, players, version"
            " FROM lobby_tables WHERE created_by = $1 OR $1 = ANY (players) OR names ? $1"
            " ORDER BY table_id",
            account_id,
        )
    return [
        {
            "table_id": r["table_id"],
            "kind": r["kind"],
            "name": r["name"],
            "created_by": r["created_by"],
            "status": r["status"],
            "games": r["games"],
            "players": list(r["players"]),
            "version": r["version"],
        }
        for r in rows
    ]


@dataclass(frozen=True, slots=True)
class ExportedAccount:
    """An account as its export shows it."""

    account_id: str
    username: str
    display_name: str
    guest: bool
    created_at: dt.datetime


async def account_row(pool: asyncpg.Pool, account_id: str) -> ExportedAccount | None:
    with translate_errors():
        row = await pool.fetchrow(
            "SELECT account_id, username, display_name, guest, created_at FROM accounts"
            " WHERE account_id = $1",
            account_id,
        )
    if row is None:
        return None
    return ExportedAccount(
        row["account_id"], row["username"], row["display_name"], row["guest"], row["created_at"]
    )


async def pseudonymise(pool: asyncpg.Pool, account_id: str) -> None:
    """Replace an erased account's name wherever a read model keeps it, in one transaction:
    its username and display name (its password hashes cleared, ``erased_at`` set), its
    display name in the lobby's tables, the names of the tables it created (lobby, profiles)
    and of the tournaments it directs,
    and the analyses of its tables (their documents name the players; computed again, they
    name the pseudonym). Notified on :data:`ACCOUNTS_CHANNEL`, so that every process forgets
    the account's sessions."""
    name = pseudonym(account_id)
    with translate_errors():
        async with pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "UPDATE accounts SET username = $2, display_name = $3, password_phc = NULL,"
                " password_hash = NULL, salt = NULL, scrypt_n = NULL, scrypt_r = NULL,"
                " scrypt_p = NULL, erased_at = coalesce(erased_at, now())"
                " WHERE account_id = $1",
                account_id,
                erased_username(account_id),
                name,
            )
            created = [
                r["table_id"]
                for r in await conn.fetch(
                    "SELECT table_id FROM table_creators WHERE account_id = $1"
                    " UNION SELECT table_id FROM lobby_tables WHERE created_by = $1",
                    account_id,
                )
            ]
            played = [
                r["table_id"]
                for r in await conn.fetch(
                    "SELECT table_id FROM lobby_tables WHERE names ? $1 OR $1 = ANY (players)",
                    account_id,
                )
            ]
            await conn.execute(
                "UPDATE lobby_tables SET names = jsonb_set(names, ARRAY[$1], to_jsonb($2::text))"
                " WHERE names ? $1",
                account_id,
                name,
            )
            await conn.execute(
                "UPDATE lobby_tables SET name = '' WHERE table_id = ANY ($1::text[])", created
            )
            await conn.execute(
                "UPDATE profile_tables SET name = '' WHERE table_id = ANY ($1::text[])", created
            )
            await conn.execute(
                "DELETE FROM analyses WHERE table_id = ANY ($1::text[])", [*created, *played]
            )
            # The names of the tournaments it directs (the list's; their streams read as none).
            await conn.execute(
                "UPDATE tournament_list SET name = '' WHERE director = $1", account_id
            )
            await conn.execute("SELECT pg_notify($1, $2)", ACCOUNTS_CHANNEL, account_id)
