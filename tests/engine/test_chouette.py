"""Scenario tests for the chouette (docs/rules.md §8), one per rule, plus the error cases."""

from __future__ import annotations

import pytest

from engine.actions import Action
from engine.chouette import (
    Chouette,
    ChouetteOptions,
    Consultation,
    CubeMode,
    LineOrder,
    SettledBy,
    Side,
)
from engine.errors import (
    ChouetteError,
    CubeError,
    GameOverError,
    IllegalActionError,
    IllegalPlayError,
    InvalidDiceError,
    NotYourTurnError,
    ResignationError,
)
from engine.game import Cube, Game, GameOptions, Phase, Result
from tests.engine.chouettes import race, turn

SINGLE = ChouetteOptions(cubes=CubeMode.SINGLE)

# -- helpers ----------------------------------------------------------------------------------


def table(*players: str, **options: object) -> Chouette:
    """A chouette with this line, its first game started (no opening throw yet)."""
    return Chouette.from_line(players, ChouetteOptions(**options)).start_game()  # type: ignore[arg-type]


def box_opens(ch: Chouette) -> Chouette:
    """The box wins the opening throw with 6-1 and makes its 7 point: the team is on roll."""
    ch = ch.opening_throw(6, 1)
    return ch.move(ch.game.box, [(13, 7), (8, 7)])


def team_opens(ch: Chouette) -> Chouette:
    """The captain wins the opening throw with 3-1 and makes the 5 point: the box is on roll."""
    ch = ch.opening_throw(1, 3)
    return ch.move(ch.acting_captain, [(8, 5), (6, 5)])


GAMMON_FOR_TEAM = ({1: 2}, {6: 15})
"""The team bears off its last two checkers with any roll; the box has none off: a gammon."""
GAMMON_FOR_BOX = ({6: 15}, {1: 2})


def cube(ch: Chouette, member: str) -> Cube:
    return ch.game.member(member).cube


def assert_zero_sum(ch: Chouette) -> None:
    assert ch.ledger.total() == 0


# -- the line -----------------------------------------------------------------------------------


def test_line_order_rethrows_among_the_tied_players_only() -> None:
    ch = Chouette.new(["ann", "bob", "cat", "dan", "eve"])
    assert ch.ordering.to_throw == ("ann", "bob", "cat", "dan", "eve")
    assert ch.line == () and ch.box is None
    ch = ch.order_throw({"ann": 4, "bob": 6, "cat": 4, "dan": 6, "eve": 1})
    assert ch.ordering.ties == (("bob", "dan"), ("ann", "cat"))
    assert ch.ordering.to_throw == ("bob", "dan", "ann", "cat")
    with pytest.raises(ChouetteError, match=r"only the tied players throw again .*, not eve"):
        ch.order_throw({"bob": 1, "dan": 2, "ann": 3, "cat": 4, "eve": 6})
    with pytest.raises(ChouetteError, match="waiting for the throw of cat"):
        ch.order_throw({"bob": 1, "dan": 2, "ann": 3})
    with pytest.raises(InvalidDiceError, match="dan's die"):
        ch.order_throw({"bob": 1, "dan": 7, "ann": 3, "cat": 4})
    ch = ch.order_throw({"bob": 2, "dan": 5, "ann": 3, "cat": 3})  # ann and cat tie again
    assert ch.ordering.ties == (("ann", "cat"),)
    assert ch.allowed("ann") == {Action.ORDER_THROW, Action.LEAVE}
    assert ch.allowed("dan") == {Action.LEAVE}
    with pytest.raises(ChouetteError, match="still being thrown for"):
        ch.start_game()
    ch = ch.order_throw({"ann": 1, "cat": 2})
    assert ch.ordering is None
    assert ch.line == ("dan", "bob", "cat", "ann", "eve")
    assert (ch.box, ch.captain) == ("dan", "bob")
    with pytest.raises(ChouetteError, match="line is settled"):
        ch.order_throw({"ann": 1})


def test_line_order_join_and_leave_while_throwing() -> None:
    ch = Chouette.new(["ann", "bob", "cat"]).join("dan")
    assert ch.ordering.to_throw == ("ann", "bob", "cat")  # dan goes to the bottom
    assert ch.players == ("ann", "bob", "cat", "dan")
    ch = ch.order_throw({"ann": 5, "bob": 5, "cat": 2})
    ch = ch.leave("bob")  # the tie is resolved by bob leaving
    assert ch.ordering is None
    assert ch.line == ("ann", "cat", "dan")
    assert LineOrder.start(["x"]).is_settled
    assert Chouette.new(["solo"]).line == ("solo",)


def test_line_roles_box_captain_team() -> None:
    ch = table("ann", "bob", "cat", "dan")
    assert (ch.box, ch.captain, ch.acting_captain) == ("ann", "bob", "bob")
    assert ch.members_in_game == ("bob", "cat", "dan")
    assert [ch.role(p) for p in ("ann", "bob", "cat", "zed")] == [
        "box",
        "captain",
        "member",
        "absent",
    ]


# -- a full four-player game with multiple cubes ----------------------------------------------


