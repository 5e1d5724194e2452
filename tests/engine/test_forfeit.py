"""Forfeits (docs/rules.md §10): a player who leaves in mid-game or runs out of time loses at the
worst result still possible for them, × the cube as it stands; in a match they lose the match;
at a chouette each cube concerned is judged on its own. Before a game's first throw, leaving
costs nothing.

Each test sets a game up (played from the start, or with the board set as GNU Backgammon's "set
board" does), forfeits, and checks the result, the ledger and who plays on.
"""

from __future__ import annotations

import dataclasses

import pytest

from engine.chouette import Chouette, ChouetteOptions, CubeMode, SettledBy, Side
from engine.errors import (
    ChouetteError,
    GameOverError,
    IllegalActionError,
    NotYourTurnError,
)
from engine.game import Cube, Game, GameOptions, GameResult, Phase, Result, forfeit_result
from engine.match import Match
from engine.matchid import RESIGNED, MatchState
from engine.position import Position
from tests.engine.chouettes import race, turn

OPENING_31 = [(8, 5), (6, 5)]

# -- helpers ------------------------------------------------------------------------------------


def started(options: GameOptions | None = None) -> Game:
    """Player 0 has won the opening with 31 and played 8/5 6/5: player 1 is on roll."""
    return Game.new(options).opening_throw(3, 1).move(0, OPENING_31)


def at(position: Position | str, turn: int, game: Game | None = None) -> Game:
    """``game`` (default: a fresh one) with ``turn`` to roll in ``position`` (seen by ``turn``;
    a Position or a GNU Backgammon Position ID): the board is set, cube and options kept."""
    pos = Position.from_id(position) if isinstance(position, str) else position
    base = game if game is not None else Game.new()
    return dataclasses.replace(base, position=pos, turn=turn, phase=Phase.ROLL, dice=None)


def table(*players: str, **options: object) -> Chouette:
    """A chouette with this line, its first game set up (no opening throw yet)."""
    return Chouette.from_line(players, ChouetteOptions(**options)).start_game()  # type: ignore[arg-type]


def team_opens(ch: Chouette) -> Chouette:
    """The captain wins the opening throw with 3-1 and makes the 5 point: the box is on roll.
    The team has no blot, so a box's 2-1 next cannot hit."""
    ch = ch.opening_throw(1, 3)
    return ch.move(ch.acting_captain, OPENING_31)


def settled(ch: Chouette, member: str) -> tuple[SettledBy, str, Result, int, int]:
    """How ``member``'s game against the box ended: how, winner, result, cube, points."""
    s = ch.game.member(member).settlement
    return (s.how, s.winner, s.result, s.cube, s.points)


# -- the worst result still possible ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("mine", "worst"),
    [
        ({24: 2, 13: 5, 8: 3, 6: 5}, Result.BACKGAMMON),  # the start: back checkers on 24
        ({"bar": 1, 6: 14}, Result.BACKGAMMON),  # none off, one on the bar
        ({19: 1, 6: 14}, Result.BACKGAMMON),  # none off, one in the opponent's home board
        ({18: 1, 6: 14}, Result.GAMMON),  # none off, none back: the 18 point is outside it
        ({6: 10, 12: 5}, Result.GAMMON),
        ({20: 1, 6: 13}, Result.SINGLE),  # one off: a single, even with a checker back
        ({1: 1}, Result.SINGLE),
    ],
)
def test_worst_result_still_possible(mine: dict[int | str, int], worst: Result) -> None:
    pos = Position.from_points(mine, {2: 2})
    assert forfeit_result(pos) == worst
    # It is judged on the forfeiting side, whoever is on roll.
    game = at(pos.swap(), turn=1)
    assert game.forfeit(0).result == GameResult(1, worst, 1, "forfeit")


def test_forfeit_from_a_position_id() -> None:
    # 4HPwATDgc/ABMA is the start: each side still has two checkers on its 24 point.
    game = at("4HPwATDgc/ABMA", turn=0)
    assert game.forfeit(1).result == GameResult(0, Result.BACKGAMMON, 1, "forfeit")
    assert game.forfeit(1).result.points == 3


# -- a two-player game -----------------------------------------------------------------------------


