"""The table aggregate: ``decide(state, actor, command, dice) -> events`` and
``evolve(state, event) -> state``, both pure and built on the engine.

The only way to get a table's state is to fold :func:`evolve` over its events (:func:`fold`):
on load, in tests, in replays and in audits. :func:`decide` never changes anything; it raises a
precise error (an engine ``ValueError`` subclass, or :class:`CommandError`) when a command is
not allowed, and otherwise returns the events that record it.

The dice are an input too: a :class:`DiceSource` gives the die for ``(game, counter)`` and the
commitment and seed of each game, so the decider stays pure and every throw can be re-derived.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from engine.errors import IllegalActionError, NotYourTurnError
from engine.game import Game, GameOptions, Phase
from engine.match import Session
from engine.moves import Move as EngineMove
from engine.moves import play as engine_play
from engine.notation import format_play, parse_play
from engine.values import replace
from events import commands as c
from events import types as e

if TYPE_CHECKING:
    from engine.chouette import Chouette


class CommandError(IllegalActionError):
    """A command that does not fit the table (not seated, no such seat, wrong kind...)."""


class InvalidCommandError(CommandError):
    """A command whose shape does not fit this table whatever its state: a field that does
    not apply, two fields where one is expected (maps to 400, like a malformed body)."""


class NotAllowedError(NotYourTurnError):
    """The actor's role at this table does not allow the command (maps to 403)."""


class DiceSource(Protocol):
    """Where the server's dice come from (provably fair in production, scripted in tests)."""

    def commitment(self, game: int) -> str:
        """The published hash of the seed for ``game``."""
        ...

    def die(self, game: int, counter: int) -> int:
        """The ``counter``-th die (from 0) thrown in ``game``, 1..6."""
        ...

    def reveal(self, game: int) -> str:
        """The seed of ``game``, revealed when it ends."""
        ...


@dataclass(frozen=True, slots=True)
class TableState:
    """A table's state: only ever built by folding its events."""

    version: int = 0
    """The number of events folded (the stream version)."""
    table_id: str = ""
    kind: str = ""
    options: e.TableOptions = e.TableOptions()
    created_by: str = ""
    name: str = ""
    seats: tuple[str | None, str | None] = (None, None)
    """Money and match tables: who sits in seats 0 and 1."""
    members: tuple[str, ...] = ()
    """Chouette: everyone at the table, in join order (the line is in :attr:`chouette`)."""
    names: tuple[tuple[str, str], ...] = ()
    """Display names, as (player, name) pairs."""
    session: Session | None = None
    """Money and match tables: the score and the current game."""
    chouette: Chouette | None = None
    """Chouette tables: the line, the cubes, the game and the ledger."""
    game_no: int = 0
    in_game: bool = False
    dice_counter: int = 0
    """Dice thrown so far in the current game (the provably-fair counter)."""
    commitment: str = ""
    client_seeds: tuple[str, ...] = ()
    """Seeds the players mixed into this game's dice, in order."""
    match_winner: str = ""
    ledger: tuple[tuple[str, int], ...] = ()
    """Money won (positive) and lost per player over the table's life."""

    @property
    def max_players(self) -> int:
        if self.options.max_players:
            return self.options.max_players
        return 8 if self.kind == "chouette" else 2

    @property
    def players(self) -> tuple[str, ...]:
        """Everyone seated or in the chouette."""
        if self.kind == "chouette":
            return self.members
        return tuple(p for p in self.seats if p is not None)

    @property
    def game(self) -> Game | None:
        return self.session.game if self.session else None

    def seat_of(self, player: str) -> int | None:
        for i, p in enumerate(self.seats):
            if p == player:
                return i
        return None

    def display_name(self, player: str) -> str:
        return dict(self.names).get(player, player)


# -- decide -----------------------------------------------------------------------------------


def decide(state: TableState, actor: str, command: c.Command, dice: DiceSource) -> list[e.Event]:
    """The events that record ``command`` by ``actor``, or a precise error. Pure.

    :raises CommandError: a command that does not fit this table.
    :raises NotAllowedError: the actor's role does not allow it.
    :raises engine.errors.EngineError: the rules do not allow it (illegal play, cube, turn...).
    """
    if isinstance(command, c.CreateTable):
        return _create(state, actor, command)
    if not state.version:
        raise CommandError("no such table")
    if isinstance(command, c.Chat):
        raise CommandError("chat goes to the table's chat stream (decide_chat)")
    if state.kind == "chouette":
        from events.chouette_decider import decide as decide_chouette

        return decide_chouette(state, actor, command, dice)
    return _decide_duel(state, actor, command, dice)


