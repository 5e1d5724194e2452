"""Property tests: random evenings driven through ``allowed()`` keep the chouette's invariants.

Each example seats 2–5 players, throws for the line and plays random allowed actions with
random dice and random legal plays (players also join and leave, and now and then a player with
a game in play runs out of time). After every step:

- the ledger sums to zero and equals the sum of every settlement so far;
- a forfeit (leaving in mid-game, or out of time) settles each cube concerned at the worst
  result still possible for the side that forfeits × that cube (docs/rules.md §10), and leaving
  when no game is in play for the leaver changes no balance;
- ``allowed()`` is exact: every allowed action (on every allowed target) succeeds, and every
  action not allowed raises an :class:`IllegalActionError` (so no role ever acts out of turn);
- a member whose game is settled has no say: no action but leaving, no advice.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Action
from engine.chouette import (
    TARGETED_ACTIONS,
    Chouette,
    ChouetteOptions,
    Consultation,
    CubeMode,
    Side,
)
from engine.chouette.ledger import SettledBy
from engine.errors import IllegalActionError
from engine.game import Game, GameOptions, Result, classify_win
from engine.position import CHECKERS, Position

NAMES = ("ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy", "jon")
TABLE_LEVEL = {Action.ORDER_THROW, Action.START_GAME, Action.OPENING_THROW}
"""Actions the methods take without a player: their dice are the server's."""
WEIGHTS = {
    Action.JOIN: 0.3,
    Action.LEAVE: 0.1,
    Action.ADVISE: 0,
    Action.RESIGN: 2,
    Action.DOUBLE: 4,
}
"""How often the driver picks each kind of action (others: 10), so games move along."""
TIMEOUT_RATE = 0.02
"""How often, at a step, a player with a game in play runs out of time and forfeits."""

options = st.builds(
    ChouetteOptions,
    cubes=st.sampled_from(CubeMode),
    consultation=st.sampled_from(Consultation),
    auto_doubles=st.integers(0, 2),
    beavers=st.booleans(),
    jacoby=st.booleans(),
    box_must_take_half=st.booleans(),
)


def short_race(rng: random.Random) -> Position:
    """A race with every checker home (or off): games end in a few rolls, sometimes with a
    gammon."""

    def side() -> dict[int | str, int]:
        left = rng.choice((15, 15, rng.randint(1, 15)))
        points: dict[int | str, int] = {}
        for _ in range(left):
            p = rng.randint(1, 6)
            points[p] = points.get(p, 0) + 1
        return points

    return Position.from_points(side(), side())


def attempt(
    ch: Chouette, player: str, action: Action, target: str | None, rng: random.Random
) -> Chouette:
    """Call the method for ``action`` by ``player`` (on ``target``'s cube), with random
    dice and plays where the method needs them."""
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    calls: dict[Action, Callable[[], Chouette]] = {
        Action.JOIN: lambda: ch.join(player),
        Action.LEAVE: lambda: ch.leave(player),
        Action.ORDER_THROW: lambda: ch.order_throw(
            {p: rng.randint(1, 6) for p in (ch.ordering.to_throw if ch.ordering else ())}
        ),
        Action.START_GAME: ch.start_game,
        Action.OPENING_THROW: lambda: ch.opening_throw(*dice),
        Action.ROLL: lambda: ch.roll(player, dice),
        Action.MOVE: lambda: (
            ch.play(player, rng.choice(ch.legal_plays()))
            if ch.legal_plays()
            else ch.move(player, [(24, 23)])
        ),
        # With a single cube the box doubles the whole team: it names nobody.
        Action.DOUBLE: lambda: ch.double(
            player, None if target is None or ch.options.cubes is CubeMode.SINGLE else [target]
        ),
        Action.TAKE: lambda: ch.take(player, target),
        Action.DROP: lambda: ch.drop(player, target),
        Action.BEAVER: lambda: ch.beaver(player, target),
        Action.RESIGN: lambda: ch.resign(
            player, rng.randint(1, 3), None if target is None else [target]
        ),
        Action.ACCEPT: lambda: ch.accept(player, target),
        Action.DECLINE: lambda: ch.decline(player, target),
        Action.ADVISE: lambda: (ch.check_advice(player), ch)[1],
    }
    return calls[action]()


def outside(ch: Chouette) -> tuple[str, ...]:
    """One player not at the table (if any is left), who may join."""
    return tuple(p for p in NAMES if p not in ch.players)[:1]


