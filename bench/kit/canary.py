"""A canary event loop: how late an idle process's heartbeat wakes on this machine while a
benchmark runs, the reference for a server's loop stalls (issue 30).

A server's heartbeat (:mod:`server.live.loop_watch`) is late when its loop is held by its own
work, or when the operating system gives its core to another process (PostgreSQL's backends,
the load's clients, the rest of the machine). The canary does nothing but the heartbeat, with
the same beat, in a process of its own: its lateness is the machine's alone. A server stall no
longer than the canary's is the machine's doing, not the server's code. It costs some twenty
wake-ups a second.
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import time
from multiprocessing.connection import Connection
from typing import Any

from server.live.loop_watch import BEAT


def _run(conn: Connection, beat: float) -> None:
    async def main() -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        late: list[float] = []
        conn.send("ready")
        while True:
            if conn.poll():
                if conn.recv() != "reset":
                    break
                late.clear()
            asked = loop.time()
            await asyncio.sleep(beat)
            late.append(max(0.0, loop.time() - asked - beat))
        late.sort()
        n = len(late)
        return {
            "beats": n,
            "stall_max_ms": round(late[-1] * 1000, 2) if n else None,
            "stall_p999_ms": round(late[min(n - 1, int(n * 0.999))] * 1000, 2) if n else None,
            "stall_p99_ms": round(late[min(n - 1, int(n * 0.99))] * 1000, 2) if n else None,
        }

    conn.send(asyncio.run(main()))


class Canary:
    """Start with :meth:`start` (a process to spawn: some tenths of a second), begin the
    stretch measured with :meth:`reset`, read it with :meth:`stop`: the heartbeat's lateness
    in between."""

    def __init__(self, beat: float = BEAT) -> None:
        self.beat = beat
        self._conn: Connection | None = None
        self._proc: Any = None

    def start(self) -> None:
        ours, theirs = mp.get_context("spawn").Pipe()
        self._proc = mp.get_context("spawn").Process(
            target=_run, args=(theirs, self.beat), daemon=True
        )
        self._proc.start()
        self._conn = ours
        if not ours.poll(30) or ours.recv() != "ready":
            raise RuntimeError("the canary did not start")

    def reset(self) -> None:
        """Forget the beats so far: the stretch measured starts now."""
        assert self._conn is not None, "start the canary first"
        self._conn.send("reset")

    def stop(self) -> dict[str, Any]:
        assert self._conn is not None and self._proc is not None, "start the canary first"
        self._conn.send("stop")
        out: dict[str, Any] = self._conn.recv() if self._conn.poll(10) else {}
        self._proc.join(5)
        self._conn = None
        return out


if __name__ == "__main__":
    c = Canary()
    c.start()
    time.sleep(0.5)
    c.reset()
    time.sleep(2.0)
    print(c.stop())
