"""The command service's lock per table (:class:`events.service._IdleLocks`): one holder at a
time per table, in the order they asked, none between tables, and a table's lock gone once
nobody holds or awaits it, even when a task waiting for it is cancelled (issue 30 made it a
context manager of its own)."""

from __future__ import annotations

import asyncio

import pytest

from events.service import _IdleLocks


async def test_one_holder_at_a_time_per_table_in_order() -> None:
    locks = _IdleLocks()
    inside: list[str] = []
    order: list[int] = []

    async def command(i: int, table: str) -> None:
        async with locks.hold(table):
            assert table not in inside  # nobody else holds this table's lock
            inside.append(table)
            order.append(i)
            await asyncio.sleep(0.001)
            inside.remove(table)

    await asyncio.gather(*(command(i, "t1") for i in range(5)), command(9, "t2"))
    assert [i for i in order if i != 9] == [0, 1, 2, 3, 4]
    assert order.index(9) < 4  # t2's command did not wait for t1's
    assert len(locks) == 0


async def test_a_cancelled_waiter_leaves_no_lock_behind() -> None:
    locks = _IdleLocks()
    entered = asyncio.Event()

    async def waiter() -> None:
        entered.set()
        async with locks.hold("t1"):
            raise AssertionError("never gets the lock")

    async with locks.hold("t1"):
        assert len(locks) == 1
        task = asyncio.create_task(waiter())
        await entered.wait()
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert len(locks) == 1  # still held here
    assert len(locks) == 0


async def test_an_error_in_the_block_releases_the_lock() -> None:
    locks = _IdleLocks()
    with pytest.raises(ValueError):
        async with locks.hold("t1"):
            raise ValueError("refused")
    assert len(locks) == 0
    async with asyncio.timeout(1):
        async with locks.hold("t1"):
            pass
    assert len(locks) == 0
