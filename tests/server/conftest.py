"""Fixtures and helpers for the server's tests: a real app on a real socket, over a fresh database.

- ``config``: the :class:`~server.config.Config` for this test's database, with seeded dice
  (:class:`SeededDice`, seed :data:`SEED`) through the test-only dice seam.
- ``app``, ``client``: the app from ``create_app(config)`` served by pytest-aiohttp on a
  localhost port, and a :class:`~aiohttp.test_utils.TestClient` for it.
- ``api``: an :class:`Api` on that client: register users, create tables, send commands, read
  the state and the streams' versions, play whole games.

The helpers speak the public protocol only (HTTP, WebSocket, SSE); the one thing they read
from inside the app is a stream's version (to prove that a refused command stored nothing).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import msgspec
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from dice import SeededDice

from events.domain import types as e
from events.domain.decider import evolve
from events.domain.table import TableState
from events.store.streams import chat_stream, table_stream
from server.app import create_app
from server.config import Config
from server.keys import TABLES
from tests.db import *  # noqa: F403 (the database fixtures, by name: tests.db.__all__)

SEED = 20261129
"""The dice seed of the in-process tests (:class:`SeededDice`)."""

SIGNING_KEY = bytes(range(32))
SEED_KEY = bytes(range(2, 34))
"""The tests' seed key, and so their master key of the personal data keys (docs/privacy.md)."""
"""The key that signs the chain heads of the in-process tests."""

PROBLEM = "application/problem+json"
ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable


# -- users, tables, commands -------------------------------------------------------------------


@dataclass(frozen=True)
class User:
    token: str
    account_id: str
    username: str
    display_name: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@dataclass
class Reply:
    """An HTTP answer: status, headers, content type and the decoded JSON body (or text)."""

    status: int
    content_type: str
    headers: Any
    body: Any

    def problem(self, status: int, slug: str | None = None) -> dict[str, Any]:
        """Assert a RFC 9457 problem with this status (and type slug) and return it."""
        assert self.status == status, (self.status, self.body)
        assert self.content_type == PROBLEM, self.content_type
        body = self.body
        assert isinstance(body, dict)
        for key, kind in (("type", str), ("title", str), ("status", int), ("detail", str)):
            assert isinstance(body.get(key), kind), (key, body)
        assert body["status"] == status
        assert body["detail"]
        if slug is not None:
            assert body["type"].rsplit("/", 1)[-1] == slug, body
        return body


