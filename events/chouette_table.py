"""The chouette table: ``decide`` and ``evolve`` on :class:`engine.chouette.Chouette`.

Called by :mod:`events.decider` for tables of kind ``"chouette"``. The line is thrown for with
the first game's dice (so every die at the table derives from a committed seed): ``start_game``
on a new chouette records ``game_started`` and then ``line_throw`` rounds until nobody is tied.
A game that ends is followed by ``game_ended`` (every member's settlement against the box),
``line_rotated`` and, while two or more players remain, the next ``game_started``.
"""

from __future__ import annotations

from engine.chouette import Chouette, ChouetteOptions, Consultation, CubeMode
from engine.errors import IllegalActionError
from engine.game import Phase
from engine.moves import play as engine_play
from engine.notation import format_play, parse_play
from engine.values import replace
from events import commands as c
from events import types as e
from events.decider import (
    CommandError,
    DiceSource,
    InvalidCommandError,
    NotAllowedError,
    TableState,
    add_seed,
    evolve_seed,
    game_started,
)


def options_of(o: e.TableOptions) -> ChouetteOptions:
    return ChouetteOptions(
        cubes=CubeMode(o.cube_mode),
        consultation=Consultation(o.consultation),
        auto_doubles=o.auto_doubles,
        beavers=o.beavers,
        jacoby=o.jacoby,
        box_must_take_half=o.box_must_take_half,
    )


def _die(state: TableState, dice: DiceSource, counter: int) -> int:
    return dice.die(state.game_no, counter)


def decide(state: TableState, actor: str, cmd: c.Command, dice: DiceSource) -> list[e.Event]:
    ch = state.chouette
    if isinstance(cmd, c.Join):
        if actor in state.members:
            raise CommandError(f"{actor!r} is already at this table")
        if cmd.seat is not None:
            raise InvalidCommandError(
                "a chouette has no seats: newcomers join the bottom of the line"
            )
        if len(state.members) >= state.max_players:
            raise CommandError(f"the chouette is full ({state.max_players} players)")
        return [e.PlayerJoined(player=actor, display_name=cmd.display_name)]
    if actor not in state.members:
        raise NotAllowedError(f"{actor!r} is not at this table")
    if isinstance(cmd, c.Leave):
        new = ch.leave(actor) if ch is not None else None
        return [e.PlayerLeft(player=actor), *_after(state, ch, new, dice)]
    if isinstance(cmd, c.StartGame):
        return _start(state, ch, dice)
    if ch is None or not ch.in_progress or ch.game is None:
        raise CommandError("no game in progress")
    if isinstance(cmd, c.AddSeed):
        if actor not in ch.players:
            raise NotAllowedError(f"{actor!r} is not playing")
        return [add_seed(state, actor, cmd)]
    game = ch.game
    if isinstance(cmd, c.Roll):
        if game.phase is Phase.OPENING:
            if actor not in (game.box, game.captain):
                raise NotAllowedError(
                    f"{actor!r} cannot throw the opening: the box and the captain throw"
                )
            events: list[e.Event] = []
            counter = state.dice_counter
            probe = ch
            while True:
                throw = (_die(state, dice, counter), _die(state, dice, counter + 1))
                counter += 2
                events.append(e.OpeningThrow(dice=throw))
                probe = probe.opening_throw(*throw)
                assert probe.game is not None
                if probe.game.phase is not Phase.OPENING:
                    return events
                if len(events) > 1000:  # pragma: no cover - a broken dice source
                    raise CommandError("the dice source keeps throwing ties")
        counter = state.dice_counter
        roll = (_die(state, dice, counter), _die(state, dice, counter + 1))
        ch.roll(actor, roll)
        return [e.DiceRolled(player=actor, dice=roll)]
    if isinstance(cmd, c.Move):
        if (cmd.notation is None) == (cmd.moves is None):
            raise InvalidCommandError("give either 'notation' or 'moves'")
        if game.phase is not Phase.MOVE or actor != ch.on_roll:
            ch.move(actor, ())  # raises the precise reason
        assert game.dice is not None
        if cmd.notation is not None:
            moves = parse_play(game.position, game.dice, cmd.notation).moves
        else:
            assert cmd.moves is not None
            moves = engine_play(game.position, game.dice, [(a, b) for a, b in cmd.moves]).moves
        new = ch.move(actor, moves)
        moved = e.CheckersMoved(
            player=actor,
            moves=[(a, b) for a, b in moves],
            notation=format_play(game.position, moves),
        )
        return [moved, *_after(state, ch, new, dice)]
    if isinstance(cmd, c.Double):
        targets = list(cmd.cubes) or None
        ch.double(actor, targets)
        return [e.CubeOffered(player=actor, cubes=list(cmd.cubes))]
    if isinstance(cmd, c.Take):
        ch.take(actor, cmd.cube or None)
        return [e.CubeTaken(player=actor, cube=cmd.cube)]
    if isinstance(cmd, c.Beaver):
        ch.beaver(actor, cmd.cube or None)
        return [e.CubeBeavered(player=actor, cube=cmd.cube)]
    if isinstance(cmd, c.Drop):
        new = ch.drop(actor, cmd.cube or None)
        return [e.CubeDropped(player=actor, cube=cmd.cube), *_after(state, ch, new, dice)]
    if isinstance(cmd, c.Resign):
        ch.resign(actor, cmd.level, list(cmd.to) or None)
        return [e.ResignationOffered(player=actor, level=cmd.level, to=list(cmd.to))]
    if isinstance(cmd, c.Accept):
        new = ch.accept(actor, cmd.cube or None)
        return [e.ResignationAccepted(player=actor, cube=cmd.cube), *_after(state, ch, new, dice)]
    if isinstance(cmd, c.Decline):
        ch.decline(actor, cmd.cube or None)
        return [e.ResignationDeclined(player=actor, cube=cmd.cube)]
    raise CommandError(f"unknown command {type(cmd).__name__}")


