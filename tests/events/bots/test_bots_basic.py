"""The basic bot: legal, sensible and far better than random play (measured)."""

from __future__ import annotations

import math
import random

from engine.bots import basic
from engine.moves import legal_plays
from engine.notation import format_play
from engine.position import Position
from events.domain import types as e
from events.domain.bots import BasicBrain, Brain, next_command, settled_command
from events.domain.decider import evolve
from events.domain.table import TableState
from events.records.audit import audit_records
from events.records.simulate import SimulatedTable
from events.store.streams import table_stream
from tests.events.bots.bot_play import CubelessBasic, RandomBrain, play_money_games, play_table
from tests.records import recorded

GAMES = 400


def test_basic_beats_random_play_by_a_wide_margin() -> None:
    """400 money games, the cube put away on both sides (so a game's result is its checker
    play's), fair dice: the basic bot must win at least 70 % where random noise at n = 400 is
    about ±5 % around 50 %."""
    ended, _ = play_money_games(
        GAMES, {"basic": CubelessBasic(), "random": RandomBrain(random.Random(2))}, seed=3
    )
    wins = sum(1 for g in ended if g.winner == "basic")
    rate = wins / GAMES
    # The 95 % Wilson interval (the normal one is wrong this close to 1).
    z = 1.96
    centre = (rate + z * z / (2 * GAMES)) / (1 + z * z / GAMES)
    half = z * math.sqrt(rate * (1 - rate) / GAMES + z * z / (4 * GAMES**2)) / (1 + z * z / GAMES)
    low, high = centre - half, centre + half
    print(f"basic vs random: {wins}/{GAMES} = {rate:.3f}, 95 % [{low:.3f}, {high:.3f}]")
    assert rate >= 0.70


def test_with_the_cube_basic_wins_points_too() -> None:
    """With the cube on (the basic bot doubles by its rules; random play never doubles and
    takes or drops at random), 100 money games: the basic bot wins most of the points."""
    ended, table = play_money_games(
        100, {"basic": basic_brain(), "random": RandomBrain(random.Random(5))}, seed=6
    )
    points = sum(st.amount for g in ended for st in g.settlements if st.player == "basic")
    assert points > 60
    assert any(g.how == "drop" for g in ended)  # the cube was used
    assert audit_records(table_stream("bots"), recorded("bots", _steps(table))).failures == []


def basic_brain() -> BasicBrain:
    return BasicBrain()


def _steps(table: SimulatedTable) -> list[list[e.Event]]:
    return [list(step.events) for step in table.steps]


def test_a_chouette_of_bots_plays_to_the_end_and_audits_clean() -> None:
    brains: dict[str, Brain] = {p: BasicBrain() for p in ("ann", "bob", "cat", "dan")}
    table = play_table("chouette", brains, games=4, seed=11)
    ended = [ev for ev in table.events if isinstance(ev, e.GameEnded)]
    assert len(ended) == 4
    boxes = {ev.line[0] for ev in table.events if isinstance(ev, e.LineRotated)}
    assert len(boxes) >= 1
    assert any(isinstance(ev, e.CubeOffered) for ev in table.events)
    report = audit_records(table_stream("bots"), recorded("bots", _steps(table)))
    assert report.failures == []


def test_a_match_of_bots_plays_to_the_end_and_audits_clean() -> None:
    brains: dict[str, Brain] = {"ann": BasicBrain(), "bob": BasicBrain()}
    table = play_table("match", brains, games=99, options=e.TableOptions(match_length=3), seed=4)
    assert table.state.match_winner in ("ann", "bob")
    report = audit_records(table_stream("bots"), recorded("bots", _steps(table)))
    assert report.failures == []


# -- the rules, one by one ------------------------------------------------------------------------


def test_the_keith_count() -> None:
    side = Position.from_points({1: 3, 2: 2, 3: 4}, {}).me
    # pips 3 + 4 + 12 = 19; +4 (two extra on the 1), +1 (one extra on the 2), +1 (one beyond
    # three on the 3), +3 (4, 5 and 6 empty)
    assert basic.keith_count(side) == 19 + 4 + 1 + 1 + 3


