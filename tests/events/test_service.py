"""The command service (:class:`events.service.TableService`) over a real store, without HTTP:
its own contract, which the server's tests (``tests/server``) see only through the API.

- Commands through :meth:`~TableService.execute`: a table created, joined, thrown and played,
  each outcome naming the versions it wrote.
- Command ids: the same actor retrying the same command gets its first outcome (``duplicate``,
  nothing written); another actor, or another command, gets ``CommandIdReusedError``.
- Two services on one store (two processes): the expected-version conflict is met by catching
  up and deciding again; a stale cache's refusal is decided again on the real state.
- The state cache is the fold of the stored events, as a fresh service folds them.
- A refused command writes nothing and leaves the cached state as it was.
- Arrivals: a clock's expiry waits for the commands that arrived before it, and a command is
  decided at the time it arrived.
- Fair dice: a game's seed is kept in the seed store before the events that commit to it are
  appended (a seed that cannot be kept starts no game).
- The check before append: what a wrong decider decides is not appended.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Callable

import msgspec
import pytest
from dice import SeededDice

from engine.game import Phase
from events.domain import commands as c
from events.domain import types as e
from events.domain.decider import decide, fold_stored
from events.domain.dice import SeedCipher
from events.domain.rules_check import DecisionRejectedError
from events.domain.table import (
    CommandError,
    CommandIdReusedError,
    DiceSource,
    NotAllowedError,
    TableExistsError,
    TableNotFoundError,
    TableState,
)
from events.service import Outcome, TableService, command_digest
from events.store.event_store import EventStore
from events.store.seed_store import SeedStore
from events.store.streams import decode_recorded, table_stream

T0 = 1_764_000_000.0
"""The injected clock's start (seconds since the epoch)."""
CLOCK = e.ClockOptions(delay=10, reserve=60)
CIPHER = SeedCipher(bytes(range(32)))
ANN, BOB = "p-ann", "p-bob"