class Api:
    """The protocol, spoken by a test client."""

    def __init__(self, client: TestClient, app: web.Application | None = None) -> None:
        self.client = client
        self.app = app
        self._names = 0

    # -- plumbing ---------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        path: str,
        *,
        user: User | None = None,
        json: Any = None,
        data: bytes | str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        h = dict(user.headers if user else {})
        h.update(headers or {})
        if json is not None:
            data = msgspec.json.encode(json)
            h.setdefault("Content-Type", "application/json")
        async with self.client.request(method, path, data=data, headers=h) as resp:
            raw = await resp.read()
            ctype = resp.content_type
            body: Any = raw.decode("utf-8", "replace")
            if ctype in ("application/json", PROBLEM):
                body = msgspec.json.decode(raw)
            return Reply(resp.status, ctype, resp.headers, body)

    # -- accounts ---------------------------------------------------------------------------

    async def register(self, name: str | None = None, password: str = "correct horse") -> User:
        self._names += 1
        username = name or f"user{self._names}_{uuid.uuid4().hex[:6]}"
        r = await self.request(
            "POST",
            "/accounts",
            json={"username": username, "password": password, "display_name": username.title()},
        )
        assert r.status == 201, r.body
        return User(r.body["token"], r.body["account_id"], username, r.body["display_name"])

    async def guest(self, display_name: str = "") -> User:
        r = await self.request("POST", "/guests", json={"display_name": display_name})
        assert r.status == 201, r.body
        b = r.body
        return User(b["token"], b["account_id"], b["username"], b["display_name"])

    # -- tables -----------------------------------------------------------------------------

    async def create_table(self, user: User, kind: str = "money", **options: Any) -> str:
        r = await self.request(
            "POST",
            "/tables",
            user=user,
            json={"kind": kind, "options": options, "name": f"{kind} table"},
        )
        assert r.status == 201, r.body
        return str(r.body["id"])

    async def send(
        self,
        user: User | None,
        table_id: str,
        command: dict[str, Any],
        command_id: str | None = None,
    ) -> Reply:
        return await self.request(
            "POST",
            f"/tables/{table_id}/commands",
            user=user,
            json={"command_id": command_id or str(uuid.uuid4()), "command": command},
        )

    async def ok(self, user: User, table_id: str, type_: str, **fields: Any) -> dict[str, Any]:
        """Send a command that must be recorded; returns the command result."""
        r = await self.send(user, table_id, {"type": type_, **fields})
        assert r.status == 201, (type_, fields, r.body)
        return dict(r.body)

    async def state(self, table_id: str, user: User | None = None) -> dict[str, Any]:
        r = await self.request("GET", f"/tables/{table_id}", user=user)
        assert r.status == 200, r.body
        return dict(r.body)

    async def seat_two(self, kind: str = "money", **options: Any) -> tuple[str, User, User]:
        """A table with two players seated (which starts game 1)."""
        a, b = await self.register(), await self.register()
        table = await self.create_table(a, kind, **options)
        await self.ok(a, table, "join")
        await self.ok(b, table, "join")
        return table, a, b

    async def versions(self, table_id: str) -> tuple[int, int]:
        """The table and chat streams' versions, read from the store."""
        assert self.app is not None
        store = self.app[TABLES].store
        return (
            await store.stream_version(table_stream(table_id)),
            await store.stream_version(chat_stream(table_id)),
        )

    # -- playing ----------------------------------------------------------------------------

    async def step(
        self, table_id: str, users: dict[str, User], rng: random.Random
    ) -> tuple[User, dict[str, Any]]:
        """Make the next move of a game with no cube action: roll (the opening throw by seat
        0), play a legal play chosen by ``rng`` from ``game.legal_plays``, take, accept."""
        s = await self.state(table_id)
        command, who = next_action(s, rng)
        user = users[who]
        await self.ok(user, table_id, **command)
        return user, s

    async def play_out(
        self, table_id: str, users: dict[str, User], rng: random.Random, limit: int = 2000
    ) -> dict[str, Any]:
        """Play the current game to its end by legal plays; returns the state after it."""
        start = await self.state(table_id)
        number = start["game"]["number"]
        for _ in range(limit):
            s = await self.state(table_id)
            if s.get("match_winner") or not s["in_game"] or s["game"]["number"] != number:
                return s
            command, who = next_action(s, rng)
            await self.ok(users[who], table_id, **command)
        raise AssertionError(f"game {number} did not end in {limit} actions")

    async def until_phase(
        self,
        table_id: str,
        users: dict[str, User],
        rng: random.Random,
        done: Callable[[dict[str, Any]], bool],
        limit: int = 2000,
    ) -> dict[str, Any]:
        """Play legal plays until ``done(state)``."""
        for _ in range(limit):
            s = await self.state(table_id)
            if done(s):
                return s
            command, who = next_action(s, rng)
            await self.ok(users[who], table_id, **command)
        raise AssertionError("the awaited moment never came")


def only(to_act: list[str]) -> str:
    """The one player a two-player table waits for (``game.to_act`` lists everyone)."""
    assert len(to_act) == 1, to_act
    return to_act[0]


def notations(game: dict[str, Any]) -> list[str]:
    """The legal plays of a view's game in notation (``game.legal_plays`` also has steps)."""
    return [p["notation"] for p in game["legal_plays"]]


