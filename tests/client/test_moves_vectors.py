"""The browser's move input (``server/static/board/moves.js``) on the engine's real plays: for many
positions and rolls, the legal plays with their single-die routes (what ``GET /tables/{id}``
sends) and the same plays as the tree of steps a throw's message and ``game.play_tree`` send,
checked by ``tests/client/check_moves_vectors.mjs``: the tree's plays are the list's (the page's
notation of each route the engine's notation of its play), every route can be entered step by
step from either and completes its play, the moves the page sends for it make the engine's
play, the board shown after it is the engine's resulting position (hits included), every
destination offered leads somewhere, and each play's own notation names it.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgspec

from engine.moves import legal_plays
from engine.notation import format_play
from engine.position import Position
from engine.routes import play_routes, play_tree
from tests.client.node import run_node
from tests.engine_corpus import corpus

CHECK = Path(__file__).resolve().parent / "check_moves_vectors.mjs"


def _case(pos: Position, dice: tuple[int, int]) -> dict[str, Any]:
    plays = legal_plays(pos, dice).plays
    return {
        "mover": list(pos.me),
        "opponent": list(pos.opp),
        "dice": list(dice),
        "tree": play_tree(pos, dice),
        "plays": [
            {
                "notation": format_play(pos, p.moves),
                "steps": [[list(s) for s in route] for route in play_routes(pos, dice, p)],
                "result": {"mover": list(p.result.me), "opponent": list(p.result.opp)},
            }
            for p in plays
        ],
    }


def _cases() -> list[dict[str, Any]]:
    rng = random.Random(20261130)
    rolls = [(a, b) for a in range(1, 7) for b in range(a, 7)]
    start = Position.start()
    cases = [_case(start, roll) for roll in rolls]
    cases.append(_case(Position.from_id("AACAkCRJqqoAAA"), (1, 1)))  # 2,220 plays
    for pos in corpus(7, 50):
        for roll in rng.sample(rolls, 3):
            cases.append(_case(pos, roll))
    return cases


def test_the_browser_enters_every_route_of_the_engines_plays(tmp_path: Path) -> None:
    cases = _cases()
    assert any(not c["plays"] for c in cases), "no roll without a legal move"
    assert any(any(len(p["steps"]) == 2 for p in c["plays"]) for c in cases), "no two routes"
    assert any(any(s[2] for p in c["plays"] for r in p["steps"] for s in r) for c in cases)
    assert any(len(c["plays"]) == 2220 for c in cases)
    path = tmp_path / "moves-vectors.json"
    path.write_bytes(msgspec.json.encode(cases))
    run_node(CHECK, env={"CHOUETTE_MOVES_VECTORS": str(path)})
