"""``permissions.permits`` answers exactly as :func:`~engine.chouette.permissions.check` does,
for every player (and an outsider), every action and every target, over random evenings: its
refusals read off the game without raising (issue 30) are never a permission ``check`` gives,
and it never permits what ``check`` refuses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Action
from engine.chouette import Chouette, permissions
from engine.errors import EngineError
from tests.engine.test_chouette_allowed_memo import EVENING, evening


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
@given(steps=st.integers(10, 120), **EVENING)
def test_permits_is_check(n: int, single: bool, beavers: bool, steps: int, seed: int) -> None:
    permitted = sum(agrees(ch) for ch, _ in evening(n, single, beavers, steps, seed))
    assert permitted > 0  # the evening asked questions some of which were allowed
