"""One game between two players: docs/rules.md §2 (start), §4 (end and value), §5 (cube), §6 (money
options), and the errors for every action that is not allowed now.

Each test sets a game up (from the start or from a position), acts, and asserts; each is named
after the rule it checks.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Action
from engine.errors import (
    CubeError,
    GameOverError,
    IllegalActionError,
    IllegalPlayError,
    InvalidDiceError,
    NotYourTurnError,
    ResignationError,
)
from engine.game import (
    Cube,
    Game,
    GameOptions,
    Phase,
    Result,
    classify_win,
)
from engine.position import CHECKERS, Position

OPENING_31 = [(8, 5), (6, 5)]
"""The usual play of an opening 31."""


def started(options: GameOptions | None = None) -> Game:
    """Player 0 has won the opening with 31 and played 8/5 6/5: player 1 is on roll."""
    return Game.new(options).opening_throw(3, 1).move(0, OPENING_31)


def at(position: Position | str, turn: int = 0, game: Game | None = None) -> Game:
    """``game`` (by default a fresh one with the cube centred) with ``turn`` to roll in
    ``position`` (seen by ``turn``; a Position or a Position ID).

    A Game is only ever built by actions, as its events are replayed; reaching a bear-off by
    playing a whole game would bury the rule under test, so the board is replaced instead (as a
    "set board" does in GNU Backgammon). Cube and options come from ``game``.
    """
    pos = Position.from_id(position) if isinstance(position, str) else position
    base = game if game is not None else Game.new()
    return dataclasses.replace(base, position=pos, turn=turn, phase=Phase.ROLL, dice=None)


# Bear-offs: player 0 has one checker left on the 1 point; player 1 (the loser) has...
ONE_OFF = Position.from_points({1: 1}, {6: 14})  # ...one checker borne off: a single
NONE_OFF = Position.from_points({1: 1}, {6: 10, 12: 5})  # ...none off, none in 0's home: gammon
IN_HOME = Position.from_points({1: 1}, {6: 14, 19: 1})  # ...one in 0's home board: backgammon
ON_BAR = Position.from_points({1: 1}, {6: 14, "bar": 1})  # ...one on the bar: backgammon


def bear_off_last(game: Game) -> Game:
    """Player on roll throws 21 and bears off their last checker."""
    return game.roll(game.turn, (2, 1)).move(game.turn, [(1, 0)])


# -- §2 starting a game --------------------------------------------------------------------------


def test_opening_throw_ties_throw_again() -> None:
    game = Game.new().opening_throw(4, 4)
    assert game.phase is Phase.OPENING
    assert game.dice is None
    assert game.cube == Cube(1, None)
    game = game.opening_throw(2, 2).opening_throw(5, 2)
    assert game.phase is Phase.MOVE


@pytest.mark.parametrize(("die0", "die1", "first"), [(6, 1, 0), (1, 6, 1), (3, 5, 1), (5, 4, 0)])
def test_higher_opening_die_moves_first_with_both_numbers(die0: int, die1: int, first: int) -> None:
    game = Game.new().opening_throw(die0, die1)
    assert game.turn == first
    assert game.phase is Phase.MOVE
    assert game.dice == (max(die0, die1), min(die0, die1))
    assert game.to_act == first
    assert all(len(p.moves) == 2 for p in game.legal_plays())


def test_first_play_is_never_a_double() -> None:
    for die0 in range(1, 7):
        for die1 in range(1, 7):
            game = Game.new().opening_throw(die0, die1)
            if die0 == die1:
                assert game.phase is Phase.OPENING
            else:
                assert game.dice is not None and game.dice[0] != game.dice[1]


def test_opening_winner_plays_both_numbers_then_turn_passes() -> None:
    game = Game.new().opening_throw(1, 6).move(1, [(13, 7), (8, 7)])
    assert (game.turn, game.phase, game.dice) == (0, Phase.ROLL, None)
    assert game.last_play is not None and game.last_play.moves == ((13, 7), (8, 7))


def test_automatic_doubles_turn_the_cube_on_each_tie_up_to_the_limit() -> None:
    game = Game.new(GameOptions(auto_doubles=2))
    game = game.opening_throw(3, 3)
    assert game.cube == Cube(2, None)
    game = game.opening_throw(6, 6)
    assert game.cube == Cube(4, None)
    game = game.opening_throw(1, 1)  # the limit is reached: a tie throws again, no more
    assert (game.cube, game.auto_doubles, game.phase) == (Cube(4, None), 2, Phase.OPENING)
    game = game.opening_throw(2, 1)
    assert game.cube == Cube(4, None)
    assert game.phase is Phase.MOVE


def test_automatic_doubles_leave_the_cube_centred_for_either_player() -> None:
    game = Game.new(GameOptions(auto_doubles=1)).opening_throw(5, 5).opening_throw(3, 1)
    game = game.move(0, OPENING_31)
    assert game.cube == Cube(2, None)
    assert game.can_double(1)
    assert game.double(1).take(0).cube == Cube(4, 0)
    assert not game.cube_taken


def test_automatic_doubles_off_by_default() -> None:
    assert Game.new().opening_throw(2, 2).cube == Cube(1, None)


def test_automatic_doubles_limit_must_be_0_to_6() -> None:
    with pytest.raises(IllegalActionError):
        GameOptions(auto_doubles=7)
    with pytest.raises(IllegalActionError):
        GameOptions(auto_doubles=-1)


# -- turns ---------------------------------------------------------------------------------------


def test_turns_alternate() -> None:
    game = started()
    assert game.turn == 1
    game = game.roll(1, (6, 5)).move(1, [(24, 18), (18, 13)])
    assert game.turn == 0
    game = game.roll(0, (4, 2)).move(0, [(8, 4), (6, 4)])
    assert game.turn == 1
    assert game.phase is Phase.ROLL
    assert game.position == game.position_for(1)
    assert game.position_for(0) == game.position.swap()


def test_no_legal_play_loses_the_turn() -> None:
    # The player on roll has a checker on the bar and 66 cannot enter on the opponent's 6 point.
    game = at("4HPwATDgc/ABUA", turn=1)
    after = game.roll(1, (6, 6))
    assert (after.turn, after.phase, after.dice) == (0, Phase.ROLL, None)
    assert after.position == game.position.swap()
    assert after.last_play is not None and after.last_play.moves == ()


def test_roll_with_a_legal_play_waits_for_the_play() -> None:
    game = at("4HPwATDgc/ABUA", turn=1).roll(1, (5, 5))
    assert (game.turn, game.phase, game.dice) == (1, Phase.MOVE, (5, 5))


def test_illegal_play_is_refused_and_changes_nothing() -> None:
    game = started().roll(1, (6, 5))
    with pytest.raises(IllegalPlayError):
        game.move(1, [(24, 18)])  # must use both dice
    with pytest.raises(IllegalPlayError):
        game.move(1, [(6, 1), (6, 0)])  # cannot bear off from the start
    assert game.phase is Phase.MOVE


def test_play_from_legal_plays_is_accepted() -> None:
    game = started().roll(1, (6, 5))
    chosen = game.legal_plays()[0]
    after = game.play(1, chosen)
    assert after.position == chosen.result.swap()


# -- §4 end of a game and its value --------------------------------------------------------------


def test_first_to_bear_off_all_fifteen_wins() -> None:
    game = bear_off_last(at(ONE_OFF))
    assert game.is_over and game.phase is Phase.OVER
    assert game.result is not None
    assert (game.result.winner, game.result.how) == (0, "bear_off")
    assert game.position.off(0) == CHECKERS
    assert game.to_act is None


def test_single_when_the_loser_has_borne_off_a_checker() -> None:
    result = bear_off_last(at(ONE_OFF)).result
    assert result is not None and (result.result, result.points) == (Result.SINGLE, 1)


def test_gammon_when_the_loser_has_borne_off_none() -> None:
    result = bear_off_last(at(NONE_OFF)).result
    assert result is not None and (result.result, result.points) == (Result.GAMMON, 2)


def test_backgammon_with_a_loser_checker_in_the_winners_home_board() -> None:
    result = bear_off_last(at(IN_HOME)).result
    assert result is not None and (result.result, result.points) == (Result.BACKGAMMON, 3)


def test_backgammon_with_a_loser_checker_on_the_bar() -> None:
    result = bear_off_last(at(ON_BAR)).result
    assert result is not None and (result.result, result.points) == (Result.BACKGAMMON, 3)


def test_player_1_wins_by_bearing_off_too() -> None:
    result = bear_off_last(at(NONE_OFF, turn=1)).result
    assert result is not None and (result.winner, result.result) == (1, Result.GAMMON)


def test_borne_off_checker_of_the_loser_prevents_backgammon() -> None:
    # Seen by the winner, all 15 off; the loser has one off and one in the winner's home board.
    assert classify_win(Position.from_points({}, {6: 13, 19: 1})) is Result.SINGLE
    assert classify_win(Position.from_points({}, {6: 14, 19: 1})) is Result.BACKGAMMON


@pytest.mark.parametrize(("board", "result"), [(ONE_OFF, 1), (NONE_OFF, 2), (IN_HOME, 3)])
def test_game_value_is_result_times_cube(board: Position, result: int) -> None:
    # Player 1 doubles, player 0 takes (cube 2, player 0's); player 0 redoubles, 1 takes (4).
    game = at(board, turn=1).double(1).take(0)
    game = at(board, turn=0, game=game).double(0).take(1)
    assert game.cube == Cube(4, 1)
    over = bear_off_last(game)
    assert over.result is not None
    assert (over.result.cube, over.result.points) == (4, result * 4)


# -- §4 resignation ------------------------------------------------------------------------------


@pytest.mark.parametrize("level", [1, 2, 3])
def test_accepted_resignation_ends_the_game_at_its_value_times_cube(level: int) -> None:
    game = started().double(1).take(0).roll(1, (6, 5)).move(1, [(24, 18), (18, 13)])
    game = game.resign(0, level)
    assert (game.phase, game.to_act) == (Phase.RESIGNATION, 1)
    assert game.allowed(1) == {Action.ACCEPT, Action.DECLINE}
    over = game.accept(1)
    assert over.result is not None
    assert (over.result.winner, over.result.how) == (1, "resign")
    assert (over.result.result, over.result.cube, over.result.points) == (level, 2, 2 * level)


def test_declined_resignation_play_goes_on() -> None:
    game = started().resign(1, 2).decline(0)
    assert (game.phase, game.turn, game.resignation) == (Phase.ROLL, 1, None)
    assert game.roll(1, (6, 5)).phase is Phase.MOVE


def test_declined_resignation_may_be_followed_by_a_double() -> None:
    assert started().resign(1, 1).decline(0).double(1).phase is Phase.DOUBLED


def test_resignation_only_before_rolling() -> None:
    game = started().roll(1, (6, 5))
    with pytest.raises(ResignationError):
        game.resign(1, 1)


def test_resignation_only_on_your_turn() -> None:
    with pytest.raises(NotYourTurnError):
        started().resign(0, 1)


def test_resignation_not_while_a_double_is_pending() -> None:
    game = started().double(1)
    with pytest.raises(ResignationError):
        game.resign(0, 1)
    with pytest.raises(ResignationError):
        game.resign(1, 1)


@pytest.mark.parametrize("level", [0, 4, -1, True, "2", None])
def test_resignation_level_must_be_single_gammon_or_backgammon(level: object) -> None:
    with pytest.raises(ResignationError):
        started().resign(1, level)  # type: ignore[arg-type]


def test_accept_own_resignation_is_refused() -> None:
    game = started().resign(1, 1)
    with pytest.raises(NotYourTurnError):
        game.accept(1)
    with pytest.raises(NotYourTurnError):
        game.decline(1)


def test_accept_with_no_resignation_offered_is_refused() -> None:
    with pytest.raises(ResignationError):
        started().accept(0)
    with pytest.raises(ResignationError):
        started().decline(0)


def test_no_roll_or_double_while_a_resignation_waits() -> None:
    game = started().resign(1, 1)
    with pytest.raises(IllegalActionError):
        game.roll(1, (3, 1))
    with pytest.raises(CubeError):
        game.double(1)


# -- §5 the doubling cube ------------------------------------------------------------------------


def test_cube_starts_centred_at_one() -> None:
    assert Game.new().cube == Cube(1, None)


def test_double_only_before_rolling() -> None:
    game = started()
    assert game.can_double(1)
    assert Action.DOUBLE in game.allowed(1)
    rolled = game.roll(1, (6, 5))
    assert not rolled.can_double(1)
    with pytest.raises(CubeError):
        rolled.double(1)


def test_double_only_on_your_turn() -> None:
    with pytest.raises(NotYourTurnError):
        started().double(0)


def test_double_from_the_centre_by_either_player() -> None:
    game = started()
    assert game.double(1).pending is not None
    game = game.roll(1, (6, 5)).move(1, [(24, 18), (18, 13)])
    assert game.double(0).pending is not None


def test_take_doubles_the_stakes_and_the_taker_owns_the_cube() -> None:
    game = started().double(1)
    assert (game.phase, game.to_act, game.cube) == (Phase.DOUBLED, 0, Cube(1, None))
    assert game.allowed(0) == {Action.TAKE, Action.DROP}
    game = game.take(0)
    assert game.cube == Cube(2, 0)
    assert (game.phase, game.turn, game.to_act) == (Phase.ROLL, 1, 1)
    assert game.cube_taken


def test_nobody_doubles_twice_in_a_row() -> None:
    game = started().double(1).take(0).roll(1, (6, 5)).move(1, [(24, 18), (18, 13)])
    game = game.roll(0, (4, 2)).move(0, [(8, 4), (6, 4)])
    assert game.turn == 1 and not game.can_double(1)
    assert Action.DOUBLE not in game.allowed(1)
    with pytest.raises(CubeError):
        game.double(1)


def test_only_the_cube_owner_redoubles() -> None:
    game = started().double(1).take(0).roll(1, (6, 5)).move(1, [(24, 18), (18, 13)])
    game = game.double(0)
    assert game.pending is not None and game.pending.value == 4
    assert game.take(1).cube == Cube(4, 1)


def test_drop_ends_the_game_paying_the_value_before_the_double() -> None:
    game = started().double(1).take(0).roll(1, (6, 5)).move(1, [(24, 18), (18, 13)])
    over = game.double(0).drop(1)
    assert over.is_over and over.result is not None
    assert (over.result.winner, over.result.how) == (0, "drop")
    assert (over.result.result, over.result.cube, over.result.points) == (Result.SINGLE, 2, 2)


def test_first_double_dropped_pays_one() -> None:
    over = started().double(1).drop(0)
    assert over.result is not None and (over.result.winner, over.result.points) == (1, 1)


def test_cube_has_no_upper_limit() -> None:
    # Each player redoubles on their turn; the cube's faces stop at 64, its value does not.
    game = started()
    for _ in range(10):
        player = game.turn
        game = game.double(player).take(1 - player)
        game = game.roll(player, (2, 1))
        game = game.play(player, game.legal_plays()[0])
    assert game.cube.value == 1024
    assert game.cube.owner == game.turn


def test_take_with_no_double_pending_is_refused() -> None:
    with pytest.raises(CubeError):
        started().take(0)
    with pytest.raises(CubeError):
        started().drop(0)
    with pytest.raises(CubeError):
        Game.new().take(0)


def test_doubler_cannot_answer_their_own_double() -> None:
    game = started().double(1)
    for answer in (game.take, game.drop):
        with pytest.raises(NotYourTurnError):
            answer(1)


def test_no_second_double_while_one_is_pending() -> None:
    game = started().double(1)
    with pytest.raises(CubeError):
        game.double(1)
    with pytest.raises(CubeError):
        game.double(0)


def test_no_roll_while_a_double_is_pending() -> None:
    with pytest.raises(IllegalActionError):
        started().double(1).roll(1, (3, 1))


# -- §6 beavers ----------------------------------------------------------------------------------

BEAVERS = GameOptions(beavers=True)


def test_beaver_redoubles_at_once_keeping_the_cube() -> None:
    game = started(BEAVERS).double(1)
    assert Action.BEAVER in game.allowed(0)
    game = game.beaver(0)
    assert (game.phase, game.to_act) == (Phase.DOUBLED, 1)
    assert game.allowed(1) == {Action.TAKE, Action.DROP}
    game = game.take(1)
    assert game.cube == Cube(4, 0)
    assert (game.phase, game.turn) == (Phase.ROLL, 1)  # the doubler still rolls


def test_beaver_dropped_pays_the_value_before_the_beaver() -> None:
    over = started(BEAVERS).double(1).beaver(0).drop(1)
    assert over.result is not None
    assert (over.result.winner, over.result.how, over.result.points) == (0, "drop", 2)


def test_beaver_of_a_redouble() -> None:
    game = started(BEAVERS).double(1).take(0).roll(1, (6, 5)).move(1, [(24, 18), (18, 13)])
    game = game.double(0).beaver(1)
    assert game.take(0).cube == Cube(8, 1)
    over = game.drop(0)
    assert over.result is not None and (over.result.winner, over.result.points) == (1, 4)


def test_no_second_beaver() -> None:
    game = started(BEAVERS).double(1).beaver(0)
    assert Action.BEAVER not in game.allowed(1)
    with pytest.raises(CubeError):
        game.beaver(1)


def test_beaver_only_by_the_doubled_player() -> None:
    with pytest.raises(NotYourTurnError):
        started(BEAVERS).double(1).beaver(1)


def test_beaver_refused_when_beavers_are_disabled() -> None:
    game = started().double(1)
    assert Action.BEAVER not in game.allowed(0)
    with pytest.raises(CubeError):
        game.beaver(0)


def test_beaver_with_no_double_pending_is_refused() -> None:
    with pytest.raises(CubeError):
        started(BEAVERS).beaver(0)


# -- §6 the Jacoby rule --------------------------------------------------------------------------

JACOBY = GameOptions(jacoby=True)


def test_jacoby_gammon_counts_single_without_a_double_taken() -> None:
    result = bear_off_last(at(NONE_OFF, game=Game.new(JACOBY))).result
    assert result is not None and (result.result, result.points) == (Result.SINGLE, 1)


def test_jacoby_backgammon_counts_single_without_a_double_taken() -> None:
    result = bear_off_last(at(ON_BAR, game=Game.new(JACOBY))).result
    assert result is not None and result.result is Result.SINGLE


def test_jacoby_lifted_once_a_double_is_taken() -> None:
    game = at(NONE_OFF, turn=1, game=Game.new(JACOBY)).double(1).take(0)
    result = bear_off_last(at(NONE_OFF, turn=0, game=game)).result
    assert result is not None and (result.result, result.points) == (Result.GAMMON, 4)


def test_jacoby_not_lifted_by_automatic_doubles() -> None:
    # docs/rules.md §6 Choice: automatic doubles do not lift the Jacoby rule.
    game = Game.new(GameOptions(jacoby=True, auto_doubles=1)).opening_throw(4, 4)
    game = at(NONE_OFF, game=game.opening_throw(3, 1))
    result = bear_off_last(game).result
    assert result is not None and (result.result, result.cube, result.points) == (1, 2, 2)


def test_jacoby_not_lifted_by_a_dropped_double() -> None:
    assert started(JACOBY).double(1).drop(0).cube_taken is False


def test_jacoby_with_beaver_taken_gammons_count() -> None:
    game = at(IN_HOME, turn=1, game=Game.new(GameOptions(jacoby=True, beavers=True)))
    game = game.double(1).beaver(0).take(1)
    assert game.cube == Cube(4, 0)
    result = bear_off_last(at(IN_HOME, turn=0, game=game)).result
    assert result is not None and (result.result, result.points) == (Result.BACKGAMMON, 12)


def test_jacoby_counts_a_resigned_gammon_as_a_single() -> None:
    # The engine applies the Jacoby rule to resignations too (GNU Backgammon pays the offer).
    over = started(JACOBY).resign(1, 2).accept(0)
    assert over.result is not None and over.result.points == 1


def test_without_jacoby_gammons_count_on_a_centred_cube() -> None:
    result = bear_off_last(at(NONE_OFF)).result
    assert result is not None and result.points == 2


# -- errors for actions not allowed now ----------------------------------------------------------


def test_move_before_rolling_is_refused() -> None:
    with pytest.raises(IllegalActionError) as info:
        started().move(1, [(24, 18), (18, 13)])
    assert type(info.value) is IllegalActionError


def test_roll_twice_is_refused() -> None:
    with pytest.raises(IllegalActionError) as info:
        started().roll(1, (6, 5)).roll(1, (6, 5))
    assert type(info.value) is IllegalActionError


def test_roll_out_of_turn_is_refused() -> None:
    with pytest.raises(NotYourTurnError):
        started().roll(0, (6, 5))


def test_move_out_of_turn_is_refused() -> None:
    with pytest.raises(NotYourTurnError):
        started().roll(1, (6, 5)).move(0, [(24, 18), (18, 13)])


def test_actions_before_the_opening_throw_are_refused() -> None:
    game = Game.new()
    assert game.to_act is None
    with pytest.raises(IllegalActionError):
        game.roll(0, (3, 1))
    with pytest.raises(IllegalActionError):
        game.move(0, OPENING_31)
    with pytest.raises(CubeError):
        game.double(0)
    with pytest.raises(ResignationError):
        game.resign(0, 1)


def test_opening_throw_only_once() -> None:
    with pytest.raises(IllegalActionError):
        started().opening_throw(3, 1)


@pytest.mark.parametrize("dice", [(0, 3), (7, 1), (3,), (3, 1, 2), (True, 2), ("3", "1"), None])
def test_dice_must_be_two_numbers_from_1_to_6(dice: object) -> None:
    with pytest.raises(InvalidDiceError):
        started().roll(1, dice)  # type: ignore[arg-type]


def test_bad_opening_dice_are_refused() -> None:
    with pytest.raises(InvalidDiceError):
        Game.new().opening_throw(0, 3)


@pytest.mark.parametrize("player", [2, -1])
def test_no_such_player(player: int) -> None:
    with pytest.raises(IllegalActionError):
        started().roll(player, (6, 5))
    with pytest.raises(IllegalActionError):
        started().double(player)


GAME_ACTIONS: dict[str, Callable[[Game], Game]] = {
    "opening throw": lambda g: g.opening_throw(3, 1),
    "roll": lambda g: g.roll(0, (3, 1)),
    "move": lambda g: g.move(0, OPENING_31),
    "double": lambda g: g.double(0),
    "take": lambda g: g.take(1),
    "drop": lambda g: g.drop(1),
    "beaver": lambda g: g.beaver(1),
    "resign": lambda g: g.resign(0, 1),
    "accept": lambda g: g.accept(1),
    "decline": lambda g: g.decline(1),
}

FINISHED = {
    "bear off": bear_off_last(at(ONE_OFF, game=Game.new(BEAVERS))),
    "drop": started(BEAVERS).double(1).drop(0),
    "resign": started(BEAVERS).resign(1, 1).accept(0),
}


@pytest.mark.parametrize("over", FINISHED.values(), ids=FINISHED.keys())
@pytest.mark.parametrize("action", GAME_ACTIONS.values(), ids=GAME_ACTIONS.keys())
def test_every_action_after_the_game_is_over_is_refused(
    over: Game, action: Callable[[Game], Game]
) -> None:
    assert over.allowed(0) == over.allowed(1) == frozenset()
    with pytest.raises(GameOverError):
        action(over)


# -- property: random games ----------------------------------------------------------------------

options_st = st.builds(
    GameOptions,
    auto_doubles=st.integers(0, 2),
    beavers=st.booleans(),
    jacoby=st.booleans(),
)

FORBIDDEN: dict[Action, Callable[[Game, int], Game]] = {
    Action.ROLL: lambda g, p: g.roll(p, (3, 1)),
    Action.MOVE: lambda g, p: g.move(p, OPENING_31),
    Action.DOUBLE: lambda g, p: g.double(p),
    Action.TAKE: lambda g, p: g.take(p),
    Action.DROP: lambda g, p: g.drop(p),
    Action.BEAVER: lambda g, p: g.beaver(p),
    Action.RESIGN: lambda g, p: g.resign(p, 1),
    Action.ACCEPT: lambda g, p: g.accept(p),
    Action.DECLINE: lambda g, p: g.decline(p),
}


def check_invariants(game: Game) -> None:
    game.position.validate()
    for side in game.position:
        assert sum(side) == CHECKERS
    value = game.cube.value
    assert value >= 1 and value & (value - 1) == 0
    assert game.cube.owner in (None, 0, 1)


def random_step(game: Game, rng: random.Random) -> Game:
    """One random action by the player who must act, among those allowed."""
    if game.phase is Phase.OPENING:
        return game.opening_throw(rng.randint(1, 6), rng.randint(1, 6))
    player = game.to_act
    assert player is not None
    allowed = game.allowed(player)
    # Every action not in allowed() is refused, by either player, and changes nothing.
    for p in (0, 1):
        for action in set(FORBIDDEN) - (game.allowed(p) if p == player else set()):
            with pytest.raises(IllegalActionError):
                FORBIDDEN[action](game, p)
    if game.phase is Phase.ROLL:
        if Action.DOUBLE in allowed and rng.random() < 0.04:
            return game.double(player)
        if rng.random() < 0.004:
            return game.resign(player, rng.randint(1, 3))
        return game.roll(player, (rng.randint(1, 6), rng.randint(1, 6)))
    if game.phase is Phase.MOVE:
        plays = game.legal_plays()
        assert plays, "a roll with no legal play passes the turn at once"
        return game.play(player, rng.choice(plays))
    if game.phase is Phase.DOUBLED:
        answers = {Action.TAKE: game.take, Action.DROP: game.drop, Action.BEAVER: game.beaver}
        answer = rng.choices(list(answers), [6, 2, 1])[0]
        return answers[answer if answer in allowed else Action.TAKE](player)
    assert game.phase is Phase.RESIGNATION
    return game.accept(player) if rng.random() < 0.5 else game.decline(player)


@settings(max_examples=60, deadline=None)
@given(options=options_st, seed=st.integers(0, 2**32 - 1))
def test_random_games_end_conserve_checkers_and_score_result_times_cube(
    options: GameOptions, seed: int
) -> None:
    rng = random.Random(seed)
    game = Game.new(options)
    for _ in range(5000):
        if game.is_over:
            break
        before = game
        game = random_step(game, rng)
        check_invariants(game)
        if game.cube != before.cube and before.phase is not Phase.OPENING:
            assert before.phase is Phase.DOUBLED  # only a take moves the cube in play
    assert game.is_over, "a random game should end"
    result = game.result
    assert result is not None
    assert result.points == int(result.result) * result.cube
    if result.how == "bear_off":
        assert game.position.off(0) == CHECKERS and result.winner == game.turn
        expected = classify_win(game.position)
        if options.jacoby and not game.cube_taken:
            expected = Result.SINGLE
        assert (result.result, result.cube) == (expected, game.cube.value)
    elif result.how == "drop":
        assert before.pending is not None and result.result is Result.SINGLE
        assert result.cube == before.pending.drop_value
        assert result.winner != before.pending.responder
    else:
        assert result.how == "resign" and before.resignation is not None
        assert result.cube == game.cube.value and result.winner != before.resignation.by
        level = before.resignation.level
        if options.jacoby and not game.cube_taken:
            level = Result.SINGLE
        assert result.result == level
