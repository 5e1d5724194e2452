"""Event store benchmark: prints one JSON object.

    python bench/store.py [--quick]

Against ``DATABASE_URL`` when set, else the embedded server (``./.pgdata``). Works in a scratch
database of its own (``chouette_bench_<pid>``), dropped at the end. The commit measurements
alternate over several rounds of equal length (5 of 3 s; ``--quick``: 3 of 1 s) and report their
medians, so that outside load on a shared machine falls on all of them alike. Measures:

- ``raw_commits_per_s``: one-row INSERT into a plain table, each its own transaction (autocommit),
  at concurrency 1, 8 and 32: what the server and driver can commit at all.
- ``append_per_s``: ``EventStore.append`` of 1-3 events (random) to many streams with exact
  expected versions, at the same concurrencies: checked, hash-chained, commit-ordered appends,
  group-committed per partition.
- ``append_unbatched_per_s``: the same appends made one call and one transaction each
  (``append(..., connection=...)``), for comparison: every append waits for the previous one's
  commit to take the partition counter.
- ``eventsourcing_per_s``: the ``eventsourcing`` library's ``PostgresApplicationRecorder``, same
  server and workload, 32 threads.
- ``catchup_events_per_s``: ``read_log`` from position 0 to the head; ``catchup_subscription_
  events_per_s``: the same through a subscription.
- ``fold_events_per_s``: the domain fold: real tables (money games and chouettes played by the
  decider with seeded dice), each stored event decoded and folded through
  ``events.domain.decider.evolve``
  with the engine's legal-play cache empty, as when a server loads a table it has not seen.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import asyncpg
import msgspec

# The repository first: bench/engine.py would otherwise shadow the engine package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.kit.scratch import scratch_database
from engine import moves
from events.domain import types as e
from events.domain.decider import evolve
from events.domain.table import TableState
from events.records.simulate import simulate_chouette, simulate_table
from events.store.embedded import database_url
from events.store.event_store import EventStore, NewEvent
from events.store.migrations import migrate
from events.store.subscription import LiveFeed

CONCURRENCIES = (1, 8, 32)


class Payload(msgspec.Struct, frozen=True):
    """A generic event payload of about a hundred bytes."""

    n: int
    player: str
    play: str
    dice: tuple[int, int]


def payload(n: int) -> bytes:
    return msgspec.json.encode(Payload(n, "player-7", "24/18 13/11", (6, 2)))


async def timed(
    workers: int, seconds: float, work: Callable[[int, Callable[[], bool]], Awaitable[int]]
) -> float:
    """Run ``workers`` coroutines until ``seconds`` pass; operations per second."""
    deadline = time.perf_counter() + seconds

    def running() -> bool:
        return time.perf_counter() < deadline

    start = time.perf_counter()
    counts = await asyncio.gather(*(work(k, running) for k in range(workers)))
    return sum(counts) / (time.perf_counter() - start)


async def raw_commits(url: str, concurrency: int, seconds: float) -> float:
    pool = await asyncpg.create_pool(url, min_size=concurrency, max_size=concurrency)
    try:
        await pool.execute(
            "CREATE TABLE IF NOT EXISTS bench_raw (id bigserial PRIMARY KEY, data bytea NOT NULL)"
        )
        data = payload(1)

        async def work(k: int, running: Callable[[], bool]) -> int:
            n = 0
            async with pool.acquire() as conn:
                while running():
                    await conn.execute("INSERT INTO bench_raw (data) VALUES ($1)", data)
                    n += 1
            return n

        return await timed(concurrency, seconds, work)
    finally:
        await pool.close()


async def appends(
    url: str, concurrency: int, seconds: float, prefix: str, *, batched: bool
) -> float:
    size = max(4, concurrency + 2) if not batched else 4
    store = await EventStore.connect(url, min_size=size, max_size=size)
    rng = random.Random(concurrency)
    try:

        async def work(k: int, running: Callable[[], bool]) -> int:
            # Each worker owns 50 streams and knows their versions: no conflicts, as when each
            # table's commands run one at a time.
            versions = {f"{prefix}-{k}-{i}": 0 for i in range(50)}
            streams = list(versions)
            n = 0
            conn = await store.pool.acquire() if not batched else None
            try:
                while running():
                    stream = streams[n % len(streams)]
                    events = [
                        NewEvent(type="checkers_moved", data=payload(n))
                        for _ in range(rng.randint(1, 3))
                    ]
                    result = await store.append(
                        stream,
                        events,
                        expected_version=versions[stream],
                        command_id=uuid.uuid4(),
                        connection=conn,
                    )
                    versions[stream] = result.last_version
                    n += 1
            finally:
                if conn is not None:
                    await store.pool.release(conn)
            return n

        return await timed(concurrency, seconds, work)
    finally:
        await store.close()


def eventsourcing_inserts(url: str, threads: int, seconds: float) -> float:
    from eventsourcing.persistence import StoredEvent
    from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore

    parts = urlsplit(url)
    query = parse_qs(parts.query)
    host = query.get("host", [parts.hostname or "127.0.0.1"])[0]
    datastore = PostgresDatastore(
        dbname=parts.path.lstrip("/"),
        host=host,
        port=parts.port or 5432,
        user=unquote(parts.username or "postgres"),
        password=unquote(parts.password or ""),
        pool_size=threads,
    )
    recorder = PostgresApplicationRecorder(datastore, events_table_name="es_stored_events")
    recorder.create_table()
    counts = [0] * threads
    deadline = time.perf_counter() + seconds

    def work(k: int) -> None:
        rng = random.Random(k)
        versions = {uuid.uuid4(): 0 for _ in range(50)}
        ids = list(versions)
        n = 0
        while time.perf_counter() < deadline:
            aggregate = ids[n % len(ids)]
            first = versions[aggregate] + 1
            count = rng.randint(1, 3)
            recorder.insert_events(
                [
                    StoredEvent(aggregate, first + i, "bench:CheckersMoved", payload(n))
                    for i in range(count)
                ]
            )
            versions[aggregate] = first + count - 1
            n += 1
        counts[k] = n

    try:
        start = time.perf_counter()
        pool = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join()
        return sum(counts) / (time.perf_counter() - start)
    finally:
        datastore.close()


async def fill(url: str, events: int) -> None:
    """Bulk-append so that partition 0 holds at least ``events`` events."""
    store = await EventStore.connect(url, min_size=2, max_size=4)
    try:
        head = (await store.partition_heads()).get(0, 0)
        missing = max(0, events - head)
        per_append = 100
        appends_needed = -(-missing // per_append)

        async def work(k: int) -> None:
            for i in range(k, appends_needed, 16):
                await store.append(
                    f"fill-{i}",
                    [NewEvent(type="checkers_moved", data=payload(j)) for j in range(per_append)],
                    expected_version=0,
                    command_id=uuid.uuid4(),
                )

        await asyncio.gather(*(work(k) for k in range(16)))
    finally:
        await store.close()


def domain_fold_rate(seconds: float = 1.0) -> float:
    """Events per second folded into table states from their stored bytes (decode + evolve)."""
    rng = random.Random(20261129)
    tables = [simulate_table(f"fold-{i}", games=6, rng=random.Random(i)) for i in range(6)]
    tables += [simulate_chouette(f"fold-c{i}", games=4, rng=random.Random(i)) for i in range(3)]
    stored = [[(e.tag(ev), ev.schema_version, e.encode(ev)) for ev in t.events] for t in tables]
    rng.shuffle(stored)
    folded = 0
    elapsed = 0.0
    while elapsed < seconds:
        moves._cached.cache_clear()
        start = time.perf_counter()
        for table in stored:
            state = TableState()
            for tag, version, data in table:
                state = evolve(state, e.decode(tag, version, data))
            folded += len(table)
        elapsed += time.perf_counter() - start
    return folded / elapsed


async def catch_up(url: str) -> tuple[float, float, float, int]:
    store = await EventStore.connect(url, min_size=2, max_size=4)
    try:
        head = (await store.partition_heads())[0]
        start = time.perf_counter()
        position, events = 0, []
        while position < head:
            batch = await store.read_log(0, position, 5000)
            events.extend(batch)
            position = batch[-1].position
        read_rate = len(events) / (time.perf_counter() - start)

        async with LiveFeed(store, listen=False) as notifier:
            sub = notifier.subscribe(0, batch_size=5000)
            start = time.perf_counter()
            seen = 0
            async for batch in sub.batches():
                seen += len(batch)
                if batch[-1].position >= head:
                    break
            sub_rate = seen / (time.perf_counter() - start)
            await sub.close()

        fold_rate = domain_fold_rate()
        return read_rate, sub_rate, fold_rate, len(events)
    finally:
        await store.close()


async def main(quick: bool) -> dict[str, Any]:
    rounds, seconds = (3, 1.0) if quick else (5, 3.0)
    server = await database_url()
    async with scratch_database(server, "chouette_bench") as url:
        conn = await asyncpg.connect(url)
        try:
            await migrate(conn)
            version = await conn.fetchval("SHOW server_version")
        finally:
            await conn.close()
        # The machine may be shared: measurements alternate, round after round, and each
        # reports its median, so that a burst of outside load hits all of them alike.
        raw: dict[int, list[float]] = {c: [] for c in CONCURRENCIES}
        batched: dict[int, list[float]] = {c: [] for c in CONCURRENCIES}
        unbatched: dict[int, list[float]] = {c: [] for c in CONCURRENCIES}
        es: list[float] = []
        for r in range(rounds):
            for c in CONCURRENCIES:
                raw[c].append(await raw_commits(url, c, seconds))
                batched[c].append(await appends(url, c, seconds, f"b{r}-{c}", batched=True))
                unbatched[c].append(await appends(url, c, seconds, f"u{r}-{c}", batched=False))
            es.append(await asyncio.to_thread(eventsourcing_inserts, url, 32, seconds))
        await fill(url, 100_000 if quick else 300_000)
        read_rate, sub_rate, fold_rate, events = await catch_up(url)

    def rounded(rates: dict[int, list[float]]) -> dict[str, int]:
        return {str(c): round(statistics.median(r)) for c, r in rates.items()}

    append_c32 = statistics.median(batched[32])
    return {
        "benchmark": "store",
        "quick": quick,
        "rounds": rounds,
        "seconds_per_measurement": seconds,
        "server": "DATABASE_URL" if os.environ.get("DATABASE_URL") else "embedded",
        "server_version": version,
        "cpus": os.cpu_count(),
        "load_avg_1m_at_end": round(os.getloadavg()[0], 2),
        "raw_commits_per_s": rounded(raw),
        "append_per_s": rounded(batched),
        "append_unbatched_per_s": rounded(unbatched),
        "ratio_c32": round(append_c32 / statistics.median(raw[32]), 2),
        "eventsourcing_per_s": round(statistics.median(es)),
        "ratio_vs_eventsourcing": round(append_c32 / statistics.median(es), 2),
        "catchup_events_per_s": round(read_rate),
        "catchup_subscription_events_per_s": round(sub_rate),
        "catchup_events": events,
        "fold_events_per_s": round(fold_rate),
        "append_note": (
            "append: 1-3 events per call to 50 streams per worker with exact expected "
            "versions, one partition; concurrent appends are group-committed (one round trip "
            "and one transaction for all appends queued meanwhile, each checked on its own). "
            "append_unbatched: one call and one transaction per append."
        ),
        "eventsourcing_note": (
            "eventsourcing PostgresApplicationRecorder.insert_events, 1-3 events per call, "
            "32 threads sharing a 32-connection pool, same server"
        ),
        "fold_note": (
            "domain fold: stored bytes of real money and chouette tables decoded and folded "
            "through events.domain.decider.evolve, engine cache emptied before each pass"
        ),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds of 1 s (under a minute)")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.quick))))