def test_four_players_multiple_cubes_box_doubles_three_captain_drops_later() -> None:
    ch = team_opens(table("ann", "bob", "cat", "dan"))  # ann is the box, on roll
    assert ch.on_roll == "ann"
    ch = ch.double("ann", ["bob", "cat", "dan"])
    assert ch.waiting_for() == ("bob", "cat", "dan")
    with pytest.raises(CubeError, match="cannot roll: waiting for bob's answer"):
        ch.roll("ann", (3, 1))
    ch = ch.take("bob").take("cat").drop("dan")  # two take, one drops
    assert dict(ch.ledger) == {"ann": 1, "bob": 0, "cat": 0, "dan": -1}
    assert ch.game.member("dan").settlement.how is SettledBy.DROP
    assert ch.allowed("dan") == {Action.LEAVE}
    assert not ch.may_advise("dan")
    assert cube(ch, "bob") == Cube(2, Side.TEAM) and cube(ch, "cat") == Cube(2, Side.TEAM)
    ch = turn(ch, (6, 5))  # the box plays; the team is on roll
    ch = ch.double("bob").take("ann", "bob")  # the captain redoubles his own cube
    assert cube(ch, "bob") == Cube(4, Side.BOX)
    ch = turn(ch, (4, 2))  # bob rolls and plays for the team
    ch = ch.double("ann", ["bob"]).drop("bob")  # later the captain drops at 8: pays 4
    assert dict(ch.ledger) == {"ann": 5, "bob": -4, "cat": 0, "dan": -1}
    assert ch.acting_captain == "cat" and ch.captain == "bob"  # captain for the rotation
    assert ch.role("cat") == "captain"
    ch = turn(ch, (3, 3))  # the box rolls; now the team is on roll, cat acting
    assert ch.on_roll == "cat"
    with pytest.raises(NotYourTurnError, match="bob has dropped"):
        ch.roll("bob", (3, 1))
    ch = race(ch, *GAMMON_FOR_TEAM)
    ch = ch.roll("cat", (2, 1)).move("cat", [(1, 0), (1, 0)])  # cat bears off: a gammon
    assert ch.game.is_over
    s = ch.game.member("cat").settlement
    assert (s.winner, s.loser, s.how, s.result, s.cube, s.points) == (
        "cat",
        "ann",
        SettledBy.BEAR_OFF,
        Result.GAMMON,
        2,
        4,
    )
    # The box lost to cat and beat bob and dan; it beat the captain who began (bob), so it
    # keeps the box, bob goes to the bottom, cat is the next captain.
    assert dict(ch.ledger) == {"ann": 1, "bob": -4, "cat": 4, "dan": -1}
    assert_zero_sum(ch)
    assert ch.line == ("ann", "cat", "dan", "bob")
    assert [str(s) for s in ch.history[-1].settlements] == [
        "dan pays ann 1 (drop, dan's cube)",
        "bob pays ann 4 (drop, bob's cube)",
        "ann pays cat 4 (bear_off, cat's cube)",
    ]
    assert ch.allowed("cat") == {Action.START_GAME, Action.LEAVE}
    ch = ch.start_game()
    assert (ch.box, ch.captain) == ("ann", "cat")


def test_box_loses_to_captain_captain_becomes_box() -> None:
    ch = box_opens(table("ann", "bob", "cat", "dan"))
    ch = race(ch, *GAMMON_FOR_TEAM)
    ch = ch.roll("bob", (6, 6)).move("bob", [(1, 0), (1, 0)])
    assert dict(ch.ledger) == {"ann": -6, "bob": 2, "cat": 2, "dan": 2}
    assert ch.line == ("bob", "cat", "dan", "ann")


def test_rotation_multiple_cubes_captain_who_won_on_a_box_drop_takes_the_box() -> None:
    ch = box_opens(table("ann", "bob", "cat"))
    ch = ch.double("bob").drop("ann")  # the box drops the captain's double: bob won
    assert ch.acting_captain == "cat"
    ch = race(ch, *GAMMON_FOR_BOX)
    ch = ch.roll("cat", (2, 1))
    ch = ch.play("cat", ch.legal_plays()[0])
    ch = ch.roll("ann", (2, 1)).move("ann", [(1, 0), (1, 0)])  # the box beats cat
    assert dict(ch.ledger) == {"ann": 1, "bob": 1, "cat": -2}
    # Multiple cubes: the captain who began the game (bob) beat the box: bob is the box.
    assert ch.line == ("bob", "cat", "ann")


# -- single cube -------------------------------------------------------------------------------


