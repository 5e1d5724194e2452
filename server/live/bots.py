"""The bot runner: bots at this process's tables act through the ordinary command path.

A bot is an account marked as one (``accounts.bot``, its strength in ``accounts.bot_strength``,
its id ``b_...``; docs/bots.md). The runner keeps, per table, the bots seated there and one task
that, woken after each command the table service appends there (:attr:`TableService.on_bot_state
<events.service.TableService.on_bot_state>`), reads the table's state and asks each bot in turn
what it does now (:func:`events.domain.bots.decide_for`). The decision is computed **off the event
loop**, in a process pool of ``CHOUETTE_BOT_WORKERS`` processes (not threads: an evaluation is
pure Python or GNU Backgammon's C under the GIL-holding module, and in a thread it would take the
GIL from the loop that serves every table), within ``CHOUETTE_BOT_TIMEOUT`` seconds. The command
goes, no sooner than ``CHOUETTE_BOT_PACE`` seconds after the bot's turn came, through
:meth:`TableService.execute <events.service.TableService.execute>` with a command id
derived from the table, its version and the bot (UUID 5), so a retry can never record it twice.

A bot whose decision raises, or takes longer than the timeout (its worker process is then
killed and the pool started afresh), or whose command is refused at the very state it was
decided on, leaves its seat through the command path (``leave``: in mid-game a forfeit,
docs/rules.md §10), and the failure is logged with the table's id. The table never waits on a
broken bot.

Bots are watched by the process that seated them, and on start-up the bots of every table the
lobby lists as not finished are watched again. Several ``serve`` processes may share one database
(docs/scaling.md), and a person's commands may go to another process than the one running the
bots: so the runner also follows the play stream of each table where it runs bots through the
process's live feed (:meth:`LiveFeed.subscribe_stream
<events.store.subscription.LiveFeed.subscribe_stream>`, the per-partition feed the WebSocket streams
use), and every new event, whichever process appended it, wakes the table's bots. The in-process
hook stays the fast path; a wake for a version the bots have already looked at, or were already
woken for, is dropped, so the feed's echo of the commands appended here costs no second look
(:attr:`BotRunner.second_looks` counts any). It stops following a table when
no bot of this process is left there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import uuid
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, ProcessPoolExecutor

import asyncpg
from aiohttp import web

from events.domain import commands as c
from events.domain.bots import bot_order, decide_for, settled_command, warm
from events.domain.table import TableState
from events.service import TableService
from events.store.errors import StoreError
from events.store.streams import table_stream
from events.store.subscription import LiveFeed
from server.readmodels.accounts import bots_at_unfinished_tables

__all__ = ["BOTS", "BotRunner", "bot_command_id", "is_bot", "kill_pool"]

log = logging.getLogger("chouette.bots")

BOT_NAMESPACE = uuid.UUID("0f6d1c34-5b1e-4c55-9a51-8f3c0a1f2b7e")
"""The namespace of the bots' command ids."""

STARTUP_TIMEOUT = 120.0
"""Seconds the bot workers may take to start (importing the engine, GNU Backgammon's nets)."""

Decide = Callable[[TableState, str, str, int], "c.Command | None"]


def kill_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a process pool at once, killing its workers (a hung one would never return), and
    cancel what waits in it. The bots' and the analyses' pools (server/http/analysis.py)."""
    for process in list(getattr(pool, "_processes", {}).values()):
        with contextlib.suppress(Exception):
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)


def is_bot(account_id: str) -> bool:
    """Whether an account id is a bot's (bots' ids start ``b_``, as guests' ``g_``)."""
    return account_id.startswith("b_")


def bot_command_id(table_id: str, version: int, bot: str, what: str = "") -> uuid.UUID:
    """The command id of what ``bot`` sends at ``table_id`` decided at ``version``: the same
    decision always has the same id, so a retry is answered, never recorded twice."""
    return uuid.uuid5(BOT_NAMESPACE, f"{table_id}:{version}:{bot}:{what}")


class BotFailed(Exception):
    """A bot's decision raised or ran out of time."""


class PeopleFirst:
    """The people's commands in flight in this process. A bot's command waits for a moment
    when there are none (at most ``most`` seconds), so that it does not start while a person's
    command runs and make it wait: for the same partition's append, the same PostgreSQL
    commit, the same turn of the event loop. Bots act at a person's pace anyway; a few
    milliseconds more go unseen."""

    def __init__(self) -> None:
        self.busy = 0
        self._quiet = asyncio.Event()
        self._quiet.set()
        self.waits = 0
        """How many bot commands found a person's command in flight and waited."""

    def person(self) -> PeopleFirst:
        """A person's command runs while in the block (``with people.person():``; a context
        manager of its own rather than a generator's, which every command paid for)."""
        return self

    def __enter__(self) -> None:
        self.busy += 1
        self._quiet.clear()

    def __exit__(self, *exc_info: object) -> None:
        self.busy -= 1
        if not self.busy:
            self._quiet.set()

    async def quiet(self, most: float) -> None:
        """Return once no person's command is in flight, or after ``most`` seconds."""
        if not self.busy:
            return
        self.waits += 1
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(most):
                await self._quiet.wait()