def next_action(s: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], str]:
    """The next action of a plain game, from a ``GET /tables/{id}`` view: (command, who)."""
    g = s["game"]
    phase = g["phase"]
    if phase == "opening":
        return {"type_": "roll"}, s["seats"][0]
    if phase == "roll":
        return {"type_": "roll"}, only(g["to_act"])
    if phase == "move":
        play = rng.choice(g["legal_plays"])["notation"]
        return {"type_": "move", "notation": play}, only(g["to_act"])
    if phase == "doubled":
        return {"type_": "take"}, only(g["to_act"])
    if phase == "resignation":
        return {"type_": "accept"}, only(g["to_act"])
    raise AssertionError(f"no next action in phase {phase!r}")


# -- chouettes ----------------------------------------------------------------------------------


async def chouette(api: Api, players: int = 4, **options: Any) -> tuple[str, dict[str, User]]:
    """A chouette of ``players`` who have thrown for the line (game 1 in its opening)."""
    users = [await api.register() for _ in range(players)]
    table = await api.create_table(users[0], "chouette", **options)
    for u in users:
        await api.ok(u, table, "join")
    started = await api.ok(users[0], table, "start_game")
    types = [m["t"] for m in started["events"]]
    assert types[0] == "game_started" and set(types[1:]) == {"line_throw"}, types
    return table, {u.account_id: u for u in users}


def cube_of(s: dict[str, Any], member: str) -> dict[str, Any]:
    return next(c for c in s["game"]["cubes"] if c["member"] == member)


def next_chouette_action(s: dict[str, Any], rng: random.Random) -> tuple[str, dict[str, Any]]:
    """The next action of a chouette game with no new cube action: (who, command). Doubles are
    taken, resignations declined."""
    g = s["game"]
    if g["phase"] == "opening":
        return s["box"], {"type": "roll"}
    for cube in g["cubes"]:
        if not cube["in_game"]:
            continue
        if cube["pending"]:
            to = cube["pending"]["to_answer"]
            if to == s["box"]:
                return s["box"], {"type": "take", "cube": cube["member"]}
            return to, {"type": "take"}
        if cube["resignation"]:
            if cube["resignation"]["by"] == s["box"]:
                return cube["member"], {"type": "decline"}
            return s["box"], {"type": "decline", "cube": cube["member"]}
    if g["phase"] == "roll":
        return g["on_roll"], {"type": "roll"}
    if g["phase"] == "move":
        play = rng.choice(g["legal_plays"])["notation"]
        return g["on_roll"], {"type": "move", "notation": play}
    raise AssertionError(f"no next action in {g['phase']!r}")


async def advance(
    api: Api,
    table: str,
    users: dict[str, User],
    rng: random.Random,
    until: Callable[[dict[str, Any]], bool],
    limit: int = 3000,
) -> dict[str, Any]:
    """Play on (legal plays, doubles taken) until ``until(state)``."""
    for _ in range(limit):
        s = await api.state(table)
        if until(s):
            return s
        who, command = next_chouette_action(s, rng)
        await api.ok(users[who], table, **{"type_": command.pop("type"), **command})
    raise AssertionError("the awaited moment never came")


def turn_of(s: dict[str, Any]) -> str | None:
    """``"box"`` or ``"team"``: the side on turn (``game.turn`` indexes ``game.sides``)."""
    g = s.get("game") or {}
    if g.get("turn") is None:
        return None
    return "box" if s["box"] in g["sides"][g["turn"]]["players"] else "team"


def answers_due(s: dict[str, Any]) -> bool:
    """Whether anyone owes an answer to a double or a resignation offer."""
    cubes = (s.get("game") or {}).get("cubes", [])
    return any(c["in_game"] and (c["pending"] or c["resignation"]) for c in cubes)


def team_on_roll(s: dict[str, Any]) -> bool:
    g = s.get("game") or {}
    return g.get("phase") == "roll" and turn_of(s) == "team" and not answers_due(s)


def box_on_roll(s: dict[str, Any]) -> bool:
    g = s.get("game") or {}
    return g.get("phase") == "roll" and turn_of(s) == "box" and not answers_due(s)


# -- streams ------------------------------------------------------------------------------------