def _in_phase(phase: str) -> Game:
    """A game in each phase in which someone may forfeit; both sides keep their back checkers."""
    beavers = GameOptions(beavers=True)
    return {
        "opening": Game.new(),
        "move": Game.new().opening_throw(3, 1),
        "roll": started(),
        "doubled": started().double(1),
        "beavered": started(beavers).double(1).beaver(0),
        "resignation": started().resign(1, 2),
    }[phase]


@pytest.mark.parametrize("phase", ["opening", "move", "roll", "doubled", "beavered", "resignation"])
@pytest.mark.parametrize("player", [0, 1])
def test_either_player_forfeits_in_any_phase(phase: str, player: int) -> None:
    game = _in_phase(phase).forfeit(player)
    assert game.phase is Phase.OVER and not game.is_in_play
    # Any pending double (or beaver) or resignation offer lapses: the cube counts at 1.
    assert game.pending is None and game.resignation is None
    assert game.result == GameResult(1 - player, Result.BACKGAMMON, 1, "forfeit")
    assert game.allowed(0) == game.allowed(1) == frozenset()
    with pytest.raises(GameOverError, match="cannot forfeit: the game is over"):
        game.forfeit(1 - player)


def test_a_double_still_unanswered_does_not_count() -> None:
    game = started().double(1).take(0)  # cube 2, owned by player 0; player 1 on roll
    game = game.roll(1, (6, 5)).move(1, [(24, 18), (18, 13)])  # one back checker left on 24
    game = game.double(0)  # player 0 redoubles to 4: player 1 to answer
    assert game.pending is not None and game.pending.value == 4
    assert game.forfeit(1).result == GameResult(0, Result.BACKGAMMON, 2, "forfeit")
    assert game.forfeit(1).result.points == 6
    # The doubler may forfeit too: at the cube as it stands.
    assert game.forfeit(0).result == GameResult(1, Result.BACKGAMMON, 2, "forfeit")


def test_jacoby_a_forfeit_counts_single_on_a_cube_never_taken() -> None:
    jacoby = GameOptions(jacoby=True)
    assert started(jacoby).forfeit(1).result == GameResult(0, Result.SINGLE, 1, "forfeit")
    # A double offered but not yet taken does not lift it.
    assert started(jacoby).double(1).forfeit(1).result.result is Result.SINGLE
    # Once a double is taken, the worst result counts in full.
    taken = started(jacoby).double(1).take(0)
    assert taken.forfeit(1).result == GameResult(0, Result.BACKGAMMON, 2, "forfeit")


def test_jacoby_automatic_doubles_do_not_lift_it_but_count_in_the_cube() -> None:
    game = Game.new(GameOptions(jacoby=True, auto_doubles=1)).opening_throw(4, 4)
    assert game.phase is Phase.OPENING and game.cube == Cube(2, None)
    assert game.is_in_play  # the tie turned the cube: the game has begun
    assert game.forfeit(0).result == GameResult(1, Result.SINGLE, 2, "forfeit")


def test_is_in_play_from_the_first_throw_until_the_end() -> None:
    assert not Game.new().is_in_play
    assert not Game.new().opening_throw(4, 4).is_in_play  # a tie that changed nothing
    assert Game.new().opening_throw(3, 1).is_in_play
    assert not started().forfeit(0).is_in_play


def test_forfeit_by_no_such_player() -> None:
    for bad in (2, -1, True):
        with pytest.raises(IllegalActionError, match="no such player"):
            started().forfeit(bad)  # type: ignore[arg-type]


def test_a_forfeited_game_has_a_match_id_as_a_resignation() -> None:
    game = started().forfeit(1)
    state = MatchState.from_id(game.match_id())
    assert (state.game_state, state.resigned, state.turn) == (RESIGNED, 3, 0)


# -- money play and matches ------------------------------------------------------------------------


def opened(match: Match, first: int) -> Match:
    """``first`` wins the opening with 31 and plays 8/5 6/5; the other player is on roll."""
    dice = (3, 1) if first == 0 else (1, 3)
    return match.act(lambda g: g.opening_throw(*dice).move(first, OPENING_31))


def resigns(match: Match, loser: int, level: int) -> Match:
    """A game of ``match`` that ``loser`` resigns at ``level`` before their first roll."""
    match = opened(match, 1 - loser)
    return match.act(lambda g: g.resign(loser, level).accept(1 - loser))


