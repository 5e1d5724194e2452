"""What a bot does next at a table: ``next_command(state, bot, brain)``, pure.

A bot is a player like any other (docs/bots.md): it acts only through commands, which the
server runs through the same service, decider and audit as everyone's. This module reads a
table's folded state and says which command the bot should send now, or None when the table
does not wait for it. The judgement (which play, double or not, take or drop, accept a
resignation or not) is a :class:`Brain`'s: :class:`BasicBrain` (:mod:`engine.bots.basic`), or
GNU Backgammon's (:mod:`events.gnubg.bot`, with the optional extra).

What a bot does, by the table's state:

- the seed window: it waives its seed (a bot has no seed of its own to add);
- the opening throw (or a chouette's throws for the line): it throws, as the box or the captain
  in a chouette;
- on roll: it doubles when its brain says so, else it rolls; in a chouette the box doubles the
  cubes its brain picks, and a team member its own cube before the captain rolls;
- with the dice thrown: it plays the brain's play;
- doubled: it takes or drops (it never beavers; a beaver against it is taken or dropped by the
  same rule);
- offered a resignation: it accepts or declines; it never resigns itself;
- a money table between games: nothing (a money table's next game starts when a person throws
  for it), nor does a bot start a chouette's game.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal, Protocol

from engine.actions import Action
from engine.bots import basic
from engine.chouette import Chouette, ChouetteGame, MemberGame, Side
from engine.game import Cube, Game, Phase
from engine.moves import Play
from engine.position import Position
from events.domain import commands as c
from events.domain.table import TableState
from events.gnubg.bot import GnubgBrain
from events.gnubg.bot import available as gnubg_available

__all__ = [
    "STRENGTHS",
    "BasicBrain",
    "Brain",
    "CubeContext",
    "Strength",
    "bot_order",
    "brain_for",
    "decide_for",
    "gnubg_available",
    "next_command",
    "settled_command",
    "warm",
]

Strength = Literal["basic", "gnubg"]
STRENGTHS: tuple[Strength, ...] = ("basic", "gnubg")


@dataclass(frozen=True, slots=True)
class CubeContext:
    """The cube and score as the player a decision is asked of sees them (the player on roll,
    or for a take the doubler)."""

    value: int = 1
    owner: int | None = None
    """0: the player on roll owns the cube; 1: the other; None: centred."""
    match_length: int = 0
    """0 in money play."""
    score: tuple[int, int] = (0, 0)
    """(the player on roll's, the other's)."""
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False


class Brain(Protocol):
    """A bot's judgement. Each position is seen by the player on roll, before rolling (for
    a play: with the dice thrown)."""

    def play(self, position: Position, dice: tuple[int, int], plays: tuple[Play, ...]) -> Play:
        """The play to make, one of ``plays`` (never empty)."""
        ...

    def double(self, position: Position, cube: CubeContext) -> bool:
        """Whether the player on roll doubles."""
        ...

    def take(self, position: Position, cube: CubeContext) -> bool:
        """Whether the opponent of the player on roll (the doubler) takes."""
        ...

    def accept(self, position: Position, level: int, cube: CubeContext) -> bool:
        """Whether the opponent of the player on roll accepts their offer to resign
        ``level``."""
        ...


class BasicBrain:
    """The ``basic`` strength: :mod:`engine.bots.basic`."""

    def play(self, position: Position, dice: tuple[int, int], plays: tuple[Play, ...]) -> Play:
        return basic.choose_play(plays)

    def double(self, position: Position, cube: CubeContext) -> bool:
        if cube.match_length and cube.crawford:
            return False
        away = cube.match_length - cube.score[0] if cube.match_length else None
        other = cube.match_length - cube.score[1] if cube.match_length else None
        return basic.should_double(
            position,
            centred=cube.owner is None,
            match_away=away,
            cube=cube.value,
            opponent_away=other,
        )

    def take(self, position: Position, cube: CubeContext) -> bool:
        away = cube.match_length - cube.score[0] if cube.match_length else None
        other = cube.match_length - cube.score[1] if cube.match_length else None
        return basic.should_take(position, match_away=away, cube=cube.value, taker_away=other)

    def accept(self, position: Position, level: int, cube: CubeContext) -> bool:
        return basic.accepts_resignation(position, level)


class _NeedsBrain(Exception):
    """The decision needs the brain's judgement (see :func:`settled_command`)."""


