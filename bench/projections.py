"""Read-model benchmark: prints one JSON object.

    python bench/projections.py [--quick] [--events N]

Against ``DATABASE_URL`` when set, else the embedded server, in a scratch database of its own
(``chouette_bench_proj_<pid>``), dropped at the end. Measures, in one run:

- ``rebuild_events_per_s``: each read model (``lobby``, ``ratings``, ``profiles``) rebuilt from
  a log of ``--events`` events (1,000,000; ``--quick`` 100,000) by ``server.readmodels.rebuild``,
  as ``chouette project rebuild NAME`` does it: copies of its tables filled from position 0 in
  batches of 5,000, then swapped in. Target: at least 50,000 events/s. Beside it, the references
  of the same run: ``read_log_events_per_s`` (reading the log alone: the ceiling) and
  ``null_projector_events_per_s`` (a read model that reads every event and writes nothing: the
  cost of the projector machinery, checkpoints included).
- ``live_lag_ms``: the lag of the live projectors (the three above, each following the log on a
  live feed as the server's do) from an append's commit to its events being visible in the read
  model (its projector's transaction committed), p50/p99/max, under a load of our own, run in
  a process of its own as clients are: ``--tables`` tables (64) replaying recorded games one
  command at a time, every ``--interval`` seconds (0.05) each, for ``--seconds`` (20;
  ``--quick`` 5). Target: p99 at most 100 ms. (bench/server.py drives a full server; this load
  isolates the projectors' share.)

The log is made fast: a few dozen tables are played once through the decider
(``events.records.simulate``: money sessions, rated matches, chouettes) between placeholder players,
their stored bytes copied with players drawn from 300 registered accounts and appended one table
per call, sixteen calls at a time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import asyncpg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.kit.scratch import scratch_database  # noqa: E402
from events.domain import types as e  # noqa: E402
from events.records.simulate import simulate_chouette, simulate_table  # noqa: E402
from events.store.embedded import database_url  # noqa: E402
from events.store.event_store import EventStore, NewEvent, RecordedEvent  # noqa: E402
from events.store.migrations import migrate  # noqa: E402
from events.store.subscription import LiveFeed  # noqa: E402
from server.config import Config  # noqa: E402
from server.readmodels.lobby import LobbyProjector  # noqa: E402
from server.readmodels.profiles import ProfilesProjector  # noqa: E402
from server.readmodels.ratings import RatingsProjector  # noqa: E402
from server.readmodels.rebuild import ReadModel, rebuild  # noqa: E402

MODELS: dict[str, Callable[..., ReadModel]] = {
    "lobby": LobbyProjector,
    "ratings": RatingsProjector,
    "profiles": ProfilesProjector,
}
PLAYERS = 300
# Placeholder account ids, all of one length, replaced in the stored bytes.
SLOTS = [f"u_SLOT{i}_{'x' * 26}" for i in range(4)]
WIDTH = len(SLOTS[0])


class NullProjector(ReadModel):
    """Reads every event of the log (the type filter lets all through) and writes nothing."""

    model = "null"
    tables = ()
    types = frozenset(e.EVENT_TYPES)

    async def apply_event(self, conn: asyncpg.Connection, rec: RecordedEvent) -> None:
        return None


Template = list[list[tuple[str, int, bytes]]]
"""A table's commands, each its events as (type, schema version, bytes with placeholders)."""


def templates(seed: int) -> list[Template]:
    rng = random.Random(seed)
    out: list[Template] = []
    for i in range(36):
        table_id = "00000000-0000-4000-8000-" + f"{i:012d}"
        r = random.Random(rng.getrandbits(64))
        if i % 3 == 0:
            sim = simulate_chouette(table_id, players=tuple(SLOTS), games=3, rng=r)
        elif i % 3 == 1:
            sim = simulate_table(table_id, games=3, rng=r, players=(SLOTS[0], SLOTS[1]))
        else:
            options = e.TableOptions(match_length=5, rated=True)
            sim = simulate_table(
                table_id,
                kind="match",
                options=options,
                games=40,
                rng=r,
                players=(SLOTS[0], SLOTS[1]),
            )
        out.append(
            [
                [(e.tag(ev), ev.schema_version, e.encode(ev)) for ev in step.events]
                for step in sim.steps
                if step.events
            ]
        )
    return out


