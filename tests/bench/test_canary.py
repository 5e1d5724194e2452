"""The canary (bench/kit/canary.py): an idle process's heartbeat, the reference for a server's
loop stalls. It reports how late its beats woke over the stretch since :meth:`Canary.reset`,
and a process that holds the machine's cores makes it late."""

from __future__ import annotations

import multiprocessing as mp
import os
import time

from bench.kit.canary import Canary


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_the_canary_reports_the_stretch_since_its_reset() -> None:
    c = Canary(beat=0.01)
    c.start()
    try:
        time.sleep(0.3)
        c.reset()
        time.sleep(0.5)
    finally:
        out = c.stop()
    # Some fifty beats of 10 ms in the half second after the reset (not the 0.3 s before it).
    assert 10 <= out["beats"] <= 55
    assert out["stall_p99_ms"] <= out["stall_max_ms"]
    assert out["stall_max_ms"] >= 0


def test_the_canary_is_late_when_the_machine_is_busy() -> None:
    """Spinning processes pinned to the canary's core, the canary at the lowest priority (nice
    19), make it wait for the core: its beats come tens of milliseconds late, which an idle
    machine never makes them (a few milliseconds at most)."""
    c = Canary(beat=0.01)
    c.start()
    assert c._proc is not None
    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(c._proc.pid, {core})
    os.setpriority(os.PRIO_PROCESS, c._proc.pid, 19)
    ctx = mp.get_context("spawn")
    hogs = [ctx.Process(target=_spin, args=(1.5,)) for _ in range(3)]
    try:
        for h in hogs:
            h.start()
            assert h.pid is not None
            os.sched_setaffinity(h.pid, {core})
        time.sleep(0.3)  # the hogs have started
        c.reset()
        time.sleep(1.0)
    finally:
        out = c.stop()
        for h in hogs:
            h.join(5)
    assert out["beats"] >= 5
    assert out["stall_max_ms"] >= 15.0, out
