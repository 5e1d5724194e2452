"""Outside bots' decision latency (``chouette bot run``, outside/), for bench/bots.py: beside the
in-server bots' decisions, what an outside engine costs a decision, and what a whole turn costs
through the runner and the public protocol.

- ``outside_<engine>_<decision>_ms_*``: on bench/bots.py's positions, the question asked of the
  engine and its answer checked (:func:`outside.decide.answer_of`: the play parsed and found
  legal), timed one by one: ``basic`` (in the runner's process) and ``cmd_gnubg`` (GNU
  Backgammon's program through scripts/gnubg-engine, over the line protocol's pipes, 0-ply),
  for a checker play (``play``) and a cube decision before rolling (``double``). The in-server
  bots' own figures are bench/bots.py's ``basic_play_ms_*`` and ``gnubg_play_ms_*``.
- ``outside_runner_<engine>_turn_ms_*``: one ``serve`` process (bench/server.py, a scratch
  database, bots at pace 0), an outside bot (:class:`outside.runner.BotRunner`, in this
  process) playing a match against the in-server ``basic`` bot: for each command the outside
  bot sent, from the arrival on its WebSocket of the event that gave it the turn to the
  command recorded (the table view read, the engine asked, the answer checked, the command
  posted and answered).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp

from bench.kit.scratch import scratch_database
from bench.server import Server
from client import Client
from engine.matchid import MatchState
from engine.position import Position
from outside.decide import Question, answer_of
from outside.engines import BasicEngine, CommandEngine, Engine
from outside.runner import BotRunner

ROOT = Path(__file__).resolve().parents[1]
ADAPTER = ROOT / "scripts" / "gnubg-engine"
GNUBG = Path("/usr/games/gnubg")
MONEY = MatchState().match_id()


def _ms(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50": round(ordered[len(ordered) // 2] * 1e3, 4),
        "p99": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1e3, 4),
        "mean": round(statistics.fmean(ordered) * 1e3, 4),
    }


def engines() -> dict[str, Engine]:
    """The engines measured: ``basic``, and GNU Backgammon's program when installed."""
    out: dict[str, Engine] = {"basic": BasicEngine()}
    if GNUBG.exists():
        out["cmd_gnubg"] = CommandEngine(f"{sys.executable} {ADAPTER}", timeout=60)
    return out


async def _engine_latency(
    name: str, engine: Engine, corpus: list[tuple[Position, tuple[int, int]]]
) -> dict[str, Any]:
    await engine.start()
    try:
        first = Question("move", corpus[0][0].position_id(), MONEY, corpus[0][1])
        await engine.answer(first)  # warm (the program loads its networks)
        plays: list[float] = []
        cubes: list[float] = []
        for pos, dice in corpus:
            pid = pos.position_id()
            move, cube = Question("move", pid, MONEY, dice), Question("cube", pid, MONEY)
            t0 = time.perf_counter()
            answer_of(move, await engine.answer(move))
            t1 = time.perf_counter()
            answer_of(cube, await engine.answer(cube))
            t2 = time.perf_counter()
            plays.append(t1 - t0)
            cubes.append(t2 - t1)
    finally:
        await engine.close()
    out: dict[str, Any] = {}
    for decision, samples in (("play", plays), ("double", cubes)):
        for key, value in _ms(samples).items():
            out[f"outside_{name}_{decision}_ms_{key}"] = value
    return out


async def _post(session: aiohttp.ClientSession, url: str, body: Any, token: str) -> Any:
    async with session.post(url, json=body, headers={"Authorization": f"Bearer {token}"}) as r:
        r.raise_for_status()
        return await r.json()


async def _runner_match(url: str, engine: Engine, length: int) -> BotRunner:
    """An outside bot with ``engine`` against the server's basic bot, a match to ``length``."""
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{url}/guests", json={"display_name": "creator"}) as r:
            creator = (await r.json())["token"]
        table = await _post(
            session,
            f"{url}/tables",
            {"kind": "match", "name": "outside", "options": {"match_length": length}},
            creator,
        )
    async with Client(url) as client:
        await client.guest("outside bot")
        runner = BotRunner(client, engine)
        task = asyncio.create_task(runner.run([table["id"]]))
        async with aiohttp.ClientSession() as session:
            while True:
                async with session.get(
                    f"{url}/tables/{table['id']}", headers={"Authorization": f"Bearer {creator}"}
                ) as r:
                    view = await r.json()
                if len(view["players"]) == 1:
                    break
                await asyncio.sleep(0.05)
            await _post(
                session,
                f"{url}/tables/{table['id']}/bots",
                {"strength": "basic"},
                creator,
            )
        async with asyncio.timeout(600):
            await task
    return runner


async def _runner_latency(quick: bool) -> dict[str, Any]:
    base = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
    out: dict[str, Any] = {}
    async with scratch_database(base, "bench_outside") as dsn:
        os.environ["CHOUETTE_BOT_PACE"] = "0"
        try:
            server = Server(dsn)
        finally:
            del os.environ["CHOUETTE_BOT_PACE"]
        try:
            await server.ready()
            for name, engine in engines().items():
                runner = await _runner_match(server.url, engine, 3 if quick else 7)
                turns = [t.seconds for t in runner.turns]
                for key, value in _ms(turns).items():
                    out[f"outside_runner_{name}_turn_ms_{key}"] = value
                out[f"outside_runner_{name}_commands"] = len(turns)
        finally:
            server.stop()
    return out


def outside_latency(
    corpus: list[tuple[Position, tuple[int, int]]], quick: bool, runner: bool = True
) -> dict[str, Any]:
    """bench/bots.py's outside keys (see the module's docstring)."""
    out: dict[str, Any] = {}
    for name, engine in engines().items():
        out.update(asyncio.run(_engine_latency(name, engine, corpus)))
    if not GNUBG.exists():
        out["outside_cmd_gnubg"] = "not installed: apt-get install gnubg"
    if runner:
        out.update(asyncio.run(_runner_latency(quick)))
    return out
