"""Benchmark: legal-play generation, ours beside GNU Backgammon's, on one fixed corpus.

    python bench/engine.py            # 6,000 positions x 21 throws (a few minutes)
    python bench/engine.py --quick    # 1,000 positions x 21 throws (well under a minute)

The corpus is built before anything is timed (tests/engine_corpus.py: half positions met in
seeded random games, half built to stress primes, closed boards, the bar and the bear-off).
Every call is timed on its own with ``perf_counter_ns``. Each side runs in its own loop over the
corpus, and the passes are repeated (``--repeat``, 3): the machine is shared, so the headline
figures take each call's fastest pass; the ``_all_passes`` figures are plain means of every
timed call. Prints one JSON object:

- ``legal_plays_us_mean``/``_p50``/``_p99``: ``len(legal_plays(position, dice))`` **cold**, the
  play cache cleared before every call (outside the timed region): what a new position costs.
- ``generate_us_mean``: the uncached generator alone (``engine.moves._generate``).
- ``legal_plays_cached_us_mean``: the same call **warm**, the answer already in the cache.
- ``gnubg_us_mean``/``_p50``/``_p99``: ``gnubg.findbestmoves`` (0-ply) on the same calls; it
  generates every legal play and scores each one with its fastest evaluator. Its position cache
  is emptied before each pass (a warm one roughly halves its time on a repeated corpus).
- ``throw_plays_us_mean``: a throw message's plays (its ``m``), cold: the tree of every legal
  play's single-die steps, encoded, as ``serve`` sends it (``server.views.throw.tree_json``,
  its caches emptied too); ``throw_plays_as_views_us_mean``: the plays as the table view lists
  them (a view of each :class:`Play` with its notation and routes, encoded with msgspec).
  ``bench/throws.py`` measures the most branching throws' messages.
- ``ratio``: ``legal_plays_us_mean / gnubg_us_mean`` (cold; below 1 means faster than gnubg).
- ``count_mismatches``: calls where the number of plays differs from gnubg's (should be 0).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import importlib.metadata
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gnubg
import msgspec
from engine_corpus import ROLLS, gnubg_board, random_game_positions, stress_positions

from engine.moves import _cached, _generate, legal_plays
from server.views import table as table_views
from server.views import throw as throw_views
from server.views.table import legal_views
from server.views.throw import tree_json

GNUBG_CACHE = 1 << 19
"""Entries in gnubg's position cache during the benchmark."""