def test_money_play_a_forfeit_ends_only_the_game() -> None:
    money = Match.money()
    assert not money.in_play
    with pytest.raises(IllegalActionError, match="no game is in play; leaving now costs nothing"):
        money.forfeit(0)
    money = opened(money, 0)
    assert money.in_play
    money = money.forfeit(1)
    assert money.score == (3, 0)
    assert money.results[-1] == GameResult(0, Result.BACKGAMMON, 1, "forfeit")
    assert money.winner is None and not money.is_over and not money.in_play
    money = opened(money.next_game(), 1).forfeit(0)  # play goes on at the next game
    assert money.score == (3, 3)


def test_money_play_forfeit_under_jacoby_and_automatic_doubles() -> None:
    money = Match.money(GameOptions(jacoby=True, auto_doubles=2))
    money = money.act(lambda g: g.opening_throw(2, 2).opening_throw(1, 1).opening_throw(6, 5))
    assert money.game.cube == Cube(4, None)
    money = money.forfeit(0)
    assert money.results[-1] == GameResult(1, Result.SINGLE, 4, "forfeit")
    assert money.score == (0, 4)


def test_match_forfeit_the_opponent_wins_even_from_behind() -> None:
    match = Match.to(5)
    match = resigns(match, 0, 2)
    match = resigns(match.next_game(), 0, 2)
    assert match.score == (0, 4) and match.crawford
    match = opened(match.next_game(), 0)  # the Crawford game: player 1 on roll, far ahead
    match = match.forfeit(1)
    assert match.is_over and match.winner == 0 and match.forfeited_by == 1
    assert match.score == (3, 4)  # the game in play is scored; the match goes to player 0
    assert match.results[-1] == GameResult(0, Result.BACKGAMMON, 1, "forfeit")
    assert not match.in_play and not match.crawford
    with pytest.raises(GameOverError, match="the match is over"):
        match.next_game()
    with pytest.raises(GameOverError, match="cannot forfeit: the match is over"):
        match.forfeit(0)
    with pytest.raises(GameOverError, match="the match is over"):
        match.act(lambda g: g)


def test_match_forfeit_between_games_still_forfeits_the_match() -> None:
    match = resigns(Match.to(7), 1, 1)
    assert match.score == (1, 0) and match.game.is_over
    assert match.in_play  # the match has begun: leaving now forfeits it
    after = match.forfeit(0)
    assert (after.winner, after.score, len(after.results)) == (1, (1, 0), 1)
    # The same after the next game is set up, before its first throw: no game is scored.
    after = match.next_game().forfeit(0)
    assert (after.winner, after.score, after.game.phase) == (1, (1, 0), Phase.OPENING)
    with pytest.raises(GameOverError, match="the match is over"):
        after.act(lambda g: g.opening_throw(3, 1))


def test_match_before_its_first_throw_leaving_costs_nothing() -> None:
    match = Match.to(3)
    assert not match.in_play
    with pytest.raises(IllegalActionError, match="the match has not begun"):
        match.forfeit(1)
    # A forfeit through the game alone is the caller's business; the match refuses it.
    assert match.act(lambda g: g.opening_throw(5, 2)).in_play


def test_match_forfeit_by_no_such_player() -> None:
    with pytest.raises(IllegalActionError, match="no such player: 2"):
        opened(Match.to(3), 0).forfeit(2)


# -- a chouette: a team member --------------------------------------------------------------------


def test_member_forfeits_their_own_cube_a_double_pending_does_not_count() -> None:
    ch = team_opens(table("ann", "bob", "cat", "dan"))
    ch = ch.double("ann", ["cat"]).take("cat")  # cat's cube: 2, cat's
    ch = turn(ch)
    ch = ch.double("cat")  # cat redoubles to 4: the box to answer
    assert ch.has_game_in_play("cat")
    ch = ch.leave("cat")
    # The team still has two checkers on its 24 point: a backgammon, on cat's cube as it
    # stood (2); the redouble lapses.
    assert settled(ch, "cat") == (SettledBy.FORFEIT, "ann", Result.BACKGAMMON, 2, 6)
    assert "cat" not in ch.players and "cat" in ch.ledger
    assert dict(ch.ledger) == {"ann": 6, "bob": 0, "cat": -6, "dan": 0}
    assert ch.waiting_for() == () and ch.members_in_game == ("bob", "dan")
    assert ch.game.member("cat").pending is None
    assert not ch.has_game_in_play("cat")