def test_single_cube_captain_drops_while_others_take_captaincy_passes_for_good() -> None:
    ch = team_opens(table("ann", "bob", "cat", "dan", "eve", cubes=CubeMode.SINGLE))
    with pytest.raises(CubeError, match="with a single cube the box doubles the whole team"):
        ch.double("ann", ["bob"])
    ch = ch.double("ann")  # the whole team
    assert ch.waiting_for() == ("bob", "cat", "dan", "eve")
    ch = ch.drop("bob")
    assert ch.captain == "bob"  # not yet: the others are still answering
    ch = ch.drop("cat").take("eve")
    assert ch.line == ("ann", "bob", "cat", "dan", "eve")
    ch = ch.take("dan")  # all answers in: dan is the first taker in line order
    assert (ch.captain, ch.acting_captain) == ("dan", "dan")
    assert ch.line == ("ann", "dan", "cat", "eve", "bob")  # bob to the bottom, for good
    assert dict(ch.ledger) == {"ann": 2, "bob": -1, "cat": -1, "dan": 0, "eve": 0}
    assert cube(ch, "dan") == cube(ch, "eve") == Cube(2, Side.TEAM)
    ch = turn(ch)
    assert ch.on_roll == "dan"
    with pytest.raises(CubeError, match="eve cannot double: with a single cube the captain"):
        ch.double("eve")
    ch = ch.double("dan")  # the captain redoubles for the whole team
    assert ch.targets("ann", Action.TAKE) == {"dan", "eve"}
    ch = ch.take("ann")  # against the whole team at once
    assert cube(ch, "dan") == cube(ch, "eve") == Cube(4, Side.BOX)
    ch = race(ch, *GAMMON_FOR_TEAM)
    ch = ch.roll("dan", (5, 4)).move("dan", [(1, 0), (1, 0)])
    assert dict(ch.ledger) == {"ann": -14, "bob": -1, "cat": -1, "dan": 8, "eve": 8}
    # Single cube: the captain at the end (dan) beat the box: dan is the box.
    assert ch.line == ("dan", "cat", "eve", "bob", "ann")


def test_single_cube_whole_team_drops_box_beats_captain() -> None:
    ch = team_opens(table("ann", "bob", "cat", "dan", cubes=CubeMode.SINGLE))
    ch = ch.double("ann").drop("bob").drop("cat").drop("dan")
    assert ch.game.is_over
    assert ch.line == ("ann", "cat", "dan", "bob")
    assert dict(ch.ledger) == {"ann": 3, "bob": -1, "cat": -1, "dan": -1}


def test_single_cube_box_drops_the_team_double() -> None:
    ch = box_opens(table("ann", "bob", "cat", "dan", cubes=CubeMode.SINGLE))
    assert ch.targets("bob", Action.DOUBLE) == {"bob"}
    assert ch.targets("cat", Action.DOUBLE) == frozenset()
    ch = ch.double("bob")
    assert ch.waiting_for() == ("ann",)
    ch = ch.drop("ann", "cat")  # naming any member: the answer is for the whole team
    assert ch.game.is_over
    assert dict(ch.ledger) == {"ann": -3, "bob": 1, "cat": 1, "dan": 1}
    assert ch.line == ("bob", "cat", "dan", "ann")


def test_single_cube_box_beavers_and_each_member_answers() -> None:
    ch = box_opens(table("ann", "bob", "cat", "dan", cubes=CubeMode.SINGLE, beavers=True))
    ch = ch.double("bob").beaver("ann")
    assert ch.waiting_for() == ("bob", "cat", "dan")
    ch = ch.take("cat").drop("bob").take("dan")  # bob pays 2, the value before the beaver
    assert dict(ch.ledger) == {"ann": 2, "bob": -2, "cat": 0, "dan": 0}
    assert cube(ch, "cat") == Cube(4, Side.BOX)
    assert ch.captain == "cat" and ch.line == ("ann", "cat", "dan", "bob")
    ch = turn(ch)
    ch = ch.double("ann")
    with pytest.raises(CubeError, match="with a single cube the team does not beaver"):
        ch.beaver("cat")


# -- joining and leaving ------------------------------------------------------------------------


def test_newcomer_joining_mid_game_plays_only_from_the_next_game() -> None:
    ch = box_opens(table("ann", "bob", "cat"))
    ch = ch.join("dan")
    assert ch.line == ("ann", "bob", "cat", "dan")
    assert ch.members_in_game == ("bob", "cat")
    assert ch.role("dan") == "waiting"
    assert ch.allowed("dan") == {Action.LEAVE}
    assert not ch.may_advise("dan")
    with pytest.raises(NotYourTurnError, match="dan joined during game 1 and plays from the next"):
        ch.double("dan")
    ch = ch.double("bob").drop("ann", "bob").double("cat").drop("ann")
    assert ch.game.is_over
    # bob beat the box: bob is the box; dan (joined) is above ann, who goes to the bottom.
    assert ch.line == ("bob", "cat", "dan", "ann")
    ch = ch.start_game()
    assert ch.members_in_game == ("cat", "dan", "ann")
    assert dict(ch.ledger) == {"ann": -2, "bob": 1, "cat": 1, "dan": 0}


def test_leaving_between_games_and_rejoining() -> None:
    ch = Chouette.from_line(["ann", "bob", "cat"]).leave("ann")
    assert (ch.box, ch.captain) == ("bob", "cat")
    ch = ch.join("ann")
    assert ch.line == ("bob", "cat", "ann")
    with pytest.raises(ChouetteError, match="ann cannot join: already at this chouette"):
        ch.join("ann")
    with pytest.raises(ChouetteError, match="'zed' cannot leave: not at this chouette"):
        ch.leave("zed")
    with pytest.raises(ChouetteError, match="non-empty string"):
        ch.join("")


# -- a five-player evening ----------------------------------------------------------------------


