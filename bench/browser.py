"""What a player feels: two real browser pages play a money game against each other through the
page, on a ``serve`` process that carries human-pace tables of background load, in one run, one
JSON object.

Measured in the pages themselves (``performance.now()``, by DOM observation: the page is not
changed for the bench), over ``--samples`` of each:

- **Roll** (``roll``): the click on Roll (the click event's own time stamp) → the animation frame
  that first draws the new dice on the roller's page (the dice line's ``data-dice`` and text
  changed, the board redrawn in the same render).
- **Confirm** (``confirm``): the click on Confirm in the mover's page → the animation frame that
  first draws the play on the opponent's board (the counts of its places, read from their
  accessible names, changed). The two pages' clocks are tied to this process's by the round trip
  that is shortest of several (``clock``): the skew between them and its bound are reported.
- **First load** (``first_load``): a fresh browser context (empty cache, signed in as the first
  player) opens the table's link mid-game: navigation start → the frame that first draws the
  board with the table's checkers and a status line, and the bytes it transferred by then (the
  Resource Timing ``transferSize`` of the document and of every resource finished by then; the
  live feed's socket is not in it), and by a second later. One every few turns, in between them.

The players act as fast as the pages let them (a short pause between turns); each play is one of
the server's legal plays (read from the mover's view, ``GET /tables/{id}``), made by clicking its
checkers' places one die at a time: the page itself keeps no rules.

Beside it, ``--tables`` (500) human-pace tables are played by the load generator of
:mod:`bench.kit.human_pace` in its own processes, started before and measured over the same stretch
(``background``: commands sent and served a second, their p99). What shares the two cores is read
from ``/proc`` (psutil) over that stretch, in cores: the server, the load generator, the browser
(the Playwright driver and Chromium, the processes alive at the end), this process, every
PostgreSQL process on the machine (shared with whoever else uses it) and the rest of the machine.

Then (``without_background``, ``--unloaded`` samples) the same game goes on once the
background load has stopped: Roll and Confirm again, with what the rest of the machine leaves
them, in the same run.

Targets: Roll and Confirm p95 ≤ 100 ms each, the first load ≤ 1 s (its p95); each with a pass or
fail. ``--quick`` (15 samples, 3 loads, 10 without the load) runs in under three minutes (84 to
131 s on two cores at a load average of 7 to 10). The server runs as a subprocess (``python -m
server serve``) on a fresh database on ``DATABASE_URL`` (or on ``--database``, used as it is),
with the production, provably fair dice; the browser is the system Chromium
(``/usr/bin/chromium`` or ``$CHOUETTE_CHROMIUM``), headless.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import psutil
from playwright.async_api import Browser, BrowserContext, Page, async_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.kit.human_pace import Clients, Phase, pct, summary  # noqa: E402
from bench.kit.scratch import in_scratch  # noqa: E402
from bench.server import SETTLE_S, Server, Window  # noqa: E402

TARGETS = {"roll_p95_ms": 100.0, "confirm_p95_ms": 100.0, "first_load_ms": 1000.0}
CHROMIUM_ARGS = ["--no-sandbox", "--disable-dev-shm-usage"]
VIEWPORT = {"width": 1280, "height": 800}
WAIT_MS = 15_000
"""The longest wait for any one thing the page should show."""
DEBUG = bool(os.environ.get("BENCH_BROWSER_DEBUG"))
PAUSE_S = 0.25
"""Between two turns (the checkers' slides take 200 ms)."""

# What the pages run before their own scripts (an init script: the page's CSP does not apply).
# ``__bench.arm(kind)`` starts watching for one change, ``__bench.wait(kind)`` resolves with its
# times; the click listener keeps the time stamp of the last Roll and Confirm clicked.
INSTRUMENT = r"""
(() => {
  const B = (window.__bench = { clicks: {}, armed: {}, done: {}, waiters: {} });
  const q = (id) => document.querySelector(`[data-testid="${id}"]`);
  const counts = () => {
    const board = q("board");
    if (!board) return "";
    return Array.from(board.querySelectorAll("[data-point]"))
      .map((e) => `${e.dataset.point}:${(e.getAttribute("aria-label") || "").split(";")[0]}`)
      .join("|");
  };
  const diceNow = () => {
    const d = q("dice");
    return d ? `${d.dataset.dice || ""}#${d.textContent}` : "";
  };
  const statusNow = () => (q("status") || {}).textContent || "";
  const loaded = () => {
    const status = q("status");
    const board = q("board");
    if (!status || !status.textContent.trim() || !board) return false;
    // Checkers on a point (1 to 24; the bar and the tray say counts even when empty).
    return Array.from(board.querySelectorAll("[data-point]")).some((e) => {
      const point = Number(e.dataset.point);
      const text = (e.getAttribute("aria-label") || "").split(";")[0];
      return point >= 1 && point <= 24 && /: \d+ checkers? of /.test(text);
    });
  };
  const bytes = (until) => {
    let sum = 0, requests = 0;
    const entries = performance.getEntriesByType("navigation");
    for (const e of entries.concat(performance.getEntriesByType("resource"))) {
      if (until !== undefined && e.responseEnd > until) continue;
      sum += e.transferSize || 0;
      requests += 1;
    }
    return { bytes: sum, requests };
  };
  // The change seen (dom), then the frame that draws it: a task posted from its animation
  // frame callback runs once that frame's style, layout and paint are done (frame).
  const finish = (kind, dom, how) => {
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        const out = { dom, how, frame: performance.now(), origin: performance.timeOrigin };
        if (kind === "load") Object.assign(out, bytes(out.frame));
        B.done[kind] = out;
        (B.waiters[kind] || []).forEach((w) => w(out));
        B.waiters[kind] = [];
      };
      channel.port2.postMessage(null);
    });
  };
  // What each watch waits for: false, or what it saw. A throw the thrower cannot move with
  // passes the turn at once: the page then shows no dice, only the next status.
  const tests = {
    dice: (before) => {
      const now = diceNow();
      if (now !== before.dice && !now.startsWith("#")) return "dice";
      return statusNow() !== before.status ? "status" : false;
    },
    board: (before) => { const now = counts(); return now !== "" && now !== before && "board"; },
    load: () => loaded() && "board",
  };
  const check = () => {
    for (const kind of Object.keys(B.armed)) {
      const how = tests[kind](B.armed[kind]);
      if (how) {
        delete B.armed[kind];
        finish(kind, performance.now(), how);
      }
    }
  };
  B.arm = (kind) => {
    delete B.done[kind];
    if (kind === "dice") B.armed[kind] = { dice: diceNow(), status: statusNow() };
    else B.armed[kind] = kind === "board" ? counts() : null;
  };
  B.wait = (kind) => new Promise((resolve) => {
    if (B.done[kind]) resolve(B.done[kind]);
    else (B.waiters[kind] = B.waiters[kind] || []).push(resolve);
  });
  B.bytes = bytes;
  // When each stream message of a type last arrived (its handler's start: the page's own
  // listener runs right after), for the breakdown of a roll and a confirm.
  B.arrived = {};
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (ev) => {
        const at = performance.now();
        const text = typeof ev.data === "string" ? ev.data : new TextDecoder().decode(ev.data);
        const t = /"t":"([a-z_]+)"/.exec(text);
        if (t) B.arrived[t[1]] = at;
      });
    }
  };
  // The last command request's times (Resource Timing), relative to the page's time origin.
  B.command = () => {
    const all = performance.getEntriesByType("resource");
    const e = all.filter((r) => r.name.endsWith("/commands")).pop();
    return e ? { start: e.startTime, end: e.responseEnd } : null;
  };
  B.arm("load");
  document.addEventListener("click", (ev) => {
    const button = ev.target instanceof Element && ev.target.closest("[data-testid]");
    if (!button) return;
    B.clicks[button.dataset.testid] = { t: ev.timeStamp, origin: performance.timeOrigin };
  }, true);
  new MutationObserver(check).observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });
})();
"""


def chromium() -> str:
    named = os.environ.get("CHOUETTE_CHROMIUM")
    for path in (named, "/usr/bin/chromium", shutil.which("chromium")):
        if path and os.access(path, os.X_OK):
            return path
    raise SystemExit("no Chromium: install Debian's chromium package (or set CHOUETTE_CHROMIUM)")


def _p50s(parts: dict[str, list[float]] | None) -> dict[str, float]:
    """The median of each part of a breakdown (ms from the click), by name."""
    return {k: round(statistics.median(v), 1) for k, v in (parts or {}).items() if v}


def dist(values: list[float]) -> dict[str, Any]:
    """p50, p95 and max of a list of milliseconds."""
    return {
        "n": len(values),
        "p50_ms": round(pct(values, 0.5), 2),
        "p95_ms": round(pct(values, 0.95), 2),
        "max_ms": round(max(values), 2) if values else 0.0,
    }


class Person:
    """One player: an account, and the page of their own browser context."""

    def __init__(self, name: str, account: str, token: str, session: dict[str, Any]) -> None:
        self.name = name
        self.account = account
        self.token = token
        self.session = session
        self.page: Page
        self.offset = 0.0
        """This page's clock (timeOrigin + now, ms) minus this process's (time.time(), ms)."""
        self.bound = 0.0

    async def context(self, browser: Browser) -> BrowserContext:
        """A fresh context signed in as this person, the instrument in every page of it."""
        context = await browser.new_context(viewport=VIEWPORT)  # type: ignore[arg-type]
        context.set_default_timeout(WAIT_MS)
        value = json.dumps(json.dumps(self.session))
        await context.add_init_script(f"localStorage.setItem('chouette.session', {value});")
        await context.add_init_script(INSTRUMENT)
        return context

    async def calibrate(self, tries: int = 12) -> None:
        best = None
        for _ in range(tries):
            before = time.time() * 1000
            t = await self.page.evaluate("() => performance.timeOrigin + performance.now()")
            after = time.time() * 1000
            if best is None or after - before < best[0]:
                best = (after - before, t - (before + after) / 2)
        assert best is not None
        self.bound, self.offset = best[0] / 2, best[1]


ERRORS: list[str] = []
"""The pages' uncaught errors (``page_errors`` in the JSON)."""
CONSOLE: list[str] = []
"""What the pages logged as errors (``console_errors``)."""


COMMANDS: dict[str, list[str]] = {}
"""The last commands each page sent and their answers (for the message of a wait that fails)."""


def watch(page: Page, who: str) -> Page:
    sent = COMMANDS.setdefault(who, [])

    def answered(r: Any) -> None:
        if r.request.method == "POST" and r.url.endswith("/commands"):
            sent.append(f"{time.time():.3f} {r.status} {r.request.post_data}"[:200])
            del sent[:-4]

    page.on("response", answered)
    page.on("pageerror", lambda exc: ERRORS.append(f"{who}: {exc}"))
    page.on(
        "console",
        lambda m: CONSOLE.append(f"{who}: {m.text}") if m.type == "error" else None,
    )
    return page


async def seen(page: Page, kind: str) -> dict[str, Any]:
    """The times of the change armed on ``page``; what the page shows if it never comes."""
    try:
        return dict(
            await asyncio.wait_for(page.evaluate(f"() => __bench.wait('{kind}')"), WAIT_MS / 1000)
        )
    except TimeoutError:
        shows = await page.evaluate(
            "() => ({status: document.querySelector('[data-testid=status]')?.textContent,"
            " dice: document.querySelector('[data-testid=dice]')?.textContent,"
            " armed: __bench.armed, clicks: __bench.clicks, now: performance.now(),"
            " error: document.querySelector('[data-testid=error-text]')?.textContent,"
            " notice: document.getElementById('notice')?.textContent})"
        )
        shows["commands"] = COMMANDS
        shows["at"] = f"{time.time():.3f}"
        errors = (ERRORS + CONSOLE)[-5:]
        raise RuntimeError(
            f"{kind}: not seen in {WAIT_MS} ms; the page shows {shows}; errors: {errors}"
        ) from None


class Game:
    """The two players' table, played through their pages."""

    def __init__(self, url: str, http: aiohttp.ClientSession, seed: int) -> None:
        self.url = url
        self.http = http
        self.rng = random.Random(seed)
        self.table = ""
        self.people: list[Person] = []
        self.roll: list[float] = []
        self.roll_dom: list[float] = []
        self.confirm: list[float] = []
        self.confirm_dom: list[float] = []
        self.loads: list[dict[str, Any]] = []
        self.passed: list[float] = []
        self.stage = "loaded"
        """Which part of the run the rolls' breakdowns go to (``parts``)."""
        self.parts: dict[str, dict[str, list[float]]] = {}
        """Of each roll, by stage, the ms from the click to: the command request sent and
        answered (Resource Timing), the throw's stream message arriving, the dice in the DOM."""
        """Roll → the next status drawn, for the throws that could not be played."""
        self.games = 1

    async def post(self, path: str, body: Any, token: str | None = None) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with self.http.post(f"{self.url}{path}", json=body, headers=headers) as r:
            doc = await r.json(content_type=None)
            if r.status >= 400:
                raise RuntimeError(f"{path}: {r.status} {doc}")
            return doc

    async def view(self, p: Person) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {p.token}"}
        async with self.http.get(f"{self.url}/tables/{self.table}", headers=headers) as r:
            return dict(await r.json())

    async def setup(self, browser: Browser) -> None:
        """Two guests at a new money table (its game starts as the second sits down), each on
        the table's page in a context of their own."""
        for name in ("Ann", "Bob"):
            doc = await self.post("/guests", {"display_name": name})
            session = {
                "token": doc["token"],
                "account_id": doc["account_id"],
                "username": doc.get("username"),
                "display_name": doc.get("display_name", name),
                "guest": True,
            }
            self.people.append(Person(name, doc["account_id"], doc["token"], session))
        a = self.people[0]
        created = await self.post("/tables", {"kind": "money", "name": "browser bench"}, a.token)
        self.table = created["id"]
        for p in self.people:
            await self.post(
                f"/tables/{self.table}/commands",
                {"command_id": str(uuid.uuid4()), "command": {"type": "join"}},
                p.token,
            )
        for p in self.people:
            p.page = watch(await (await p.context(browser)).new_page(), p.name)
            await p.page.goto(f"{self.url}/#/table/{self.table}")
            await seen(p.page, "load")
            await p.calibrate()

    # -- one turn --------------------------------------------------------------------------

    async def turn(self) -> None:
        """The next thing to do at the table, by whoever the server offers it to."""
        for _ in range(100):
            views = [await self.view(p) for p in self.people]
            for p, v in zip(self.people, views, strict=True):
                allowed = v.get("allowed") or []
                if "move" in allowed:
                    await self.move(p, v)
                    return
                if "roll" in allowed:
                    if not v.get("in_game"):
                        self.games += 1
                    await self.throw(p)
                    return
            await asyncio.sleep(0.1)
        raise RuntimeError(f"nothing offered to either player: {views[0].get('game')}")

    async def said(self, p: Person) -> str:
        """What the API's view says to ``p`` (for the message of a wait that fails)."""
        v = await self.view(p)
        game = v.get("game") or {}
        return (
            f"the API's view for {p.name}: v{v.get('version')}, allowed {v.get('allowed')},"
            f" phase {game.get('phase')}, dice {game.get('dice')}, status {game.get('status')}"
        )

    def other(self, p: Person) -> Person:
        return self.people[1 - self.people.index(p)]

    async def throw(self, p: Person) -> None:
        page = p.page
        button = page.get_by_test_id("cmd-roll")
        await button.wait_for(state="visible")
        await page.evaluate("() => __bench.arm('dice')")
        await button.click()
        try:
            got = await seen(page, "dice")
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}; {await self.said(p)}") from None
        click = await page.evaluate("() => __bench.clicks['cmd-roll']")
        if got["how"] == "dice":
            self.roll.append(got["frame"] - click["t"])
            self.roll_dom.append(got["dom"] - click["t"])
            times = await page.evaluate(
                "() => ({command: __bench.command(), message: Math.max("
                " __bench.arrived.dice_rolled || 0, __bench.arrived.opening_throw || 0)})"
            )
            parts = self.parts.setdefault(self.stage, {})
            command = times["command"] or {}
            for key, at in (
                ("command_sent", command.get("start")),
                ("command_answered", command.get("end")),
                ("message", times["message"] or None),
                ("dom", got["dom"]),
            ):
                if at is not None and at >= click["t"]:
                    parts.setdefault(key, []).append(at - click["t"])
        else:  # no legal move: the turn passed, and the page shows no dice
            self.passed.append(round(got["frame"] - click["t"], 2))

    def route(self, game: dict[str, Any]) -> list[tuple[int, int]]:
        """One of the server's legal plays, one checker and one die at a time."""
        plays = game.get("legal_plays")
        if plays and plays[0].get("steps"):
            return [(a, b) for a, b, *_ in self.rng.choice(plays)["steps"][0]]
        tree = game["play_tree"]  # a tree of single-die steps: one path from node 0
        out, node = [], 0
        while True:
            a, b, _hit, nxt = self.rng.choice(tree[node])
            out.append((a, b))
            if not nxt:
                return out
            node = nxt

    async def move(self, p: Person, view: dict[str, Any]) -> None:
        page, them = p.page, self.other(p)
        game = view["game"]
        dice = ",".join(str(d) for d in game["dice"])
        # The opponent's page has drawn the throw (the play then changes only its checkers).
        await them.page.locator(f'[data-testid="dice"][data-dice="{dice}"]').wait_for()
        await page.get_by_test_id("move-made").wait_for()
        for a, b in self.route(game):
            await page.get_by_test_id(f"point-{a}").click()
            await page.get_by_test_id(f"point-{b}").click()
        confirm = page.get_by_test_id("cmd-confirm")
        await confirm.wait_for(state="visible")
        await them.page.evaluate("() => __bench.arm('board')")
        await confirm.click()
        try:
            got = await seen(them.page, "board")
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}; {await self.said(them)}") from None
        click = await page.evaluate("() => __bench.clicks['cmd-confirm']")
        # Each time on its page's clock, then on this process's: the click's and the frame's.
        sent = click["origin"] + click["t"] - p.offset
        for key, out in (("frame", self.confirm), ("dom", self.confirm_dom)):
            out.append(got["origin"] + got[key] - them.offset - sent)

    # -- a first load ----------------------------------------------------------------------

    async def first_load(self, browser: Browser) -> None:
        """The table's link opened in a fresh context (an empty cache) as the first player."""
        context = await self.people[0].context(browser)
        try:
            page = watch(await context.new_page(), "first load")
            await page.goto(f"{self.url}/#/table/{self.table}")
            got = await seen(page, "load")
            await asyncio.sleep(1.0)
            later = await page.evaluate("() => __bench.bytes()")
            nav = await page.evaluate(
                "() => { const n = performance.getEntriesByType('navigation')[0];"
                " return n ? {ttfb: n.responseStart, dcl: n.domContentLoadedEventEnd,"
                " load: n.loadEventEnd} : {}; }"
            )
            self.loads.append(
                {
                    "ms": round(got["frame"], 2),
                    "dom_ms": round(got["dom"], 2),
                    "bytes": got["bytes"],
                    "requests": got["requests"],
                    "bytes_after_1s": later["bytes"],
                    "requests_after_1s": later["requests"],
                    "ttfb_ms": round(nav.get("ttfb", 0.0), 2),
                    "dom_content_loaded_ms": round(nav.get("dcl", 0.0), 2),
                }
            )
        finally:
            await context.close()

    async def play(self, browser: Browser, samples: int, loads: int) -> None:
        """Turns until there are ``samples`` rolls and confirms, a first load every few turns."""
        turns = 0
        while len(self.roll) < samples or len(self.confirm) < samples or len(self.loads) < loads:
            if len(self.loads) < loads and turns % 4 == 3:
                await self.first_load(browser)
            await self.turn()
            turns += 1
            if DEBUG:
                print(
                    f"turn {turns}: {len(self.roll)} rolls, {len(self.confirm)} confirms",
                    file=sys.stderr,
                    flush=True,
                )
            await asyncio.sleep(PAUSE_S)
            if turns > 50 * samples + 20 * loads:
                raise RuntimeError("the game did not give the samples")