@pytest.mark.parametrize(
    ("team", "worst"),
    [
        ({"bar": 1, 6: 10, 5: 4}, Result.BACKGAMMON),
        ({22: 1, 6: 10, 5: 4}, Result.BACKGAMMON),
        ({14: 1, 6: 10, 5: 4}, Result.GAMMON),
        ({14: 1, 6: 10}, Result.SINGLE),
    ],
)
def test_member_forfeits_at_the_worst_result_for_the_team_board(
    team: dict[int | str, int], worst: Result
) -> None:
    ch = team_opens(table("ann", "bob", "cat"))
    ch = ch.double("ann", ["cat"]).take("cat")  # cat's cube 2, bob's 1
    ch = race(turn(ch), team, {1: 5, 2: 5})
    ch = ch.forfeit("cat")  # out of time: cat stays at the table
    assert settled(ch, "cat") == (SettledBy.FORFEIT, "ann", worst, 2, 2 * worst)
    assert ch.line == ("ann", "bob", "cat") and ch.role("cat") == "out"
    assert ch.ledger["cat"] == -2 * worst and ch.ledger.total() == 0
    assert ch.in_progress and ch.on_roll == "bob"
    with pytest.raises(NotYourTurnError, match="cat has forfeited and takes no further part"):
        ch.forfeit("cat")
    # Leaving afterwards costs nothing more.
    assert dict(ch.leave("cat").ledger) == dict(ch.ledger)


def test_captain_forfeits_the_next_member_plays_on_multiple_cubes() -> None:
    ch = team_opens(table("ann", "bob", "cat", "dan"))
    ch = turn(ch)
    ch = ch.roll("bob", (6, 5))  # the captain has rolled, then runs out of time
    ch = ch.forfeit("bob")
    assert settled(ch, "bob") == (SettledBy.FORFEIT, "ann", Result.BACKGAMMON, 1, 3)
    # cat plays the roll bob made; the rotation still counts bob as the captain.
    assert (ch.acting_captain, ch.on_roll, ch.game.dice) == ("cat", "cat", (6, 5))
    assert ch.game.captain == "bob"
    ch = ch.move("cat", [(24, 18), (18, 13)])
    ch = ch.leave("cat").leave("dan")  # the last members leave: the game is over
    assert ch.game.is_over
    assert dict(ch.ledger) == {"ann": 9, "bob": -3, "cat": -3, "dan": -3}
    # cat's forfeit came after 24/13: one back checker still on 24, a backgammon all the same.
    assert settled(ch, "cat")[2] is Result.BACKGAMMON
    # The box beat the captain: it keeps the box, and bob goes to the bottom.
    assert ch.line == ("ann", "bob")


def test_captain_forfeits_single_cube_captaincy_passes_for_good() -> None:
    ch = team_opens(table("ann", "bob", "cat", "dan", cubes=CubeMode.SINGLE))
    ch = turn(ch)
    ch = ch.forfeit("bob")
    assert ch.game.captain == "cat" and ch.acting_captain == "cat"
    assert ch.line == ("ann", "cat", "dan", "bob")  # bob stays, at the bottom
    assert settled(ch, "bob") == (SettledBy.FORFEIT, "ann", Result.BACKGAMMON, 1, 3)
    # Leaving instead takes the captain out of the line as well.
    ch = team_opens(table("ann", "bob", "cat", "dan", cubes=CubeMode.SINGLE))
    ch = turn(ch).leave("bob")
    assert ch.line == ("ann", "cat", "dan") and ch.game.captain == "cat"


def test_captain_forfeits_while_answering_the_box_double_single_cube() -> None:
    ch = team_opens(table("ann", "bob", "cat", "dan", cubes=CubeMode.SINGLE))
    ch = ch.double("ann")  # the box doubles the team: each member answers alone
    ch = ch.forfeit("bob")  # bob's answer lapses: his cube counts at 1
    assert settled(ch, "bob") == (SettledBy.FORFEIT, "ann", Result.BACKGAMMON, 1, 3)
    assert ch.waiting_for() == ("cat", "dan")
    assert ch.game.captain == "bob"  # the captaincy passes once everyone has answered
    ch = ch.take("cat").take("dan")
    assert ch.game.captain == "cat" and ch.line == ("ann", "cat", "dan", "bob")
    assert ch.game.member("cat").cube == Cube(2, Side.TEAM)


