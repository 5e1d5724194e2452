"""The audit finds tampering, and names the version tampered with.

Tables are played through the decider with fair dice
(:func:`events.records.simulate.simulate_table`) and
appended to a fresh database as the table service would. A superuser (the ``admin`` fixture)
then disables the append-only triggers and edits the stored events, in two ways:

- **naively**: the edit alone, which the hash chain catches;
- **recomputing the chain**: the edit, then every later ``prev_hash``/``hash`` and the stream's
  head rewritten with :func:`events.store.chain.event_hash`, so that the chain holds. The rules and
  the
  dice must still name the version edited.
"""

from __future__ import annotations

import asyncio
import io
import json
import random
import uuid
from collections.abc import Callable
from typing import Any

import asyncpg
import msgspec
import pytest

from engine.moves import legal_plays
from events.domain import types as e
from events.domain.decider import evolve
from events.domain.table import TableState
from events.records.audit import audit_records
from events.records.audit_scan import audit_table, audit_tables, check_log
from events.records.simulate import simulate_chouette, simulate_table
from events.store.chain import ZERO_HASH, stored_hash
from events.store.event_store import EventStore
from events.store.streams import append_steps, table_stream
from server.cli.main import main
from server.cli.progress import Progress
from tests.records import recorded


async def _table(store: EventStore, seed: int = 1, games: int = 3, **kw: Any) -> str:
    table_id = str(uuid.UUID(int=seed))
    table = simulate_table(table_id, games=games, rng=random.Random(seed), **kw)
    await append_steps(store, table_id, [step.events for step in table.steps])
    return table_id


async def _events(store: EventStore, table_id: str) -> list[tuple[int, e.Event]]:
    records = await store.read_stream(table_stream(table_id))
    return [(r.version, e.decode(r.type, r.schema_version, r.data)) for r in records]


def _in_finished_game(
    events: list[tuple[int, e.Event]], want: Callable[[e.Event, TableState], bool]
) -> int:
    """The version of the first event in a finished game for which ``want(event, state
    before)`` holds."""
    ended = {ev.game for _, ev in events if isinstance(ev, e.GameEnded)}
    state = TableState()
    for version, ev in events:
        if state.in_game and state.game_no in ended and want(ev, state):
            return version
        state = evolve(state, ev)
    raise AssertionError("no such event")


class Tamper:
    """A superuser editing the stored events of one stream."""

    def __init__(self, admin: asyncpg.Connection, stream: str, *, rechain: bool) -> None:
        self.admin = admin
        self.stream = stream
        self.rechain = rechain

    async def __aenter__(self) -> Tamper:
        await self.admin.execute("ALTER TABLE events DISABLE TRIGGER ALL")
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            if self.rechain and exc[0] is None:
                await self._rechain()
        finally:
            await self.admin.execute("ALTER TABLE events ENABLE TRIGGER ALL")

    async def set_event(self, version: int, event: e.Event) -> None:
        await self.admin.execute(
            "UPDATE events SET type = $1, data = $2 WHERE stream_id = $3 AND version = $4",
            e.tag(event),
            e.encode(event),
            self.stream,
            version,
        )

    async def swap(self, v: int, w: int) -> None:
        """Exchange two events' versions (whole rows)."""
        q = "UPDATE events SET version = $1 WHERE stream_id = $2 AND version = $3"
        await self.admin.execute(q, 1_000_000, self.stream, v)
        await self.admin.execute(q, v, self.stream, w)
        await self.admin.execute(q, w, self.stream, 1_000_000)

    async def delete(self, version: int, *, renumber: bool) -> None:
        await self.admin.execute(
            "DELETE FROM events WHERE stream_id = $1 AND version = $2", self.stream, version
        )
        if renumber:
            rows = await self.admin.fetch(
                "SELECT version FROM events WHERE stream_id = $1 AND version > $2 ORDER BY version",
                self.stream,
                version,
            )
            for r in rows:
                await self.admin.execute(
                    "UPDATE events SET version = version - 1 WHERE stream_id = $1 AND version = $2",
                    self.stream,
                    r["version"],
                )
            await self.admin.execute(
                "UPDATE streams SET version = version - 1 WHERE stream_id = $1", self.stream
            )

    async def _rechain(self) -> None:
        rows = await self.admin.fetch(
            "SELECT version, type, schema_version, data, command_id, recorded_at, chain_version"
            " FROM events WHERE stream_id = $1 ORDER BY version",
            self.stream,
        )
        prev = ZERO_HASH
        for r in rows:
            digest = stored_hash(prev, self.stream, r)
            await self.admin.execute(
                "UPDATE events SET prev_hash = $1, hash = $2 WHERE stream_id = $3 AND version = $4",
                prev,
                digest,
                self.stream,
                r["version"],
            )
            prev = digest
        await self.admin.execute(
            "UPDATE streams SET head_hash = $1, version = $2 WHERE stream_id = $3",
            prev,
            len(rows),
            self.stream,
        )


