"""Sessions of games: a match to N points with the Crawford rule (RULES.md §7), and money play
with its options (§6).

Games are won quickly: by a resignation (1, 2 or 3 points × cube) or a dropped double.
"""

from __future__ import annotations

import dataclasses

import pytest

from engine.errors import CubeError, GameOverError, IllegalActionError
from engine.game import Cube, Game, GameOptions, Phase, Result
from engine.match import Session
from engine.matchid import MatchState
from engine.position import Position

OPENING_31 = [(8, 5), (6, 5)]


def opened(session: Session, first: int) -> Session:
    """``first`` wins the opening with 31 and plays 8/5 6/5; the other player is on roll."""
    dice = (3, 1) if first == 0 else (1, 3)
    return session.act(lambda g: g.opening_throw(*dice).move(first, OPENING_31))


def resigns(session: Session, loser: int, level: int = 1) -> Session:
    """A game of ``session`` that ``loser`` resigns at ``level`` before their first roll."""
    winner = 1 - loser
    session = opened(session, winner)
    return session.act(lambda g: g.resign(loser, level).accept(winner))


def drops(session: Session, loser: int) -> Session:
    """A game of ``session`` in which ``loser`` drops the first double."""
    winner = 1 - loser
    session = opened(session, loser)
    return session.act(lambda g: g.double(winner).drop(loser))


def doubled_resigns(session: Session, loser: int, level: int) -> Session:
    """A game of ``session`` in which ``loser`` doubles, is taken, and resigns at ``level``:
    ``2 × level`` points."""
    winner = 1 - loser
    session = opened(session, winner)
    return session.act(lambda g: g.double(loser).take(winner).resign(loser, level).accept(winner))