def test_member_forfeit_jacoby_per_cube() -> None:
    ch = team_opens(table("ann", "bob", "cat", jacoby=True))
    ch = ch.double("ann", ["bob"]).take("bob")  # bob's cube turned; cat's never
    ch = race(turn(ch), {14: 1, 6: 10, 5: 4}, {2: 5, 3: 5})  # a gammon still possible
    ch = ch.forfeit("cat")
    assert settled(ch, "cat") == (SettledBy.FORFEIT, "ann", Result.SINGLE, 1, 1)
    ch = ch.forfeit("bob")
    assert settled(ch, "bob") == (SettledBy.FORFEIT, "ann", Result.GAMMON, 2, 4)
    assert ch.game.is_over and dict(ch.ledger) == {"ann": 5, "bob": -4, "cat": -1}


# -- a chouette: the box ------------------------------------------------------------------------


def test_box_forfeits_to_every_remaining_member_each_on_their_cube() -> None:
    ch = team_opens(table("ann", "bob", "cat", "dan", "eve"))
    ch = ch.double("ann", ["bob", "cat"]).take("bob").drop("cat")  # cat is out, paying 1
    ch = turn(ch)
    ch = ch.double("bob").take("ann", "bob")  # bob's cube: 4, the box's
    ch = ch.double("dan").take("ann", "dan")  # dan's cube: 2, the box's
    ch = ch.double("eve")  # eve's double waits: her cube counts at 1
    # The box has borne off nothing and has no checker back: a gammon at worst.
    ch = race(ch, {1: 3, 2: 3, 3: 3, 4: 3, 5: 3}, {6: 10, 8: 5})
    ch = ch.leave("ann")
    assert ch.game.is_over and not ch.in_progress
    assert settled(ch, "bob") == (SettledBy.FORFEIT, "bob", Result.GAMMON, 4, 8)
    assert settled(ch, "dan") == (SettledBy.FORFEIT, "dan", Result.GAMMON, 2, 4)
    assert settled(ch, "eve") == (SettledBy.FORFEIT, "eve", Result.GAMMON, 1, 2)
    assert settled(ch, "cat") == (SettledBy.DROP, "ann", Result.SINGLE, 1, 1)
    assert dict(ch.ledger) == {"ann": -13, "bob": 8, "cat": -1, "dan": 4, "eve": 2}
    assert ch.ledger.total() == 0
    # The captain beat the box: bob takes the box; ann has left the line.
    assert ch.line == ("bob", "cat", "dan", "eve")
    assert "eve  out: forfeit, ann paid eve 2" in ch.text()


def test_box_forfeits_on_time_and_stays_a_drop_offer_lapses() -> None:
    ch = team_opens(table("ann", "bob", "cat", "dan"))
    ch = ch.resign("ann", 1, ["cat"])  # the box offers cat a single: it lapses
    ch = ch.forfeit("ann")
    # The box still has back checkers on its 24 point: a backgammon to each member.
    for member in ("bob", "cat", "dan"):
        assert settled(ch, member) == (SettledBy.FORFEIT, member, Result.BACKGAMMON, 1, 3)
    assert dict(ch.ledger) == {"ann": -9, "bob": 3, "cat": 3, "dan": 3}
    assert ch.line == ("bob", "cat", "dan", "ann")  # the old box goes to the bottom


def test_box_forfeits_to_members_left_after_the_captain_dropped() -> None:
    ch = team_opens(table("ann", "bob", "cat", jacoby=True))
    ch = ch.double("ann").take("cat").drop("bob")  # bob (captain) dropped: cat acts
    ch = race(ch, {5: 15}, {19: 1, 6: 14})  # the box has a checker in the team's home
    ch = ch.forfeit("ann")
    # cat's cube was turned: the backgammon counts in full.
    assert settled(ch, "cat") == (SettledBy.FORFEIT, "cat", Result.BACKGAMMON, 2, 6)
    assert dict(ch.ledger) == {"ann": -5, "bob": -1, "cat": 6}
    # Multiple cubes: the captain who began the game dropped, so the box beat him.
    assert ch.line == ("ann", "cat", "bob")


# -- a chouette: leaving before the first throw, and between games -------------------------------


