"""A series of games (:class:`~engine.match.Match`): a match to N points with the Crawford rule
(docs/rules.md §7), and money play with its options (§6).

Games are won quickly: by a resignation (1, 2 or 3 points × cube) or a dropped double.
"""

from __future__ import annotations

import dataclasses

import pytest

from engine.errors import CubeError, GameOverError, IllegalActionError
from engine.game import Cube, Game, GameOptions, Phase, Result
from engine.match import Match
from engine.matchid import MatchState
from engine.position import Position

OPENING_31 = [(8, 5), (6, 5)]


def opened(match: Match, first: int) -> Match:
    """``first`` wins the opening with 31 and plays 8/5 6/5; the other player is on roll."""
    dice = (3, 1) if first == 0 else (1, 3)
    return match.act(lambda g: g.opening_throw(*dice).move(first, OPENING_31))


def resigns(match: Match, loser: int, level: int = 1) -> Match:
    """A game of ``match`` that ``loser`` resigns at ``level`` before their first roll."""
    winner = 1 - loser
    match = opened(match, winner)
    return match.act(lambda g: g.resign(loser, level).accept(winner))


def drops(match: Match, loser: int) -> Match:
    """A game of ``match`` in which ``loser`` drops the first double."""
    winner = 1 - loser
    match = opened(match, loser)
    return match.act(lambda g: g.double(winner).drop(loser))


def doubled_resigns(match: Match, loser: int, level: int) -> Match:
    """A game of ``match`` in which ``loser`` doubles, is taken, and resigns at ``level``:
    ``2 × level`` points."""
    winner = 1 - loser
    match = opened(match, winner)
    return match.act(lambda g: g.double(loser).take(winner).resign(loser, level).accept(winner))


