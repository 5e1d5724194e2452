"""The timer service (docs/design.md, "Timers"): wakes when a clock of one of this process's
tables runs out and sends ``expire`` through the ordinary command path.

Each process keeps a heap of (deadline, table id) for the tables it knows. The command service
calls :meth:`Timers.schedule` with every state it folds (``TableService.on_state``): it costs a
look at the state's running clocks and, when the table's next deadline changed, one heap push
(O(log n)); nothing at all when it did not. A background task sleeps until the earliest
deadline (woken early when a sooner one arrives) and then, for each table due, re-reads the
table's state (another process may have moved it on: a stale entry is skipped) and sends
:class:`~events.domain.commands.Expire` as the actor :data:`ACTOR`.

Several processes may hold the same table and fire the same expiry: the command id is derived
from the table id and the version the expiry was decided on (:func:`expire_id`), so the store
answers the second as a duplicate of the first, or its expected-version check makes it decide
again on the new state, where nothing has run out any more (a refusal). Either way exactly one
set of events is recorded. A refusal only reschedules the table from its fresh state.

Who is connected (docs/rules.md §10, "Walking away"): each expiry carries who of the table's
players is ``absent`` (no stream open to the table in this process, and not a bot: a bot plays
through the runner, never a stream), which the decider records. When what has run out is the
table's own (a seed window's close, an overdue opening or line throw) and fewer than two of its
players are connected, nothing is sent: the table is *parked* at that deadline, and looked at
again when an account arrives at it (:meth:`Timers.arrived`, told by the presence) or when one
of its commands changes its deadline. A table nobody is at so writes nothing until someone comes
back. A player's own clock runs out whoever is connected.

After a restart the heap is rebuilt from the read model: the lobby's tables in play are loaded
(a few at a time) and scheduled (:meth:`Timers.rebuild`).

Tests inject the clock (``Config.clock``); then no background task runs and the test fires what
is due with :meth:`Timers.fire_due`: nothing sleeps.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from typing import Final, Protocol

from events.domain import commands as c
from events.domain.clocks import for_the_table, next_deadline, too_few_here
from events.domain.rules_check import DecisionRejectedError
from events.domain.table import CommandError, TableState
from events.service import Outcome

__all__ = ["ACTOR", "Tables", "TimerObserver", "Timers", "expire_id"]

log = logging.getLogger("chouette.timers")

ACTOR: Final = "clock"
"""Who the timer's ``expire`` commands are recorded as sent by (deciding one needs no role)."""

_NAMESPACE: Final = uuid.uuid5(uuid.NAMESPACE_URL, "chouette:expire")

RETRY_MS: Final = 1000
"""How long after a failed or refused expiry whose table still looks due the timer tries again
(the database away, or a fold that disagrees with the decider: never a busy loop)."""

REBUILD_CONCURRENCY: Final = 8
"""Tables whose states are loaded at once while the timers are rebuilt after a start."""

FIRE_CONCURRENCY: Final = 32
"""Expiries in flight at once (each is a command: a store round trip)."""


def expire_id(table_id: str, version: int) -> uuid.UUID:
    """The command id of the expiry decided on ``table_id`` at ``version``: the same in every
    process, so two that fire it record it once.

    >>> expire_id("t", 7) == expire_id("t", 7) != expire_id("t", 8)
    True
    """
    return uuid.uuid5(_NAMESPACE, f"{table_id}/{version}")


class Tables(Protocol):
    """What the timers need of the command service (:class:`~events.service.TableService`;
    the timers' benchmark gives a cheap fake to measure the machinery alone)."""

    def now(self) -> int: ...

    async def state(self, table_id: str) -> TableState: ...

    async def execute(
        self, table_id: str, actor: str, command: c.Command, command_id: uuid.UUID
    ) -> Outcome: ...


class TimerObserver(Protocol):
    """What the timers report (the server's metrics implement it)."""

    def expiry_done(self, outcome: str, lateness: float) -> None:
        """An expiry was sent ``lateness`` seconds after its deadline: ``ok``, ``duplicate``,
        ``refused`` or ``error``."""
        ...