def _start(state: TableState, ch: Chouette | None, dice: DiceSource) -> list[e.Event]:
    if ch is not None and ch.in_progress:
        raise CommandError("a game is already in progress")
    if len(state.members) < 2:
        raise CommandError("a chouette needs at least two players")
    number = state.game_no + 1
    started = e.GameStarted(
        game=number, dice_commitment=dice.commitment(number), players=list(ch.line if ch else ())
    )
    if ch is not None:
        ch.start_game()  # raises the reason it cannot start
        return [started]
    # A new chouette: everyone throws one die for the line, ties again among the tied only.
    events: list[e.Event] = [started]
    order = Chouette.new(state.members, options_of(state.options))
    counter = 0
    while order.ordering is not None:
        throws = {}
        for player in order.ordering.to_throw:
            throws[player] = dice.die(number, counter)
            counter += 1
        events.append(e.LineThrow(throws=throws))
        order = order.order_throw(throws)
        if len(events) > 1000:  # pragma: no cover - a broken dice source
            raise CommandError("the dice source keeps throwing ties")
    return events


def settlements_of(before: Chouette | None, after: Chouette) -> list[e.Settlement]:
    """Every member's settlement in the game that just ended, as ledger entries (each member's
    amount and the box's opposite, summing to zero)."""
    g = after.game
    assert g is not None
    out: list[e.Settlement] = []
    for s in g.settlements:
        reason = f"{s.how.value}:{s.member}"
        out.append(e.Settlement(player=s.winner, amount=s.points, reason=reason))
        out.append(e.Settlement(player=s.loser, amount=-s.points, reason=reason))
    return out