class _NoBrain:
    """A brain that is never consulted: each question says the decision needs a real one."""

    def play(self, position: Position, dice: tuple[int, int], plays: tuple[Play, ...]) -> Play:
        raise _NeedsBrain

    def double(self, position: Position, cube: CubeContext) -> bool:
        raise _NeedsBrain

    def take(self, position: Position, cube: CubeContext) -> bool:
        raise _NeedsBrain

    def accept(self, position: Position, level: int, cube: CubeContext) -> bool:
        raise _NeedsBrain


_NO_BRAIN = _NoBrain()


def settled_command(state: TableState, bot: str) -> tuple[bool, c.Command | None]:
    """What ``bot`` does now when no judgement is involved: ``(True, command)``, the command
    being None when it has nothing to do (its opponent's turn, say) or a forced one (an opening
    throw, a seed waived); ``(False, None)`` when its brain must be asked (:func:`decide_for`).
    Rules only, so a server asks it in its own process and sends only real decisions to its
    bot workers."""
    try:
        return True, next_command(state, bot, _NO_BRAIN)
    except _NeedsBrain:
        return False, None


def _relative(cube: Cube, viewer: int) -> int | None:
    """A cube's owner as ``viewer`` sees it: 0 themselves, 1 the other, None centred."""
    return None if cube.owner is None else (0 if cube.owner == viewer else 1)


# -- money and match tables -------------------------------------------------------------------


def _duel_context(state: TableState, game: Game, viewer: int) -> CubeContext:
    series = state.match
    assert series is not None
    score = series.score
    return CubeContext(
        value=game.cube.value,
        owner=_relative(game.cube, viewer),
        match_length=series.length,
        score=(score[viewer], score[1 - viewer]),
        crawford=series.crawford,
        jacoby=game.options.jacoby,
        beavers=game.options.beavers,
    )


def _duel(state: TableState, bot: str, brain: Brain) -> c.Command | None:
    seat = state.seat_of(bot)
    game = state.game
    if seat is None or not state.in_game or game is None or game.is_over:
        return None
    if game.phase is Phase.OPENING:
        return c.Roll()
    if game.phase is Phase.ROLL and game.turn == seat:
        if game.can_double(seat) and brain.double(game.position, _duel_context(state, game, seat)):
            return c.Double()
        return c.Roll()
    if game.phase is Phase.MOVE and game.turn == seat:
        assert game.dice is not None
        chosen = brain.play(game.position, game.dice, game.legal_plays())
        return c.Move(moves=[(a, b) for a, b in chosen.moves])
    if game.phase is Phase.DOUBLED and game.pending is not None:
        pending = game.pending
        if pending.responder != seat:
            return None
        doubler = 1 - seat
        # After a beaver the original doubler answers: the beaverer stands as the doubler.
        view = game.position if game.turn == doubler else game.position.swap()
        takes = brain.take(view, _duel_context(state, game, doubler))
        return c.Take() if takes else c.Drop()
    if game.phase is Phase.RESIGNATION and game.resignation is not None:
        offer = game.resignation
        if offer.by == seat:
            return None
        view = game.position if game.turn == offer.by else game.position.swap()
        accepts = brain.accept(view, int(offer.level), _duel_context(state, game, offer.by))
        return c.Accept() if accepts else c.Decline()
    return None


# -- chouettes ----------------------------------------------------------------------------------


def _member_context(state: TableState, m: MemberGame, viewer: Side) -> CubeContext:
    cube = m.cube
    return CubeContext(
        value=cube.value,
        owner=None if cube.owner is None else (0 if cube.owner == viewer else 1),
        jacoby=state.options.jacoby,
        beavers=state.options.beavers,
    )


