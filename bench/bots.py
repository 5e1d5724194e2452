"""Benchmark: a bot's decision latency at 0-ply, ``basic`` beside ``gnubg``.

    python bench/bots.py            # 2,000 positions with a throw each
    python bench/bots.py --quick    # 300

The positions come from seeded random games (tests/engine_corpus.py), each with a throw that
has two or more legal plays, built before anything is timed. Each decision is what a bot's
worker computes for a checker play (:meth:`events.bots.Brain.play` on the legal plays, their
generation included) and for a cube decision before rolling (``double``), timed one by one with
``perf_counter_ns``. Prints one JSON object: ``<strength>_<decision>_ms_p50``/``_p99``/``_mean``.

Not measured yet (issue 14's benchmark asks for them too): analysis throughput beside GNU
Backgammon's ``analyse match``, and the server's command p99 with 50 bot tables beside 200
human-pace tables.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine_corpus import ROLLS, random_game_positions

from engine.moves import legal_plays
from events.bots import CubeContext, brain_for, gnubg_available


def _ms(samples: list[int]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50": round(ordered[len(ordered) // 2] / 1e6, 4),
        "p99": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] / 1e6, 4),
        "mean": round(statistics.fmean(ordered) / 1e6, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    count = 300 if args.quick else 2000
    rng = random.Random(14)
    corpus = []
    for pos in random_game_positions(seed=14, count=count * 2):
        dice = rng.choice(ROLLS)
        if len(legal_plays(pos, dice).plays) >= 2:
            corpus.append((pos, dice))
        if len(corpus) == count:
            break
    out: dict[str, Any] = {
        "positions": len(corpus),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    strengths = ["basic"] + (["gnubg"] if gnubg_available() else [])
    cube = CubeContext()
    for strength in strengths:
        brain = brain_for(strength, 0)
        brain.play(*corpus[0], legal_plays(*corpus[0]).plays)  # warm (GNU loads its nets)
        plays_ns: list[int] = []
        cube_ns: list[int] = []
        for pos, dice in corpus:
            t0 = time.perf_counter_ns()
            brain.play(pos, dice, legal_plays(pos, dice).plays)
            t1 = time.perf_counter_ns()
            brain.double(pos, cube)
            t2 = time.perf_counter_ns()
            plays_ns.append(t1 - t0)
            cube_ns.append(t2 - t1)
        for decision, samples in (("play", plays_ns), ("double", cube_ns)):
            for key, value in _ms(samples).items():
                out[f"{strength}_{decision}_ms_{key}"] = value
    if "gnubg" not in strengths:
        out["gnubg"] = "not installed: pip install 'chouette[gnubg]'"
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