def _gnubg_quietly(command: str) -> None:
    """Run a gnubg command without its message on stdout (which holds only the JSON)."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            gnubg.command(command)
            ctypes.CDLL(None).fflush(None)  # gnubg writes through C's stdio buffer
    finally:
        os.dup2(saved, 1)
        os.close(saved)


class _Timings:
    """Per-call times over repeated passes: each call's fastest, and the total of all."""

    def __init__(self, size: int) -> None:
        self.best = [1 << 62] * size
        self.total = 0
        self.count = 0

    def add(self, i: int, ns: int) -> None:
        if ns < self.best[i]:
            self.best[i] = ns
        self.total += ns
        self.count += 1

    def summary(self) -> dict[str, float]:
        us = sorted(t / 1000 for t in self.best)
        return {
            "mean": round(statistics.fmean(us), 2),
            "p50": round(us[len(us) // 2], 2),
            "p99": round(us[min(len(us) - 1, int(len(us) * 0.99))], 2),
            "mean_all": round(self.total / self.count / 1000, 2),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 positions instead of 6,000")
    parser.add_argument("--positions", type=int, help="override the number of positions")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--repeat", type=int, default=3, help="passes over the corpus (3)")
    args = parser.parse_args()
    n = args.positions or (1000 if args.quick else 6000)

    built = time.perf_counter()
    games = random_game_positions(args.seed, n // 2)
    stress = stress_positions(args.seed, n - n // 2)
    calls = [(pos, dice) for pos in games + stress for dice in ROLLS]
    boards = [gnubg_board(pos) for pos, _ in calls]
    built = time.perf_counter() - built
    clock = time.perf_counter_ns

    # Each side runs in its own tight loop over the whole corpus (so neither evicts the other's
    # data from the CPU caches between calls), and the passes are repeated: the machine is
    # shared, so each call keeps its fastest time, and the mean over all passes is reported too.
    gc.collect()
    gc.freeze()  # the corpus is long-lived: keep the collector from rescanning it in every call
    cube, ec = gnubg.cubeinfo(), gnubg.evalcontext(0, 0, 1, 0, 0)
    find = gnubg.findbestmoves

    def clear() -> None:
        _cached.cache_clear()
        table_views._tree.cache_clear()
        throw_views._tree_json.cache_clear()

    size = len(calls)
    cold = _Timings(size)
    raw = _Timings(size)
    warm = _Timings(size)
    theirs = _Timings(size)
    throw = _Timings(size)
    views = _Timings(size)
    encode = msgspec.json.encode
    counts = [0] * size
    mismatches = 0
    for _ in range(args.repeat):
        # Ours, cold: the cache emptied before each call, outside the timed region.
        for i, (pos, dice) in enumerate(calls):
            clear()
            t0 = clock()
            counts[i] = len(legal_plays(pos, dice))
            cold.add(i, clock() - t0)
        # The generator alone: no validation, no cache, no wrapper object.
        for i, (pos, (a, b)) in enumerate(calls):
            me, opp = pos.me, pos.opp
            t0 = clock()
            _generate(me, opp, a, b)
            raw.add(i, clock() - t0)
        # Ours, warm: the call made a second time, answered from the cache.
        for i, (pos, dice) in enumerate(calls):
            clear()
            len(legal_plays(pos, dice))
            t0 = clock()
            len(legal_plays(pos, dice))
            warm.add(i, clock() - t0)
        # A throw message's plays (``m``), cold: the tree of steps as the server sends it,
        # and, beside it, as the table view's plays encoded.
        for i, (pos, dice) in enumerate(calls):
            clear()
            t0 = clock()
            tree_json(pos, dice)
            throw.add(i, clock() - t0)
        for i, (pos, dice) in enumerate(calls):
            clear()
            t0 = clock()
            encode(legal_views(pos, dice, legal_plays(pos, dice).plays))
            views.add(i, clock() - t0)
        clear()
        # GNU Backgammon on the same calls, its position cache emptied first (resizing empties
        # it): a pass must not reuse the evaluations of the pass before, as ours starts cold.
        # Within a pass it caches as it always does.
        _gnubg_quietly("set cache 0")
        _gnubg_quietly(f"set cache {GNUBG_CACHE}")
        mismatches = 0
        for i, ((_, dice), board) in enumerate(zip(calls, boards, strict=True)):
            t0 = clock()
            found = find(board, cube, ec, dice)
            theirs.add(i, clock() - t0)
            mismatches += len([m for m in found if m["move"]]) != counts[i]

    ours_s, gnu_s = cold.summary(), theirs.summary()
    result: dict[str, Any] = {
        "benchmark": "engine.legal_plays",
        "positions": len(games) + len(stress),
        "positions_random_games": len(games),
        "positions_stress": len(stress),
        "calls": size,
        "plays": sum(counts),
        "repeat": args.repeat,
        "seed": args.seed,
        "legal_plays_us_mean": ours_s["mean"],
        "legal_plays_us_p50": ours_s["p50"],
        "legal_plays_us_p99": ours_s["p99"],
        "legal_plays_us_mean_all_passes": ours_s["mean_all"],
        "generate_us_mean": raw.summary()["mean"],
        "legal_plays_cached_us_mean": warm.summary()["mean"],
        "throw_plays_us_mean": throw.summary()["mean"],
        "throw_plays_as_views_us_mean": views.summary()["mean"],
        "gnubg_us_mean": gnu_s["mean"],
        "gnubg_us_p50": gnu_s["p50"],
        "gnubg_us_p99": gnu_s["p99"],
        "gnubg_us_mean_all_passes": gnu_s["mean_all"],
        "ratio": round(ours_s["mean"] / gnu_s["mean"], 3),
        "ratio_all_passes": round(ours_s["mean_all"] / gnu_s["mean_all"], 3),
        "count_mismatches": mismatches,
        "corpus_build_s": round(built, 2),
        "python": platform.python_version(),
        "gnubg": importlib.metadata.version("gnubg"),
        "gnubg_cache_entries": GNUBG_CACHE,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
