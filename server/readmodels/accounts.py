"""Accounts, their bearer tokens and stream tickets: the tables ``accounts``, ``tokens`` and
``stream_tickets``.

:class:`server.access.auth.Accounts` hashes passwords and makes tokens and tickets; this module
reads and writes their rows, each operation in one transaction where it writes more than one.
A token or a ticket is kept as its SHA-256 (the caller hashes it), and expires ``ttl`` seconds
after it was written, by the database's clock.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal, NamedTuple

import asyncpg

from events.store.errors import translate_errors

__all__ = [
    "ACCOUNTS_CHANNEL",
    "Account",
    "Player",
    "StoredPassword",
    "TokenAccount",
    "account_of_ticket",
    "account_of_token",
    "bots_at_unfinished_tables",
    "create_account",
    "create_bot",
    "create_guest",
    "is_outside_bot",
    "log_in",
    "mark_outside_bot",
    "password_of",
    "player",
    "revoke_account_tokens",
    "revoke_token",
    "store_ticket",
    "upgrade_guest",
    "valid_tokens",
]


@dataclass(frozen=True, slots=True)
class Account:
    account_id: str
    username: str
    display_name: str
    guest: bool = False
    outside_bot: bool = False
    """Marked a bot account by its owner (``POST /me/bot``, docs/bots.md "Outside bots"): it
    sits down as a bot. Not the server's own bots (``b_...``), which have no session."""


class StoredPassword(NamedTuple):
    """A password hash as the accounts table has it: Argon2id, or scrypt from before."""

    phc: str | None
    scrypt_hash: bytes | None
    salt: bytes | None
    n: int | None
    r: int | None
    p: int | None


@dataclass(frozen=True, slots=True)
class Player:
    """An account as a player's profile shows it (``GET /players/{name}``)."""

    account_id: str
    username: str
    display_name: str
    guest: bool
    bot: bool
    """One of the server's own bots (``b_...``)."""
    outside_bot: bool
    """Marked a bot account by its owner (``POST /me/bot``)."""
    created_at: dt.datetime


async def _insert_token(
    conn: asyncpg.Connection, digest: bytes, account_id: str, ttl: float
) -> None:
    await conn.execute(
        "INSERT INTO tokens (token_hash, account_id, expires_at)"
        " VALUES ($1, $2, now() + make_interval(secs => $3))",
        digest,
        account_id,
        ttl,
    )


async def create_account(
    pool: asyncpg.Pool, account: Account, phc: str, token_digest: bytes, ttl: float
) -> bool:
    """Create a registered account with its password's Argon2id hash and its first token, in
    one transaction; False (nothing written) when the username is taken."""
    with translate_errors():
        async with pool.acquire() as conn, conn.transaction():
            try:
                await conn.execute(
                    "INSERT INTO accounts (account_id, username, display_name, password_phc)"
                    " VALUES ($1, $2, $3, $4)",
                    account.account_id,
                    account.username,
                    account.display_name,
                    phc,
                )
            except asyncpg.UniqueViolationError:
                return False
            await _insert_token(conn, token_digest, account.account_id, ttl)
    return True


async def create_guest(
    pool: asyncpg.Pool, account: Account, token_digest: bytes, ttl: float
) -> None:
    """Create a guest account (no password) with its token, in one transaction."""
    with translate_errors():
        async with pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO accounts (account_id, username, display_name, guest)"
                " VALUES ($1, $2, $3, true)",
                account.account_id,
                account.username,
                account.display_name,
            )
            await _insert_token(conn, token_digest, account.account_id, ttl)


async def upgrade_guest(
    pool: asyncpg.Pool, account_id: str, username: str, phc: str, token_digest: bytes, ttl: float
) -> Account | Literal["taken", "not-guest"]:
    """Turn the guest ``account_id`` into a registered account, its id kept (so every seat,
    ledger line and profile the log gives that id stays its own): its new username and the
    password's Argon2id hash, every token it had revoked and a fresh one (of ``ttl``) stored,
    in one transaction. ``"taken"`` when the username is, ``"not-guest"`` when the account is
    registered already (or a bot's, or none): nothing is written then."""
    with translate_errors():
        try:
            async with pool.acquire() as conn, conn.transaction():
                row = await conn.fetchrow(
                    "UPDATE accounts SET username = $2, password_phc = $3, guest = false"
                    " WHERE account_id = $1 AND guest AND NOT bot"
                    " RETURNING account_id, username, display_name, guest, outside_bot",
                    account_id,
                    username,
                    phc,
                )
                if row is None:
                    return "not-guest"
                await conn.execute(
                    "UPDATE tokens SET revoked_at = now()"
                    " WHERE account_id = $1 AND revoked_at IS NULL",
                    account_id,
                )
                await conn.execute("SELECT pg_notify($1, $2)", ACCOUNTS_CHANNEL, account_id)
                await _insert_token(conn, token_digest, account_id, ttl)
        except asyncpg.UniqueViolationError:
            return "taken"
    return _account(row)