def to_event(d: Any) -> e.Event:
    """An event from a stream message's ``d``."""
    return msgspec.convert(d, e.AnyEvent)  # type: ignore[arg-type]


class Fold:
    """A client's own fold of the table stream's messages (the only way to get a state)."""

    def __init__(self) -> None:
        self.state = TableState()

    def feed(self, message: dict[str, Any]) -> None:
        assert message["s"] == "table"
        assert message["v"] == self.state.version + 1, (message["v"], self.state.version)
        self.state = evolve(self.state, to_event(message["d"]))


@dataclass
class WsClient:
    """A WebSocket client of a table: a reader task files events and command replies."""

    ws: aiohttp.ClientWebSocketResponse
    messages: list[dict[str, Any]] = field(default_factory=list)
    controls: list[dict[str, Any]] = field(default_factory=list)
    presence: list[dict[str, Any]] = field(default_factory=list)
    """The ``presence`` control messages (who is connected), apart from the replies."""
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    replies: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None
    base: dict[str, int] = field(default_factory=dict)
    """The versions the client resumed after (``after``, ``chat_after``)."""

    def start(self) -> WsClient:
        self.task = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        async for msg in self.ws:
            if msg.type not in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
                break
            doc = msgspec.json.decode(msg.data)
            if doc.get("ctl") == "presence":
                self.presence.append(doc)
            elif "ctl" in doc:
                self.controls.append(doc)
                future = self.replies.pop(str(doc.get("command_id")), None)
                if future is not None and not future.done():
                    future.set_result(doc)
            else:
                self.messages.append(doc)
            self.arrived.set()

    def stream(self, name: str = "table") -> list[dict[str, Any]]:
        return [m for m in self.messages if m["s"] == name]

    def last(self, name: str = "table") -> int:
        got = self.stream(name)
        return got[-1]["v"] if got else self.base.get(name, 0)

    async def wait_for(self, predicate: Callable[[WsClient], bool], timeout: float = 10) -> None:
        async with asyncio.timeout(timeout):
            while not predicate(self):
                self.arrived.clear()
                if self.task is not None and self.task.done():
                    raise AssertionError("the socket closed while waiting")
                # Woken by a message, or now and then for predicates on other things.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.1):
                        await self.arrived.wait()

    async def wait_version(self, version: int, name: str = "table", timeout: float = 10) -> None:
        await self.wait_for(lambda c: c.last(name) >= version, timeout)

    async def command(
        self, command: dict[str, Any], command_id: str | None = None, timeout: float = 10
    ) -> dict[str, Any]:
        """Send a command envelope on the socket; the ``result`` or ``error`` reply."""
        cid = command_id or str(uuid.uuid4())
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[cid] = future
        await self.ws.send_bytes(msgspec.json.encode({"command_id": cid, "command": command}))
        async with asyncio.timeout(timeout):
            return await future

    async def raw(self, data: str | bytes, timeout: float = 10) -> dict[str, Any]:
        """Send anything; the next control reply."""
        seen = len(self.controls)
        if isinstance(data, str):
            await self.ws.send_str(data)
        else:
            await self.ws.send_bytes(data)
        await self.wait_for(lambda c: len(c.controls) > seen, timeout)
        return self.controls[seen]

    async def close(self) -> None:
        await self.ws.close()
        if self.task is not None:
            with contextlib.suppress(Exception):
                await self.task


def assert_gap_free(messages: list[dict[str, Any]], after: int = 0) -> None:
    """Versions ``after + 1, after + 2, ...`` with nothing missing or repeated."""
    versions = [m["v"] for m in messages]
    assert versions == list(range(after + 1, after + 1 + len(versions))), versions[:50]


