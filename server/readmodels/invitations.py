"""Private tables and their invitations (issue 15; docs/social.md): the tables
``private_tables``, ``table_invitations`` and ``table_access``.

A private table's row is written before the table is created (:func:`record_private`); its
creator hands out invitations (:func:`create_invitation`), kept by the SHA-256 of their code; an
account that redeems one (:func:`redeem`) keeps one access row per invitation, so that it has
access while any of them is not revoked. What a route answers, and to whom, is
:mod:`server.http.privacy`'s business: this module only reads and writes the rows.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Final

import asyncpg

from events.store.errors import translate_errors

__all__ = [
    "Invitation",
    "PrivateTable",
    "create_invitation",
    "has_live_invitation",
    "invitations",
    "private_creator",
    "record_private",
    "redeem",
    "revoke_invitation",
    "still_invited",
    "visible_private_tables",
]


@dataclass(frozen=True, slots=True)
class Invitation:
    """One invitation of a table, without its code."""

    invitation_id: str
    created_at: dt.datetime
    revoked_at: dt.datetime | None
    redeemed_by: int  #: how many accounts redeemed it


@dataclass(frozen=True, slots=True)
class PrivateTable:
    """A private table an account may see, as :func:`visible_private_tables` lists it."""

    table_id: str
    created_by: str
    kind: str
    name: str


async def record_private(pool: asyncpg.Pool, table_id: str, created_by: str) -> None:
    """Write a private table's row (before the table is created); nothing if it is written."""
    with translate_errors():
        await pool.execute(
            "INSERT INTO private_tables (table_id, created_by) VALUES ($1, $2)"
            " ON CONFLICT (table_id) DO NOTHING",
            table_id,
            created_by,
        )


async def private_creator(pool: asyncpg.Pool, table_id: str) -> str | None:
    """The creator of a private table; None for a public (or unknown) one."""
    with translate_errors():
        creator: str | None = await pool.fetchval(
            "SELECT created_by FROM private_tables WHERE table_id = $1", table_id
        )
    return creator


async def has_live_invitation(pool: asyncpg.Pool, table_id: str, account_id: str) -> bool:
    """Whether ``account_id`` redeemed an invitation to ``table_id`` that is not revoked."""
    with translate_errors():
        invited = await pool.fetchval(
            "SELECT 1 FROM table_access a JOIN table_invitations i USING (invitation_id)"
            " WHERE a.table_id = $1 AND a.account_id = $2 AND i.revoked_at IS NULL",
            table_id,
            account_id,
        )
    return bool(invited)


_STILL_INVITED: Final = (
    "SELECT q.table_id, q.account_id FROM unnest($1::text[], $2::text[]) AS q (table_id,"
    " account_id) WHERE EXISTS (SELECT 1 FROM private_tables p WHERE p.table_id = q.table_id"
    " AND p.created_by = q.account_id) OR EXISTS (SELECT 1 FROM table_access a"
    " JOIN table_invitations i USING (invitation_id) WHERE a.table_id = q.table_id"
    " AND a.account_id = q.account_id AND i.revoked_at IS NULL)"
)


async def still_invited(
    pool: asyncpg.Pool, pairs: Collection[tuple[str, str]]
) -> set[tuple[str, str]]:
    """Of ``(table_id, account_id)`` pairs, those whose account created the table or holds an
    invitation to it not revoked, in one query whatever their number."""
    with translate_errors():
        rows = await pool.fetch(_STILL_INVITED, [t for t, _ in pairs], [a for _, a in pairs])
    return {(r["table_id"], r["account_id"]) for r in rows}


async def create_invitation(
    pool: asyncpg.Pool, invitation_id: str, code_hash: bytes, table_id: str, created_by: str
) -> dt.datetime:
    """Keep a new invitation (by its code's hash); returns when it was created."""
    with translate_errors():
        created: dt.datetime = await pool.fetchval(
            "INSERT INTO table_invitations (invitation_id, code_hash, table_id, created_by)"
            " VALUES ($1, $2, $3, $4) RETURNING created_at",
            invitation_id,
            code_hash,
            table_id,
            created_by,
        )
    return created


async def invitations(pool: asyncpg.Pool, table_id: str) -> list[Invitation]:
    """A table's invitations, oldest first, with how many accounts redeemed each."""
    with translate_errors():
        rows = await pool.fetch(
            "SELECT i.invitation_id, i.created_at, i.revoked_at, count(a.account_id) AS used"
            " FROM table_invitations i LEFT JOIN table_access a USING (invitation_id)"
            " WHERE i.table_id = $1 GROUP BY i.invitation_id ORDER BY i.created_at",
            table_id,
        )
    return [
        Invitation(r["invitation_id"], r["created_at"], r["revoked_at"], r["used"]) for r in rows
    ]


async def revoke_invitation(pool: asyncpg.Pool, invitation_id: str, table_id: str) -> bool:
    """Revoke an invitation of ``table_id`` (again: nothing changes); False for none such."""
    with translate_errors():
        done = await pool.fetchval(
            "UPDATE table_invitations SET revoked_at = coalesce(revoked_at, now())"
            " WHERE invitation_id = $1 AND table_id = $2 RETURNING 1",
            invitation_id,
            table_id,
        )
    return done is not None


async def redeem(pool: asyncpg.Pool, code_hash: bytes, account_id: str) -> str | None:
    """Give ``account_id`` access through the live invitation of ``code_hash``, in one
    transaction; returns its table, or None when no such invitation is live (nothing written).
    """
    with translate_errors():
        async with pool.acquire() as conn, conn.transaction():
            row = await conn.fetchrow(
                "SELECT invitation_id, table_id FROM table_invitations"
                " WHERE code_hash = $1 AND revoked_at IS NULL",
                code_hash,
            )
            if row is None:
                return None
            # One row per invitation redeemed: revoking one code leaves the access another
            # gave (sql/021_invitation_access.sql); a code redeemed again keeps its first row.
            await conn.execute(
                "INSERT INTO table_access (table_id, account_id, invitation_id)"
                " VALUES ($1, $2, $3) ON CONFLICT (table_id, account_id, invitation_id)"
                " DO NOTHING",
                row["table_id"],
                account_id,
                row["invitation_id"],
            )
    table_id: str = row["table_id"]
    return table_id


async def visible_private_tables(
    pool: asyncpg.Pool, account_id: str, words: Sequence[str]
) -> list[PrivateTable]:
    """The private tables ``account_id`` may see (created, invited to or played at) whose name
    contains each of ``words`` (case aside), newest first, at most 200."""
    with translate_errors():
        rows = await pool.fetch(
            "SELECT p.table_id, p.created_by, p.created_at, t.kind, t.name FROM private_tables p"
            " LEFT JOIN profile_tables t USING (table_id) WHERE (p.created_by = $1"
            " OR EXISTS (SELECT 1 FROM table_access a JOIN table_invitations i"
            " USING (invitation_id) WHERE a.table_id = p.table_id AND a.account_id = $1"
            " AND i.revoked_at IS NULL)"
            " OR EXISTS (SELECT 1 FROM profile_table_players pp WHERE pp.table_id = p.table_id"
            " AND pp.player = $1))"
            " AND t.table_id IS NOT NULL"
            " AND NOT EXISTS (SELECT 1 FROM unnest($2::text[]) AS w (word)"
            " WHERE strpos(lower(t.name), lower(w.word)) = 0)"
            " ORDER BY p.created_at DESC LIMIT 200",
            account_id,
            list(words),
        )
    return [PrivateTable(r["table_id"], r["created_by"], r["kind"], r["name"]) for r in rows]
