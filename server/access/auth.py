"""Accounts, bearer tokens and stream tickets.

Passwords are hashed with Argon2id (``argon2-cffi``) at the first of the parameter sets OWASP's
Password Storage Cheat Sheet recommends — m=19 MiB, t=2, p=1
(https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html#argon2id) —
stored as the PHC string, which carries its parameters, so they can be raised later. A hash takes
about 50 ms of CPU: it runs on a few threads of its own (argon2-cffi and ``hashlib.scrypt`` let go
of the GIL), never on the event loop, so a burst of logins cannot stall the tables. Accounts
registered before Argon2id have a scrypt hash; a successful login rehashes the password with
Argon2id (and so does one whose Argon2id parameters are older than these).

Tokens are 32 random bytes, handed out once; the database keeps only their SHA-256. A token
expires (``Config.token_ttl``, ``guest_token_ttl``) and can be revoked, alone or with every other
token of its account. Tokens travel only in the ``Authorization`` header: a browser cannot set
one on a WebSocket or an EventSource, so it asks for a ticket — 32 random bytes, kept as their
SHA-256, good for one connection within ``Config.ticket_ttl`` seconds, and bound to the token it
was asked with, so that a socket opened with it stops when that token is revoked.

A process remembers the sessions it has looked up (:class:`SessionCache`), so that the requests
and sockets of a player do not each ask the database who the token is, but only while it hears
the database's notifications of revocations and account changes
(:data:`server.readmodels.accounts.ACCOUNTS_CHANNEL`, sent as they commit): a token revoked in
this process is forgotten at once, in another within the notification's delivery, a few
milliseconds; with the LISTEN connection down, every lookup asks the database, and what was
remembered is forgotten when it is back.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Final, TypeVar

import asyncpg
from aiohttp import web
from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError

from server.config import Config
from server.http.problems import Problem, unauthorized
from server.readmodels import accounts
from server.readmodels.accounts import Account, StoredPassword

T = TypeVar("T")

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
"""The scrypt parameters of hashes made before Argon2id (migration 010); read, never written."""

ARGON2_MEMORY_KIB, ARGON2_TIME, ARGON2_LANES = 19 * 1024, 2, 1
"""OWASP's Argon2id parameters (see the module's docstring)."""


@dataclass(frozen=True, slots=True)
class Session:
    """Who a request or a socket acts for, and the token that says so (its SHA-256), so that a
    socket can check the token is still good."""

    account: Account
    token_hash: bytes


class SessionCache:
    """The sessions this process has looked up lately, by token hash: each for at most
    :data:`SECONDS` and never past its token's expiry, the :data:`KEPT` most recent. Used only
    while ``enabled()`` says the notifications that make it forget are heard."""

    SECONDS: Final = 30.0
    KEPT: Final = 20_000

    def __init__(self) -> None:
        self.enabled: Callable[[], bool] = lambda: False
        self._sessions: OrderedDict[bytes, tuple[Session, float]] = OrderedDict()
        self._by_account: dict[str, set[bytes]] = {}
        self.hits = 0
        self.epoch = 0
        """Counts what was forgotten: a lookup that began before something was forgotten
        may have read what was just revoked, and is not remembered (:meth:`put`)."""

    def get(self, digest: bytes) -> Session | None:
        if not self.enabled():
            return None
        held = self._sessions.get(digest)
        if held is None:
            return None
        if held[1] <= time.monotonic():
            self._drop(digest)
            return None
        self.hits += 1
        return held[0]

    def put(self, session: Session, seconds_left: float, epoch: int) -> None:
        """Remember a session looked up from the database when :attr:`epoch` was ``epoch``."""
        if epoch != self.epoch or not self.enabled():
            return
        digest, account_id = session.token_hash, session.account.account_id
        self._drop(digest)
        self._sessions[digest] = (session, time.monotonic() + min(self.SECONDS, seconds_left))
        self._by_account.setdefault(account_id, set()).add(digest)
        if len(self._sessions) > self.KEPT:
            self._drop(next(iter(self._sessions)))

    def forget(self, account_id: str) -> None:
        """Forget every session of an account (a token revoked, the account changed)."""
        self.epoch += 1
        for digest in self._by_account.pop(account_id, ()):
            self._sessions.pop(digest, None)

    def clear(self) -> None:
        self.epoch += 1
        self._sessions.clear()
        self._by_account.clear()

    def __len__(self) -> int:
        return len(self._sessions)

    def _drop(self, digest: bytes) -> None:
        held = self._sessions.pop(digest, None)
        if held is not None:
            account_id = held[0].account.account_id
            digests = self._by_account.get(account_id)
            if digests is not None:
                digests.discard(digest)
                if not digests:
                    del self._by_account[account_id]


def scrypt_hash(
    password: str, salt: bytes, n: int = SCRYPT_N, r: int = SCRYPT_R, p: int = SCRYPT_P
) -> bytes:
    """The scrypt hash of migration 010's accounts (and of tests that make such an account)."""
    return hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=n, r=r, p=p, maxmem=64 * 1024 * 1024
    )


