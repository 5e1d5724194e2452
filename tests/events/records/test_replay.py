"""Replays: the table at any version is the fold of the events up to it, whatever path the
replayer takes (snapshots, catch-up, any order of requests); the HTTP routes (replay, audit,
export) and the ``chouette replay``/``export``/``import`` commands."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from engine.matfile import parse_mat
from events.domain import types as e
from events.domain.decider import fold
from events.domain.narration import event_text
from events.domain.table import TableState
from events.records.gamelog import chouette_log
from events.records.record_text import record_lines, state_text
from events.records.replay import Replayer
from events.records.simulate import simulate_chouette, simulate_table
from events.store.event_store import EventStore
from events.store.streams import append_steps
from server.app import create_app
from server.cli.main import main
from server.config import Config
from server.keys import TABLES
from server.views.replay import replay_view
from server.views.table import table_view


async def _table(store: EventStore, seed: int, **kw: Any) -> tuple[str, list[e.Event]]:
    table_id = str(uuid.UUID(int=1000 + seed))
    table = simulate_table(table_id, rng=random.Random(seed), **kw)
    await append_steps(store, table_id, [s.events for s in table.steps])
    return table_id, table.events


def _folds(events: list[e.Event]) -> list[TableState]:
    """``states[v]`` is the fold of the first ``v`` events."""
    states = [TableState()]
    for ev in events:
        states.append(fold([ev], states[-1]))
    return states


# -- replay at every version ----------------------------------------------------------------------


async def test_replay_at_every_version_equals_the_fold(store: EventStore) -> None:
    table_id, events = await _table(store, 1, games=3, resign_rate=0.01)
    states = _folds(events)
    assert fold(events) == states[-1]
    replayer = Replayer(store, every=16)
    versions = list(range(1, len(events) + 1))
    random.Random(2).shuffle(versions)  # snapshots made out of order, then reused
    for v in versions:
        before, event, after = await replayer.at(table_id, v)
        assert event == events[v - 1]
        assert before == states[v - 1], v
        assert after == states[v], v
    # A fresh replayer asked in order, and one without snapshots, agree too.
    for every in (1, 10_000):
        other = Replayer(store, every=every)
        for v in (1, len(events) // 2, len(events)):
            assert (await other.at(table_id, v))[2] == states[v]


async def test_replay_of_a_match_shows_ids_and_notation(store: EventStore) -> None:
    table_id, events = await _table(
        store, 6, games=99, kind="match", options=e.TableOptions(match_length=5), double_rate=0.03
    )
    states = _folds(events)
    replayer = Replayer(store, every=50)
    moves = [v for v, ev in enumerate(events, 1) if isinstance(ev, e.CheckersMoved) and ev.moves]
    for v in moves[:: max(1, len(moves) // 25)]:
        before, event, after = await replayer.at(table_id, v)
        view = replay_view(before, event, after, None)
        assert view["at"] == v
        assert view["table"] == table_view(states[v], None, events[v - 1].at)
        game = view["table"].game
        assert game is not None
        assert game.position_id == states[v].game.position_id()  # type: ignore[union-attr]
        assert game.match_id == states[v].match.match_id()  # type: ignore[union-attr]
        assert view["event"]["notation"] == event.notation  # type: ignore[attr-defined]
        assert view["event"]["position_id_before"] == states[v - 1].game.position_id()  # type: ignore[union-attr]
        assert event.notation in view["event"]["text"]  # type: ignore[attr-defined]


async def test_replay_past_the_end_is_refused(store: EventStore) -> None:
    table_id, events = await _table(store, 3, games=1)
    replayer = Replayer(store, every=8)
    with pytest.raises(LookupError):
        await replayer.at(table_id, len(events) + 1)
    with pytest.raises(LookupError):
        await replayer.at(table_id, 0)
    with pytest.raises(LookupError):
        await replayer.at(str(uuid.uuid4()), 1)


def test_every_event_reads_in_words() -> None:
    table = simulate_table(
        "words",
        games=20,
        rng=random.Random(4),
        options=e.TableOptions(beavers=True, jacoby=True),
        resign_rate=0.02,
        double_rate=0.08,
    )
    events = table.events
    states = _folds(events)
    seen: dict[str, str] = {}
    for v, ev in enumerate(events, 1):
        text = event_text(states[v - 1], ev, states[v])
        assert text and "?" not in text.replace("?'", ""), (ev, text)
        seen.setdefault(e.tag(ev), text)
    assert {
        "table_created",
        "player_joined",
        "game_started",
        "client_seed_added",
        "opening_throw",
        "dice_rolled",
        "checkers_moved",
        "cube_offered",
        "cube_taken",
        "cube_dropped",
        "cube_beavered",
        "resignation_offered",
        "resignation_accepted",
        "resignation_declined",
        "game_ended",
    } <= set(seen)
    assert seen["cube_offered"].endswith("doubles to 2")
    assert seen["table_created"] == "alice creates a money table (beavers, jacoby)"


def test_the_record_in_the_terminal() -> None:
    table = simulate_table("rec", games=3, rng=random.Random(5), double_rate=0.1)
    lines = list(record_lines(table.events, boards=True))
    text = "\n".join(lines)
    assert lines[0] == "Table rec: money play"
    assert text.count("\nGame ") == 4
    assert "doubles to 2" in text and " wins " in text
    assert "dice seed " in text and "in play: the dice seed is still secret" in text
    assert "Position ID:" in text  # the boards
    first_play = next(ev for ev in table.events if isinstance(ev, e.CheckersMoved))
    assert f": {first_play.notation}" in text
    at = state_text(table.events, 40)
    assert at.startswith("version 40 of ") and "Match ID" in at


# -- HTTP -----------------------------------------------------------------------------------------


@pytest.fixture
async def client(db_url: str, aiohttp_client: Any) -> TestClient:
    # Fair dice: their seeds sealed with a key of the test's own (not a key file in the tree).
    app = create_app(
        Config(database_url=db_url, poll_interval=0.5, seed_key=bytes(32), signing_key=bytes(32))
    )
    return await aiohttp_client(app)


def _store(client: TestClient) -> EventStore:
    app: web.Application = client.server.app  # type: ignore[assignment]
    return app[TABLES].store  # type: ignore[no-any-return]


async def test_get_replay(client: TestClient) -> None:
    table_id, events = await _table(_store(client), 7, games=2)
    states = _folds(events)
    v = next(v for v, ev in enumerate(events, 1) if isinstance(ev, e.CheckersMoved))
    resp = await client.get(f"/tables/{table_id}/replay", params={"at": str(v)})
    assert resp.status == 200
    body = await resp.json()
    expected = json.loads(msgspec.json.encode(table_view(states[v], None, events[v - 1].at)))
    assert body["table"] == expected
    assert body["at"] == v and body["version"] == len(events)
    assert body["event"]["type"] == "checkers_moved" and body["event"]["notation"]
    latest = await (await client.get(f"/tables/{table_id}/replay")).json()
    assert latest["at"] == len(events)
    for bad, status in (("0", 404), (str(len(events) + 1), 404), ("x", 400)):
        resp = await client.get(f"/tables/{table_id}/replay", params={"at": bad})
        assert resp.status == status, bad
    assert (await client.get(f"/tables/{uuid.uuid4()}/replay")).status == 404


async def test_get_audit(client: TestClient) -> None:
    table_id, events = await _table(_store(client), 8, games=2)
    resp = await client.get(f"/tables/{table_id}/audit")
    assert resp.status == 200
    body = await resp.json()
    assert body["table"] == table_id and body["status"] == "pending"
    assert body["events"] == len(events) and body["first_failure"] is None
    assert (await client.get(f"/tables/{uuid.uuid4()}/audit")).status == 404


async def test_get_export_mat(client: TestClient) -> None:
    table_id, _ = await _table(_store(client), 9, games=3)
    resp = await client.get(f"/tables/{table_id}/export.mat")
    assert resp.status == 200
    assert resp.content_type == "text/plain"
    assert f'filename="table-{table_id}.mat"' in resp.headers["Content-Disposition"]
    match = parse_mat(await resp.text())
    assert match.length == 0 and len(match.games) == 4
    assert match.players == ("Alice", "Bob")
    assert (await client.get(f"/tables/{uuid.uuid4()}/export.mat")).status == 404


# -- the command line -----------------------------------------------------------------------------


@contextmanager
def _keep_logging() -> Iterator[None]:
    """The CLI sets up logging for its process; put the test process's back afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