def play(match: Match, *games: tuple[int, int]) -> Match:
    """Games won by (winner, points), starting each next game: 1 to 3 points by a resignation,
    4 or 6 by a resignation after a double."""
    for winner, points in games:
        if match.game is not None and match.game.is_over:
            match = match.next_game()
        if points <= 3:
            match = resigns(match, 1 - winner, points)
        else:
            match = doubled_resigns(match, 1 - winner, points // 2)
        assert match.results[-1].points == points
    return match


def test_match_starts_its_first_game() -> None:
    match = Match.to(5)
    assert match.is_match and match.length == 5
    assert match.score == (0, 0)
    assert match.game is not None and match.game.phase is Phase.OPENING
    assert match.winner is None and not match.is_over


def test_match_score_accumulates_game_values() -> None:
    match = play(Match.to(5), (0, 1), (1, 2))
    assert match.score == (1, 2)
    match = match.next_game()
    match = opened(match, 0).act(lambda g: g.double(1).take(0))
    match = match.act(lambda g: g.resign(1, 1).accept(0))  # 1 × cube 2
    assert match.score == (3, 2)
    assert [r.points for r in match.results] == [1, 2, 2]
    assert not match.is_over


def test_first_to_reach_the_match_length_wins() -> None:
    match = play(Match.to(5), (0, 2), (1, 1), (0, 1), (1, 3), (0, 2))
    assert match.score == (5, 4)
    assert match.winner == 0 and match.is_over


def test_points_past_the_match_length_are_not_needed() -> None:
    # 3-0 in a 5-point match, then a backgammon: 6 points, more than needed, and the match ends.
    match = play(Match.to(5), (1, 3), (1, 3))
    assert match.score == (0, 6)
    assert match.winner == 1


def test_no_game_after_the_match_is_won() -> None:
    match = play(Match.to(1), (0, 1))
    assert match.winner == 0
    with pytest.raises(GameOverError):
        match.next_game()
    with pytest.raises(GameOverError):
        match.act(lambda g: g.opening_throw(3, 1))


def test_next_game_only_after_the_game_ends() -> None:
    with pytest.raises(IllegalActionError):
        Match.to(5).next_game()
    with pytest.raises(IllegalActionError):
        opened(Match.to(5), 0).next_game()


def test_action_on_a_finished_game_is_refused() -> None:
    match = play(Match.to(5), (0, 1))
    with pytest.raises(GameOverError):
        match.act(lambda g: g.opening_throw(3, 1))


@pytest.mark.parametrize("length", [0, -3, 256, True, 2.5, "5"])
def test_match_length_must_be_1_to_255(length: object) -> None:
    with pytest.raises(IllegalActionError):
        Match.to(length)  # type: ignore[arg-type]


def test_finished_match_game_results_are_kept_in_order() -> None:
    match = play(Match.to(7), (1, 2), (0, 3))
    assert [(r.winner, r.result, r.how) for r in match.results] == [
        (1, Result.GAMMON, "resign"),
        (0, Result.BACKGAMMON, "resign"),
    ]


# -- the Crawford rule ---------------------------------------------------------------------------


def test_crawford_game_when_a_player_first_comes_within_one_point() -> None:
    match = play(Match.to(5), (0, 2), (0, 1))
    assert match.score == (3, 0) and not match.crawford
    match = play(match, (0, 1))
    assert match.score == (4, 0)
    assert match.crawford and not match.post_crawford
    match = match.next_game()
    assert match.game is not None and not match.game.options.cube


def test_crawford_game_has_no_doubling() -> None:
    match = play(Match.to(5), (1, 2), (1, 2)).next_game()
    assert match.crawford
    match = opened(match, 1)
    game = match.game
    assert game is not None and not game.can_double(0)
    with pytest.raises(CubeError):
        game.double(0)
    with pytest.raises(CubeError):
        match.act(lambda g: g.double(0))


def test_crawford_game_is_won_without_the_cube() -> None:
    match = play(Match.to(5), (1, 4)).next_game()
    assert match.crawford
    match = resigns(match, 1, 2)  # the trailer wins a gammon: 2-4
    assert match.score == (2, 4)
    assert not match.crawford and match.post_crawford


def test_post_crawford_games_allow_doubling() -> None:
    match = play(Match.to(5), (1, 4), (0, 1)).next_game()
    assert match.post_crawford and not match.crawford
    assert match.game is not None and match.game.options.cube
    match = opened(match, 1).act(lambda g: g.double(0).take(1))
    assert match.game is not None and match.game.cube == Cube(2, 1)


def test_crawford_happens_only_once() -> None:
    # 4-0, the Crawford game to the trailer (4-1), then the trailer reaches 4 too: no Crawford.
    match = play(Match.to(5), (0, 4), (1, 1), (1, 3))
    assert match.score == (4, 4)
    assert not match.crawford and match.post_crawford
    match = match.next_game()
    assert match.game is not None and match.game.options.cube


def test_crawford_when_the_trailer_comes_within_one_point_first() -> None:
    match = play(Match.to(3), (1, 1), (0, 2))
    assert match.score == (2, 1) and match.crawford


def test_no_crawford_game_when_the_match_is_won_outright() -> None:
    match = play(Match.to(3), (0, 3))
    assert match.is_over and not match.crawford


def test_no_crawford_game_in_a_one_point_match() -> None:
    match = Match.to(1)
    assert not match.crawford
    assert match.game is not None and match.game.options.cube


def test_crawford_game_of_a_two_point_match_at_1_0() -> None:
    match = play(Match.to(2), (0, 1))
    assert match.crawford


def test_crawford_flag_in_the_match_id() -> None:
    match = play(Match.to(5), (0, 4))
    # GNU Backgammon shows the flag as soon as the game that made it 4-0 has ended.
    assert MatchState.from_id(match.match_id()).crawford
    match = match.next_game()
    assert MatchState.from_id(match.match_id()).crawford
    match = opened(match, 1)
    state = MatchState.from_id(match.match_id())
    assert (state.crawford, state.match_length, state.score) == (True, 5, (4, 0))
    match = match.act(lambda g: g.resign(0, 1).accept(1)).next_game()
    assert not MatchState.from_id(match.match_id()).crawford


def test_match_id_carries_length_and_score() -> None:
    match = play(Match.to(9), (0, 2), (1, 3), (1, 1)).next_game()
    state = MatchState.from_id(match.match_id())
    assert (state.match_length, state.score, state.jacoby) == (9, (2, 4), False)


def test_match_id_after_the_match_is_won() -> None:
    match = play(Match.to(3), (1, 2), (1, 2))
    state = MatchState.from_id(match.match_id())
    assert (state.score, state.crawford, state.game_state) == ((0, 4), False, 3)


# -- money options are for money play only -------------------------------------------------------

MONEY_OPTIONS = GameOptions(auto_doubles=2, beavers=True, jacoby=True)


def test_money_options_are_disabled_in_matches() -> None:
    match = Match.to(7)
    assert match.game is not None
    assert match.game.options == GameOptions()
    assert match.game_options() == GameOptions()


def test_no_automatic_doubles_in_a_match() -> None:
    match = Match.to(7).act(lambda g: g.opening_throw(4, 4))
    assert match.game is not None and match.game.cube == Cube(1, None)


def test_no_beavers_in_a_match() -> None:
    match = opened(Match.to(7), 0).act(lambda g: g.double(1))
    with pytest.raises(CubeError):
        match.act(lambda g: g.beaver(0))


def test_no_jacoby_rule_in_a_match() -> None:
    # An undoubled gammon in a match counts 2. A Game is built only by actions; the board is
    # replaced to reach the last checker without playing a whole game.
    match = opened(Match.to(7), 0)

    def bear_off(g: Game) -> Game:
        g = dataclasses.replace(g, position=Position.from_points({1: 1}, {6: 15}))
        return g.roll(1, (2, 1)).move(1, [(1, 0)])

    match = match.act(bear_off)
    assert match.score == (0, 2)
    assert MatchState.from_id(match.match_id()).jacoby is False


# -- money play ----------------------------------------------------------------------------------


def test_money_play_applies_its_options() -> None:
    match = Match.money(MONEY_OPTIONS)
    assert not match.is_match
    assert match.game is not None and match.game.options == MONEY_OPTIONS
    match = match.act(lambda g: g.opening_throw(5, 5))
    assert match.game is not None and match.game.cube == Cube(2, None)


def test_money_play_always_has_the_cube() -> None:
    match = Match.money(GameOptions(cube=False))
    assert match.game is not None and match.game.options.cube


def test_money_play_accumulates_without_end() -> None:
    match = Match.money(GameOptions(beavers=True))
    for i in range(12):
        match = resigns(match, i % 2, 3) if i % 3 else drops(match, 0)
        assert match.winner is None and not match.is_over
        match = match.next_game()
    assert match.score == (12, 16)
    assert len(match.results) == 12
    assert not match.crawford and not match.post_crawford


def test_money_play_beaver_drop_scores_the_value_before_the_beaver() -> None:
    match = opened(Match.money(GameOptions(beavers=True)), 0)
    match = match.act(lambda g: g.double(1).beaver(0).drop(1))
    assert match.score == (2, 0)


def test_money_match_id_carries_the_score_and_jacoby() -> None:
    match = play(Match.money(MONEY_OPTIONS), (1, 4), (0, 1)).next_game()
    state = MatchState.from_id(match.match_id())
    assert (state.match_length, state.score, state.jacoby) == (0, (1, 4), True)
