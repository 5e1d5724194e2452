"""Benchmark: a bot's decision latency at 0-ply, ``basic`` beside ``gnubg``; and the analysis's
throughput beside GNU Backgammon's own ``analyse match``.

    python bench/bots.py            # 2,000 positions with a throw each; 10 matches analysed
    python bench/bots.py --quick    # 300; 3 matches
    python bench/bots.py --ply 1    # the analysis at 1-ply (default 0)

The positions come from seeded random games (tests/engine_corpus.py), each with a throw that
has two or more legal plays, built before anything is timed. Each decision is what a bot's
worker computes for a checker play (:meth:`events.domain.bots.Brain.play` on the legal plays, their
generation included) and for a cube decision before rolling (``double``), timed one by one with
``perf_counter_ns``. Prints one JSON object: ``<strength>_<decision>_ms_p50``/``_p99``/``_mean``.

**Analysis** (with the extra): seeded 5-point matches between basic bots, exported as ``.mat``
(events/records/mat_export.py), analysed at the ply three ways, each timed on the same matches:

- ``analysis_ours``: :func:`events.records.analysis.analyse_table` from the events, as the server's
  worker and ``chouette analyse`` run it (export, GNU Backgammon's module analysing in this
  process, its text export read back onto the players and events);
- ``analysis_module_gnubg``: of that, the time in the module's ``import mat`` / ``analyse
  match`` / ``export match text`` (the rest is exporting and reading back);
- ``analysis_gnubg_cli``: Debian's ``gnubg -t -q`` (1.07) doing the same on the same ``.mat``,
  a process per match (its evaluation cache starts empty in each, as the module's did), when
  the program is installed (``apt-get install gnubg``).

Throughput is decisions per second: the decisions the analysis rates (unforced checker plays and
close or actual cube decisions, the same count for all three) over the wall time.

**Cube quality** (with the extra): the basic bot's cube decisions in seeded games (money games
and 5-point matches, against GNU Backgammon's bot at 0-ply and against another basic bot,
seats swapped; tests/events/bots/cube_judge.py), each judged by GNU Backgammon at **0-ply**: its
cubeless chances for the position (``basic_lowest_double_win``: the lowest chance of winning,
by GNU Backgammon, at which the basic bot doubled; ``basic_doubles_below_50``: doubles below
50 %) and the gnubg strength's cube decision on them (:class:`events.gnubg.bot.GnubgBrain`:
Janowski's money window, too good from a cubeless equity of 1; in a match, GNU Backgammon's
match equity table, the cube dead). A decision is **wrong** when that decision differs: a
double where GNU Backgammon does not double (not good enough, or too good), a take where it
passes, a drop where it takes. ``basic_cube_error_rate`` is the wrong doubles, takes and
drops over the decisions where the bot acted (doubled, took or dropped);
``basic_missed_doubles`` (no double where GNU Backgammon doubles) is counted but not in it,
and ``basic_cube_decisions`` counts every decision asked (each roll where it could double).
``--quick``: 60 money games and 12 matches for each pairing; otherwise 200 and 40.

**Outside bots** (bench/outside_bots.py): ``outside_basic_*`` and ``outside_cmd_gnubg_*``, the
same decisions asked of an outside bot's engines (``basic`` in the runner's process, GNU
Backgammon's program over the line protocol through scripts/gnubg-engine) with their answers
checked as the runner checks them; and ``outside_runner_<engine>_turn_ms_*``, whole turns of an
outside bot against the server's basic bot in a ``serve`` process, from the event that gave it
the turn to its command recorded (skipped with ``--no-load``).

**Server load** (``server_load``, bench/bot_load.py; skipped with ``--no-load``): one ``serve``
process's command latency for 200 human-pace tables alone and beside 50 tables of two ``basic``
bots each, in alternating phases of one run on the same sockets (A B A, or A B A B A without
``--quick``; each phase with bots on tables of its own); the target is the pooled p99 with bots
within 10 % of the pooled p99 without.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "events"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine_corpus import ROLLS, random_game_positions

from bench.outside_bots import outside_latency
from engine.moves import legal_plays
from events.domain import types as e
from events.domain.bots import BasicBrain, Brain, CubeContext, brain_for, gnubg_available
from events.gnubg.analysis import analyse_with_cli, analyse_with_module, cli_path
from events.records.analysis import analyse_table
from events.records.mat_export import export_mat
from tests.events.bots.bot_play import play_table
from tests.events.bots.cube_judge import judge, watched_games


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
    parser.add_argument("--ply", type=int, choices=(0, 1, 2), default=0, help="analysis ply")
    parser.add_argument("--no-load", action="store_true", help="skip the server-load part")
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
    # Outside bots (chouette bot run): the engines over the runner's path, and whole turns
    # through the public protocol against a serve process (with the server-load part).
    out.update(outside_latency(corpus, args.quick, runner=not args.no_load))
    if "gnubg" not in strengths:
        out["gnubg"] = "not installed: pip install 'chouette[gnubg]'"
    else:
        out.update(_analysis(3 if args.quick else 10, args.ply))
        out.update(_cube_quality(args.quick))
    if not args.no_load:
        from bench.bot_load import server_load

        out["server_load"] = asyncio.run(server_load(args.quick))
    print(json.dumps(out, indent=2))


def _cube_quality(quick: bool) -> dict[str, Any]:
    """The basic bot's cube decisions judged by GNU Backgammon (see the module's docstring)."""
    t0 = time.perf_counter()
    seen = watched_games(60 if quick else 200, 12 if quick else 40, seed=29)
    tally = judge(seen)
    return tally.doc() | {
        "cube_quality_ply": 0,
        "cube_quality_s": round(time.perf_counter() - t0, 1),
    }


def _analysis(matches: int, ply: int) -> dict[str, Any]:
    """Analysis throughput: ours, the module's own analysis alone, Debian's program."""
    tables = []
    for seed in range(matches):
        brains: dict[str, Brain] = {"ann": BasicBrain(), "bob": BasicBrain()}
        table = play_table(
            "match", brains, games=99, options=e.TableOptions(match_length=5), seed=100 + seed
        )
        events = [ev for step in table.steps for ev in step.events]
        tables.append((events, export_mat(events)))
    # Warm: the module loads its nets and databases (on another match: GNU Backgammon keeps
    # an evaluation cache, and a position analysed twice would be timed warm).
    brains: dict[str, Brain] = {"ann": BasicBrain(), "bob": BasicBrain()}
    warm = play_table("match", brains, games=99, options=e.TableOptions(match_length=1), seed=99)
    analyse_with_module(export_mat([ev for step in warm.steps for ev in step.events]), ply)
    decisions = 0
    moves = 0
    module = 0.0

    def run(mat: str, ply: int) -> list[str]:
        nonlocal module, moves
        t = time.perf_counter()
        texts = analyse_with_module(mat, ply)
        module += time.perf_counter() - t
        moves += sum(text.count("\nMove number ") for text in texts)
        return texts

    t0 = time.perf_counter()
    for events, _ in tables:
        doc = analyse_table(events, ply, run=run)
        decisions += sum(len(g["decisions"]) for g in doc["games"])
    ours = time.perf_counter() - t0
    out: dict[str, Any] = {
        "analysis_ply": ply,
        "analysis_matches": matches,
        "analysis_decisions": decisions,
        "analysis_moves": moves,
        "analysis_ours_s": round(ours, 3),
        "analysis_ours_decisions_per_s": round(decisions / ours, 1),
        "analysis_module_gnubg_s": round(module, 3),
        "analysis_module_gnubg_decisions_per_s": round(decisions / module, 1),
    }
    if cli_path() is None:
        out["analysis_gnubg_cli"] = "not installed: apt-get install gnubg"
        return out
    t0 = time.perf_counter()
    for _, mat in tables:
        analyse_with_cli(mat, ply)
    cli = time.perf_counter() - t0
    out["analysis_gnubg_cli_s"] = round(cli, 3)
    out["analysis_gnubg_cli_decisions_per_s"] = round(decisions / cli, 1)
    out["analysis_ours_vs_gnubg_cli"] = round(cli / ours, 2)
    return out


if __name__ == "__main__":
    main()
