"""Rate limits and caps: nobody floods the server, the lobby or a table (issue 11).

A limit is a token bucket per key (an account, an address or a username): it holds up to
``count`` tokens, each request takes one, and it refills at ``count / per`` tokens a second, so
a burst of ``count`` passes and then one more every ``per / count`` seconds. A request that finds
the bucket empty is refused with a ``429`` problem whose ``Retry-After`` says when the next token
comes. The buckets are this process's memory (a few dozen bytes a key, at most
:data:`MAX_KEYS` per limit, the least recently used forgotten first, which only ever forgives);
the caps on open sockets are this process's counts, and the cap on open tables is counted in
the database (:func:`reserve_table`, :mod:`server.readmodels.limits`), so it holds across
processes.

None of it is a library: aiohttp has no well-kept limiter of its own, and a bucket is a few
lines. The limits and their defaults are in :class:`server.config.Config` (`CHOUETTE_RATE_*`).
"""

from __future__ import annotations

import contextlib
import ipaddress
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import asyncpg
from aiohttp import web

from server.config import Config, Rate
from server.http.problems import Problem
from server.readmodels.limits import OpenTablesCapError, forget_table, record_table

MAX_KEYS = 100_000
"""Keys a bucket remembers; past that the least recently used are forgotten (a full bucket)."""

CAP_RETRY = 10
"""``Retry-After`` of a refusal by a cap (open sockets, open tables): a guess, since the cap
frees when something closes."""


def too_many(detail: str, retry_after: float) -> Problem:
    """The ``429`` problem, with ``Retry-After`` in whole seconds (at least 1)."""
    return Problem(
        429,
        "rate-limited",
        "Too many requests",
        detail,
        headers={"Retry-After": str(max(1, math.ceil(retry_after)))},
    )


@dataclass(slots=True)
class TokenBucket:
    """A token bucket per key (see the module's docstring).

    >>> clock = [0.0]
    >>> bucket = TokenBucket(Rate(2, 10), clock=lambda: clock[0])
    >>> bucket.take("a"), bucket.take("a"), bucket.take("a"), bucket.take("b")
    (0.0, 0.0, 5.0, 0.0)
    >>> clock[0] = 5.0
    >>> bucket.take("a"), bucket.take("a")
    (0.0, 5.0)
    """

    rate: Rate
    clock: Callable[[], float] = time.monotonic
    max_keys: int = MAX_KEYS
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)
    """key -> (tokens, when they were counted); in least recently used order."""

    def take(self, key: str) -> float:
        """Take a token for ``key``: 0 if there was one, else the seconds until there is (and
        nothing is taken)."""
        now = self.clock()
        capacity = float(self.rate.count)
        per_second = capacity / self.rate.per
        tokens, then = self._buckets.pop(key, (capacity, now))
        tokens = min(capacity, tokens + (now - then) * per_second)
        wait = 0.0
        if tokens >= 1:
            tokens -= 1
        else:
            wait = (1 - tokens) / per_second
        self._buckets[key] = (tokens, now)  # last: the most recently used
        if len(self._buckets) > self.max_keys:
            del self._buckets[next(iter(self._buckets))]
        return wait

    def __len__(self) -> int:
        return len(self._buckets)


@dataclass(slots=True)
class OpenCount:
    """How many connections each key holds open, with a cap."""

    cap: int
    _open: dict[str, int] = field(default_factory=dict)

    def acquire(self, key: str) -> bool:
        held = self._open.get(key, 0)
        if held >= self.cap:
            return False
        self._open[key] = held + 1
        return True

    def release(self, key: str) -> None:
        held = self._open.get(key, 1) - 1
        if held > 0:
            self._open[key] = held
        else:
            self._open.pop(key, None)


COUNTED = {
    "guests": "guest accounts created from this address",
    "accounts": "accounts registered from this address",
    "logins_address": "logins from this address",
    "logins_username": "logins to this username",
    "tables": "tables created by this account",
    "commands": "commands from this account",
    "chat": "chat messages from this account",
    "sockets_account": "connections to the streams for this account",
    "sockets_address": "connections to the streams from this address",
    "audits": "table audits from this address",
    "analyses": "game analyses from this address",
    "heads": "chain-head documents from this address",
    "social": "profile and leaderboard requests from this address",
    "invitations": "invitation requests from this address",
    "history": "history pages from this address",
}
"""Each limit (``Config.rate_<name>``) and what it counts, for the refusal's detail."""


