"""The command service: load a table's state, decide, keep the dice seed, append.

The application's one seam between the outside (HTTP and WebSocket handlers, tests) and the
domain (docs/design.md, "How a command travels"): :meth:`TableService.execute` folds the table's
events into its state, asks :func:`events.domain.decider.decide` (or
:func:`events.domain.chat.decide_chat`)
for the events that record the command, and appends them with the version they were decided on
and the client's command id. It raises domain errors only (:mod:`events.domain.table`, the engine's,
the store's); the HTTP layer maps them to problem responses.

Commands for one table run one at a time in this process (a lock per table, dropped when no
command holds or awaits it); across processes the store's expected-version check is the real
guard, and a conflict is met by catching up and deciding again.

A command id is recorded with who sent it and a digest of the command (:func:`command_digest`).
The same actor sending the same command again gets its first outcome without anything being
decided again; anyone else, or the same actor with another command, gets
:class:`~events.domain.table.CommandIdReusedError` and nothing of the first outcome: a command id
is not
a key to someone else's events (a team-chat message's, say).

What the service keeps in memory is bounded: the folded states and the dice seeds of the
``cache_size`` tables used last (least recently used first out), and for each table only the
seeds of the game in play and the next.

Arrivals (docs/rules.md §10, clocks): a command is decided at the time it *arrived* — when the
handler that took it from a socket or a request registered it (:meth:`TableService.arrival`) —
not when its turn at the table's lock came, so a loaded server never charges a player's clock for
its own queue. And a clock's expiry (:class:`~events.domain.commands.Expire`) first waits for every
command that arrived at the table before it (up to :data:`ARRIVAL_WAIT` seconds): a player who
acted in time is decided before the timer, however late the loop runs, and an expiry then finds
that nothing has run out.

Nothing is appended that the audit would reject: every batch a command decided — a player's, a
timer's expiry, a bot's — is checked first as the audit checks a stream
(:func:`events.domain.rules_check.check_batch`: the command each event must come from, decided
again with
the same dice, the same events back, each folding with :func:`~events.domain.decider.evolve`), and
the
state that fold gives is the one kept after the append. A batch that fails is not appended:
:class:`~events.domain.rules_check.DecisionRejectedError` (a bug in the decision, not a refused
command),
logged with the table and command ids and counted; the table's state is as before.

Dice (docs/dice.md): before deciding a command that may start a game the service draws the next
game's secret seed (:func:`events.domain.dice.draw_seed`) and hands it to the decider with the
current
game's in a :class:`~events.domain.dice.FairDice`; when the decided events start that game it keeps
the
seed in the seed store *before* appending, so the commitment is never published for a seed the
server could lose. Two processes that drew different seeds for one game agree on the one kept
first, and the loser decides again with it. A kept seed that does not match the commitment
published for its game is refused (:class:`~events.store.seed_store.SeedMismatchError`): nothing is
decided with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import struct
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol, TypeVar

import msgspec

from events.domain import commands as c
from events.domain import types as e
from events.domain.chat import decide_chat
from events.domain.decider import decide, fold_stored, may_start_game
from events.domain.dice import FairDice, commitment, draw_seed
from events.domain.rules_check import CheckCost, DecisionRejectedError, check_batch
from events.domain.table import (
    CommandIdReusedError,
    DiceSource,
    TableExistsError,
    TableNotFoundError,
    TableState,
)
from events.store.errors import CommandReusedError, ConcurrencyError
from events.store.event_store import AppendResult, EventStore, RecordedEvent
from events.store.lru import Lru
from events.store.seed_store import SeedMismatchError, SeedStore
from events.store.streams import append_events, chat_stream, decode_recorded, table_stream

__all__ = [
    "ARRIVAL_WAIT",
    "Arrival",
    "CommandObserver",
    "Outcome",
    "TableService",
    "append_decided",
    "command_digest",
    "outcome_of",
    "prior_outcome",
]

log = logging.getLogger("chouette.tables")

V = TypeVar("V")

Decider = Callable[[TableState, str, c.Command, DiceSource, int], list[e.Event]]
"""What decides a command: :func:`events.domain.decider.decide`'s signature."""