def _create(state: TableState, actor: str, cmd: c.CreateTable) -> list[e.Event]:
    if state.version:
        raise CommandError("the table already exists")
    if not state.table_id:
        raise CommandError("a new table needs an id (TableState(table_id=...))")
    o = cmd.options
    if cmd.kind == "match":
        if not o.match_length:
            raise InvalidCommandError("a match needs a match_length of at least 1")
        if o.auto_doubles or o.beavers or o.jacoby:
            raise InvalidCommandError(
                "automatic doubles, beavers and Jacoby do not apply in match play"
            )
    elif o.match_length:
        raise InvalidCommandError(f"match_length applies only to matches, not a {cmd.kind} table")
    if cmd.kind != "chouette":
        if o.max_players not in (0, 2):
            raise InvalidCommandError(f"a {cmd.kind} table seats exactly 2 players")
        if o.cube_mode != "multiple" or o.consultation != "free" or o.box_must_take_half:
            raise InvalidCommandError(
                "cube_mode, consultation and box_must_take_half are chouette options"
            )
    elif o.max_players == 1:
        raise InvalidCommandError("a chouette needs at least 2 players")
    return [
        e.TableCreated(
            table_id=state.table_id, kind=cmd.kind, options=o, created_by=actor, name=cmd.name
        )
    ]


def _decide_duel(state: TableState, actor: str, cmd: c.Command, dice: DiceSource) -> list[e.Event]:
    seat = state.seat_of(actor)
    if isinstance(cmd, c.Join):
        if seat is not None:
            raise CommandError(f"{actor!r} is already seated")
        free = [i for i, p in enumerate(state.seats) if p is None]
        if state.match_winner:
            raise CommandError("the match is over")
        if not free:
            raise CommandError("the table is full")
        want = cmd.seat if cmd.seat is not None else free[0]
        if want not in free:
            raise CommandError(f"seat {want} is taken")
        events: list[e.Event] = [
            e.PlayerJoined(player=actor, display_name=cmd.display_name, seat=want)
        ]
        if len(free) == 1 and not state.in_game:
            events.append(_game_started(state, dice, [p or actor for p in state.seats]))
        return events
    if seat is None:
        raise NotAllowedError(f"{actor!r} is not seated at this table")
    if isinstance(cmd, c.Leave):
        if state.in_game:
            raise CommandError("finish or resign the game before leaving the table")
        return [e.PlayerLeft(player=actor)]
    if isinstance(cmd, c.StartGame):
        if state.in_game:
            raise CommandError("a game is already in progress")
        if None in state.seats:
            raise CommandError("waiting for a second player")
        if state.match_winner:
            raise CommandError("the match is over")
        return [_game_started(state, dice, list(state.seats))]  # type: ignore[arg-type]
    if not state.in_game or state.session is None or state.session.game is None:
        raise CommandError("no game in progress")
    if isinstance(cmd, c.AddSeed):
        return [add_seed(state, actor, cmd)]
    game = state.session.game
    if isinstance(cmd, c.Roll):
        if game.phase is Phase.OPENING:
            return _opening(state, game, dice)
        counter = state.dice_counter
        roll = (dice.die(state.game_no, counter), dice.die(state.game_no, counter + 1))
        game.roll(seat, roll)  # raises if this player may not roll now
        return [e.DiceRolled(player=actor, dice=roll)]
    if isinstance(cmd, c.Move):
        if game.phase is not Phase.MOVE or seat != game.turn:
            game.move(seat, ())  # raises the precise reason (not your turn, not rolled...)
        moves = _moves_of(game, cmd)
        new = game.move(seat, moves)
        events = [
            e.CheckersMoved(
                player=actor,
                moves=[(a, b) for a, b in moves],
                notation=format_play(game.position, moves),
            )
        ]
        return events + _after_action(state, new, dice)
    if isinstance(cmd, (c.Take, c.Drop, c.Beaver, c.Accept, c.Decline)) and cmd.cube:
        raise InvalidCommandError("'cube' names a chouette member's cube; leave it out here")
    if isinstance(cmd, c.Double):
        if cmd.cubes:
            raise InvalidCommandError("'cubes' names chouette members; leave it out here")
        game.double(seat)
        return [e.CubeOffered(player=actor)]
    if isinstance(cmd, c.Take):
        game.take(seat)
        return [e.CubeTaken(player=actor)]
    if isinstance(cmd, c.Beaver):
        game.beaver(seat)
        return [e.CubeBeavered(player=actor)]
    if isinstance(cmd, c.Drop):
        new = game.drop(seat)
        return [e.CubeDropped(player=actor), *_after_action(state, new, dice)]
    if isinstance(cmd, c.Resign):
        if cmd.to:
            raise InvalidCommandError("'to' names chouette members; leave it out here")
        game.resign(seat, cmd.level)
        return [e.ResignationOffered(player=actor, level=cmd.level)]
    if isinstance(cmd, c.Accept):
        new = game.accept(seat)
        return [e.ResignationAccepted(player=actor), *_after_action(state, new, dice)]
    if isinstance(cmd, c.Decline):
        game.decline(seat)
        return [e.ResignationDeclined(player=actor)]
    raise CommandError(f"unknown command {type(cmd).__name__}")


