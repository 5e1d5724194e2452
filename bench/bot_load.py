"""The server's command latency with bot tables beside human-pace tables (bench/bots.py's
``server_load``).

One ``serve`` process (bench/server.py's :class:`~bench.server.Server`, the production dice,
bots at the server's default pace) and a fresh database. ``human`` tables (half money, half
4-player chouettes) are played at human pace by bench/human_pace.py's light clients in their
own processes, in two measured phases of the same length on the same sockets:

1. ``without_bots``: the human-pace tables alone;
2. ``with_bots``: the same, while ``bots`` tables of two ``basic`` bots each play 25-point
   matches (seated between the phases by their tables' creators, through
   ``POST /tables/{id}/bots``; the server plays them through its bot workers).

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

from bench.human_pace import Clients, Phase, _post, make_guests
from bench.scratch import scratch_database
from bench.server import Server, measured

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


async def _seat_bots(url: str, tables: list[tuple[str, str]]) -> None:
    async with aiohttp.ClientSession() as session:
        for table_id, token in tables:
            for _ in range(2):
                await _post(session, f"{url}/tables/{table_id}/bots", {"strength": "basic"}, token)


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


def _figures(run: dict[str, Any]) -> dict[str, Any]:
    keep = (
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
    return {k: run[k] for k in keep if k in run}


async def server_load(quick: bool, humans: int = 200, bots: int = 50) -> dict[str, Any]:
    seconds = 20.0 if quick else 60.0
    base_url = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
    async with scratch_database(base_url, "bench_bots") as dsn:
        server = Server(dsn)
        clients: Clients | None = None
        try:
            await server.ready()
            specs = await Clients([server.url], 2).create(humans)
            bot_tables = await _bot_tables(server.url, bots)
            clients = Clients([server.url], 2)
            await clients.connect(specs, 16)
            await asyncio.sleep(2.0)  # the first commands, spread over one think time
            without = await measured(clients, [server], 0, Phase(3.0, seconds))
            began = time.perf_counter()
            await _seat_bots(server.url, bot_tables)
            seat_s = time.perf_counter() - began
            await asyncio.sleep(3.0)  # the bots' workers started, their tables under way
            before = await _bot_states(server.url, bot_tables)
            with_bots = await measured(clients, [server], 1, Phase(3.0, seconds))
            after = await _bot_states(server.url, bot_tables)
        finally:
            if clients is not None:
                await clients.close()
            server.stop()
    a, b = _figures(without), _figures(with_bots)
    # Commands the bots sent in the phase: what the server ran beyond the people's.
    b["bot_commands_per_s"] = round(
        (with_bots["server_commands"] - with_bots["commands"]) / seconds, 1
    )
    return {
        "human_tables": humans,
        "bot_tables": bots,
        "bot_strength": "basic",
        "bot_pace_s": 1.0,
        "seconds_per_phase": seconds,
        "seat_bots_s": round(seat_s, 2),
        "without_bots": a,
        "with_bots": b,
        "p99_ratio": round(b["p99_ms"] / max(a["p99_ms"], 1e-9), 3),
        "target": "with_bots p99 within 10 % of without_bots p99",
        # Tables whose two bots were still seated and had moved on during the phase.
        "bot_tables_playing": sum(
            1 for (v0, _), (v1, n) in zip(before, after, strict=True) if n == 2 and v1 > v0
        ),
    }