def test_five_player_evening_the_box_changes_hands() -> None:
    ch = Chouette.new(["ann", "bob", "cat", "dan", "eve"])
    ch = ch.order_throw({"ann": 3, "bob": 6, "cat": 1, "dan": 5, "eve": 2})
    assert ch.line == ("bob", "dan", "ann", "eve", "cat")

    # Game 1: the box beats everyone (they all drop): bob keeps the box.
    ch = team_opens(ch.start_game())
    ch = ch.double("bob", ["dan", "ann", "eve", "cat"])
    for p in ("dan", "ann", "eve", "cat"):
        ch = ch.drop(p)
    assert ch.line == ("bob", "ann", "eve", "cat", "dan")

    # Game 2: the captain (ann) beats the box by a gammon; frank joins in mid-game.
    ch = box_opens(ch.start_game()).join("frank")
    ch = race(ch, *GAMMON_FOR_TEAM)
    ch = ch.roll("ann", (3, 2)).move("ann", [(1, 0), (1, 0)])
    assert ch.line == ("ann", "eve", "cat", "dan", "frank", "bob")

    # Game 3: the box drops eve's double, then beats the rest by resignation.
    ch = box_opens(ch.start_game())
    assert ch.members_in_game == ("eve", "cat", "dan", "frank", "bob")
    ch = ch.double("eve").drop("ann")
    for p in ("cat", "dan", "frank", "bob"):
        ch = ch.resign(p, 1).accept("ann", p)
    # The captain (eve) beat the box: eve is the box.
    assert ch.line == ("eve", "cat", "dan", "frank", "bob", "ann")

    # Game 4: the new box (eve) beats the captain (cat) on a bear-off: eve stays.
    ch = team_opens(ch.start_game())
    ch = race(ch, *GAMMON_FOR_BOX)
    ch = ch.roll("eve", (1, 1)).move("eve", [(1, 0), (1, 0)])
    assert ch.line == ("eve", "dan", "frank", "bob", "ann", "cat")

    assert [g.box for g in ch.history] == ["bob", "bob", "ann", "eve"]
    assert dict(ch.ledger) == {  # game 1, 2, 3, 4
        "ann": -1 + 2 + (4 - 1) - 2,
        "bob": 4 - 8 - 1 - 2,
        "cat": -1 + 2 - 1 - 2,
        "dan": -1 + 2 - 1 - 2,
        "eve": -1 + 2 + 1 + 10,
        "frank": -1 - 2,
    }
    assert_zero_sum(ch)


# -- money options ------------------------------------------------------------------------------


def test_automatic_doubles_turn_every_member_cube_up_to_the_limit() -> None:
    ch = table("ann", "bob", "cat", auto_doubles=2)
    ch = ch.opening_throw(3, 3).opening_throw(5, 5).opening_throw(2, 2)  # the third is over
    assert cube(ch, "bob") == cube(ch, "cat") == Cube(4, None)
    assert ch.game.auto_doubles == 2
    ch = ch.opening_throw(1, 4).move("bob", [(24, 23), (13, 9)])  # bob plays 4-1
    assert ch.targets("ann", Action.DOUBLE) == {"bob", "cat"}
    ch = ch.double("ann", ["cat"]).drop("cat")
    assert dict(ch.ledger) == {"ann": 4, "bob": 0, "cat": -4}
    assert not ch.game.member("bob").turned  # automatic doubles do not turn the cube
    plain = table("ann", "bob").opening_throw(3, 3)
    assert cube(plain, "bob") == Cube(1, None)


def test_beaver_on_a_member_cube() -> None:
    ch = team_opens(table("ann", "bob", "cat", beavers=True))
    ch = ch.double("ann", ["bob", "cat"])
    ch = ch.beaver("cat")  # cat beavers: the box answers the beaver on cat's cube
    assert ch.waiting_for() == ("bob", "ann")
    with pytest.raises(CubeError, match="already beavered"):
        ch.beaver("ann", "cat")
    with pytest.raises(NotYourTurnError, match="the answer on cat's cube is ann's"):
        ch.take("cat")
    ch = ch.take("bob").take("ann")  # only one double waits for the box: no name needed
    assert cube(ch, "cat") == Cube(4, Side.TEAM)
    assert cube(ch, "bob") == Cube(2, Side.TEAM)
    ch = turn(ch)
    ch = ch.double("bob").beaver("ann", "bob").drop("bob")  # bob drops the beaver: pays 4
    assert dict(ch.ledger) == {"ann": 4, "bob": -4, "cat": 0}
    no = team_opens(table("ann", "bob"))
    with pytest.raises(CubeError, match="beavers are not allowed"):
        no.double("ann").beaver("bob")


def test_jacoby_per_cube_gammon_counts_only_on_a_turned_cube() -> None:
    ch = team_opens(table("ann", "bob", "cat", "dan", jacoby=True, beavers=True))
    ch = ch.double("ann", ["cat"]).take("cat")
    ch = turn(ch)
    ch = race(ch, *GAMMON_FOR_TEAM)
    ch = ch.roll("bob", (4, 4)).move("bob", [(1, 0), (1, 0)])
    results = {s.member: (s.result, s.points) for s in ch.game.settlements}
    assert results == {
        "bob": (Result.SINGLE, 1),
        "cat": (Result.GAMMON, 4),
        "dan": (Result.SINGLE, 1),
    }