def instance(template: Template, rng: random.Random) -> list[list[NewEvent]]:
    """A copy of a template table with its players drawn from the registered accounts."""
    chosen = rng.sample(range(PLAYERS), len(SLOTS))
    swaps = [
        (s.encode(), f"u_{n:0{WIDTH - 2}d}".encode()) for s, n in zip(SLOTS, chosen, strict=True)
    ]
    steps = []
    for step in template:
        events = []
        for type_, version, data in step:
            for old, new in swaps:
                data = data.replace(old, new)
            events.append(NewEvent(type=type_, data=data, schema_version=version))
        steps.append(events)
    return steps


async def fill(store: EventStore, target: int, seed: int) -> int:
    """Append whole tables (one call each, sixteen at a time) until ``target`` events."""
    rng = random.Random(seed)
    pool = templates(seed)
    made = 0
    queue: asyncio.Queue[list[NewEvent] | None] = asyncio.Queue(maxsize=64)

    async def worker() -> None:
        while (events := await queue.get()) is not None:
            await store.append(
                f"table-{uuid.uuid4()}", events, expected_version=0, command_id=uuid.uuid4()
            )

    workers = [asyncio.create_task(worker()) for _ in range(16)]
    while made < target:
        events = [ev for step in instance(rng.choice(pool), rng) for ev in step]
        made += len(events)
        await queue.put(events)
    for _ in workers:
        await queue.put(None)
    await asyncio.gather(*workers)
    return made


async def read_log_rate(store: EventStore) -> float:
    start, n, position = time.perf_counter(), 0, 0
    while batch := await store.read_log(0, position, 5000):
        n += len(batch)
        position = batch[-1].position
    return n / (time.perf_counter() - start)


async def rebuild_rate(store: EventStore, factory: Callable[..., ReadModel]) -> float:
    start = time.perf_counter()
    read = await rebuild(store, factory, batch_size=5000)
    return read / (time.perf_counter() - start)


async def null_rate(store: EventStore) -> float:
    projector = NullProjector()
    await projector.prepare(store)
    start = time.perf_counter()
    position = await projector.catch_up(store, batch_size=5000)
    return position / (time.perf_counter() - start)


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def load(url: str, tables: int, interval: float, seconds: float, seed: int) -> None:
    """The load (run in a process of its own, as clients are): ``tables`` tables appending
    command after command; prints each event's position and the wall-clock time its append
    returned, committed, as one JSON object."""
    store = await EventStore.connect(url, min_size=4, max_size=8)
    committed: dict[int, float] = {}
    rng = random.Random(seed)
    pool = templates(seed + 1)
    deadline = time.time() + seconds
    commands = 0

    async def table() -> None:
        nonlocal commands
        r = random.Random(rng.getrandbits(64))
        await asyncio.sleep(r.random() * interval)
        while time.time() < deadline:
            stream, version = f"table-{uuid.uuid4()}", 0
            for events in instance(r.choice(pool), r):
                if time.time() >= deadline:
                    return
                result = await store.append(
                    stream, events, expected_version=version, command_id=uuid.uuid4()
                )
                now = time.time()
                version = result.last_version
                for p in range(result.first_position, result.last_position + 1):
                    committed[p] = now
                commands += 1
                await asyncio.sleep(interval)

    try:
        await asyncio.gather(*(table() for _ in range(tables)))
    finally:
        await store.close()
    print(json.dumps({"commands": commands, "committed": committed}))


