"""The stack's floor (bench/floor.py), the reference of bench/server.py's CPU per command: its
server and clients do what they claim, at a few tables, with the I/O of ``serve`` and with the
least I/O (``lean``)."""

from __future__ import annotations

import pytest

from bench.floor import SOCKETS_PER_TABLE, run_floor, run_floors


@pytest.mark.parametrize("lean", [False, True], ids=["serve-io", "lean"])
async def test_the_floor_serves_commands_and_fans_each_out_to_its_tables_sockets(
    owner_url: str, lean: bool
) -> None:
    out = await run_floor(owner_url, 6, 2.0, think_mean=0.2, processes=1, settle=0.5, lean=lean)
    assert out["lean"] is lean
    assert out["sockets"] == 6 * SOCKETS_PER_TABLE
    # Six tables at a 0.2 s think time offer about 30 commands a second.
    assert out["served_per_s"] > 5
    assert out["server_cpu_per_command_us"] > 0
    # Each command's event reached every socket of its table (the sender's in its result when
    # lean; a few in flight at the window's ends).
    assert out["events_per_command"] >= SOCKETS_PER_TABLE - 0.5


async def test_one_floor_measures_several_paces_in_turn(owner_url: str) -> None:
    slow, fast = await run_floors(owner_url, 6, 2.0, (1.0, 0.1), processes=1, settle=0.5)
    assert [slow["think_mean_s"], fast["think_mean_s"]] == [1.0, 0.1]
    assert slow["sockets"] == fast["sockets"] == 6 * SOCKETS_PER_TABLE
    # Six tables offer about 6 commands a second at 1 s and about 60 at 0.1 s: each window
    # counted its own pace (and only its own commands and events).
    assert 0 < slow["served_per_s"] < fast["served_per_s"] / 2
    assert fast["events_per_command"] >= SOCKETS_PER_TABLE - 0.5
