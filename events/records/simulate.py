"""Random tables played through the decider: money play, matches and chouettes.

:func:`simulate_table` and :func:`simulate_chouette` make random (legal) choices, with fair dice
whose seeds are known, for the benchmarks, the tests and demonstrations. Every command is run
through :func:`~events.domain.decider.decide` exactly as the table service runs it, so a simulated
table
is one a server could have recorded.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.actions import Action
from engine.game import Phase
from events.domain import commands as c
from events.domain import types as e
from events.domain.decider import decide, evolve
from events.domain.dice import FairDice
from events.domain.table import TableState

__all__ = ["SimulatedTable", "Step", "simulate_chouette", "simulate_table"]


@dataclass(frozen=True, slots=True)
class Step:
    """One command of a simulated table and the events the decider recorded for it."""

    actor: str
    command: c.Command
    events: tuple[e.Event, ...]


@dataclass(slots=True)
class SimulatedTable:
    """A table played through the decider with random (legal) choices and fair dice whose
    seeds are known."""

    table_id: str
    steps: list[Step] = field(default_factory=list)
    state: TableState = field(default_factory=TableState)
    seeds: dict[int, bytes] = field(default_factory=dict)
    """The secret seed of each game (revealed in its ``game_ended``)."""
    now: int = 1_764_000_000_000
    """The time commands are decided at (ms since the epoch): a few seconds pass per step."""

    @property
    def events(self) -> list[e.Event]:
        return [ev for step in self.steps for ev in step.events]

    def run(self, actor: str, command: c.Command, rng: random.Random) -> None:
        """Decide ``command`` with fair dice (a new game's seed drawn from ``rng``) and fold
        its events."""
        s = self.state
        for g in (s.game_no, s.game_no + 1):
            if g and g not in self.seeds:
                self.seeds[g] = rng.randbytes(32)
        dice = FairDice(self.seeds)
        self.now += 1500  # (not drawn from ``rng``: the same seed plays the same games)
        events = decide(s, actor, command, dice, self.now)
        for ev in events:
            s = evolve(s, ev)
        self.state = s
        self.steps.append(Step(actor, command, tuple(events)))


def _seed_window(
    table: SimulatedTable, rng: random.Random, seed_rate: float, waive_rate: float = 0.4
) -> None:
    """Each player the open seed window waits for adds a seed, waives or says nothing; then,
    if some said nothing, time runs out (the next throw closes the window)."""
    for p in table.state.seed_waiting:
        r = rng.random()
        if r < seed_rate:
            table.run(p, c.AddSeed(seed=f"{p}-{rng.getrandbits(64):x}"), rng)
        elif r < seed_rate + waive_rate:
            table.run(p, c.WaiveSeed(), rng)
    if table.state.window_open:
        table.now = max(table.now, table.state.seed_deadline)


def simulate_table(
    table_id: str,
    *,
    games: int = 1,
    kind: str = "money",
    options: e.TableOptions | None = None,
    rng: random.Random | None = None,
    players: tuple[str, str] = ("alice", "bob"),
    double_rate: float = 0.04,
    drop_rate: float = 0.25,
    resign_rate: float = 0.003,
    seed_rate: float = 0.2,
    finish: bool = True,
) -> SimulatedTable:
    """Play ``games`` random games at a new money or match table through the decider.

    Every throw comes from :class:`~events.domain.dice.FairDice` with seeds drawn from ``rng``;
    every
    play is a random legal play; cubes are offered, taken, dropped and beavered, resignations
    offered, accepted and declined, and players add seeds of their own, at the given rates.
    A match ends when it is won, whatever ``games`` says. A money table's next game starts when
    a player starts it (docs/rules.md §10): after the last game one is started, so the table
    ends as a live one does, with a game whose seed is secret. With ``finish=False`` the last
    game is left in play (for pending dice).
    """
    rng = rng or random.Random(0)
    if options is None:
        options = e.TableOptions(match_length=5 if kind == "match" else 0)
    table = SimulatedTable(table_id, state=TableState(table_id=table_id))

    def run(actor: str, command: c.Command) -> None:
        table.run(actor, command, rng)

    run(players[0], c.CreateTable(kind=kind, options=options))  # type: ignore[arg-type]
    run(players[0], c.Join(display_name=players[0].title()))
    run(players[1], c.Join(display_name=players[1].title()))
    played = 0
    while True:
        s = table.state
        if not s.in_game:
            if s.kind != "money" or s.match_winner or played >= games:
                break
            run(players[0], c.StartGame())  # a money table waits for a player to start
            continue
        game = s.game
        assert game is not None
        if game.is_over:  # pragma: no cover - the decider starts the next game at once
            break
        if not finish and played == games - 1 and s.dice_counter > 20 and rng.random() < 0.05:
            break
        number = s.game_no
        if game.phase is Phase.OPENING:
            if s.window_open:
                _seed_window(table, rng, seed_rate)
            for p in players:
                if not s.options.seed_window and s.dice_counter == 0 and rng.random() < seed_rate:
                    run(p, c.AddSeed(seed=f"{p}-{rng.getrandbits(64):x}"))
            run(rng.choice(players), c.Roll())
        elif game.phase is Phase.ROLL:
            me = players[game.turn]
            # In a match nobody sane turns the cube past what the match needs.
            sane = s.kind != "match" or game.cube.value * 2 <= s.options.match_length
            if game.can_double(game.turn) and sane and rng.random() < double_rate:
                run(me, c.Double())
            elif rng.random() < resign_rate:
                run(me, c.Resign(level=rng.choice((1, 1, 2, 3))))
            else:
                run(me, c.Roll())
        elif game.phase is Phase.MOVE:
            plays = game.legal_plays()
            moves = rng.choice(plays).moves if plays else ()
            run(players[game.turn], c.Move(moves=[(a, b) for a, b in moves]))
        elif game.phase is Phase.DOUBLED:
            assert game.pending is not None
            who = players[game.pending.responder]
            r = rng.random()
            if r < drop_rate:
                run(who, c.Drop())
            elif s.options.beavers and not game.pending.beavered and r < drop_rate + 0.1:
                run(who, c.Beaver())
            else:
                run(who, c.Take())
        elif game.phase is Phase.RESIGNATION:
            assert game.resignation is not None
            who = players[1 - game.resignation.by]
            run(who, c.Accept() if rng.random() < 0.6 else c.Decline())
        if table.state.game_no != number or not table.state.in_game:
            played += 1
            if played >= games:
                break
    end = table.state
    if finish and end.kind == "money" and not end.in_game:
        # A player starts the next game, as at a live table: its seed is still secret.
        run(players[0], c.StartGame())
    return table


def simulate_chouette(
    table_id: str,
    *,
    players: Sequence[str] = ("ann", "bob", "cat", "dan"),
    games: int = 1,
    options: e.TableOptions | None = None,
    rng: random.Random | None = None,
    double_rate: float = 0.05,
    drop_rate: float = 0.3,
    resign_rate: float = 0.003,
    leave_rate: float = 0.0,
    finish: bool = True,
) -> SimulatedTable:
    """Play ``games`` random games of a chouette through the decider, like
    :func:`simulate_table`: the box doubles some or all cubes, members double their own, each
    answers on their own; resignations between the box and a member; with ``leave_rate`` a
    member now and then leaves in mid-game (and comes back for the next)."""
    rng = rng or random.Random(0)
    table = SimulatedTable(table_id, state=TableState(table_id=table_id))
    options = options or e.TableOptions()

    def run(actor: str, command: c.Command) -> None:
        table.run(actor, command, rng)

    run(players[0], c.CreateTable(kind="chouette", options=options))
    for p in players:
        run(p, c.Join(display_name=p.title()))
    run(players[0], c.StartGame())
    played = 0
    away: list[str] = []
    while table.state.in_game:
        st = table.state
        ch = st.chouette
        assert ch is not None
        if st.window_open:
            _seed_window(table, rng, seed_rate=0.5)
            if not table.state.window_open:  # the last answer closed it (and threw the line)
                continue
        if ch.ordering is not None:
            run(rng.choice(st.members), c.Roll())  # throws for the line
            continue
        assert ch.game is not None
        g = ch.game
        number = st.game_no
        if not finish and played == games - 1 and st.dice_counter > 20 and rng.random() < 0.05:
            break
        waiting = ch.waiting_for()
        if g.phase is Phase.OPENING:
            if (
                not st.options.seed_window
                and not st.dice_counter
                and number > 1
                and rng.random() < 0.3
            ):
                run(g.captain, c.AddSeed(seed=f"{g.captain}-{rng.getrandbits(32):x}"))
            run(g.box, c.Roll())
        elif waiting:
            who = rng.choice(waiting)
            allowed = ch.allowed(who)
            answers = [a for a in (Action.TAKE, Action.DROP, Action.BEAVER) if a in allowed]
            if not answers:
                answer = Action.ACCEPT if Action.ACCEPT in allowed else Action.DECLINE
                target = sorted(ch.targets(who, answer))[0] if who == g.box else ""
                run(who, c.Accept(cube=target) if rng.random() < 0.6 else c.Decline(cube=target))
            else:
                r = rng.random()
                action = (
                    Action.DROP
                    if r < drop_rate and Action.DROP in answers
                    else Action.BEAVER
                    if r < drop_rate + 0.1 and Action.BEAVER in answers
                    else Action.TAKE
                )
                if action not in answers:
                    action = answers[0]
                target = sorted(ch.targets(who, action))[0] if who == g.box else ""
                command = {Action.TAKE: c.Take, Action.DROP: c.Drop, Action.BEAVER: c.Beaver}
                run(who, command[action](cube=target))
        elif g.phase is Phase.ROLL:
            roller = ch.on_roll
            assert roller is not None
            doublers = [p for p in (g.box, *g.in_game) if Action.DOUBLE in ch.allowed(p)]
            resigners = [p for p in (g.box, *g.in_game) if Action.RESIGN in ch.allowed(p)]
            leavers = [m for m in g.in_game if m != roller]
            if doublers and rng.random() < double_rate:
                who = rng.choice(doublers)
                if who == g.box:
                    targets = sorted(ch.targets(who, Action.DOUBLE))
                    some = rng.sample(targets, rng.randint(1, len(targets)))
                    if options.cube_mode == "single" or len(some) == len(targets):
                        some = []  # every cube it may turn (with a single cube, the team's)
                    run(who, c.Double(cubes=some))
                else:
                    run(who, c.Double())
            elif resigners and rng.random() < resign_rate:
                who = rng.choice(resigners)
                to = sorted(ch.targets(who, Action.RESIGN))[:1] if who == g.box else []
                run(who, c.Resign(level=rng.choice((1, 1, 2)), to=to))
            elif leavers and rng.random() < leave_rate:
                who = rng.choice(leavers)
                run(who, c.Leave())
                away.append(who)
            else:
                run(roller, c.Roll())
        elif g.phase is Phase.MOVE:
            plays = g.legal_plays()
            moves = rng.choice(plays).moves if plays else ()
            on_roll = ch.on_roll
            assert on_roll is not None
            run(on_roll, c.Move(moves=[(a, b) for a, b in moves]))
        else:  # pragma: no cover - the decider starts the next game at once
            break
        if table.state.game_no != number or not table.state.in_game:
            played += 1
            for p in away:
                run(p, c.Join(display_name=p.title()))
            away.clear()
            if played >= games:
                break
    return table
