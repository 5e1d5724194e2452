"""``permissions.permits`` answers exactly as :func:`~engine.chouette.permissions.check` does,
for every player (and an outsider), every action and every target, over random evenings: its
refusals read off the game without raising (issue 30) are never a permission ``check`` gives,
and it never permits what ``check`` refuses."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Action
from engine.chouette import Chouette, ChouetteOptions, CubeMode, permissions
from engine.errors import EngineError
from tests.engine.test_chouette_allowed_memo import NAMES, step


def checked(ch: Chouette, player: str, action: Action, target: str | None) -> bool:
    try:
        permissions.check(ch, player, action, target)
    except EngineError:
        return False
    return True


def agrees(ch: Chouette) -> int:
    """Compare every question; the number of them permitted."""
    everyone = [*ch.players, "zed"]
    targets = [None, *everyone]
    yes = 0
    for p in everyone:
        for a in Action:
            for t in targets:
                ok = permissions.permits(ch, p, a, t)
                assert ok == checked(ch, p, a, t), (p, a, t, ok)
                yes += ok
    return yes


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 5),
    single=st.booleans(),
    beavers=st.booleans(),
    steps=st.integers(10, 120),
    seed=st.integers(0, 2**32),
)
def test_permits_is_check(n: int, single: bool, beavers: bool, steps: int, seed: int) -> None:
    rng = random.Random(seed)
    cubes = CubeMode.SINGLE if single else CubeMode.MULTIPLE
    ch = Chouette.new(NAMES[:n], ChouetteOptions(cubes=cubes, beavers=beavers))
    permitted = 0
    for _ in range(steps):
        permitted += agrees(ch)
        ch = step(ch, rng)
    permitted += agrees(ch)
    assert permitted > 0  # the evening asked questions some of which were allowed
