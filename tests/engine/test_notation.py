"""Move notation: the forms people and programs write, route choice, and the errors."""

from __future__ import annotations

import random

import pytest

from engine.errors import IllegalPlayError, InvalidDiceError, InvalidPlayError
from engine.moves import Play, legal_plays
from engine.notation import (
    blot_points,
    format_legal,
    format_moves,
    format_play,
    notation,
    parse_play,
)
from engine.position import BAR, Position
from tests.engine_corpus import corpus, each_roll

START = Position.start()
# The mover with a checker on the bar and the opponent's blot on the mover's 22 point.
ON_BAR = Position.from_points({BAR: 1, 24: 1, 13: 5, 8: 3, 6: 5}, {3: 1, 6: 5, 8: 3, 13: 5})
# Bearing off, the opponent gone.
HOME = Position.from_points({6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}, {})
# The opponent's blot on the mover's 18 point (their 7), the mover's 19 point open.
BLOT_18 = Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {7: 1, 13: 5, 24: 2})


def _same(pos: Position, dice: tuple[int, int], *texts: str) -> Play:
    plays = [parse_play(pos, dice, t) for t in texts]
    assert len({p.result for p in plays}) == 1, texts
    return plays[0]


def test_the_usual_forms_of_one_play() -> None:
    p = _same(
        START,
        (6, 5),
        "24/18 13/8",
        "13/8 24/18",
        "24-18 13-8",
        "24/18, 13/8",
        "24/18,13/8",
        "  24/18   13/8 ",
        "24 18 13 8",
    )
    assert (p.result.me[18], p.result.me[8]) == (1, 4)


def test_bar_forms() -> None:
    p = _same(ON_BAR, (3, 1), "bar/22* 24/23", "Bar/22 24/23", "b/22 24/23", "25/22 24/23")
    assert p.result.opp[BAR] == 1
    assert _same(ON_BAR, (3, 1), "BAR-22*-21", "b/22*/21", "bar/22*/21").result.opp[BAR] == 1
    # Unmarked, bar/21 goes the quiet way: bar/24/21.
    assert parse_play(ON_BAR, (3, 1), "bar/21").result.opp[BAR] == 0


def test_off_forms() -> None:
    p = _same(HOME, (6, 5), "6/off 5/off", "6/Off 5/OFF", "6/0 5/0", "6/o 5/o", "6-off 5-off")
    assert p.result.me[0] == 2


def test_repeats() -> None:
    p = _same(START, (6, 6), "24/18(2) 13/7(2)", "24/18 24/18 13/7 13/7", "24/18 (2) 13/7 (2)")
    assert (p.result.me[18], p.result.me[7]) == (2, 2)
    assert _same(START, (3, 3), "13/7(2)", "13/10/7(2)", "13/10(2) 10/7(2)").result.me[7] == 2


def test_a_step_over_several_dice_is_expanded() -> None:
    assert parse_play(START, (6, 5), "24/13").moves in (((24, 18), (18, 13)), ((24, 19), (19, 13)))
    assert len(parse_play(START, (3, 3), "13/10/7 24/18").moves) == 4
    # With doubles a step is as many dice as it needs: 24/20 with 1-1 is four moves.
    assert parse_play(START, (1, 1), "24/20").moves == ((24, 23), (23, 22), (22, 21), (21, 20))
    # Off the board with a die larger than needed, after coming in with the other.
    bear = Position.from_points({8: 1, 1: 14}, {})
    assert parse_play(bear, (6, 2), "8/off").result.me[0] == 1


def test_route_avoids_an_unmarked_hit() -> None:
    quiet = parse_play(BLOT_18, (6, 5), "24/13")
    assert quiet.moves == ((24, 19), (19, 13)) and quiet.result.opp[BAR] == 0
    hit = parse_play(BLOT_18, (6, 5), "24/18*/13")
    assert hit.moves == ((24, 18), (18, 13)) and hit.result.opp[BAR] == 1
    assert format_play(BLOT_18, hit) == "24/18*/13"
    assert format_play(BLOT_18, quiet) == "24/13"


def test_route_through_a_blot_when_it_is_the_only_one() -> None:
    # The 19 point is made, so 24/13 can only go via the blot on 18 (the mark is optional).
    pos = Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {7: 1, 6: 2, 13: 5, 24: 2})
    assert parse_play(pos, (6, 5), "24/13").result.opp[BAR] == 1


def test_hit_marks_are_optional_but_must_be_true() -> None:
    assert parse_play(BLOT_18, (6, 5), "24/18 13/8") == parse_play(BLOT_18, (6, 5), "24/18* 13/8")
    with pytest.raises(IllegalPlayError, match="marks a hit on 8 but no blot is hit there"):
        parse_play(BLOT_18, (6, 5), "24/18* 13/8*")


def test_moves_may_be_written_in_any_order() -> None:
    # The bar checker is written last and one chain is split: the order is found.
    p = parse_play(ON_BAR, (3, 1), "24/23 bar/22")
    assert p.moves[0] == (BAR, 22)
    home = Position.from_points({8: 1, 4: 2, 3: 1}, {})
    assert parse_play(home, (5, 5), "4/off(2) 8/off").result.me[0] == 14


