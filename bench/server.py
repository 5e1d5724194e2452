"""Server benchmark: N tables of two WebSocket clients playing random legal plays, 100 spectators
on one table, and the raw PostgreSQL single-row commit ceiling at the same concurrency, in one run.

Every table has clocks on (12 s a decision, 2 minutes in reserve): the timer service schedules
each table's next deadline after every command. Its cost is read from the server's /metrics
(``chouette_timer_seconds_total``: the time spent scheduling and in the timer loop) and given
per command and as a share of the server's CPU time (issue 13: at most 5 %).

Prints one JSON object. ``--quick`` finishes in under a minute.

The server runs as a subprocess (``python -m server serve``) against a fresh database on
``DATABASE_URL`` (default: the local test server) with the production, provably fair dice. Each
client keeps its table's state by folding the events it receives through the same decider the
server uses, and picks a random legal play from it: the load is real play, not replayed bytes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.game import Phase  # noqa: E402
from events import types as e  # noqa: E402
from events.decider import evolve  # noqa: E402
from events.table import TableState  # noqa: E402

CLOCK = {"delay": 12, "reserve": 120}
"""Every table's clocks (the server's default, said explicitly)."""

RAW_MAX_CONNECTIONS = 50
"""PostgreSQL's default max_connections is 100, shared with the server's pool: the raw
ceiling uses at most this many."""


def _cpu(proc: psutil.Process) -> float:
    times = proc.cpu_times()
    total = times.user + times.system
    for child in proc.children(recursive=True):
        t = child.cpu_times()
        total += t.user + t.system
    return total


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


class Player:
    def __init__(self, session: aiohttp.ClientSession, base: str, token: str, account: str) -> None:
        self.session, self.base, self.token, self.account = session, base, token, account
        self.ws: aiohttp.ClientWebSocketResponse | None = None


class Table:
    """Two players on one money table, folding events as they arrive."""

    def __init__(self, table_id: str, players: list[Player]) -> None:
        self.table_id = table_id
        self.players = players
        self.state = TableState()
        self.latencies: list[float] = []
        self.commands = 0
        self.sent_at: dict[int, float] = {}

    def apply(self, msg: dict[str, Any]) -> None:
        if msg.get("s") != "table" or "t" not in msg:
            return
        if msg["v"] != self.state.version + 1:
            return
        event = e.decode(msg["t"], 1, json.dumps(msg["d"]).encode())
        self.state = evolve(self.state, event)

    def next_command(self, rng: random.Random) -> tuple[Player, dict[str, Any]] | None:
        s = self.state
        game = s.game
        if not s.in_game:
            # A money table's next game starts when a player throws for it.
            return (self.players[0], {"type": "roll"}) if s.match is not None else None
        if game is None:
            return None
        if game.phase is Phase.OPENING:
            return self.players[0], {"type": "roll"}
        idx = game.to_act
        if idx is None:
            return None
        player = next(p for p in self.players if p.account == s.seats[idx])
        if game.phase is Phase.ROLL:
            return player, {"type": "roll"}
        if game.phase is Phase.MOVE:
            play = rng.choice(game.legal_plays())
            return player, {"type": "move", "moves": [list(m) for m in play.moves]}
        if game.phase is Phase.DOUBLED:
            return player, {"type": "take"}
        if game.phase is Phase.RESIGNATION:
            return player, {"type": "accept"}
        return None


async def guest(session: aiohttp.ClientSession, base: str) -> tuple[str, str]:
    async with session.post(f"{base}/guests") as r:
        body = await r.json()
    return body["token"], body["account_id"]


async def ticket(player: Player) -> str:
    """A single-use ticket for the player's WebSocket (a token never goes in a URL)."""
    async with player.session.post(
        f"{player.base}/tickets", headers={"Authorization": f"Bearer {player.token}"}
    ) as r:
        return (await r.json())["ticket"]  # type: ignore[no-any-return]


