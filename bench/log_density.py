"""The log's density check on a large log (events/store/density.py): prints one JSON object.

    python bench/log_density.py [--quick]

Against ``DATABASE_URL`` when set, else the embedded server (``./.pgdata``), in a scratch
database of its own (``chouette_bench_density_<pid>``), dropped at the end. One partition of
5 million events (``--quick``: 1 million) is written straight into ``events`` as the owner
(rows of the stored width, none through the append function, which would take minutes), with
its head, and vacuumed as autovacuum leaves an append-only table. Then:

- ``startup_check_s``: the first :meth:`DensityCheck.check` of a process, which counts the
  whole partition against its head (``startup_s_per_million``);
- ``check_ms_p50``/``check_ms_max``: a check once running, over ``new_per_check`` positions
  appended since the last one (inserted the same way) and a sweep of ``sweep`` older ones;
- ``hole_found_check_ms``: the check that meets a hole in its sweep, the bisection to the first
  missing position and the look-up of the next stored one included;
- ``sweep_round_s``: how long the sweep takes to come round the whole partition, at one check
  a second (the server's polling interval): how late a deletion deep in the log is found.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.kit.scratch import scratch_database
from events.store.density import SWEEP, DensityCheck
from events.store.embedded import database_url
from events.store.event_store import EventStore
from events.store.migrations import migrate

_FILL = """
INSERT INTO events (partition, position, stream_id, version, type, schema_version, data,
                    command_id, prev_hash, hash, recorded_at)
SELECT 0, g, 'table-' || (g % 5000), g / 5000 + 1, 'dice_rolled', 1,
       convert_to('{"player":"p-' || g || '","dice":[3,5],"at":1767225600000}', 'UTF8'),
       gen_random_uuid(), sha256(int8send(g - 1)), sha256(int8send(g)), now()
FROM generate_series($1::bigint, $2::bigint) g
"""
_HEAD = (
    "INSERT INTO log_partitions (partition, head) VALUES (0, $1)"
    " ON CONFLICT (partition) DO UPDATE SET head = excluded.head"
)


async def _grow(admin: asyncpg.Connection, first: int, last: int) -> None:
    await admin.execute(_FILL, first, last)
    await admin.execute(_HEAD, last)


async def main(quick: bool) -> dict[str, Any]:
    events = 1_000_000 if quick else 5_000_000
    per_check, checks = 1000, 20 if quick else 50
    server = os.environ.get("DATABASE_URL") or await database_url()
    async with scratch_database(server, "chouette_bench_density") as url:
        admin = await asyncpg.connect(url)
        store = await EventStore.connect(url)
        try:
            await migrate(admin)
            started = time.perf_counter()
            for first in range(1, events + 1, 500_000):
                await _grow(admin, first, min(first + 499_999, events))
            await admin.execute("VACUUM (ANALYZE) events")
            fill_s = time.perf_counter() - started

            density = DensityCheck(store)
            started = time.perf_counter()
            holes = await density.check()
            startup_s = time.perf_counter() - started
            assert holes == [], holes

            head, samples = events, []
            for _ in range(checks):
                await _grow(admin, head + 1, head + per_check)
                head += per_check
                started = time.perf_counter()
                assert await density.check() == []
                samples.append((time.perf_counter() - started) * 1000)

            # A hole where the sweep is about to count.
            swept = density.swept(0)
            missing = swept + SWEEP // 2
            async with admin.transaction():
                await admin.execute("ALTER TABLE events DISABLE TRIGGER ALL")
                await admin.execute(
                    "DELETE FROM events WHERE partition = 0 AND position = $1", missing
                )
                await admin.execute("ALTER TABLE events ENABLE TRIGGER ALL")
            started = time.perf_counter()
            found = await density.check()
            hole_ms = (time.perf_counter() - started) * 1000
            assert [h.position for h in found] == [missing], found
        finally:
            await store.close()
            await admin.close()
    return {
        "bench": "log_density",
        "quick": quick,
        "events": events,
        "fill_s": round(fill_s, 1),
        "startup_check_s": round(startup_s, 3),
        "startup_s_per_million": round(startup_s / (events / 1e6), 3),
        "sweep": SWEEP,
        "new_per_check": per_check,
        "checks": checks,
        "check_ms_p50": round(statistics.median(samples), 2),
        "check_ms_max": round(max(samples), 2),
        "hole_found_check_ms": round(hole_ms, 2),
        "sweep_round_s": round(head / SWEEP),
    }


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a small run (about a minute)")
    result = asyncio.run(main(ap.parse_args().quick))
    print(json.dumps(result))
