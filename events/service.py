"""Command handling: load a table's state, decide, append with the expected version.

Commands for one table run one at a time in this process (a lock per table); across processes
the store's expected-version check is the real guard, and a conflict is met by catching up and
deciding again. A command id that was already recorded returns its first outcome without
deciding anything again.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from events import commands as c
from events import types as e
from events.decider import (
    CommandError,
    DiceSource,
    NotAllowedError,
    TableState,
    decide,
    evolve,
)
from events.errors import ConcurrencyError, CorruptEventError, translate_errors
from events.store import AppendResult, EventStore, NewEvent, RecordedEvent
from server.chouette_view import team_can_read
from server.dice import FairDice
from server.metrics import Metrics
from server.problems import Problem, forbidden, not_found

log = logging.getLogger("chouette.tables")


def table_stream(table_id: str) -> str:
    return f"table-{table_id}"


def chat_stream(table_id: str) -> str:
    return f"chat-{table_id}"


def decode_recorded(rec: RecordedEvent) -> e.Event:
    """Decode a stored event; a payload that does not decode is a CorruptEventError naming
    stream and version (never a crash of the process)."""
    try:
        return e.decode(rec.type, rec.schema_version, rec.data)
    except (msgspec.DecodeError, KeyError, TypeError) as exc:
        raise CorruptEventError(rec.stream_id, rec.version, str(exc) or repr(exc)) from exc


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


class TableService:
    """Runs commands against tables and keeps their folded states cached."""

    max_cached = 10_000

    def __init__(
        self,
        store: EventStore,
        metrics: Metrics,
        dice_factory: Callable[[str], DiceSource] | None = None,
    ) -> None:
        self.store = store
        self.metrics = metrics
        self._dice_factory = dice_factory
        self._states: OrderedDict[str, TableState] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}
        self._seeds: dict[str, dict[int, bytes]] = {}
        self._kept: dict[str, set[int]] = {}
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

        :raises Problem: 404 for an unknown table.
        """
        s = self._states.get(table_id) or TableState()
        new = await self.store.read_stream(table_stream(table_id), after_version=s.version)
        for rec in new:
            s = evolve(s, decode_recorded(rec))
        if not s.version:
            raise not_found(f"no table {table_id!r}")
        self._remember(table_id, s)
        return s

    def _remember(self, table_id: str, s: TableState) -> None:
        self._states[table_id] = s
        self._states.move_to_end(table_id)
        while len(self._states) > self.max_cached:
            self._states.popitem(last=False)

    def cached(self, table_id: str) -> TableState | None:
        return self._states.get(table_id)

    def _lock(self, table_id: str) -> asyncio.Lock:
        lock = self._locks.get(table_id)
        if lock is None:
            lock = self._locks[table_id] = asyncio.Lock()
        return lock

    # -- dice ---------------------------------------------------------------------------------

    async def _dice(self, table_id: str, state: TableState) -> DiceSource:
        if self._dice_factory is not None:
            return self._dice_factory(table_id)
        seeds = self._seeds.get(table_id)
        if seeds is None:
            with translate_errors():
                rows = await self.store.pool.fetch(
                    "SELECT game, seed FROM dice_seeds WHERE table_id = $1", table_id
                )
            seeds = self._seeds[table_id] = {r["game"]: bytes(r["seed"]) for r in rows}
            self._kept[table_id] = set(seeds)
        client = {state.game_no: list(state.client_seeds)} if state.game_no else {}
        return FairDice(seeds, client)

    async def _keep_seeds(self, table_id: str) -> bool:
        """Store any seed drawn for a new game before its commitment is published. False when
        another process stored a different seed first (then decide again with theirs)."""
        if self._dice_factory is not None:
            return True
        seeds = self._seeds.get(table_id, {})
        kept = self._kept.setdefault(table_id, set())
        new = [g for g in seeds if g not in kept]
        if not new:
            return True
        same = True
        with translate_errors():
            async with self.store.pool.acquire() as conn:
                for game in new:
                    stored = await conn.fetchval(
                        "INSERT INTO dice_seeds (table_id, game, seed) VALUES ($1, $2, $3)"
                        " ON CONFLICT (table_id, game) DO UPDATE SET seed = dice_seeds.seed"
                        " RETURNING seed",
                        table_id,
                        game,
                        seeds[game],
                    )
                    if bytes(stored) != seeds[game]:
                        seeds[game] = bytes(stored)
                        same = False
                    kept.add(game)
        return same

    # -- commands -----------------------------------------------------------------------------

    async def _prior(self, command_id: uuid.UUID, stream: str) -> Outcome | None:
        with translate_errors():
            row = await self.store.pool.fetchrow(
                "SELECT stream_id, first_version, last_version FROM commands WHERE command_id = $1",
                command_id,
            )
        if row is None:
            return None
        if row["stream_id"] != stream:
            raise Problem(
                409,
                "command-id-reused",
                "Command id reused",
                f"command id {command_id} was already used for another stream",
                field="command_id",
            )
        events = await self.store.read_stream(
            stream,
            after_version=row["first_version"] - 1,
            limit=row["last_version"] - row["first_version"] + 1,
        )
        return Outcome(
            str(command_id), stream, row["first_version"], row["last_version"], True, tuple(events)
        )

    async def execute(
        self, table_id: str, actor: str, command: c.Command, command_id: uuid.UUID
    ) -> Outcome:
        """Decide and append one command; a retried command id returns its first outcome.

        :raises Problem, EngineError, StoreError: mapped to problems by the middleware.
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
        except Problem as p:
            outcome = str(p.status)
            raise
        except (NotAllowedError, CommandError, ValueError) as exc:
            outcome = type(exc).__name__
            raise
        finally:
            self._inflight -= 1
            if not self._inflight:
                self._idle.set()
            self.metrics.commands.inc(type=kind, outcome=outcome)
            self.metrics.command_latency.observe(time.perf_counter() - started, type=kind)

    async def _execute(
        self, table_id: str, actor: str, command: c.Command, command_id: uuid.UUID
    ) -> Outcome:
        stream = table_stream(table_id)
        async with self._lock(table_id):
            # The cached fold is used as it is: if another process appended meanwhile, the
            # append's expected version fails and the loop catches up and decides again. So the
            # common path costs one round trip, the append (which also answers a retried id).
            state: TableState | None = None
            if isinstance(command, c.CreateTable):
                state = TableState(table_id=table_id)
            else:
                state = self._states.get(table_id)
            for _attempt in range(5):
                if state is None:
                    state = await self.state(table_id)
                dice = await self._dice(table_id, state)
                try:
                    events = decide(state, actor, command, dice)
                except Exception:
                    # A retry of a command that succeeded is refused by the state it made
                    # (cannot roll twice...): answer it with the first outcome instead.
                    prior = await self._prior(command_id, stream)
                    if prior is not None:
                        return prior
                    if not isinstance(command, c.CreateTable):
                        fresh = await self.state(table_id)
                        if fresh.version != state.version:
                            state = fresh  # the cache was stale: decide on the real state
                            continue
                    raise
                if not await self._keep_seeds(table_id):
                    state = None
                    continue
                new = [
                    NewEvent(type=e.tag(ev), data=e.encode(ev), schema_version=ev.schema_version)
                    for ev in events
                ]
                appended = time.perf_counter()
                try:
                    result = await self.store.append(
                        stream, new, expected_version=state.version, command_id=command_id
                    )
                except ConcurrencyError:
                    if isinstance(command, c.CreateTable):
                        raise Problem(
                            409, "exists", "Table exists", "the table already exists"
                        ) from None
                    state = None  # another process appended first: catch up, decide again
                    continue
                self.metrics.append_latency.observe(time.perf_counter() - appended)
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
        if command.channel == "team":
            if state.kind != "chouette" or state.chouette is None:
                raise CommandError("the team channel exists only in a chouette")
            ch = state.chouette
            if not ch.may_advise(actor) and actor != ch.acting_captain:
                raise forbidden(f"{actor!r} may not talk on the team channel now")
        elif actor not in state.players and actor != state.created_by:
            raise forbidden(f"{actor!r} is not at this table")
        audience: list[str] = []
        if command.channel == "team":
            audience = [p for p in state.members if team_can_read(state, p)]
        ev = e.ChatPosted(
            player=actor,
            channel=command.channel,
            text=command.text,
            game=state.game_no if state.in_game else 0,
            audience=audience,
        )
        result = await self.store.append(
            stream,
            [NewEvent(type=e.tag(ev), data=e.encode(ev))],
            expected_version=None,
            command_id=command_id,
        )
        return _outcome(command_id, result)