def add_seed(state: TableState, actor: str, cmd: c.AddSeed) -> e.ClientSeedAdded:
    """A player's seed for the current game, accepted only before its first throw."""
    if not state.in_game:
        raise CommandError("no game in progress")
    if state.dice_counter:
        raise CommandError("seeds can only be added before the game's first throw")
    return e.ClientSeedAdded(player=actor, game=state.game_no, seed=cmd.seed)


def _moves_of(game: Game, cmd: c.Move) -> Sequence[EngineMove]:
    assert game.dice is not None
    if (cmd.notation is None) == (cmd.moves is None):
        raise InvalidCommandError("give either 'notation' or 'moves'")
    if cmd.notation is not None:
        return parse_play(game.position, game.dice, cmd.notation).moves
    assert cmd.moves is not None
    return engine_play(game.position, game.dice, [tuple(m) for m in cmd.moves]).moves  # type: ignore[misc]


def _opening(state: TableState, game: Game, dice: DiceSource) -> list[e.Event]:
    events: list[e.Event] = []
    counter = state.dice_counter
    while True:
        throw = (dice.die(state.game_no, counter), dice.die(state.game_no, counter + 1))
        counter += 2
        events.append(e.OpeningThrow(dice=throw))
        game = game.opening_throw(*throw)
        if game.phase is not Phase.OPENING:
            return events
        if len(events) > 1000:  # pragma: no cover - a broken dice source
            raise CommandError("the dice source keeps throwing ties")


def _after_action(state: TableState, game: Game, dice: DiceSource) -> list[e.Event]:
    """The events that follow an action that may have ended the game."""
    if not game.is_over:
        return []
    assert game.result is not None and state.session is not None
    r = game.result
    winner = state.seats[r.winner]
    loser = state.seats[1 - r.winner]
    assert winner is not None and loser is not None
    events: list[e.Event] = [
        e.GameEnded(
            game=state.game_no,
            winner=winner,
            result=int(r.result),
            cube=r.cube,
            how=r.how,
            settlements=[
                e.Settlement(player=winner, amount=r.points, reason=r.how),
                e.Settlement(player=loser, amount=-r.points, reason=r.how),
            ],
            seed=dice.reveal(state.game_no),
        )
    ]
    session = state.session.act(lambda _: game)
    if session.winner is not None:
        events.append(
            e.MatchEnded(winner=state.seats[session.winner] or "", score=list(session.score))
        )
    else:
        nxt = replace(state, game_no=state.game_no)
        events.append(_game_started(nxt, dice, list(state.seats)))  # type: ignore[arg-type]
    return events


def _game_started(state: TableState, dice: DiceSource, players: list[str]) -> e.GameStarted:
    number = state.game_no + 1
    return e.GameStarted(game=number, dice_commitment=dice.commitment(number), players=players)


# -- evolve -----------------------------------------------------------------------------------


def evolve(state: TableState, event: e.Event) -> TableState:
    """The state after ``event``. Pure; raises if the event does not fit the state (which an
    audit reports as an illegal event)."""
    if isinstance(event, e.TableCreated):
        s = replace(
            state,
            table_id=event.table_id,
            kind=event.kind,
            options=event.options,
            created_by=event.created_by,
            name=event.name,
        )
    elif state.kind == "chouette":
        from events.chouette_decider import evolve as evolve_chouette

        s = evolve_chouette(state, event)
    else:
        s = _evolve_duel(state, event)
    if s is state:
        return replace(state, version=state.version + 1)
    # ``s`` is a copy made just now and seen by nobody else: give it its version in place
    # rather than copying it again (a fold makes one such copy per event).
    object.__setattr__(s, "version", state.version + 1)
    return s