def choices(ch: Chouette) -> list[tuple[str, Action, str | None]]:
    """Every (player, action, target) allowed now, including a newcomer's join."""
    out: list[tuple[str, Action, str | None]] = []
    for p in (*ch.players, *outside(ch)):
        for a in ch.allowed(p):
            if a in TABLE_LEVEL and any(q == a for _, q, _ in out):
                continue  # one of these is enough: the method takes no player
            targets = ch.targets(p, a)
            if targets and ch.game is not None and p == ch.game.box:
                out += [(p, a, t) for t in sorted(targets)]
            else:
                out.append((p, a, None))
    return out


def check(ch: Chouette, rng: random.Random) -> None:
    assert ch.ledger.total() == 0
    books: dict[str, int] = dict.fromkeys(ch.ledger, 0)
    games = [*ch.history]
    if ch.in_progress and ch.game is not None:
        games.append(ch.game)
    for g in games:
        for s in g.settlements:
            books[s.winner] += s.points
            books[s.loser] -= s.points
    assert books == dict(ch.ledger)
    assert len(set(ch.players)) == len(ch.players)
    g = ch.game
    if ch.in_progress and g is not None:
        assert ch.line[0] == g.box
        if g.phase.value != "opening":
            assert ch.on_roll in (g.box, *g.in_game)
        if ch.options.cubes is CubeMode.SINGLE and not ch.waiting_for():
            assert len({(m.cube.value, m.cube.owner) for m in g.members if m.in_game}) <= 1
        if ch.options.cubes is CubeMode.SINGLE and g.captain in g.in_game:
            assert ch.line[1] == g.captain
    if g is not None and g.is_over:
        assert all(not m.in_game for m in g.members)
    for p in ch.players:  # a forfeit is possible exactly for a player with a game in play
        if not ch.has_game_in_play(p):
            try:
                ch.forfeit(p)
            except IllegalActionError:
                pass
            else:
                raise AssertionError(f"{p} forfeited with no game in play")
        else:
            ch.forfeit(p)
    everyone = (*ch.players, *outside(ch))
    allowed_to = {p: ch.allowed(p) for p in everyone}
    table_level = {a for a in TABLE_LEVEL if any(a in acts for acts in allowed_to.values())}
    for p in everyone:
        allowed = allowed_to[p]
        member = g.member(p) if g is not None and ch.in_progress else None
        if member is not None and not member.in_game:
            assert allowed <= {Action.LEAVE, Action.JOIN}  # a player who left may rejoin
            assert not ch.may_advise(p)
            assert p not in ch.waiting_for()
        if g is not None and ch.in_progress and p == g.box:
            assert not ch.may_advise(p)
        assert ch.may_advise(p) == (Action.ADVISE in allowed)
        for a in Action:
            if a in allowed:
                if a in TARGETED_ACTIONS:
                    assert ch.targets(p, a)
                    for t in ch.members_in_game:
                        if t not in ch.targets(p, a) and g is not None and p == g.box:
                            _raises(ch, p, a, t, rng)
                continue
            if a in table_level:
                continue  # another player may: the method (which takes no player) would work
            _raises(ch, p, a, None, rng)
            assert not ch.targets(p, a)


def lost_if_beaten_now(ch: Chouette, side: Side) -> Result:
    """What ``side`` would lose by if the other side bore off its last checker now: the worst
    result still possible for it, found through the bear-off's own classification."""
    assert ch.game is not None
    loser = ch.game.position_for(side).me
    winner = (CHECKERS,) + (0,) * (len(loser) - 1)
    return classify_win(Position(winner, loser))


def check_departure(before: Chouette, after: Chouette, player: str) -> None:
    """``player`` left or ran out of time: with a game in play, each cube concerned is
    settled as a forfeit at the worst result still possible (single under Jacoby on an
    unturned cube) × that cube as it stood; otherwise no balance moves."""
    if not before.has_game_in_play(player):
        assert dict(after.ledger) == dict(before.ledger)
        return
    g, done = before.game, after.game
    assert g is not None and done is not None
    new = done.settlements[len(g.settlements) :]
    side = Side.BOX if player == g.box else Side.TEAM
    worst = lost_if_beaten_now(before, side)
    expected = g.in_game if side is Side.BOX else (player,)
    assert sorted(s.member for s in new) == sorted(expected)
    for s in new:
        m = g.member(s.member)
        assert m is not None
        counted = Result.SINGLE if before.options.jacoby and not m.turned else worst
        assert (s.how, s.loser, s.result, s.cube) == (
            SettledBy.FORFEIT,
            player,
            counted,
            m.cube.value,
        )
        # Leaving never pays: at least what a drop of that cube would cost.
        assert s.points >= m.cube.value
    assert not after.has_game_in_play(player)
    if side is Side.BOX:
        assert not after.in_progress


