"""Money and match tables (two players in seats 0 and 1): ``decide`` and ``evolve`` on
:class:`engine.match.Match`.

Called by :mod:`events.domain.decider` for tables of kind ``"money"`` and ``"match"``. The game
starts
when the second player sits down (or on ``start_game`` after a game); a game that ends is
followed by ``game_ended`` and either ``match_ended`` or the next ``game_started``
(docs/rules.md §6, §7).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.errors import IllegalActionError
from engine.frozen import replace
from engine.game import Game, GameOptions, GameResult, Phase
from engine.match import Match
from engine.moves import Move as EngineMove
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
    match_left,
    open_for_throw,
    seed_window_ms,
    start_game,
    waive_seed,
)

__all__ = ["decide", "evolve", "name_players"]


# -- decide -----------------------------------------------------------------------------------


_SEAT = re.compile(r"\bplayer ([01])\b")


def name_players(state: TableState, text: str) -> str:
    """An engine reason as a person reads it: the engine names seats ("it is player 1's
    turn"), a person is told names."""
    return _SEAT.sub(lambda m: _seat_name(state, int(m[1])), text)


def _seat_name(state: TableState, seat: int) -> str:
    player = state.seats[seat]
    return state.display_name(player) if player else f"seat {seat}"


def decide(
    state: TableState, actor: str, cmd: c.Command, dice: DiceSource, now: int
) -> list[e.Event]:
    """The events that record ``cmd`` by ``actor`` at a money or match table at ``now``."""
    seat = state.seat_of(actor)
    match cmd:
        case c.Join():
            return _join(state, actor, seat, cmd, dice)
        case _ if seat is None:
            raise NotAllowedError(f"{actor!r} is not seated at this table")
        case c.Leave():
            return _leave(state, actor, seat, dice)
        case c.StartGame():
            return [_next_game_started(state, dice)]
        case c.Roll() if not state.in_game and state.kind == "money":
            # A money table's next game starts when a player throws for it (docs/rules.md §10):
            # at once when the table has no seed window, else once the window closes.
            started = _next_game_started(state, dice)
            if seed_window_ms(state):
                return [started]
            s = evolve(state, started)
            assert s.game is not None
            return [started, *_opening(s, s.game, dice)]
    if not state.in_game or state.match is None or state.match.game is None:
        raise CommandError("no game in progress")
    game = state.match.game
    match cmd:
        case c.AddSeed():
            return add_seed(state, actor, cmd)
        case c.WaiveSeed():
            return waive_seed(state, actor)
        case c.Roll():
            if game.phase is Phase.OPENING:
                closing = open_for_throw(state, now)
                return [*closing, *_opening(state, game, dice)]
            counter = state.dice_counter
            clients = state.client_seeds
            roll = (
                dice.die(state.game_no, counter, clients),
                dice.die(state.game_no, counter + 1, clients),
            )
            game.roll(seat, roll)  # raises if this player may not roll now
            return [e.DiceRolled(player=actor, dice=roll)]
        case c.Move():
            if game.phase is not Phase.MOVE or seat != game.turn:
                game.move(seat, ())  # raises the precise reason (not your turn, not rolled...)
            moves = _moves_of(game, cmd)
            new = game.move(seat, moves)
            moved = e.CheckersMoved(
                player=actor,
                moves=[(a, b) for a, b in moves],
                notation=format_moves(blot_points(game.position.opp), moves),
            )
            return [moved, *_after_action(state, new, dice)]
        case (
            c.Take(cube=cube)
            | c.Drop(cube=cube)
            | c.Beaver(cube=cube)
            | c.Accept(cube=cube)
            | c.Decline(cube=cube)
        ) if cube:
            raise InvalidCommandError("'cube' names a chouette member's cube; leave it out here")
        case c.Double(cubes=cubes):
            if cubes:
                raise InvalidCommandError("'cubes' names chouette members; leave it out here")
            game.double(seat)
            return [e.CubeOffered(player=actor)]
        case c.Take():
            game.take(seat)
            return [e.CubeTaken(player=actor)]
        case c.Beaver():
            game.beaver(seat)
            return [e.CubeBeavered(player=actor)]
        case c.Drop():
            new = game.drop(seat)
            return [e.CubeDropped(player=actor), *_after_action(state, new, dice)]
        case c.Resign(level=level, to=to):
            if to:
                raise InvalidCommandError("'to' names chouette members; leave it out here")
            game.resign(seat, level)
            return [e.ResignationOffered(player=actor, level=level)]
        case c.Accept():
            new = game.accept(seat)
            return [e.ResignationAccepted(player=actor), *_after_action(state, new, dice)]
        case c.Decline():
            game.decline(seat)
            return [e.ResignationDeclined(player=actor)]
    raise CommandError(f"unknown command {type(cmd).__name__}")


def expire(
    state: TableState, dice: DiceSource, now: int, absent: tuple[str, ...] = ()
) -> list[e.Event]:
    """What has run out at ``now`` (:mod:`events.domain.clocks`): the seed window closes; an overdue
    opening throw is thrown; a player out of time forfeits (the match, in a match).

    ``absent``: who is not connected (docs/rules.md §10, "Walking away"). The window's close
    and the opening throw wait for two connected players; a player out of time who is absent
    leaves the table as the game ends (which their forfeit does at once here)."""
    if state.window_open:
        closing = open_for_throw(state, now)  # refused, naming who it waits for, if not yet
        if refusal := clocks.too_few_here(state, absent):
            raise refusal
        return closing
    late = clocks.overdue(state, now)
    if not late:
        raise clocks.nothing_ran_out(state, now)
    game = state.game
    assert game is not None and state.match is not None
    if clocks.TABLE in late:
        if refusal := clocks.too_few_here(state, absent):
            raise refusal
        return _opening(state, game, dice)
    player = late[0]
    seat = state.seat_of(player)
    assert seat is not None
    away = player in absent
    forfeited = _forfeited(state, state.match.forfeit(seat), dice)
    walked = [e.PlayerLeft(player=player)] if away else []
    return [e.TimeExpired(player=player, absent=away), *forfeited, *walked]


def _next_game_started(state: TableState, dice: DiceSource) -> e.GameStarted:
    if state.in_game:
        raise CommandError("a game is already in progress")
    if None in state.seats:
        raise CommandError("waiting for a second player")
    if state.match_winner:
        raise CommandError("the match is over")
    return start_game(state, dice, list(state.seats))  # type: ignore[arg-type]


def _leave(state: TableState, actor: str, seat: int, dice: DiceSource) -> list[e.Event]:
    """A player leaves (docs/rules.md §10): free between games; in mid-game (or mid-match)
    they forfeit first, the game scored at the worst result still possible for them and a
    match lost. A game started but not yet thrown ends unplayed, its seed revealed. Leaving
    a finished match is only that: nothing in it ends again (a game that a server before
    issue 27 left open there stays as the log has it)."""
    left = e.PlayerLeft(player=actor)
    if state.match_winner:
        return [left]
    # The forfeit the table view states as the cost of leaving (events.domain.table.leave_cost).
    forfeited = match_left(state, seat)
    if forfeited is not None:
        return [left, *_forfeited(state, forfeited, dice)]
    if state.in_game:
        return [left, _unplayed(state, dice)]
    return [left]


def _unplayed(state: TableState, dice: DiceSource) -> e.GameEnded:
    """The game in play ends before its first throw: nobody won, nothing is settled."""
    return e.GameEnded(
        game=state.game_no,
        winner="",
        result=0,
        cube=1,
        how="unplayed",
        seed=dice.reveal(state.game_no),
    )


def _forfeited(state: TableState, series: Match, dice: DiceSource) -> list[e.Event]:
    """``game_ended`` for a game a player forfeited, if one was in play, then ``match_ended``
    when a match is forfeited (its winner the opponent, whatever the score).

    A match forfeited between its games, its next game started but not yet thrown, ends that
    game unplayed first, its seed revealed (docs/rules.md §10, "A finished match is
    finished"): nothing is left open to be thrown in a finished match."""
    events: list[e.Event] = []
    before = state.match
    assert before is not None
    if before.game is not None and before.game.is_in_play:
        result = series.results[-1]
        events.append(_game_ended(state, result, dice))
    elif state.in_game and series.winner is not None:
        events.append(_unplayed(state, dice))
    if series.winner is not None:
        events.append(
            e.MatchEnded(winner=state.seats[series.winner] or "", score=list(series.score))
        )
    return events


def _join(
    state: TableState, actor: str, seat: int | None, cmd: c.Join, dice: DiceSource
) -> list[e.Event]:
    """A player sits down; the second one starts the first game."""
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
    joined = e.PlayerJoined(player=actor, display_name=cmd.display_name, seat=want, bot=cmd.bot)
    events: list[e.Event] = [joined]
    if len(free) == 1 and not state.in_game:
        events.append(start_game(state, dice, [p or actor for p in state.seats]))
    return events


def _moves_of(game: Game, cmd: c.Move) -> tuple[EngineMove, ...]:
    assert game.dice is not None
    if (cmd.notation is None) == (cmd.moves is None):
        raise InvalidCommandError("give either 'notation' or 'moves'")
    if cmd.notation is not None:
        return parse_play(game.position, game.dice, cmd.notation).moves
    assert cmd.moves is not None
    # Checked once, by the move itself (Game.move: the same engine.moves.play), not here too.
    return tuple([tuple(m) for m in cmd.moves])  # type: ignore[misc]


def _opening(state: TableState, game: Game, dice: DiceSource) -> list[e.Event]:
    """The opening throw, thrown again while it is a tie (docs/rules.md §2)."""
    events: list[e.Event] = []
    counter = state.dice_counter
    clients = state.client_seeds
    while True:
        throw = (
            dice.die(state.game_no, counter, clients),
            dice.die(state.game_no, counter + 1, clients),
        )
        counter += 2
        events.append(e.OpeningThrow(dice=throw))
        game = game.opening_throw(*throw)
        if game.phase is not Phase.OPENING:
            return events
        if len(events) > 1000:  # pragma: no cover - a broken dice source
            raise CommandError("the dice source keeps throwing ties")


def _after_action(state: TableState, game: Game, dice: DiceSource) -> list[e.Event]:
    """The events that follow an action that may have ended the game: ``game_ended`` (its seed
    revealed), then ``match_ended`` or the next ``game_started``."""
    if not game.is_over:
        return []
    assert game.result is not None and state.match is not None
    events: list[e.Event] = [_game_ended(state, game.result, dice)]
    series = state.match.act(lambda _: game)
    if series.winner is not None:
        events.append(
            e.MatchEnded(winner=state.seats[series.winner] or "", score=list(series.score))
        )
    elif state.kind == "match":
        # A match goes on to its next game; a money table waits for a player to throw for it.
        events.append(start_game(state, dice, list(state.seats)))  # type: ignore[arg-type]
    return events


def _game_ended(state: TableState, r: GameResult, dice: DiceSource) -> e.GameEnded:
    """The game's end as scored: who won what, each player's settlement, the seed revealed."""
    winner = state.seats[r.winner]
    loser = state.seats[1 - r.winner]
    assert winner is not None and loser is not None
    return e.GameEnded(
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


# -- evolve -----------------------------------------------------------------------------------


_THROW_OR_PLAY = (e.DiceRolled, e.CheckersMoved)
"""Nearly every event of a game: :func:`evolve` takes them straight to the game in play."""


def evolve(s: TableState, event: e.Event) -> TableState:
    """The state of a money or match table after ``event``."""
    if isinstance(event, _THROW_OR_PLAY):
        return _in_game(s, event)  # nearly every event: straight to the game's own
    match event:
        case e.PlayerJoined(player=player, display_name=display_name, seat=seat):
            assert seat is not None
            seats = list(s.seats)
            seats[seat] = player
            names = (*s.names, (player, display_name or player))
            return replace(s, seats=(seats[0], seats[1]), names=names, bots=joined_bots(s, event))
        case e.PlayerLeft(player=player):
            left = tuple(None if p == player else p for p in s.seats)
            series = s.match
            seat = s.seat_of(player)
            if series is not None and series.in_play and seat is not None:
                series = series.forfeit(seat)  # in mid-game or mid-match: they forfeit first
            return replace(s, seats=(left[0], left[1]), match=series)
        case e.GameStarted():
            return game_started(s, event, match=_next_game(s))
        case e.MatchEnded(winner=winner):
            return replace(s, match_winner=winner)
        case e.ClientSeedAdded():
            return evolve_seed(s, event)
        case e.GameEnded(how="unplayed"):
            game = s.game
            if not s.in_game or game is None or game.is_in_play or game.is_over:
                raise IllegalActionError("an unplayed game_ended for a game that was played")
            # Its seed window, if still open, closes with it: nothing waits for a seed now.
            if s.match is not None and not s.match.results:
                # The match starts afresh.
                return replace(s, in_game=False, match=None, window_open=False)
            return replace(s, in_game=False, match=replace(s.match, game=None), window_open=False)
        case e.GameEnded(settlements=settlements):
            game = s.game
            if game is None or not game.is_over or game.result is None:
                raise IllegalActionError("game_ended recorded while the game is still in play")
            ledger = dict(s.ledger)
            for st in settlements:
                ledger[st.player] = ledger.get(st.player, 0) + st.amount
            return replace(s, in_game=False, ledger=tuple(ledger.items()))
    return _in_game(s, event)


def _in_game(s: TableState, event: e.Event) -> TableState:
    """The state after an event of the game in play (a throw, a play, a cube or resignation
    action, an expiry)."""
    series = s.match
    if series is None:
        raise IllegalActionError(f"{e.tag(event)} before any game")
    actor = getattr(event, "player", None)
    seat = s.seat_of(actor) if actor is not None else None
    match event:
        case e.OpeningThrow(dice=throw):
            return replace(
                s,
                match=series.act(lambda g: g.opening_throw(*throw)),
                dice_counter=s.dice_counter + 2,
            )
        case _ if seat is None:
            raise IllegalActionError(f"{e.tag(event)} by {actor!r}, who is not seated")
        case e.TimeExpired():
            return replace(s, match=series.forfeit(seat))  # they stay seated
        case e.DiceRolled(dice=roll):
            return replace(
                s,
                match=series.act(lambda g: g.roll(seat, roll)),
                dice_counter=s.dice_counter + 2,
            )
        case e.CheckersMoved(moves=moves):
            return _acted(s, series, lambda g: g.move(seat, [(a, b) for a, b in moves]))
        case e.CubeOffered():
            return _acted(s, series, lambda g: g.double(seat))
        case e.CubeTaken():
            return _acted(s, series, lambda g: g.take(seat))
        case e.CubeDropped():
            return _acted(s, series, lambda g: g.drop(seat))
        case e.CubeBeavered():
            return _acted(s, series, lambda g: g.beaver(seat))
        case e.ResignationOffered(level=level):
            return _acted(s, series, lambda g: g.resign(seat, level))
        case e.ResignationAccepted():
            return _acted(s, series, lambda g: g.accept(seat))
        case e.ResignationDeclined():
            return _acted(s, series, lambda g: g.decline(seat))
    raise IllegalActionError(f"{e.tag(event)} does not apply to a {s.kind} table")


def _acted(s: TableState, series: Match, act: Callable[[Game], Game]) -> TableState:
    """The state after a player's action on the game in play (scored by the match if it ends
    the game)."""
    return replace(s, match=series.act(act))


def _next_game(s: TableState) -> Match:
    """The match (or money play) with its next game started; the first under the table's
    options."""
    if s.match is not None:
        return s.match.next_game()
    o = s.options
    if s.kind == "match":
        return Match.to(o.match_length)
    return Match.money(GameOptions(auto_doubles=o.auto_doubles, beavers=o.beavers, jacoby=o.jacoby))