async def _first_failure(store: EventStore, table_id: str) -> tuple[int, str, str]:
    report = await audit_table(store, table_id)
    assert report is not None
    assert report.status == "failed", report.as_dict()
    found = report.first_failure
    assert found is not None
    stream, failure = found
    assert stream == table_stream(table_id)
    return failure.version, failure.check, failure.reason


# -- an honest table ------------------------------------------------------------------------------


async def test_an_honest_table_passes_every_check(store: EventStore) -> None:
    table_id = await _table(store, seed=1, games=4)
    report = await audit_table(store, table_id)
    assert report is not None
    doc = report.as_dict()
    play = doc["streams"][0]
    assert doc["status"] == "pending", doc  # the fifth game has started: its seed is secret
    assert play["failures"] == []
    assert play["checks"] == {
        "chain": "ok",
        "versions": "ok",
        "decode": "ok",
        "rules": "ok",
        "dice": "pending",
    }
    assert play["games"] == {
        "started": 5,
        "dice_verified": [1, 2, 3, 4],
        "pending": [5],
        "uncommitted": [],
    }
    assert play["events"] == await store.stream_version(table_stream(table_id))


async def test_a_finished_match_is_ok(store: EventStore) -> None:
    table_id = await _table(
        store, seed=6, games=99, kind="match", options=e.TableOptions(match_length=5)
    )
    report = await audit_table(store, table_id)
    assert report is not None and report.status == "ok", report.as_dict()
    (play,) = report.streams
    assert play.pending == [] and play.dice_verified == list(range(1, play.games + 1))


# -- tampering, version by version ----------------------------------------------------------------


@pytest.mark.parametrize(
    "change", ["command_id = gen_random_uuid()", "recorded_at = recorded_at + interval '1 s'"]
)
async def test_a_changed_command_id_or_time_is_named(
    store: EventStore, admin: asyncpg.Connection, change: str
) -> None:
    """Chain version 2 hashes when and by which command each event was stored."""
    table_id = await _table(store, seed=2)
    async with Tamper(admin, table_stream(table_id), rechain=False):
        await admin.execute(
            f"UPDATE events SET {change} WHERE stream_id = $1 AND version = 5",
            table_stream(table_id),
        )
    version, check, reason = await _first_failure(store, table_id)
    assert (version, check) == (5, "chain")
    assert reason == "stored hash does not match the stored event"


REWRITES = [pytest.param(False, id="naive"), pytest.param(True, id="rechained")]


@pytest.mark.parametrize("rechain", REWRITES)
async def test_a_changed_throw_is_named(
    store: EventStore, admin: asyncpg.Connection, rechain: bool
) -> None:
    table_id = await _table(store, seed=2)
    events = await _events(store, table_id)
    v = _in_finished_game(events, lambda ev, s: isinstance(ev, e.DiceRolled) and s.dice_counter > 6)
    old = events[v - 1][1]
    assert isinstance(old, e.DiceRolled)
    d0, d1 = old.dice
    new = e.DiceRolled(player=old.player, dice=(d1 % 6 + 1, d0))  # a different throw
    async with Tamper(admin, table_stream(table_id), rechain=rechain) as t:
        await t.set_event(v, new)
    version, check, reason = await _first_failure(store, table_id)
    assert version == v
    assert check == ("dice" if rechain else "chain"), reason
    if rechain:
        assert f"throw {new.dice[0]}-{new.dice[1]} is not what the revealed seed" in reason


@pytest.mark.parametrize("rechain", REWRITES)
async def test_an_illegal_play_is_named(
    store: EventStore, admin: asyncpg.Connection, rechain: bool
) -> None:
    table_id = await _table(store, seed=3)
    events = await _events(store, table_id)

    def has_a_bad_variant(ev: e.Event, s: TableState) -> bool:
        return isinstance(ev, e.CheckersMoved) and _illegal_variant(ev, s) is not None

    v = _in_finished_game(events, has_a_bad_variant)
    state = TableState()
    for _, ev in events[: v - 1]:
        state = evolve(state, ev)
    old = events[v - 1][1]
    assert isinstance(old, e.CheckersMoved)
    new = _illegal_variant(old, state)
    assert new is not None
    async with Tamper(admin, table_stream(table_id), rechain=rechain) as t:
        await t.set_event(v, new)
    version, check, reason = await _first_failure(store, table_id)
    assert version == v
    assert check == ("rules" if rechain else "chain"), reason
    if rechain:
        assert reason.startswith("checkers_moved is not allowed"), reason


