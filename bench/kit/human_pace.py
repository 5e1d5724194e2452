"""Tables played at human pace over WebSockets, by light clients in their own processes.

Each table is a money game or a 4-player chouette (half and half). Its players act after a think
time drawn from an exponential distribution (mean 3 s, cut at 10 s so that nobody runs into the
12 s decision clock), counted from the player's previous command: the offered load is known in
advance (tables / mean commands a second) and does not slow down when the server does. Players
roll and play (no cube), so a game takes some fifty commands.

The clients know no rules: the legal plays come on the stream with each throw (``m``, see
docs/design.md), and a small state machine over the event types says who acts next. Only when
it meets something it does not follow (a refusal, an expired clock) does a table fetch its view
once to find its place again (``resyncs``). Each process is a plain asyncio loop; none runs the
decider.

``pages`` makes every socket behave as the web page's does with the view it shows: it fetches
the table view (``GET /tables/{id}``, as its player) after every table event it cannot follow
from the message itself, coalescing the fetches it would make while one is out. ``"fetch"``:
it follows throws only (the page before moves carried their views); ``"views"``: it opens its
socket with ``views=1`` and follows moves too. The fetches made are counted.

Measured per phase, by the clients: command latency (send → the sender's own ``result``), fan-out
(the sender's ``result`` → the same event on each other socket of the table, and from the send),
commands offered and acknowledged, errors, and the clients' own CPU.

:func:`run_human_pace` is the entry point (``bench/server.py`` uses it, and other benchmarks can:
``extra_tables`` runs beside the measured phases in the calling process).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing as mp
import random
import resource
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import aiohttp
import msgspec

THINK_CAP = 10.0
"""The longest think time, in seconds (a player's decision clock is 12 s)."""

SETUP_CONCURRENCY = 24
"""Tables set up at once by each client process."""

_json = msgspec.json.Decoder()
_enc = msgspec.json.Encoder()


class _Head(msgspec.Struct):
    """What every socket reads of a message; only the table's first socket, which follows the
    game, decodes the rest (a throw's ``m`` lists every legal play)."""

    ctl: str | None = None
    s: str | None = None
    v: int = 0


_head = msgspec.json.Decoder(_Head)


class _Follow(msgspec.Struct):
    """What a page-like socket reads of a table message: its type and whether it has ``m``."""

    t: str | None = None
    m: msgspec.Raw = msgspec.Raw(b"")
    """Empty when the message has none."""


_follow = msgspec.json.Decoder(_Follow)
_THROWS = frozenset({"opening_throw", "dice_rolled"})


@dataclass
class TableSpec:
    """A table the clients play: its id, kind and players (account id, token), seat order."""

    table_id: str
    kind: str
    players: list[tuple[str, str]]
    server: int = 0
    """Which of the server URLs its sockets use."""


@dataclass
class Phase:
    """A measured stretch: players think ``think_mean`` seconds on average for ``seconds``."""

    think_mean: float
    seconds: float


# -- one table -----------------------------------------------------------------------------------


@dataclass
class _Cmd:
    sent: float
    sender: int
    phase: int
    ack: float | None = None
    last_v: int = 0
    arrivals: dict[tuple[int, int], float] = field(default_factory=dict)
    fanned: bool = False


class _Table:
    """One table's players' sockets and the state machine that says who acts next."""

    def __init__(self, spec: TableSpec, run: _Run, rng: random.Random) -> None:
        self.spec = spec
        self.run = run
        self.rng = rng
        self.accounts = [a for a, _ in spec.players]
        self.socks: list[aiohttp.ClientWebSocketResponse] = []
        self.version = 0
        self.line: list[str] = list(self.accounts)  # chouette: box, captain, ...
        self.next: tuple[int, dict[str, Any]] | None = None
        self.cmd: _Cmd | None = None
        self.ready = asyncio.Event()
        self.last_send = 0.0
        self.tasks: list[asyncio.Task[None]] = []
        self.last_t: str | None = None
        self.view_due = False
        """The next look at the view is expected (a new chouette's line), not a resync."""
        self.base = ""
        """The server's URL (page-like sockets fetch the view from it)."""
        self.session: aiohttp.ClientSession | None = None
        self.fetching: dict[int, bool] = {}
        """Page-like sockets with a fetch out, and whether another is due after it."""

    # who is who
    def idx(self, account: str) -> int:
        return self.accounts.index(account)

    def opener(self) -> int:
        return self.idx(self.line[0])

    def other_roller(self, player: str) -> int:
        if self.spec.kind == "chouette":
            return self.idx(self.line[1] if player == self.line[0] else self.line[0])
        return 1 - self.idx(player)

    def move(self, m: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        # A route down the tree of steps (a random step at each node, to the end of a play),
        # one checker and one die at a time, as ``move`` takes it.
        tree, at, route = m["play_tree"], 0, []
        while True:
            a, b, _hit, at = self.rng.choice(tree[at])
            route.append([a, b])
            if not at:
                return self.idx(m["player"]), {"type": "move", "moves": route}

    # the stream of socket 0: every table event, in order
    def follow(self, msg: dict[str, Any]) -> None:
        self.version = msg["v"]
        t, d = msg.get("t"), msg.get("d") or {}
        self.last_t = t
        m = msg.get("m")
        if t == "game_started":
            self.line = list(d.get("players") or self.line)
            self.next = (self.opener(), {"type": "roll"})
        elif t == "opening_throw":
            self.next = self.move(m) if m else (self.opener(), {"type": "roll"})
        elif t == "dice_rolled":
            if m is None:
                self.next = None  # the table moved on before the message: resync
                why = self.run.stats[self.run.phase]["why"]
                if len(why) < 5:
                    why.append("a throw without m")
            elif m["play_tree"][0]:
                self.next = self.move(m)
            else:
                self.next = (self.other_roller(m["player"]), {"type": "roll"})
        elif t == "checkers_moved":
            self.next = (self.other_roller(d["player"]), {"type": "roll"})
        elif t == "game_ended":
            # Money: the next game starts when a player throws for it; a chouette's next game
            # starts in the same command (line_rotated, game_started follow).
            self.next = (self.idx(self.line[0]), {"type": "roll"})
        elif t == "line_rotated":
            self.line = list(d.get("line") or self.line)
        elif t == "line_throw":
            # A new chouette's line, thrown for in the start's command: where it leaves the
            # players (the rule that orders them is the server's) is read from the view.
            self.next = None
            self.view_due = True
        elif t in ("player_joined", "seed_window_closed"):
            pass
        else:
            self.next = None  # something this client does not follow (time_expired...)
            why = self.run.stats[self.run.phase]["why"]
            if len(why) < 5:
                why.append(f"resync after {t}")
        self.check_ready()

    def check_ready(self) -> None:
        cmd = self.cmd
        if cmd is not None and (cmd.ack is None or self.version < cmd.last_v):
            return
        self.ready.set()

    # measurements
    def arrived(self, sock: int, v: int, at: float) -> None:
        cmd = self.cmd
        if cmd is None or sock == cmd.sender or cmd.fanned:
            return
        cmd.arrivals[(sock, v)] = at
        self.fanout_done()

    def fanout_done(self) -> None:
        cmd = self.cmd
        if cmd is None or cmd.ack is None or not cmd.last_v or cmd.fanned:
            return
        got = [cmd.arrivals.get((i, cmd.last_v)) for i in range(len(self.socks)) if i != cmd.sender]
        if got and all(g is not None for g in got):
            cmd.fanned = True
            stats = self.run.stats[cmd.phase]
            for g in got:
                assert g is not None
                stats["fanout"].append(max(0.0, g - cmd.ack))
                stats["fanout_send"].append(g - cmd.sent)
            cmd.arrivals = {}

    async def reader(self, i: int) -> None:
        sock = self.socks[i]
        async for raw in sock:
            if raw.type not in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
                break
            at = time.perf_counter()
            head = _head.decode(raw.data)
            ctl = head.ctl
            if ctl is None:
                if head.s != "table":
                    continue
                self.arrived(i, head.v, at)
                if i == 0 and head.v == self.version + 1:
                    self.follow(_json.decode(raw.data))
                if self.run.pages:
                    seen = _follow.decode(raw.data)
                    if not seen.m or (seen.t not in _THROWS and self.run.pages != "views"):
                        self.fetch(i)
            elif ctl == "result" or ctl == "error":
                self.answered(_json.decode(raw.data), at)
            elif ctl == "resync":
                self.run.errors += 1
        self.run.closed += 1

    def fetch(self, i: int) -> None:
        """Socket ``i`` fetches the table view as its player, as the page does; a fetch asked
        for while one is out is made once after it."""
        if i in self.fetching:
            self.fetching[i] = True
            return
        self.fetching[i] = False
        self.tasks.append(asyncio.create_task(self._fetch(i)))

    async def _fetch(self, i: int) -> None:
        assert self.session is not None
        url = f"{self.base}/tables/{self.spec.table_id}"
        headers = {"Authorization": f"Bearer {self.spec.players[i][1]}"}
        try:
            while True:
                self.run.stats[self.run.phase]["fetches"] += 1
                with contextlib.suppress(aiohttp.ClientError, TimeoutError):
                    async with self.session.get(url, headers=headers) as r:
                        _json.decode(await r.read())
                if not self.fetching.get(i):
                    break
                self.fetching[i] = False
        finally:
            self.fetching.pop(i, None)

    def answered(self, msg: dict[str, Any], at: float) -> None:
        cmd = self.cmd
        if cmd is None or cmd.ack is not None:
            return
        cmd.ack = at
        stats = self.run.stats[cmd.phase]
        if msg["ctl"] == "result":
            stats["latency"].append(at - cmd.sent)
            cmd.last_v = msg["last_version"]
            self.fanout_done()
            self.check_ready()
        else:
            stats["errors"] += 1
            if len(stats["why"]) < 5:
                stats["why"].append(str(msg.get("problem", {}).get("detail"))[:200])
            self.next = None
            self.ready.set()

    async def resync(self, session: aiohttp.ClientSession, base: str) -> None:
        """Find the table's place from its view (anonymous): who acts next."""
        async with session.get(f"{base}/tables/{self.spec.table_id}") as r:
            if r.status != 200:  # a loaded server's 503 or 429: the caller tries again
                raise ValueError(f"GET /tables/{self.spec.table_id}: {r.status}")
            view = await r.json()
        self.version = view["version"]
        if view["kind"] == "chouette" and view.get("line"):
            self.line = list(view["line"])
        game = view.get("game")
        self.next = None
        if game is None or game["phase"] == "over" or not view["in_game"]:
            if view["kind"] == "money" and len(view["players"]) < 2:
                self.next = (1, {"type": "join"})  # its game starts when the second sits down
            elif view["kind"] == "money":
                self.next = (self.idx(self.line[0]), {"type": "roll"})
            elif game is None and not view["in_game"]:
                self.next = (0, {"type": "start_game"})  # created, never started
            return
        if game["phase"] == "opening":
            self.next = (self.opener(), {"type": "roll"})
        elif game["phase"] == "roll" and game["on_roll"]:
            self.next = (self.idx(game["on_roll"]), {"type": "roll"})
        elif game["phase"] == "move" and game["on_roll"]:
            self.next = self.move({"player": game["on_roll"], "play_tree": game["play_tree"]})

    async def drive(self, session: aiohttp.ClientSession, base: str) -> None:
        run = self.run
        while True:
            await self.ready.wait()
            self.ready.clear()
            cmd = self.cmd
            if cmd is not None and (cmd.ack is None or self.version < cmd.last_v):
                continue  # woken early: the command's answer or its events are on their way
            if self.cmd is not None and self.cmd.ack is not None:
                self.fanout_done()
            if self.next is None:
                if self.view_due:
                    self.view_due = False
                else:
                    run.resyncs += 1
                    why = run.stats[run.phase]["why"]
                    if len(why) < 5:
                        c = self.cmd
                        why.append(
                            f"resync after {self.last_t} (v {self.version}, {c and c.last_v})"
                        )
                self.cmd = None
                try:
                    await self.resync(session, base)
                except (aiohttp.ClientError, ValueError, KeyError):
                    await asyncio.sleep(1.0)
                if self.next is None:
                    await asyncio.sleep(1.0)
                    self.ready.set()
                    continue
            think = min(THINK_CAP, self.rng.expovariate(1.0 / run.think_mean))
            due = max(self.last_send + think, time.perf_counter())
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            phase = run.phase
            actor, command = self.next
            self.next = None
            now = time.perf_counter()
            self.cmd = _Cmd(sent=now, sender=actor, phase=phase)
            self.last_send = now
            run.stats[phase]["sent"] += 1
            body = _enc.encode({"command_id": str(uuid.uuid4()), "command": command})
            try:
                await self.socks[actor].send_bytes(body)
            except (ConnectionError, RuntimeError):
                run.stats[phase]["errors"] += 1
                return


# -- one client process ----------------------------------------------------------------------


class _Run:
    def __init__(self) -> None:
        self.phase = -1
        """The phase commands are sent in now; -1 outside the measured phases (warming up,
        draining: the tables play on at 3 s, or the pace the last phase said, their figures
        are not kept)."""
        self.think_mean = 3.0
        self.pages: str | None = None
        """None, or page-like sockets: ``"fetch"`` or ``"views"`` (see the module's doc)."""
        self.stats: dict[int, dict[str, Any]] = {}
        self.errors = 0
        self.resyncs = 0
        self.closed = 0
        self.new_phase(-1, 3.0)

    def new_phase(self, k: int, think_mean: float) -> None:
        self.stats[k] = {
            "latency": [],
            "fanout": [],
            "fanout_send": [],
            "sent": 0,
            "errors": 0,
            "fetches": 0,
            "why": [],
        }
        self.think_mean = think_mean
        self.phase = k


async def _post(
    session: aiohttp.ClientSession, url: str, body: Any, token: str | None = None
) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    for attempt in range(5):
        try:
            async with session.post(url, json=body, headers=headers) as r:
                doc = await r.json(content_type=None)
                if r.status >= 500:
                    raise aiohttp.ClientError(f"{r.status}: {doc}")
                if r.status >= 400:
                    raise RuntimeError(f"{url}: {r.status} {doc}")
                return doc
        except (TimeoutError, aiohttp.ClientError):
            if attempt == 4:
                raise
            await asyncio.sleep(0.5)
    raise AssertionError


async def create_tables(
    session: aiohttp.ClientSession, base: str, count: int, first: int, guests: list[tuple[str, str]]
) -> list[TableSpec]:
    """``count`` tables (even numbers money, odd a 4-player chouette), not started: a money
    table seats its first player, a chouette all four."""
    sem = asyncio.Semaphore(SETUP_CONCURRENCY)

    async def one(i: int) -> TableSpec:
        kind = "money" if i % 2 == 0 else "chouette"
        n = 2 if kind == "money" else 4
        players = [guests[(i + k) % len(guests)] for k in range(n)]
        async with sem:
            created = await _post(
                session, f"{base}/tables", {"kind": kind, "name": f"bench {i}"}, players[0][1]
            )
            table_id = created["id"]
            # A money game starts when its second player sits down: they join when the
            # clients first play the table (``_Table.resync``).
            for _account, token in players[: 1 if kind == "money" else n]:
                await _post(
                    session,
                    f"{base}/tables/{table_id}/commands",
                    {"command_id": str(uuid.uuid4()), "command": {"type": "join"}},
                    token,
                )
        # Not started: a table nobody plays stays idle (a started game's clocks would run
        # out, its absent players forfeit and its next game start, around again). The
        # clients start a chouette when they first play it (``_Table.resync``).
        return TableSpec(table_id, kind, players)

    return list(await asyncio.gather(*(one(first + i) for i in range(count))))


async def make_guests(session: aiohttp.ClientSession, base: str, n: int) -> list[tuple[str, str]]:
    out = []
    for i in range(n):
        doc = await _post(session, f"{base}/guests", {"display_name": f"Bench {i}"})
        out.append((doc["account_id"], doc["token"]))
    return out


async def _worker_main(conn: Connection, urls: list[str], job: dict[str, Any]) -> None:
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=60)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        specs: list[TableSpec] = [TableSpec(**s) for s in job.get("specs") or []]
        if job.get("create"):
            count, first = job["create"]
            # A few guests share every table of this process (an account may sit at many).
            guests = await make_guests(session, urls[0], 8)
            specs = await create_tables(session, urls[0], count, first, guests)
            conn.send(("created", [s.__dict__ for s in specs]))
        if job.get("create_only"):
            return
        run = _Run()
        run.pages = job.get("pages")
        views = "&views=1" if run.pages == "views" else ""
        rng = random.Random(job["seed"])
        tables = [_Table(s, run, random.Random(rng.random())) for s in specs]
        sem = asyncio.Semaphore(64)

        async def connect(t: _Table) -> None:
            base = urls[t.spec.server % len(urls)]
            async with sem:
                for attempt in range(10):  # a loaded server may answer an error at first
                    try:
                        await t.resync(session, base)
                        break
                    except (aiohttp.ClientError, ValueError, KeyError):
                        if attempt == 9:
                            raise
                        await asyncio.sleep(1.0)
                ws = base.replace("http://", "ws://")
                t.base, t.session = base, session
                for _account, token in t.spec.players:
                    t.socks.append(
                        await session.ws_connect(
                            f"{ws}/tables/{t.spec.table_id}/ws?after={t.version}{views}",
                            headers={"Authorization": f"Bearer {token}"},
                            max_msg_size=0,
                            heartbeat=None,
                        )
                    )
            t.tasks = [asyncio.create_task(t.reader(i)) for i in range(len(t.socks))]

        await asyncio.gather(*(connect(t) for t in tables))
        for t in tables:
            # Spread the first commands over one think time.
            t.last_send = time.perf_counter() - rng.uniform(0, 3.0)
            t.tasks.append(asyncio.create_task(t.drive(session, urls[t.spec.server % len(urls)])))
            t.ready.set()
        conn.send(("connected", sum(len(t.socks) for t in tables)))
        loop = asyncio.get_running_loop()
        orders: asyncio.Queue[Any] = asyncio.Queue()

        def listen() -> None:
            while True:
                try:
                    order = conn.recv()
                except EOFError:
                    order = ("stop",)
                loop.call_soon_threadsafe(orders.put_nowait, order)
                if order[0] == "stop":
                    return

        loop.run_in_executor(None, listen)
        while True:
            order = await orders.get()
            if order[0] == "stop":
                break
            if order[0] == "phase":
                _, k, think_mean, start_at, after_mean = order
                await asyncio.sleep(max(0.0, start_at - time.time()))
                cpu = time.process_time()
                before = run.stats[-1]["why"]
                run.new_phase(k, think_mean)
                run.stats[k]["why"] += [f"before: {w}" for w in before]
                order = await orders.get()  # ("end", k)
                run.new_phase(-1, after_mean)
                used = time.process_time() - cpu
                await asyncio.sleep(0.5)  # answers to the phase's last commands
                stats = run.stats[k]
                stats["client_cpu_s"] = used
                stats["resyncs"], run.resyncs = run.resyncs, 0
                stats["closed"], run.closed = run.closed, 0
                conn.send(("phase", k, stats))
        for t in tables:
            for task in t.tasks:
                task.cancel()
            for s in t.socks:
                with contextlib.suppress(Exception):
                    await s.close()


def _worker(conn: Connection, urls: list[str], job: dict[str, Any]) -> None:
    with contextlib.suppress(ValueError, OSError):
        _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    try:
        asyncio.run(_worker_main(conn, urls, job))
    except Exception as exc:  # reported to the parent, which fails the run
        conn.send(("failed", repr(exc)))
        raise
    finally:
        conn.close()


# -- the parent ------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


class Clients:
    """Client processes that set up and play tables, driven phase by phase."""

    def __init__(self, urls: list[str], processes: int, pages: str | None = None) -> None:
        self.urls = urls
        self.processes = processes
        self.pages = pages
        """Page-like sockets (:class:`_Run`'s ``pages``), or None."""
        self.ctx = mp.get_context("spawn")
        self.procs: list[Any] = []
        self.conns: list[Connection] = []
        self.count = 0
        """The tables being played."""

    def _start(self, jobs: list[dict[str, Any]]) -> None:
        for job in jobs:
            parent, child = self.ctx.Pipe()
            p = self.ctx.Process(target=_worker, args=(child, self.urls, job), daemon=True)
            p.start()
            child.close()
            self.procs.append(p)
            self.conns.append(parent)

    async def _recv(self, conn: Connection, kind: str, timeout: float = 600) -> Any:
        msg = await asyncio.wait_for(asyncio.to_thread(conn.recv), timeout)
        if msg[0] == "failed":
            raise RuntimeError(f"a client process failed: {msg[1]}")
        assert msg[0] == kind, msg
        return msg

    async def create(self, count: int, first: int = 0) -> list[TableSpec]:
        """Create ``count`` tables (split over the processes) without playing them."""
        share = [
            count // self.processes + (i < count % self.processes) for i in range(self.processes)
        ]
        starts = [first + sum(share[:i]) for i in range(self.processes)]
        self._start(
            [
                {"create": (n, s), "create_only": True, "seed": i}
                for i, (n, s) in enumerate(zip(share, starts, strict=True))
            ]
        )
        specs: list[TableSpec] = []
        for conn in self.conns:
            specs += [TableSpec(**s) for s in (await self._recv(conn, "created"))[1]]
        await self.close()
        return specs

    async def connect(self, specs: list[TableSpec], seed: int) -> int:
        """Start the processes on ``specs`` (table i on server i mod the servers); the sockets."""
        self.count = len(specs)
        for i, s in enumerate(specs):
            s.server = i % len(self.urls)
        chunks = [specs[i :: self.processes] for i in range(self.processes)]
        self._start(
            [
                {"specs": [s.__dict__ for s in c], "seed": seed + i, "pages": self.pages}
                for i, c in enumerate(chunks)
            ]
        )
        sockets = 0
        for conn in self.conns:
            sockets += (await self._recv(conn, "connected"))[1]
        return int(sockets)

    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    async def phase(
        self,
        k: int,
        phase: Phase,
        on_start: Callable[[], Awaitable[Any]] | None = None,
        on_end: Callable[[], Awaitable[Any]] | None = None,
        after: float = 3.0,
    ) -> dict[str, Any]:
        """Run one measured phase; the clients' merged figures. Outside the phases the
        tables play on at ``after`` seconds of mean think time."""
        start_at = time.time() + 0.5
        # The clients count from start_at to the "end": the phase's wall time is theirs, not
        # the servers' windows' (whose scrapes an overloaded server answers late).
        started = time.perf_counter() + (start_at - time.time())
        for conn in self.conns:
            conn.send(("phase", k, phase.think_mean, start_at, after))
        await asyncio.sleep(max(0.0, start_at - time.time()))
        if on_start is not None:
            await on_start()
        await asyncio.sleep(phase.seconds)
        for conn in self.conns:
            conn.send(("end", k))
        wall = time.perf_counter() - started
        if on_end is not None:
            await on_end()
        merged: dict[str, Any] = {"latency": [], "fanout": [], "fanout_send": [], "sent": 0}
        merged["why"] = []
        merged.update(errors=0, client_cpu_s=0.0, resyncs=0, closed=0, fetches=0)
        for conn in self.conns:
            _, _, stats = await self._recv(conn, "phase")
            for key in ("latency", "fanout", "fanout_send", "why"):
                merged[key] += stats[key]
            for key in ("sent", "errors", "client_cpu_s", "resyncs", "closed", "fetches"):
                merged[key] += stats[key]
        merged["wall"] = wall
        return merged

    async def close(self) -> None:
        for conn in self.conns:
            with contextlib.suppress(OSError, BrokenPipeError):
                conn.send(("stop",))
        for p in self.procs:
            await asyncio.to_thread(p.join, 30)
            if p.is_alive():
                p.kill()
        self.procs, self.conns = [], []


def summary(stats: dict[str, Any], tables: int, think_mean: float) -> dict[str, Any]:
    """The clients' figures of one phase, as the bench's JSON gives them."""
    lat, fan = stats["latency"], stats["fanout"]
    wall = stats["wall"]
    return {
        "tables": tables,
        "think_mean_s": think_mean,
        "offered_per_s": round(tables / think_mean, 1),
        "sent_per_s": round(stats["sent"] / wall, 1),
        "served_per_s": round(len(lat) / wall, 1),
        "commands": len(lat),
        "p50_ms": round(pct(lat, 0.5) * 1000, 2),
        "p99_ms": round(pct(lat, 0.99) * 1000, 2),
        "p999_ms": round(pct(lat, 0.999) * 1000, 2),
        "fanout_p50_ms": round(pct(fan, 0.5) * 1000, 2),
        "fanout_p99_ms": round(pct(fan, 0.99) * 1000, 2),
        "fanout_from_send_p99_ms": round(pct(stats["fanout_send"], 0.99) * 1000, 2),
        "errors": stats["errors"] + stats["closed"],
        "sockets_closed": stats["closed"],
        "resyncs": stats["resyncs"],
        "error_samples": stats["why"][:5],
        "client_cpu": round(stats["client_cpu_s"] / wall, 3),
    }


async def run_human_pace(
    server_urls: list[str],
    tables: int | list[TableSpec],
    phases: list[Phase] | None = None,
    *,
    processes: int = 2,
    seed: int = 1,
    extra_tables: Callable[[], Awaitable[Any]] | None = None,
    on_phase: Callable[[int, str], Awaitable[Any]] | None = None,
) -> dict[str, Any]:
    """Play ``tables`` (a count to create, or tables made before) at human pace against
    ``server_urls`` (table i on server i mod their number) for each of ``phases`` (default: one
    of 30 s at a 3 s mean think time).

    ``extra_tables`` (optional) is awaited in this process beside the phases (for example bot
    tables played at their own pace, started once the clients' sockets are open); its result is
    returned as ``extra``. ``on_phase(k, "start" | "end")`` is awaited at each phase's
    bounds (the server's CPU and metrics are read there). Returns ``{"specs", "sockets",
    "phases": [summary...], "extra"}``.
    """
    phases = phases or [Phase(3.0, 30.0)]
    if isinstance(tables, int):
        specs = await Clients(server_urls, processes).create(tables)
    else:
        specs = tables
    clients = Clients(server_urls, processes)
    extra_task = None
    try:
        sockets = await clients.connect(specs, seed)
        if extra_tables is not None:
            extra_task = asyncio.create_task(extra_tables())
        out = []
        for k, ph in enumerate(phases):
            stats = await clients.phase(
                k,
                ph,
                (lambda k=k: on_phase(k, "start")) if on_phase else None,  # type: ignore[misc]
                (lambda k=k: on_phase(k, "end")) if on_phase else None,  # type: ignore[misc]
            )
            out.append(summary(stats, len(specs), ph.think_mean))
        extra_result = await extra_task if extra_task is not None else None
    finally:
        await clients.close()
        if extra_task is not None and not extra_task.done():
            extra_task.cancel()
    return {"specs": specs, "sockets": sockets, "phases": out, "extra": extra_result}
