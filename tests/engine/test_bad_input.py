"""Bad input gets a clear :class:`EngineError` (a ``ValueError``), never another exception or a
wrong answer."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import (
    EngineError,
    IllegalPlayError,
    InvalidDiceError,
    InvalidIdError,
    InvalidPlayError,
    InvalidPositionError,
)
from engine.moves import apply_moves, is_legal, legal_plays, play
from engine.notation import parse_play
from engine.position import Position
from tests.engine import oracle

START = Position.start()


def _id_from_runs(runs: list[int]) -> str:
    """A Position ID from 50 runs of checkers (player not on roll's 25 slots, then the other's)."""
    bits, n = 0, 0
    for count in runs:
        bits |= ((1 << count) - 1) << n
        n += count + 1
    return base64.b64encode(bits.to_bytes(10, "little")).decode()[:14]


# -- Position IDs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    ["", "4HPwATDgc/ABM", "4HPwATDgc/ABMAA", "4HPwATDgc/ABM!", "4HPwATDgc ABMA", "4HPwATDgc/AB=A"],
)
def test_malformed_position_id(bad: str) -> None:
    with pytest.raises(InvalidIdError):
        Position.from_id(bad)


@pytest.mark.parametrize("bad", [None, 12345678901234, b"4HPwATDgc/ABMA", ["4HPwATDgc/ABMA"]])
def test_position_id_must_be_a_string(bad: object) -> None:
    with pytest.raises(InvalidIdError):
        Position.from_id(bad)  # type: ignore[arg-type]


def test_position_id_with_too_many_checkers() -> None:
    with pytest.raises(InvalidIdError, match="too many checkers"):
        Position.from_id(_id_from_runs([16] + [0] * 49))
    # 16 in all, no run over 15.
    with pytest.raises(InvalidIdError, match="impossible"):
        Position.from_id(_id_from_runs([8, 8] + [0] * 48))


def test_position_id_with_both_colours_on_a_point() -> None:
    # The opponent's 1 point is the mover's 24 point.
    runs = [1] + [0] * 24 + [0] * 23 + [1, 0]
    with pytest.raises(InvalidIdError, match="both colours"):
        Position.from_id(_id_from_runs(runs))


def test_position_id_with_trailing_bits() -> None:
    # 80 bits: two sides of 15 checkers use 80; fewer checkers leave padding that must be zero.
    good = _id_from_runs([1] + [0] * 49)
    assert Position.from_id(good).opp[1] == 1
    raw = int.from_bytes(base64.b64decode(good + "=="), "little") | 1 << 70
    with pytest.raises(InvalidIdError):
        Position.from_id(base64.b64encode(raw.to_bytes(10, "little")).decode()[:14])


@given(st.text(max_size=20))
def test_any_text_as_position_id(text: str) -> None:
    try:
        pos = Position.from_id(text)
    except InvalidIdError:
        return
    assert Position.from_id(pos.position_id()) == pos


@settings(max_examples=300)
@given(st.binary(min_size=10, max_size=10))
def test_any_bits_as_position_id_agree_with_gnubg(raw: bytes) -> None:
    """Where GNU Backgammon itself would write the ID, we read the same position; what we
    accept, GNU Backgammon accepts."""
    gnubg = oracle.gnubg()
    pid = base64.b64encode(raw).decode()[:14]
    try:
        theirs = gnubg.positionfromid(pid)
    except Exception:
        theirs = None
    try:
        pos = Position.from_id(pid)
    except InvalidIdError:
        assert theirs is None or gnubg.positionid(theirs) != pid
        return
    assert theirs is not None
    assert (tuple(theirs[0]), tuple(theirs[1])) == (pos.opp[1:26], pos.me[1:26])


# -- positions ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("me", "opp"),
    [
        ({6: 16}, {}),
        ({6: 8, 8: 8}, {}),
        ({26: 1}, {}),
        ({0: 1}, {}),
        ({"off": 1}, {}),
        ({6: -1}, {}),
        ({6: 1.5}, {}),
        ({18: 1}, {7: 1}),
        ({"6": 1}, {}),
    ],
)
def test_impossible_positions(me: dict[int | str, int], opp: dict[int | str, int]) -> None:
    with pytest.raises(InvalidPositionError):
        Position.from_points(me, opp)


@pytest.mark.parametrize(
    "side",
    [[0] * 25, [0] * 27, [0] * 25 + [-1], [0] * 25 + [True], [0] * 25 + [1.0], [0] * 25 + [16]],
)
def test_impossible_sides(side: list[int]) -> None:
    with pytest.raises(InvalidPositionError):
        Position.from_sides(side, [0] * 26)


# -- dice -----------------------------------------------------------------------------------------


BAD_DICE = [(0, 1), (7, 1), (1, -1), (1,), (1, 2, 3), (), "12", (True, 1), (1, False), (1.0, 2)]
BAD_DICE += [None, {1, 2}, (1, "2"), 12]


@pytest.mark.parametrize("bad", BAD_DICE)
def test_bad_dice(bad: object) -> None:
    with pytest.raises(InvalidDiceError):
        legal_plays(START, bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidDiceError):
        play(START, bad, [])  # type: ignore[arg-type]
    with pytest.raises(InvalidDiceError):
        apply_moves(START, bad, [])  # type: ignore[arg-type]
    with pytest.raises(InvalidDiceError):
        is_legal(START, bad, [])  # type: ignore[arg-type]
    with pytest.raises(InvalidDiceError):
        parse_play(START, bad, "24/18 13/8")  # type: ignore[arg-type]


# -- moves ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        [(24,)],
        [(24, 18, 13)],
        [("24", "18")],
        [(18, 24)],
        [(24, 24)],
        [(26, 20)],
        [(6, -1)],
        [(24.0, 18)],
        [(True, 0)],
        [24, 18],
        [(24, 18)] * 5,
        None,
        "24/18",
        42,
    ],
)
def test_malformed_moves(bad: object) -> None:
    with pytest.raises(InvalidPlayError):
        play(START, (6, 5), bad)  # type: ignore[arg-type]


def test_moves_that_break_rules_are_illegal_not_malformed() -> None:
    with pytest.raises(IllegalPlayError, match="no checker on point 20"):
        play(START, (6, 5), [(20, 14)])
    with pytest.raises(IllegalPlayError, match="no die of 4"):
        play(START, (6, 5), [(24, 20)])


@settings(max_examples=300)
@given(
    st.lists(
        st.tuples(st.integers(-2, 27), st.integers(-2, 27)) | st.lists(st.integers(), max_size=3),
        max_size=5,
    ),
    st.tuples(st.integers(1, 6), st.integers(1, 6)),
)
def test_any_moves(moves: list[object], roll: tuple[int, int]) -> None:
    try:
        p = play(START, roll, moves)  # type: ignore[arg-type]
    except EngineError:
        return
    assert p.result in legal_plays(START, roll).results()


# -- notation -------------------------------------------------------------------------------------

NOTATION_LIKE = st.from_regex(
    r"((bar|b|off|o|[0-9]{1,2})([/-](bar|off|o|[0-9]{1,2})\*?){1,3}(\([0-9]\))?[ ,]{1,2}){1,4}",
    fullmatch=True,
)


@settings(max_examples=300)
@given(st.text(max_size=30) | NOTATION_LIKE, st.tuples(st.integers(1, 6), st.integers(1, 6)))
def test_any_text_as_notation(text: str, roll: tuple[int, int]) -> None:
    pos = Position.from_points({25: 1, 24: 1, 13: 5, 8: 3, 6: 5}, {3: 1, 6: 5, 8: 3, 13: 5})
    try:
        p = parse_play(pos, roll, text)
    except EngineError:
        return
    plays = legal_plays(pos, roll)
    assert p.result in plays.results() if plays else p.result == pos


@pytest.mark.parametrize("bad", [None, 42, "pass"])
def test_malformed_moves_when_no_play_exists(bad: object) -> None:
    closed = Position.from_id("4HPwATDgc/ABUA")
    with pytest.raises(InvalidPlayError):
        play(closed, (6, 6), bad)  # type: ignore[arg-type]