def test_jacoby_applies_to_accepted_resignations_per_cube() -> None:
    ch = box_opens(table("ann", "bob", "cat", jacoby=True))
    ch = ch.double("cat").take("ann", "cat")
    ch = turn(ch)
    ch = ch.resign("ann", 2).accept("bob").accept("cat")
    results = {s.member: (s.result, s.points) for s in ch.game.settlements}
    assert results == {"bob": (Result.SINGLE, 1), "cat": (Result.GAMMON, 4)}


def test_box_must_take_half_house_rule() -> None:
    ch = box_opens(table("ann", "bob", "cat", "dan", box_must_take_half=True))
    ch = ch.double("bob").double("cat").double("dan")
    assert ch.targets("ann", Action.DROP) == {"bob", "cat", "dan"}
    ch2 = ch.take("ann", "bob")  # one taken: at least one more of the other two
    ch2 = ch2.drop("ann", "cat")
    assert ch2.targets("ann", Action.DROP) == frozenset()
    with pytest.raises(CubeError, match="must take at least 2 of them or drop them all"):
        ch2.drop("ann", "dan")
    ch2 = ch2.take("ann", "dan")
    assert ch2.game.batch == ()
    # Dropping first keeps both ways open; after two drops the box must drop them all.
    ch3 = ch.drop("ann", "bob").drop("ann", "cat")
    assert ch3.targets("ann", Action.TAKE) == frozenset()
    with pytest.raises(CubeError, match="must take at least 2"):
        ch3.take("ann", "dan")
    ch3 = ch3.drop("ann", "dan")
    assert ch3.game.is_over
    # A redouble is not an initial cube, and the rule is off by default.
    free = box_opens(table("ann", "bob", "cat", "dan"))
    free = free.double("bob").double("cat").double("dan")
    free = free.take("ann", "bob").drop("ann", "cat").drop("ann", "dan")
    assert dict(free.ledger) == {"ann": -2, "bob": 0, "cat": 1, "dan": 1}


def test_box_must_take_half_counts_only_doubles_pending_together() -> None:
    ch = box_opens(table("ann", "bob", "cat", "dan", box_must_take_half=True))
    ch = ch.double("bob").drop("ann")  # alone: no batch
    ch = ch.double("cat").double("dan")
    ch = ch.drop("ann", "cat").drop("ann", "dan")  # a batch of two, all dropped: allowed
    assert ch.game.is_over


# -- consultation --------------------------------------------------------------------------------


def test_consultation_free() -> None:
    ch = box_opens(table("ann", "bob", "cat", "dan"))
    assert [ch.may_advise(p) for p in ("ann", "bob", "cat", "dan", "zed")] == [
        False,
        False,
        True,
        True,
        False,
    ]
    with pytest.raises(ChouetteError, match="the box never hears the team's counsel"):
        ch.check_advice("ann")
    with pytest.raises(ChouetteError, match="the captain decides, advice is for the others"):
        ch.check_advice("bob")
    ch = ch.double("bob").drop("ann")  # bob's game is over: cat is acting captain
    assert [ch.may_advise(p) for p in ("bob", "cat", "dan")] == [False, False, True]
    with pytest.raises(NotYourTurnError, match="bob has won on the box's drop"):
        ch.check_advice("bob")


def test_consultation_none() -> None:
    ch = box_opens(table("ann", "bob", "cat", consultation=Consultation.NONE))
    assert not ch.may_advise("cat")
    with pytest.raises(ChouetteError, match="no consultation at this chouette"):
        ch.check_advice("cat")


def test_consultation_no_cube_no_talk() -> None:
    ch = team_opens(table("ann", "bob", "cat", "dan", consultation=Consultation.AFTER_CUBE))
    assert not ch.may_advise("cat")
    with pytest.raises(ChouetteError, match=r"no cube, no talk \(cat's cube is not turned\)"):
        ch.check_advice("cat")
    ch = ch.double("ann", ["cat", "dan"])
    assert not ch.may_advise("cat")  # offered, not yet taken
    ch = ch.take("cat").drop("dan")
    assert ch.may_advise("cat") and not ch.may_advise("dan")
    assert Action.ADVISE in ch.allowed("cat")
    assert not ch.may_advise("bob")  # the captain decides


def test_no_advice_between_games() -> None:
    ch = Chouette.from_line(["ann", "bob", "cat"])
    assert not ch.may_advise("cat")


# -- resignations ----------------------------------------------------------------------------


def test_resignation_by_a_member_to_the_box() -> None:
    ch = box_opens(table("ann", "bob", "cat", "dan"))
    ch = ch.resign("dan", 2)
    assert ch.waiting_for() == ("ann",)
    with pytest.raises(ResignationError, match="cannot roll: waiting for the box's answer"):
        ch.roll("bob", (3, 1))
    with pytest.raises(NotYourTurnError, match="the offer on dan's cube is ann's to answer"):
        ch.accept("dan")
    ch2 = ch.decline("ann")
    assert ch2.game.member("dan").resignation is None
    ch = ch.accept("ann")
    s = ch.game.member("dan").settlement
    assert (s.how, s.result, s.points, s.winner) == (SettledBy.RESIGN, Result.GAMMON, 2, "ann")
    assert ch.members_in_game == ("bob", "cat")
    assert not ch.may_advise("dan")