async def live_lag(
    store: EventStore, url: str, tables: int, interval: float, seconds: float, seed: int
) -> dict[str, Any]:
    """The projectors follow the log live in this process while another process appends; each
    event's lag from its append's return (committed) to its projector's commit, by the wall
    clock both processes share."""
    visible: dict[str, list[tuple[int, float]]] = {name: [] for name in MODELS}
    feed = LiveFeed(store, poll_interval=1.0)
    await feed.start()
    projectors: list[ReadModel] = []
    for name, factory in MODELS.items():
        projector = factory(0)

        async def apply(
            s: EventStore,
            events: Sequence[RecordedEvent],
            *,
            _name: str = name,
            _apply: Any = projector.apply,
        ) -> int:
            position: int = await _apply(s, events)
            visible[_name].append((position, time.time()))
            return position

        projector.apply = apply  # type: ignore[method-assign]
        # As a serve process runs them: lingering after each batch (CHOUETTE_PROJECTION_LINGER).
        projector.linger = Config().projection_linger
        await projector.prepare(store)
        await projector.catch_up(store)
        projectors.append(projector)
    runs = [asyncio.create_task(p.run(feed)) for p in projectors]
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--load",
        url,
        "--tables",
        str(tables),
        "--interval",
        str(interval),
        "--seconds",
        str(seconds),
        "--seed",
        str(seed),
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await child.communicate()
    if child.returncode:
        raise RuntimeError(f"the load process failed ({child.returncode})")
    report = json.loads(out)
    committed = {int(k): v for k, v in report["committed"].items()}
    head = max(committed)
    async with asyncio.timeout(60):
        while any(not v or v[-1][0] < head for v in visible.values()):
            await asyncio.sleep(0.01)
    for t in runs:
        t.cancel()
    await asyncio.gather(*runs, return_exceptions=True)
    await feed.close()
    lags: list[float] = []
    per_model: dict[str, dict[str, float]] = {}
    for name, seen in visible.items():
        mine: list[float] = []
        i = 0
        for position in sorted(committed):
            while seen[i][0] < position:
                i += 1
            mine.append(max(0.0, seen[i][1] - committed[position]) * 1000)
        lags += mine
        per_model[name] = {
            "p50": round(statistics.median(mine), 1),
            "p99": round(percentile(mine, 0.99), 1),
        }
    return {
        "p50": round(statistics.median(lags), 1),
        "p99": round(percentile(lags, 0.99), 1),
        "max": round(max(lags), 1),
        "by_model": per_model,
        "events": len(committed),
        "commands_per_s": round(report["commands"] / seconds),
        "events_per_s": round(len(committed) / seconds),
    }


async def main(args: argparse.Namespace) -> dict[str, Any]:
    target = args.events or (100_000 if args.quick else 1_000_000)
    seconds = args.seconds or (5.0 if args.quick else 20.0)
    server = await database_url()
    async with scratch_database(server, "chouette_bench_proj") as url:
        conn = await asyncpg.connect(url)
        try:
            await migrate(conn)
            await conn.executemany(
                "INSERT INTO accounts (account_id, username, display_name) VALUES ($1, $2, $2)",
                [(f"u_{n:0{WIDTH - 2}d}", f"player{n}") for n in range(PLAYERS)],
            )
            version = await conn.fetchval("SHOW server_version")
        finally:
            await conn.close()
        store = await EventStore.connect(url, min_size=4, max_size=20)
        try:
            started = time.perf_counter()
            made = await fill(store, target, args.seed)
            fill_rate = made / (time.perf_counter() - started)
            read_rate = await read_log_rate(store)
            null = await null_rate(store)
            rates = {model: await rebuild_rate(store, f) for model, f in MODELS.items()}
            lag = await live_lag(store, url, args.tables, args.interval, seconds, args.seed)
        finally:
            await store.close()
    slowest = min(rates.values())
    return {
        "benchmark": "projections",
        "quick": args.quick,
        "server": "DATABASE_URL" if os.environ.get("DATABASE_URL") else "embedded",
        "server_version": version,
        "cpus": os.cpu_count(),
        "log_events": made,
        "fill_events_per_s": round(fill_rate),
        "read_log_events_per_s": round(read_rate),
        "null_projector_events_per_s": round(null),
        "rebuild_events_per_s": {k: round(v) for k, v in rates.items()},
        "rebuild_target_events_per_s": 50_000,
        "rebuild_meets_target": slowest >= 50_000,
        "live_lag_ms": lag,
        "live_lag_target_p99_ms": 100,
        "live_lag_meets_target": lag["p99"] <= 100,
        "load": f"{args.tables} tables, one command each every {args.interval} s, {seconds} s",
        "load_avg_1m_at_end": round(os.getloadavg()[0], 2),
    }


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="100,000 events, 5 s of live load")
    ap.add_argument("--events", type=int, help="events in the log (default 1,000,000)")
    ap.add_argument("--seconds", type=float, help="seconds of live load")
    ap.add_argument("--tables", type=int, default=64)
    ap.add_argument("--interval", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--load", metavar="URL", help=argparse.SUPPRESS)  # the load's process
    args = ap.parse_args()
    if args.load:
        asyncio.run(load(args.load, args.tables, args.interval, args.seconds, args.seed))
    else:
        print(json.dumps(asyncio.run(main(args))))
