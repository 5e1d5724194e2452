"""The stack's floor: what a human-pace command costs aiohttp, asyncpg and PostgreSQL alone.

A reference for ``bench/server.py``'s server CPU per command. This server knows no rules, keeps
no state and checks nothing; per command it does only the I/O a ``chouette serve`` command
does at human pace:

- one WebSocket frame in, decoded;
- one round trip to append it (an INSERT and a ``pg_notify`` in one transaction, committed);
- the notification on one LISTEN connection, then one round trip to read what was committed;
- one frame out to each of the table's three sockets, and the sender's result.

The clients (their own processes, ``spawn``) play ``tables`` tables of three sockets each: one
socket of a table sends a ~500-byte command after an exponential think time (mean 3 s, cut at
10 s, counted from its previous command), open loop, as :mod:`bench.kit.human_pace`'s do.

``--lean``: the least I/O a command could do instead (no notification and no read: the
appending socket's handler sends the event to the table's other sockets itself, and the
sender's result carries it: one round trip and three frames out). What is left below the
targets once the I/O is as small as it gets.

``python bench/floor.py [--tables 2000] [--seconds 12] [--lean]`` prints one JSON object;
:func:`run_floors` is what ``bench/server.py`` calls: one server and one set of sockets, measured
at human pace and then at 1 s think time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import random
import resource
import sys
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import msgspec
import psutil
from aiohttp import web

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.kit.scratch import scratch_database  # noqa: E402
from bench.kit.serving import free_port, wait_ready  # noqa: E402

THINK_CAP = 10.0
SOCKETS_PER_TABLE = 3
_DDL = (
    "CREATE TABLE IF NOT EXISTS floor_log ("
    " position bigserial PRIMARY KEY, table_id int NOT NULL, data bytea NOT NULL)"
)
_APPEND = (
    "WITH e AS (INSERT INTO floor_log (table_id, data) VALUES ($1, $2) RETURNING position)"
    " SELECT position, pg_notify('floor_log', '') FROM e"
)
_APPEND_LEAN = "INSERT INTO floor_log (table_id, data) VALUES ($1, $2) RETURNING position"
_READ = (
    "SELECT position, table_id, data FROM floor_log"
    " WHERE position > $1 ORDER BY position LIMIT 1000"
)


class _Command(msgspec.Struct):
    command_id: str


# -- the server ------------------------------------------------------------------------------


def _app(dsn: str, lean: bool = False) -> web.Application:
    app = web.Application()
    sockets: dict[int, set[web.WebSocketResponse]] = {}
    encoder = msgspec.json.Encoder()
    decoder = msgspec.json.Decoder(_Command)

    async def fan_out(
        table: int, position: int, data: bytes, but: web.WebSocketResponse | None = None
    ) -> bytes:
        """Send one command's event to its table's sockets (``but`` one); the event."""
        event = encoder.encode({"v": position, "t": "event", "d": msgspec.Raw(data)})
        for ws in tuple(sockets.get(table, ())):
            if ws is not but:
                with contextlib.suppress(ConnectionError):
                    await ws.send_bytes(event)
        return event

    async def feed(pool: asyncpg.Pool, wake: asyncio.Event) -> None:
        position = int(await pool.fetchval("SELECT coalesce(max(position), 0) FROM floor_log"))
        while True:
            await wake.wait()
            wake.clear()
            for pos, table, data in await pool.fetch(_READ, position):
                position = pos
                await fan_out(table, pos, data)

    async def keep_session(connection: object) -> None:
        """As ``chouette serve``'s pool: a released connection is not reset (asyncpg's default
        reset is a round trip per release)."""

    async def database(app: web.Application) -> Any:
        pool = await asyncpg.create_pool(dsn, min_size=4, max_size=20, reset=keep_session)
        await pool.execute(_DDL)
        app["pool"] = pool
        if lean:  # no notification to listen for: the handlers fan out
            yield
            await pool.close()
            return
        listener = await asyncpg.connect(dsn)
        wake = asyncio.Event()
        await listener.add_listener("floor_log", lambda *_: wake.set())
        task = asyncio.create_task(feed(pool, wake))
        yield
        task.cancel()
        await listener.close()
        await pool.close()

    async def ready(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    async def socket(request: web.Request) -> web.WebSocketResponse:
        table = int(request.match_info["table"])
        ws = web.WebSocketResponse(heartbeat=20)
        await ws.prepare(request)
        mine = sockets.setdefault(table, set())
        mine.add(ws)
        pool = request.app["pool"]
        try:
            async for msg in ws:
                data = msg.data if isinstance(msg.data, bytes) else msg.data.encode()
                command = decoder.decode(data)
                if lean:
                    position = await pool.fetchval(_APPEND_LEAN, table, data)
                    event = await fan_out(table, position, data, but=ws)
                    reply = {
                        "ctl": "result",
                        "command_id": command.command_id,
                        "v": position,
                        "event": msgspec.Raw(event),
                    }
                else:
                    position = await pool.fetchval(_APPEND, table, data)
                    reply = {"ctl": "result", "command_id": command.command_id, "v": position}
                try:
                    await ws.send_bytes(encoder.encode(reply))
                except ConnectionError:
                    break  # the client went away (the run is over)
        finally:
            mine.discard(ws)
        return ws

    app.cleanup_ctx.append(database)
    app.router.add_get("/readyz", ready)
    app.router.add_get("/ws/{table}", socket)
    return app


def serve(dsn: str, port: int, lean: bool = False) -> None:
    import uvloop

    web.run_app(
        _app(dsn, lean), host="127.0.0.1", port=port, print=None, loop=uvloop.new_event_loop()
    )


# -- the clients -----------------------------------------------------------------------------


async def _client_main(
    conn: Connection, url: str, tables: list[int], seed: int, think_mean: float
) -> None:
    rng = random.Random(seed)
    pad = "x" * 400
    pace = [think_mean]  # the mean think time now (the run may change it between windows)
    done: list[float] = []
    events = [0]  # received within the window
    window = [float("inf"), float("inf")]
    waiting: dict[str, asyncio.Future[None]] = {}
    started = asyncio.Event()
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def reader(ws: aiohttp.ClientWebSocketResponse) -> None:
            async for msg in ws:
                if msg.data[:9] == '{"ctl":"r' or msg.data[:9] == b'{"ctl":"r':
                    command_id = json.loads(msg.data)["command_id"]
                    future = waiting.pop(command_id, None)
                    if future is not None and not future.done():
                        future.set_result(None)
                    raw = msg.data if isinstance(msg.data, bytes) else msg.data.encode()
                    if b'"event":' in raw and window[0] <= time.time() < window[1]:
                        events[0] += 1  # the sender's own event, in its result (--lean)
                elif window[0] <= time.time() < window[1]:
                    events[0] += 1

        async def table(t: int, sockets: list[aiohttp.ClientWebSocketResponse]) -> None:
            await started.wait()
            last = time.perf_counter()
            n = 0
            while True:
                think = min(THINK_CAP, rng.expovariate(1 / pace[0]))
                await asyncio.sleep(max(0.0, last + think - time.perf_counter()))
                last = time.perf_counter()
                n += 1
                command_id = f"{t}-{n}"
                future = asyncio.get_running_loop().create_future()
                waiting[command_id] = future
                body = json.dumps({"command_id": command_id, "command": {"pad": pad}})
                await rng.choice(sockets).send_str(body)
                await future
                done.append(time.time())

        all_sockets = []
        tasks = []
        for t in tables:
            socks = [await session.ws_connect(f"{url}/ws/{t}") for _ in range(SOCKETS_PER_TABLE)]
            all_sockets += socks
            tasks += [asyncio.create_task(reader(ws)) for ws in socks]
            tasks.append(asyncio.create_task(table(t, socks)))
        conn.send(("connected", len(all_sockets)))
        started.set()
        # ("pace", think_mean) changes the pace; ("window", t0, t1) is answered with what
        # was counted in it; ("stop",) ends.
        while (msg := await asyncio.to_thread(conn.recv))[0] != "stop":
            if msg[0] == "pace":
                pace[0] = msg[1]
                continue
            t0, t1 = msg[1], msg[2]
            window[:] = [t0, t1]
            events[0] = 0
            cpu0 = resource.getrusage(resource.RUSAGE_SELF)
            await asyncio.sleep(max(0.0, t1 - time.time()) + 0.5)
            cpu1 = resource.getrusage(resource.RUSAGE_SELF)
            cpu = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
            count = sum(1 for t in done if t0 <= t < t1)
            conn.send(("counted", count, cpu, events[0]))
        for task in tasks:
            task.cancel()
        for ws in all_sockets:
            await ws.close()


def _client(conn: Connection, url: str, tables: list[int], seed: int, think_mean: float) -> None:
    try:
        asyncio.run(_client_main(conn, url, tables, seed, think_mean))
    except Exception as e:  # reported to the parent, which fails the run
        conn.send(("failed", repr(e)))


# -- the run ---------------------------------------------------------------------------------


async def run_floor(
    dsn: str,
    tables: int,
    seconds: float,
    think_mean: float = 3.0,
    processes: int = 2,
    settle: float = 4.0,
    lean: bool = False,
) -> dict[str, Any]:
    """The floor server at ``tables`` tables whose commands come after ``think_mean`` seconds
    on average: its CPU per command."""
    runs = await run_floors(dsn, tables, seconds, (think_mean,), processes, settle, lean)
    return runs[0]


async def run_floors(
    dsn: str,
    tables: int,
    seconds: float,
    paces: Sequence[float],
    processes: int = 2,
    settle: float = 4.0,
    lean: bool = False,
) -> list[dict[str, Any]]:
    """One floor server and its clients at ``tables`` tables, measured ``seconds`` at each of
    ``paces`` (mean think times) in turn, each after ``settle`` seconds at its pace: its CPU
    per command at each (one start-up and one set of sockets for all)."""
    import subprocess

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [
            sys.executable,
            str(Path(__file__).resolve()),
            "serve",
            "--dsn",
            dsn,
            "--port",
            str(port),
            *(["--lean"] if lean else []),
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )
    ctx = mp.get_context("spawn")
    procs: list[Any] = []
    conns: list[Connection] = []
    try:
        await wait_ready(url, "the floor server")
        for i in range(processes):
            parent, child = ctx.Pipe()
            share = list(range(i, tables, processes))
            p = ctx.Process(target=_client, args=(child, url, share, i, paces[0]), daemon=True)
            p.start()
            child.close()
            procs.append(p)
            conns.append(parent)
        sockets = 0
        for c in conns:
            msg = await asyncio.wait_for(asyncio.to_thread(c.recv), 600)
            if msg[0] != "connected":
                raise RuntimeError(f"a floor client failed: {msg}")
            sockets += msg[1]
        server = psutil.Process(proc.pid)
        out = []
        for think_mean in paces:
            for c in conns:
                c.send(("pace", think_mean))
            await asyncio.sleep(settle)  # the first commands at this pace, over a think time
            t0 = time.time() + 0.2
            t1 = t0 + seconds
            for c in conns:
                c.send(("window", t0, t1))
            await asyncio.sleep(max(0.0, t0 - time.time()))
            cpu0 = server.cpu_times()
            await asyncio.sleep(seconds)
            cpu1 = server.cpu_times()
            commands, client_cpu, events = 0, 0.0, 0
            for c in conns:
                msg = await asyncio.wait_for(asyncio.to_thread(c.recv), 60)
                if msg[0] != "counted":
                    raise RuntimeError(f"a floor client failed: {msg}")
                commands += msg[1]
                client_cpu += msg[2]
                events += msg[3]
            cpu = (cpu1.user + cpu1.system) - (cpu0.user + cpu0.system)
            out.append(
                {
                    "tables": tables,
                    "lean": lean,
                    "think_mean_s": think_mean,
                    "offered_per_s": round(tables / think_mean, 1),
                    "sockets": sockets,
                    "served_per_s": round(commands / seconds, 1),
                    "server_cpu": round(cpu / seconds, 3),
                    "server_cpu_per_command_us": round(cpu / max(commands, 1) * 1e6, 1),
                    "commands_per_server_cpu_s": round(commands / max(cpu, 1e-9), 1),
                    "client_cpu": round(client_cpu / seconds, 3),
                    # Events received within the window a command served within it: every
                    # socket of the table gets each command's event (SOCKETS_PER_TABLE) when
                    # the fan-out keeps up.
                    "events_per_command": round(events / max(commands, 1), 2),
                }
            )
        for c in conns:
            c.send(("stop",))
        return out
    finally:
        for p in procs:
            p.join(10)
            if p.is_alive():
                p.kill()
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


async def _main(args: argparse.Namespace) -> None:
    base = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
    async with scratch_database(base, "bench_floor") as dsn:
        out = await run_floor(
            dsn, args.tables, args.seconds, args.think, args.processes, lean=args.lean
        )
    print(json.dumps(out))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", nargs="?", default="run", choices=("run", "serve"))
    ap.add_argument("--tables", type=int, default=2000)
    ap.add_argument("--seconds", type=float, default=12.0)
    ap.add_argument("--think", type=float, default=3.0, help="mean think time, seconds")
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--lean", action="store_true", help="the least I/O a command could do")
    ap.add_argument("--dsn", help="serve: the database")
    ap.add_argument("--port", type=int, help="serve: the port")
    a = ap.parse_args()
    if a.mode == "serve":
        serve(a.dsn, a.port, a.lean)
    else:
        asyncio.run(_main(a))
