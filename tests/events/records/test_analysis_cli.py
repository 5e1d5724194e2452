"""``chouette analyse TABLE [--ply N] [--json]``: the analysis read model in the terminal."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import uuid

import pytest

from events.records.analysis import analyse_table
from events.records.simulate import simulate_chouette, simulate_table
from events.store.event_store import EventStore
from events.store.streams import append_steps
from server.cli.analyse import summary_lines
from server.cli.main import main
from server.http.analysis import finished_upto

pytest.importorskip("gnubg")


async def _cli(*argv: str) -> int:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        return await asyncio.to_thread(main, list(argv))
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


async def test_analyse_prints_a_summary_and_json(
    store: EventStore, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    table_id = str(uuid.UUID(int=5001))
    table = simulate_table(table_id, rng=random.Random(4), games=2, double_rate=0.1)
    await append_steps(store, table_id, [s.events for s in table.steps])
    assert await _cli("analyse", table_id, "--json", "--database-url", db_url) == 0
    out = capsys.readouterr().out
    doc = json.loads(out)  # GNU Backgammon's own chatter stays off standard output
    finished = table.events[: finished_upto(table.events)]
    assert doc == json.loads(json.dumps(analyse_table(finished, 0)))
    assert doc["games"] and set(doc["players"]) == {"alice", "bob"}
    assert await _cli("analyse", table_id, "--ply", "1", "--database-url", db_url) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"Table {table_id} (money)") and "at 1-ply" in text
    for player in doc["players"].values():
        assert player["name"] in text
    # Bad input: a ply out of range, an unknown table.
    with pytest.raises(SystemExit):
        await _cli("analyse", table_id, "--ply", "3", "--database-url", db_url)
    assert await _cli("analyse", str(uuid.uuid4()), "--database-url", db_url) == 1


async def test_analyse_a_chouette(
    store: EventStore, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    table_id = str(uuid.UUID(int=5002))
    table = simulate_chouette(table_id, rng=random.Random(5), games=2, double_rate=0.2)
    await append_steps(store, table_id, [s.events for s in table.steps])
    assert await _cli("analyse", table_id, "--database-url", db_url) == 0
    text = capsys.readouterr().out
    doc = analyse_table(table.events[: finished_upto(table.events)], 0)
    assert summary_lines(doc) == text.rstrip("\n").split("\n")
    assert doc["kind"] == "chouette" and len(doc["players"]) >= 3
