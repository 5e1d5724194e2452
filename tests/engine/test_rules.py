"""One scenario per rule of docs/rules.md §1 and §3: set a position up, act, assert.

Positions are built with :meth:`Position.from_points` from the two players' own numberings: the
opponent's point ``q`` is the mover's point ``25 - q``, so ``_block(18)`` puts two opposing
checkers on the mover's 18 point. Checkers not placed are borne off.
"""

from __future__ import annotations

import pytest

from engine.errors import IllegalPlayError, InvalidPositionError
from engine.moves import Play, apply_moves, is_legal, legal_plays, play
from engine.notation import notation, parse_play
from engine.position import BAR, Position


def _block(*points: int, n: int = 2) -> dict[int | str, int]:
    """Opposing checkers (``n`` each) on these points of the mover's numbering."""
    return {25 - p: n for p in points}


def _plays(pos: Position, dice: tuple[int, int]) -> list[str]:
    return sorted(notation(pos, p) for p in legal_plays(pos, dice))


# -- §1 Board and numbering -----------------------------------------------------------------------


def test_starting_position() -> None:
    start = Position.start()
    for side in start:
        assert (side[24], side[13], side[8], side[6]) == (2, 5, 3, 5)
        assert sum(side) == 15
    assert start.position_id() == "4HPwATDgc/ABMA"
    assert start.pip_count(0) == start.pip_count(1) == 167


def test_point_p_is_point_25_minus_p_for_the_other_player() -> None:
    pos = Position.from_points({24: 1, 6: 14}, {3: 1, 12: 14})
    seen_by_opp = pos.swap()
    assert seen_by_opp.opp[24] == 1 and seen_by_opp.me[3] == 1
    # The opponent's 3 point is the mover's 22 point: a blot the mover can hit with a 2.
    hit = play(pos, (2, 1), [(24, 22), (6, 5)])
    assert hit.result.opp[BAR] == 1 and hit.result.opp[3] == 0


def test_moves_go_from_higher_to_lower_points() -> None:
    pos = Position.start()
    assert all(to < frm for p in legal_plays(pos, (6, 5)) for frm, to in p.moves)


def test_a_point_holds_checkers_of_one_colour_only() -> None:
    with pytest.raises(InvalidPositionError, match="holds both colours"):
        Position.from_points({18: 1, 6: 14}, {7: 1})


# -- §3 Moving ------------------------------------------------------------------------------------


def test_blocked_point() -> None:
    """§3.1: no move to a point held by two or more opposing checkers."""
    pos = Position.from_points({13: 1, 6: 14}, _block(8))
    with pytest.raises(IllegalPlayError, match="point 8 is blocked"):
        play(pos, (5, 2), [(13, 8), (8, 6)])
    assert all(p.result.me[8] == 0 for p in legal_plays(pos, (5, 2)))
    # A single opposing checker does not block: it is hit.
    blot = Position.from_points({13: 1, 6: 14}, {17: 1})
    assert play(blot, (5, 2), [(13, 8), (8, 6)]).result.opp[BAR] == 1


def test_one_checker_may_use_both_dice() -> None:
    """§3.2: one checker may take both dice."""
    result = play(Position.start(), (6, 5), [(24, 18), (18, 13)]).result
    assert (result.me[24], result.me[13]) == (1, 6)


def test_intermediate_point_must_be_open() -> None:
    """§3.2: a checker using both dice must land on an open point in between."""
    pos = Position.from_points({24: 1, 6: 14}, _block(18, 19))
    assert "24/13" not in _plays(pos, (6, 5))
    with pytest.raises(IllegalPlayError, match="blocked"):
        parse_play(pos, (6, 5), "24/13")


def test_either_die_may_be_played_first() -> None:
    """§3.2: with 24/18 blocked, the 1 is played first, then the 6: 24/23/17."""
    pos = Position.from_points({24: 1, 1: 14}, _block(18))
    assert _plays(pos, (6, 1)) == ["24/17"]
    assert play(pos, (6, 1), [(24, 23), (23, 17)]).result.me[17] == 1


def test_doubles_play_up_to_four() -> None:
    """§3.3: doubles are played four times."""
    plays = legal_plays(Position.start(), (6, 6))
    assert plays and all(len(p.moves) == 4 for p in plays)
    assert "24/18(2) 13/7(2)" in _plays(Position.start(), (6, 6))