async def command(player: Player, table_id: str, cmd: dict[str, Any]) -> dict[str, Any]:
    async with player.session.post(
        f"{player.base}/tables/{table_id}/commands",
        json={"command_id": str(uuid.uuid4()), "command": cmd},
        headers={"Authorization": f"Bearer {player.token}"},
    ) as r:
        return await r.json()  # type: ignore[no-any-return]


async def setup_table(session: aiohttp.ClientSession, base: str) -> Table:
    players = []
    for _ in range(2):
        token, account = await guest(session, base)
        players.append(Player(session, base, token, account))
    async with session.post(
        f"{base}/tables",
        json={"kind": "money", "options": {"clock": CLOCK}},
        headers={"Authorization": f"Bearer {players[0].token}"},
    ) as r:
        table_id = (await r.json())["id"]
    for p in players:
        await command(p, table_id, {"type": "join"})
    return Table(table_id, players)


async def play_table(table: Table, deadline: float, rng: random.Random) -> None:
    """Drive one table over its two sockets until the deadline."""
    ws = []
    for p in table.players:
        p.ws = await p.session.ws_connect(
            f"{p.base}/tables/{table.table_id}/ws?ticket={await ticket(p)}", max_msg_size=0
        )
        ws.append(p.ws)
    reply: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def reader(sock: aiohttp.ClientWebSocketResponse, main: bool) -> None:
        async for msg in sock:
            data = json.loads(msg.data)
            if data.get("ctl") == "presence":
                continue  # who is connected: not an answer to a command
            if "ctl" in data:
                await reply.put(data)
            elif main:
                table.apply(data)

    readers = [asyncio.create_task(reader(s, i == 0)) for i, s in enumerate(ws)]
    try:
        while time.perf_counter() < deadline:
            nxt = table.next_command(rng)
            if nxt is None:
                await asyncio.sleep(0.005)
                continue
            player, cmd = nxt
            sent = time.perf_counter()
            assert player.ws is not None
            await player.ws.send_json({"command_id": str(uuid.uuid4()), "command": cmd})
            answer = await reply.get()
            if answer["ctl"] == "result":
                table.latencies.append(time.perf_counter() - sent)
                table.commands += 1
                # The result carries the events the command appended: fold them now (the
                # same events also arrive on the socket's stream, and are skipped there).
                for ev in answer["events"]:
                    table.apply(ev)
                while table.state.version < answer["last_version"]:
                    await asyncio.sleep(0.0005)  # an automatic event still on its way
            else:
                await asyncio.sleep(0.01)
    finally:
        for s in ws:
            await s.close()
        for t in readers:
            t.cancel()


async def spectators(
    base: str, table_id: str, n: int, until: asyncio.Event
) -> list[tuple[int, float]]:
    """n spectators on one table; every (version, receive time) they saw."""
    seen: list[tuple[int, float]] = []
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        socks = [
            await session.ws_connect(f"{base}/tables/{table_id}/ws", max_msg_size=0)
            for _ in range(n)
        ]

        async def watch(sock: aiohttp.ClientWebSocketResponse) -> None:
            async for msg in sock:
                data = json.loads(msg.data)
                if data.get("s") == "table":
                    seen.append((data["v"], time.perf_counter()))

        tasks = [asyncio.create_task(watch(s)) for s in socks]
        await until.wait()
        await asyncio.sleep(0.5)
        for s in socks:
            await s.close()
        for t in tasks:
            t.cancel()
    return seen


async def watched_table(base: str, seconds: float, rng: random.Random) -> list[float]:
    """One table played by HTTP commands while 100 spectators watch it: for each event, the
    delay from sending its command to each spectator receiving it."""
    async with aiohttp.ClientSession() as session:
        table = await setup_table(session, base)
        async with session.get(f"{base}/tables/{table.table_id}") as r:
            head = (await r.json())["version"]
        sock = await session.ws_connect(f"{base}/tables/{table.table_id}/ws")
        while table.state.version < head:
            table.apply(json.loads((await sock.receive()).data))
        await sock.close()
        done = asyncio.Event()
        watching = asyncio.create_task(spectators(base, table.table_id, 100, done))
        await asyncio.sleep(1.0)
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            nxt = table.next_command(rng)
            if nxt is None:
                break
            player, cmd = nxt
            sent = time.perf_counter()
            answer = await command(player, table.table_id, cmd)
            for ev in answer.get("events", []):
                table.sent_at[ev["v"]] = sent
                table.apply(ev)
            await asyncio.sleep(0.02)
        done.set()
        seen = await watching
    return [t - table.sent_at[v] for v, t in seen if v in table.sent_at]