def test_no_move() -> None:
    closed = Position.from_id("4HPwATDgc/ABUA")
    for text in ("", "  ", "-", "--", "pass", "PASS", "no move", "Cannot move"):
        assert parse_play(closed, (6, 6), text) == Play((), closed)
    assert format_play(closed, ()) == ""
    with pytest.raises(IllegalPlayError, match="no move given but 7 legal plays exist"):
        parse_play(START, (6, 5), "pass")


@pytest.mark.parametrize(
    "text",
    [
        "24/",
        "/18",
        "24//18",
        "24/18x2",
        "(24/18)2",
        "24",
        "24 18 13",
        "24/18 13",
        "hello",
        "26/20",
        "100/2",
        "24/25",
        "18/24",
        "6/6",
        "off/3",
        "0/3",
        "6/bar",
        "24*/18",
        "24/18(5)",
        "24/18(0)",
        "13/8 13/8 13/8 13/8 13/8",
        "24/18 13/8 8/3 6/1 6/1",
        "٢٤/١٨",
        "24.18",
        "24/18;13/8",
        "1" * 5000 + "/3",
    ],
)
def test_malformed_notation(text: str) -> None:
    with pytest.raises(InvalidPlayError):
        parse_play(START, (6, 5), text)


@pytest.mark.parametrize("text", [None, 24, b"24/18 13/8", ("24/18",)])
def test_notation_must_be_a_string(text: object) -> None:
    with pytest.raises(InvalidPlayError, match="must be a string"):
        parse_play(START, (6, 5), text)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("24/20 13/8", "the dice 6-5 cannot make these moves"),
        ("24/18", "must use both dice"),
        ("6/off 6/1", "cannot bear off before all checkers are home"),
        ("24/18 20/15", "no checker on point 20"),
        ("24/18 24/19", "point 19 is blocked"),
        ("24/18 12/7", "no checker on point 12"),
    ],
)
def test_illegal_plays_say_why(text: str, reason: str) -> None:
    with pytest.raises(IllegalPlayError, match=reason):
        parse_play(START, (6, 5), text)


def test_entering_first_is_the_reason_given() -> None:
    with pytest.raises(IllegalPlayError, match="a checker on the bar must enter first"):
        parse_play(ON_BAR, (3, 1), "13/10 24/23")


def test_bad_dice() -> None:
    with pytest.raises(InvalidDiceError):
        parse_play(START, (7, 1), "24/18")


def test_format_rejects_malformed_moves() -> None:
    for moves in ([(24,)], [(18, 24)], [(24, 18)] * 5, [(26, 20)], [(True, 0)], None, "24/18"):
        with pytest.raises(InvalidPlayError):
            format_play(START, moves)  # type: ignore[arg-type]


def test_format_conventions() -> None:
    # Sorted by source, then destination, highest first; one checker's moves joined.
    assert format_play(START, [(6, 5), (8, 5)]) == "8/5 6/5"
    assert format_play(START, [(13, 8), (13, 7)]) == "13/8 13/7"
    assert format_play(START, [(24, 21), (21, 20)]) == "24/20"
    assert format_play(ON_BAR, [(25, 22), (22, 21)]) == "bar/22*/21"
    assert format_play(HOME, [(6, 0), (6, 0), (5, 0), (5, 0)]) == "6/off(2) 5/off(2)"
    assert format_play(HOME, [(6, 2), (2, 0)]) == "6/off"


def test_notation_of_every_legal_play_parses_back() -> None:
    for pos in (START, ON_BAR, HOME, BLOT_18):
        for dice in ((6, 5), (3, 1), (4, 4), (1, 1), (6, 6), (2, 1)):
            for p in legal_plays(pos, dice):
                assert parse_play(pos, dice, notation(pos, p)).result == p.result


def test_the_generators_plays_format_as_format_play_writes_them() -> None:
    # format_legal skips the checks (and takes shortcuts for one and two moves) for the plays
    # the generator made; format_play is the one checked against GNU Backgammon.
    checked = 0
    for pos, dice in each_roll(corpus(seed=3, count=60)):
        for p in legal_plays(pos, dice):
            assert format_legal(pos, p) == format_play(pos, p.moves), (pos.position_id(), dice)
            checked += 1
    assert checked > 10_000


def test_a_legal_plays_moves_in_any_order_format_as_format_play_writes_them() -> None:
    # The deciders write a made play's notation with format_moves (its moves are legal: the
    # move was just made), in the order the player gave them, which need not be the
    # generator's: every order of every legal play must read as format_play writes it.
    rng = random.Random(11)
    checked = 0
    for pos, dice in each_roll(corpus(seed=5, count=40)):
        blots = blot_points(pos.opp)
        for p in legal_plays(pos, dice):
            for order in (p.moves, p.moves[::-1], tuple(rng.sample(p.moves, len(p.moves)))):
                assert format_moves(blots, order) == format_play(pos, order), (
                    pos.position_id(),
                    dice,
                    order,
                )
                checked += 1
    assert checked > 10_000
