"""What a table's views cost the server when its sockets are web pages: fetched after every move,
or carried by the move's message (``?views=1``), side by side in one run; one JSON object.

A web page shows the table view. Before moves carried their views, every page at a table
fetched it (``GET /tables/{id}``, as its player) after every event but a throw; with
``views=1`` the move's message brings it (``m``, :mod:`server.views.move`) and the page fetches
only after the rarer events (a game's end, a cube action). This bench plays the same human-pace
tables (half money, half 4-player chouettes; :mod:`bench.kit.human_pace`) with page-like
sockets in both ways, alternating, each phase on freshly connected sockets, and with plain
script sockets (no views, no fetches) as the reference:

- ``server_cpu_per_command_us``: the server's CPU over the phase per command served;
- ``fetches_per_command``: the views the pages fetched per command;
- the command and fan-out p99, and the clients' own CPU (their fetches parse the view).

``views_over_fetch``: the server's CPU per command with the views in the messages over the same
with the pages fetching, by round and over all rounds.

``python bench/pages.py [--quick] [--tables 500] [--seconds 20] [--rounds 2]``: against
``DATABASE_URL`` (as ``bench/server.py``) in a scratch database; the server is a
subprocess (``python -m server serve``) with the production dice. ``--quick``: 12 s phases,
one round.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.kit.human_pace import Clients, Phase, summary  # noqa: E402
from bench.kit.scratch import in_scratch  # noqa: E402
from bench.server import SETTLE_S, Server, Window  # noqa: E402

MODES = ("fetch", "views")
"""The page-like ways, alternated in each round (``script`` is measured once, first)."""


async def _phase(
    server: Server, specs: list[Any], mode: str, seconds: float, seed: int, processes: int
) -> dict[str, Any]:
    """One measured phase of ``specs`` played by sockets of one kind (``script``, or page-like
    ``fetch`` or ``views``)."""
    clients = Clients([server.url], processes, pages=None if mode == "script" else mode)
    try:
        await clients.connect(specs, seed)
        await asyncio.sleep(SETTLE_S)
        window = Window(server)
        stats = await clients.phase(0, Phase(3.0, seconds), window.start, window.end)
    finally:
        await clients.close()
    figures = window.figures()
    out = summary(stats, len(specs), 3.0)
    commands = max(figures["server_commands"], 1)
    return {
        "mode": mode,
        "served_per_s": out["served_per_s"],
        "p99_ms": out["p99_ms"],
        "fanout_p99_ms": out["fanout_p99_ms"],
        "errors": out["errors"],
        "client_cpu": out["client_cpu"],
        "server_commands": figures["server_commands"],
        "server_cpu": figures["server_cpu"],
        "server_cpu_per_command_us": figures["server_cpu_per_command_us"],
        "fetches": stats["fetches"],
        "fetches_per_command": round(stats["fetches"] / commands, 2),
        "loop_stall_max_ms": figures["loop_stall_max_ms"],
    }


async def run(
    dsn: str, tables: int, seconds: float, rounds: int, processes: int, log: Any
) -> dict[str, Any]:
    server = Server(dsn)
    try:
        await server.ready()
        specs = await Clients([server.url], processes).create(tables)
        log(f"{tables} tables")
        phases = [await _phase(server, specs, "script", seconds, 0, processes)]
        log("script sockets")
        for r in range(rounds):
            for i, mode in enumerate(MODES):
                phases.append(await _phase(server, specs, mode, seconds, 10 * r + i + 1, processes))
                log(f"round {r + 1}: {mode}")
    finally:
        server.stop()
    by = {m: [p for p in phases if p["mode"] == m] for m in ("script", *MODES)}

    def cpu(mode: str) -> float:
        ps = by[mode]
        return sum(p["server_cpu_per_command_us"] for p in ps) / len(ps)

    return {
        "bench": "pages",
        "tables": tables,
        "seconds": seconds,
        "phases": phases,
        "server_cpu_per_command_us": {m: round(cpu(m), 1) for m in by},
        "fetches_per_command": {
            m: round(sum(p["fetches_per_command"] for p in by[m]) / len(by[m]), 2) for m in by
        },
        "views_over_fetch": round(cpu("views") / cpu("fetch"), 3),
        "views_over_fetch_by_round": [
            round(v["server_cpu_per_command_us"] / f["server_cpu_per_command_us"], 3)
            for f, v in zip(by["fetch"], by["views"], strict=True)
        ],
        "views_over_script": round(cpu("views") / cpu("script"), 3),
    }


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="12 s phases, one round")
    ap.add_argument("--tables", type=int, default=500)
    ap.add_argument("--seconds", type=float, help="each measured phase (20; --quick 12)")
    ap.add_argument("--rounds", type=int, help="rounds of fetch then views (2; --quick 1)")
    ap.add_argument("--processes", type=int, default=2, help="client processes")
    args = ap.parse_args()
    seconds = args.seconds or (12.0 if args.quick else 20.0)
    rounds = args.rounds or (1 if args.quick else 2)
    began = time.perf_counter()

    def log(what: str) -> None:
        print(f"[{time.perf_counter() - began:6.1f} s] {what}", file=sys.stderr, flush=True)

    async def go(dsn: str) -> dict[str, Any]:
        return await run(dsn, args.tables, seconds, rounds, args.processes, log)

    out = await in_scratch("bench_pages", go)
    out["wall_s"] = round(time.perf_counter() - began, 1)
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