async def _cli(*argv: str) -> int:
    with _keep_logging():
        return await asyncio.to_thread(main, list(argv))


async def test_cli_replay_export_and_import(
    store: EventStore, db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table_id, events = await _table(store, 10, games=2, double_rate=0.1)
    assert await _cli("replay", table_id, "--database-url", db_url) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Table {table_id}: money play")
    assert "Game 1: Alice 0, Bob 0" in out
    assert await _cli("replay", table_id, "--at", "12", "--database-url", db_url) == 0
    assert capsys.readouterr().out.startswith(f"version 12 of {len(events)}")

    mat = tmp_path / "t.mat"
    args = ("export", table_id, "--format", "mat", "-o", str(mat), "--database-url", db_url)
    assert await _cli(*args) == 0
    assert len(parse_mat(mat.read_text()).games) == 3
    assert await _cli("export", table_id, "--format", "json", "--database-url", db_url) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["table"] == table_id and len(doc["games"]) == 3
    assert doc["games"][0]["dice_seed"] and doc["games"][2]["dice_seed"] is None

    new_id = str(uuid.uuid4())
    assert await _cli("import", str(mat), "--table", new_id, "--database-url", db_url) == 0
    assert capsys.readouterr().out.strip() == new_id
    assert await _cli("audit", "--table", new_id, "--json", "--database-url", db_url) == 0
    report = json.loads(capsys.readouterr().out)["reports"][0]
    play = report["streams"][0]
    assert report["status"] == "ok" and play["checks"]["dice"] == "uncommitted", report
    assert play["games"]["uncommitted"] == [1, 2, 3]
    assert await _cli("replay", str(uuid.uuid4()), "--database-url", db_url) == 1


# -- chouettes ------------------------------------------------------------------------------------


async def _chouette(store: EventStore, seed: int, **kw: Any) -> tuple[str, list[e.Event]]:
    table_id = str(uuid.UUID(int=2000 + seed))
    table = simulate_chouette(table_id, rng=random.Random(seed), **kw)
    await append_steps(store, table_id, [s.events for s in table.steps])
    return table_id, table.events


async def test_chouette_replay_at_every_version_equals_the_fold(store: EventStore) -> None:
    table_id, events = await _chouette(store, 1, games=2, double_rate=0.1)
    states = _folds(events)
    replayer = Replayer(store, every=25)
    for v in range(1, len(events) + 1):
        before, event, after = await replayer.at(table_id, v)
        assert (before, event, after) == (states[v - 1], events[v - 1], states[v]), v
    view = replay_view(states[-2], events[-1], states[-1], "ann")
    assert view["table"] == table_view(states[-1], "ann", events[-1].at)


async def test_get_export_mat_of_a_chouette_member(client: TestClient) -> None:
    table_id, _ = await _chouette(_store(client), 2, games=2)
    resp = await client.get(f"/tables/{table_id}/export.mat")
    assert resp.status == 400
    problem = await resp.json()
    assert problem["field"] == "member" and "ann" in problem["detail"]
    assert (await client.get(f"/tables/{table_id}/export.mat?member=zed")).status == 404
    resp = await client.get(f"/tables/{table_id}/export.mat", params={"member": "bob"})
    assert resp.status == 200
    assert f'filename="table-{table_id}-bob.mat"' in resp.headers["Content-Disposition"]
    match = parse_mat(await resp.text())
    assert match.games and all(g.names and g.names[1] == "Bob" for g in match.games)


async def test_cli_exports_a_chouette_as_a_directory(
    store: EventStore, db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table_id, events = await _chouette(store, 3, games=2)
    out = tmp_path / "chouette"
    assert await _cli("export", table_id, "-o", str(out), "--database-url", db_url) == 0
    on_team = {m for g in chouette_log(events).games for m in g.members}
    assert len(on_team) >= 3
    names = {p.name for p in out.iterdir()}
    assert names == {f"{m}.mat" for m in on_team} | {"chouette.json"}
    doc = json.loads((out / "chouette.json").read_text())
    assert doc["kind"] == "chouette" and len(doc["games"]) == 3
    member = sorted(on_team)[0]
    assert await _cli("export", table_id, "--member", member, "--database-url", db_url) == 0
    assert " point match" in capsys.readouterr().out
    assert await _cli("replay", table_id, "--database-url", db_url) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"Table {table_id}: chouette (multiple cubes)")
    assert "(box)" in text and "(captain)" in text and "ledger:" in text
