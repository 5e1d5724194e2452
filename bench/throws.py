"""Benchmark: the worst throws' messages, their bytes and the time to make them (issue 30, 1).

    python bench/throws.py            # the throws of 3,000 + 3,000 seeded positions
    python bench/throws.py --quick    # of 1,000 + 1,000

The corpus: every throw with more than 500 legal plays among seeded positions met in random
games and built ones (tests/engine_corpus.py: primes, closed boards, the bar, bear-offs), contact
and non-contact, and the 1-1 of ``AACAkCRJqqoAAA`` (2,220 plays). For each, **cold** (the legal
plays cache and the trees' caches emptied first, outside the timed region), the time to make a
throw's ``m`` as ``serve`` does: the plays' tree encoded (``server.views.throw.tree_json``) and
the whole message encoded, with the viewers of a chouette of four and its creator (their
``allowed``, ``targets`` and ``leave_cost``: what the envelope weighs at the most). That is the
work the loop does for one throw before the bytes are written to the table's sockets, the same
bytes for each. Each throw is timed ``--repeat`` (3) times, each time cold, and its fastest
kept (the machine is shared); ``_all`` figures are the slowest.

Beside it, in the same run and on the same throws: the plays as the table view's list (every
play with its notation and routes, ``legal_views`` encoded), which is what ``m`` carried before
the tree. Prints one JSON object:

- ``worst_m_bytes``: the largest ``m`` (target at most 16 KB); ``worst_tree_bytes`` its tree.
- ``worst_plays_ms``: the longest time to make and encode one throw's ``m`` cold (target: no
  stall over 20 ms), wall clock, each throw's fastest pass; ``median_plays_ms``;
  ``worst_plays_ms_all`` the slowest of all passes; ``worst_plays_cpu_ms`` the same work in the
  thread's CPU time (what it costs the loop on a machine not shared); ``worst_throw`` which.
- ``list_worst_bytes``, ``list_worst_ms``: the plays as a list, the same throws, cold.
- ``bytes_ratio``, ``ms_ratio``: tree over list (the worst of each).
- ``worst_tree_loop_stall_ms``: the longest a 1 ms heartbeat on an event loop waited while the
  tree of ``AACAkCRJqqoAAA`` 1-1 was made cold: ``inline`` on the loop, as ``serve`` makes it
  (the target: no stall over 20 ms), and ``threaded`` in a thread, for comparison (a busy
  ``serve`` that made doubles' trees in a thread paid more than it saved: docs/scaling.md).

:func:`worst_throws` is importable (``bench/server.py`` adds its two headline keys).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import msgspec
from engine_corpus import ROLLS, random_game_positions, stress_positions

from engine.moves import _cached, legal_plays
from engine.position import Position
from server.views import table as table_views
from server.views import throw as throw_views
from server.views.table import ClockView, LeaveCostView, legal_views
from server.views.throw import AfterThrow, ThrowWire, tree_json

WORST = "AACAkCRJqqoAAA"
"""The 1-1 here has 2,220 legal plays."""


def _contact(pos: Position) -> bool:
    """Whether a checker of one side still has one of the other's ahead of it."""
    mine = max(p for p in range(26) if pos.me[p])
    theirs = max(p for p in range(26) if pos.opp[p])
    return mine + theirs > 25


def branching_throws(positions: int, seed: int = 3) -> list[tuple[Position, tuple[int, int]]]:
    """The throws of more than 500 legal plays among ``positions`` game and ``positions`` built
    positions, and the 1-1 of :data:`WORST`."""
    found = [(Position.from_id(WORST), (1, 1))]
    for pos in random_game_positions(seed, positions) + stress_positions(seed, positions):
        for dice in ROLLS:
            if len(legal_plays(pos, dice)) > 500:
                found.append((pos, dice))
    return found


def _clear() -> None:
    _cached.cache_clear()
    table_views._tree.cache_clear()
    throw_views._tree_json.cache_clear()


_COST = LeaveCostView(
    points=-4,
    match=False,
    text="Leaving now forfeits this game: you lose 4 points (a gammon at a cube of 2).",
)
_VIEWERS = {
    f"a_{i:026d}": AfterThrow(
        allowed=["chat", "leave", "move", "resign"],
        targets={"resign": [f"a_{j:026d}" for j in range(4) if j != i]},
        turn=i % 2,
        leave_cost=_COST,
    )
    for i in range(5)
}
_CLOCKS = [
    ClockView(player=p, running=i == 0, delay_ms=12_000, reserve_ms=120_000, deadline=None)
    for i, p in enumerate(list(_VIEWERS)[:4])
]


def _message(pos: Position, dice: tuple[int, int], plays: msgspec.Raw) -> bytes:
    """A throw's ``m`` with these plays, in a chouette of four and its creator."""
    spectator = AfterThrow(allowed=["join"], targets={}, turn=0)
    return msgspec.json.encode(
        ThrowWire(
            player=next(iter(_VIEWERS)),
            dice=dice,
            play_tree=plays,
            status=f"Waiting for Captain Longname to move {dice[0]}-{dice[1]}.",
            position_id=pos.position_id(),
            now=1_700_000_000_000,
            clocks=_CLOCKS,
            viewers=_VIEWERS,
            spectator=spectator,
            anonymous=AfterThrow(allowed=[], targets={}, turn=0),
        )
    )