def test_race_cube_decisions_follow_the_keith_count() -> None:
    # Even race, 80 pips each: the roller's count is 80 * 8/7 = 91.4, 11 more: no double.
    even = Position.from_points({6: 5, 5: 5, 4: 5, 3: 0, 20: 0}, {6: 5, 5: 5, 4: 5})
    assert not basic.in_contact(even)
    assert not basic.should_double(even)
    # Far ahead: double (the opponent drops).
    ahead = Position.from_points({1: 2, 2: 2}, {6: 5, 5: 5, 4: 5})
    assert basic.should_double(ahead)
    assert not basic.should_take(ahead)
    # Just ahead: a double and a take (roller 8/7 of 60 = 68.6, opponent 66).
    close = Position.from_points({6: 5, 4: 5, 2: 0}, {6: 5, 5: 1, 4: 4, 3: 1})
    k_me, k_opp = basic.keith_count(close.me), basic.keith_count(close.opp)
    lead = k_me * 8 / 7 - k_opp
    assert basic.should_double(close) == (lead <= 4)
    assert basic.should_take(close) == (lead >= 2)


def test_the_start_is_no_double_and_a_closeout_is_one() -> None:
    assert not basic.should_double(Position.start())
    assert basic.should_take(Position.start())
    # Five points closed, two of theirs on the bar, our last checkers safe: double, they drop.
    strong = Position.from_points(
        {1: 2, 2: 2, 3: 2, 4: 2, 5: 3, 6: 4}, {"bar": 2, 1: 3, 2: 3, 3: 3, 4: 4}
    )
    assert basic.win_chance(strong) > 0.75
    assert not basic.should_take(strong)


def test_resignations_are_accepted_only_when_they_pay_enough() -> None:
    # The resigner (on roll) has 14 checkers far from home and none off: a gammon is likely,
    # so a single is declined, and a gammon or backgammon accepted.
    lost = Position.from_points({24: 3, 23: 3, 22: 3, 13: 6}, {6: 1})
    assert not basic.accepts_resignation(lost, 1)
    assert basic.accepts_resignation(lost, 2)
    assert basic.accepts_resignation(lost, 3)
    # A single offered at the start is a gift: accepted.
    assert basic.accepts_resignation(Position.start(), 1)


def test_it_hits_and_makes_points() -> None:
    # 6-4 with an opposing blot on our 9 point (their 16) reachable from 13 and 15: the bot
    # hits rather than running a back checker.
    pos = Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 4, 8: 3, 6: 5, 16: 1})
    chosen = basic.choose_play(legal_plays(pos, (4, 2)).plays)
    assert "*" in format_play(pos, chosen.moves), format_play(pos, chosen.moves)


def test_every_choice_is_one_of_the_legal_plays() -> None:
    rng = random.Random(9)
    pos = Position.start()
    for _ in range(200):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = legal_plays(pos, dice).plays
        if not plays:
            pos = pos.swap()
            continue
        chosen = basic.choose_play(plays)
        assert chosen in plays
        pos = Position.start() if chosen.result.me[0] == 15 else chosen.result.swap()


class _Watched(BasicBrain):
    """The basic brain, noting whether it was asked anything."""

    asked = False

    def play(self, position, dice, plays):  # type: ignore[no-untyped-def]
        self.asked = True
        return super().play(position, dice, plays)

    def double(self, position, cube):  # type: ignore[no-untyped-def]
        self.asked = True
        return super().double(position, cube)

    def take(self, position, cube):  # type: ignore[no-untyped-def]
        self.asked = True
        return super().take(position, cube)

    def accept(self, position, level, cube):  # type: ignore[no-untyped-def]
        self.asked = True
        return super().accept(position, level, cube)


def test_what_needs_no_judgement_is_settled_in_process_exactly_as_the_brain_would() -> None:
    # A server asks settled_command first and sends only the rest to its bot workers: it must
    # settle exactly the cases where the brain is not consulted, with the same command.
    kinds: dict[str, int] = {"nothing": 0, "forced": 0, "judged": 0}
    for kind, names, options in (
        ("chouette", ("ann", "bob", "cat", "dan"), e.TableOptions()),
        ("match", ("ann", "bob"), e.TableOptions(match_length=3)),
    ):
        table = play_table(kind, {p: BasicBrain() for p in names}, games=3, options=options)
        state = TableState(table_id="bots")
        for step in table.steps:
            for event in step.events:
                state = evolve(state, event)
            for player in names:
                watched = _Watched()
                expected = next_command(state, player, watched)
                settled, command = settled_command(state, player)
                assert settled == (not watched.asked), (kind, state.version, player)
                if settled:
                    assert command == expected
                    kinds["nothing" if command is None else "forced"] += 1
                else:
                    kinds["judged"] += 1
    # A forced command is mostly a roll on a cube the other side owns: the basic bot doubles
    # seldom since its cube follows its fitted estimates (issue 29), so fewer of those.
    assert min(kinds["nothing"], kinds["judged"]) > 50 and kinds["forced"] > 15, kinds