def token_hash(secret: str) -> bytes:
    """What the database keeps of a token or a ticket."""
    return hashlib.sha256(secret.encode("ascii", "replace")).digest()


INVALID_TOKEN = "the token is unknown, expired or revoked; log in again"
INVALID_TICKET = "the ticket is unknown, used or expired; ask POST /tickets for a new one"


class Accounts:
    """Accounts, tokens and tickets, over the accounts' pool."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        *,
        token_ttl: float,
        guest_token_ttl: float,
        ticket_ttl: float,
        hash_workers: int = 2,
    ) -> None:
        self.pool = pool
        self.token_ttl = token_ttl
        self.guest_token_ttl = guest_token_ttl
        self.ticket_ttl = ticket_ttl
        self.revocations = 0
        """Tokens revoked through this process so far: a socket that checked its token before
        the last one checks it again (see ``server.http.streams``)."""
        self.hasher = PasswordHasher(
            time_cost=ARGON2_TIME,
            memory_cost=ARGON2_MEMORY_KIB,
            parallelism=ARGON2_LANES,
            hash_len=32,
            salt_len=16,
            type=Type.ID,
        )
        # A few threads, not the loop's default executor: each hash holds 19 MiB, so a burst
        # of logins waits its turn instead of taking memory without bound.
        self._executor = ThreadPoolExecutor(hash_workers, thread_name_prefix="password-hash")
        self._decoy: str | None = None
        self.sessions = SessionCache()

    @classmethod
    def from_config(cls, pool: asyncpg.Pool, config: Config) -> Accounts:
        return cls(
            pool,
            token_ttl=config.token_ttl,
            guest_token_ttl=config.guest_token_ttl,
            ticket_ttl=config.ticket_ttl,
            hash_workers=config.hash_workers,
        )

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def _off_loop(self, fn: Callable[..., T], *args: object) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    # -- passwords (these run on the hashing threads) ---------------------------------------

    def _verify(self, stored: StoredPassword | None, password: str) -> tuple[bool, str | None]:
        """Whether ``password`` matches, and the Argon2id hash to store instead when the stored
        one is scrypt or has older parameters. An unknown user is checked against a decoy hash,
        so that both answers take the same time (no probing for usernames)."""
        if stored is None or (stored.phc is None and stored.scrypt_hash is None):
            if self._decoy is None:
                self._decoy = self.hasher.hash(secrets.token_urlsafe(16))
            self._argon2_matches(self._decoy, "\0" + password)  # the same work, never a match
            return False, None
        if stored.phc is not None:
            if not self._argon2_matches(stored.phc, password):
                return False, None
            if self.hasher.check_needs_rehash(stored.phc):
                return True, self.hasher.hash(password)
            return True, None
        assert stored.scrypt_hash is not None and stored.salt is not None
        digest = scrypt_hash(
            password,
            stored.salt,
            stored.n or SCRYPT_N,
            stored.r or SCRYPT_R,
            stored.p or SCRYPT_P,
        )
        if not hmac.compare_digest(digest, stored.scrypt_hash):
            return False, None
        return True, self.hasher.hash(password)

    def _argon2_matches(self, phc: str, password: str) -> bool:
        try:
            return self.hasher.verify(phc, password)
        except (VerificationError, InvalidHashError):
            return False

    # -- accounts and tokens ---------------------------------------------------------------

    def ttl(self, account: Account) -> float:
        """How long a fresh token of ``account`` is good for, in seconds."""
        return self.guest_token_ttl if account.guest else self.token_ttl

    async def register(
        self, username: str, password: str, display_name: str = ""
    ) -> tuple[Account, str]:
        """Create an account and return it with a fresh token.

        :raises Problem: 409 when the username is taken.
        """
        phc = await self._off_loop(self.hasher.hash, password)
        account = Account(f"u_{uuid.uuid4().hex}", username, display_name or username)
        token = secrets.token_urlsafe(32)
        if not await accounts.create_account(
            self.pool, account, phc, token_hash(token), self.ttl(account)
        ):
            raise Problem(
                409,
                "username-taken",
                "Username taken",
                f"the username {username!r} is taken",
                field="username",
            )
        return account, token

    async def guest(self, display_name: str = "") -> tuple[Account, str]:
        """A guest account (no password) and its token."""
        suffix = secrets.token_hex(4)
        account = Account(
            f"g_{uuid.uuid4().hex}", f"guest-{suffix}", display_name or f"Guest {suffix}", True
        )
        token = secrets.token_urlsafe(32)
        await accounts.create_guest(self.pool, account, token_hash(token), self.ttl(account))
        return account, token

    async def upgrade(self, account: Account, username: str, password: str) -> tuple[Account, str]:
        """Turn the guest ``account`` into a registered account with this username and
        password, keeping its account id (its seats, history, ledgers and profile stay). Every
        token the guest had is revoked and a fresh one, of a registered account's
        ``token_ttl``, is returned with the account.

        :raises Problem: 409 ``not-a-guest`` when the account is registered already, 409
            ``username-taken`` when the username is taken (nothing changes either way).
        """
        if not account.guest:
            raise _not_a_guest()
        phc = await self._off_loop(self.hasher.hash, password)
        token = secrets.token_urlsafe(32)
        upgraded = await accounts.upgrade_guest(
            self.pool, account.account_id, username, phc, token_hash(token), self.token_ttl
        )
        if upgraded == "not-guest":
            raise _not_a_guest()
        if upgraded == "taken":
            raise Problem(
                409,
                "username-taken",
                "Username taken",
                f"the username {username!r} is taken",
                field="username",
            )
        self.revocations += 1  # the guest's sockets check their tokens again
        self.sessions.forget(account.account_id)
        return upgraded, token

    async def mark_bot(self, account: Account) -> Account:
        """Mark the registered ``account`` a bot account, for good (docs/bots.md, "Outside
        bots"); marked already, it is answered as it is. Its sessions are forgotten here (and
        in every process, told as the mark commits), so they carry the mark from now on.

        :raises Problem: 403 ``not-registered`` for a guest; 409 ``rated-matches-played`` for
            an account that has played a rated match, 409 ``seated`` for one at an unfinished
            table (nothing changes either way).
        """
        done, tables = await accounts.mark_outside_bot(self.pool, account.account_id)
        match done:
            case "guest":
                raise not_registered()
            case "rated":
                raise Problem(
                    409,
                    "rated-matches-played",
                    "Rated matches played",
                    "an account that has played a rated match cannot become a bot account"
                    " (its rating is a person's): register another account for the bot",
                )
            case "seated":
                raise Problem(
                    409,
                    "seated",
                    "Seated at a table",
                    "the account sits at a table that is not finished, as a person: leave it"
                    " (or finish it) first, so that no seat taken by a person is played by a"
                    " program",
                    tables=tables,
                )
        self.sessions.forget(account.account_id)
        return replace(account, outside_bot=True)

    async def sits_as_bot(self, account: Account) -> bool:
        """Whether ``account`` sits down as a bot: marked one. The mark is for good, so a
        session that has it is right; one without it may be older than the mark (a socket
        opened before), so the database is asked."""
        return account.outside_bot or await accounts.is_outside_bot(self.pool, account.account_id)

    async def bot(self, account_id: str, strength: str, display_name: str) -> Account:
        """The bot account ``account_id`` (``b_...``), created if new (a retried seating finds
        the one it created). A bot has no password and no token: nobody logs in as one."""
        if not account_id.startswith("b_"):
            raise ValueError(f"a bot's account id starts b_, not {account_id!r}")
        account = Account(account_id, f"bot-{account_id[2:14]}", display_name)
        await accounts.create_bot(self.pool, account, strength)
        return account

    async def login(self, username: str, password: str) -> tuple[Account, str]:
        """Check a password and return a fresh token; a scrypt hash becomes Argon2id.

        :raises Problem: 401 for an unknown user or a wrong password (the same message for both).
        """
        found = await accounts.password_of(self.pool, username)
        stored = None if found is None else found[1]
        matched, rehashed = await self._off_loop(self._verify, stored, password)
        if found is None or not matched:
            raise unauthorized("wrong username or password")
        account = found[0]
        token = secrets.token_urlsafe(32)
        await accounts.log_in(
            self.pool, account.account_id, rehashed, token_hash(token), self.ttl(account)
        )
        return account, token

    async def check_password(self, account: Account, password: str) -> bool:
        """Whether ``password`` is the registered ``account``'s (erasing it asks: docs/privacy.md);
        False for a guest, who has none. Off the loop, as a login's check."""
        found = await accounts.password_of(self.pool, account.username)
        stored = None if found is None or found[0].account_id != account.account_id else found[1]
        matched, _ = await self._off_loop(self._verify, stored, password)
        return matched and stored is not None

    async def session(self, token: str) -> Session:
        """The account a bearer token belongs to.

        :raises Problem: 401 for an unknown, expired or revoked token.
        """
        digest = token_hash(token)
        session = self.sessions.get(digest)
        if session is not None:
            return session
        epoch = self.sessions.epoch
        found = await accounts.account_of_token(self.pool, digest)
        if found is None:
            raise unauthorized(INVALID_TOKEN)
        session = Session(found.account, digest)
        self.sessions.put(session, found.seconds_left, epoch)
        return session

    async def authenticate(self, token: str) -> Account:
        """The account a bearer token belongs to (see :meth:`session`)."""
        return (await self.session(token)).account

    async def valid_tokens(self, hashes: Iterable[bytes]) -> set[bytes]:
        """Those of the token hashes that are neither revoked nor expired."""
        return await accounts.valid_tokens(self.pool, hashes)

    async def is_valid(self, digest: bytes) -> bool:
        return bool(await self.valid_tokens([digest]))

    async def revoke(self, token: str) -> None:
        """Revoke a token (logging out)."""
        self.revocations += 1
        account_id = await accounts.revoke_token(self.pool, token_hash(token))
        if account_id is not None:
            self.sessions.forget(account_id)

    async def revoke_all(self, account_id: str) -> int:
        """Revoke every token of an account (logging out everywhere); how many were live."""
        self.revocations += 1
        revoked = await accounts.revoke_account_tokens(self.pool, account_id)
        self.sessions.forget(account_id)
        return revoked

    # -- tickets ---------------------------------------------------------------------------

    async def issue_ticket(self, session: Session) -> str:
        """A ticket for one stream connection as ``session`` (expired ones are swept here)."""
        ticket = secrets.token_urlsafe(32)
        await accounts.store_ticket(
            self.pool, token_hash(ticket), session.token_hash, self.ticket_ttl
        )
        return ticket

    async def redeem_ticket(self, ticket: str) -> Session:
        """The session a ticket was issued for; the ticket is used up.

        :raises Problem: 401 for an unknown, used or expired ticket, or one whose token has
            since been revoked or has expired.
        """
        found = await accounts.account_of_ticket(self.pool, token_hash(ticket))
        if found is None:
            raise unauthorized(INVALID_TICKET)
        return Session(*found)


def not_registered() -> Problem:
    """A guest asked to be a bot account (``POST /me/bot``): only a registered account can."""
    return Problem(
        403,
        "not-registered",
        "Not a registered account",
        "only a registered account can be a bot account: keep the guest as an account first"
        " (POST /me/account)",
    )


def _not_a_guest() -> Problem:
    return Problem(
        409,
        "not-a-guest",
        "Not a guest",
        "this account is registered already: only a guest account can be kept as one",
    )


ACCOUNTS = web.AppKey("accounts", Accounts)
"""The app's accounts. Kept here, not in :mod:`server.keys`: this module needs
:mod:`server.http.problems`, which needs :mod:`server.keys`."""