def _illegal_variant(ev: e.CheckersMoved, s: TableState) -> e.CheckersMoved | None:
    """The play with its first move one pip shorter, if that is not legal."""
    game = s.game
    if game is None or game.dice is None or not ev.moves:
        return None
    (a, b), *rest = ev.moves
    if b == 0 or a - b < 2:
        return None
    moves = [(a, b + 1), *rest]
    if moves in legal_plays(game.position, game.dice):
        return None
    return e.CheckersMoved(player=ev.player, moves=moves, notation=ev.notation)


@pytest.mark.parametrize("rechain", REWRITES)
async def test_a_changed_cube_action_is_named(
    store: EventStore, admin: asyncpg.Connection, rechain: bool
) -> None:
    table_id = await _table(store, seed=4, games=4, double_rate=0.1, drop_rate=0.1)
    events = await _events(store, table_id)
    v = _in_finished_game(events, lambda ev, s: isinstance(ev, e.CubeTaken))
    old = events[v - 1][1]
    assert isinstance(old, e.CubeTaken)
    async with Tamper(admin, table_stream(table_id), rechain=rechain) as t:
        await t.set_event(v, e.CubeDropped(player=old.player))
    version, check, reason = await _first_failure(store, table_id)
    assert version == v, reason
    assert check == ("rules" if rechain else "chain"), reason
    if rechain:
        assert "cube_dropped must be followed by game_ended" in reason


@pytest.mark.parametrize("rechain", REWRITES)
async def test_a_double_by_the_wrong_player_is_named(
    store: EventStore, admin: asyncpg.Connection, rechain: bool
) -> None:
    """Someone who does not own the cube doubles: a cube action the rules do not allow."""
    table_id = await _table(store, seed=4, games=4, double_rate=0.1, drop_rate=0.1)
    events = await _events(store, table_id)

    def owner_rolls(ev: e.Event, s: TableState) -> bool:
        game = s.game
        return (
            isinstance(ev, e.DiceRolled)
            and game is not None
            and game.cube.owner is not None
            and s.seats[game.cube.owner] != ev.player
        )

    v = _in_finished_game(events, owner_rolls)
    old = events[v - 1][1]
    assert isinstance(old, e.DiceRolled)
    async with Tamper(admin, table_stream(table_id), rechain=rechain) as t:
        await t.set_event(v, e.CubeOffered(player=old.player))
    version, check, reason = await _first_failure(store, table_id)
    assert version == v
    assert check == ("rules" if rechain else "chain"), reason
    if rechain:
        assert "owns the cube" in reason


@pytest.mark.parametrize("rechain", REWRITES)
async def test_two_events_swapped_are_named(
    store: EventStore, admin: asyncpg.Connection, rechain: bool
) -> None:
    table_id = await _table(store, seed=5)
    events = await _events(store, table_id)
    v = _in_finished_game(events, lambda ev, s: isinstance(ev, e.DiceRolled) and s.game_no == 2)
    assert isinstance(events[v][1], e.CheckersMoved)
    async with Tamper(admin, table_stream(table_id), rechain=rechain) as t:
        await t.swap(v, v + 1)
    version, check, reason = await _first_failure(store, table_id)
    assert version == v
    assert check == ("rules" if rechain else "chain"), reason


@pytest.mark.parametrize("rechain", REWRITES)
async def test_a_deleted_event_is_named(
    store: EventStore, admin: asyncpg.Connection, rechain: bool
) -> None:
    table_id = await _table(store, seed=6)
    events = await _events(store, table_id)
    v = _in_finished_game(events, lambda ev, s: isinstance(ev, e.DiceRolled) and s.game_no == 2)
    async with Tamper(admin, table_stream(table_id), rechain=rechain) as t:
        await t.delete(v, renumber=rechain)
    version, check, reason = await _first_failure(store, table_id)
    assert version == v
    if rechain:
        assert check == "rules", reason  # checkers_moved where a throw is due
    else:
        assert check == "chain" and "missing" in reason, reason
        report = await audit_table(store, table_id)
        assert report is not None
        failures = {f.check: f.version for f in report.streams[0].failures}
        assert failures["versions"] == v  # the dense-versions check names it too
    # Either way the log has a hole where the event was.
    assert await check_log(store)