def test_resignation_by_the_box_to_one_member() -> None:
    ch = team_opens(table("ann", "bob", "cat", "dan"))
    ch = ch.resign("ann", 1, ["cat"])
    assert ch.targets("cat", Action.ACCEPT) == {"cat"}
    assert ch.targets("dan", Action.ACCEPT) == frozenset()
    with pytest.raises(ResignationError, match="no resignation is offered on dan's cube"):
        ch.accept("dan")
    ch = ch.accept("cat")
    assert dict(ch.ledger) == {"ann": -1, "bob": 0, "cat": 1, "dan": 0}


def test_resignation_by_the_box_to_all_each_answers_on_their_own() -> None:
    ch = team_opens(table("ann", "bob", "cat", "dan"))
    ch = ch.double("ann", ["dan"]).take("dan")
    ch = ch.resign("ann", 2)  # to every remaining member
    assert ch.waiting_for() == ("bob", "cat", "dan")
    ch = ch.accept("dan").decline("cat").accept("bob")
    assert dict(ch.ledger) == {"ann": -6, "bob": 2, "cat": 0, "dan": 4}
    assert ch.acting_captain == "cat" and not ch.game.is_over
    ch = ch.roll("ann", (3, 1))  # play goes on against cat


def test_captain_resigning_hands_over_the_captaincy() -> None:
    ch = box_opens(table("ann", "bob", "cat", "dan"))
    with pytest.raises(ResignationError, match="cannot offer to resign for cat"):
        ch.resign("bob", 1, ["cat"])
    ch = ch.resign("bob", 1).accept("ann")
    assert ch.acting_captain == "cat" and ch.captain == "bob"
    ch = ch.roll("cat", (3, 1))
    single = box_opens(table("ann", "bob", "cat", "dan", cubes=CubeMode.SINGLE))
    single = single.resign("bob", 1).accept("ann")
    assert single.captain == "cat"
    assert single.line == ("ann", "cat", "dan", "bob")


def test_resignation_errors() -> None:
    ch = box_opens(table("ann", "bob", "cat"))
    with pytest.raises(ResignationError, match="level must be 1, 2 or 3"):
        ch.resign("bob", 4)
    with pytest.raises(NotYourTurnError, match="the team is on roll; the box offers"):
        ch.resign("ann", 1)
    ch = ch.resign("bob", 1).resign("cat", 3)
    with pytest.raises(ResignationError, match="name the member \\(bob, cat are waiting\\)"):
        ch.accept("ann")
    with pytest.raises(ResignationError, match="cat cannot accept for bob"):
        ch.accept("cat", "bob")
    with pytest.raises(ResignationError, match="resignation offer on bob's cube waits"):
        ch.double("bob")
    ch = ch.decline("ann", "bob").decline("ann").roll("bob", (3, 1))
    with pytest.raises(ResignationError, match="dice are already rolled; offers come before"):
        ch.resign("cat", 1)


# -- two players --------------------------------------------------------------------------------


def test_two_players_left_play_as_a_money_game() -> None:
    opts = GameOptions(beavers=True, jacoby=True, auto_doubles=1)
    g = Game.new(opts)
    ch = Chouette.from_line(
        ["ann", "bob"], ChouetteOptions(beavers=True, jacoby=True, auto_doubles=1)
    ).start_game()
    steps = [
        (lambda g: g.opening_throw(4, 4), lambda c: c.opening_throw(4, 4)),
        (lambda g: g.opening_throw(5, 3), lambda c: c.opening_throw(5, 3)),
        (lambda g: g.move(0, [(13, 8), (8, 5)]), lambda c: c.move("ann", [(13, 8), (8, 5)])),
        (lambda g: g.double(1), lambda c: c.double("bob")),
        (lambda g: g.beaver(0), lambda c: c.beaver("ann")),
        (lambda g: g.take(1), lambda c: c.take("bob")),
        (lambda g: g.roll(1, (6, 4)), lambda c: c.roll("bob", (6, 4))),
        (lambda g: g.move(1, [(24, 18), (18, 14)]), lambda c: c.move("bob", [(24, 18), (18, 14)])),
        (lambda g: g.roll(0, (2, 2)), lambda c: c.roll("ann", (2, 2))),
    ]
    for on_game, on_chouette in steps:
        g, ch = on_game(g), on_chouette(ch)
        m = ch.game.member("bob")
        assert (m.cube.value, m.cube.owner) == (g.cube.value, g.cube.owner)
        assert ch.position_id() == g.position_id()
        assert int(ch.turn if ch.turn is not None else 0) == g.turn or g.phase is Phase.OPENING
    assert g.legal_plays() == ch.legal_plays()
    assert ch.match_id("bob") == g.match_id()
    # The cube is the box's (ann's) after the beaver: only she may redouble, and bob drops.
    chosen = ch.legal_plays()[0]
    g, ch = g.play(0, chosen), ch.play("ann", chosen)
    g, ch = g.roll(1, (1, 2)), ch.roll("bob", (1, 2))
    chosen = ch.legal_plays()[0]
    g, ch = g.play(1, chosen), ch.play("bob", chosen)
    g, ch = g.double(0).drop(1), ch.double("ann").drop("bob")
    assert g.result.points == ch.game.settlements[-1].points == 8
    assert dict(ch.ledger) == {"ann": 8, "bob": -8}
    assert ch.line == ("ann", "bob")


