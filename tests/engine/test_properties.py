"""Invariants of positions, legal plays, IDs and notation, and of forfeits in money play and
matches, checked with Hypothesis."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Action
from engine.errors import IllegalActionError, IllegalPlayError
from engine.game import Game, GameOptions, Result, classify_win, forfeit_result
from engine.match import Match
from engine.moves import _single_move, apply_moves, legal_plays, play
from engine.notation import format_play, parse_play
from engine.position import BAR, CHECKERS, Position


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """Any valid position: up to 15 checkers a side anywhere (bar included), one colour a point."""
    me, opp = [0] * 26, [0] * 26
    left = [15, 15]
    for p in draw(st.permutations(range(1, 26))):
        owner = draw(st.sampled_from((None, 0, 1)))
        if owner is None or not left[owner]:
            continue
        n = draw(st.integers(1, min(left[owner], 6)))
        left[owner] -= n
        if p == BAR:
            (me if owner == 0 else opp)[BAR] += n
        elif owner == 0:
            me[p] += n
        else:
            opp[BAR - p] += n
    return Position.from_sides(me, opp)


dice = st.tuples(st.integers(1, 6), st.integers(1, 6))


@given(positions(), dice)
def test_checkers_are_conserved_and_points_have_one_colour(
    pos: Position, roll: tuple[int, int]
) -> None:
    for p in legal_plays(pos, roll):
        r = p.result
        assert sum(r.me) == sum(r.opp) == 15
        assert all(c >= 0 for c in (*r.me, *r.opp))
        assert not any(r.me[q] and r.opp[BAR - q] for q in range(1, 25))
        # The opponent's checkers only ever go to the bar, and only the mover's move.
        assert r.opp[0] == pos.opp[0]
        assert r.opp[BAR] - pos.opp[BAR] == sum(pos.opp[1:25]) - sum(r.opp[1:25])


@given(positions(), dice)
def test_each_play_result_is_its_moves_applied(pos: Position, roll: tuple[int, int]) -> None:
    plays = legal_plays(pos, roll)
    for p in plays:
        assert apply_moves(pos, roll, p.moves) == p.result
        assert play(pos, roll, p.moves).result == p.result
        assert p.moves in plays
    assert len(plays.results()) == len(plays)


def _reference_results(pos: Position, roll: tuple[int, int]) -> set[Position]:
    """The legal results by brute force, from the one-move rules of :func:`_single_move` only:
    every sequence of moves, each die order; keep the most dice used, then the most pips."""
    a, b = roll
    orders = [(a,) * 4] if a == b else [(a, b), (b, a)]
    found: dict[Position, tuple[int, int]] = {}

    def walk(me: list[int], opp: list[int], seq: tuple[int, ...], k: int, pips: int) -> None:
        result = Position(tuple(me), tuple(opp))
        found[result] = max(found.get(result, (0, 0)), (k, pips))
        if k == len(seq):
            return
        for frm in range(BAR, 0, -1):
            if me[frm]:
                me2, opp2 = me[:], opp[:]
                try:
                    _single_move(me2, opp2, frm, max(frm - seq[k], 0), [seq[k]])
                except IllegalPlayError:
                    continue
                walk(me2, opp2, seq, k + 1, pips + seq[k])

    for seq in orders:
        walk(list(pos.me), list(pos.opp), seq, 0, 0)
    best = max(found.values())
    return set() if best[0] == 0 else {r for r, used in found.items() if used == best}


@settings(max_examples=150, deadline=None)  # a crowded double takes a while by brute force
@given(positions(), dice)
def test_agrees_with_brute_force(pos: Position, roll: tuple[int, int]) -> None:
    assert legal_plays(pos, roll).results() == _reference_results(pos, roll)


@given(positions(), dice)
def test_every_play_uses_the_same_number_of_dice(pos: Position, roll: tuple[int, int]) -> None:
    assert len({len(p.moves) for p in legal_plays(pos, roll)}) <= 1


@given(positions(), dice)
def test_order_of_dice_does_not_matter(pos: Position, roll: tuple[int, int]) -> None:
    assert legal_plays(pos, roll).results() == legal_plays(pos, roll[::-1]).results()


@given(positions())
def test_position_id_round_trip(pos: Position) -> None:
    assert Position.from_id(pos.position_id()) == pos
    assert pos.swap().swap() == pos


@settings(max_examples=60, deadline=None)
@given(positions(), dice, st.data())
def test_notation_round_trip(pos: Position, roll: tuple[int, int], data: st.DataObject) -> None:
    plays = legal_plays(pos, roll).plays
    if not plays:
        assert parse_play(pos, roll, format_play(pos, ())).result == pos
        return
    for i in data.draw(st.lists(st.integers(0, len(plays) - 1), min_size=1, max_size=4)):
        text = format_play(pos, plays[i])
        assert parse_play(pos, roll, text).result == plays[i].result, text


@given(positions())
def test_forfeit_result_is_the_loss_if_the_opponent_bore_off_now(pos: Position) -> None:
    """The worst result still possible (docs/rules.md §10) is what the bear-off would make it."""
    borne_off = (CHECKERS,) + (0,) * BAR
    assert forfeit_result(pos) == classify_win(Position(borne_off, pos.me))


def _random_step(game: Game, rng: random.Random) -> Game:
    """One random allowed action in ``game``, with random dice and a random legal play."""
    player = game.to_act if game.to_act is not None else 0
    acts = sorted(game.allowed(player))
    act = rng.choice(acts)
    dice = (rng.randint(1, 6), rng.randint(1, 6))
    match act:
        case Action.OPENING_THROW:
            return game.opening_throw(*dice)
        case Action.ROLL:
            return game.roll(player, dice)
        case Action.MOVE:
            return game.play(player, rng.choice(game.legal_plays()))
        case Action.RESIGN:
            return game.resign(player, rng.randint(1, 3))
        case _:
            return getattr(game, act.value)(player)


@settings(max_examples=80, deadline=None)
@given(
    length=st.sampled_from((0, 0, 1, 3, 7)),
    jacoby=st.booleans(),
    auto_doubles=st.integers(0, 2),
    steps=st.integers(0, 150),
    seed=st.integers(0, 2**32),
)
def test_a_forfeit_at_any_moment_pays_the_worst_result(
    length: int, jacoby: bool, auto_doubles: int, steps: int, seed: int
) -> None:
    """Money play or a match, played at random, then a random player forfeits: the game in
    play is scored at the worst result still possible × the cube as it stands (single under
    Jacoby on a cube never taken), what one player wins the other loses, and a match goes to
    the opponent whatever the score."""
    rng = random.Random(seed)
    opts = GameOptions(beavers=True, jacoby=jacoby, auto_doubles=auto_doubles)
    m = Match.to(length) if length else Match.money(opts)
    for _ in range(steps):
        if m.is_over:
            break
        assert m.game is not None
        m = m.next_game() if m.game.is_over else m.act(lambda g: _random_step(g, rng))
    player = rng.randint(0, 1)
    if not m.in_play:
        try:
            m.forfeit(player)
        except IllegalActionError:
            return
        raise AssertionError("a forfeit with nothing in play")
    game = m.game
    assert game is not None
    after = m.forfeit(player)
    winner = 1 - player
    if game.is_in_play:
        r = after.results[-1]
        worst = classify_win(Position((CHECKERS,) + (0,) * BAR, game.position_for(player).me))
        counted = Result.SINGLE if game.options.jacoby and not game.cube_taken else worst
        assert (r.winner, r.result, r.cube, r.how) == (winner, counted, game.cube.value, "forfeit")
        assert after.score[winner] - m.score[winner] == r.points >= game.cube.value
        assert after.score[player] == m.score[player]
        assert after.game is not None and after.game.is_over
    else:
        assert after.score == m.score and after.results == m.results
    if length:
        assert after.is_over and after.winner == winner
    else:
        assert after.winner is None and not after.in_play