class Clock:
    """The service's clock, set by the test (seconds since the epoch)."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Observed:
    """What the service reports to its observer (the server's metrics), in order."""

    def __init__(self) -> None:
        self.commands: list[tuple[str, str]] = []
        self.rejected: list[str] = []

    def command_done(self, kind: str, outcome: str, seconds: float) -> None:
        assert seconds >= 0
        self.commands.append((kind, outcome))

    def append_done(self, seconds: float) -> None:
        assert seconds >= 0

    def decision_rejected(self, event_type: str) -> None:
        self.rejected.append(event_type)


def seeded(store: EventStore, **kwargs: object) -> TableService:
    """A service with the tests' seeded dice (no seed store)."""
    return TableService(store, dice_factory=lambda table: SeededDice(7), **kwargs)  # type: ignore[arg-type]


async def run(service: TableService, table_id: str, actor: str, command: c.Command) -> Outcome:
    return await service.execute(table_id, actor, command, uuid.uuid4())


async def money_table(service: TableService, **options: object) -> str:
    """A money table (no seed window) that ann created and both have joined: game 1 waits for
    its opening throw."""
    table_id = str(uuid.uuid4())
    opts = e.TableOptions(seed_window=0, **options)  # type: ignore[arg-type]
    await run(service, table_id, ANN, c.CreateTable(kind="money", options=opts))
    await run(service, table_id, ANN, c.Join())
    await run(service, table_id, BOB, c.Join())
    return table_id


async def stored(store: EventStore, table_id: str) -> list[e.Event]:
    return [decode_recorded(r) for r in await store.read_stream(table_stream(table_id))]


async def version(store: EventStore, table_id: str) -> int:
    return await store.stream_version(table_stream(table_id))


def types(events: object) -> list[str]:
    return [r.type for r in events]  # type: ignore[attr-defined]


def on_turn(state: TableState) -> str:
    assert state.match is not None and state.match.game is not None
    return state.seats[state.match.game.turn] or ""


async def play_opening_move(service: TableService, table_id: str, state: TableState) -> Outcome:
    """The player on turn plays the first of the legal plays."""
    assert state.match is not None and state.match.game is not None
    moves = state.match.game.legal_plays()[0].moves
    return await run(service, table_id, on_turn(state), c.Move(moves=[(a, b) for a, b in moves]))


async def play_opening(service: TableService, table_id: str) -> TableState:
    """Throw the opening and play the first legal play: the table's state then."""
    await run(service, table_id, BOB, c.Roll())
    state = await service.state(table_id)
    assert state.match is not None and state.match.game is not None
    assert state.match.game.phase is Phase.MOVE
    await play_opening_move(service, table_id, state)
    return await service.state(table_id)


# -- commands through execute -------------------------------------------------------------------


async def test_a_table_is_created_joined_thrown_and_played_through_execute(
    store: EventStore,
) -> None:
    observed = Observed()
    service = seeded(store, observer=observed)
    table_id = str(uuid.uuid4())
    stream = table_stream(table_id)
    opts = e.TableOptions(seed_window=0)
    created = await run(service, table_id, ANN, c.CreateTable(kind="money", options=opts))
    assert (created.stream, created.first_version, created.last_version) == (stream, 1, 1)
    assert not created.duplicate and types(created.events) == ["table_created"]
    joined = await run(service, table_id, ANN, c.Join())
    assert joined.first_version == 2
    second = await run(service, table_id, BOB, c.Join())
    assert second.first_version == joined.last_version + 1
    # The second player sitting down starts game 1: its events are the same command's.
    assert "game_started" in types(second.events)
    state = await service.state(table_id)
    assert state.seats == (ANN, BOB) and state.in_game and state.game_no == 1
    assert state.version == second.last_version
    thrown = await run(service, table_id, BOB, c.Roll())
    assert types(thrown.events)[0] == "opening_throw"
    after = await service.state(table_id)
    assert after.match is not None and after.match.game is not None
    assert after.match.game.phase is Phase.MOVE
    played = await play_opening_move(service, table_id, after)
    assert played.first_version == thrown.last_version + 1
    # Each outcome's events are what the store holds at those versions.
    records = await store.read_stream(stream)
    assert [r.version for r in records] == list(range(1, played.last_version + 1))
    for outcome in (created, joined, second, thrown, played):
        assert [r.version for r in outcome.events] == list(
            range(outcome.first_version, outcome.last_version + 1)
        )
        # (An outcome leaves out the chain hash, which reads of the stream carry.)
        assert [(r.type, r.data, r.command_id) for r in outcome.events] == [
            (r.type, r.data, r.command_id)
            for r in records[outcome.first_version - 1 : outcome.last_version]
        ]
    assert observed.commands == [
        ("create_table", "ok"),
        ("join", "ok"),
        ("join", "ok"),
        ("roll", "ok"),
        ("move", "ok"),
    ]


async def test_a_table_created_twice_is_refused_and_an_unknown_one_is_not_found(
    store: EventStore,
) -> None:
    service = seeded(store)
    table_id = await money_table(service)
    before = await version(store, table_id)
    with pytest.raises(TableExistsError):
        await run(service, table_id, BOB, c.CreateTable(kind="money"))
    assert await version(store, table_id) == before
    unknown = str(uuid.uuid4())
    with pytest.raises(TableNotFoundError):
        await run(service, unknown, ANN, c.Roll())
    assert await version(store, unknown) == 0


# -- command ids --------------------------------------------------------------------------------


async def test_the_same_command_retried_by_its_actor_gets_its_first_outcome(
    store: EventStore,
) -> None:
    observed = Observed()
    service = seeded(store, observer=observed)
    table_id = await money_table(service)
    command_id = uuid.uuid4()
    first = await service.execute(table_id, BOB, c.Roll(), command_id)
    written = await version(store, table_id)
    assert not first.duplicate and written == first.last_version
    # A retry (a lost answer): the roll is refused by the state it made, yet the retry is
    # answered with the first outcome, and nothing is written.
    again = await service.execute(table_id, BOB, c.Roll(), command_id)
    assert again.duplicate
    assert (again.command_id, again.stream, again.first_version, again.last_version) == (
        first.command_id,
        first.stream,
        first.first_version,
        first.last_version,
    )
    assert again.events == first.events
    # A retry after another command was played: still the first outcome, from the store.
    state = await service.state(table_id)
    move = await play_opening_move(service, table_id, state)
    third = await service.execute(table_id, BOB, c.Roll(), command_id)
    assert third.duplicate and third.last_version == first.last_version
    assert await version(store, table_id) == move.last_version
    # A fresh service (another process) answers it the same way.
    other = await seeded(store).execute(table_id, BOB, c.Roll(), command_id)
    assert other.duplicate and other.events == first.events
    assert [k for k in observed.commands if k[0] == "roll"] == [
        ("roll", "ok"),
        ("roll", "duplicate"),
        ("roll", "duplicate"),
    ]


async def test_a_command_id_used_by_another_actor_or_for_another_command_is_refused(
    store: EventStore,
) -> None:
    service = seeded(store)
    table_id = await money_table(service)
    command_id = uuid.uuid4()
    await service.execute(table_id, BOB, c.Roll(), command_id)
    written = await version(store, table_id)
    # Another actor: told nothing of the first outcome, and nothing is decided or written.
    with pytest.raises(CommandIdReusedError) as reused:
        await service.execute(table_id, ANN, c.Roll(), command_id)
    assert str(reused.value) == f"command id {command_id} was already used for another command"
    # The same actor with another command (the move on turn) under the same id.
    state = await service.state(table_id)
    assert state.match is not None and state.match.game is not None
    moves = state.match.game.legal_plays()[0].moves
    move = c.Move(moves=[(a, b) for a, b in moves])
    with pytest.raises(CommandIdReusedError):
        await service.execute(table_id, on_turn(state), move, command_id)
    # The same id at another table.
    elsewhere = await money_table(service)
    elsewhere_version = await version(store, elsewhere)
    with pytest.raises(CommandIdReusedError):
        await service.execute(elsewhere, BOB, c.Roll(), command_id)
    assert await version(store, table_id) == written
    assert await version(store, elsewhere) == elsewhere_version
    # A chat message under a table command's id is refused too.
    with pytest.raises(CommandIdReusedError):
        await service.execute(table_id, BOB, c.Chat(text="hello"), command_id)
    # The move itself, under a fresh id, is played.
    assert (await run(service, table_id, on_turn(state), move)).first_version == written + 1


async def test_a_chat_message_retried_gets_its_first_outcome(store: EventStore) -> None:
    service = seeded(store)
    table_id = await money_table(service)
    command_id = uuid.uuid4()
    posted = await service.execute(table_id, ANN, c.Chat(text="good luck"), command_id)
    assert posted.stream != table_stream(table_id) and types(posted.events) == ["chat_posted"]
    again = await service.execute(table_id, ANN, c.Chat(text="good luck"), command_id)
    assert again.duplicate and again.events == posted.events
    with pytest.raises(CommandIdReusedError):
        await service.execute(table_id, BOB, c.Chat(text="good luck"), command_id)
    assert await store.stream_version(posted.stream) == 1


# -- two services on one store ------------------------------------------------------------------


async def test_two_services_on_one_store_catch_up_on_a_version_conflict(
    store: EventStore,
) -> None:
    one, two = seeded(store), seeded(store)
    table_id = str(uuid.uuid4())
    opts = e.TableOptions(seed_window=0)
    await run(one, table_id, ANN, c.CreateTable(kind="money", options=opts))
    stale = await two.state(table_id)  # the second process has the table at version 1
    assert stale.version == 1 and stale.seats == (None, None)
    await run(one, table_id, ANN, c.Join())
    # On its stale state bob's join is decided (as the first to sit) and its append, expected
    # at version 1, fails: the service catches up and decides it again, now the second
    # player, which starts game 1.
    joined = await run(two, table_id, BOB, c.Join())
    assert joined.first_version == 3
    assert "game_started" in types(joined.events)
    state = two.cached(table_id)
    assert state is not None and state.seats == (ANN, BOB) and state.in_game
    # The first process's cache is behind until it reads; a command through it catches up the
    # same way (the opening throw, decided on a state without the game, is decided again).
    assert one.cached(table_id) is not None and one.cached(table_id).version == 2  # type: ignore[union-attr]
    thrown = await run(one, table_id, BOB, c.Roll())
    assert thrown.first_version == joined.last_version + 1
    assert types(thrown.events)[0] == "opening_throw"
    assert (await one.state(table_id)).version == (await two.state(table_id)).version
    events = await stored(store, table_id)
    assert [type(ev).__name__ for ev in events].count("PlayerJoined") == 2


async def test_commands_racing_through_two_services_each_land_once(store: EventStore) -> None:
    """Many commands sent through two services at once: each is written once, in a gap-free
    stream, however the appends interleave."""
    one, two = seeded(store), seeded(store)
    table_id = await money_table(one)
    await two.state(table_id)
    writes = [
        (one if i % 2 else two).execute(table_id, who, c.Chat(text=f"{who} {i}"), uuid.uuid4())
        for i, who in enumerate([ANN, BOB] * 5)
    ]
    # Table commands too: the opening throw through one service, a stale one through the other.
    outcomes = await asyncio.gather(run(one, table_id, BOB, c.Roll()), *writes)
    assert types(outcomes[0].events)[0] == "opening_throw"
    state = await two.state(table_id)
    assert state.match is not None and state.match.game is not None
    assert state.match.game.phase is Phase.MOVE
    played = await play_opening_move(two, table_id, state)
    records = await store.read_stream(table_stream(table_id))
    assert [r.version for r in records] == list(range(1, played.last_version + 1))
    chat = outcomes[1].stream
    assert await store.stream_version(chat) == 10


# -- the state cache ----------------------------------------------------------------------------


async def test_the_cached_state_is_the_fold_of_the_stored_events(store: EventStore) -> None:
    folded: list[tuple[str, int]] = []
    service = seeded(store, on_state=lambda table, s: folded.append((table, s.version)))
    table_id = await money_table(service)
    await play_opening(service, table_id)
    cached = service.cached(table_id)
    assert cached is not None
    # Every state the service folded was reported, the last one the cached one.
    assert folded[-1] == (table_id, cached.version)
    assert [v for _, v in folded] == sorted(v for _, v in folded)
    fresh = fold_stored(await stored(store, table_id), TableState(table_id=table_id))
    assert fresh.version == cached.version == await version(store, table_id)
    # Frozen dataclasses down to the engine's game: equal by value.
    assert cached == fresh
    # A service with nothing cached folds the same state from the store.
    assert await seeded(store).state(table_id) == cached
    assert service.memory() == {"states": 1, "seeds": 0, "locks": 0, "arrivals": 0}


async def test_the_cache_keeps_the_tables_used_last(store: EventStore) -> None:
    service = seeded(store, cache_size=2)
    tables = [await money_table(service) for _ in range(3)]
    assert service.cached(tables[0]) is None  # the least recently used went first
    assert service.cached(tables[1]) is not None and service.cached(tables[2]) is not None
    # Reading it again brings it back, from the store, at its version; the next one goes.
    assert (await service.state(tables[0])).version == await version(store, tables[0])
    assert service.cached(tables[1]) is None
    assert service.memory()["states"] == 2


# -- refusals -----------------------------------------------------------------------------------


async def test_a_refused_command_writes_nothing(store: EventStore) -> None:
    observed = Observed()
    service = seeded(store, observer=observed)
    table_id = await money_table(service)
    await run(service, table_id, BOB, c.Roll())
    state = await service.state(table_id)
    before = await version(store, table_id)
    off_turn = ANN if on_turn(state) == BOB else BOB
    refusals: list[tuple[str, c.Command, type[Exception]]] = [
        (off_turn, c.Roll(), ValueError),  # not their turn, and nothing to throw
        (on_turn(state), c.Roll(), ValueError),  # the dice are thrown already
        (on_turn(state), c.Move(notation="24/1"), ValueError),  # not a legal play
        ("p-carol", c.Double(), NotAllowedError),  # not at the table
        (off_turn, c.Take(), ValueError),  # nothing to take
    ]
    for actor, command, error in refusals:
        command_id = uuid.uuid4()
        with pytest.raises(error):
            await service.execute(table_id, actor, command, command_id)
        assert await version(store, table_id) == before
        # Its id is not recorded either.
        outcome = await store.command_outcome(
            command_id,
            table_stream(table_id),
            actor=actor,
            digest=command_digest(table_id, command),
        )
        assert outcome is None
    # The cached state is the one before the refusals.
    after = service.cached(table_id)
    assert after is not None and after.version == before
    assert after == state
    kinds = [outcome for _, outcome in observed.commands[-len(refusals) :]]
    assert all(k not in ("ok", "duplicate", "error") for k in kinds), kinds


# -- arrivals -----------------------------------------------------------------------------------


async def test_an_expiry_waits_for_a_command_that_arrived_before_it(store: EventStore) -> None:
    clock = Clock()
    service = seeded(store, clock=clock)
    table_id = await money_table(service, clock=CLOCK)
    state = await service.state(table_id)
    # The opening throw is the table's to throw once the delay has run out (10 s).
    assert state.clock_running == (("", int(T0 * 1000)),)
    clock.now = T0 + 9.5
    with service.arrival(table_id) as arrival:
        # The loop is late: the timer's expiry comes after the delay, while bob's throw (in
        # time) is still on its way to the table's lock.
        clock.now = T0 + 10.5
        expiry = asyncio.create_task(run(service, table_id, "clock", c.Expire()))
        await asyncio.sleep(0.3)
        assert not expiry.done(), "the expiry did not wait for the command before it"
        assert await version(store, table_id) == state.version
        thrown = await service.execute(table_id, BOB, c.Roll(), uuid.uuid4(), arrival)
    # Bob's throw was decided at the time it arrived: in time, by him.
    (throw,) = [ev for ev in thrown.events if ev.type == "opening_throw"]
    assert decode_recorded(throw).at == int((T0 + 9.5) * 1000)  # type: ignore[attr-defined]
    # Then the expiry finds that nothing has run out: the player's delay started at the throw.
    with pytest.raises(CommandError, match="nothing has run out"):
        await expiry
    assert await version(store, table_id) == thrown.last_version
    assert service.memory()["arrivals"] == 0


async def test_an_expiry_waits_for_nothing_that_arrived_after_it(store: EventStore) -> None:
    clock = Clock()
    service = seeded(store, clock=clock)
    table_id = await money_table(service, clock=CLOCK)
    clock.now = T0 + 10.5
    with service.arrival(table_id) as timer:
        clock.now = T0 + 10.6
        with service.arrival(table_id):
            # A command that arrived after the expiry does not hold it up (it would for
            # ARRIVAL_WAIT, 5 s): the table throws the overdue opening.
            outcome = await asyncio.wait_for(
                service.execute(table_id, "clock", c.Expire(), uuid.uuid4(), timer), timeout=2
            )
    assert types(outcome.events)[0] == "opening_throw"
    (throw,) = outcome.events
    assert decode_recorded(throw).at == int((T0 + 10.5) * 1000)  # type: ignore[attr-defined]


# -- fair dice and the seed store ---------------------------------------------------------------


class WatchedSeeds(SeedStore):
    """The real seed store, noting the table stream's version each time a seed is kept, and
    failing the keep while :attr:`fail` is set (the database refusing it)."""

    def __init__(self, store: EventStore) -> None:
        super().__init__(store.pool, CIPHER)
        self.store = store
        self.kept: list[tuple[str, int, int]] = []
        self.fail = False

    async def keep(self, table_id: str, game: int, seed: bytes) -> bytes:
        if self.fail:
            raise OSError("the seed store is unavailable")
        self.kept.append((table_id, game, await self.store.stream_version(table_stream(table_id))))
        return await super().keep(table_id, game, seed)


async def test_a_games_seed_is_kept_before_its_commitment_is_appended(store: EventStore) -> None:
    seeds = WatchedSeeds(store)
    service = TableService(store, seeds=seeds)
    table_id = await money_table(service)
    events = await stored(store, table_id)
    (started,) = [ev for ev in events if isinstance(ev, e.GameStarted)]
    # Kept once, for game 1, while the stream was still at the join before it.
    assert seeds.kept == [(table_id, 1, 2)]
    kept = await SeedStore(store.pool, CIPHER).load(table_id)
    assert list(kept) == [1]
    assert hashlib.sha256(kept[1]).hexdigest() == started.dice_commitment
    # The dice thrown are the seed's (the check before append decided them again with it).
    await play_opening(service, table_id)
    assert seeds.kept == [(table_id, 1, 2)]


async def test_a_seed_that_cannot_be_kept_starts_no_game(store: EventStore) -> None:
    seeds = WatchedSeeds(store)
    service = TableService(store, seeds=seeds)
    table_id = str(uuid.uuid4())
    await run(service, table_id, ANN, c.CreateTable(kind="money"))
    await run(service, table_id, ANN, c.Join())
    seeds.fail = True
    with pytest.raises(OSError):
        await run(service, table_id, BOB, c.Join())
    assert await version(store, table_id) == 2
    assert await SeedStore(store.pool, CIPHER).load(table_id) == {}
    seeds.fail = False
    joined = await run(service, table_id, BOB, c.Join())
    assert "game_started" in types(joined.events)
    assert [game for _, game, _ in seeds.kept] == [1]


async def test_fair_dice_need_a_seed_store(store: EventStore) -> None:
    with pytest.raises(ValueError, match="seed store"):
        TableService(store)


# -- the check before append --------------------------------------------------------------------


def wrong_throws(
    state: TableState, actor: str, command: c.Command, dice: DiceSource, now: int
) -> list[e.Event]:
    """The real decider, but every throw records other dice than the dice give."""
    out: list[e.Event] = []
    for ev in decide(state, actor, command, dice, now):
        if isinstance(ev, (e.OpeningThrow, e.DiceRolled)):
            a, b = ev.dice
            ev = msgspec.structs.replace(ev, dice=(a % 6 + 1, b))
        out.append(ev)
    return out


def dropping(kind: type[e.Event]) -> Callable[..., list[e.Event]]:
    """The real decider, without the events of type ``kind``."""

    def decider(
        state: TableState, actor: str, command: c.Command, dice: DiceSource, now: int
    ) -> list[e.Event]:
        return [ev for ev in decide(state, actor, command, dice, now) if not isinstance(ev, kind)]

    return decider


@pytest.mark.parametrize(
    ("decider", "command", "event"),
    [
        (wrong_throws, c.Roll(), "opening_throw"),
        (dropping(e.GameStarted), c.Join(), None),
    ],
    ids=["other-dice", "a-join-that-starts-no-game"],
)
async def test_a_wrong_decision_writes_nothing(
    store: EventStore, decider: Callable[..., list[e.Event]], command: c.Command, event: str | None
) -> None:
    observed = Observed()
    right = seeded(store)
    table_id = str(uuid.uuid4())
    await run(
        right, table_id, ANN, c.CreateTable(kind="money", options=e.TableOptions(seed_window=0))
    )
    await run(right, table_id, ANN, c.Join())
    if isinstance(command, c.Roll):
        await run(right, table_id, BOB, c.Join())
    wrong = seeded(store, observer=observed, decider=decider)
    before = await wrong.state(table_id)
    with pytest.raises(DecisionRejectedError) as rejected:
        await run(wrong, table_id, BOB, command)
    assert table_id in str(rejected.value)
    if event is not None:
        assert rejected.value.event_type == event
    assert observed.rejected == [rejected.value.event_type]
    assert observed.commands[-1] == (e.tag(command), "rejected")  # type: ignore[arg-type]
    assert await version(store, table_id) == before.version
    cached = wrong.cached(table_id)
    assert cached is not None
    assert cached == before
    # The right decider plays on from the same state.
    assert (await run(right, table_id, BOB, command)).first_version == before.version + 1