def _chouette_answer(
    state: TableState, ch: Chouette, g: ChouetteGame, bot: str, brain: Brain
) -> c.Command | None:
    """The bot's answer to a double or a resignation offer on a cube it owes one on."""
    is_box = bot == g.box
    for member in sorted(ch.targets(bot, Action.TAKE)):
        m = g.member(member)
        assert m is not None and m.pending is not None
        doubler = Side.TEAM if m.pending.responder == Side.BOX else Side.BOX
        takes = brain.take(g.position_for(doubler), _member_context(state, m, doubler))
        cube = member if is_box else ""
        return c.Take(cube=cube) if takes else c.Drop(cube=cube)
    for member in sorted(ch.targets(bot, Action.ACCEPT)):
        m = g.member(member)
        assert m is not None and m.resignation is not None
        by = Side(m.resignation.by)
        level = int(m.resignation.level)
        accepts = brain.accept(g.position_for(by), level, _member_context(state, m, by))
        cube = member if is_box else ""
        return c.Accept(cube=cube) if accepts else c.Decline(cube=cube)
    return None


def _chouette(state: TableState, bot: str, brain: Brain) -> c.Command | None:
    ch = state.chouette
    if ch is None or not state.in_game or bot not in state.members:
        return None
    if ch.ordering is not None:
        return c.Roll()  # the throws for the line
    g = ch.game
    if g is None or not ch.in_progress:
        return None
    if g.phase is Phase.OPENING:
        return c.Roll() if bot in (g.box, g.captain) else None
    if bot in ch.waiting_for():
        return _chouette_answer(state, ch, g, bot, brain)
    allowed = ch.allowed(bot)
    if g.phase is Phase.ROLL:
        if Action.DOUBLE in allowed:
            side = Side.BOX if bot == g.box else Side.TEAM
            view = g.position_for(side)
            if bot == g.box:
                targets = sorted(ch.targets(bot, Action.DOUBLE))
                chosen = []
                for member in targets:
                    m = g.member(member)
                    assert m is not None
                    if brain.double(view, _member_context(state, m, Side.BOX)):
                        chosen.append(member)
                if chosen:
                    # Every cube it may turn (with a single cube, the team's) is named by none.
                    every = state.options.cube_mode == "single" or len(chosen) == len(targets)
                    return c.Double(cubes=[] if every else chosen)
            else:
                mine = g.member(bot)
                assert mine is not None
                if brain.double(view, _member_context(state, mine, Side.TEAM)):
                    return c.Double()
        if Action.ROLL in allowed:
            return c.Roll()
        return None
    if g.phase is Phase.MOVE and bot == ch.on_roll:
        assert g.dice is not None
        chosen_play = brain.play(g.position, g.dice, g.legal_plays())
        return c.Move(moves=[(a, b) for a, b in chosen_play.moves])
    return None


def next_command(state: TableState, bot: str, brain: Brain) -> c.Command | None:
    """The command ``bot`` should send at the table now, or None when it has nothing to do.
    Pure (the brain's judgement aside)."""
    if state.window_open:
        return c.WaiveSeed() if bot in state.seed_waiting else None
    if state.kind == "chouette":
        return _chouette(state, bot, brain)
    return _duel(state, bot, brain)


def bot_order(state: TableState, bots: list[str]) -> list[str]:
    """The order to ask bots in: whoever rolls for a side last, so that team members decide
    on their own cubes before the captain rolls."""
    ch = state.chouette
    on_roll = ch.on_roll if ch is not None else None
    return sorted(bots, key=lambda b: b == on_roll)


@functools.cache
def brain_for(strength: str, ply: int = 0) -> Brain:
    """The brain of a strength (one per process: GNU Backgammon's loads its networks once).

    :raises ValueError: an unknown strength, or ``gnubg`` without the extra installed.
    """
    if strength == "basic":
        return BasicBrain()
    if strength == "gnubg":
        if not gnubg_available():
            raise ValueError("the gnubg strength needs the extra: pip install 'chouette[gnubg]'")
        return GnubgBrain(ply)
    raise ValueError(f"no bot strength {strength!r}: basic or gnubg")


def decide_for(state: TableState, bot: str, strength: str, ply: int = 0) -> c.Command | None:
    """:func:`next_command` with the brain of ``strength``: what a server's bot workers run
    (a module-level function, so a process pool can call it)."""
    return next_command(state, bot, brain_for(strength, ply))


def warm() -> None:
    """Load the bots' modules in a fresh worker process (the pool calls it once at start)."""
    brain_for("basic")
