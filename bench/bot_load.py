"""The server's command latency with bot tables beside human-pace tables (bench/bots.py's
``server_load``).

One ``serve`` process (bench/server.py's :class:`~bench.server.Server`, the production dice,
bots at the server's default pace) and a fresh database. ``human`` tables (half money, half
4-player chouettes) are played at human pace by bench/kit/human_pace.py's light clients in their
own processes, on the same sockets throughout, in measured phases of the same length that
alternate, beginning and ending without bots (A B A, or A B A B A without ``--quick``):

- ``without_bots`` (A): the human-pace tables alone;
- ``with_bots`` (B): the same, while ``bots`` tables of two ``basic`` bots each play 25-point
  matches. Each B phase has tables of its own, whose bots are seated before it by the tables'
  creators (``POST /tables/{id}/bots``; the server plays them through its bot workers) and
  removed after it (``DELETE``: a forfeit in mid-game), so that the next A phase is again
  without bots.

Why alternate: with nothing changed, one phase's p99 differs from the next's by 10-20 % (some
1,300-4,000 latencies, a p99 that rests on a few dozen of them, and a database and tables that
grow as the run goes on). Phases taken in the order A B A... put the A and B phases at the same
mean time in the run; the p99s compared are those of every A latency pooled and every B latency
pooled, and ``a_p99_spread`` gives the ratio of the highest to the lowest A phase p99: what a
ratio of nothing but noise looks like in the same run.

The figures are the human players' command latency (send → their own result), the commands
the server ran (its ``/metrics``: the bots' are the difference), and its CPU. The target is
the ``with_bots`` p99 within 10 % of the ``without_bots`` p99.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

import aiohttp

from bench.kit.human_pace import Clients, Phase, _post, make_guests, pct, summary
from bench.kit.scratch import scratch_database
from bench.server import Server, Window

MATCH_LENGTH = 25
"""The bots' matches: long enough to last the measured phase."""


async def _bot_tables(url: str, count: int) -> list[tuple[str, str]]:
    """``count`` match tables, each created by a guest of its own: (table id, creator token)."""
    async with aiohttp.ClientSession() as session:
        creators = await make_guests(session, url, count)
        tables = []
        for _account, token in creators:
            doc = await _post(
                session,
                f"{url}/tables",
                {"kind": "match", "name": "bots", "options": {"match_length": MATCH_LENGTH}},
                token,
            )
            tables.append((doc["id"], token))
    return tables


