"""The text board."""

from __future__ import annotations

from engine.position import Position, board_text


def test_start_board() -> None:
    text = str(Position.start())
    lines = text.splitlines()
    assert lines[0] == " Position ID: 4HPwATDgc/ABMA"
    assert lines[1].startswith(" +13-14-15-16-17-18------19-20-21-22-23-24-+")
    assert lines[-1] == " +12-11-10--9--8--7-------6--5--4--3--2--1-+"
    # X's 13 point (top left) and 24 point (top right); O's 6 point is X's 19.
    assert lines[2].startswith(" | X           O    |   | O              X |")
    assert "O: 167 pips" in text and "X: 167 pips, on roll" in text
    assert len(lines) == 14


def test_tall_stacks_show_their_count_and_every_checker_is_drawn() -> None:
    pos = Position.from_points({6: 12, "bar": 3}, {1: 7, "bar": 1})
    text = board_text(pos)
    assert "12" in text and " 7 " in text
    assert "bar 3, off 0" in text and "bar 1, off 7" in text
    # 5 rows per stack at most: the 12 on X's 6 point is drawn as 4 X's and the count.
    six = [line[25:28] for line in text.splitlines()[8:13]]
    assert six == ["12 ", " X ", " X ", " X ", " X "]


def test_board_after_bearing_off() -> None:
    pos = Position.from_points({1: 1}, {})
    text = board_text(pos)
    assert "X: 1 pips, on roll" in text and "bar 0, off 14" in text and "O: 0 pips" in text
