"""``Chouette.allowed`` keeps its answers for the chouette last asked, and ``Chouette.targets``
answers an action on a cube that ``allowed`` left out without checking it again (issue 30: a
throw's message asks both for every viewer). Over random evenings, every answer is the one
:mod:`engine.chouette.permissions` gives when asked afresh, whatever was asked before and of
which chouette, and an equal chouette that is another object is asked afresh."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Action
from engine.chouette import Chouette, ChouetteOptions, CubeMode, permissions
from engine.errors import IllegalActionError

NAMES = ("ann", "bob", "cat", "dan", "eve")


def answers_are_fresh(ch: Chouette, rng: random.Random) -> None:
    """Every player's ``allowed`` and ``targets`` (and an outsider's), asked in a random order,
    equal the permissions' own; so do those of a copy asked in between."""
    everyone = [*ch.players, "zed"]
    asks = [(p, a) for p in everyone for a in (None, *Action)]
    rng.shuffle(asks)
    for p, a in asks:
        if a is None:
            assert ch.allowed(p) == permissions.allowed(ch, p)
        else:
            assert ch.targets(p, a) == permissions.targets(ch, p, a), (p, a)
        if rng.random() < 0.1:
            # Another chouette asked meanwhile (equal, but another object): no mix-up.
            other = dataclasses.replace(ch)
            q = rng.choice(everyone)
            assert other.allowed(q) == permissions.allowed(other, q)


def step(ch: Chouette, rng: random.Random) -> Chouette:
    """One random allowed action (random dice and plays), or the same chouette if none works."""
    moves = [(p, a) for p in [*ch.players, "zed"] for a in sorted(ch.allowed(p))]
    rng.shuffle(moves)
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    for p, a in moves:
        try:
            match a:
                case Action.ORDER_THROW:
                    assert ch.ordering is not None
                    return ch.order_throw({q: rng.randint(1, 6) for q in ch.ordering.to_throw})
                case Action.START_GAME:
                    return ch.start_game()
                case Action.OPENING_THROW:
                    return ch.opening_throw(*dice)
                case Action.ROLL:
                    return ch.roll(p, dice)
                case Action.MOVE:
                    return ch.play(p, rng.choice(ch.legal_plays()))
                case Action.DOUBLE:
                    return ch.double(p)
                case Action.TAKE | Action.DROP | Action.ACCEPT | Action.DECLINE:
                    target = sorted(ch.targets(p, a))[0]
                    answer = {
                        Action.TAKE: ch.take,
                        Action.DROP: ch.drop,
                        Action.ACCEPT: ch.accept,
                        Action.DECLINE: ch.decline,
                    }[a]
                    return answer(p, target)
                case Action.RESIGN:
                    return ch.resign(p, rng.randint(1, 3))
                case Action.JOIN if rng.random() < 0.05:
                    return ch.join(p)
                case Action.LEAVE if rng.random() < 0.02:
                    return ch.leave(p)
        except IllegalActionError:
            continue
    return ch


EVENING = {
    "n": st.integers(2, 5),
    "single": st.booleans(),
    "beavers": st.booleans(),
    "seed": st.integers(0, 2**32),
}
"""A random evening's settings: the players, the cubes, beavers and the dice's seed (with
``steps``, the evening's length, given by each test)."""


def evening(
    n: int, single: bool, beavers: bool, steps: int, seed: int
) -> Iterator[tuple[Chouette, random.Random]]:
    """The chouette before each of ``steps`` random actions and after the last, with the
    evening's random source."""
    rng = random.Random(seed)
    cubes = CubeMode.SINGLE if single else CubeMode.MULTIPLE
    ch = Chouette.new(NAMES[:n], ChouetteOptions(cubes=cubes, beavers=beavers))
    for _ in range(steps):
        yield ch, rng
        ch = step(ch, rng)
    yield ch, rng


@settings(max_examples=40, deadline=None)
@given(steps=st.integers(10, 80), **EVENING)
def test_allowed_and_targets_answer_as_the_permissions_do(
    n: int, single: bool, beavers: bool, steps: int, seed: int
) -> None:
    for ch, rng in evening(n, single, beavers, steps, seed):
        answers_are_fresh(ch, rng)


def test_an_action_on_a_cube_left_out_of_allowed_has_no_targets() -> None:
    """After the box's opening play the team is on roll: its members may double, the box may
    not (no targets once ``allowed`` was asked); once the team has played, the box may double
    every member. Each chouette is answered for itself, asked in turn."""
    ch = Chouette.from_line(["ann", "bob", "cat"]).start_game().opening_throw(3, 1)
    assert ch.game is not None and ch.game.box == "ann" and ch.on_roll == "ann"
    team = ch.play("ann", ch.legal_plays()[0])
    assert team.on_roll == "bob"
    assert Action.DOUBLE not in team.allowed("ann")
    assert team.targets("ann", Action.DOUBLE) == frozenset()
    assert Action.DOUBLE in team.allowed("bob")
    assert team.targets("bob", Action.DOUBLE) == frozenset({"bob"})
    rolled = team.roll("bob", (2, 1))
    box = rolled.play("bob", rolled.legal_plays()[0])
    assert box.on_roll == "ann"
    assert Action.DOUBLE in box.allowed("ann")
    assert box.targets("ann", Action.DOUBLE) == frozenset({"bob", "cat"})
    assert team.targets("ann", Action.DOUBLE) == frozenset()  # the earlier chouette, again
    assert box.targets("bob", Action.DOUBLE) == frozenset()
