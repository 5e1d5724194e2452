"""The stack's floor (bench/floor.py), the reference of bench/server.py's CPU per command: its
server and clients do what they claim, at a few tables, with the I/O of ``serve`` and with the
least I/O (``lean``)."""

from __future__ import annotations

import pytest

from bench.floor import SOCKETS_PER_TABLE, run_floor


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
