"""The command service: load a table's state, decide, keep the dice seed, append.

The application's one seam between the outside (HTTP and WebSocket handlers, tests) and the
domain (docs/design.md, "How a command travels"): :meth:`TableService.execute` folds the table's
events into its state, asks :func:`events.decider.decide` (or :func:`events.chat.decide_chat`)
for the events that record the command, and appends them with the version they were decided on
and the client's command id. It raises domain errors only (:mod:`events.table`, the engine's,
the store's); the HTTP layer maps them to problem responses.

Commands for one table run one at a time in this process (a lock per table); across processes
the store's expected-version check is the real guard, and a conflict is met by catching up and
deciding again. A command id that was already recorded returns its first outcome without
deciding anything again.

Dice (docs/dice.md): before deciding a command that may start a game the service draws the next
game's secret seed (:func:`events.dice.draw_seed`) and hands it to the decider with the current
game's in a :class:`~events.dice.FairDice`; when the decided events start that game it keeps the
seed in the seed store *before* appending, so the commitment is never published for a seed the
server could lose. Two processes that drew different seeds for one game agree on the one kept
first, and the loser decides again with it.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from events import commands as c
from events import types as e
from events.chat import decide_chat
from events.decider import decide, evolve, may_start_game
from events.dice import FairDice, draw_seed
from events.errors import ConcurrencyError
from events.store import AppendResult, EventStore, RecordedEvent, SeedStore
from events.streams import append_events, chat_stream, decode_recorded, table_stream
from events.table import (
    CommandIdReusedError,
    DiceSource,
    TableExistsError,
    TableNotFoundError,
    TableState,
)

__all__ = ["CommandObserver", "Outcome", "TableService"]

log = logging.getLogger("chouette.tables")


class CommandObserver(Protocol):
    """What the service reports about its commands (the server's metrics implement it)."""

    def command_done(self, kind: str, outcome: str, seconds: float) -> None:
        """A command of type ``kind`` finished: ``ok``, ``duplicate``, the error's class name
        for a refused command, or ``error``; ``seconds`` from start to answer."""
        ...

    def append_done(self, seconds: float) -> None:
        """An append of a decided command took ``seconds`` (the store round trip)."""
        ...


class _Unobserved:
    def command_done(self, kind: str, outcome: str, seconds: float) -> None:
        pass

    def append_done(self, seconds: float) -> None:
        pass


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a command did: the versions it wrote (or wrote the first time)."""

    command_id: str
    stream: str
    first_version: int
    last_version: int
    duplicate: bool
    events: tuple[RecordedEvent, ...]


def _outcome(command_id: uuid.UUID, result: AppendResult) -> Outcome:
    return Outcome(
        str(command_id),
        result.stream_id,
        result.first_version,
        result.last_version,
        result.duplicate,
        result.events,
    )


@dataclass(frozen=True, slots=True)
class _PendingSeed:
    """A seed drawn for a game that the command being decided may start."""

    game: int
    seed: bytes


class TableService:
    """Runs commands against tables and keeps their folded states cached.

    :param store: where the events are.
    :param observer: told about each command (metrics); nothing by default.
    :param dice_factory: tests only: a table's dice instead of the provably fair ones (then no
        seed is drawn or kept).
    :param seeds: where the secret seeds are kept (default: the store's database).
    """

    max_cached = 10_000

    def __init__(
        self,
        store: EventStore,
        observer: CommandObserver | None = None,
        dice_factory: Callable[[str], DiceSource] | None = None,
        seeds: SeedStore | None = None,
    ) -> None:
        self.store = store
        self._observer: CommandObserver = observer or _Unobserved()
        self._dice_factory = dice_factory
        self._seed_store = seeds or SeedStore(store.pool)
        self._states: OrderedDict[str, TableState] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}
        self._seeds: dict[str, dict[int, bytes]] = {}
        self._inflight = 0
        self._idle = asyncio.Event()
        self._idle.set()

    async def drain(self, timeout: float) -> None:
        """Wait (up to ``timeout`` seconds) for the commands in flight to finish."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            log.warning("shutting down with %d commands in flight", self._inflight)

    # -- state --------------------------------------------------------------------------------

    async def state(self, table_id: str) -> TableState:
        """The table's state: the cached fold, caught up with the store.

        :raises TableNotFoundError: nothing was ever recorded for this table.
        """
        s = self._states.get(table_id) or TableState()
        new = await self.store.read_stream(table_stream(table_id), after_version=s.version)
        for rec in new:
            s = evolve(s, decode_recorded(rec))
        if not s.version:
            raise TableNotFoundError(table_id)
        self._remember(table_id, s)
        return s

    def _remember(self, table_id: str, s: TableState) -> None:
        self._states[table_id] = s
        self._states.move_to_end(table_id)
        while len(self._states) > self.max_cached:
            self._states.popitem(last=False)

    def cached(self, table_id: str) -> TableState | None:
        """The table's folded state as this process last saw it, without reading the store."""
        return self._states.get(table_id)

    def _lock(self, table_id: str) -> asyncio.Lock:
        lock = self._locks.get(table_id)
        if lock is None:
            lock = self._locks[table_id] = asyncio.Lock()
        return lock

    # -- dice ---------------------------------------------------------------------------------

    async def _dice(
        self, table_id: str, state: TableState, command: c.Command
    ) -> tuple[DiceSource, _PendingSeed | None]:
        """The dice for deciding ``command``: the seed of the game in play and, if the command
        may start a game, the next game's (drawn now unless one is kept already)."""
        if self._dice_factory is not None:
            return self._dice_factory(table_id), None
        kept = self._seeds.get(table_id)
        if kept is None:
            kept = self._seeds[table_id] = await self._seed_store.load(table_id)
        elif state.game_no and state.game_no not in kept:
            # Another process started the game in play: its seed is kept, not yet known here.
            kept.update(await self._seed_store.load(table_id))
        given: dict[int, bytes] = {}
        if state.game_no in kept:
            given[state.game_no] = kept[state.game_no]
        pending = None
        if may_start_game(command):
            following = state.game_no + 1
            if following in kept:
                given[following] = kept[following]
            else:
                pending = _PendingSeed(following, draw_seed())
                given[following] = pending.seed
        clients = {state.game_no: list(state.client_seeds)} if state.game_no else {}
        return FairDice(given, clients), pending

    async def _keep_seed(self, table_id: str, pending: _PendingSeed, events: list[e.Event]) -> bool:
        """Keep the drawn seed if the decided events start its game, before its commitment is
        published. False when another process kept a different seed for that game first (then
        decide again with theirs)."""
        if not any(isinstance(ev, e.GameStarted) and ev.game == pending.game for ev in events):
            return True
        stored = await self._seed_store.keep(table_id, pending.game, pending.seed)
        self._seeds[table_id][pending.game] = stored
        return stored == pending.seed

    # -- commands -----------------------------------------------------------------------------

    async def _prior(self, command_id: uuid.UUID, stream: str) -> Outcome | None:
        """The first outcome of a command id already recorded for ``stream``, if any.

        :raises CommandIdReusedError: the id was recorded for another stream.
        """
        result = await self.store.command_outcome(command_id)
        if result is None:
            return None
        if result.stream_id != stream:
            raise CommandIdReusedError(command_id)
        return _outcome(command_id, result)

    async def execute(
        self, table_id: str, actor: str, command: c.Command, command_id: uuid.UUID
    ) -> Outcome:
        """Decide and append one command; a retried command id returns its first outcome.

        :raises CommandError, NotAllowedError: the command does not fit the table, or the
            actor (:mod:`events.table`, with the table's own not-found, exists and reused-id).
        :raises EngineError: the rules do not allow it.
        :raises StoreError: the store failed (unavailable, corrupt event...).
        """
        kind = e.tag(command)  # type: ignore[arg-type]
        started = time.perf_counter()
        outcome = "error"
        self._inflight += 1
        self._idle.clear()
        try:
            if isinstance(command, c.Chat):
                result = await self._chat(table_id, actor, command, command_id)
            else:
                result = await self._execute(table_id, actor, command, command_id)
            outcome = "duplicate" if result.duplicate else "ok"
            return result
        except ValueError as exc:
            # Every refusal (the table's errors, the engine's) is a ValueError.
            outcome = type(exc).__name__
            raise
        finally:
            self._inflight -= 1
            if not self._inflight:
                self._idle.set()
            self._observer.command_done(kind, outcome, time.perf_counter() - started)

    async def _execute(
        self, table_id: str, actor: str, command: c.Command, command_id: uuid.UUID
    ) -> Outcome:
        stream = table_stream(table_id)
        creating = isinstance(command, c.CreateTable)
        async with self._lock(table_id):
            # The cached fold is used as it is: if another process appended meanwhile, the
            # append's expected version fails and the loop catches up and decides again. So the
            # common path costs one round trip, the append (which also answers a retried id).
            state: TableState | None = (
                TableState(table_id=table_id) if creating else self._states.get(table_id)
            )
            for _attempt in range(5):
                if state is None:
                    state = await self.state(table_id)
                dice, pending = await self._dice(table_id, state, command)
                try:
                    events = decide(state, actor, command, dice)
                except Exception:
                    # A retry of a command that succeeded is refused by the state it made
                    # (cannot roll twice...): answer it with the first outcome instead.
                    prior = await self._prior(command_id, stream)
                    if prior is not None:
                        return prior
                    if not creating:
                        fresh = await self.state(table_id)
                        if fresh.version != state.version:
                            state = fresh  # the cache was stale: decide on the real state
                            continue
                    raise
                if pending is not None and not await self._keep_seed(table_id, pending, events):
                    state = None
                    continue
                appended = time.perf_counter()
                try:
                    result = await append_events(
                        self.store,
                        stream,
                        events,
                        expected_version=state.version,
                        command_id=command_id,
                    )
                except ConcurrencyError:
                    if creating:
                        raise TableExistsError(table_id) from None
                    state = None  # another process appended first: catch up, decide again
                    continue
                self._observer.append_done(time.perf_counter() - appended)
                if result.duplicate:
                    return _outcome(command_id, result)  # the store read back the first outcome
                s = state
                for ev in events:
                    s = evolve(s, ev)
                self._remember(table_id, s)
                log.info(
                    "command %s",
                    e.tag(command),  # type: ignore[arg-type]
                    extra={"table_id": table_id, "command_id": str(command_id), "actor": actor},
                )
                return _outcome(command_id, result)
            raise ConcurrencyError(stream, None, -1)

    async def _chat(
        self, table_id: str, actor: str, command: c.Chat, command_id: uuid.UUID
    ) -> Outcome:
        stream = chat_stream(table_id)
        prior = await self._prior(command_id, stream)
        if prior is not None:
            return prior
        state = await self.state(table_id)
        posted = decide_chat(state, actor, command)
        result = await append_events(
            self.store, stream, [posted], expected_version=None, command_id=command_id
        )
        return _outcome(command_id, result)
