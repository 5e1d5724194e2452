"""Reference vectors: legal-play counts and Position IDs (copied from shared/reference into
tests/data, so that a fresh clone has them). The Match ID vectors in the same file are tested
with the Match ID codec."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.moves import legal_plays
from engine.position import BAR, Position

DATA = Path(__file__).parents[1] / "data"
COUNTS: list[dict[str, Any]] = json.loads((DATA / "legal_move_count_vectors.json").read_text())
IDS: list[dict[str, Any]] = json.loads((DATA / "gnubg_id_test_vectors.json").read_text())[
    "position_ids"
]


def _side(points: dict[str, int]) -> tuple[int, ...]:
    side = [0] * 26
    for key, count in points.items():
        side[BAR if key == "bar" else int(key)] = count
    side[0] = 15 - sum(side[1:])
    return tuple(side)


def test_the_vector_files_are_complete() -> None:
    assert len(COUNTS) == 47
    assert len(IDS) == 8


@pytest.mark.parametrize(
    "vector", COUNTS, ids=[f"{v['position_id']}-{v['dice'][0]}{v['dice'][1]}" for v in COUNTS]
)
def test_legal_play_count(vector: dict[str, Any]) -> None:
    pos = Position.from_id(vector["position_id"])
    plays = legal_plays(pos, tuple(vector["dice"]))
    assert len(plays) == vector["legal_plays_distinct_positions"] == vector["gnubg_1.1.0a16"]
    assert len(plays.results()) == len(plays)
    assert bool(plays) == (len(plays) > 0)


@pytest.mark.parametrize("vector", IDS, ids=[v["id"] for v in IDS])
def test_position_id_decodes(vector: dict[str, Any]) -> None:
    pos = Position.from_id(vector["id"])
    assert pos.me == _side(vector["second_encoded_side_player_on_roll"])
    assert pos.opp == _side(vector["first_encoded_side_player_not_on_roll"])


@pytest.mark.parametrize("vector", IDS, ids=[v["id"] for v in IDS])
def test_position_id_encodes(vector: dict[str, Any]) -> None:
    pos = Position(
        _side(vector["second_encoded_side_player_on_roll"]),
        _side(vector["first_encoded_side_player_not_on_roll"]),
    )
    pos.validate()
    assert pos.position_id() == vector["id"]