async def _server_means(base: str) -> dict[str, float]:
    """Mean command and append latency as the server measured them (its /metrics), in ms."""
    async with aiohttp.ClientSession() as session, session.get(f"{base}/metrics") as r:
        text = await r.text()
    sums: dict[str, float] = {}
    counts: dict[str, float] = {}
    for line in text.splitlines():
        name, _, value = line.rpartition(" ")
        base_name = name.split("{")[0]
        if base_name.endswith("_sum"):
            key = base_name.removesuffix("_sum")
            sums[key] = sums.get(key, 0.0) + float(value)
        elif base_name.endswith("_count"):
            key = base_name.removesuffix("_count")
            counts[key] = counts.get(key, 0.0) + float(value)
    return {k: round(sums[k] / counts[k] * 1000, 2) for k in sums if counts.get(k)}


async def _metric_sums(base: str, names: tuple[str, ...]) -> dict[str, float]:
    """Each named metric summed over its labels, from the server's /metrics (and the
    commands' outcomes apart, as ``outcome:<name>``)."""
    async with aiohttp.ClientSession() as session, session.get(f"{base}/metrics") as r:
        text = await r.text()
    out = dict.fromkeys(names, 0.0)
    for line in text.splitlines():
        name, _, value = line.rpartition(" ")
        base_name = name.split("{")[0]
        if base_name in out:
            out[base_name] += float(value)
        if base_name == "chouette_commands_total" and 'outcome="' in name:
            key = "outcome:" + name.split('outcome="', 1)[1].split('"', 1)[0]
            out[key] = out.get(key, 0.0) + float(value)
    return out


async def raw_commits(dsn: str, concurrency: int, seconds: float) -> float:
    pool = await asyncpg.create_pool(dsn, min_size=concurrency, max_size=concurrency)
    await pool.execute("CREATE TABLE IF NOT EXISTS bench_raw (id bigserial PRIMARY KEY, v bytea)")
    count = 0
    deadline = time.perf_counter() + seconds

    async def worker() -> None:
        nonlocal count
        async with pool.acquire() as conn:
            stmt = await conn.prepare("INSERT INTO bench_raw (v) VALUES ($1)")
            while time.perf_counter() < deadline:
                await stmt.fetch(b"x" * 100)
                count += 1

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    await pool.close()
    return count / elapsed