# -- what shares the cores -----------------------------------------------------------------------


def _cpu(proc: psutil.Process) -> float:
    try:
        t = proc.cpu_times()
        return float(t.user + t.system)
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return 0.0


class Cores:
    """CPU seconds of each party between two readings."""

    def __init__(self, server: Server, generator_pids: list[int]) -> None:
        self.server = server
        self.generators = [psutil.Process(pid) for pid in generator_pids]
        self.me = psutil.Process()

    def browser(self) -> dict[int, float]:
        skip = {self.server.ps.pid, *(g.pid for g in self.generators)}
        out = {}
        for child in self.me.children(recursive=True):
            if child.pid in skip or child.pid == self.server.proc.pid:
                continue
            with_parents = {p.pid for p in child.parents()}
            if with_parents & skip:
                continue
            out[child.pid] = _cpu(child)
        return out

    @staticmethod
    def postgres() -> dict[int, float]:
        out = {}
        for proc in psutil.process_iter(["name"]):
            if (proc.info.get("name") or "").startswith("postgres"):
                out[proc.pid] = _cpu(proc)
        return out

    def read(self) -> dict[str, Any]:
        busy = psutil.cpu_times()
        return {
            "t": time.perf_counter(),
            "server": self.server.cpu(),
            "generator": sum(_cpu(g) for g in self.generators),
            "browser": self.browser(),
            "bench": _cpu(self.me),
            "postgres": self.postgres(),
            "machine": float(busy.user + busy.nice + busy.system + busy.irq + busy.softirq),
        }

    @staticmethod
    def shares(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        wall = b["t"] - a["t"]
        used = {k: b[k] - a[k] for k in ("server", "generator", "bench", "machine")}
        # The processes alive at the end (a closed context's renderer, a closed connection's
        # backend take the CPU they used with them).
        for k in ("browser", "postgres"):
            used[k] = sum(v - a[k].get(pid, 0.0) for pid, v in b[k].items())
        ours = sum(used[k] for k in ("server", "generator", "bench", "postgres", "browser"))
        cores = {k: round(v / wall, 3) for k, v in used.items() if k != "machine"}
        cores["rest_of_machine"] = round(max(0.0, used["machine"] - ours) / wall, 3)
        cores["machine_busy"] = round(used["machine"] / wall, 3)
        return {
            "seconds": round(wall, 1),
            "cpu_count": psutil.cpu_count(),
            "cores_used": cores,
            "generator_over_server": round(used["generator"] / max(used["server"], 1e-9), 3),
            "load_average_1m": round(os.getloadavg()[0], 2),
        }


# -- the run ---------------------------------------------------------------------------------------


async def _js_profile(page: Page) -> Any:
    """A DevTools session sampling ``page``'s JavaScript (every 200 µs) until it is sent
    ``Profiler.stop``."""
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("Profiler.enable")
    await cdp.send("Profiler.setSamplingInterval", {"interval": 200})
    await cdp.send("Profiler.start")
    return cdp


async def run(
    dsn: str,
    tables: int,
    samples: int,
    loads: int,
    processes: int,
    seed: int,
    log: Any,
    unloaded: int = 0,
    js_profile: str | None = None,
) -> dict[str, Any]:
    server = Server(dsn)
    try:
        await server.ready()
        log("server ready")
        specs = await Clients([server.url], processes).create(tables) if tables else []
        clients = Clients([server.url], processes)
        try:
            await clients.connect(specs, seed)
            log(f"{tables} background tables connected")
            await asyncio.sleep(SETTLE_S if tables >= 100 else 1.0)
            async with async_playwright() as pw, aiohttp.ClientSession() as http:
                browser = await pw.chromium.launch(
                    executable_path=chromium(), headless=True, args=CHROMIUM_ARGS
                )
                game = Game(server.url, http, seed)
                await game.setup(browser)
                log("two pages at the table")
                window = Window(server)
                cores = Cores(server, clients.pids())
                marks: dict[str, Any] = {}

                async def measure() -> None:
                    await window.start()
                    marks["a"] = cores.read()
                    await game.play(browser, samples, loads)
                    marks["b"] = cores.read()
                    await window.end()

                stats = await clients.phase(0, Phase(3.0, 0.5), on_start=measure)
                figures = window.figures()  # (the server's RSS: while it runs)
                log(f"{len(game.roll)} rolls, {len(game.confirm)} confirms, loaded")
                base: dict[str, Any] = {}
                if unloaded:
                    # The same game once the background load has stopped: what the rest of the
                    # machine leaves the pages and the server, in the same run.
                    await clients.close()
                    await asyncio.sleep(1.0)
                    loaded = game.roll, game.confirm, game.roll_dom, game.confirm_dom
                    game.roll, game.confirm, game.roll_dom, game.confirm_dom = [], [], [], []
                    c0 = cores.read()
                    game.stage = "unloaded"
                    pages = game.people if js_profile else []
                    profiling = [await _js_profile(p.page) for p in pages]
                    await game.play(browser, unloaded, 0)
                    for i, cdp in enumerate(profiling):
                        done = await cdp.send("Profiler.stop")
                        Path(f"{js_profile}.{i}.cpuprofile").write_text(json.dumps(done["profile"]))
                    base = {
                        "roll": dist(game.roll) | {"parts": _p50s(game.parts.get("unloaded"))},
                        "confirm": dist(game.confirm),
                        "cores": Cores.shares(c0, cores.read()),
                    }
                    game.roll, game.confirm, game.roll_dom, game.confirm_dom = loaded
                    log(f"{unloaded} rolls and confirms without the background load")
                await browser.close()
        finally:
            await clients.close()
    finally:
        server.stop()
    background = summary(stats, len(specs), 3.0)
    load_ms = [x["ms"] for x in game.loads]
    roll, confirm, first = dist(game.roll), dist(game.confirm), dist(load_ms)
    a, b = game.people
    out = {
        "bench": "browser",
        "roll": roll
        | {
            "to_dom_change": dist(game.roll_dom),
            "turn_passed_ms": game.passed,
            "parts": _p50s(game.parts.get("loaded")),
        },
        "confirm": confirm | {"to_dom_change": dist(game.confirm_dom)},
        "first_load": first
        | {
            "loads": game.loads,
            "bytes": game.loads[0]["bytes"] if game.loads else 0,
            "bytes_after_1s": game.loads[0]["bytes_after_1s"] if game.loads else 0,
        },
        "targets": TARGETS,
        "pass": {
            "roll_p95": roll["p95_ms"] <= TARGETS["roll_p95_ms"],
            "confirm_p95": confirm["p95_ms"] <= TARGETS["confirm_p95_ms"],
            "first_load": first["p95_ms"] <= TARGETS["first_load_ms"],
        },
        "without_background": base,
        "game": {"games": game.games, "table": game.table},
        "page_errors": ERRORS[:10],
        "console_errors": CONSOLE[:10],
        "clock": {
            "skew_ms": round(a.offset - b.offset, 3),
            "bound_ms": round(a.bound + b.bound, 3),
        },
        "background": {
            "tables": background["tables"],
            "offered_per_s": background["offered_per_s"],
            "sent_per_s": background["sent_per_s"],
            "served_per_s": background["served_per_s"],
            "p99_ms": background["p99_ms"],
            "fanout_p99_ms": background["fanout_p99_ms"],
            "errors": background["errors"],
            "error_samples": background["error_samples"],
        },
        "server": {
            k: figures[k]
            for k in (
                "server_commands",
                "server_cpu_per_command_us",
                "loop_stall_max_ms",
                "server_rss_mb",
            )
        },
        "cores": Cores.shares(marks["a"], marks["b"]),
    }
    return out


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="15 samples, 3 first loads, 10 unloaded")
    ap.add_argument("--tables", type=int, default=500, help="human-pace background tables")
    ap.add_argument("--samples", type=int, help="rolls and confirms measured (40; --quick 15)")
    ap.add_argument("--loads", type=int, help="first loads measured (5; --quick 3)")
    ap.add_argument("--processes", type=int, default=2, help="load generator processes")
    ap.add_argument(
        "--unloaded",
        type=int,
        help="rolls and confirms measured again once the background load stops (20; --quick 10)",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--database", help="use this (migrated) database as it is")
    ap.add_argument(
        "--js-profile",
        metavar="PREFIX",
        help="write each page's JavaScript CPU profile over the unloaded turns to"
        " PREFIX.0.cpuprofile and PREFIX.1.cpuprofile (Chrome DevTools' format)",
    )
    args = ap.parse_args()
    samples = args.samples or (15 if args.quick else 40)
    loads = args.loads or (3 if args.quick else 5)
    unloaded = args.unloaded if args.unloaded is not None else (10 if args.quick else 20)
    began = time.perf_counter()

    def log(what: str) -> None:
        print(f"[{time.perf_counter() - began:6.1f} s] {what}", file=sys.stderr, flush=True)

    async def go(dsn: str) -> dict[str, Any]:
        return await run(
            dsn,
            args.tables,
            samples,
            loads,
            args.processes,
            args.seed,
            log,
            unloaded,
            args.js_profile,
        )

    out = await (go(args.database) if args.database else in_scratch("bench_browser", go))
    out["seconds"] = round(time.perf_counter() - began, 1)
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