PEOPLE_FIRST_WAIT = 0.05
"""The longest a bot's command waits for the people's commands in flight (seconds)."""


class BotRunner:
    """The bots of this process's tables (see the module's docstring)."""

    def __init__(
        self,
        tables: TableService,
        *,
        workers: int = 1,
        timeout: float = 10.0,
        pace: float = 0.0,
        ply: int = 0,
        decide: Decide | None = None,
        feed: LiveFeed | None = None,
        retry: float = 1.0,
    ) -> None:
        self.tables = tables
        self.feed = feed
        """The process's live feed: with it, commands other processes append wake the bots."""
        self.retry = retry
        """Seconds to wait before following a table's stream again after the store failed."""
        self.workers = max(1, workers)
        self.timeout = timeout
        self.pace = pace
        self.ply = ply
        self.decide: Decide = decide or decide_for
        self._bots: dict[str, dict[str, str]] = {}
        self._wake: dict[str, asyncio.Event] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._follows: dict[str, asyncio.Task[None]] = {}
        self._seen: dict[str, int] = {}
        """Per table, the newest version the bots have looked at or are woken to look at."""
        self._looked: dict[str, int] = {}
        self.looks = 0
        """States of a table the bots looked at (each one asks every bot there)."""
        self.second_looks = 0
        """Of these, looks at a version they had looked at already: work for nothing, unless a
        bot was just seated, left or removed."""
        self._pool: ProcessPoolExecutor | None = None
        self._starting = asyncio.Lock()
        self.failures = 0
        self.people = PeopleFirst()
        """The people's commands in flight (``server.http.handlers.run_command`` marks them)."""
        tables.on_bot_state = self.changed

    # -- the pool -----------------------------------------------------------------------------

    async def _executor(self) -> ProcessPoolExecutor:
        """The workers, started on first use (a server with no bots starts no process) and
        made ready before any decision is timed."""
        async with self._starting:
            if self._pool is None:
                pool = ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn")
                )
                loop = asyncio.get_running_loop()
                async with asyncio.timeout(STARTUP_TIMEOUT):
                    await asyncio.gather(
                        *(loop.run_in_executor(pool, warm) for _ in range(self.workers))
                    )
                self._pool = pool
            return self._pool

    def _reset_pool(self) -> None:
        """Kill the workers (one of them hangs) and start afresh on the next decision."""
        pool, self._pool = self._pool, None
        if pool is not None:
            kill_pool(pool)

    async def start(self, pool: asyncpg.Pool | None = None) -> None:
        """Watch the bots of the tables the lobby lists as not finished."""
        if pool is not None:
            for table_id, bot, strength in await bots_at_unfinished_tables(pool):
                self.watch(table_id, bot, strength or "basic")

    async def stop(self) -> None:
        tasks = [*self._tasks.values(), *self._follows.values()]
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        self._tasks.clear()
        self._follows.clear()
        self._reset_pool()

    # -- which bots are where -------------------------------------------------------------------

    def watch(self, table_id: str, bot: str, strength: str) -> None:
        """Run ``bot`` (seated at ``table_id``) from now on, and let it act at once."""
        self._bots.setdefault(table_id, {})[bot] = strength
        if self.feed is not None and table_id not in self._follows:
            self._follows[table_id] = asyncio.create_task(self._follow(table_id))
        self._kick(table_id)

    def forget(self, table_id: str, bot: str) -> None:
        bots = self._bots.get(table_id)
        if bots is not None:
            bots.pop(bot, None)
            if not bots:
                del self._bots[table_id]
                self._seen.pop(table_id, None)
                self._looked.pop(table_id, None)
                follow = self._follows.pop(table_id, None)
                if follow is not None:
                    follow.cancel()
        self._kick(table_id)

    def following(self) -> set[str]:
        """The tables whose streams this process follows for its bots."""
        return set(self._follows)

    def bots_at(self, table_id: str) -> dict[str, str]:
        """The bots this process runs at a table, with their strengths."""
        return dict(self._bots.get(table_id, {}))

    def changed(self, table_id: str, state: TableState) -> None:
        """A command was appended at ``table_id``: its bots may have something to do."""
        self._news(table_id, state.version)

    def _news(self, table_id: str, version: int) -> None:
        """The table reached ``version``: wake its bots unless they have looked at it already
        or were woken for it (the feed's echo of what the hook told first)."""
        if table_id in self._bots and version > self._seen.get(table_id, 0):
            # Safe to promise: the wake makes the table's task read the state once more, and
            # whatever it reads then is at least this version.
            self._seen[table_id] = version
            self._kick(table_id)

    async def _follow(self, table_id: str) -> None:
        """Wake the table's bots on every new event of its play stream, whichever process
        appended it, until the table has no bot here (the task is then cancelled)."""
        assert self.feed is not None
        stream = table_stream(table_id)
        version: int | None = None
        while table_id in self._bots:
            try:
                if version is None:
                    version = await self.tables.store.stream_version(stream)
                    # What came before the subscription: looked at unless the bots' last look
                    # was older.
                    self._news(table_id, version)
                async with self.feed.subscribe_stream(stream, version) as sub:
                    async for batch in sub.batches():
                        version = batch[-1].version
                        self._news(table_id, version)
                return  # the feed is closed: the process is stopping
            except Exception as exc:
                # The store went away under the subscription (or anything else went wrong: a
                # table must not stall for it): follow again from where it was, and look at the
                # table once more (something may have been missed meanwhile).
                log.warning(
                    "bots stop following for now: %s",
                    exc if isinstance(exc, StoreError) else repr(exc),
                    extra={"table_id": table_id},
                )
                await asyncio.sleep(self.retry)
                if table_id in self._bots:
                    self._kick(table_id)

    def _kick(self, table_id: str) -> None:
        wake = self._wake.get(table_id)
        if wake is None:
            wake = self._wake[table_id] = asyncio.Event()
        wake.set()
        task = self._tasks.get(table_id)
        if task is None or task.done():
            self._tasks[table_id] = asyncio.create_task(self._drive(table_id, wake))

    # -- acting ---------------------------------------------------------------------------------

    async def _drive(self, table_id: str, wake: asyncio.Event) -> None:
        """Let the table's bots act until none has anything to do, then wait to be woken."""
        try:
            while table_id in self._bots:
                wake.clear()
                try:
                    acted = await self._step(table_id)
                except StoreError:
                    log.warning("bots wait for the store", extra={"table_id": table_id})
                    await asyncio.sleep(1)
                    continue
                if not acted:
                    await wake.wait()
        finally:
            if self._tasks.get(table_id) is asyncio.current_task():
                del self._tasks[table_id]
                self._wake.pop(table_id, None)

    async def _step(self, table_id: str) -> bool:
        """One command by the first bot that has something to do; whether one acted."""
        state = await self.tables.state(table_id)
        self._seen[table_id] = max(self._seen.get(table_id, 0), state.version)
        self.looks += 1
        if self._looked.get(table_id) == state.version:
            self.second_looks += 1
        self._looked[table_id] = state.version
        bots = self._bots.get(table_id, {})
        here = set(state.players)
        for bot in [b for b in bots if b not in here]:
            self.forget(table_id, bot)  # left, or removed
        for bot in bot_order(state, [b for b in bots if b in here]):
            strength = bots[bot]
            began = asyncio.get_running_loop().time()
            try:
                command = await self._decision(state, bot, strength)
            except BotFailed as exc:
                await self._fail(table_id, bot, state, str(exc))
                return True
            if command is None:
                continue
            wait = self.pace - (asyncio.get_running_loop().time() - began)
            if wait > 0:
                # A person's pace. Whatever happens at the table meanwhile, the command is
                # decided again on the state it meets (a refusal there is no failure).
                await asyncio.sleep(wait)
            await self.people.quiet(PEOPLE_FIRST_WAIT)
            try:
                await self.tables.execute(
                    table_id, bot, command, bot_command_id(table_id, state.version, bot)
                )
            except ValueError as exc:
                fresh = await self.tables.state(table_id)
                if fresh.version == state.version:
                    await self._fail(table_id, bot, state, f"its command was refused: {exc}")
            return True
        return False

    async def _decision(self, state: TableState, bot: str, strength: str) -> c.Command | None:
        """The bot's decision: by the rules alone when no judgement is involved (nothing to do,
        a forced command), else computed in a worker process within the timeout."""
        if self.decide is decide_for:
            try:
                settled, command = settled_command(state, bot)
            except Exception:
                settled = False  # the worker's run raises it again, and the bot fails cleanly
            if settled:
                return command
        loop = asyncio.get_running_loop()
        for _attempt in range(2):
            try:
                executor = await self._executor()
                future = loop.run_in_executor(executor, self.decide, state, bot, strength, self.ply)
                async with asyncio.timeout(self.timeout):
                    return await future
            except TimeoutError:
                self._reset_pool()
                raise BotFailed(f"no decision within {self.timeout:g} s") from None
            except BrokenExecutor:
                # Another table's hung bot had the workers killed: decide again on new ones.
                self._reset_pool()
                continue
            except Exception as exc:
                raise BotFailed(f"its decision raised {exc!r}") from exc
        raise BotFailed("the bot workers keep failing")

    async def _fail(self, table_id: str, bot: str, state: TableState, why: str) -> None:
        """Remove a failed bot from its seat through the command path."""
        self.failures += 1
        log.error(
            "bot %s removed from its seat: %s",
            bot,
            why,
            extra={"table_id": table_id, "actor": bot},
        )
        self.forget(table_id, bot)
        with contextlib.suppress(ValueError):
            await self.tables.execute(
                table_id, bot, c.Leave(), bot_command_id(table_id, state.version, bot, "leave")
            )


BOTS = web.AppKey("bots", BotRunner)