def _raises(ch: Chouette, p: str, a: Action, t: str | None, rng: random.Random) -> None:
    try:
        attempt(ch, p, a, t, rng)
    except IllegalActionError as e:
        # Lowercase, naming the player (the table-level methods take no player).
        assert str(e)[:1].islower() or str(e).startswith("'"), e
        assert a in TABLE_LEVEL or p in str(e), e
    else:
        raise AssertionError(f"{p} {a} {t} is not allowed but did not raise")


@settings(max_examples=100, deadline=None)
@given(
    opts=options,
    n=st.integers(2, 5),
    steps=st.integers(10, 90),
    seed=st.integers(0, 2**32),
)
def test_random_evenings_keep_the_invariants(
    opts: ChouetteOptions, n: int, steps: int, seed: int
) -> None:
    # A seeded generator rather than st.randoms(): a run makes thousands of choices, more
    # entropy than Hypothesis lets one example draw; the seed reproduces it exactly.
    rng = random.Random(seed)
    ch = Chouette.new(NAMES[:n], opts)
    for _ in range(steps):
        check(ch, rng)
        options_now = choices(ch)
        for p, a, t in options_now:  # allowed is exact: each of these succeeds
            if a is not Action.ADVISE:
                attempt(ch, p, a, t, rng)
        clocked = [q for q in ch.players if ch.has_game_in_play(q)]
        if clocked and rng.random() < TIMEOUT_RATE:
            who = rng.choice(clocked)
            before, ch = ch, ch.forfeit(who)
            check_departure(before, ch, who)
            assert who in ch.players  # out of time, still at the table
            continue
        weights = [WEIGHTS.get(a, 10) for _, a, _ in options_now]
        p, a, t = rng.choices(options_now, weights)[0]
        before = ch
        if a is Action.DOUBLE and t is not None and ch.options.cubes is CubeMode.MULTIPLE:
            # The box doubles a random subset of the members it may double.
            allowed = sorted(ch.targets(p, a))
            ch = ch.double(p, rng.sample(allowed, rng.randint(1, len(allowed))))
        elif a is Action.DOUBLE and t is not None:
            ch = ch.double(p)
        else:
            ch = attempt(ch, p, a, t, rng)
        if a is Action.LEAVE:
            check_departure(before, ch, p)
        if a is Action.START_GAME and rng.random() < 0.7 and ch.game is not None:
            ch = dataclasses.replace(
                ch, game=dataclasses.replace(ch.game, position=short_race(rng))
            )
    check(ch, rng)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_one_member_chouette_is_a_money_game_under_any_play(seed: int) -> None:
    """With one team member the chouette's board and cube follow a two-player money game."""
    rng = random.Random(seed)
    g = Game.new(GameOptions(beavers=True))
    ch = Chouette.from_line(["ann", "bob"], ChouetteOptions(beavers=True)).start_game()
    who = {0: "ann", 1: "bob"}
    for _ in range(150):
        if g.is_over:
            break
        acts = sorted(g.allowed(g.to_act if g.to_act is not None else 0))
        act = rng.choice([a for a in acts if a.value not in ("resign",)])
        player = g.to_act if g.to_act is not None else 0
        name = who[player]
        if act.value == "opening_throw":
            d = (rng.randint(1, 6), rng.randint(1, 6))
            g, ch = g.opening_throw(*d), ch.opening_throw(*d)
        elif act.value == "roll":
            d = (rng.randint(1, 6), rng.randint(1, 6))
            g, ch = g.roll(player, d), ch.roll(name, d)
        elif act.value == "move":
            chosen = rng.choice(g.legal_plays())
            g, ch = g.play(player, chosen), ch.play(name, chosen)
        else:
            g = getattr(g, act.value)(player)
            ch = getattr(ch, act.value)(name)
        m = ch.game.member("bob")
        if not g.is_over:
            assert (m.cube.value, m.cube.owner) == (g.cube.value, g.cube.owner)
        assert ch.position_id() == g.position_id()
        assert ch.game.is_over == g.is_over
        if not g.is_over and g.phase.value in ("roll", "move"):
            assert ch.turn == Side(g.turn)
    if g.is_over:
        assert g.result is not None
        s = ch.game.settlements[-1]
        assert (s.points, s.winner) == (g.result.points, who[g.result.winner])
