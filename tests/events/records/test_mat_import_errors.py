"""``chouette import``: GNU Backgammon's own ``.mat`` files import, resignations included, and
every file that cannot be imported is one clear line and exit status 2 (issue 12, finding 5).

The files are written by GNU Backgammon itself (the ``gnubg`` package, a test-only oracle): a
money session or a match is played through its commands, each player resigning in the ways
GNU Backgammon allows (before rolling, after rolling, a gammon on a turned cube, after a
declined offer), and exported with ``export match mat``. GNU Backgammon writes a resignation
after a roll as the throw with no play (``53:``) and then the winner's ``Wins`` line, and starts
the next game's opening throw at once, so the last game of its files is in play.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gnubg
import pytest

from events.domain import types as e
from events.store.event_store import EventStore
from events.store.streams import table_stream
from server.cli.main import main
from tests.engine_corpus import gnubg_quiet


def _gnubg_file(path: Path, seed: int, script: Sequence[str], *, match: int = 0) -> dict[str, Any]:
    """Play ``script`` in GNU Backgammon and export the match to ``path``; its match record.

    Each step is a GNU Backgammon command, or ``play``: roll and make the best play.
    """
    with gnubg_quiet():
        # Every setting the script relies on (other tests change GNU Backgammon's globals).
        for command in (
            "set player 0 human",
            "set player 1 human",
            "set confirm new off",
            "set automatic game on",
            "set automatic roll on",
            "set automatic doubles 0",
            "set cube use on",
            "set jacoby off",
            "set rng mersenne",
            f"set seed {seed}",
            f"new match {match}" if match else "new session",
        ):
            gnubg.command(command)
        for step in script:
            if step == "play":
                gnubg.command("roll")
                best = gnubg.findbestmove()
                gnubg.command("move " + gnubg.movetupletostring(best, gnubg.board()))
            else:
                gnubg.command(step)
        gnubg.command(f"export match mat {path}")
    record = gnubg.match()
    assert record is not None
    return record


def _import(*args: str | Path) -> int:
    return main(["import", *map(str, args)])


def _results(record: dict[str, Any]) -> list[tuple[int, int]]:
    """Each finished game's winner (0: the first player) and points, as GNU Backgammon has them."""
    return [
        ("XO".index(g["info"]["winner"]), g["info"]["points-won"])
        for g in record["games"]
        if g["info"]["winner"] is not None
    ]


async def _imported_results(store: EventStore, table_id: str) -> list[tuple[int, int]]:
    events = [
        e.decode(r.type, r.schema_version, r.data)
        for r in await store.read_stream(table_stream(table_id))
    ]
    seats = {ev.player: ev.seat for ev in events if isinstance(ev, e.PlayerJoined)}
    return [(seats[ev.winner], ev.result * ev.cube) for ev in events if isinstance(ev, e.GameEnded)]


MONEY = [
    # game 1: the player on roll rolls, then resigns
    *["play"] * 3, "roll", "resign normal", "accept",
    # game 2: the same, by the other player
    *["play"] * 4, "roll", "resign normal", "accept",
    # game 3: a gammon resigned after a roll, on a cube at 2
    *["play"] * 2, "double", "take", *["play"] * 2, "roll", "resign gammon", "accept",
    # game 4: an offer declined, then a backgammon resigned before rolling
    *["play"] * 3, "resign normal", "reject", "play", "resign backgammon", "accept",
    # game 5: resigned before rolling; game 6 is left with its opening thrown
    *["play"] * 2, "resign normal", "accept",
]  # fmt: skip

MATCH = [
    *["play"] * 5, "roll", "resign normal", "accept",
    *["play"] * 2, "double", "take", "play", "resign gammon", "accept",
]  # fmt: skip


@pytest.mark.parametrize(("script", "length"), [(MONEY, 0), (MATCH, 7)], ids=["money", "match"])
async def test_gnubg_files_with_resignations_import_and_audit_clean(
    store: EventStore,
    db_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    script: list[str],
    length: int,
) -> None:
    path = tmp_path / "gnubg.mat"
    record = _gnubg_file(path, 7, script, match=length)
    text = path.read_text()
    assert "Wins" in text
    # A resignation after a roll: a throw with no play, then the other player's Wins line.
    assert any(line.rstrip().endswith(":") for line in text.splitlines()), text
    table_id = "imported-" + str(length)
    status = await asyncio.to_thread(_import, path, "--table", table_id, "--database-url", db_url)
    err = capsys.readouterr().err
    assert status == 0, err
    assert await _imported_results(store, table_id) == _results(record)
    status = await asyncio.to_thread(main, ["audit", "--table", table_id, "--database-url", db_url])
    out = capsys.readouterr().out
    assert status == 0, out
    assert f"{table_id}: ok" in out


def test_a_resignation_right_after_the_opening_throw_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """GNU Backgammon throws the opening at once; resigning then has no place in these rules
    (a player resigns on their turn, before rolling), so the file is refused, saying why."""
    for seed in (20, 21):  # the first player throws the higher die, then the second
        path = tmp_path / f"opening-{seed}.mat"
        _gnubg_file(path, seed, ["resign normal", "accept"])
        assert _import(path) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert err.startswith(f"chouette import: {path}: game 1, entry 1") and "opening" in err


# -- junk -----------------------------------------------------------------------------------------


def _junk(tmp_path: Path) -> dict[str, Path]:
    good = tmp_path / "good.mat"
    _gnubg_file(good, 7, MONEY[:12])
    text = good.read_text()
    files = {
        "binary": bytes(random.Random(1).randrange(256) for _ in range(4000)),
        "empty": b"",
        "wrong header": text.replace("point match", "point game").encode(),
        "not a match at all": b"hello\nworld\n",
        "no score line": text.split(" gnubg :")[0].encode(),
    }
    lines = text.splitlines(keepends=True)
    for n in (9, 11, 14):
        files[f"cut at line {n}"] = "".join(lines[:n]).encode()[:-3]
    paths = {}
    for name, data in files.items():
        paths[name] = tmp_path / (name.replace(" ", "-") + ".mat")
        paths[name].write_bytes(data)
    paths["missing"] = tmp_path / "missing.mat"
    paths["a directory"] = tmp_path
    return paths


def test_every_junk_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # No database is reached: a file is read before it is.
    for name, path in _junk(tmp_path).items():
        assert _import(path, "--database-url", "postgresql://nobody@127.0.0.1:1/none") == 2, name
        captured = capsys.readouterr()
        assert captured.out == "", name
        assert captured.err.count("\n") == 1, (name, captured.err)
        assert captured.err.startswith(f"chouette import: {path}: "), (name, captured.err)
        assert "Traceback" not in captured.err


def test_an_unreachable_database_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "good.mat"
    _gnubg_file(path, 7, MONEY[:6])
    assert _import(path, "--database-url", "postgresql://nobody@127.0.0.1:1/none") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("chouette import: database unavailable")


async def test_an_existing_table_id_is_one_line_and_exit_2(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "good.mat"
    _gnubg_file(path, 7, MONEY[:6])
    args = (path, "--table", "twice", "--database-url", db_url)
    assert await asyncio.to_thread(_import, *args) == 0
    capsys.readouterr()
    assert await asyncio.to_thread(_import, *args) == 2
    err = capsys.readouterr().err
    assert err == f"chouette import: {path}: table twice already exists\n"
