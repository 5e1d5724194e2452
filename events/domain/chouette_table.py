"""Chouette tables: ``decide`` and ``evolve`` on :class:`engine.chouette.Chouette`.

Called by :mod:`events.domain.decider` for tables of kind ``"chouette"``. The line is thrown for
with
the first game's dice (so every die at the table derives from a committed seed): ``start_game``
on a new chouette records ``game_started`` and then ``line_throw`` rounds until nobody is tied.
A game that ends is followed by ``game_ended`` (every member's settlement against the box),
``line_rotated`` and, while two or more players remain, the next ``game_started``
(docs/rules.md §8).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.actions import Action
from engine.chouette import Chouette, ChouetteGame, ChouetteOptions, Consultation, CubeMode
from engine.chouette.permissions import answer_targets, offer_targets
from engine.errors import IllegalActionError
from engine.frozen import replace
from engine.game import Phase
from engine.notation import blot_points, format_moves, parse_play
from events.domain import clocks
from events.domain import commands as c
from events.domain import types as e
from events.domain.table import (
    CommandError,
    DiceSource,
    InvalidCommandError,
    NotAllowedError,
    TableState,
    add_seed,
    evolve_seed,
    game_started,
    joined_bots,
    open_for_throw,
    seed_window_ms,
    start_game,
    waive_seed,
)

__all__ = ["HISTORY_HELD", "decide", "evolve", "name_players", "options_of", "settlements_of"]

HISTORY_HELD = 5
"""The finished games a chouette's folded state keeps (the table view's ``history``); the
others are read from the store when asked for, so the state does not grow with games."""


def options_of(o: e.TableOptions) -> ChouetteOptions:
    """The engine's chouette options for a table's options."""
    return ChouetteOptions(
        cubes=CubeMode(o.cube_mode),
        consultation=Consultation(o.consultation),
        auto_doubles=o.auto_doubles,
        beavers=o.beavers,
        jacoby=o.jacoby,
        box_must_take_half=o.box_must_take_half,
    )


# -- decide -----------------------------------------------------------------------------------


def name_players(state: TableState, text: str) -> str:
    """An engine reason as a person reads it: the engine names players by account id, a
    person is told display names."""
    for player, name in state.names:
        if name != player:
            text = text.replace(player, name)
    return text


def decide(
    state: TableState, actor: str, cmd: c.Command, dice: DiceSource, now: int
) -> list[e.Event]:
    """The events that record ``cmd`` by ``actor`` at a chouette table at ``now``."""
    ch = state.chouette
    match cmd:
        case c.Join():
            return _join(state, actor, cmd)
        case _ if actor not in state.members:
            raise NotAllowedError(f"{actor!r} is not at this table")
        case c.Leave():
            new = ch.leave(actor) if ch is not None else None
            return [e.PlayerLeft(player=actor), *_after(state, ch, new, dice)]
        case c.StartGame():
            return _start(state, ch, dice)
        case c.AddSeed() | c.WaiveSeed():
            if not state.window_open and (ch is None or actor not in ch.players):
                raise NotAllowedError(f"{actor!r} is not playing")
            answered = (
                add_seed(state, actor, cmd)
                if isinstance(cmd, c.AddSeed)
                else waive_seed(state, actor)
            )
            return [*answered, *_line_after(state, answered, dice)]
        case c.Roll() if state.in_game and ch is not None and ch.ordering is not None:
            # The first game's line is thrown for once its seed window closes: any member's
            # roll throws it (the box and the captain throw the opening next).
            closing = open_for_throw(state, now)
            return [*closing, *_line_throws(state, ch, dice, state.client_seeds)]
    if ch is None or not ch.in_progress or ch.game is None:
        raise CommandError("no game in progress")
    game = ch.game
    match cmd:
        case c.Roll() if game.phase is Phase.OPENING:
            if actor not in (game.box, game.captain):
                raise NotAllowedError(
                    f"{actor!r} cannot throw the opening: the box and the captain throw"
                )
            return [*open_for_throw(state, now), *_opening(state, ch, dice)]
        case c.Roll():
            counter = state.dice_counter
            clients = state.client_seeds
            roll = (
                dice.die(state.game_no, counter, clients),
                dice.die(state.game_no, counter + 1, clients),
            )
            ch.roll(actor, roll)
            return [e.DiceRolled(player=actor, dice=roll)]
        case c.Move(notation=notation, moves=given):
            if (notation is None) == (given is None):
                raise InvalidCommandError("give either 'notation' or 'moves'")
            if game.phase is not Phase.MOVE or actor != ch.on_roll:
                ch.move(actor, ())  # raises the precise reason
            assert game.dice is not None
            if notation is not None:
                moves = parse_play(game.position, game.dice, notation).moves
            else:
                assert given is not None
                # Checked once, by the move itself (Chouette.move: engine.moves.play).
                moves = tuple([(a, b) for a, b in given])
            new = ch.move(actor, moves)
            moved = e.CheckersMoved(
                player=actor,
                moves=[(a, b) for a, b in moves],
                notation=format_moves(blot_points(game.position.opp), moves),
            )
            return [moved, *_after(state, ch, new, dice)]
        case c.Double(cubes=cubes):
            names = offer_targets(ch, actor, Action.DOUBLE, list(cubes) or None)[1]
            ch.double(actor, list(cubes) or None)
            return [e.CubeOffered(player=actor, cubes=list(names))]
        case c.Take(cube=cube):
            answer = _answer(ch, actor, Action.TAKE, cube)
            ch.take(actor, cube or None)
            return [e.CubeTaken(player=actor, **answer)]
        case c.Beaver(cube=cube):
            answer = _answer(ch, actor, Action.BEAVER, cube)
            ch.beaver(actor, cube or None)
            return [e.CubeBeavered(player=actor, **answer)]
        case c.Drop(cube=cube):
            answer = _answer(ch, actor, Action.DROP, cube)
            new = ch.drop(actor, cube or None)
            return [e.CubeDropped(player=actor, **answer), *_after(state, ch, new, dice)]
        case c.Resign(level=level, to=to):
            names = offer_targets(ch, actor, Action.RESIGN, list(to) or None)[1]
            ch.resign(actor, level, list(to) or None)
            return [e.ResignationOffered(player=actor, level=level, to=list(names))]
        case c.Accept(cube=cube):
            answer = _answer(ch, actor, Action.ACCEPT, cube)
            new = ch.accept(actor, cube or None)
            return [
                e.ResignationAccepted(player=actor, **answer),
                *_after(state, ch, new, dice),
            ]
        case c.Decline(cube=cube):
            answer = _answer(ch, actor, Action.DECLINE, cube)
            ch.decline(actor, cube or None)
            return [e.ResignationDeclined(player=actor, **answer)]
    raise CommandError(f"unknown command {type(cmd).__name__}")


def expire(
    state: TableState, dice: DiceSource, now: int, absent: tuple[str, ...] = ()
) -> list[e.Event]:
    """What has run out at ``now`` (:mod:`events.domain.clocks`): the seed window closes (and the
    first game's line is thrown); an overdue line or opening throw is thrown; each player out
    of time forfeits (the box to every member still in the game).

    ``absent``: who is not connected (docs/rules.md §10, "Walking away"). What the table
    throws by itself waits for two connected players; a player out of time stays at the table
    if connected, and otherwise leaves it as the game ends; a game the clock ends is followed
    by the next only when two of the line are connected (:func:`_after`)."""
    ch = state.chouette
    if state.window_open:
        closing = open_for_throw(state, now)  # refused, naming who it waits for, if not yet
        if refusal := clocks.too_few_here(state, absent):
            raise refusal
        return [*closing, *_line_after(state, closing, dice)]
    late = clocks.overdue(state, now)
    if not late or ch is None:
        raise clocks.nothing_ran_out(state, now)
    if clocks.TABLE in late:
        if refusal := clocks.too_few_here(state, absent):
            raise refusal
        if ch.ordering is not None:
            return _line_throws(state, ch, dice, state.client_seeds)
        return _opening(state, ch, dice)
    events: list[e.Event] = []
    walking = list(state.walking_away)
    after = ch
    for player in late:
        if after.in_progress and after.has_game_in_play(player):
            away = player in absent
            events.append(e.TimeExpired(player=player, absent=away))
            if away:
                walking.append(player)
            after = after.forfeit(player)
    if not events:
        raise clocks.nothing_ran_out(state, now)
    return [*events, *_after(state, ch, after, dice, walking, absent)]


def _answer(ch: Chouette, actor: str, action: Action, cube: str) -> dict[str, Any]:
    """An answer's ``cube`` and ``cubes``, said explicitly: the member whose cube it is (the
    answerer's own, or the one the box named or the only one waiting for it) and every member
    the answer covers (with a single cube, the box's answer covers the team)."""
    names = answer_targets(ch, actor, action, cube or None)[1]
    return {"cube": names[0] if len(names) == 1 else "", "cubes": list(names)}


def _join(state: TableState, actor: str, cmd: c.Join) -> list[e.Event]:
    """A newcomer joins the bottom of the line, playing from the next game."""
    if actor in state.members:
        raise CommandError(f"{actor!r} is already at this table")
    if cmd.seat is not None:
        raise InvalidCommandError("a chouette has no seats: newcomers join the bottom of the line")
    if len(state.members) >= state.max_players:
        raise CommandError(f"the chouette is full ({state.max_players} players)")
    return [e.PlayerJoined(player=actor, display_name=cmd.display_name, bot=cmd.bot)]


def _opening(state: TableState, ch: Chouette, dice: DiceSource) -> list[e.Event]:
    """The box and the captain throw one die each, again while they tie."""
    events: list[e.Event] = []
    counter = state.dice_counter
    clients = state.client_seeds
    probe = ch
    while True:
        throw = (
            dice.die(state.game_no, counter, clients),
            dice.die(state.game_no, counter + 1, clients),
        )
        counter += 2
        events.append(e.OpeningThrow(dice=throw))
        probe = probe.opening_throw(*throw)
        assert probe.game is not None
        if probe.game.phase is not Phase.OPENING:
            return events
        if len(events) > 1000:  # pragma: no cover - a broken dice source
            raise CommandError("the dice source keeps throwing ties")


def _start(state: TableState, ch: Chouette | None, dice: DiceSource) -> list[e.Event]:
    """The next game; a new chouette's first throws for the line with that game's dice, once
    its seed window closes (at once if the table has none)."""
    if ch is not None and ch.in_progress:
        raise CommandError("a game is already in progress")
    if ch is not None and ch.ordering is not None:
        raise CommandError("the first game has started: the line is thrown for next")
    if len(state.members) < 2:
        raise CommandError("a chouette needs at least two players")
    # The first game's line is not thrown yet: it is played by everyone at the table.
    started = start_game(state, dice, list(ch.line if ch else state.members))
    if ch is not None:
        ch.start_game()  # raises the reason it cannot start
        return [started]
    if seed_window_ms(state):
        return [started]
    order = Chouette.new(state.members, options_of(state.options))
    return [started, *_line_throws(state, order, dice, (), game=started.game)]


def _line_after(state: TableState, answered: list[e.Event], dice: DiceSource) -> list[e.Event]:
    """The line's throws, when the answer that closed the first game's seed window is in
    ``answered`` (with the seed it may add mixed in)."""
    ch = state.chouette
    if ch is None or ch.ordering is None or not isinstance(answered[-1], e.SeedWindowClosed):
        return []
    added = tuple(ev.seed for ev in answered if isinstance(ev, e.ClientSeedAdded))
    return _line_throws(state, ch, dice, (*state.client_seeds, *added))


def _line_throws(
    state: TableState,
    order: Chouette,
    dice: DiceSource,
    clients: tuple[str, ...],
    game: int = 0,
) -> list[e.Event]:
    """Everyone throws one die for the line, ties again among the tied only: ``line_throw``
    rounds with the dice of the first game (``game``, else the one in play) from its first."""
    game = game or state.game_no
    events: list[e.Event] = []
    counter = 0
    while order.ordering is not None:
        throws = {}
        for player in order.ordering.to_throw:
            throws[player] = dice.die(game, counter, clients)
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


def member_results(g: ChouetteGame) -> list[e.MemberResult]:
    """Every member's own game against the box, in the order they were settled."""
    return [
        e.MemberResult(
            member=s.member,
            winner=s.winner,
            loser=s.loser,
            result=int(s.result),
            cube=s.cube,
            points=s.points,
            how=s.how.value,
        )
        for s in g.settlements
    ]


def _after(
    state: TableState,
    before: Chouette | None,
    after: Chouette | None,
    dice: DiceSource,
    walking: Sequence[str] | None = None,
    absent: Sequence[str] | None = None,
) -> list[e.Event]:
    """``game_ended``, the leaves of who walked away, ``line_rotated`` and the next
    ``game_started`` once a game has ended.

    ``game_ended`` says how the board ended (the last member's game settled: who won it, its
    result and cube) and every member's own game. Then each player who ran out of time in it
    while not connected (``walking``: the state's, unless an expiry adds to them) leaves
    (docs/rules.md §10, "Walking away"), and ``line_rotated`` gives the line the next game is
    played by: who keeps the box. ``absent`` is given when the clock ended the game (an
    ``expire``): the line's absent players are recorded, and the next game follows by itself
    only when at least two of the line are connected."""
    if after is None or before is None or not before.in_progress or after.in_progress:
        return []
    g = after.game
    assert g is not None and g.is_over
    last = g.settlements[-1] if g.settlements else None
    events: list[e.Event] = [
        e.GameEnded(
            game=state.game_no,
            winner=last.winner if last else "",
            result=int(last.result) if last else 1,
            cube=last.cube if last else 1,
            how=last.how.value if last else "",
            settlements=settlements_of(before, after),
            members=member_results(g),
            seed=dice.reveal(state.game_no),
        )
    ]
    line = after
    for player in dict.fromkeys(state.walking_away if walking is None else walking):
        if player in line.players:
            events.append(e.PlayerLeft(player=player))
            line = line.leave(player)
    away = [p for p in line.line if absent is not None and p in absent]
    events.append(e.LineRotated(line=list(line.line), absent=away))
    if len(line.line) - len(away) >= 2:
        events.append(start_game(state, dice, list(line.line)))
    return events


# -- evolve -----------------------------------------------------------------------------------


def _named(ch: Chouette, player: str, members: list[str]) -> list[str] | None:
    """The members an offer names, as the engine takes them: the box's choice; a member
    offers on their own cube (the event lists it, or the team's with a single cube)."""
    return list(members) or None if player == ch.box else None


def _cube(ch: Chouette, player: str, cube: str) -> str | None:
    """The cube an answer names, as the engine takes it: the box names it; a member answers
    on their own."""
    return cube or None if player == ch.box else None


_THROW_OR_PLAY = (e.DiceRolled, e.CheckersMoved)
"""Nearly every event of a game: :func:`evolve` takes them straight to the game in play."""


def evolve(s: TableState, event: e.Event) -> TableState:
    """The state of a chouette table after ``event``."""
    ch = s.chouette
    if ch is not None and isinstance(event, _THROW_OR_PLAY):
        return _in_game(s, ch, event)  # nearly every event: straight to the game's own
    match event:
        case e.PlayerJoined(player=player, display_name=display_name):
            return replace(
                s,
                members=(*s.members, player),
                names=(*s.names, (player, display_name or player)),
                bots=joined_bots(s, event),
                chouette=ch.join(player) if ch is not None else None,
            )
        case e.PlayerLeft(player=player):
            return replace(
                s,
                members=tuple(p for p in s.members if p != player),
                chouette=ch.leave(player) if ch is not None else None,
            )
        case e.GameStarted():
            # The first game throws for the line next (line_throw), then starts.
            new = Chouette.new(s.members, options_of(s.options)) if ch is None else ch.start_game()
            if len(new.history) > HISTORY_HELD:
                # A long-running table costs the same memory at game 1,000 as at game 10: the
                # older games are read from the store (GET /tables/{id}/history).
                new = replace(new, history=new.history[-HISTORY_HELD:])
            return game_started(s, event, chouette=new)
        case e.ClientSeedAdded():
            return evolve_seed(s, event)
    if ch is None:
        raise IllegalActionError(f"{e.tag(event)} before the chouette has started")
    return _in_game(s, ch, event)


def _in_game(s: TableState, ch: Chouette, event: e.Event) -> TableState:
    """The state after an event of the chouette under way (its line, its game)."""
    match event:
        case e.DiceRolled(player=player, dice=roll):
            return replace(s, chouette=ch.roll(player, roll), dice_counter=s.dice_counter + 2)
        case e.CheckersMoved(player=player, moves=moves):
            return replace(s, chouette=ch.move(player, [(a, b) for a, b in moves]))
        case e.LineThrow(throws=throws):
            new = ch.order_throw(throws)
            if new.ordering is None:
                new = new.start_game()
            return replace(s, chouette=new, dice_counter=s.dice_counter + len(throws))
        case e.OpeningThrow(dice=throw):
            return replace(s, chouette=ch.opening_throw(*throw), dice_counter=s.dice_counter + 2)
        case e.GameEnded(settlements=settlements, members=members):
            if ch.in_progress or ch.game is None:
                raise IllegalActionError("game_ended recorded while the game is still in play")
            expected = settlements_of(None, ch)
            if list(settlements) != expected:
                raise IllegalActionError(
                    f"game_ended settlements {settlements!r} differ from the rules' {expected!r}"
                )
            # Schema 1 events have no members; a schema 2 event must say each one exactly.
            if members and list(members) != member_results(ch.game):
                raise IllegalActionError(
                    f"game_ended members {members!r} differ from the rules' "
                    f"{member_results(ch.game)!r}"
                )
            # A game that ends before its first throw (its members left during the seed
            # window) takes its window with it.
            return replace(s, in_game=False, window_open=False)
        case e.LineRotated(line=line):
            if list(ch.line) != list(line):
                raise IllegalActionError(
                    f"line_rotated {line!r} differs from the rules' {list(ch.line)!r}"
                )
            return s
        case e.TimeExpired(player=player):
            return replace(s, chouette=ch.forfeit(player))  # they stay in the line
        case e.CubeOffered(player=player, cubes=cubes):
            return replace(s, chouette=ch.double(player, _named(ch, player, cubes)))
        case e.CubeTaken(player=player, cube=cube):
            return replace(s, chouette=ch.take(player, _cube(ch, player, cube)))
        case e.CubeDropped(player=player, cube=cube):
            return replace(s, chouette=ch.drop(player, _cube(ch, player, cube)))
        case e.CubeBeavered(player=player, cube=cube):
            return replace(s, chouette=ch.beaver(player, _cube(ch, player, cube)))
        case e.ResignationOffered(player=player, level=level, to=to):
            return replace(s, chouette=ch.resign(player, level, _named(ch, player, to)))
        case e.ResignationAccepted(player=player, cube=cube):
            return replace(s, chouette=ch.accept(player, _cube(ch, player, cube)))
        case e.ResignationDeclined(player=player, cube=cube):
            return replace(s, chouette=ch.decline(player, _cube(ch, player, cube)))
    raise IllegalActionError(f"{e.tag(event)} does not apply to a chouette")
