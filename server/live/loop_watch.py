"""How the event loop keeps time: a heartbeat's lateness and the garbage collector's pauses,
both in ``/metrics`` (docs/scaling.md).

A heartbeat task sleeps :data:`BEAT` seconds at a time and records how much later than asked it
woke: anything that holds the loop (a long callback, a full garbage collection) shows as
lateness. ``gc.callbacks`` times every collection by generation. After start-up the objects the
server made to start (modules, routes, the OpenAPI document...) are moved out of the
collector's sight with ``gc.freeze()``: a full collection then walks only what serving made.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import AsyncIterator
from typing import Any

from aiohttp import web

from server.keys import METRICS
from server.live.background import running
from server.metrics import Gauge, Histogram, Metrics

__all__ = ["BEAT", "LoopWatch", "watch_loop"]

BEAT = 0.05
"""Seconds the heartbeat sleeps between wake-ups."""

LAG_BUCKETS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class LoopWatch:
    """The heartbeat and the collector's timings of one app."""

    def __init__(self, metrics: Metrics) -> None:
        self.lag = Histogram(
            "chouette_loop_lag_seconds",
            f"How late the event loop's heartbeat woke (asked every {BEAT} s): time the loop was"
            " held by something else.",
            LAG_BUCKETS,
        )
        self.lag_max = Gauge(
            "chouette_loop_lag_max_seconds",
            "The largest heartbeat lateness since the previous scrape of /metrics.",
        )
        self.gc = Histogram(
            "chouette_gc_seconds",
            "Garbage collections by generation, and how long each held the process.",
            LAG_BUCKETS,
        )
        self.frozen = Gauge(
            "chouette_gc_frozen_objects",
            "Objects in the collector's permanent generation (gc.freeze) after start-up's freeze"
            " or the last thaw's (counting them walks them all: not at the frequent freezes).",
        )
        metrics.all += [self.lag, self.lag_max, self.gc, self.frozen]
        self._max = 0.0
        self._gc_started = 0.0

    def scraped(self) -> None:
        """Publish the largest lateness since the last scrape, and start a new window."""
        self.lag_max.set(self._max)
        self._max = 0.0

    def beat(self, late: float) -> None:
        self.lag.observe(late)
        self._max = max(self._max, late)

    def on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.gc.observe(
                time.perf_counter() - self._gc_started, generation=str(info["generation"])
            )

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            asked = loop.time()
            await asyncio.sleep(BEAT)
            self.beat(max(0.0, loop.time() - asked - BEAT))

    def freeze(self, generation: int = 2) -> None:
        """Collect the generations up to ``generation``, then move everything still alive out
        of the collector's sight: start-up's objects, and (every ``freeze_every`` seconds, see
        :meth:`keep_frozen`) the tables and sockets that have lived that long."""
        gc.collect(generation)
        gc.freeze()
        if generation == 2:
            # A count walks the whole permanent generation (millions of objects at thousands
            # of sockets: 100-200 ms), so only with a full collection, which walks them anyway.
            self.frozen.set(gc.get_freeze_count())

    async def keep_frozen(self, every: float, thaw_every: float) -> None:
        """Freeze what has lived ``every`` seconds, so that a full collection only walks what
        is younger: its pause then follows the last seconds' objects, not the heap (thousands
        of sockets and tables are millions of objects, a second's walk).

        The price: cyclic garbage among frozen objects (a socket's objects, once it closes) is
        not collected while frozen (nor what was cyclic garbage in the oldest generation when it
        was frozen). Every ``thaw_every`` seconds everything is unfrozen and a full collection
        walks (and frees) it all: one long pause that often.

        Meanwhile the collector makes no full collection of its own: what is not frozen yet
        in the oldest generation is mostly the waits of every socket that received something
        since the last freeze (a coroutine, its future and their frames each), which a full
        collection walked for 50-250 ms at 6,000 sockets, several times a minute, to find a
        few hundred objects of cyclic garbage. The young generations are collected (a few
        milliseconds each), and what survives them is frozen here: the youngest as usual, the
        middle one every :data:`MIDDLE_THRESHOLD` collections of the youngest rather than 10."""
        previous = gc.get_threshold()
        gc.set_threshold(previous[0], MIDDLE_THRESHOLD, 1 << 30)
        try:
            await self._keep_frozen(every, thaw_every)
        finally:
            gc.set_threshold(*previous)

    async def _keep_frozen(self, every: float, thaw_every: float) -> None:
        thawed = time.monotonic()
        while True:
            await asyncio.sleep(every)
            if thaw_every and time.monotonic() - thawed >= thaw_every:
                gc.unfreeze()
                thawed = time.monotonic()
                self.freeze()
            else:
                # The young generations only (a full collection here would walk everything
                # made since the last freeze: a burst of connections is a long pause).
                self.freeze(1)


MIDDLE_THRESHOLD = 3
"""While :meth:`LoopWatch.keep_frozen` runs, the middle generation is collected every this many
collections of the youngest (CPython's default: 10). It holds what survived the young
collections since its last one — mostly the sockets' current waits and the tables' new states —
so at 2,000 human-pace tables a collection of it every 10 took 9 ms on average, 37 of 95 over
10 ms in 30 s, and were the loop's longest stalls (18-22 ms); every 3, 4 ms on average, 6-8 over
10 ms, stalls at most 11-12 ms, the same collector time in all (docs/scaling.md). What survives
it reaches the oldest generation sooner, where it is frozen: cyclic garbage among it waits for
the hourly thaw."""

LOOP_WATCH = web.AppKey("loop_watch", LoopWatch)


async def watch_loop(app: web.Application) -> AsyncIterator[None]:
    """A cleanup context: the heartbeat and the collector's callback, while the app runs."""
    watch = app[LOOP_WATCH] = LoopWatch(app[METRICS])
    gc.callbacks.append(watch.on_gc)
    try:
        async with running(watch.run()):
            yield
    finally:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(watch.on_gc)