def _evolve_duel(s: TableState, event: e.Event) -> TableState:
    if isinstance(event, e.PlayerJoined):
        seats = list(s.seats)
        assert event.seat is not None
        seats[event.seat] = event.player
        names = (*s.names, (event.player, event.display_name or event.player))
        return replace(s, seats=(seats[0], seats[1]), names=names)
    if isinstance(event, e.PlayerLeft):
        left = tuple(None if p == event.player else p for p in s.seats)
        return replace(s, seats=(left[0], left[1]))
    if isinstance(event, e.GameStarted):
        session = s.session
        if session is None:
            o = s.options
            session = (
                Session.match(o.match_length)
                if s.kind == "match"
                else Session.money(
                    GameOptions(auto_doubles=o.auto_doubles, beavers=o.beavers, jacoby=o.jacoby)
                )
            )
        else:
            session = session.next_game()
        return game_started(s, event, session=session)
    if isinstance(event, e.MatchEnded):
        return replace(s, match_winner=event.winner)
    if isinstance(event, e.ClientSeedAdded):
        return evolve_seed(s, event)
    if isinstance(event, e.GameEnded):
        game = s.game
        if game is None or not game.is_over or game.result is None:
            raise IllegalActionError("game_ended recorded while the game is still in play")
        ledger = dict(s.ledger)
        for st in event.settlements:
            ledger[st.player] = ledger.get(st.player, 0) + st.amount
        return replace(s, in_game=False, ledger=tuple(ledger.items()))
    session = s.session
    if session is None:
        raise IllegalActionError(f"{e.tag(event)} before any game")
    actor = getattr(event, "player", None)
    seat = s.seat_of(actor) if actor is not None else None
    if isinstance(event, e.OpeningThrow):
        return replace(
            s,
            session=session.act(lambda g: g.opening_throw(*event.dice)),
            dice_counter=s.dice_counter + 2,
        )
    if seat is None:
        raise IllegalActionError(f"{e.tag(event)} by {actor!r}, who is not seated")
    if isinstance(event, e.DiceRolled):
        return replace(
            s,
            session=session.act(lambda g: g.roll(seat, event.dice)),
            dice_counter=s.dice_counter + 2,
        )
    actions = {
        e.CheckersMoved: lambda g: g.move(seat, [tuple(m) for m in event.moves]),  # type: ignore[attr-defined]
        e.CubeOffered: lambda g: g.double(seat),
        e.CubeTaken: lambda g: g.take(seat),
        e.CubeDropped: lambda g: g.drop(seat),
        e.CubeBeavered: lambda g: g.beaver(seat),
        e.ResignationOffered: lambda g: g.resign(seat, event.level),  # type: ignore[attr-defined]
        e.ResignationAccepted: lambda g: g.accept(seat),
        e.ResignationDeclined: lambda g: g.decline(seat),
    }
    act = actions.get(type(event))
    if act is None:
        raise IllegalActionError(f"{e.tag(event)} does not apply to a {s.kind} table")
    return replace(s, session=session.act(act))


def game_started(s: TableState, event: e.GameStarted, **changes: Any) -> TableState:
    """The state as a game starts (for every kind of table): its number, commitment, a fresh
    dice counter and no client seeds yet, plus the kind's own ``changes``."""
    return replace(
        s,
        game_no=event.game,
        in_game=True,
        dice_counter=0,
        commitment=event.dice_commitment,
        client_seeds=(),
        **changes,
    )


def evolve_seed(s: TableState, event: e.ClientSeedAdded) -> TableState:
    if not s.in_game or s.dice_counter or event.game != s.game_no:
        raise IllegalActionError("a client seed recorded after the game's first throw")
    return replace(s, client_seeds=(*s.client_seeds, event.seed))


def fold(events: Iterable[e.Event], state: TableState | None = None) -> TableState:
    """Fold events into a table state: the only way to get one."""
    s = state or TableState()
    for event in events:
        s = evolve(s, event)
    return s


__all__ = [
    "CommandError",
    "DiceSource",
    "InvalidCommandError",
    "NotAllowedError",
    "TableState",
    "decide",
    "evolve",
    "fold",
]