def samples(text: str, name: str) -> dict[str, float]:
    """``{labels: value}`` of a metric in the Prometheus text format."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        m = re.match(rf"^{re.escape(name)}(\{{[^}}]*\}})? (\S+)$", line)
        if m:
            out[m.group(1) or ""] = float(m.group(2))
    return out


async def ticket(client: TestClient, user: User) -> str:
    """A stream ticket for ``user`` (``POST /tickets``): how a browser opens a WebSocket or an
    EventSource as its account, since it cannot send the ``Authorization`` header there."""
    async with client.post("/tickets", headers=user.headers) as resp:
        body = await resp.json()
        assert resp.status == 201, body
        return str(body["ticket"])


def ws_path(table_id: str, ticket: str | None = None, **query: int) -> str:
    params = [f"{k}={v}" for k, v in query.items()]
    if ticket is not None:
        params.append(f"ticket={ticket}")
    return f"/tables/{table_id}/ws" + ("?" + "&".join(params) if params else "")


async def connect(
    client: TestClient, table_id: str, user: User | None = None, **query: int
) -> WsClient:
    """A WebSocket on the table, as ``user`` (with a ticket) or anonymous."""
    pass_ = await ticket(client, user) if user is not None else None
    ws = await client.ws_connect(ws_path(table_id, pass_, **query))
    base = {"table": query.get("after", 0), "chat": query.get("chat_after", 0)}
    return WsClient(ws, base=base).start()


async def read_sse(
    resp: aiohttp.ClientResponse,
    count: int,
    timeout: float = 10,
    idle: float | None = None,
    presence: bool = False,
) -> list[tuple[str | None, str | None, dict[str, Any]]]:
    """``count`` Server-Sent Events as ``(event, id, data)`` (fewer if the stream stays
    quiet for ``idle`` seconds); ``presence`` events (who is connected) only if asked."""
    out: list[tuple[str | None, str | None, dict[str, Any]]] = []
    event: str | None = None
    ident: str | None = None
    data: list[str] = []
    async with asyncio.timeout(timeout):
        while len(out) < count:
            try:
                raw = await asyncio.wait_for(resp.content.readline(), idle)
            except TimeoutError:
                break
            if not raw:
                break
            line = raw.decode().rstrip("\n")
            if not line:
                if data and (presence or event != "presence"):
                    out.append((event, ident, msgspec.json.decode("\n".join(data))))
                event, ident, data = None, None, []
                continue
            key, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if key == "event":
                event = value
            elif key == "id":
                ident = value
            elif key == "data":
                data.append(value)
    return out


# -- fixtures -----------------------------------------------------------------------------------


def seeded(seed: int = SEED) -> Callable[[str], SeededDice]:
    return lambda table_id: SeededDice(seed)


@pytest.fixture
def config(db_url: str) -> Config:
    return make_config(db_url)


@pytest.fixture
def app(config: Config) -> web.Application:
    return create_app(config)


@pytest.fixture
async def client(app: web.Application, aiohttp_client: Any) -> TestClient:
    # `app` first: the database (under it) is set up before, and so torn down after, the server.
    return await aiohttp_client(app)


@pytest.fixture
def api(client: TestClient, app: web.Application) -> Api:
    return Api(client, app)


def make_config(db_url: str, **overrides: Any) -> Config:
    values: dict[str, Any] = {
        "database_url": db_url,
        "dice_factory": seeded(),
        "poll_interval": 0.5,
        "pool_size": 10,
        # The tests play at machine speed, far past any rate a person keeps up: the limits
        # are tested on their own (test_rate_limits.py), with defaults a real player meets never.
        "rate_limits": False,
        # Tables start their games' first throws at once unless a test opens a seed window
        # (test_api_seed_window.py): the tests' players add no seeds of their own.
        "seed_window": 0,
        # Bots act at once (the server's default waits a person's second).
        "bot_pace": 0.0,
        # Configured, so that no key file is written where the tests run.
        "signing_key": SIGNING_KEY,
        "seed_key": SEED_KEY,
    }
    values.update(overrides)
    return Config(**values)


@pytest.fixture
def make_api(db_url: str, aiohttp_client: Any) -> Callable[..., Awaitable[Api]]:
    """Another app on this test's database, with ``Config`` fields overridden."""

    async def make(**overrides: Any) -> Api:
        app = create_app(make_config(db_url, **overrides))
        return Api(await aiohttp_client(app), app)

    return make


