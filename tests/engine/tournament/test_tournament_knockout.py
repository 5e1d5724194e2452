"""The knockout (engine/tournament/knockout.py): seeding, byes, one winner, the third place."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tournament_runs import field, play_out

from engine.errors import TournamentError
from engine.tournament import (
    Adjusted,
    Format,
    Result,
    Tournament,
    TournamentSpec,
    Withdrew,
    audit,
    bracket,
    bracket_order,
    next_round,
    winner,
)

KNOCKOUT = TournamentSpec(Format.KNOCKOUT)


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64, 128, 256])
def test_bracket_order_pairs_s_with_size_plus_one_minus_s(size: int) -> None:
    order = bracket_order(size)
    assert sorted(order) == list(range(1, size + 1))
    assert all(a + b == size + 1 for a, b in zip(order[::2], order[1::2], strict=True))
    # the top half holds seed 1, the bottom half seed 2: they can only meet in the final
    if size >= 2:
        assert 1 in order[: size // 2] and 2 in order[size // 2 :]
    if size >= 4:
        quarters = [set(order[i : i + size // 4]) for i in range(0, size, size // 4)]
        assert [bool({1, 2, 3, 4} & q) for q in quarters] == [True] * 4


def test_bracket_order_refuses_a_size_not_a_power_of_two() -> None:
    with pytest.raises(TournamentError, match="power of two"):
        bracket_order(6)


def _higher_seeds_win(n: int, third_place: bool = False) -> Tournament:
    state = Tournament.fold(TournamentSpec(Format.KNOCKOUT, third_place=third_place), field(n))
    while not state.is_finished:
        fact = next_round(state)
        state = state.apply(fact)
        for board in state.rounds[-1].boards:
            if not board.decided:
                state = state.apply(Result(fact.round, board.number, board.pairing.a))
    return state


def test_with_the_favourites_winning_the_top_four_seeds_reach_the_semi_finals() -> None:
    state = _higher_seeds_win(16)
    semis = [str(b.pairing) for b in state.rounds[2].boards]
    assert semis == ["p1 v p4", "p2 v p3"]
    assert [str(b.pairing) for b in state.rounds[3].boards] == ["p1 v p2"]
    assert winner(state) == "p1"


@pytest.mark.parametrize("n", [3, 5, 6, 7, 12, 33])
def test_the_byes_go_to_the_top_seeds(n: int) -> None:
    first = next_round(Tournament.fold(KNOCKOUT, field(n))).pairings
    size = 1 << (n - 1).bit_length()
    assert len(first) == size // 2
    assert sorted(p.a for p in first if p.is_bye) == sorted(f"p{i}" for i in range(1, size - n + 1))


def test_a_third_place_match_is_board_two_of_the_final_round() -> None:
    state = _higher_seeds_win(8, third_place=True)
    final = state.rounds[-1].boards
    assert [str(b.pairing) for b in final] == ["p1 v p2", "p3 v p4"]
    drawn = bracket(state)
    assert [m.third_place for m in drawn[-1]] == [False, True]
    assert winner(state) == "p1"


def test_no_third_place_match_when_a_semi_final_was_a_bye() -> None:
    state = _higher_seeds_win(3, third_place=True)
    assert [str(b.pairing) for b in state.rounds[-1].boards] == ["p1 v p2"]


def test_the_bracket_is_drawn_to_the_final_before_it_is_played() -> None:
    state = Tournament.fold(KNOCKOUT, field(6))
    drawn = bracket(state)
    assert [len(r) for r in drawn] == [4, 2, 1]
    assert [(m.a, m.b) for m in drawn[0]] == [
        ("p1", None),
        ("p4", "p5"),
        ("p2", None),
        ("p3", "p6"),
    ]
    assert [(m.a, m.b) for m in drawn[1]] == [("p1", None), ("p2", None)]


def test_a_withdrawal_is_a_walkover_and_both_withdrawn_sends_the_higher_seed_through() -> None:
    state = Tournament.fold(KNOCKOUT, field(4))
    state = state.apply(next_round(state))  # p1 v p4, p2 v p3
    state = state.apply(Withdrew("p4"))
    assert (state.board(1, 1).winner, state.board(1, 1).forfeit) == ("p1", True)
    state = state.apply(Withdrew("p2"))  # p3 goes through; p2's own board is decided
    assert (state.board(1, 2).winner, state.board(1, 2).forfeit) == ("p3", True)
    state = state.apply(Withdrew("p3")).apply(Withdrew("p1"))
    state = state.apply(next_round(state))  # p1 v p3, both gone: decided at once
    assert state.is_finished and winner(state) == "p1"
    assert state.board(2, 1).forfeit


def test_a_knockout_match_needs_a_winner_and_is_adjusted_only_before_the_next_round() -> None:
    state = Tournament.fold(KNOCKOUT, field(4))
    state = state.apply(next_round(state))
    with pytest.raises(TournamentError, match="needs a winner"):
        state.apply(Result(1, 1, None, forfeit=True))
    state = state.apply(Result(1, 1, "p1")).apply(Result(1, 2, "p3"))
    state = state.apply(Adjusted(1, 2, "p2", "p3 was seen using a bot"))
    assert state.board(1, 2).reason == "p3 was seen using a bot"
    state = state.apply(next_round(state))
    assert [str(b.pairing) for b in state.rounds[-1].boards] == ["p1 v p2"]
    with pytest.raises(TournamentError, match="next round has been paired"):
        state.apply(Adjusted(1, 1, "p4", "late appeal"))


@settings(max_examples=200, deadline=None)
@given(n=st.integers(2, 64), seed=st.integers(0, 10**9), withdraw=st.sampled_from([0.0, 0.2]))
def test_every_knockout_has_exactly_one_winner(n: int, seed: int, withdraw: float) -> None:
    end, facts, _ = play_out(KNOCKOUT, n, seed, withdraw)
    assert end.is_finished
    assert len(end.rounds) == (n - 1).bit_length()
    champion = winner(end)
    assert champion in end.field
    losers = [p for r in end.rounds for b in r.boards for p in b.losers()]
    assert len(losers) == len(set(losers)) == n - 1  # everyone else lost exactly once
    assert champion not in losers
    assert audit(KNOCKOUT, facts) == ()
    assert bracket(end)[-1][0].winner == champion