async def run_tables(base: str, n: int, seconds: float, seed: int) -> dict[str, Any]:
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        tables = []
        for i in range(0, n, 32):
            tables += await asyncio.gather(
                *(setup_table(session, base) for _ in range(min(32, n - i)))
            )
        deadline = time.perf_counter() + seconds
        started = time.perf_counter()
        await asyncio.gather(
            *(play_table(t, deadline, random.Random(seed + i)) for i, t in enumerate(tables))
        )
        elapsed = time.perf_counter() - started
    lat = [x for t in tables for x in t.latencies]
    return {
        "tables": n,
        "commands": len(lat),
        "commands_per_s": round(len(lat) / elapsed, 1),
        "p50_ms": round(pct(lat, 0.5) * 1000, 2),
        "p99_ms": round(pct(lat, 0.99) * 1000, 2),
        "mean_ms": round(statistics.fmean(lat) * 1000, 2) if lat else None,
    }


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sizes", default="64,256", help="table counts to run, comma-separated")
    ap.add_argument(
        "--profile", metavar="FILE", help="run the server under py-spy and write its profile"
    )
    args = ap.parse_args()
    seconds = 8.0 if args.quick else 30.0
    sizes = [int(n) for n in args.sizes.split(",")]
    base_url = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
    dbname = f"bench_server_{os.getpid()}"
    admin = await asyncpg.connect(base_url)
    await admin.execute(f'CREATE DATABASE "{dbname}"')
    dsn = base_url.rsplit("/", 1)[0] + f"/{dbname}"
    port = free_port()
    # The clients play at machine speed from one address, far past the rate limits, and add
    # no dice seeds of their own (no seed window to wait out before each game's first throw).
    # The database is a throw-away one of the bench's, reached as the local superuser.
    env = dict(
        os.environ,
        DATABASE_URL=dsn,
        CHOUETTE_LOG_LEVEL="WARNING",
        CHOUETTE_RATE_LIMITS="off",
        CHOUETTE_SEED_WINDOW="0",
        CHOUETTE_ALLOW_SUPERUSER="1",
    )
    prefix = []
    if args.profile:
        prefix = ["py-spy", "record", "--format", "raw", "-o", args.profile, "--"]
    proc = subprocess.Popen(
        [*prefix, sys.executable, "-m", "server", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        async with aiohttp.ClientSession() as s:
            for _ in range(200):
                try:
                    async with s.get(f"{base}/readyz") as r:
                        if r.status == 200:
                            break
                except aiohttp.ClientError:
                    pass
                await asyncio.sleep(0.1)
        results = {}
        raw = {}
        server = psutil.Process(proc.pid)
        cpu_start = _cpu(server)
        for n in sizes:
            before = _cpu(server), time.process_time(), time.perf_counter()
            results[n] = await run_tables(base, n, seconds, args.seed)
            wall = time.perf_counter() - before[2]
            # Where the time went: one core is 1.0. The clients fold every event through the
            # same decider, so they cost about what the server does.
            results[n]["server_cpu"] = round((_cpu(server) - before[0]) / wall, 2)
            results[n]["client_cpu"] = round((time.process_time() - before[1]) / wall, 2)
            # The raw ceiling at the same concurrency (capped at the server's pool size).
            raw[n] = await raw_commits(dsn, min(n, RAW_MAX_CONNECTIONS), seconds / 2)
        delays = await watched_table(base, seconds, random.Random(args.seed))
        server_side = await _server_means(base)
        server_cpu = _cpu(server) - cpu_start
        timer = await _metric_sums(
            base,
            ("chouette_timer_seconds_total", "chouette_commands_total", "chouette_timer_tables"),
        )
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(30)
        await admin.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
        await admin.close()
    top = results[sizes[-1]]
    out = {
        "tables": sizes,
        "runs": {str(n): results[n] | {"raw_commits_per_s": round(raw[n], 1)} for n in sizes},
        "commands_per_s": top["commands_per_s"],
        "p50_ms": top["p50_ms"],
        "p99_ms": top["p99_ms"],
        "raw_commits_per_s": round(raw[sizes[-1]], 1),
        "ratio": round(top["commands_per_s"] / raw[sizes[-1]], 3),
        "server_command_ms_mean": server_side.get("chouette_command_seconds"),
        "server_append_ms_mean": server_side.get("chouette_append_seconds"),
        "spectators": 100,
        "fanout_samples": len(delays),
        "fanout_p50_ms": round(pct(delays, 0.5) * 1000, 2),
        "fanout_p99_ms": round(pct(delays, 0.99) * 1000, 2),
        "clock": CLOCK,
        "server_cpu_s": round(server_cpu, 2),
        "server_commands": int(timer["chouette_commands_total"]),
        "server_command_outcomes": {
            k.removeprefix("outcome:"): int(v) for k, v in timer.items() if k.startswith("outcome:")
        },
        "server_cpu_us_per_command": round(
            server_cpu / max(1.0, timer["chouette_commands_total"]) * 1e6, 1
        ),
        "timer_us_per_command": round(
            timer["chouette_timer_seconds_total"]
            / max(1.0, timer["chouette_commands_total"])
            * 1e6,
            2,
        ),
        "timer_share_of_server_cpu": round(
            timer["chouette_timer_seconds_total"] / max(server_cpu, 1e-9), 4
        ),
        "seconds_per_run": seconds,
        "note": "server and clients share the 2 cores; raw ceiling at min(tables, 50) connections",
    }
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