async def create_bot(pool: asyncpg.Pool, account: Account, strength: str) -> None:
    """Create a bot's account, unless it exists (a retried seating finds the one it created)."""
    with translate_errors():
        await pool.execute(
            "INSERT INTO accounts (account_id, username, display_name, bot, bot_strength)"
            " VALUES ($1, $2, $3, true, $4) ON CONFLICT (account_id) DO NOTHING",
            account.account_id,
            account.username,
            account.display_name,
            strength,
        )


BotMark = Literal["marked", "already", "guest", "rated", "seated"]
"""What :func:`mark_outside_bot` did: marked the account, found it marked already, or refused
(nothing written): a guest's, one with a rated match, one seated at an unfinished table."""


async def mark_outside_bot(pool: asyncpg.Pool, account_id: str) -> tuple[BotMark, list[str]]:
    """Mark the registered ``account_id`` a bot account, for good (docs/bots.md, "Outside
    bots"), unless it has played a rated match (``rating_history``) or sits at a table the
    lobby lists as not finished (whose seat it took as a person): then nothing is written,
    and the second value names those tables. One transaction, the account's row locked, so two
    marks at once mark it once; every process forgets its sessions (:data:`ACCOUNTS_CHANNEL`).
    The read models are what they are: the caller catches them up first."""
    with translate_errors():
        async with pool.acquire() as conn, conn.transaction():
            row = await conn.fetchrow(
                "SELECT guest, outside_bot FROM accounts WHERE account_id = $1 FOR UPDATE",
                account_id,
            )
            if row is None or row["guest"]:
                return "guest", []
            if row["outside_bot"]:
                return "already", []
            rated = await conn.fetchval(
                "SELECT EXISTS (SELECT 1 FROM rating_history WHERE player = $1)", account_id
            )
            if rated:
                return "rated", []
            seated = [
                r["table_id"]
                for r in await conn.fetch(
                    "SELECT table_id FROM lobby_tables WHERE $1 = ANY (players)"
                    " AND status <> 'finished' ORDER BY table_id LIMIT 10",
                    account_id,
                )
            ]
            if seated:
                return "seated", seated
            await conn.execute(
                "UPDATE accounts SET outside_bot = true, outside_bot_at = now()"
                " WHERE account_id = $1",
                account_id,
            )
            await conn.execute("SELECT pg_notify($1, $2)", ACCOUNTS_CHANNEL, account_id)
    return "marked", []


async def is_outside_bot(pool: asyncpg.Pool, account_id: str) -> bool:
    """Whether ``account_id`` is marked a bot account, as the database has it now (a socket's
    session may be older than the mark)."""
    with translate_errors():
        return bool(
            await pool.fetchval(
                "SELECT outside_bot FROM accounts WHERE account_id = $1", account_id
            )
        )


async def password_of(pool: asyncpg.Pool, username: str) -> tuple[Account, StoredPassword] | None:
    """A registered (not guest) account by username and its stored password; None for none."""
    with translate_errors():
        row = await pool.fetchrow(
            "SELECT account_id, username, display_name, outside_bot, password_phc,"
            " password_hash, salt, scrypt_n, scrypt_r, scrypt_p FROM accounts"
            " WHERE username = $1 AND NOT guest",
            username,
        )
    if row is None:
        return None
    stored = StoredPassword(
        row["password_phc"],
        row["password_hash"],
        row["salt"],
        row["scrypt_n"],
        row["scrypt_r"],
        row["scrypt_p"],
    )
    account = Account(
        row["account_id"], row["username"], row["display_name"], outside_bot=row["outside_bot"]
    )
    return account, stored


async def log_in(
    pool: asyncpg.Pool, account_id: str, rehashed: str | None, token_digest: bytes, ttl: float
) -> None:
    """After a password matched: store its new Argon2id hash (``rehashed``, if any, in place of
    the old one) and a fresh token, in one transaction."""
    with translate_errors():
        async with pool.acquire() as conn, conn.transaction():
            if rehashed is not None:
                await conn.execute(
                    "UPDATE accounts SET password_phc = $2, password_hash = NULL, salt = NULL,"
                    " scrypt_n = NULL, scrypt_r = NULL, scrypt_p = NULL WHERE account_id = $1",
                    account_id,
                    rehashed,
                )
            await _insert_token(conn, token_digest, account_id, ttl)


class TokenAccount(NamedTuple):
    """The account of a live token, and how many seconds the token has left."""

    account: Account
    seconds_left: float


async def account_of_token(pool: asyncpg.Pool, digest: bytes) -> TokenAccount | None:
    """The account of a token neither revoked nor expired; None for any other."""
    with translate_errors():
        row = await pool.fetchrow(
            "SELECT a.account_id, a.username, a.display_name, a.guest, a.outside_bot,"
            " extract(epoch FROM t.expires_at - now())::float8 AS seconds_left FROM tokens t"
            " JOIN accounts a USING (account_id) WHERE t.token_hash = $1"
            " AND t.revoked_at IS NULL AND t.expires_at > now()",
            digest,
        )
    return None if row is None else TokenAccount(_account(row), row["seconds_left"])


