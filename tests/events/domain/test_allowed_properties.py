"""Property: ``allowed`` (:func:`events.domain.allowed.allowed`, the table view's list) means "may
send
now" (issue 27, part 5). Random games of money, match and chouette tables, seed windows and
clocks included, are folded from legal commands at random times; at every state, for everyone
at the table, one player who is not and the table's creator:

- every command listed is accepted by :func:`events.domain.decider.decide` from that state at that
  time, for some argument where it takes one (a legal play for ``move``, a member's cube for
  the box's answers, a seat for ``join``, a level for ``resign``); ``chat`` by
  :func:`events.domain.chat.decide_chat`;
- every command not listed is refused, whatever its argument.

So a client that sends only what ``allowed`` lists is never refused. And what the seed window
holds back (:func:`events.domain.allowed.held_back`, offered disabled by the page) is not allowed
now
and is accepted at the window's deadline. Pure: no database, no server (the view calls the same
functions).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import EngineError
from events.domain import commands as c
from events.domain import types as e
from events.domain.allowed import allowed, held_back
from events.domain.chat import decide_chat
from events.domain.decider import decide, evolve
from events.domain.table import TableState
from tests.dice import SeededDice

NAMES = ("ann", "bob", "cat", "dan", "eve", "fay")
T0 = 1_764_000_000_000
COMMANDS = (
    "join",
    "leave",
    "start_game",
    "add_seed",
    "waive_seed",
    "roll",
    "move",
    "double",
    "take",
    "drop",
    "beaver",
    "resign",
    "accept",
    "decline",
    "chat",
)
"""Every command a player sends (``create_table`` and the timer's ``expire`` aside)."""
WEIGHTS = {"join": 1, "leave": 0.15, "resign": 3, "accept": 6, "drop": 4, "double": 4}
"""How often the driver picks each command it may send (others: 1): games end within a few
dozen steps, so that many games, and their seed windows, are played."""
STEPS = 90
"""Commands per example."""


def members(state: TableState) -> list[str]:
    return list(state.members) if state.kind == "chouette" else []


def plays(state: TableState) -> list[c.Move]:
    """The legal plays of the player to move now, as ``move`` commands (one at least)."""
    if state.kind == "chouette":
        legal = state.chouette.legal_plays() if state.chouette is not None else ()
    else:
        legal = state.game.legal_plays() if state.game is not None else ()
    moves = [c.Move(moves=[[a, b] for a, b in p.moves]) for p in legal[:3]]
    return moves or [c.Move(moves=[])]


def variants(state: TableState, name: str) -> Iterator[c.Command]:
    """The command ``name`` with each argument worth trying."""
    others = members(state)
    match name:
        case "join":
            yield from (c.Join(), c.Join(seat=0), c.Join(seat=1))
        case "leave":
            yield c.Leave()
        case "start_game":
            yield c.StartGame()
        case "add_seed":
            yield c.AddSeed(seed="mine")
        case "waive_seed":
            yield c.WaiveSeed()
        case "roll":
            yield c.Roll()
        case "move":
            yield from plays(state)
        case "double":
            yield c.Double()
            yield from (c.Double(cubes=[m]) for m in others)
        case "resign":
            for level in (1, 2, 3):
                yield c.Resign(level=level)
                yield from (c.Resign(level=level, to=[m]) for m in others)
        case "take" | "drop" | "beaver" | "accept" | "decline":
            kind = {"take": c.Take, "drop": c.Drop, "beaver": c.Beaver}
            kind |= {"accept": c.Accept, "decline": c.Decline}
            yield kind[name]()
            yield from (kind[name](cube=m) for m in others)
        case _:
            raise AssertionError(name)


def accepted(
    state: TableState, player: str, command: c.Command, dice: SeededDice, now: int
) -> list[e.Event] | None:
    """The events ``command`` records, or None if the decider refuses it (with the rules' own
    error: anything else is a bug)."""
    try:
        return decide(state, player, command, dice, now)
    except EngineError:
        return None


def may_chat(state: TableState, player: str) -> bool:
    try:
        decide_chat(state, player, c.Chat(text="hello"))
    except EngineError:
        return False
    return True


def check(
    state: TableState, dice: SeededDice, now: int
) -> list[tuple[str, c.Command, list[e.Event]]]:
    """Assert the property at ``state`` and ``now``; every (player, command, events) found
    accepted, for the driver to pick from."""
    outsiders = [p for p in NAMES if p not in state.players][:1]
    who = dict.fromkeys([*state.players, *outsiders, state.created_by])
    found: list[tuple[str, c.Command, list[e.Event]]] = []
    for player in who:
        listed = allowed(state, player, now)
        held = held_back(state, player, now)
        assert not held & listed, (player, held, listed)
        for name in held:
            at_deadline = state.seed_deadline
            assert any(
                accepted(state, player, command, dice, at_deadline) is not None
                for command in variants(state, name)
            ), f"{player}'s {name} is held back at {describe(state, now)}, but refused later"
        for name in COMMANDS:
            if name == "chat":
                assert may_chat(state, player) == (name in listed), (player, name, listed)
                continue
            ok = []
            for command in variants(state, name):
                events = accepted(state, player, command, dice, now)
                if events is not None:
                    ok.append((player, command, events))
                    if name in listed:
                        break  # one argument accepted is enough
            if name in listed:
                assert ok, f"{player} may {name} at {describe(state, now)}, but it is refused"
            else:
                assert not ok, (
                    f"{player} may not {name} at {describe(state, now)}, but {ok[0][1]} is accepted"
                )
            found += ok
    return found


def describe(state: TableState, now: int) -> str:
    game = state.chouette.game if state.chouette is not None else state.game
    phase = game.phase.value if game is not None else None
    window = f"window open, waiting {state.seed_waiting}" if state.window_open else "no window"
    left = state.seed_deadline - now if state.window_open else 0
    return (
        f"{state.kind} v{state.version}, game {state.game_no} in_game={state.in_game}"
        f" phase={phase}, {window} ({left} ms left), winner={state.match_winner!r}"
    )


def table_options(kind: str, rng: random.Random) -> e.TableOptions:
    clock = rng.choice([None, None, e.ClockOptions(delay=2, reserve=4)])
    window = rng.choice([0, 3, 5])
    if kind == "money":
        return e.TableOptions(
            seed_window=window,
            clock=clock,
            beavers=rng.random() < 0.5,
            jacoby=rng.random() < 0.5,
            auto_doubles=rng.choice([0, 0, 1, 2]),
        )
    if kind == "match":
        return e.TableOptions(seed_window=window, clock=clock, match_length=rng.randint(1, 5))
    return e.TableOptions(
        seed_window=window,
        clock=clock,
        cube_mode=rng.choice(["multiple", "single"]),
        consultation=rng.choice(["free", "none", "after_cube"]),
        beavers=rng.random() < 0.5,
        box_must_take_half=rng.random() < 0.3,
        max_players=rng.choice([0, 3, 4]),
    )


@pytest.mark.parametrize("kind", ["money", "match", "chouette"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_allowed_is_what_the_decider_accepts(kind: str, seed: int) -> None:
    rng = random.Random(seed)
    dice = SeededDice(seed)
    state = TableState(table_id="t")
    now = T0

    def apply(events: list[e.Event]) -> None:
        nonlocal state
        for ev in events:
            state = evolve(state, ev)

    options = table_options(kind, rng)
    apply(decide(state, NAMES[0], c.CreateTable(kind=kind, options=options), dice, now))  # type: ignore[arg-type]
    for _ in range(STEPS):
        found = check(state, dice, now)
        expired = accepted(state, NAMES[0], c.Expire(), dice, now)
        if expired is not None and rng.random() < 0.7:
            apply(expired)  # the timer comes first when something has run out
        elif found:
            weights = [WEIGHTS.get(e.tag(command) or "", 1.0) for _, command, _ in found]
            _, _, events = rng.choices(found, weights)[0]
            apply(events)
        # Time goes on: mostly a moment, now and then past a seed window or a clock.
        now += rng.choice([0, 50, 400, 1500, 3000, 6000])