# -- processes: `python -m server serve`, a private PostgreSQL --------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServeProcess:
    """``python -m server serve`` on a free port against ``database_url``."""

    def __init__(
        self,
        database_url: str,
        log_path: Path,
        port: int | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.database_url = database_url
        self.env = env or {}
        """More environment for the process (``PYTHONPATH`` is put before the project's)."""
        self.port = port or free_port()
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self, timeout: float = 30) -> None:
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [self.env.get("PYTHONPATH"), str(ROOT)]))
        env.update({k: v for k, v in self.env.items() if k != "PYTHONPATH"})
        # The dice seed key file goes here (the test's directory, shared by its processes).
        env["CHOUETTE_DATA_DIR"] = str(self.log_path.parent / "data")
        # Its players add no seeds: their games throw at once (as make_config's).
        env.setdefault("CHOUETTE_SEED_WINDOW", "0")
        env.setdefault("CHOUETTE_BOT_PACE", "0")
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [
                *(PYTHON, "-m", "server", "serve", "--port", str(self.port)),
                *("--database-url", self.database_url, "--log-level", "WARNING"),
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
        )
        log.close()
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession() as session:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise AssertionError(
                        f"serve exited with {self.proc.returncode}: {self.log_path.read_text()}"
                    )
                with contextlib.suppress(aiohttp.ClientError, OSError):
                    async with session.get(f"{self.url}/readyz") as r:
                        if r.status == 200:
                            return
                await asyncio.sleep(0.1)
        raise AssertionError(f"serve did not get ready: {self.log_path.read_text()}")

    def kill(self) -> None:
        """SIGKILL: no cleanup of any kind."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def serve_processes(tmp_path: Path) -> Iterator[Callable[[str], ServeProcess]]:
    """A factory of ``serve`` processes, each stopped at the end of the test."""
    made: list[ServeProcess] = []

    def make(database_url: str) -> ServeProcess:
        p = ServeProcess(database_url, tmp_path / f"serve-{len(made)}.log")
        made.append(p)
        return p

    yield make
    for p in made:
        p.stop()


PG_BIN = Path("/usr/lib/postgresql/15/bin")
PG_USER = "postgres"
"""A non-root system user to run the private server as (PostgreSQL refuses to run as root)."""


class PrivatePostgres:
    """A throw-away PostgreSQL server of this test's own (initdb in a temporary directory), so
    that a test can stop and start it without touching the machine's shared server."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data = root / "data"
        self.port = free_port()

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        command = [str(PG_BIN / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", PG_USER, "--", *command]
        return subprocess.run(command, check=check, capture_output=True, timeout=120)

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def init(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            import pwd

            pw = pwd.getpwnam(PG_USER)
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
            # The server's user must be able to reach the directory.
            for parent in self.root.parents:
                if parent == Path("/"):
                    break
                mode = parent.stat().st_mode
                if not mode & 0o001:
                    os.chmod(parent, mode | 0o011)
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "--no-sync",
            "-E",
            "UTF8",
        )

    def start(self) -> None:
        opts = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
            " -c synchronous_commit=off -c full_page_writes=off -c max_connections=60"
        )
        self._run(
            "pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.root / "log"), "-w", "start"
        )

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)


@pytest.fixture
def private_postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivatePostgres]:
    pg = PrivatePostgres(tmp_path_factory.mktemp("private-pg"))
    pg.init()
    pg.start()
    try:
        yield pg
    finally:
        pg.stop("immediate")


async def http_json(
    session: aiohttp.ClientSession, method: str, url: str, **kwargs: Any
) -> tuple[int, Any]:
    async with session.request(method, url, **kwargs) as r:
        raw = await r.read()
        try:
            return r.status, msgspec.json.decode(raw)
        except msgspec.DecodeError:
            return r.status, raw.decode("utf-8", "replace")


@contextlib.asynccontextmanager
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s