def _after(
    state: TableState, before: Chouette | None, after: Chouette | None, dice: DiceSource
) -> list[e.Event]:
    """``game_ended``, ``line_rotated`` and the next ``game_started`` once a game has ended."""
    if after is None or before is None or not before.in_progress or after.in_progress:
        return []
    g = after.game
    assert g is not None and g.is_over
    events: list[e.Event] = [
        e.GameEnded(
            game=state.game_no,
            winner=g.box if g.box_won() else (g.captain or ""),
            cube=1,
            how=g.settlements[-1].how.value if g.settlements else "",
            settlements=settlements_of(before, after),
            seed=dice.reveal(state.game_no),
        ),
        e.LineRotated(line=list(after.line)),
    ]
    if len(after.line) >= 2:
        number = state.game_no + 1
        events.append(
            e.GameStarted(
                game=number, dice_commitment=dice.commitment(number), players=list(after.line)
            )
        )
    return events


# -- evolve -----------------------------------------------------------------------------------


def evolve(s: TableState, event: e.Event) -> TableState:
    ch = s.chouette
    if isinstance(event, e.PlayerJoined):
        new = ch.join(event.player) if ch is not None else None
        return replace(
            s,
            members=(*s.members, event.player),
            names=(*s.names, (event.player, event.display_name or event.player)),
            chouette=new,
        )
    if isinstance(event, e.PlayerLeft):
        new = ch.leave(event.player) if ch is not None else None
        return replace(s, members=tuple(p for p in s.members if p != event.player), chouette=new)
    if isinstance(event, e.GameStarted):
        # The first game throws for the line next (line_throw), then starts.
        new = Chouette.new(s.members, options_of(s.options)) if ch is None else ch.start_game()
        return game_started(s, event, chouette=new)
    if isinstance(event, e.ClientSeedAdded):
        return evolve_seed(s, event)
    if ch is None:
        raise IllegalActionError(f"{e.tag(event)} before the chouette has started")
    if isinstance(event, e.LineThrow):
        new = ch.order_throw(event.throws)
        if new.ordering is None:
            new = new.start_game()
        return replace(s, chouette=new, dice_counter=s.dice_counter + len(event.throws))
    if isinstance(event, e.OpeningThrow):
        return replace(s, chouette=ch.opening_throw(*event.dice), dice_counter=s.dice_counter + 2)
    if isinstance(event, e.GameEnded):
        if ch.in_progress or ch.game is None:
            raise IllegalActionError("game_ended recorded while the game is still in play")
        expected = settlements_of(None, ch)
        if list(event.settlements) != expected:
            raise IllegalActionError(
                f"game_ended settlements {event.settlements!r} differ from the rules' {expected!r}"
            )
        return replace(s, in_game=False)
    if isinstance(event, e.LineRotated):
        if list(ch.line) != list(event.line):
            raise IllegalActionError(
                f"line_rotated {event.line!r} differs from the rules' {list(ch.line)!r}"
            )
        return s
    player = getattr(event, "player", "")
    if isinstance(event, e.DiceRolled):
        return replace(s, chouette=ch.roll(player, event.dice), dice_counter=s.dice_counter + 2)
    if isinstance(event, e.CheckersMoved):
        return replace(s, chouette=ch.move(player, [(a, b) for a, b in event.moves]))
    if isinstance(event, e.CubeOffered):
        return replace(s, chouette=ch.double(player, list(event.cubes) or None))
    if isinstance(event, e.CubeTaken):
        return replace(s, chouette=ch.take(player, event.cube or None))
    if isinstance(event, e.CubeDropped):
        return replace(s, chouette=ch.drop(player, event.cube or None))
    if isinstance(event, e.CubeBeavered):
        return replace(s, chouette=ch.beaver(player, event.cube or None))
    if isinstance(event, e.ResignationOffered):
        return replace(s, chouette=ch.resign(player, event.level, list(event.to) or None))
    if isinstance(event, e.ResignationAccepted):
        return replace(s, chouette=ch.accept(player, event.cube or None))
    if isinstance(event, e.ResignationDeclined):
        return replace(s, chouette=ch.decline(player, event.cube or None))
    raise IllegalActionError(f"{e.tag(event)} does not apply to a chouette")