async def _seat_bots(url: str, tables: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """Two ``basic`` bots at each table: (table id, creator token, bot id) for each bot."""
    seated = []
    async with aiohttp.ClientSession() as session:
        for table_id, token in tables:
            for _ in range(2):
                doc = await _post(
                    session, f"{url}/tables/{table_id}/bots", {"strength": "basic"}, token
                )
                seated.append((table_id, token, str(doc["bot_id"])))
    return seated


async def _remove_bots(url: str, seated: list[tuple[str, str, str]]) -> None:
    """The creators take their bots off (a forfeit in mid-game): their tables go quiet."""
    async with aiohttp.ClientSession() as session:
        for table_id, token, bot_id in seated:
            headers = {"Authorization": f"Bearer {token}"}
            async with session.delete(
                f"{url}/tables/{table_id}/bots/{bot_id}", headers=headers
            ) as r:
                if r.status != 200:
                    raise RuntimeError(f"removing a bot: {r.status} {await r.text()}")


async def _bot_states(url: str, tables: list[tuple[str, str]]) -> list[tuple[int, int]]:
    """Each bot table's (version, bots seated)."""
    out = []
    async with aiohttp.ClientSession() as session:
        for table_id, token in tables:
            headers = {"Authorization": f"Bearer {token}"}
            async with session.get(f"{url}/tables/{table_id}", headers=headers) as r:
                view = await r.json()
            out.append((int(view["version"]), sum(bool(p.get("bot")) for p in view["players"])))
    return out


KEEP = (
    "served_per_s",
    "p50_ms",
    "p99_ms",
    "p999_ms",
    "errors",
    "server_commands",
    "server_cpu",
    "server_cpu_per_command_us",
    "loop_stall_max_ms",
)


async def _phase(
    clients: Clients, server: Server, k: int, seconds: float
) -> tuple[dict[str, Any], list[float]]:
    """One measured phase: its figures, and the human commands' latencies (seconds)."""
    window = Window(server)
    stats = await clients.phase(k, Phase(3.0, seconds), window.start, window.end)
    run = summary(stats, clients.count, 3.0) | window.figures()
    return {key: run[key] for key in KEEP if key in run}, list(stats["latency"])


def _pooled(phases: list[dict[str, Any]], latencies: list[float], seconds: float) -> dict[str, Any]:
    """The phases of one kind as one: latency percentiles of every latency, sums and means."""
    commands = sum(p["server_commands"] for p in phases)
    cpu_s = sum(p["server_cpu"] for p in phases) * seconds
    return {
        "phases": len(phases),
        "human_commands": len(latencies),
        "p50_ms": round(pct(latencies, 0.5) * 1000, 2),
        "p99_ms": round(pct(latencies, 0.99) * 1000, 2),
        "p999_ms": round(pct(latencies, 0.999) * 1000, 2),
        "errors": sum(p["errors"] for p in phases),
        "server_commands_per_s": round(commands / (seconds * len(phases)), 1),
        "server_cpu": round(cpu_s / (seconds * len(phases)), 3),
        "server_cpu_per_command_us": round(cpu_s / max(commands, 1) * 1e6, 1),
        "loop_stall_max_ms": max(p["loop_stall_max_ms"] for p in phases),
        "phase_p99_ms": [p["p99_ms"] for p in phases],
    }


async def server_load(quick: bool, humans: int = 200, bots: int = 50) -> dict[str, Any]:
    seconds = 15.0 if quick else 24.0
    pairs = 1 if quick else 2  # A B A, or A B A B A
    base_url = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
    without: list[dict[str, Any]] = []
    with_bots: list[dict[str, Any]] = []
    a_lat: list[float] = []
    b_lat: list[float] = []
    seat_s: list[float] = []
    playing = 0
    async with scratch_database(base_url, "bench_bots") as dsn:
        server = Server(dsn)
        clients: Clients | None = None
        try:
            await server.ready()
            specs = await Clients([server.url], 2).create(humans)
            bot_sets = [await _bot_tables(server.url, bots) for _ in range(pairs)]
            clients = Clients([server.url], 2)
            await clients.connect(specs, 16)
            await asyncio.sleep(2.0)  # the first commands, spread over one think time
            for k in range(2 * pairs + 1):
                if k % 2 == 0:
                    figures, lat = await _phase(clients, server, k, seconds)
                    without.append(figures)
                    a_lat += lat
                    continue
                tables = bot_sets[k // 2]
                began = time.perf_counter()
                seated = await _seat_bots(server.url, tables)
                seat_s.append(time.perf_counter() - began)
                await asyncio.sleep(3.0)  # the bots' workers started, their tables under way
                before = await _bot_states(server.url, tables)
                figures, lat = await _phase(clients, server, k, seconds)
                after = await _bot_states(server.url, tables)
                # Tables whose two bots were still seated and had moved on during the phase.
                playing += sum(
                    1 for (v0, _), (v1, n) in zip(before, after, strict=True) if n == 2 and v1 > v0
                )
                with_bots.append(figures)
                b_lat += lat
                await _remove_bots(server.url, seated)
                await asyncio.sleep(2.0)  # the forfeits settled, the tables quiet
        finally:
            if clients is not None:
                await clients.close()
            server.stop()
    a, b = _pooled(without, a_lat, seconds), _pooled(with_bots, b_lat, seconds)
    # Commands the bots sent: what the server ran beyond the people's.
    bot_commands = sum(p["server_commands"] for p in with_bots) - len(b_lat)
    b["bot_commands_per_s"] = round(bot_commands / (seconds * len(with_bots)), 1)
    a_p99 = [p["p99_ms"] for p in without]
    return {
        "human_tables": humans,
        "bot_tables": bots,
        "bot_strength": "basic",
        "bot_pace_s": 1.0,
        "seconds_per_phase": seconds,
        "order": "".join("AB"[k % 2] for k in range(2 * pairs + 1)),
        "seat_bots_s": round(max(seat_s), 2),
        "without_bots": a,
        "with_bots": b,
        "p99_ratio": round(b["p99_ms"] / max(a["p99_ms"], 1e-9), 3),
        "p50_ratio": round(b["p50_ms"] / max(a["p50_ms"], 1e-9), 3),
        "a_p99_spread": round(max(a_p99) / max(min(a_p99), 1e-9), 3),
        "target": "with_bots p99 within 10 % of without_bots p99 (pooled phases)",
        "bot_tables_playing": playing,
        "bot_tables_seated": bots * pairs,
    }