def test_chouette_falls_to_two_players() -> None:
    ch = Chouette.from_line(["ann", "bob", "cat"]).leave("cat").start_game()
    ch = team_opens(ch)
    assert ch.targets("ann", Action.DOUBLE) == {"bob"}
    assert not ch.may_advise("bob")


# -- errors ------------------------------------------------------------------------------------


def test_member_doubling_someone_elses_cube() -> None:
    ch = box_opens(table("ann", "bob", "cat"))
    with pytest.raises(CubeError, match="cat cannot double bob's cube: each member doubles"):
        ch.double("cat", ["bob"])
    with pytest.raises(CubeError, match="each member doubles only their own"):
        ch.double("bob", ["bob", "cat"])


def test_box_taking_a_double_never_offered() -> None:
    ch = box_opens(table("ann", "bob", "cat"))
    with pytest.raises(CubeError, match="ann \\(box\\) cannot take: no double is waiting"):
        ch.take("ann")
    with pytest.raises(CubeError, match="no double is waiting on cat's cube"):
        ch.take("ann", "cat")
    with pytest.raises(
        CubeError, match="bob \\(captain\\) cannot take: no double is waiting on bob's"
    ):
        team_opens(table("ann", "bob")).take("bob")


def test_member_answering_for_another() -> None:
    ch = team_opens(table("ann", "bob", "cat")).double("ann")
    with pytest.raises(CubeError, match="bob \\(captain\\) cannot drop for cat: each member"):
        ch.drop("bob", "cat")
    with pytest.raises(NotYourTurnError, match="the answer on bob's cube is bob's"):
        ch.take("ann", "bob")
    with pytest.raises(CubeError, match="name the member"):
        box_opens(table("ann", "bob", "cat")).double("bob").double("cat").take("ann")


def test_dropped_member_cannot_act() -> None:
    ch = team_opens(table("ann", "bob", "cat")).double("ann", ["cat"]).drop("cat")
    ch = turn(ch)
    with pytest.raises(NotYourTurnError, match="cat cannot double: cat has dropped and takes no"):
        ch.double("cat")
    with pytest.raises(NotYourTurnError, match="cat has dropped"):
        ch.resign("cat", 1)
    assert ch.allowed("cat") == {Action.LEAVE}


def test_only_the_captain_plays_checkers() -> None:
    ch = box_opens(table("ann", "bob", "cat"))
    with pytest.raises(NotYourTurnError, match=r"cat cannot roll: only the captain \(bob\) rolls"):
        ch.roll("cat", (3, 1))
    with pytest.raises(NotYourTurnError, match="ann \\(box\\) cannot roll: the team is on roll"):
        ch.roll("ann", (3, 1))
    ch = ch.roll("bob", (3, 1))
    with pytest.raises(NotYourTurnError, match="only the captain \\(bob\\) moves the checkers"):
        ch.move("cat", [(8, 5), (6, 5)])
    with pytest.raises(IllegalPlayError, match="no die of 4"):
        ch.move("bob", [(8, 4)])
    with pytest.raises(IllegalActionError, match="the dice are already rolled"):
        ch.roll("bob", (3, 1))
    with pytest.raises(InvalidDiceError):
        box_opens(table("ann", "bob")).roll("bob", (0, 3))


def test_doubling_after_the_roll() -> None:
    ch = box_opens(table("ann", "bob", "cat")).roll("bob", (3, 1))
    with pytest.raises(CubeError, match="cat cannot double: the dice are already rolled"):
        ch.double("cat")


def test_member_doubling_while_the_box_is_on_roll() -> None:
    ch = team_opens(table("ann", "bob", "cat"))
    with pytest.raises(NotYourTurnError, match="cat cannot double: the box is on roll"):
        ch.double("cat")
    ch = box_opens(table("ann", "bob", "cat"))
    with pytest.raises(NotYourTurnError, match="ann \\(box\\) cannot double: the team is on roll"):
        ch.double("ann", ["cat"])


def test_box_doubling_a_member_who_owns_their_cube() -> None:
    ch = team_opens(table("ann", "bob", "cat")).double("ann", ["cat"]).take("cat")
    ch = turn(turn(ch))
    with pytest.raises(CubeError, match="ann \\(box\\) cannot double cat: cat owns their cube"):
        ch.double("ann", ["cat"])
    assert ch.targets("ann", Action.DOUBLE) == {"bob"}
    ch = ch.double("ann")  # default: every cube the box may turn
    assert ch.waiting_for() == ("bob",)
    with pytest.raises(CubeError, match="a double on bob's cube waits for an answer"):
        ch.double("ann", ["bob"])