def test_must_use_both_dice() -> None:
    """§3.4: if both dice can be played, both must be."""
    pos = Position.from_points({24: 1, 1: 14}, _block(18))
    with pytest.raises(IllegalPlayError, match="must use both dice"):
        play(pos, (6, 1), [(24, 23)])
    with pytest.raises(IllegalPlayError, match="must use both dice"):
        play(Position.start(), (6, 5), [(24, 18)])


def test_larger_die_when_only_one_playable() -> None:
    """§3.4: 24/18 or 24/19 can be played but not both dice (13 is blocked): the 6 it is."""
    pos = Position.from_points({24: 1, 1: 14}, _block(13))
    assert _plays(pos, (6, 5)) == ["24/18"]
    with pytest.raises(IllegalPlayError, match=r"must play the larger die \(6\)"):
        play(pos, (6, 5), [(24, 19)])


def test_smaller_die_when_larger_impossible() -> None:
    """§3.4: the 6 cannot be played at all (18 and 13 are blocked), so the 5 is."""
    pos = Position.from_points({24: 1, 1: 14}, _block(18, 13))
    assert _plays(pos, (6, 5)) == ["24/19"]
    assert play(pos, (6, 5), [(24, 19)]).result.me[19] == 1


def test_doubles_play_as_many_as_possible() -> None:
    """§3.4: with doubles, as many as can be: here 2 (18/12 is blocked), there 3."""
    two = Position.from_points({24: 2, 1: 13}, _block(12))
    assert _plays(two, (6, 6)) == ["24/18(2)"]
    with pytest.raises(IllegalPlayError, match="must use as many dice as possible: 1 played, 2"):
        play(two, (6, 6), [(24, 18)])
    three = Position.from_points({24: 1, 1: 14}, _block(12))
    assert _plays(three, (3, 3)) == ["24/15"]


def test_no_legal_move_loses_turn() -> None:
    """§3.4: no die can be played (the bar checker cannot enter on 19): the turn is lost."""
    pos = Position.from_id("4HPwATDgc/ABUA")
    assert not legal_plays(pos, (6, 6))
    assert play(pos, (6, 6), []) == Play((), pos)
    assert is_legal(pos, (6, 6), [])
    assert parse_play(pos, (6, 6), "") == Play((), pos)
    with pytest.raises(IllegalPlayError, match="no legal move"):
        play(pos, (6, 6), [(25, 19)])


def test_hit_sends_to_bar() -> None:
    """§3.5: landing on a blot hits it."""
    pos = Position.from_points({13: 1, 6: 14}, {17: 1, 1: 2})
    result = play(pos, (5, 1), [(13, 8), (6, 5)]).result
    assert (result.me[8], result.opp[17], result.opp[BAR]) == (1, 0, 1)
    assert notation(pos, play(pos, (5, 1), [(13, 8), (6, 5)])) == "13/8* 6/5"


def test_enter_before_moving() -> None:
    """§3.6: a checker on the bar enters before any other checker moves."""
    pos = Position.from_points({BAR: 1, 13: 14}, {})
    with pytest.raises(IllegalPlayError, match="a checker on the bar must enter first"):
        play(pos, (6, 5), [(13, 7), (25, 20)])
    assert all(p.moves[0][0] == BAR for p in legal_plays(pos, (6, 5)))


def test_enter_on_point_25_minus_die() -> None:
    """§3.6: die d enters on the mover's point 25 - d."""
    pos = Position.from_points({BAR: 2, 13: 13}, {})
    assert _plays(pos, (6, 5)) == ["bar/20 bar/19"]
    assert all(p.moves.count((BAR, 21)) == 2 for p in legal_plays(pos, (4, 4)))


def test_partial_entry_forfeits_rest() -> None:
    """§3.6: one of two bar checkers enters with the 3; the 1 cannot enter, so it is lost even
    though 22/21 or 13/12 would be possible."""
    pos = Position.from_points({BAR: 2, 13: 13}, _block(24, 23, 20, 19))
    assert _plays(pos, (3, 1)) == ["bar/22"]
    with pytest.raises(IllegalPlayError, match="a checker on the bar must enter first"):
        play(pos, (3, 1), [(25, 22), (13, 12)])


