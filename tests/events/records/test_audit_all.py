"""``chouette audit --all`` has no blind table, and reads no table whole (issue 12, findings 2 and
8).

The store's own tables are tampered with as a superuser (the ``admin`` fixture): a ``streams``
row deleted or changed, ``streams`` truncated, a ``commands`` row pointing past its stream's head,
a log partition's head moved on. ``audit --all`` lists the tables from the events themselves, so
each is found, at the stream (and version) tampered with, and the command exits 1.

The audit reads a stream a page at a time (:class:`events.records.audit.StreamAudit`): whatever the
page
boundaries, and whenever it is asked, its report is what an audit of all the events read so far
says, tampered streams included.
"""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import asyncpg
import msgspec
import pytest

from events.domain import types as e
from events.records import audit_scan
from events.records.audit import StreamAudit, audit_records
from events.records.audit_scan import audit_all, audit_table, check_log
from events.records.simulate import simulate_chouette, simulate_table
from events.store.event_store import EventStore, RecordedEvent
from events.store.streams import append_events, append_steps, chat_stream, table_stream
from server.cli.main import main
from tests.records import recorded


async def _table(store: EventStore, seed: int, games: int = 2) -> str:
    table_id = str(uuid.UUID(int=seed))
    table = simulate_table(table_id, games=games, rng=random.Random(seed))
    await append_steps(store, table_id, [step.events for step in table.steps])
    return table_id


