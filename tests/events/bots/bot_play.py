"""Bots playing tables through the decider, without a server: for the bots' tests and bench."""

from __future__ import annotations

import random

from engine.moves import Play
from engine.position import Position
from events.domain import commands as c
from events.domain import types as e
from events.domain.bots import BasicBrain, Brain, CubeContext, next_command
from events.domain.table import TableState
from events.records.simulate import SimulatedTable


class RandomBrain:
    """Random legal plays; never doubles; takes and accepts at random."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def play(self, position: Position, dice: tuple[int, int], plays: tuple[Play, ...]) -> Play:
        return self.rng.choice(plays)

    def double(self, position: Position, cube: CubeContext) -> bool:
        return False

    def take(self, position: Position, cube: CubeContext) -> bool:
        return self.rng.random() < 0.5

    def accept(self, position: Position, level: int, cube: CubeContext) -> bool:
        return self.rng.random() < 0.5


class CubelessBasic(BasicBrain):
    """The basic bot with its cube put away (to measure checker play alone)."""

    def double(self, position: Position, cube: CubeContext) -> bool:
        return False


def play_money_games(
    games: int, brains: dict[str, Brain], seed: int = 1, cube: bool = True
) -> tuple[list[e.GameEnded], SimulatedTable]:
    """``games`` money games between the two players named in ``brains`` (each driven by
    :func:`events.domain.bots.next_command`), through the decider with fair dice."""
    rng = random.Random(seed)
    a, b = brains
    table = SimulatedTable("bots", state=TableState(table_id="bots"))
    table.run(a, c.CreateTable(kind="money", options=e.TableOptions()), rng)
    table.run(a, c.Join(display_name=a), rng)
    table.run(b, c.Join(display_name=b), rng)
    ended: list[e.GameEnded] = []
    for _ in range(games * 400):
        s = table.state
        if not s.in_game:
            if len(ended) >= games:
                break
            table.run(a, c.StartGame(), rng)
            continue
        acted = False
        for player, brain in brains.items():
            command = next_command(s, player, brain)
            if command is not None:
                before = len(table.steps)
                table.run(player, command, rng)
                new = table.steps[before:]
                ended += [ev for st in new for ev in st.events if isinstance(ev, e.GameEnded)]
                acted = True
                break
        assert acted, f"nobody acts at version {s.version}"
    assert len(ended) >= games
    return ended[:games], table


def play_table(
    kind: str,
    brains: dict[str, Brain],
    *,
    games: int = 1,
    options: e.TableOptions | None = None,
    seed: int = 1,
    limit: int = 20_000,
) -> SimulatedTable:
    """A match or a chouette of bots (driven by :func:`events.domain.bots.next_command`) through the
    decider with fair dice, until the match ends or ``games`` chouette games have ended. The
    first player creates the table and starts a chouette's first game."""
    rng = random.Random(seed)
    names = list(brains)
    table = SimulatedTable("bots", state=TableState(table_id="bots"))
    table.run(names[0], c.CreateTable(kind=kind, options=options or e.TableOptions()), rng)  # type: ignore[arg-type]
    for p in names:
        table.run(p, c.Join(display_name=p), rng)
    if kind == "chouette":
        table.run(names[0], c.StartGame(), rng)
    ended = 0
    for _ in range(limit):
        s = table.state
        if s.match_winner or ended >= games or not s.in_game:
            return table
        ch = s.chouette
        order = sorted(names, key=lambda p: ch is not None and p == ch.on_roll)
        for player in order:
            command = next_command(s, player, brains[player])
            if command is not None:
                before = len(table.steps)
                table.run(player, command, rng)
                ended += sum(
                    isinstance(ev, e.GameEnded) for st in table.steps[before:] for ev in st.events
                )
                break
        else:
            raise AssertionError(f"nobody acts at version {s.version}")
    raise AssertionError("the table did not finish")