DIGEST_LABEL: Final = b"chouette-command/v1\x00"
"""The prefix of every command digest's input (so it is never confused with another hash)."""

_command_json = msgspec.json.Encoder()

ARRIVAL_WAIT: Final = 5.0
"""How long an expiry waits for the commands that arrived at its table before it (seconds): they
are being decided, so far less unless the process is failing."""


def command_digest(table_id: str, command: c.Command) -> bytes:
    """SHA-256 of a command's canonical bytes at a table, recorded with its command id.

    ``SHA-256(DIGEST_LABEL || int4(len(table_id)) || table_id || msgspec JSON of the command)``
    (big-endian length, UTF-8 id): the table is part of it, and msgspec writes a command's
    fields in their declared order, so the same command at the same table always has the same
    digest and any other command another one.

    >>> command_digest("t", c.Roll()) == command_digest("t", c.Roll())
    True
    >>> command_digest("t", c.Roll()) == command_digest("u", c.Roll())
    False
    """
    tid = table_id.encode("utf-8")
    return hashlib.sha256(
        DIGEST_LABEL + struct.pack(">i", len(tid)) + tid + _command_json.encode(command)
    ).digest()


class _Lock:
    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0  # holding it or waiting for it


class _IdleLocks:
    """One lock per key, existing only while some task holds it or waits for it, so that the
    locks of tables nobody is using do not pile up."""

    def __init__(self) -> None:
        self._locks: dict[str, _Lock] = {}

    def __len__(self) -> int:
        return len(self._locks)

    def hold(self, key: str) -> _Held:
        """``async with locks.hold(key):`` holds ``key``'s lock in the block."""
        return _Held(self._locks, key)


class _Held:
    """Holding one key's lock of :class:`_IdleLocks` (an async context manager of its own: a
    generator-based one cost every command a generator and its wrapper, issue 30)."""

    __slots__ = ("_entry", "_key", "_locks")

    def __init__(self, locks: dict[str, _Lock], key: str) -> None:
        self._locks = locks
        self._key = key

    def _leave(self) -> None:
        entry = self._entry
        entry.users -= 1
        if not entry.users:
            del self._locks[self._key]

    async def __aenter__(self) -> None:
        entry = self._locks.get(self._key)
        if entry is None:
            entry = self._locks[self._key] = _Lock()
        entry.users += 1
        self._entry = entry
        try:
            await entry.lock.acquire()
        except BaseException:
            self._leave()  # cancelled while waiting: no longer a user
            raise

    async def __aexit__(self, *exc_info: object) -> None:
        self._entry.lock.release()
        self._leave()