async def valid_tokens(pool: asyncpg.Pool, hashes: Iterable[bytes]) -> set[bytes]:
    """Those of the token hashes that are neither revoked nor expired."""
    with translate_errors():
        rows = await pool.fetch(
            "SELECT token_hash FROM tokens WHERE token_hash = ANY($1::bytea[])"
            " AND revoked_at IS NULL AND expires_at > now()",
            list(hashes),
        )
    return {bytes(r["token_hash"]) for r in rows}


ACCOUNTS_CHANNEL: Final = "chouette_accounts"
"""Notified with an account id, as the change commits, whenever a token of that account is
revoked or the account itself changes: every process forgets the sessions it holds for it
(:class:`server.access.auth.Accounts`)."""

_NOTIFY = f"pg_notify('{ACCOUNTS_CHANNEL}', account_id)"
"""Tells :data:`ACCOUNTS_CHANNEL` of the account of each row ``changed`` (a CTE), at commit."""


async def revoke_token(pool: asyncpg.Pool, digest: bytes) -> str | None:
    """Revoke a token; its account, or None when it was revoked already (nothing changes)."""
    with translate_errors():
        row = await pool.fetchrow(
            "WITH changed AS (UPDATE tokens SET revoked_at = now()"
            " WHERE token_hash = $1 AND revoked_at IS NULL RETURNING account_id)"
            f" SELECT account_id, {_NOTIFY} FROM changed",
            digest,
        )
    return None if row is None else str(row["account_id"])


async def revoke_account_tokens(pool: asyncpg.Pool, account_id: str) -> int:
    """Revoke every token of an account; how many were not revoked yet."""
    with translate_errors():
        revoked = await pool.fetchval(
            "WITH changed AS (UPDATE tokens SET revoked_at = now()"
            " WHERE account_id = $1 AND revoked_at IS NULL RETURNING account_id)"
            f" SELECT count(*) FROM (SELECT {_NOTIFY} FROM changed) AS told",
            account_id,
        )
    return int(revoked)


async def store_ticket(
    pool: asyncpg.Pool, ticket_digest: bytes, token_digest: bytes, ttl: float
) -> None:
    """Keep a stream ticket bound to its token, sweeping expired tickets, in one transaction."""
    with translate_errors():
        async with pool.acquire() as conn, conn.transaction():
            await conn.execute("DELETE FROM stream_tickets WHERE expires_at < now()")
            await conn.execute(
                "INSERT INTO stream_tickets (ticket_hash, token_hash, expires_at)"
                " VALUES ($1, $2, now() + make_interval(secs => $3))",
                ticket_digest,
                token_digest,
                ttl,
            )


async def account_of_ticket(pool: asyncpg.Pool, digest: bytes) -> tuple[Account, bytes] | None:
    """Use up a ticket (it is deleted, whatever it is): the account and token hash it was
    issued for, or None when it is unknown or expired, or its token is revoked or expired."""
    with translate_errors():
        row = await pool.fetchrow(
            "WITH used AS (DELETE FROM stream_tickets WHERE ticket_hash = $1"
            " RETURNING token_hash, expires_at)"
            " SELECT u.token_hash, a.account_id, a.username, a.display_name, a.guest,"
            " a.outside_bot FROM used u JOIN tokens t USING (token_hash)"
            " JOIN accounts a USING (account_id)"
            " WHERE u.expires_at > now() AND t.revoked_at IS NULL AND t.expires_at > now()",
            digest,
        )
    return None if row is None else (_account(row), bytes(row["token_hash"]))


async def player(pool: asyncpg.Pool, name: str) -> Player | None:
    """An account by username or account id (the events name players by id), a username
    first; None for none."""
    with translate_errors():
        row = await pool.fetchrow(
            "SELECT account_id, username, display_name, guest, bot, outside_bot, created_at"
            " FROM accounts WHERE username = $1 OR account_id = $1"
            " ORDER BY username = $1 DESC LIMIT 1",
            name,
        )
    if row is None:
        return None
    return Player(
        row["account_id"],
        row["username"],
        row["display_name"],
        row["guest"],
        row["bot"],
        row["outside_bot"],
        row["created_at"],
    )


async def bots_at_unfinished_tables(pool: asyncpg.Pool) -> list[tuple[str, str, str | None]]:
    """``(table_id, bot account id, strength)`` of every bot seated at a table the lobby lists
    as not finished."""
    with translate_errors():
        rows = await pool.fetch(
            "SELECT l.table_id, a.account_id, a.bot_strength FROM lobby_tables l"
            " JOIN accounts a ON a.account_id = ANY (l.players)"
            " WHERE a.bot AND l.status <> 'finished'"
        )
    return [(r["table_id"], r["account_id"], r["bot_strength"]) for r in rows]


def _account(row: asyncpg.Record) -> Account:
    return Account(
        row["account_id"], row["username"], row["display_name"], row["guest"], row["outside_bot"]
    )
