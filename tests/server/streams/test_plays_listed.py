"""``plays_listed`` names exactly the position and throw whose plays a throw's message lists
(server/views/throw.py): the stream makes a double's tree from it off the event loop before
``throw_view`` runs, so it must be the tree ``throw_view`` then sends, at every throw of whole
money games and chouettes, and nothing where the message lists no plays."""

from __future__ import annotations

import random

import msgspec

from events.domain.decider import evolve
from events.domain.table import TableState
from events.records.simulate import simulate_chouette, simulate_table
from server.views.throw import plays_listed, throw_view, tree_json

THROWS = ("opening_throw", "dice_rolled")


def _check(table_id: str, steps: list[tuple[object, ...]]) -> tuple[int, int]:
    state = TableState(table_id=table_id)
    listed = doubles = 0
    for step in steps:
        for ev in step:  # type: ignore[attr-defined]
            state = evolve(state, ev)
            kind = ev.__struct_config__.tag
            if kind not in THROWS:
                continue
            thrower = getattr(ev, "player", "")
            view = throw_view(state, kind, thrower, tuple(ev.dice), 0)
            found = plays_listed(state)
            sent = None if view is None else view.play_tree
            if found is None:
                assert sent is None or bytes(sent) == b"[[]]", (kind, state.version)
                continue
            assert sent is not None, (kind, state.version)
            assert bytes(tree_json(*found)) == bytes(sent), (kind, state.version)
            assert msgspec.json.decode(bytes(sent)) != [[]]
            listed += 1
            doubles += found[1][0] == found[1][1]
    return listed, doubles


def test_every_throw_of_money_games_and_chouettes() -> None:
    listed = doubles = 0
    for seed in range(3):
        duel = simulate_table(f"t-duel-{seed}", games=3, rng=random.Random(seed))
        a, b = _check(f"t-duel-{seed}", [s.events for s in duel.steps])
        ch = simulate_chouette(f"t-ch-{seed}", games=2, rng=random.Random(100 + seed))
        c, d = _check(f"t-ch-{seed}", [s.events for s in ch.steps])
        listed, doubles = listed + a + c, doubles + b + d
    assert listed > 100 and doubles > 10, (listed, doubles)