def test_after_entering_unused_dice_play_normally() -> None:
    """§3.6: once all are in, the other die moves the entered checker or another."""
    plays = _plays(Position.from_points({BAR: 1, 13: 14}, {}), (3, 1))
    assert "bar/22 13/12" in plays and "bar/21" in plays


def test_bear_off_only_when_all_home() -> None:
    """§3.7: no bearing off while a checker is outside the home board."""
    pos = Position.from_points({8: 1, 6: 14}, {})
    with pytest.raises(IllegalPlayError, match="cannot bear off before all checkers are home"):
        play(pos, (6, 5), [(6, 0), (8, 3)])
    assert play(pos, (6, 5), [(8, 3), (6, 0)]).result.me[0] == 1


def test_bear_off_judged_die_by_die() -> None:
    """§3.7: the checker that comes home with the 1 lets the 6 bear off."""
    pos = Position.from_points({7: 1, 6: 14}, {})
    assert any(p.result.me[0] == 1 for p in legal_plays(pos, (6, 1)))
    assert parse_play(pos, (6, 1), "7/6 6/off").result.me[0] == 1


def test_bear_off_exact() -> None:
    """§3.7: die d bears off a checker from point d."""
    pos = Position.from_points({6: 1, 5: 1}, {})
    assert _plays(pos, (6, 5)) == ["6/1 5/off", "6/off 5/off"]


def test_bear_off_higher_point_rule() -> None:
    """§3.7: with the 4 point empty and a checker on the 6, a 4 must move 6/2; the 3 bears off
    with a 4 only once nothing is above it."""
    pos = Position.from_points({6: 1, 3: 1}, {})
    with pytest.raises(IllegalPlayError, match="a higher die bears off only from the highest"):
        play(pos, (4, 4), [(3, 0), (6, 2), (2, 0)])
    assert play(pos, (4, 4), [(6, 2), (3, 0), (2, 0)]).result.me[0] == 15
    # GNU notation joins 6/2 and 2/off into one chain.
    assert _plays(pos, (4, 4)) == ["6/off 3/off"]


def test_bear_off_from_highest_point_when_none_higher() -> None:
    """§3.7: no checker on the 6 or 5: both dice bear off from the highest point, the 3."""
    pos = Position.from_points({3: 2}, {})
    assert _plays(pos, (6, 5)) == ["3/off(2)"]


def test_bear_off_not_compulsory() -> None:
    """§3.7: bearing off is never compulsory while another legal move exists."""
    pos = Position.from_points({6: 2, 1: 1}, {})
    quiet = parse_play(pos, (5, 1), "6/5 6/1")
    assert quiet.result.me[0] == pos.me[0]
    # "6/off" is 6/1 1/off, joined as GNU writes it.
    assert _plays(pos, (5, 1)) == ["6/5 6/1", "6/off"]


def test_hit_during_bear_off_must_reenter() -> None:
    """§3.7: a checker hit during the bear-off re-enters and comes home before bearing off."""
    pos = Position.from_points({BAR: 1, 6: 10, 5: 4}, {})
    plays = legal_plays(pos, (6, 1))
    assert plays and all(p.result.me[0] == 0 for p in plays)
    with pytest.raises(IllegalPlayError, match="cannot bear off before all checkers are home"):
        play(pos, (6, 1), [(25, 24), (6, 0)])


def test_same_result_is_one_play() -> None:
    """§3.8: 24/21/20 and 24/23/20 leave the same position: one play."""
    start = Position.start()
    plays = legal_plays(start, (3, 1))
    a = play(start, (3, 1), [(24, 21), (21, 20)])
    b = play(start, (3, 1), [(24, 23), (23, 20)])
    assert a.result == b.result
    assert sum(p.result == a.result for p in plays) == 1
    assert len(plays) == len(plays.results()) == 16


def test_illegal_play_changes_nothing() -> None:
    """§3.9: an illegal play is refused with a clear error and changes nothing."""
    start = Position.start()
    with pytest.raises(IllegalPlayError, match=r"position 4HPwATDgc/ABMA, dice 6-5"):
        play(start, (6, 5), [(24, 18)])
    assert start == Position.start()
    assert apply_moves(start, (6, 5), []) == start