class Arrival:
    """A command taken from a socket or a request for ``table_id`` at ``at`` (ms since the
    epoch), registered until it has been answered (a context manager)."""

    __slots__ = ("_answered", "_arrivals", "at", "table_id")

    def __init__(self, arrivals: _Arrivals, table_id: str, at: int) -> None:
        self._arrivals = arrivals
        self.table_id = table_id
        self.at = at
        self._answered: asyncio.Future[None] | None = None  # made when someone waits

    def __enter__(self) -> Arrival:
        self._arrivals.add(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._arrivals.remove(self)
        if self._answered is not None and not self._answered.done():
            self._answered.set_result(None)

    def answered(self) -> asyncio.Future[None]:
        """A future done when this command has been answered (shared by whoever waits)."""
        if self._answered is None:
            self._answered = asyncio.get_running_loop().create_future()
        return self._answered


class _Arrivals:
    """The commands each table has been sent and not yet answered (only while there are)."""

    def __init__(self) -> None:
        self._by_table: dict[str, list[Arrival]] = {}

    def __len__(self) -> int:
        return len(self._by_table)

    def add(self, arrival: Arrival) -> None:
        self._by_table.setdefault(arrival.table_id, []).append(arrival)

    def remove(self, arrival: Arrival) -> None:
        waiting = self._by_table.get(arrival.table_id)
        if waiting is None:
            return
        with contextlib.suppress(ValueError):
            waiting.remove(arrival)
        if not waiting:
            del self._by_table[arrival.table_id]

    def before(self, table_id: str, at: int, but: Arrival | None) -> list[Arrival]:
        """The commands that arrived at ``table_id`` by ``at`` (not ``but``), still unanswered."""
        return [a for a in self._by_table.get(table_id, ()) if a.at <= at and a is not but]


class CommandObserver(Protocol):
    """What the service reports about its commands (the server's metrics implement it)."""

    def command_done(self, kind: str, outcome: str, seconds: float) -> None:
        """A command of type ``kind`` finished: ``ok``, ``duplicate``, the error's class name
        for a refused command, or ``error``; ``seconds`` from start to answer."""
        ...

    def append_done(self, seconds: float) -> None:
        """An append of a decided command took ``seconds`` (the store round trip)."""
        ...

    def decision_rejected(self, event_type: str) -> None:
        """A decided batch was rejected by the check before append, at an ``event_type``."""
        ...


class _Unobserved:
    def command_done(self, kind: str, outcome: str, seconds: float) -> None:
        pass

    def append_done(self, seconds: float) -> None:
        pass

    def decision_rejected(self, event_type: str) -> None:
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


def outcome_of(command_id: uuid.UUID, result: AppendResult) -> Outcome:
    """The outcome a command's append (or its first run's) gives its sender."""
    return Outcome(
        str(command_id),
        result.stream_id,
        result.first_version,
        result.last_version,
        result.duplicate,
        result.events,
    )


async def prior_outcome(
    store: EventStore, command_id: uuid.UUID, stream: str, actor: str, digest: bytes
) -> Outcome | None:
    """The first outcome of this very command (same stream, actor and digest), if it was
    recorded; the store reads nothing back for anyone else. A table's commands and a
    tournament's (:mod:`events.tournament_service`) share it.

    :raises CommandIdReusedError: the id was recorded for another stream, actor or command.
    """
    try:
        result = await store.command_outcome(command_id, stream, actor=actor, digest=digest)
    except CommandReusedError:
        raise CommandIdReusedError(command_id) from None
    return None if result is None else outcome_of(command_id, result)


async def append_decided(
    store: EventStore,
    stream: str,
    events: list[e.Event],
    expected_version: int | None,
    command_id: uuid.UUID,
    actor: str,
    digest: bytes,
) -> AppendResult:
    """Append a decided command with its actor and digest; a reused id says nothing of the
    command it was first used for (not even its stream).

    :raises CommandIdReusedError: the id was recorded for another stream, actor or command.
    """
    try:
        return await append_events(
            store,
            stream,
            events,
            expected_version=expected_version,
            command_id=command_id,
            actor=actor,
            digest=digest,
        )
    except CommandReusedError:
        raise CommandIdReusedError(command_id) from None


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
    :param seeds: where the secret seeds are kept (encrypted; see :class:`SeedStore`); needed
        unless ``dice_factory`` is given.
    :param cache_size: how many tables' folded states (and seeds) are kept in memory; the
        least recently used go first.
    :param clock: the time commands are decided at, in seconds since the epoch (tests inject
        theirs); the system's clock by default.
    :param on_state: called with every state the service folds (after a command, and when it
        catches up with the store): the server's timers schedule the table's next deadline.
        Called synchronously, so it must be cheap and must not raise.
    :param on_bot_state: called with the table id and its new state after each command this
        process appends to a table's play stream (the bot runner, :mod:`server.live.bots`, wakes the
        table's bots with it). It must not block: it only schedules work.
    :param decider: tests only: decides a command (:func:`events.domain.decider.decide` by default).
        Whatever it decides is checked against the rules before it is appended, so a wrong
        decider writes nothing (:class:`~events.domain.rules_check.DecisionRejectedError`).
    """

    def __init__(
        self,
        store: EventStore,
        observer: CommandObserver | None = None,
        dice_factory: Callable[[str], DiceSource] | None = None,
        seeds: SeedStore | None = None,
        cache_size: int = 10_000,
        clock: Callable[[], float] = time.time,
        on_state: Callable[[str, TableState], None] | None = None,
        on_bot_state: Callable[[str, TableState], None] | None = None,
        decider: Decider = decide,
    ) -> None:
        if seeds is None and dice_factory is None:
            raise ValueError("the fair dice need a seed store (TableService(..., seeds=...))")
        self.store = store
        self._observer: CommandObserver = observer or _Unobserved()
        self._dice_factory = dice_factory
        self._seed_store = seeds
        self._clock = clock
        self.on_state = on_state
        """Told of every state folded (see ``on_state`` above); may be set after construction."""
        self.on_bot_state = on_bot_state
        self._decide = decider
        self.check_cost = CheckCost()
        """What the checks before append cost beyond the fold every command makes (metrics)."""
        self._states: Lru[TableState] = Lru(cache_size)
        self._locks = _IdleLocks()
        self._arrivals = _Arrivals()
        self._seeds: Lru[dict[int, bytes]] = Lru(cache_size)
        self.skipped_events = 0
        """Stored events this process's loads skipped, each time a load folded one (a table
        folded again after it left the cache counts its skipped events again)."""
        self._inflight = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def now(self) -> int:
        """The time to decide a command at: milliseconds since the Unix epoch."""
        return int(self._clock() * 1000)

    async def drain(self, timeout: float) -> None:
        """Wait (up to ``timeout`` seconds) for the commands in flight to finish."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            log.warning("shutting down with %d commands in flight", self._inflight)

    # -- state --------------------------------------------------------------------------------

    async def state(self, table_id: str) -> TableState:
        """The table's state: the cached fold, caught up with the store. A stored event that
        does not apply is skipped, logged and counted (:func:`events.domain.decider.evolve_stored`),
        so a table that an older server wrote a wrong event into still opens.

        :raises TableNotFoundError: nothing was ever recorded for this table.
        """
        s = self._states.get(table_id) or TableState()
        new = await self.store.read_stream(table_stream(table_id), after_version=s.version)
        skipped = len(s.skipped)
        s = fold_stored((decode_recorded(rec, self.store.keys) for rec in new), s)
        self.skipped_events += len(s.skipped) - skipped
        if not s.version:
            raise TableNotFoundError(table_id)
        self._remember(table_id, s)
        return s

    def _remember(self, table_id: str, s: TableState) -> None:
        self._states.put(table_id, s)
        if self.on_state is not None:
            self.on_state(table_id, s)

    def forget_states(self) -> None:
        """Forget every folded state (an account was erased: the states name its player as
        they were read; folded again, they read the pseudonym, docs/privacy.md)."""
        self._states.clear()

    def cached(self, table_id: str) -> TableState | None:
        """The table's folded state as this process last saw it, without reading the store."""
        return self._states.get(table_id)

    def memory(self) -> dict[str, int]:
        """How many entries each in-memory table holds (all bounded: tests, diagnostics)."""
        return {
            "states": len(self._states),
            "seeds": len(self._seeds),
            "locks": len(self._locks),
            "arrivals": len(self._arrivals),
        }

    # -- arrivals -----------------------------------------------------------------------------

    def arrival(self, table_id: str) -> Arrival:
        """Register a command for ``table_id`` arriving now, until the ``with`` block ends:
        call it the moment the command is taken from its socket or request, and hand it to
        :meth:`execute`. Synchronous, so that nothing runs in between."""
        return Arrival(self._arrivals, table_id, self.now())

    async def _after_earlier(self, table_id: str, cutoff: int, own: Arrival | None) -> None:
        """Wait until the commands that arrived at ``table_id`` before ``cutoff`` are answered
        (at most :data:`ARRIVAL_WAIT` seconds)."""
        earlier = self._arrivals.before(table_id, cutoff, own)
        if not earlier:
            return
        log.info(
            "an expiry waits for %d command(s) that arrived before it",
            len(earlier),
            extra={"table_id": table_id},
        )
        await asyncio.wait([a.answered() for a in earlier], timeout=ARRIVAL_WAIT)

    def _decided_at(self, state: TableState, arrival: Arrival | None) -> int:
        """The time a command is decided at: when it arrived, but never before the table's last
        event (two commands taken close together may reach the table's lock in the other
        order: the times recorded never go backwards, nor is a clock charged backwards)."""
        if arrival is None:
            return self.now()
        return max(min(arrival.at, self.now()), state.last_at)

    # -- dice ---------------------------------------------------------------------------------

    async def _dice(
        self, table_id: str, state: TableState, command: c.Command
    ) -> tuple[DiceSource, _PendingSeed | None]:
        """The dice for deciding ``command``: the seed of the game in play and, if the command
        may start a game, the next game's (drawn now unless one is kept already)."""
        if self._dice_factory is not None:
            return self._dice_factory(table_id), None
        assert self._seed_store is not None
        kept = self._seeds.get(table_id)
        if kept is None or (state.game_no and state.game_no not in kept):
            # First use here, or another process started the game in play: its seed is kept,
            # not yet known here. Only the game in play and later ones are kept in memory.
            kept = await self._seed_store.load(table_id, since_game=state.game_no)
        else:
            kept = {game: seed for game, seed in kept.items() if game >= state.game_no}
        self._seeds.put(table_id, kept)
        given: dict[int, bytes] = {}
        if state.game_no in kept:
            seed = kept[state.game_no]
            if state.in_game and not hmac.compare_digest(commitment(seed), state.commitment):
                raise SeedMismatchError(table_id, state.game_no)
            given[state.game_no] = seed
        pending = None
        if may_start_game(command):
            following = state.game_no + 1
            if following in kept:
                given[following] = kept[following]
            else:
                pending = _PendingSeed(following, draw_seed())
                given[following] = pending.seed
        return FairDice(given), pending

    async def _keep_seed(self, table_id: str, pending: _PendingSeed, events: list[e.Event]) -> bool:
        """Keep the drawn seed if the decided events start its game, before its commitment is
        published. False when another process kept a different seed for that game first (then
        decide again with theirs)."""
        if not any(isinstance(ev, e.GameStarted) and ev.game == pending.game for ev in events):
            return True
        assert self._seed_store is not None
        stored = await self._seed_store.keep(table_id, pending.game, pending.seed)
        # The game before it has ended (its seed is revealed in the events): not kept here.
        kept = {
            g: seed for g, seed in (self._seeds.get(table_id) or {}).items() if g > pending.game
        }
        kept[pending.game] = stored
        self._seeds.put(table_id, kept)
        return stored == pending.seed

    # -- commands -----------------------------------------------------------------------------

    async def _prior(
        self, command_id: uuid.UUID, stream: str, actor: str, digest: bytes
    ) -> Outcome | None:
        return await prior_outcome(self.store, command_id, stream, actor, digest)

    async def _append(
        self,
        stream: str,
        events: list[e.Event],
        expected_version: int | None,
        command_id: uuid.UUID,
        actor: str,
        digest: bytes,
    ) -> AppendResult:
        return await append_decided(
            self.store, stream, events, expected_version, command_id, actor, digest
        )

    async def execute(
        self,
        table_id: str,
        actor: str,
        command: c.Command,
        command_id: uuid.UUID,
        arrival: Arrival | None = None,
    ) -> Outcome:
        """Decide and append one command; the same actor retrying the same command with its
        id gets the first outcome. ``arrival``: when it was taken from its socket or request
        (:meth:`arrival`), the time it is decided at; now if not given (the timers, the bots).

        :raises CommandError, NotAllowedError: the command does not fit the table, or the
            actor (:mod:`events.domain.table`, with the table's own not-found, exists and
            reused-id).
        :raises CommandIdReusedError: the id was recorded for another actor or command.
        :raises EngineError: the rules do not allow it.
        :raises StoreError: the store failed (unavailable, corrupt event...).
        """
        kind = e.tag(command)  # type: ignore[arg-type]
        digest = command_digest(table_id, command)
        started = time.perf_counter()
        outcome = "error"
        self._inflight += 1
        self._idle.clear()
        try:
            if isinstance(command, c.Chat):
                result = await self._chat(table_id, actor, command, command_id, digest)
            else:
                result = await self._execute(table_id, actor, command, command_id, digest, arrival)
            outcome = "duplicate" if result.duplicate else "ok"
            return result
        except ValueError as exc:
            # Every refusal (the table's errors, the engine's) is a ValueError.
            outcome = type(exc).__name__
            raise
        except DecisionRejectedError:
            outcome = "rejected"
            raise
        finally:
            self._inflight -= 1
            if not self._inflight:
                self._idle.set()
            self._observer.command_done(kind, outcome, time.perf_counter() - started)

    async def _execute(
        self,
        table_id: str,
        actor: str,
        command: c.Command,
        command_id: uuid.UUID,
        digest: bytes,
        arrival: Arrival | None,
    ) -> Outcome:
        stream = table_stream(table_id)
        creating = isinstance(command, c.CreateTable)
        if isinstance(command, c.Expire):
            # Who acted before the clock's expiry is decided before it.
            cutoff = arrival.at if arrival is not None else self.now()
            await self._after_earlier(table_id, cutoff, arrival)
        async with self._locks.hold(table_id):
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
                    events = self._decide(
                        state, actor, command, dice, self._decided_at(state, arrival)
                    )
                except Exception:
                    # A retry of a command that succeeded is refused by the state it made
                    # (cannot roll twice...): answer it with the first outcome instead.
                    prior = await self._prior(command_id, stream, actor, digest)
                    if prior is not None:
                        return prior
                    if not creating:
                        fresh = await self.state(table_id)
                        if fresh.version != state.version:
                            state = fresh  # the cache was stale: decide on the real state
                            continue
                    raise
                # Nothing is appended that the audit would reject (docs/audit.md).
                after = self._check(table_id, actor, command, command_id, state, events, dice)
                if pending is not None and not await self._keep_seed(table_id, pending, events):
                    state = None
                    continue
                appended = time.perf_counter()
                try:
                    result = await self._append(
                        stream, events, state.version, command_id, actor, digest
                    )
                except ConcurrencyError:
                    if creating:
                        raise TableExistsError(table_id) from None
                    state = None  # another process appended first: catch up, decide again
                    continue
                self._observer.append_done(time.perf_counter() - appended)
                if result.duplicate:
                    return outcome_of(command_id, result)  # the store read back the first outcome
                self._remember(table_id, after)
                if self.on_bot_state is not None:
                    self.on_bot_state(table_id, after)
                log.info(
                    "command %s",
                    e.tag(command),  # type: ignore[arg-type]
                    extra={"table_id": table_id, "command_id": str(command_id), "actor": actor},
                )
                return outcome_of(command_id, result)
            raise ConcurrencyError(stream, None, -1)

    def _check(
        self,
        table_id: str,
        actor: str,
        command: c.Command,
        command_id: uuid.UUID,
        state: TableState,
        events: list[e.Event],
        dice: DiceSource,
    ) -> TableState:
        """The state after the decided ``events``, checked as the audit will check them
        (:func:`events.domain.rules_check.check_batch`, with the dice they were decided with).

        :raises DecisionRejectedError: they are not what the rules give: logged with the
            table and command ids, counted, and nothing is appended.
        """
        # What decide() itself decided is not decided again where the audit infers the same
        # command from it (a pure function, the same inputs: check_batch's ``decided_as``).
        known = (actor, command) if self._decide is decide else None
        try:
            return check_batch(state, events, dice, decided_as=known, cost=self.check_cost)
        except DecisionRejectedError as exc:
            log.error(
                "a decision was rejected before it was appended: %s",
                exc,
                extra={"table_id": table_id, "command_id": str(command_id), "actor": actor},
            )
            self._observer.decision_rejected(exc.event_type)
            raise

    async def _chat(
        self, table_id: str, actor: str, command: c.Chat, command_id: uuid.UUID, digest: bytes
    ) -> Outcome:
        stream = chat_stream(table_id)
        # The same actor's retry of the same message: its first outcome, even if the actor may
        # no longer post there. Anyone else: a reused id, before anything is decided or read.
        prior = await self._prior(command_id, stream, actor, digest)
        if prior is not None:
            return prior
        state = await self.state(table_id)
        posted = decide_chat(state, actor, command)
        if not isinstance(posted, e.ChatPosted):  # the audit's check of a chat stream
            raise DecisionRejectedError(table_id, 0, e.tag(posted), "not a chat message")
        result = await self._append(stream, [posted], None, command_id, actor, digest)
        return outcome_of(command_id, result)