def test_leaving_before_the_opening_throw_costs_nothing() -> None:
    ch = table("ann", "bob", "cat", "dan")
    assert not ch.has_game_in_play("cat")
    with pytest.raises(IllegalActionError, match="game 1 has not had its first throw"):
        ch.forfeit("cat")
    ch = ch.leave("cat")
    assert dict(ch.ledger) == dict.fromkeys(("ann", "bob", "cat", "dan"), 0)
    assert ch.game.number == 1 and ch.members_in_game == ("bob", "dan")
    # The box leaves: the game is set up again from the line, the captain in the box.
    ch = ch.leave("ann")
    assert (ch.box, ch.captain, ch.members_in_game) == ("bob", "dan", ("dan",))
    assert ch.game.phase is Phase.OPENING and ch.game.settlements == ()
    # Down to one player: the game ends unplayed, with nobody paid and no rotation.
    ch = ch.leave("dan")
    assert ch.game.is_over and ch.game.settlements == () and ch.line == ("bob",)
    assert ch.ledger.total() == 0 and set(ch.ledger.values()) == {0}
    assert "over, not played" in ch.text()
    with pytest.raises(ChouetteError, match="it takes two players"):
        ch.start_game()
    ch = ch.join("eve").start_game()
    assert (ch.game.number, ch.box, ch.captain) == (2, "bob", "eve")


def test_leaving_before_the_first_throw_seats_a_newcomer_in_the_game_set_up_again() -> None:
    ch = table("ann", "bob", "cat").join("dan")
    assert ch.role("dan") == "waiting"
    ch = ch.leave("cat")
    assert ch.members_in_game == ("bob", "dan")


def test_an_opening_tie_that_turned_the_cubes_has_begun_the_game() -> None:
    ch = table("ann", "bob", "cat", auto_doubles=1).opening_throw(4, 4)
    assert ch.game.phase is Phase.OPENING and ch.has_game_in_play("cat")
    ch = ch.leave("cat")
    assert settled(ch, "cat") == (SettledBy.FORFEIT, "ann", Result.BACKGAMMON, 2, 6)


def test_leaving_between_games_costs_nothing() -> None:
    ch = team_opens(table("ann", "bob", "cat"))
    ch = ch.double("ann").drop("bob").drop("cat")  # the game is over
    assert not ch.in_progress and not ch.has_game_in_play("ann")
    before = dict(ch.ledger)
    ch = ch.leave("ann")
    assert dict(ch.ledger) == before and ch.line == ("cat", "bob")
    with pytest.raises(IllegalActionError, match="bob cannot forfeit: game 1 is over"):
        ch.forfeit("bob")


def test_a_player_who_joined_during_the_game_leaves_at_no_cost() -> None:
    ch = turn(team_opens(table("ann", "bob", "cat"))).join("dan")
    assert not ch.has_game_in_play("dan")
    with pytest.raises(NotYourTurnError, match="dan joined during game 1"):
        ch.forfeit("dan")
    after = ch.leave("dan")
    assert dict(after.ledger) == dict(ch.ledger) and after.game == ch.game


def test_forfeit_by_someone_not_at_the_table() -> None:
    with pytest.raises(ChouetteError, match="'zed' cannot forfeit: not at this chouette"):
        team_opens(table("ann", "bob", "cat")).forfeit("zed")


# -- a two-player chouette is a money game ---------------------------------------------------------


@pytest.mark.parametrize("jacoby", [False, True])
@pytest.mark.parametrize("forfeiter", [0, 1])
def test_two_player_chouette_forfeits_as_a_money_game(jacoby: bool, forfeiter: int) -> None:
    g = Game.new(GameOptions(jacoby=jacoby)).opening_throw(5, 3)
    ch = table("ann", "bob", jacoby=jacoby).opening_throw(5, 3)
    g, ch = g.move(0, [(8, 3), (6, 3)]), ch.move("ann", [(8, 3), (6, 3)])
    g, ch = g.double(1).take(0), ch.double("bob").take("ann")
    g, ch = g.roll(1, (6, 4)), ch.roll("bob", (6, 4))
    g, ch = g.move(1, [(24, 18), (18, 14)]), ch.move("bob", [(24, 18), (18, 14)])
    names = ("ann", "bob")
    g, ch = g.forfeit(forfeiter), ch.forfeit(names[forfeiter])
    s = ch.game.settlements[-1]
    assert (s.winner, s.result, s.cube) == (names[g.result.winner], g.result.result, g.result.cube)
    assert s.points == g.result.points == 6