async def test_changed_settlements_are_named(store: EventStore, admin: asyncpg.Connection) -> None:
    """A game_ended whose settlements differ from what the engine computes fails."""
    table_id = await _table(store, seed=7)
    events = await _events(store, table_id)
    v, old = next((v, ev) for v, ev in events if isinstance(ev, e.GameEnded))
    assert isinstance(old, e.GameEnded)
    settlements = [
        e.Settlement(player=s.player, amount=s.amount * 2, reason=s.reason) for s in old.settlements
    ]
    async with Tamper(admin, table_stream(table_id), rechain=True) as t:
        await t.set_event(v, msgspec.structs.replace(old, settlements=settlements))
    version, check, reason = await _first_failure(store, table_id)
    assert (version, check) == (v, "rules"), reason
    assert "settlements" in reason


async def test_a_revealed_seed_that_is_not_the_committed_one(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    table_id = await _table(store, seed=8)
    events = await _events(store, table_id)
    v, old = next((v, ev) for v, ev in events if isinstance(ev, e.GameEnded))
    assert isinstance(old, e.GameEnded)
    async with Tamper(admin, table_stream(table_id), rechain=True) as t:
        await t.set_event(v, msgspec.structs.replace(old, seed="00" * 32))
    version, check, reason = await _first_failure(store, table_id)
    assert (version, check) == (v, "dice"), reason
    assert "is not the one committed to" in reason


async def test_a_changed_commitment_is_told_from_a_changed_seed(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    """The genuine seed still derives every throw: the commitment is what was changed."""
    table_id = await _table(store, seed=9)
    events = await _events(store, table_id)
    v, old = next((v, ev) for v, ev in events if isinstance(ev, e.GameStarted))
    assert isinstance(old, e.GameStarted)
    async with Tamper(admin, table_stream(table_id), rechain=True) as t:
        await t.set_event(v, msgspec.structs.replace(old, dice_commitment="ab" * 32))
    version, check, reason = await _first_failure(store, table_id)
    assert (version, check) == (v, "dice"), reason
    assert "which does derive every throw" in reason


async def test_a_game_in_play_is_pending_but_its_rules_are_checked(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    table_id = await _table(store, seed=10, games=2, finish=False)
    events = await _events(store, table_id)
    last_start = max(v for v, ev in events if isinstance(ev, e.GameStarted))
    report = await audit_table(store, table_id)
    assert report is not None and report.status == "pending"
    # Its throws cannot be checked yet, but a play that does not fit them is still illegal.
    v = next(
        v for v, ev in events if v > last_start and isinstance(ev, e.CheckersMoved) and ev.moves
    )
    async with Tamper(admin, table_stream(table_id), rechain=True) as t:
        await t.set_event(v, e.CheckersMoved(player="alice", moves=[(24, 1)], notation="24/1"))
    version, check, _ = await _first_failure(store, table_id)
    assert (version, check) == (v, "rules")


# -- the pure core and the CLI --------------------------------------------------------------------


def test_audit_records_without_a_database() -> None:
    table = simulate_table("pure", games=3, rng=random.Random(12))
    records = recorded("pure", [s.events for s in table.steps])
    report = audit_records(table_stream("pure"), records)
    assert report.status == "pending" and report.failures == []
    assert report.dice_verified == [1, 2, 3]


def test_a_client_seed_changes_the_dice_that_must_have_been_thrown() -> None:
    """A game whose players added seeds is checked with them: leave one out and the first throw
    no longer fits the revealed seed."""
    table = simulate_table("seeds", games=2, rng=random.Random(13), seed_rate=1.0)
    steps = [list(s.events) for s in table.steps]
    assert any(isinstance(ev, e.ClientSeedAdded) for step in steps for ev in step)
    assert audit_records(table_stream("seeds"), recorded("seeds", steps)).failures == []
    first_seed = next(i for i, step in enumerate(steps) if isinstance(step[0], e.ClientSeedAdded))
    del steps[first_seed]
    report = audit_records(table_stream("seeds"), recorded("seeds", steps))
    failure = report.first_failure
    assert failure is not None and failure.check == "dice", report.as_dict()


async def test_audit_several_tables_and_the_log(store: EventStore) -> None:
    ids = [await _table(store, seed=s, games=2) for s in (20, 21)]
    reports = await audit_tables(store, [*ids, str(uuid.uuid4())])
    assert [r.status for r in reports] == ["pending", "pending", "failed"]
    assert await check_log(store) == []


async def test_the_cli_exits_1_on_a_failure_and_prints_json(
    store: EventStore, admin: asyncpg.Connection, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    good = await _table(store, seed=30, games=1)
    bad = await _table(store, seed=31, games=2)
    events = await _events(store, bad)
    v = _in_finished_game(events, lambda ev, s: isinstance(ev, e.DiceRolled))
    old = events[v - 1][1]
    assert isinstance(old, e.DiceRolled)
    async with Tamper(admin, table_stream(bad), rechain=True) as t:
        await t.set_event(v, e.DiceRolled(player=old.player, dice=(old.dice[1] % 6 + 1, 1)))
    # The CLI runs its own event loop: run it in a thread, off this test's loop.
    ok = await asyncio.to_thread(main, ["audit", "--table", good, "--database-url", db_url])
    assert ok == 0
    out = capsys.readouterr().out
    assert f"{good}: pending" in out
    status = await asyncio.to_thread(main, ["audit", "--all", "--json", "--database-url", db_url])
    assert status == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "failed" and doc["failed"] == 1 and doc["tables"] == 2
    failed = next(r for r in doc["reports"] if r["status"] == "failed")
    assert failed["table"] == bad
    assert failed["first_failure"]["version"] == v
    assert failed["first_failure"]["check"] == "dice"


# -- chouettes ------------------------------------------------------------------------------------


async def _chouette(store: EventStore, seed: int, games: int = 4, **kw: Any) -> str:
    table_id = str(uuid.UUID(int=500 + seed))
    table = simulate_chouette(table_id, games=games, rng=random.Random(seed), **kw)
    await append_steps(store, table_id, [step.events for step in table.steps])
    return table_id


async def test_an_honest_chouette_passes(store: EventStore) -> None:
    table_id = await _chouette(
        store, 1, options=e.TableOptions(beavers=True), double_rate=0.08, leave_rate=0.01
    )
    report = await audit_table(store, table_id)
    assert report is not None
    (play,) = report.streams
    assert play.failures == [], report.as_dict()
    assert play.dice_verified == [1, 2, 3, 4] and play.pending == [5]
    events = await _events(store, table_id)
    assert any(isinstance(ev, e.LineThrow) for _, ev in events)  # thrown from game 1's seed


@pytest.mark.parametrize("what", ["line_throw", "member_take", "settlement"])
async def test_chouette_tampering_is_named(
    store: EventStore, admin: asyncpg.Connection, what: str
) -> None:
    table_id = await _chouette(store, 2, double_rate=0.1, drop_rate=0.2)
    events = await _events(store, table_id)
    if what == "line_throw":
        v, old = next((v, ev) for v, ev in events if isinstance(ev, e.LineThrow))
        assert isinstance(old, e.LineThrow)
        throws = {p: d % 6 + 1 for p, d in old.throws.items()}
        new: e.Event = e.LineThrow(throws=throws)
        check = "dice"
    elif what == "member_take":
        # A member's take of the box's double becomes the box taking its own double.
        v, old = next(
            (v, ev) for v, ev in events if isinstance(ev, e.CubeTaken) and ev.cube == ev.player
        )
        assert isinstance(old, e.CubeTaken) and old.cubes == [old.player]
        new = e.CubeTaken(
            player="ann" if old.player != "ann" else "bob", cube=old.player, cubes=old.cubes
        )
        check = "rules"
    else:
        v, old = next((v, ev) for v, ev in events if isinstance(ev, e.GameEnded))
        assert isinstance(old, e.GameEnded)
        first, *rest = old.settlements
        new = msgspec.structs.replace(
            old, settlements=[msgspec.structs.replace(first, amount=first.amount + 1), *rest]
        )
        check = "rules"
    async with Tamper(admin, table_stream(table_id), rechain=True) as t:
        await t.set_event(v, new)
    version, found, reason = await _first_failure(store, table_id)
    assert (version, found) == (v, check), reason


def test_the_progress_bar_draws_only_on_a_terminal() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty, pipe = Terminal(), io.StringIO()
    for stream in (tty, pipe):
        bar = Progress(1000, "audit", stream=stream)
        for _ in range(4):
            bar.advance(250)
        bar.close()
    assert pipe.getvalue() == ""
    drawn = tty.getvalue()
    assert drawn.startswith("\raudit [") and drawn.endswith("\n")
    assert "100% 1000/1000 events" in drawn and "#" * 30 in drawn
