"""The match of issue 27, decided through the decider with fair dice at times of our own, and
the log that the server wrote for it before the fix (a *poisoned* log), for the tests of
"a finished match is finished" (docs/rules.md §10) in ``tests/events`` and ``tests/server``.

The player's report: a 3-point match with clocks (``{"delay": 3, "reserve": 20}``); game 1
ends on a double and a drop (1-0) and game 2 starts, not yet thrown; the leader leaves. The
server wrote ``player_left`` and ``match_ended`` with game 2 left open, and 3 s later the
timer's ``opening_throw`` into the finished match.
"""

from __future__ import annotations

from events.domain import commands as c
from events.domain import types as e
from events.domain.decider import decide, evolve
from events.domain.dice import FairDice
from events.domain.table import TableState
from tests.dice import fair_seed

__all__ = ["CLOCK", "DICE", "T0", "Match", "poisoned_steps"]

T0 = 1_764_000_000_000
"""When the table is created (ms since the epoch)."""

CLOCK = e.ClockOptions(delay=3, reserve=20)
"""The clocks of the player's match."""

DICE = FairDice({1: fair_seed([3, 1], "finished-1"), 2: fair_seed([5, 2], "finished-2")})
"""Fair dice whose seeds give these throws first, so an audit re-derives every die: game 1
opens 3-1 (the first player, in seat 0, plays 8/5 6/5); game 2 would open 5-2."""


class Match:
    """A 3-point match between ``ann`` (seat 0) and ``bob`` (seat 1) with the player's clocks,
    each command decided a second after the one before (``after_s``)."""

    def __init__(
        self, table_id: str = "t", ann: str = "ann", bob: str = "bob", **options: object
    ) -> None:
        self.ann, self.bob = ann, bob
        self.state = TableState(table_id=table_id)
        self.steps: list[list[e.Event]] = []
        self.now = T0
        opts = e.TableOptions(match_length=3, clock=CLOCK, **options)  # type: ignore[arg-type]
        self.do(ann, c.CreateTable(kind="match", options=opts))
        self.do(ann, c.Join())
        self.do(bob, c.Join())

    def do(self, actor: str, command: c.Command, after_s: float = 1) -> list[e.Event]:
        """Decide ``command`` by ``actor`` ``after_s`` seconds on, fold and keep its events."""
        self.now += int(after_s * 1000)
        events = decide(self.state, actor, command, DICE, self.now)
        for ev in events:
            self.state = evolve(self.state, ev)
        self.steps.append(events)
        return events

    def game_one_dropped(self) -> list[e.Event]:
        """Game 1 ends on a double and a drop: bob leads 1-0, game 2 starts, not yet thrown.
        Returns the drop's events."""
        self.do(self.ann, c.Roll())  # the opening 3-1: ann plays
        self.do(self.ann, c.Move(notation="8/5 6/5"))
        self.do(self.bob, c.Double())
        return self.do(self.ann, c.Drop())

    @property
    def events(self) -> list[e.Event]:
        return [ev for step in self.steps for ev in step]


def poisoned_steps(table_id: str = "t", ann: str = "ann", bob: str = "bob") -> list[list[e.Event]]:
    """The steps (one command's events each) that the server wrote before issue 27 was fixed:
    game 1 dropped, game 2 started; bob, leading 1-0, leaves and the match ends at once with
    game 2 left open; 3 s later the timer throws game 2's opening into the finished match (its
    last step, one event)."""
    m = Match(table_id, ann, bob)
    m.game_one_dropped()
    left_at = m.now + 1000
    return [
        *m.steps,
        [
            e.PlayerLeft(player=bob, at=left_at),
            e.MatchEnded(winner=ann, score=[0, 1], at=left_at),
        ],
        [e.OpeningThrow(dice=(DICE.die(2, 0), DICE.die(2, 1)), at=left_at + CLOCK.delay * 1000)],
    ]
