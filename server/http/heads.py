"""The signed chain heads (``GET /log/heads``) and the key they are signed with
(``GET /.well-known/chouette-signing-key``); docs/heads.md.

Anyone may fetch the partitions' heads and running hashes: they reveal how many events each
partition holds and nothing of what they say. The per-stream heads list every table id ever
recorded, so they are for the auditor (``?streams=true`` with the auditor token, as ``GET
/log``); a table's own head is in its view and on its stream for whoever may see the table.

The process keeps each partition's running hash (:class:`events.store.heads.RunningHashes`) and
extends it by the events appended since the last document; the first one of a fresh process is
computed from the start of the log by a task at start-up, off the requests' path.

A log with a hole has no heads to sign: the answer is a ``500`` problem naming the hole
(``corrupt-log``), whether the live feed knows of it
(:attr:`events.store.subscription.LiveFeed.holes`)
or the running hash meets it (:class:`events.store.errors.LogHoleError`).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from events.store.event_store import EventStore
from events.store.heads import HeadsSigner, RunningHashes, make_heads
from server.access import ratelimit
from server.http.common import bearer, json_response
from server.http.problems import bad_request, corrupt_log, forbidden, unauthorized
from server.keys import CONFIG, LIVE_FEED
from server.live.background import running

__all__ = ["HEADS", "Heads", "log_heads", "signing_key", "warm_heads"]

log = logging.getLogger("chouette.server")


class Heads:
    """Makes this process's signed heads documents, one at a time."""

    def __init__(self, store: EventStore, signer: HeadsSigner) -> None:
        self.store = store
        self.signer = signer
        self.running = RunningHashes()
        self._lock = asyncio.Lock()

    async def document(self, *, streams: bool) -> dict[str, Any]:
        """A signed heads document of the log now."""
        # One at a time: a second caller extends from where the first left off.
        async with self._lock:
            unsigned = await make_heads(self.store, self.running, streams=streams)
        return self.signer.sign(unsigned)


HEADS = web.AppKey("heads", Heads)


async def warm_heads(app: web.Application) -> AsyncIterator[None]:
    """Compute the running hashes once at start-up, in the background (cleanup context, after
    the database's)."""

    async def warm() -> None:
        try:
            await app[HEADS].document(streams=False)
        except Exception as exc:  # the first request computes them instead
            log.warning("chain heads not computed at start-up: %r", exc)

    async with running(warm(), name="warm-heads"):
        yield


def _wants_streams(request: web.Request) -> bool:
    raw = request.query.get("streams")
    if raw is None or raw in ("false", "0"):
        return False
    if raw in ("true", "1"):
        return True
    raise bad_request(f"streams must be true or false, not {raw[:40]!r}", field="streams")


async def log_heads(request: web.Request) -> web.Response:
    """``GET /log/heads``: the signed heads document; ``?streams=true`` (the auditor) adds
    every stream's head."""
    streams = _wants_streams(request)
    if streams:
        token = bearer(request)
        if token is None:
            raise unauthorized()
        expected = request.app[CONFIG].auditor_token
        # In constant time, as for GET /log.
        if not expected or not hmac.compare_digest(token.encode(), expected.encode()):
            raise forbidden("the per-stream heads are for auditors")
    limits = request.app[ratelimit.LIMITS]
    limits.hit("heads", limits.address(request))
    if holes := request.app[LIVE_FEED].holes:
        # The running hashes may reach past a hole made since they were computed: signing
        # them would vouch for events the log no longer holds.
        raise corrupt_log("; ".join(hole.describe() for hole in holes))
    return json_response(await request.app[HEADS].document(streams=streams))


async def signing_key(request: web.Request) -> web.Response:
    """``GET /.well-known/chouette-signing-key``: the public key that verifies the heads."""
    return json_response(request.app[HEADS].signer.published())
