"""The basic bot's cube decisions judged by GNU Backgammon: for ``bench/bots.py``'s cube-quality
figures and the tests of the basic bot's cube (tests/events/bots/test_basic_cube_quality.py).

:class:`WatchedBasic` is the basic bot keeping every cube decision it makes (double or not when
it may double, take or drop), with the position and cube it saw. :func:`judge` asks GNU
Backgammon's ``gnubg`` module about each: its 0-ply cubeless probabilities for the position
(the doubler's chance of winning) and the gnubg strength's cube decision on them
(:class:`events.gnubg.bot.GnubgBrain` at 0-ply: Janowski's money window with a cube efficiency
of 0.68, too good at a cubeless equity of a point or more; in a match, GNU Backgammon's match
equity table, the cube dead).

A decision is **wrong** when that judgement differs from the bot's:

- a wrong double: the bot doubled where GNU Backgammon does not (not good enough, or too good:
  play on for the gammon);
- a wrong take: the bot took where GNU Backgammon passes;
- a wrong drop: the bot dropped where GNU Backgammon takes;
- a missed double (counted, but not in the error rate): no double where GNU Backgammon doubles.

The error rate is the wrong doubles, takes and drops over the decisions where the bot acted
(doubled, took or dropped).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from engine.position import Position
from events.domain import types as e
from events.domain.bots import BasicBrain, Brain, CubeContext
from tests.events.bots.bot_play import play_money_games, play_table

__all__ = ["CubeTally", "Seen", "WatchedBasic", "judge", "watched_games"]


@dataclass(frozen=True, slots=True)
class Seen:
    """One cube decision of the basic bot: ``double`` (seen by the player on roll: True when it
    doubled) or ``take`` (seen by the doubler: True when it took)."""

    kind: Literal["double", "take"]
    position: Position
    cube: CubeContext
    chosen: bool


class WatchedBasic(BasicBrain):
    """The basic bot, keeping each cube decision it makes."""

    def __init__(self) -> None:
        self.seen: list[Seen] = []

    def double(self, position: Position, cube: CubeContext) -> bool:
        chosen = super().double(position, cube)
        self.seen.append(Seen("double", position, cube, chosen))
        return chosen

    def take(self, position: Position, cube: CubeContext) -> bool:
        chosen = super().take(position, cube)
        self.seen.append(Seen("take", position, cube, chosen))
        return chosen


@dataclass(slots=True)
class CubeTally:
    decisions: int = 0
    doubles: int = 0
    doubles_below_50: int = 0
    wrong_doubles: int = 0
    missed_doubles: int = 0
    takes: int = 0
    drops: int = 0
    wrong_takes: int = 0
    wrong_drops: int = 0
    lowest_double_win: float | None = None
    wrong: list[tuple[Seen, float]] = field(default_factory=list)
    """The wrong decisions, each with GNU Backgammon's chance of winning for the doubler."""

    @property
    def acted(self) -> int:
        return self.doubles + self.takes + self.drops

    @property
    def errors(self) -> int:
        return self.wrong_doubles + self.wrong_takes + self.wrong_drops

    @property
    def error_rate(self) -> float:
        return self.errors / self.acted if self.acted else 0.0

    def doc(self, prefix: str = "basic_") -> dict[str, Any]:
        low = self.lowest_double_win
        return {
            f"{prefix}cube_decisions": self.decisions,
            f"{prefix}doubles": self.doubles,
            f"{prefix}doubles_below_50": self.doubles_below_50,
            f"{prefix}wrong_doubles": self.wrong_doubles,
            f"{prefix}missed_doubles": self.missed_doubles,
            f"{prefix}takes": self.takes,
            f"{prefix}drops": self.drops,
            f"{prefix}wrong_takes": self.wrong_takes,
            f"{prefix}wrong_drops": self.wrong_drops,
            f"{prefix}cube_error_rate": round(self.error_rate, 3),
            f"{prefix}lowest_double_win": None if low is None else round(low, 3),
        }


def judge(seen: list[Seen], tally: CubeTally | None = None) -> CubeTally:
    """Each decision in ``seen`` against GNU Backgammon's at 0-ply (see the module's docstring)."""
    from events.gnubg.bot import GnubgBrain, probabilities

    oracle = GnubgBrain(0)
    t = tally or CubeTally()
    for s in seen:
        t.decisions += 1
        win = float(probabilities(s.position, 0)[0])
        if s.kind == "double":
            right = oracle.double(s.position, s.cube)
            if s.chosen:
                t.doubles += 1
                t.doubles_below_50 += win < 0.5
                low = t.lowest_double_win
                t.lowest_double_win = win if low is None else min(low, win)
                if not right:
                    t.wrong_doubles += 1
                    t.wrong.append((s, win))
            elif right:
                t.missed_doubles += 1
            continue
        right = oracle.take(s.position, s.cube)
        if s.chosen:
            t.takes += 1
        else:
            t.drops += 1
        if s.chosen != right:
            if s.chosen:
                t.wrong_takes += 1
            else:
                t.wrong_drops += 1
            t.wrong.append((s, win))
    return t


def watched_games(money: int, matches: int, match_length: int = 5, seed: int = 1) -> list[Seen]:
    """The basic bot's cube decisions in seeded games: ``money`` money games and ``matches``
    matches to ``match_length``, each against GNU Backgammon's bot (0-ply) and against another
    basic bot (both watched)."""
    from events.gnubg.bot import GnubgBrain

    seen: list[Seen] = []
    for against_gnubg in (True, False):
        for i in range(2):  # each kind of table twice as many times over, seats swapped
            watched = WatchedBasic()
            other: Brain = GnubgBrain(0) if against_gnubg else WatchedBasic()
            brains: dict[str, Brain] = (
                {"basic": watched, "other": other} if i == 0 else {"other": other, "basic": watched}
            )
            n = money // 2 + (money % 2 if i == 0 else 0)
            if n:
                play_money_games(n, brains, seed=seed + 31 * i + 7 * against_gnubg)
            for m in range(matches // 2 + (matches % 2 if i == 0 else 0)):
                play_table(
                    "match",
                    brains,
                    games=99,
                    options=e.TableOptions(match_length=match_length),
                    seed=seed + 1000 + 97 * m + 31 * i + 7 * against_gnubg,
                )
            seen += watched.seen
            if isinstance(other, WatchedBasic):
                seen += other.seen
    return seen