async def _audit_all(db_url: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    # The CLI runs its own event loop: run it in a thread, off this test's loop.
    status = await asyncio.to_thread(main, ["audit", "--all", "--json", "--database-url", db_url])
    return status, json.loads(capsys.readouterr().out)


def _failed(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The first failure of each failed table, by table id."""
    return {r["table"]: r["first_failure"] for r in doc["reports"] if r["status"] == "failed"}


# -- the store forgets a table ------------------------------------------------------------------


async def test_a_deleted_streams_row_fails_its_table(
    store: EventStore, admin: asyncpg.Connection, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad = await _table(store, 1), await _table(store, 2)
    await admin.execute("DELETE FROM streams WHERE stream_id = $1", table_stream(bad))
    status, doc = await _audit_all(db_url, capsys)
    assert status == 1
    assert doc["tables"] == 2 and doc["failed"] == 1
    failure = _failed(doc)[bad]
    assert failure["stream"] == table_stream(bad)
    assert (failure["check"], failure["version"]) == ("chain", 1)
    assert "forgotten" in failure["reason"]
    assert good not in _failed(doc)


async def test_a_truncated_streams_table_fails_every_table(
    store: EventStore, admin: asyncpg.Connection, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = [await _table(store, seed) for seed in (3, 4)]
    await admin.execute("TRUNCATE streams")
    status, doc = await _audit_all(db_url, capsys)
    assert status == 1
    assert doc["tables"] == 2 and doc["failed"] == 2
    for table_id, failure in _failed(doc).items():
        assert table_id in ids
        assert failure["stream"] == table_stream(table_id) and failure["check"] == "chain"


async def test_a_streams_row_at_the_wrong_version_is_named(
    store: EventStore, admin: asyncpg.Connection, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    table_id = await _table(store, 5)
    head = await store.stream_version(table_stream(table_id))
    await admin.execute(
        "UPDATE streams SET version = version + 3 WHERE stream_id = $1", table_stream(table_id)
    )
    status, doc = await _audit_all(db_url, capsys)
    assert status == 1
    failure = _failed(doc)[table_id]
    assert (failure["check"], failure["version"]) == ("chain", head + 1)


async def test_a_table_whose_events_are_all_gone_still_fails(
    store: EventStore, admin: asyncpg.Connection, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Listed from ``streams`` when it has no event left."""
    table_id = await _table(store, 6)
    async with admin.transaction():
        await admin.execute("ALTER TABLE events DISABLE TRIGGER ALL")
        await admin.execute("DELETE FROM events WHERE stream_id = $1", table_stream(table_id))
        await admin.execute("ALTER TABLE events ENABLE TRIGGER ALL")
    status, doc = await _audit_all(db_url, capsys)
    assert status == 1
    assert _failed(doc)[table_id]["version"] == 1


# -- commands rows ------------------------------------------------------------------------------


async def test_a_commands_row_past_its_streams_head_is_named(
    store: EventStore, admin: asyncpg.Connection, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    await _table(store, 7)
    bad = await _table(store, 8)
    head = await store.stream_version(table_stream(bad))
    async with admin.transaction():
        await admin.execute("ALTER TABLE commands DISABLE TRIGGER ALL")
        await admin.execute(
            "UPDATE commands SET last_version = last_version + 2"
            " WHERE stream_id = $1 AND last_version = $2",
            table_stream(bad),
            head,
        )
        await admin.execute("ALTER TABLE commands ENABLE TRIGGER ALL")
    status, doc = await _audit_all(db_url, capsys)
    assert status == 1
    failures = _failed(doc)
    assert list(failures) == [bad]
    assert failures[bad]["stream"] == table_stream(bad)
    assert (failures[bad]["check"], failures[bad]["version"]) == ("versions", head + 2)
    assert "commands" in failures[bad]["reason"]
    # The per-table audit sees it too: the row is its last event's command.
    report = await audit_table(store, bad)
    assert report is not None and report.first_failure is not None
    assert report.first_failure[1].version == head + 2


async def test_an_inserted_commands_row_past_the_head_is_named(
    store: EventStore, admin: asyncpg.Connection, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A row no event points at: only ``--all`` reads every row."""
    table_id = await _table(store, 9)
    head = await store.stream_version(table_stream(table_id))
    await admin.execute(
        "INSERT INTO commands (command_id, partition, stream_id, first_version, last_version,"
        " recorded_at) VALUES ($1, 0, $2, $3, $4, now())",
        uuid.uuid4(),
        table_stream(table_id),
        head + 1,
        head + 2,
    )
    status, doc = await _audit_all(db_url, capsys)
    assert status == 1
    failure = _failed(doc)[table_id]
    assert (failure["stream"], failure["check"], failure["version"]) == (
        table_stream(table_id),
        "versions",
        head + 2,
    )


async def test_a_commands_row_of_no_stream_is_a_store_failure(
    store: EventStore, admin: asyncpg.Connection, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    await _table(store, 10)
    await admin.execute(
        "INSERT INTO commands (command_id, partition, stream_id, first_version, last_version,"
        " recorded_at) VALUES ($1, 0, 'table-nowhere', 1, 1, now())",
        uuid.uuid4(),
    )
    status, doc = await _audit_all(db_url, capsys)
    assert status == 1 and doc["failed"] == 0
    assert [p["stream"] for p in doc["store"]] == ["table-nowhere"]


# -- the log ------------------------------------------------------------------------------------


async def test_a_log_head_moved_on_names_the_missing_position(
    store: EventStore, admin: asyncpg.Connection, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    await _table(store, 11)
    head = await admin.fetchval("SELECT head FROM log_partitions WHERE partition = 0")
    await admin.execute("UPDATE log_partitions SET head = head + 1")
    (problem,) = await check_log(store)
    assert problem["partition"] == 0 and problem["first_missing"] == head + 1
    status, doc = await _audit_all(db_url, capsys)
    assert status == 1 and doc["log"][0]["first_missing"] == head + 1


async def test_a_deleted_log_partitions_row_is_found(
    store: EventStore, admin: asyncpg.Connection
) -> None:
    await _table(store, 12)
    await admin.execute("TRUNCATE log_partitions")
    (problem,) = await check_log(store)
    assert problem["head"] is None and "no log_partitions row" in problem["reason"]


async def test_an_honest_store_passes(
    store: EventStore, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = [await _table(store, seed) for seed in (13, 14)]
    await append_events(
        store,
        chat_stream(ids[0]),
        [e.ChatPosted(player="x", text="hi")],
        expected_version=0,
        command_id=uuid.uuid4(),
    )
    status, doc = await _audit_all(db_url, capsys)
    assert status == 0, doc
    assert doc["tables"] == 2 and doc["store"] == [] and doc["log"] == []
    assert [len(r["streams"]) for r in doc["reports"]] == [2, 1]


# -- read a page at a time ----------------------------------------------------------------------


async def test_audit_all_reads_a_table_a_page_at_a_time(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    table_id = str(uuid.UUID(int=15))
    table = simulate_chouette(table_id, games=3, rng=random.Random(15))
    await append_steps(store, table_id, [step.events for step in table.steps])
    records = await store.read_stream(table_stream(table_id))
    assert len(records) > 100
    fed: list[int] = []
    feed = StreamAudit.feed

    def counting(self: StreamAudit, page: Sequence[RecordedEvent]) -> int | None:
        fed.append(len(page))
        return feed(self, page)

    monkeypatch.setattr(audit_scan, "PAGE", 37)
    monkeypatch.setattr(StreamAudit, "feed", counting)
    result = await audit_all(store)
    assert max(fed) <= 37 and sum(fed) >= len(records)
    (report,) = result.tables
    assert report.streams[0].as_dict() == audit_records(table_stream(table_id), records).as_dict()


# -- any page boundaries, any time --------------------------------------------------------------


def _change(records: list[RecordedEvent], k: int, event: e.Event) -> list[RecordedEvent]:
    out = list(records)
    out[k] = msgspec.structs.replace(out[k], type=e.tag(event), data=e.encode(event))
    return out


def _decoded(r: RecordedEvent) -> e.Event:
    return e.decode(r.type, r.schema_version, r.data)


def _tamperings(records: list[RecordedEvent], rng: random.Random) -> list[list[RecordedEvent]]:
    """The record, and versions of it with a throw, a revealed seed, a commitment or a client
    seed changed, and one with an event left out."""
    out = [records]
    where: dict[str, list[int]] = {}
    for k, r in enumerate(records):
        where.setdefault(r.type, []).append(k)
    if rolls := where.get("dice_rolled"):
        k = rng.choice(rolls)
        ev = _decoded(records[k])
        assert isinstance(ev, e.DiceRolled)
        out.append(
            _change(records, k, e.DiceRolled(player=ev.player, dice=(ev.dice[1] % 6 + 1, 1)))
        )
    if ends := where.get("game_ended"):
        k = rng.choice(ends)
        ev = _decoded(records[k])
        assert isinstance(ev, e.GameEnded)
        out.append(_change(records, k, msgspec.structs.replace(ev, seed="ab" * 32)))
    if starts := where.get("game_started"):
        k = rng.choice(starts)
        ev = _decoded(records[k])
        assert isinstance(ev, e.GameStarted)
        out.append(_change(records, k, msgspec.structs.replace(ev, dice_commitment="cd" * 32)))
    if seeds := where.get("client_seed_added"):
        k = rng.choice(seeds)
        ev = _decoded(records[k])
        assert isinstance(ev, e.ClientSeedAdded)
        out.append(_change(records, k, msgspec.structs.replace(ev, seed=ev.seed[::-1] + "x")))
    k = rng.randrange(1, len(records))
    out.append(
        [
            msgspec.structs.replace(r, version=v)
            for v, r in enumerate(records[:k] + records[k + 1 :], 1)
        ]
    )
    return out


def _fed_in_pages(
    stream: str, records: list[RecordedEvent], rng: random.Random
) -> list[tuple[int, dict[str, Any]]]:
    """The audit's report after each page, fed in pages of random sizes."""
    audit = StreamAudit(stream)
    reports = []
    done = 0
    while done < len(records):
        end = done + rng.choice([1, 2, 3, 5, 8, 40, 300])
        again = audit.feed(records[done:end])
        while again is not None:
            again = audit.feed(records[again - 1 : end])
        done = min(end, len(records))
        reports.append((done, audit.report().as_dict()))
    return reports


SIMULATIONS: list[Callable[[int], Any]] = [
    lambda seed: simulate_table("t", games=3, rng=random.Random(seed), seed_rate=0.3),
    lambda seed: simulate_chouette("t", games=3, rng=random.Random(seed), double_rate=0.1),
]


@pytest.mark.parametrize("seed", range(6))
def test_any_pages_give_the_audit_of_what_was_read(seed: int) -> None:
    rng = random.Random(seed)
    table = SIMULATIONS[seed % 2](seed)
    records = recorded("t", [s.events for s in table.steps])
    for variant in _tamperings(records, rng):
        reports = _fed_in_pages(table_stream("t"), variant, rng)
        # The last report, and a sample of the others (each compared with a whole audit).
        for end, report in [reports[-1], *rng.sample(reports, min(10, len(reports)))]:
            assert report == audit_records(table_stream("t"), variant[:end]).as_dict(), end


def test_a_game_revealed_in_a_later_page_has_its_throws_checked() -> None:
    """A game's throws read before its seed is: taken as recorded until the seed comes, then
    derived from it, and a changed throw is named where it is."""
    table = simulate_table("t", games=2, rng=random.Random(40))
    records = recorded("t", [s.events for s in table.steps])
    end = next(k for k, r in enumerate(records) if r.type == "game_ended")
    while records[end - 1].command_id == records[end].command_id:
        end -= 1  # the first page ends with a whole command
    k = next(k for k in range(end, 0, -1) if records[k].type == "dice_rolled")
    ev = _decoded(records[k])
    assert isinstance(ev, e.DiceRolled)
    bad = _change(records, k, e.DiceRolled(player=ev.player, dice=(ev.dice[1] % 6 + 1, 1)))
    audit = StreamAudit(table_stream("t"))
    assert audit.feed(bad[:end]) is None
    assert audit.report().first_failure is None  # the seed is not read yet: pending
    again = audit.feed(bad[end:])
    assert again is not None and again <= k + 1  # back before the throw, to check it
    assert audit.feed(bad[again - 1 :]) is None
    failure = audit.report().first_failure
    assert failure is not None and (failure.check, failure.version) == ("dice", k + 1)
