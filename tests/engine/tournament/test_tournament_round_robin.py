"""The round robin (engine/tournament/roundrobin.py): every pair exactly once."""

from __future__ import annotations

import itertools

import pytest
from tournament_runs import play_out

from engine.errors import TournamentError
from engine.tournament import Format, RoundPaired, TournamentSpec, berger_round, standings

ROUND_ROBIN = TournamentSpec(Format.ROUND_ROBIN)


@pytest.mark.parametrize("n", range(2, 33))
def test_every_pair_meets_exactly_once_and_everyone_plays_each_round(n: int) -> None:
    m = n + n % 2
    met = []
    byes = []
    for number in range(1, m):
        pairs = berger_round(n, number)
        places = [p for pair in pairs for p in pair if p is not None]
        assert sorted(places) == list(range(n))
        met += [(a, b) for a, b in pairs if b is not None]
        byes += [a for a, b in pairs if b is None]
    assert sorted(met) == list(itertools.combinations(range(n), 2))
    assert sorted(byes) == (list(range(n)) if n % 2 else [])


def test_berger_round_refuses_a_round_that_is_not_one() -> None:
    with pytest.raises(TournamentError, match="rounds 1 to 5"):
        berger_round(6, 6)
    with pytest.raises(TournamentError, match="at least 2"):
        berger_round(1, 1)


@pytest.mark.parametrize(("n", "seed"), [(5, 1), (8, 2), (9, 3)])
def test_a_round_robin_played_out_has_everyone_meet_everyone(n: int, seed: int) -> None:
    end, facts, _ = play_out(ROUND_ROBIN, n, seed, withdraw=0.2)
    assert end.is_finished
    rounds = [f for f in facts if isinstance(f, RoundPaired)]
    assert len(rounds) == n - 1 + n % 2
    met = [frozenset(p.players) for f in rounds for p in f.pairings if not p.is_bye]
    assert len(met) == len(set(met)) == n * (n - 1) // 2
    # a round robin's bye scores nothing: the points are the matches won
    assert sum(s.points for s in standings(end)) == sum(
        1 for r in end.rounds for b in r.boards if not b.is_bye and b.winner is not None
    )
