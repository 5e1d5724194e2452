"""Accounts and bearer tokens.

Passwords are hashed with the standard library's scrypt and a random salt per account; the
parameters are stored with the hash so they can be raised later. Tokens are 32 random bytes,
handed out once; the database keeps only their SHA-256, and a token can be revoked.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from dataclasses import dataclass

import asyncpg

from events.errors import translate_errors
from server.problems import Problem, unauthorized

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1


@dataclass(frozen=True, slots=True)
class Account:
    account_id: str
    username: str
    display_name: str
    guest: bool = False


def hash_password(
    password: str, salt: bytes, n: int = SCRYPT_N, r: int = SCRYPT_R, p: int = SCRYPT_P
) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=64 * 1024 * 1024
    )


def _token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode("ascii", "replace")).digest()


async def _issue_token(conn: asyncpg.Connection, account_id: str) -> str:
    token = secrets.token_urlsafe(32)
    await conn.execute(
        "INSERT INTO tokens (token_hash, account_id) VALUES ($1, $2)",
        _token_hash(token),
        account_id,
    )
    return token


async def register(
    pool: asyncpg.Pool, username: str, password: str, display_name: str = ""
) -> tuple[Account, str]:
    """Create an account and return it with a fresh token.

    :raises Problem: 409 when the username is taken.
    """
    salt = secrets.token_bytes(16)
    digest = hash_password(password, salt)
    account = Account(f"u_{uuid.uuid4().hex}", username, display_name or username)
    with translate_errors():
        async with pool.acquire() as conn, conn.transaction():
            try:
                await conn.execute(
                    "INSERT INTO accounts (account_id, username, display_name, password_hash, salt,"
                    " scrypt_n, scrypt_r, scrypt_p) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                    account.account_id,
                    username,
                    account.display_name,
                    digest,
                    salt,
                    SCRYPT_N,
                    SCRYPT_R,
                    SCRYPT_P,
                )
            except asyncpg.UniqueViolationError as e:
                raise Problem(
                    409,
                    "username-taken",
                    "Username taken",
                    f"the username {username!r} is taken",
                    field="username",
                ) from e
            token = await _issue_token(conn, account.account_id)
    return account, token


async def guest(pool: asyncpg.Pool, display_name: str = "") -> tuple[Account, str]:
    """A guest account (no password) and its token."""
    suffix = secrets.token_hex(4)
    account = Account(
        f"g_{uuid.uuid4().hex}", f"guest-{suffix}", display_name or f"Guest {suffix}", True
    )
    with translate_errors():
        async with pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO accounts (account_id, username, display_name, guest)"
                " VALUES ($1, $2, $3, true)",
                account.account_id,
                account.username,
                account.display_name,
            )
            token = await _issue_token(conn, account.account_id)
    return account, token


async def login(pool: asyncpg.Pool, username: str, password: str) -> tuple[Account, str]:
    """Check a password and return a fresh token.

    :raises Problem: 401 for an unknown user or a wrong password (the same message for both).
    """
    with translate_errors():
        async with pool.acquire() as conn:
            row = await conn.fetchrow(
                "SELECT account_id, username, display_name, password_hash, salt, scrypt_n,"
                " scrypt_r, scrypt_p FROM accounts WHERE username = $1 AND NOT guest",
                username,
            )
            if row is None or row["password_hash"] is None:
                hash_password(password, b"0" * 16)  # same work either way: no user probing
                raise unauthorized("wrong username or password")
            digest = hash_password(
                password, row["salt"], row["scrypt_n"], row["scrypt_r"], row["scrypt_p"]
            )
            if not hmac.compare_digest(digest, row["password_hash"]):
                raise unauthorized("wrong username or password")
            token = await _issue_token(conn, row["account_id"])
    return Account(row["account_id"], row["username"], row["display_name"]), token


async def authenticate(pool: asyncpg.Pool, token: str) -> Account:
    """The account a bearer token belongs to.

    :raises Problem: 401 for an unknown or revoked token.
    """
    with translate_errors():
        row = await pool.fetchrow(
            "SELECT a.account_id, a.username, a.display_name, a.guest FROM tokens t"
            " JOIN accounts a USING (account_id) WHERE t.token_hash = $1 AND t.revoked_at IS NULL",
            _token_hash(token),
        )
    if row is None:
        raise unauthorized("the token is unknown or revoked")
    return Account(row["account_id"], row["username"], row["display_name"], row["guest"])


async def revoke(pool: asyncpg.Pool, token: str) -> None:
    """Revoke a token (logging out)."""
    with translate_errors():
        await pool.execute(
            "UPDATE tokens SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL",
            _token_hash(token),
        )