def play(session: Session, *games: tuple[int, int]) -> Session:
    """Games won by (winner, points), starting each next game: 1 to 3 points by a resignation,
    4 or 6 by a resignation after a double."""
    for winner, points in games:
        if session.game is not None and session.game.is_over:
            session = session.next_game()
        if points <= 3:
            session = resigns(session, 1 - winner, points)
        else:
            session = doubled_resigns(session, 1 - winner, points // 2)
        assert session.results[-1].points == points
    return session


def test_match_starts_its_first_game() -> None:
    session = Session.match(5)
    assert session.is_match and session.length == 5
    assert session.score == (0, 0)
    assert session.game is not None and session.game.phase is Phase.OPENING
    assert session.winner is None and not session.is_over


def test_match_score_accumulates_game_values() -> None:
    session = play(Session.match(5), (0, 1), (1, 2))
    assert session.score == (1, 2)
    session = session.next_game()
    session = opened(session, 0).act(lambda g: g.double(1).take(0))
    session = session.act(lambda g: g.resign(1, 1).accept(0))  # 1 × cube 2
    assert session.score == (3, 2)
    assert [r.points for r in session.results] == [1, 2, 2]
    assert not session.is_over


def test_first_to_reach_the_match_length_wins() -> None:
    session = play(Session.match(5), (0, 2), (1, 1), (0, 1), (1, 3), (0, 2))
    assert session.score == (5, 4)
    assert session.winner == 0 and session.is_over


def test_points_past_the_match_length_are_not_needed() -> None:
    # 3-0 in a 5-point match, then a backgammon: 6 points, more than needed, and the match ends.
    session = play(Session.match(5), (1, 3), (1, 3))
    assert session.score == (0, 6)
    assert session.winner == 1


def test_no_game_after_the_match_is_won() -> None:
    session = play(Session.match(1), (0, 1))
    assert session.winner == 0
    with pytest.raises(GameOverError):
        session.next_game()
    with pytest.raises(GameOverError):
        session.act(lambda g: g.opening_throw(3, 1))


def test_next_game_only_after_the_game_ends() -> None:
    with pytest.raises(IllegalActionError):
        Session.match(5).next_game()
    with pytest.raises(IllegalActionError):
        opened(Session.match(5), 0).next_game()


def test_action_on_a_finished_game_is_refused() -> None:
    session = play(Session.match(5), (0, 1))
    with pytest.raises(GameOverError):
        session.act(lambda g: g.opening_throw(3, 1))


@pytest.mark.parametrize("length", [0, -3, 256, True, 2.5, "5"])
def test_match_length_must_be_1_to_255(length: object) -> None:
    with pytest.raises(IllegalActionError):
        Session.match(length)  # type: ignore[arg-type]


def test_finished_match_game_results_are_kept_in_order() -> None:
    session = play(Session.match(7), (1, 2), (0, 3))
    assert [(r.winner, r.result, r.how) for r in session.results] == [
        (1, Result.GAMMON, "resign"),
        (0, Result.BACKGAMMON, "resign"),
    ]


# -- the Crawford rule ---------------------------------------------------------------------------


def test_crawford_game_when_a_player_first_comes_within_one_point() -> None:
    session = play(Session.match(5), (0, 2), (0, 1))
    assert session.score == (3, 0) and not session.crawford
    session = play(session, (0, 1))
    assert session.score == (4, 0)
    assert session.crawford and not session.post_crawford
    session = session.next_game()
    assert session.game is not None and not session.game.options.cube


def test_crawford_game_has_no_doubling() -> None:
    session = play(Session.match(5), (1, 2), (1, 2)).next_game()
    assert session.crawford
    session = opened(session, 1)
    game = session.game
    assert game is not None and not game.can_double(0)
    with pytest.raises(CubeError):
        game.double(0)
    with pytest.raises(CubeError):
        session.act(lambda g: g.double(0))


def test_crawford_game_is_won_without_the_cube() -> None:
    session = play(Session.match(5), (1, 4)).next_game()
    assert session.crawford
    session = resigns(session, 1, 2)  # the trailer wins a gammon: 2-4
    assert session.score == (2, 4)
    assert not session.crawford and session.post_crawford


def test_post_crawford_games_allow_doubling() -> None:
    session = play(Session.match(5), (1, 4), (0, 1)).next_game()
    assert session.post_crawford and not session.crawford
    assert session.game is not None and session.game.options.cube
    session = opened(session, 1).act(lambda g: g.double(0).take(1))
    assert session.game is not None and session.game.cube == Cube(2, 1)


def test_crawford_happens_only_once() -> None:
    # 4-0, the Crawford game to the trailer (4-1), then the trailer reaches 4 too: no Crawford.
    session = play(Session.match(5), (0, 4), (1, 1), (1, 3))
    assert session.score == (4, 4)
    assert not session.crawford and session.post_crawford
    session = session.next_game()
    assert session.game is not None and session.game.options.cube


def test_crawford_when_the_trailer_comes_within_one_point_first() -> None:
    session = play(Session.match(3), (1, 1), (0, 2))
    assert session.score == (2, 1) and session.crawford


def test_no_crawford_game_when_the_match_is_won_outright() -> None:
    session = play(Session.match(3), (0, 3))
    assert session.is_over and not session.crawford


def test_no_crawford_game_in_a_one_point_match() -> None:
    session = Session.match(1)
    assert not session.crawford
    assert session.game is not None and session.game.options.cube


def test_crawford_game_of_a_two_point_match_at_1_0() -> None:
    session = play(Session.match(2), (0, 1))
    assert session.crawford


def test_crawford_flag_in_the_match_id() -> None:
    session = play(Session.match(5), (0, 4))
    # GNU Backgammon shows the flag as soon as the game that made it 4-0 has ended.
    assert MatchState.from_id(session.match_id()).crawford
    session = session.next_game()
    assert MatchState.from_id(session.match_id()).crawford
    session = opened(session, 1)
    state = MatchState.from_id(session.match_id())
    assert (state.crawford, state.match_length, state.score) == (True, 5, (4, 0))
    session = session.act(lambda g: g.resign(0, 1).accept(1)).next_game()
    assert not MatchState.from_id(session.match_id()).crawford


def test_match_id_carries_length_and_score() -> None:
    session = play(Session.match(9), (0, 2), (1, 3), (1, 1)).next_game()
    state = MatchState.from_id(session.match_id())
    assert (state.match_length, state.score, state.jacoby) == (9, (2, 4), False)


def test_match_id_after_the_match_is_won() -> None:
    session = play(Session.match(3), (1, 2), (1, 2))
    state = MatchState.from_id(session.match_id())
    assert (state.score, state.crawford, state.game_state) == ((0, 4), False, 3)


# -- money options are for money play only -------------------------------------------------------

MONEY_OPTIONS = GameOptions(auto_doubles=2, beavers=True, jacoby=True)


def test_money_options_are_disabled_in_matches() -> None:
    session = Session.match(7)
    assert session.game is not None
    assert session.game.options == GameOptions()
    assert session.game_options() == GameOptions()


def test_no_automatic_doubles_in_a_match() -> None:
    session = Session.match(7).act(lambda g: g.opening_throw(4, 4))
    assert session.game is not None and session.game.cube == Cube(1, None)


def test_no_beavers_in_a_match() -> None:
    session = opened(Session.match(7), 0).act(lambda g: g.double(1))
    with pytest.raises(CubeError):
        session.act(lambda g: g.beaver(0))


def test_no_jacoby_rule_in_a_match() -> None:
    # An undoubled gammon in a match counts 2. A Game is built only by actions; the board is
    # replaced to reach the last checker without playing a whole game.
    session = opened(Session.match(7), 0)

    def bear_off(g: Game) -> Game:
        g = dataclasses.replace(g, position=Position.from_points({1: 1}, {6: 15}))
        return g.roll(1, (2, 1)).move(1, [(1, 0)])

    session = session.act(bear_off)
    assert session.score == (0, 2)
    assert MatchState.from_id(session.match_id()).jacoby is False


# -- money play ----------------------------------------------------------------------------------


def test_money_play_applies_its_options() -> None:
    session = Session.money(MONEY_OPTIONS)
    assert not session.is_match
    assert session.game is not None and session.game.options == MONEY_OPTIONS
    session = session.act(lambda g: g.opening_throw(5, 5))
    assert session.game is not None and session.game.cube == Cube(2, None)


def test_money_play_always_has_the_cube() -> None:
    session = Session.money(GameOptions(cube=False))
    assert session.game is not None and session.game.options.cube


def test_money_play_accumulates_without_end() -> None:
    session = Session.money(GameOptions(beavers=True))
    for i in range(12):
        session = resigns(session, i % 2, 3) if i % 3 else drops(session, 0)
        assert session.winner is None and not session.is_over
        session = session.next_game()
    assert session.score == (12, 16)
    assert len(session.results) == 12
    assert not session.crawford and not session.post_crawford


def test_money_play_beaver_drop_scores_the_value_before_the_beaver() -> None:
    session = opened(Session.money(GameOptions(beavers=True)), 0)
    session = session.act(lambda g: g.double(1).beaver(0).drop(1))
    assert session.score == (2, 0)


def test_money_match_id_carries_the_session_score_and_jacoby() -> None:
    session = play(Session.money(MONEY_OPTIONS), (1, 4), (0, 1)).next_game()
    state = MatchState.from_id(session.match_id())
    assert (state.match_length, state.score, state.jacoby) == (0, (1, 4), True)
