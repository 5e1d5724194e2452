"""Benchmark: pairing a 256-player Swiss tournament, 8 rounds (issue 32).

    python bench/tournaments.py               # 256 players, 8 rounds, 3 passes
    python bench/tournaments.py --players 255 --rounds 10 --seed 3

A field of ``--players`` (ratings drawn from a seeded generator) plays ``--rounds`` rounds with
random results (each board's winner a coin toss). Before each round is recorded, its pairing is
made three ways from the same state, each timed ``--repeat`` (3) times with ``perf_counter``
and its fastest kept (the machine is shared):

- ``auto``: what the tournament records (``engine.tournament.swiss.swiss_pairing``): the plain
  rule first, the matching search when it runs into a repeat;
- ``search``: the matching search from the start (a maximum matching kept up to date);
- ``greedy``: the plain rule alone (each player takes the first candidate not met), the
  reference: cheapest, but it can dead-end (counted in ``greedy_dead_ends``).

The three answers must agree whenever the plain rule pairs everyone (``disagreements``, should
be 0). Prints one JSON object: ``ms_per_round`` (``auto``, each round; target < 100 ms),
``max_ms``, ``search_ms_per_round``, ``greedy_ms_per_round``, the ratios of the totals
(``auto_over_greedy``, ``search_over_greedy``), and the repeats and byes seen.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.errors import TournamentError
from engine.tournament import (
    Entered,
    Format,
    Pairing,
    Result,
    RoundPaired,
    Tournament,
    TournamentSpec,
)
from engine.tournament.swiss import swiss_pairing


def _timed(state: Tournament, method: str, repeat: int) -> tuple[float, tuple[Pairing, ...] | None]:
    best = float("inf")
    answer: tuple[Pairing, ...] | None = None
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            answer = swiss_pairing(state, method=method)
        except TournamentError:
            answer = None
        best = min(best, time.perf_counter() - start)
    return best * 1000, answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    r = random.Random(args.seed)
    spec = TournamentSpec(Format.SWISS, rounds=args.rounds)
    state = Tournament.fold(
        spec, [Entered(f"p{i:03}", round(r.uniform(1200, 2100), 2)) for i in range(args.players)]
    )
    auto, search, greedy = [], [], []
    dead_ends = disagreements = 0
    met: set[frozenset[str]] = set()
    repeats = byes = 0
    for number in range(1, args.rounds + 1):
        ms, pairings = _timed(state, "auto", args.repeat)
        auto.append(ms)
        ms_search, by_search = _timed(state, "search", args.repeat)
        search.append(ms_search)
        ms_greedy, by_greedy = _timed(state, "greedy", args.repeat)
        greedy.append(ms_greedy)
        assert pairings is not None
        if by_greedy is None:
            dead_ends += 1
        elif by_greedy != pairings:
            disagreements += 1
        if by_search != pairings:
            disagreements += 1
        for p in pairings:
            if p.is_bye:
                byes += 1
            else:
                repeats += frozenset(p.players) in met
                met.add(frozenset(p.players))
        state = state.apply(RoundPaired(number, pairings))
        for board in state.rounds[-1].boards:
            if not board.decided:
                state = state.apply(Result(number, board.number, r.choice(board.players)))
    print(
        json.dumps(
            {
                "players": args.players,
                "rounds": args.rounds,
                "ms_per_round": [round(x, 2) for x in auto],
                "max_ms": round(max(auto), 2),
                "target_ms": 100,
                "search_ms_per_round": [round(x, 2) for x in search],
                "greedy_ms_per_round": [round(x, 2) for x in greedy],
                "auto_over_greedy": round(sum(auto) / sum(greedy), 2),
                "search_over_greedy": round(sum(search) / sum(greedy), 2),
                "greedy_dead_ends": dead_ends,
                "disagreements": disagreements,
                "repeats": repeats,
                "byes": byes,
                "python": platform.python_version(),
            }
        )
    )


if __name__ == "__main__":
    main()
