"""The event loop's heartbeat and the collector's pauses in /metrics; the bounded legal plays
cache; a ``serve`` process freezes what start-up made."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable

import aiohttp
import pytest
from aiohttp.test_utils import TestClient
from conftest import ServeProcess, samples

from engine import moves
from engine.position import Position
from server.config import Config


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