def test_member_doubling_a_box_owned_cube() -> None:
    ch = team_opens(table("ann", "bob", "cat", beavers=True)).double("ann", ["cat"]).beaver("cat")
    ch = ch.take("ann", "cat")
    ch = turn(ch)  # the box plays; the team is on roll
    assert cube(ch, "cat") == Cube(4, Side.TEAM)
    box_owned = team_opens(table("ann", "bob", "cat")).double("ann", ["cat"]).take("cat")
    box_owned = turn(box_owned).double("cat").take("ann")
    box_owned = turn(turn(box_owned))
    with pytest.raises(CubeError, match="cat cannot double: the box owns cat's cube"):
        box_owned.double("cat")


def test_actions_before_the_opening_throw_and_after_the_game() -> None:
    ch = table("ann", "bob", "cat")
    assert ch.allowed("ann") == {Action.OPENING_THROW, Action.LEAVE}
    assert ch.allowed("cat") == {Action.ADVISE, Action.LEAVE}
    with pytest.raises(IllegalActionError, match="the dice are not rolled"):
        ch.move("ann", [(8, 5)])
    with pytest.raises(IllegalActionError, match="the opening throw is not made"):
        ch.double("ann", ["bob"])
    with pytest.raises(IllegalActionError, match="cannot start a game: game 1 is in progress"):
        ch.start_game()
    ch = team_opens(ch).double("ann").drop("bob").drop("cat")
    with pytest.raises(GameOverError, match="ann cannot roll: game 1 is over"):
        ch.roll("ann", (3, 1))
    with pytest.raises(IllegalActionError, match="the opening throw is made"):
        team_opens(table("ann", "bob")).opening_throw(3, 1)
    with pytest.raises(IllegalActionError, match="no game has started"):
        Chouette.from_line(["ann", "bob"]).roll("ann", (3, 1))
    with pytest.raises(ChouetteError, match="'zed' cannot roll: not at this chouette"):
        ch.roll("zed", (3, 1))


def test_bad_options_and_players() -> None:
    with pytest.raises(ChouetteError, match="automatic doubles limit"):
        ChouetteOptions(auto_doubles=7)
    with pytest.raises(ChouetteError, match="players named twice: ann"):
        Chouette.from_line(["ann", "bob", "ann"])
    with pytest.raises(ChouetteError, match="not one string"):
        Chouette.new("ann")
    assert issubclass(ChouetteError, ValueError)


# -- queries and text ---------------------------------------------------------------------------


def test_allowed_and_targets_for_every_role() -> None:
    ch = team_opens(table("ann", "bob", "cat", "dan").join("eve"))
    assert ch.allowed("ann") == {Action.DOUBLE, Action.RESIGN, Action.ROLL, Action.LEAVE}
    assert ch.targets("ann", Action.DOUBLE) == {"bob", "cat", "dan"}
    assert ch.allowed("bob") == {Action.LEAVE}
    assert ch.allowed("cat") == {Action.ADVISE, Action.LEAVE}
    assert ch.allowed("eve") == {Action.LEAVE}
    assert ch.allowed("zed") == {Action.JOIN}
    ch = ch.double("ann", ["cat"])
    assert ch.allowed("ann") == {Action.DOUBLE, Action.RESIGN, Action.LEAVE}
    assert ch.allowed("cat") == {Action.TAKE, Action.DROP, Action.ADVISE, Action.LEAVE}
    assert ch.targets("cat", Action.TAKE) == {"cat"}
    assert ch.targets("ann", Action.TAKE) == frozenset()


def test_positions_seen_by_the_box_and_by_the_team() -> None:
    ch = box_opens(table("ann", "bob", "cat"))
    team, box = ch.position_for("bob"), ch.position_for("ann")
    assert team == box.swap() and ch.position_for("cat") == team
    assert team.me[7] == 0 and box.me[7] == 2  # the box made its 7 point
    assert ch.position_id() == team.position_id()  # the team is on roll
    assert ch.match_id("cat") == ch.match_id("bob")


def test_text_rendering() -> None:
    ch = team_opens(table("ann", "bob", "cat", "dan", beavers=True))
    ch = ch.double("ann", ["bob", "cat", "dan"]).take("bob").drop("dan").beaver("cat")
    ch = ch.join("eve")
    assert ch.text().splitlines() == [
        "chouette: multiple cubes, consultation free, beavers",
        "line: ann (box), bob (captain), cat, dan (out), eve (next game)",
        "game 1: box on roll, waiting for ann",
        f"position {ch.position_id()} (seen by the box)",
        "cubes:",
        "  bob  2 owned by bob",
        "  cat  1 centred; beavered to 4 by cat, ann to answer",
        "  dan  out: drop, dan paid ann 1",
        "ledger: ann +1, bob 0, cat 0, dan -1, eve 0",
    ]
    assert str(ch) == ch.text()
    ordering = Chouette.new(["x", "y", "z"]).order_throw({"x": 2, "y": 2, "z": 5}).join("w")
    assert ordering.text().splitlines()[1:3] == [
        "throwing for the line: z > x=y; x, y to throw",
        "then: w",
    ]