class Timers:
    """The heap of this process's table deadlines, and the task that fires them.

    :param tables: the command service whose states are scheduled and which sends expiries.
    :param observer: told about each expiry sent (metrics); nothing by default.
    :param background: run the task that sleeps until the next deadline (production). False
        with an injected clock: tests call :meth:`fire_due`.
    :param is_here: whether a player is at a table now, ``(table_id, player)``: connected, or a
        bot (the server's presence). None: everyone counts as connected.
    """

    def __init__(
        self,
        tables: Tables,
        observer: TimerObserver | None = None,
        *,
        background: bool = True,
        is_here: Callable[[str, str], bool] | None = None,
    ) -> None:
        self._tables = tables
        self._observer = observer
        self._background = background
        self._is_here = is_here
        self._parked: dict[str, int] = {}
        """Tables whose table-thrown deadline waits for two players to connect, with it."""
        self._heap: list[tuple[int, str]] = []
        self._scheduled: dict[str, int] = {}
        """Each table's deadline as last scheduled (heap entries that differ are stale)."""
        self._firing: set[str] = set()
        self._inflight: set[asyncio.Task[bool]] = set()
        self._slots = asyncio.Semaphore(FIRE_CONCURRENCY)
        self._wake = asyncio.Event()
        self._sleeping_until: int | None = None
        self._task: asyncio.Task[None] | None = None
        self._rebuild: asyncio.Task[None] | None = None
        self.hook_seconds = 0.0
        """Time spent in :meth:`schedule` (every state the command service folds)."""
        self.loop_seconds = 0.0
        """Time spent in the loop's own work (not the expire commands it sends)."""
        self.fired = 0

    # -- scheduling (the command service's hook) ------------------------------------------------

    def schedule(self, table_id: str, state: TableState) -> None:
        """Schedule ``table_id`` at its next deadline in ``state`` (or forget it if nothing runs
        there): called with every state the command service folds, so kept cheap."""
        started = time.perf_counter()
        deadline = next_deadline(state) if state.in_game else None
        if self._parked and table_id in self._parked:
            if deadline is not None and self._parked[table_id] == deadline:
                self.hook_seconds += time.perf_counter() - started
                return  # still waiting for its players
            del self._parked[table_id]
        if deadline is None:
            self._scheduled.pop(table_id, None)  # its heap entry, if any, is skipped when due
        elif self._scheduled.get(table_id) != deadline:
            self._scheduled[table_id] = deadline
            heapq.heappush(self._heap, (deadline, table_id))
            if self._sleeping_until is None or deadline < self._sleeping_until:
                self._wake.set()
            if len(self._heap) > 2 * len(self._scheduled) + 1024:
                self._compact()
        self.hook_seconds += time.perf_counter() - started

    def _compact(self) -> None:
        """Drop the stale entries (the tables moved on): the heap stays within twice the
        tables scheduled."""
        self._heap = [(d, t) for t, d in self._scheduled.items()]
        heapq.heapify(self._heap)

    def arrived(self, table_id: str) -> None:
        """An account has come to ``table_id`` (the presence's hook): a table parked for want
        of players is looked at again at once. Cheap, and never raises."""
        deadline = self._parked.pop(table_id, None)
        if deadline is None:
            return
        self._scheduled[table_id] = deadline
        heapq.heappush(self._heap, (deadline, table_id))
        self._wake.set()

    def parked(self, table_id: str) -> bool:
        """Whether ``table_id`` waits for two of its players to connect before its timer
        throws for it."""
        return table_id in self._parked

    def absent(self, table_id: str, state: TableState) -> list[str]:
        """The table's players who are not at it now (no stream open to it here, not a bot):
        the ``absent`` of an expiry, the timer's or a client's."""
        here = self._is_here
        if here is None:
            return []
        return [p for p in state.players if not here(table_id, p)]

    def deadline(self, table_id: str) -> int | None:
        """When ``table_id`` is scheduled to be looked at (ms since the epoch), if it is."""
        return self._scheduled.get(table_id)

    def __len__(self) -> int:
        """How many tables are scheduled."""
        return len(self._scheduled)

    # -- firing -------------------------------------------------------------------------------

    def _due(self, now: int) -> list[tuple[int, str]]:
        """Pop every live entry due at ``now`` whose table is not being fired already."""
        started = time.perf_counter()
        due: list[tuple[int, str]] = []
        heap = self._heap
        while heap and heap[0][0] <= now:
            deadline, table_id = heapq.heappop(heap)
            if self._scheduled.get(table_id) != deadline:
                continue  # stale: the table moved on since
            del self._scheduled[table_id]
            if table_id in self._firing:
                continue  # the firing in flight reschedules it from its fresh state
            due.append((deadline, table_id))
        self.loop_seconds += time.perf_counter() - started
        return due

    async def fire_due(self) -> int:
        """Fire every table due at the clock's now and wait for the commands (tests drive the
        timers with this and an injected clock); again while firing made more due. Returns how
        many expiries were sent."""
        sent = 0
        for _round in range(100):
            due = self._due(self._tables.now())
            if not due:
                break
            results = await asyncio.gather(*(self._fire(t, d) for d, t in due))
            sent += sum(results)
        return sent

    async def _fire(self, table_id: str, deadline: int) -> bool:
        """Send the expiry of ``table_id`` if something there has truly run out by now; True
        if one was sent. Never raises: a failure is logged and the table tried again later."""
        self._firing.add(table_id)
        retry = False
        try:
            async with self._slots:
                state = await self._tables.state(table_id)
                now = self._tables.now()
                due = next_deadline(state) if state.in_game else None
                if due is None or due > now:
                    return False  # stale: another process moved the table on
                absent = self.absent(table_id, state)
                if for_the_table(state, now) and too_few_here(state, absent):
                    self._parked[table_id] = due  # until someone arrives (or it moves on)
                    return False
                outcome = "error"
                try:
                    result = await self._tables.execute(
                        table_id,
                        ACTOR,
                        c.Expire(absent=absent),
                        expire_id(table_id, state.version),
                    )
                    outcome = "duplicate" if result.duplicate else "ok"
                except CommandError:
                    outcome = "refused"
                    retry = True  # if the fresh state still looks due: not at once
                except DecisionRejectedError:
                    # Nothing was written (the service logged it): the table plays on, and
                    # the expiry is tried again later, not at once.
                    outcome = "rejected"
                    retry = True
                finally:
                    self.fired += 1
                    if self._observer is not None:
                        self._observer.expiry_done(outcome, max(0, now - due) / 1000)
                return True
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("a timer's expiry failed", extra={"table_id": table_id})
            retry = True
            return False
        finally:
            self._firing.discard(table_id)
            await self._after(table_id, retry)

    async def _after(self, table_id: str, retry: bool) -> None:
        """Reschedule a fired table from its newest state."""
        self._scheduled.pop(table_id, None)
        try:
            state = await self._tables.state(table_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("cannot read a fired table's state", extra={"table_id": table_id})
            self._push_retry(table_id)
            return
        self.schedule(table_id, state)
        deadline = self._scheduled.get(table_id)
        if retry and deadline is not None and deadline <= self._tables.now():
            self._push_retry(table_id)

    def _push_retry(self, table_id: str) -> None:
        later = self._tables.now() + RETRY_MS
        self._scheduled[table_id] = later
        heapq.heappush(self._heap, (later, table_id))

    # -- the background task ------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            now = self._tables.now()
            for deadline, table_id in self._due(now):
                task = asyncio.create_task(self._fire(table_id, deadline))
                self._inflight.add(task)
                task.add_done_callback(self._inflight.discard)
            self._wake.clear()
            self._sleeping_until = self._heap[0][0] if self._heap else None
            wait = None if self._sleeping_until is None else (self._sleeping_until - now) / 1000
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), wait)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the timer loop failed; it goes on")
                await asyncio.sleep(RETRY_MS / 1000)
            finally:
                self._sleeping_until = None

    async def rebuild(self, playing: Callable[[], Awaitable[Iterable[str]]]) -> int:
        """Schedule every table ``playing()`` lists (the lobby's tables in play), loading their
        states a few at a time; returns how many were loaded. A table that cannot be loaded is
        logged and skipped (its next command schedules it)."""
        slots = asyncio.Semaphore(REBUILD_CONCURRENCY)

        async def load(table_id: str) -> bool:
            async with slots:
                try:
                    await self._tables.state(table_id)  # the hook schedules it
                    return True
                except Exception:
                    log.exception("cannot rebuild a table's timer", extra={"table_id": table_id})
                    return False

        loaded = await asyncio.gather(*(load(t) for t in await playing()))
        return sum(loaded)

    def start(self, playing: Callable[[], Awaitable[Iterable[str]]]) -> None:
        """Rebuild from ``playing`` and (with ``background``) start the loop."""
        self._rebuild = asyncio.create_task(self._rebuilt(playing))
        if self._background:
            self._task = asyncio.create_task(self._run())

    async def _rebuilt(self, playing: Callable[[], Awaitable[Iterable[str]]]) -> None:
        try:
            count = await self.rebuild(playing)
            log.info("timers rebuilt for %d tables in play", count)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("cannot rebuild the timers from the lobby")

    async def ready(self) -> None:
        """Wait for the rebuild that :meth:`start` began."""
        if self._rebuild is not None:
            await asyncio.shield(self._rebuild)

    async def stop(self, timeout: float = 5.0) -> None:
        """Stop the loop, let the expiries in flight finish (up to ``timeout`` seconds), then
        cancel what is left."""
        for task in (self._task, self._rebuild):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        pending = list(self._inflight)
        if pending:
            _done, late = await asyncio.wait(pending, timeout=timeout)
            for left in late:
                left.cancel()
            await asyncio.gather(*late, return_exceptions=True)