def worst_throws(positions: int = 1000, repeat: int = 3, seed: int = 3) -> dict[str, Any]:
    """The figures of this bench (see the module's doc) over ``positions`` game and built
    positions' most branching throws."""
    throws = branching_throws(positions, seed)
    clock = time.perf_counter_ns
    cpu = time.thread_time_ns
    encode = msgspec.json.encode
    tree_best = [1 << 62] * len(throws)
    tree_cpu = [1 << 62] * len(throws)
    tree_worst = [0] * len(throws)
    list_best = [1 << 62] * len(throws)
    m_bytes = [0] * len(throws)
    tree_bytes = [0] * len(throws)
    list_bytes = [0] * len(throws)
    for _ in range(repeat):
        # Alternating, throw by throw: the tree's way, then the list's, each cold.
        for i, (pos, dice) in enumerate(throws):
            _clear()
            c0, t0 = cpu(), clock()
            plays = tree_json(pos, dice)
            m = _message(pos, dice, plays)
            ns, cpu_ns = clock() - t0, cpu() - c0
            tree_best[i] = min(tree_best[i], ns)
            tree_cpu[i] = min(tree_cpu[i], cpu_ns)
            tree_worst[i] = max(tree_worst[i], ns)
            m_bytes[i], tree_bytes[i] = len(m), len(plays)
            _clear()
            t0 = clock()
            listed = encode(legal_views(pos, dice, legal_plays(pos, dice).plays))
            m = _message(pos, dice, msgspec.Raw(listed))
            list_best[i] = min(list_best[i], clock() - t0)
            list_bytes[i] = len(m)
    _clear()
    ms = [t / 1e6 for t in tree_best]
    worst_ms = max(ms)
    worst = throws[ms.index(worst_ms)]
    list_ms = max(list_best) / 1e6
    return {
        "throws": len(throws),
        "non_contact_throws": sum(not _contact(pos) for pos, _ in throws),
        "worst_m_bytes": max(m_bytes),
        "worst_tree_bytes": max(tree_bytes),
        "worst_plays_ms": round(worst_ms, 2),
        "median_plays_ms": round(statistics.median(ms), 2),
        "worst_plays_ms_all": round(max(tree_worst) / 1e6, 2),
        "worst_plays_cpu_ms": round(max(tree_cpu) / 1e6, 2),
        "worst_throw": f"{worst[0].position_id()} {worst[1][0]}-{worst[1][1]}",
        "list_worst_bytes": max(list_bytes),
        "list_worst_ms": round(list_ms, 2),
        "bytes_ratio": round(max(m_bytes) / max(list_bytes), 3),
        "ms_ratio": round(worst_ms / list_ms, 3),
    }


def loop_stall(pos: Position, dice: tuple[int, int], repeat: int = 3) -> dict[str, float]:
    """The longest lateness of a 1 ms heartbeat on an event loop while the throw's tree is
    made cold on it (``inline``, as ``serve`` makes it), and while it is made in a thread
    (``threaded``: the interpreter hands the loop its turn every few milliseconds),
    each the lowest of ``repeat`` tries."""

    async def once(threaded: bool) -> float:
        loop = asyncio.get_running_loop()
        worst, stop = 0.0, False

        async def beat() -> None:
            nonlocal worst
            while not stop:
                asked = loop.time()
                await asyncio.sleep(0.001)
                worst = max(worst, loop.time() - asked - 0.001)

        task = asyncio.create_task(beat())
        await asyncio.sleep(0.02)
        _clear()
        worst = 0.0
        if threaded:
            await asyncio.to_thread(tree_json, pos, dice)
        else:
            tree_json(pos, dice)
        await asyncio.sleep(0.005)
        stop = True
        await task
        _clear()
        return worst * 1000

    async def run() -> dict[str, float]:
        inline = [await once(False) for _ in range(repeat)]
        threaded = [await once(True) for _ in range(repeat)]
        return {"inline": round(min(inline), 2), "threaded": round(min(threaded), 2)}

    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 + 1,000 positions")
    parser.add_argument("--positions", type=int, help="override the number of positions")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3, help="passes over the throws (3)")
    args = parser.parse_args()
    n = args.positions or (1000 if args.quick else 3000)
    began = time.perf_counter()
    result = {
        "benchmark": "worst throws",
        "positions": 2 * n,
        **worst_throws(n, args.repeat, args.seed),
        # The loop while the worst throw's tree is made: on it (as serve makes it), and in a
        # thread for comparison.
        "worst_tree_loop_stall_ms": loop_stall(Position.from_id(WORST), (1, 1), args.repeat),
        "targets": {"worst_m_bytes": 16 * 1024, "worst_plays_ms": 20},
        "python": platform.python_version(),
        "seconds": round(time.perf_counter() - began, 1),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