class Limits:
    """Every limit and cap of one app, made from its :class:`Config`."""

    def __init__(self, config: Config) -> None:
        self.enabled = config.rate_limits
        self.behind_proxy = config.behind_proxy
        self.open_tables = config.rate_open_tables if self.enabled else None
        self.open_table_idle = config.open_table_idle
        self._buckets: dict[str, TokenBucket] = {}
        for name in COUNTED:
            rate: Rate | None = getattr(config, f"rate_{name}")
            if self.enabled and rate is not None:
                self._buckets[name] = TokenBucket(rate)
        self._sockets = {
            scope: OpenCount(cap)
            for scope, cap in (
                ("account", config.rate_max_sockets_account),
                ("address", config.rate_max_sockets_address),
            )
            if self.enabled and cap is not None
        }

    def hit(self, name: str, key: str) -> None:
        """Count one request against limit ``name`` for ``key``.

        :raises Problem: 429 when the bucket is empty.
        """
        bucket = self._buckets.get(name)
        if bucket is None:
            return
        wait = bucket.take(key)
        if wait:
            raise too_many(f"too many {COUNTED[name]}; retry in {math.ceil(wait)} s", wait)

    def address(self, request: web.Request) -> str:
        """The client's address as a limit's key: an IPv6 address by its /64 (what one
        subscriber is given), behind a proxy the last ``X-Forwarded-For`` entry."""
        raw = request.remote or ""
        if self.behind_proxy:
            forwarded = request.headers.get("X-Forwarded-For", "")
            raw = forwarded.rsplit(",", 1)[-1].strip() or raw
        try:
            ip = ipaddress.ip_address(raw)
        except ValueError:
            return raw
        if ip.version == 6:
            return str(ipaddress.ip_network(f"{ip}/64", strict=False))
        return str(ip)

    @contextlib.contextmanager
    def socket(self, account_id: str | None, address: str) -> Iterator[None]:
        """Hold one open stream connection for the account (if any) and the address.

        :raises Problem: 429 when either already holds its cap.
        """
        held: list[tuple[OpenCount, str]] = []
        try:
            for scope, key in (("account", account_id), ("address", address)):
                count = self._sockets.get(scope)
                if count is None or key is None:
                    continue
                if not count.acquire(key):
                    raise too_many(
                        f"this {scope} holds {count.cap} open connections to the streams, the"
                        " most allowed; close one first",
                        CAP_RETRY,
                    )
                held.append((count, key))
            yield
        finally:
            for count, key in held:
                count.release(key)


LIMITS = web.AppKey("limits", Limits)
"""The app's limits. Kept here, not in :mod:`server.keys`: this module needs
:mod:`server.http.problems`, which needs :mod:`server.keys`."""


async def reserve_table(pool: asyncpg.Pool, limits: Limits, account_id: str, table_id: str) -> bool:
    """Record that ``account_id`` creates ``table_id``, within the cap on its open tables.

    A table counts as open while it is not finished and something happened at it (a join, a
    leave, a game) within ``open_table_idle``; one created but not yet in the lobby counts too.
    An advisory lock per account makes concurrent creates count one after the other, in every
    process. Returns False when the table was already recorded (a retried create).

    :raises Problem: 429 when the account already has its cap of open tables.
    """
    try:
        return await record_table(
            pool, account_id, table_id, limits.open_tables, limits.open_table_idle
        )
    except OpenTablesCapError as e:
        raise too_many(
            f"this account has {e.count} open tables, the most allowed"
            f" ({limits.open_tables}); play, finish or leave one first",
            CAP_RETRY,
        ) from None


async def release_table(pool: asyncpg.Pool, table_id: str) -> None:
    """Forget a reservation whose table was not created after all (the command was refused)."""
    await forget_table(pool, table_id)
