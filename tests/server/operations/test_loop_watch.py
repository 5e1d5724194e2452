"""The event loop's heartbeat and the collector's pauses in /metrics; the bounded legal plays
cache; a ``serve`` process freezes what start-up made."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import Callable

import aiohttp
import pytest
from aiohttp.test_utils import TestClient

from engine import moves
from engine.position import Position
from server.config import Config
from tests.server.conftest import ServeProcess, samples


async def test_metrics_show_the_heartbeat_lateness_and_the_collections(client: TestClient) -> None:
    await asyncio.sleep(0.3)
    gc.collect()
    # Hold the loop for 300 ms: the heartbeat (asleep for 50 ms at most) wakes 250 ms late at
    # least.
    time.sleep(0.3)
    await asyncio.sleep(0.1)
    text = await (await client.get("/metrics")).text()
    beats = samples(text, "chouette_loop_lag_seconds_count")[""]
    assert beats >= 3
    assert samples(text, "chouette_loop_lag_max_seconds")[""] >= 0.25
    late = samples(text, "chouette_loop_lag_seconds_bucket")
    assert late['{le="0.1"}'] < late['{le="+Inf"}']  # the 300 ms one
    assert samples(text, "chouette_gc_seconds_count")['{generation="2"}'] >= 1
    # The largest lateness is per scrape: the next window starts afresh.
    await asyncio.sleep(0.2)
    text = await (await client.get("/metrics")).text()
    assert samples(text, "chouette_loop_lag_max_seconds")[""] < 0.25


def test_the_legal_plays_cache_is_bounded_by_its_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHOUETTE_PLAYS_CACHE", "10")
    assert Config.from_env().plays_cache == 10
    try:
        moves.set_plays_cache(10)
        start = Position.start()
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                assert moves.legal_plays(start, (d1, d2)).plays
        info = moves._cached.cache_info()
        assert info.maxsize == 10 and info.currsize == 10
        with pytest.raises(ValueError):
            moves.set_plays_cache(-1)
    finally:
        moves.set_plays_cache(moves.PLAYS_CACHE)


async def test_a_serve_process_freezes_what_start_up_made(
    db_url: str, serve_processes: Callable[[str], ServeProcess]
) -> None:
    server = serve_processes(db_url)
    await server.start()
    async with aiohttp.ClientSession() as session, session.get(f"{server.url}/metrics") as r:
        text = await r.text()
    assert samples(text, "chouette_gc_frozen_objects")[""] > 10_000


def test_the_legal_plays_cache_holds_nothing_the_collector_tracks() -> None:
    # Kept as Plays (NamedTuples, which CPython never untracks), a full cache was some 80,000
    # objects for every full collection to walk; plain tuples leave the collector's sight
    # within the few collections an entry lives through (one per level of nesting).
    moves.set_plays_cache(16)
    try:
        start = Position.start()
        plays = moves.legal_plays(start, (6, 6)).plays
        kept = moves._cached(start.me, start.opp, 6, 6)
        assert gc.is_tracked(kept)
        for _ in range(3):
            gc.collect()
        plays_made = moves.legal_plays(start, (6, 6)).plays
        gc.collect()
        # Plays, made per use, stay tracked: they are what the cache no longer holds.
        assert all(gc.is_tracked(p) for p in plays_made)
        assert not gc.is_tracked(kept)
        assert not any(gc.is_tracked(row) for row in kept)
        # And the plays made from them are the generator's, equal and in the same order.
        assert moves.legal_plays(start, (6, 6)).plays == plays
        assert plays == moves._generate(start.me, start.opp, 6, 6)
    finally:
        moves.set_plays_cache(moves.PLAYS_CACHE)


async def test_while_freezing_the_collector_makes_no_full_collection_of_its_own(
    client: TestClient,
) -> None:
    from server.live.loop_watch import LOOP_WATCH, MIDDLE_THRESHOLD

    watch = client.app[LOOP_WATCH]
    before = gc.get_threshold()
    task = asyncio.create_task(watch.keep_frozen(0.05, 0))
    try:
        await asyncio.sleep(0.01)
        young0, young1, oldest = gc.get_threshold()
        # The youngest generation as it was; the middle one collected more often, in smaller
        # pauses; the oldest never by the collector itself.
        assert (young0, young1) == (before[0], MIDDLE_THRESHOLD) != before[:2]
        assert oldest >= 1 << 30
        full: list[int] = []

        def count(phase: str, info: dict[str, int]) -> None:
            if phase == "stop" and info["generation"] == 2:
                full.append(1)

        gc.callbacks.append(count)
        try:
            # Far more than the default threshold's worth of young collections, survivors
            # kept alive (the freezes every 50 ms collect only the young generations).
            keep = [[i] for i in range(200_000)]
            await asyncio.sleep(0.2)
        finally:
            gc.callbacks.remove(count)
        assert keep and not full
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert gc.get_threshold() == before
