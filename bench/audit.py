"""Audit and replay benchmark: prints one JSON object.

    python bench/audit.py [--quick]

Against ``DATABASE_URL`` when set, else the embedded server (``./.pgdata``), in a scratch
database of its own (``chouette_bench_audit_<pid>``), dropped at the end.

Tables of many games are played through the decider with fair dice whose seeds are known
(:func:`events.records.simulate.simulate_table`, seeded), and appended as the table service appends
them
(one append per command, tables concurrently). Then:

- ``audit_events_per_s``: :func:`events.records.audit_scan.audit_tables` over every table, from the
  database: read each stream, verify its hash chain, decode, re-decide every command, re-derive
  every throw. The engine's cache of legal plays is emptied first (generating the tables filled
  it with every position the audit will meet, which no real audit finds).
  One process, one thread (the database server is another process). The audit's own share of
  the time is ``audit_cpu_events_per_s`` (process CPU time) and, without the database at all,
  ``audit_pure_events_per_s`` (:func:`events.records.audit.audit_records` on events already in
  memory).
- ``replay_at_p50_ms``/``replay_at_p99_ms``: :meth:`events.records.replay.Replayer.at` at random
  versions of random tables, from a cold replayer (snapshots are made as the requests come);
  ``replay_at_warm_p99_ms`` the same requests again, every snapshot made.
- ``append_events_per_s``: how fast the tables went in (for context).

The target is ``audit_events_per_s`` >= 20,000 on one core.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.kit.scratch import scratch_database
from engine import moves
from events.records.audit import audit_records
from events.records.audit_scan import audit_tables
from events.records.replay import Replayer
from events.records.simulate import SimulatedTable, simulate_table
from events.store.embedded import database_url
from events.store.event_store import EventStore
from events.store.migrations import migrate
from events.store.streams import append_steps, table_stream

TARGET = 20_000


def generate(tables: int, games: int, seed: int) -> list[SimulatedTable]:
    rng = random.Random(seed)
    out = []
    for i in range(tables):
        table_id = str(uuid.UUID(int=rng.getrandbits(128)))
        out.append(simulate_table(table_id, games=games, rng=random.Random(rng.getrandbits(64))))
        _ = i
    return out


def _cold_engine() -> None:
    """Empty the engine's cache of legal plays (filled by generating the tables)."""
    cached = getattr(moves, "_cached", None)
    if cached is not None and hasattr(cached, "cache_clear"):
        cached.cache_clear()


async def load(store: EventStore, tables: list[SimulatedTable]) -> float:
    """Append every table, 16 at a time; seconds taken."""
    gate = asyncio.Semaphore(16)

    async def one(t: SimulatedTable) -> None:
        async with gate:
            await append_steps(store, t.table_id, [s.events for s in t.steps])

    started = time.perf_counter()
    await asyncio.gather(*(one(t) for t in tables))
    return time.perf_counter() - started


async def main(quick: bool) -> dict[str, Any]:
    n_tables, n_games, n_replays = (8, 12, 300) if quick else (40, 25, 2000)
    made = time.perf_counter()
    tables = generate(n_tables, n_games, seed=20261129)
    generate_seconds = time.perf_counter() - made
    events = sum(len(t.events) for t in tables)

    server = await database_url()
    async with scratch_database(server, "chouette_bench_audit") as url:
        store = await EventStore.connect(url, min_size=2, max_size=20)
        try:
            await migrate(store.pool)
            append_seconds = await load(store, tables)
            ids = [t.table_id for t in tables]

            # Audit from the database, after one table has warmed the server's caches and the
            # statement cache. Every run starts with the engine's legal-play cache empty, as an
            # audit of positions it has never seen does (the tables were just generated here).
            await audit_tables(store, ids[:1])
            _cold_engine()
            wall = time.perf_counter()
            cpu = time.process_time()
            reports = await audit_tables(store, ids)
            cpu = time.process_time() - cpu
            wall = time.perf_counter() - wall
            failed = [r.table_id for r in reports if r.status == "failed"]
            audited = sum(r.events for r in reports)

            # The same work without the database.
            records = {t: await store.read_stream(table_stream(t)) for t in ids}
            _cold_engine()
            pure = time.perf_counter()
            for t, recs in records.items():
                audit_records(table_stream(t), recs)
            pure = time.perf_counter() - pure

            # Replays at random versions: cold (snapshots made as the requests come), then the
            # same requests again (every snapshot there).
            replayer = Replayer(store)
            rng = random.Random(7)
            lengths = {t.table_id: len(t.events) for t in tables}
            requests = []
            for _ in range(n_replays):
                table_id = rng.choice(ids)
                requests.append((table_id, rng.randint(1, lengths[table_id])))
            samples, warm = [], []
            _cold_engine()
            for out in (samples, warm):
                for table_id, at in requests:
                    started = time.perf_counter()
                    await replayer.at(table_id, at)
                    out.append((time.perf_counter() - started) * 1000)
        finally:
            await store.close()

    samples.sort()
    warm.sort()
    return {
        "bench": "audit",
        "quick": quick,
        "tables": n_tables,
        "games": sum(t.state.game_no for t in tables),
        "events": audited,
        "audit_seconds": round(wall, 3),
        "audit_events_per_s": round(audited / wall),
        "audit_cpu_events_per_s": round(audited / cpu),
        "audit_pure_events_per_s": round(audited / pure),
        "audit_failed_tables": failed,
        "target_audit_events_per_s": TARGET,
        "replays": n_replays,
        "replay_at_p50_ms": round(statistics.median(samples), 3),
        "replay_at_p99_ms": round(samples[int(len(samples) * 0.99) - 1], 3),
        "replay_at_max_ms": round(samples[-1], 3),
        "replay_at_warm_p99_ms": round(warm[int(len(warm) * 0.99) - 1], 3),
        "generated_events": events,
        "generate_seconds": round(generate_seconds, 2),
        "append_events_per_s": round(events / append_seconds),
    }


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a small run (well under a minute)")
    result = asyncio.run(main(ap.parse_args().quick))
    print(json.dumps(result))
