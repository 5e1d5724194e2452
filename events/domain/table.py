"""What every kind of table shares: its state, the errors a command can meet, the dice it is
given, and the few steps money, match and chouette tables take alike (a game starts, a player
adds a seed).

:class:`TableState` is only ever built by folding events (:func:`events.domain.decider.fold`); the
rules of each kind live in :mod:`events.domain.duel_table` (money and match) and
:mod:`events.domain.chouette_table`, and :mod:`events.domain.decider` dispatches between them. This
module
imports neither, so each of them can import it (docs/design.md, "Dependencies point one way").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine.chouette import Chouette
from engine.errors import GameOverError, IllegalActionError, NotYourTurnError
from engine.frozen import replace
from engine.game import Game
from engine.match import Match
from events.domain import commands as c
from events.domain import types as e

__all__ = [
    "SERVER_BOT_PREFIX",
    "ChatNotAllowedError",
    "CommandError",
    "CommandIdReusedError",
    "DiceSource",
    "Forfeited",
    "InvalidCommandError",
    "LeaveCost",
    "LeaveCostChangedError",
    "MatchOverError",
    "NotAllowedError",
    "TableExistsError",
    "TableNotFoundError",
    "TableState",
    "add_seed",
    "evolve_forfeits",
    "evolve_seed",
    "evolve_window",
    "game_started",
    "joined_bots",
    "leave_cost",
    "match_left",
    "open_for_throw",
    "points_text",
    "seed_window_ms",
    "start_game",
    "waive_seed",
]


SERVER_BOT_PREFIX = "b_"
"""How the account ids of the server's own bots start (``server.live.bots``; a registered
account's ``u_``, a guest's ``g_``)."""


# -- errors -----------------------------------------------------------------------------------
# Domain errors only: the HTTP layer maps each to its problem response (server/http/problems.py).


class CommandError(IllegalActionError):
    """A command that does not fit the table (not seated, no such seat, wrong kind...)."""


class InvalidCommandError(CommandError):
    """A command whose shape does not fit this table whatever its state: a field that does
    not apply, two fields where one is expected (like a malformed body)."""


class NotAllowedError(NotYourTurnError):
    """The actor's role at this table does not allow the command."""


class MatchOverError(CommandError, GameOverError):
    """A command at a match that has ended (docs/rules.md §10, "A finished match is
    finished"): nothing more is thrown, played, doubled, started or timed there. Leaving is
    still allowed (it costs nothing)."""

    def __init__(self) -> None:
        super().__init__("the match is over")


def points_text(n: int) -> str:
    """A number of points in words: "1 point", "6 points"."""
    return f"{n} point" if n == 1 else f"{n} points"


class LeaveCostChangedError(CommandError):
    """A ``leave`` with ``at_most`` that would cost more than that now: refused, nothing
    written, so that nobody forfeits more than they agreed to."""

    def __init__(self, points: int, at_most: int) -> None:
        agreed = f", more than the {points_text(at_most)} you agreed to" if at_most else ""
        super().__init__(f"leaving now would cost {points_text(points)}{agreed}: nothing was done")
        self.points = points
        self.at_most = at_most


class TableNotFoundError(CommandError):
    """No table has this id (nothing was ever recorded in its stream)."""

    def __init__(self, table_id: str) -> None:
        super().__init__(f"no table {table_id!r}")
        self.table_id = table_id


class TableExistsError(CommandError):
    """A table was to be created under an id that another command already used."""

    def __init__(self, table_id: str) -> None:
        super().__init__("the table already exists")
        self.table_id = table_id


class CommandIdReusedError(CommandError):
    """A command id already recorded for another command (another stream, another actor, or
    the same actor saying something else): a client reusing ids, never a retry.

    Unlike the store's :class:`~events.store.errors.CommandReusedError`, the message says nothing of
    the first command: not its stream (maybe another table's), not its actor, not its events."""

    def __init__(self, command_id: object) -> None:
        super().__init__(f"command id {command_id} was already used for another command")
        self.command_id = command_id


class ChatNotAllowedError(NotAllowedError):
    """The actor may not post on this channel of the table's chat (not at the table, or not on
    the team now)."""


# -- dice -------------------------------------------------------------------------------------


class DiceSource(Protocol):
    """Where a table's dice come from: provably fair in production
    (:class:`events.domain.dice.FairDice`,
    given the seeds of the games a command may touch), scripted in tests. An input of
    :func:`events.domain.decider.decide`, which stays pure: every throw can be derived again."""

    def commitment(self, game: int) -> str:
        """The published hash of the seed for ``game``."""
        ...

    def die(self, game: int, counter: int, clients: Sequence[str] = ()) -> int:
        """The ``counter``-th die (from 0) thrown in ``game``, 1..6, with the players' seeds
        ``clients`` (in the order recorded) mixed in."""
        ...

    def reveal(self, game: int) -> str:
        """The seed of ``game``, revealed when it ends."""
        ...


# -- state ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableState:
    """A table's state: only ever built by folding its events."""

    version: int = 0
    """The number of events folded (the stream version)."""
    last_at: int = 0
    """When the last event was decided (ms since the epoch; 0 if none carries a time): a
    command is never decided before it (:meth:`events.service.TableService.execute`)."""
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
    bots: tuple[str, ...] = ()
    """Who sat down as a bot (``player_joined.bot``), in join order."""
    match: Match | None = None
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
    started_at: int = 0
    """When the current game started (its ``game_started``'s time, ms since the epoch)."""
    window_open: bool = False
    """Whether the current game's seed window is open (no die may be thrown while it is)."""
    seed_players: tuple[str, ...] = ()
    """Who the current game's seed window waits for: its players as it started."""
    seed_answered: tuple[str, ...] = ()
    """Who has added a seed or waived in the current game's window."""
    clock_running: tuple[tuple[str, int], ...] = ()
    """Running clocks: (player, when it started, ms since the epoch); ``""`` is the table's
    own clock for an overdue opening or line throw (:mod:`events.domain.clocks`)."""
    clock_reserve: tuple[tuple[str, int], ...] = ()
    """Each player's reserve left in ms, as of their clock's last stop."""
    forfeits: tuple[tuple[str, str], ...] = ()
    """Who forfeited in the current game (or the one just ended, until the next starts), in
    order, and how: ``time`` (ran out of time), ``away`` (ran out of time while not connected,
    so leaving as the game ends) or ``left`` (left in mid-game). The record and the view name
    them (:func:`events.domain.narration.forfeits_text`)."""
    walking_away: tuple[str, ...] = ()
    """Who ran out of time in the game in play while not connected to the table: each leaves
    it when the game ends (docs/rules.md §10, "Walking away")."""
    match_winner: str = ""
    ledger: tuple[tuple[str, int], ...] = ()
    """Money won (positive) and lost per player over the table's life."""
    skipped: tuple[int, ...] = ()
    """The versions of stored events that did not apply and were skipped when the table was
    loaded (:func:`events.domain.decider.evolve_stored`): an event written by a server whose rules
    let it through (issue 27: an opening throw after the match was forfeited). Always empty
    in a strict fold (:func:`events.domain.decider.fold`), which raises instead."""

    @property
    def last_skipped(self) -> bool:
        """Whether the last event folded was skipped (it did not apply: :attr:`skipped`)."""
        return bool(self.skipped) and self.skipped[-1] == self.version

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
        return self.match.game if self.match else None

    def seat_of(self, player: str) -> int | None:
        for i, p in enumerate(self.seats):
            if p == player:
                return i
        return None

    def display_name(self, player: str) -> str:
        return dict(self.names).get(player, player)

    def is_bot(self, player: str) -> bool:
        """Whether ``player`` sat down as a bot (docs/bots.md): their join says so, or they
        are one of the server's own, whose ids say so in events recorded before joins did."""
        return player in self.bots or player.startswith(SERVER_BOT_PREFIX)

    def names_text(self, players: Sequence[str]) -> str:
        """Players' display names as a person writes a list: "Ann", "Ann and Bob",
        "Ann, Bob and Cat"."""
        names = [self.display_name(p) for p in players]
        if len(names) <= 2:
            return " and ".join(names)
        return ", ".join(names[:-1]) + " and " + names[-1]

    @property
    def seed_waiting(self) -> tuple[str, ...]:
        """Who the open seed window still waits for: the game's players still at the table
        who have neither added a seed nor waived."""
        if not self.window_open:
            return ()
        here = self.players
        return tuple(p for p in self.seed_players if p in here and p not in self.seed_answered)

    @property
    def seed_deadline(self) -> int:
        """When the open seed window closes at the latest (ms since the epoch); 0 if none."""
        return self.started_at + seed_window_ms(self) if self.window_open else 0


def joined_bots(s: TableState, event: e.PlayerJoined) -> tuple[str, ...]:
    """Who sat down as a bot after ``event``: its player in or out as their join says (one who
    leaves and sits again is what their last join says)."""
    others = tuple(p for p in s.bots if p != event.player)
    return (*others, event.player) if event.bot else others


def seed_window_ms(state: TableState) -> int:
    """The table's seed window in milliseconds (0: none)."""
    return (state.options.seed_window or 0) * 1000


# -- what every kind decides alike ------------------------------------------------------------


def start_game(state: TableState, dice: DiceSource, players: list[str]) -> e.GameStarted:
    """The next game starts, committed to its dice seed before any die is thrown
    (docs/dice.md)."""
    number = state.game_no + 1
    return e.GameStarted(game=number, dice_commitment=dice.commitment(number), players=players)


def _answer_window(state: TableState, actor: str, what: str) -> None:
    """Refuse an answer to the seed window (a seed or a waiver) that does not fit it."""
    if not state.in_game:
        raise CommandError("no game in progress")
    if state.window_open:
        if actor in state.seed_answered:
            raise CommandError(f"you have already {what} for game {state.game_no}")
        if actor not in state.seed_players:
            raise NotAllowedError(f"{state.display_name(actor)} is not playing this game")
    elif seed_window_ms(state):
        raise CommandError(f"the seed window of game {state.game_no} has closed")
    elif state.dice_counter:
        raise CommandError("seeds can only be added before the game's first throw")


def _closes(state: TableState, actor: str) -> list[e.Event]:
    """The window closing as ``actor``, the last player it waits for, answers."""
    if state.window_open and state.seed_waiting == (actor,):
        return [e.SeedWindowClosed(game=state.game_no, missing=[])]
    return []


def add_seed(state: TableState, actor: str, cmd: c.AddSeed) -> list[e.Event]:
    """A player's seed for the current game, accepted only before its first throw (so the
    server, having committed first, cannot choose the throws after seeing it): while the seed
    window is open, or with no window, until the first throw. The last answer closes the
    window."""
    _answer_window(state, actor, "added a seed or waived")
    added = e.ClientSeedAdded(player=actor, game=state.game_no, seed=cmd.seed)
    return [added, *_closes(state, actor)]


def waive_seed(state: TableState, actor: str) -> list[e.Event]:
    """A player adds no seed to this game; the last answer closes the window."""
    if not state.window_open:
        raise CommandError(f"game {state.game_no} has no seed window open to waive")
    _answer_window(state, actor, "added a seed or waived")
    return [e.ClientSeedWaived(player=actor, game=state.game_no), *_closes(state, actor)]


def open_for_throw(state: TableState, now: int) -> list[e.Event]:
    """What must come before the current game's next throw at time ``now``: nothing once the
    seed window is closed; its closing if every player answered or its time has run out
    (naming who did not answer).

    :raises CommandError: the window is open, waiting for players, and its time has not run
        out yet (the reason names them and the time left).
    """
    if not state.window_open:
        return []
    waiting = state.seed_waiting
    if waiting and now < state.seed_deadline:
        who = state.names_text(waiting)
        left = (state.seed_deadline - now + 999) // 1000
        raise CommandError(
            f"waiting for {who} to add a dice seed or waive ({left} s left in the seed window)"
        )
    return [e.SeedWindowClosed(game=state.game_no, missing=list(waiting))]


# -- what every kind folds alike --------------------------------------------------------------


def game_started(s: TableState, event: e.GameStarted, **changes: Any) -> TableState:
    """The state as a game starts (for every kind of table): its number, commitment, a fresh
    dice counter and no client seeds yet, plus the kind's own ``changes``."""
    window = seed_window_ms(s) > 0
    return replace(
        s,
        game_no=event.game,
        in_game=True,
        dice_counter=0,
        commitment=event.dice_commitment,
        client_seeds=(),
        started_at=event.at,
        window_open=window,
        seed_players=tuple(event.players) if window else (),
        seed_answered=(),
        forfeits=(),
        walking_away=(),
        **changes,
    )


def _has_game_in_play(s: TableState, player: str) -> bool:
    """Whether ``player`` has a game under way at the table (leaving now forfeits it)."""
    if s.chouette is not None:
        return s.chouette.has_game_in_play(player)
    game = s.game
    return game is not None and game.is_in_play and player in s.seats


@dataclass(frozen=True, slots=True)
class Forfeited:
    """One game a player would forfeit by leaving now, as the forfeit scores it."""

    winner: str
    """Who wins it: the opponent; in a chouette, the box (a member leaves) or the member
    whose cube it is (the box leaves)."""
    result: int
    """1, 2 or 3 (single, gammon, backgammon), as counted (after the Jacoby rule)."""
    cube: int
    """The cube it is paid at, as it stands (a double not yet answered does not count)."""

    @property
    def points(self) -> int:
        return self.result * self.cube


@dataclass(frozen=True, slots=True)
class LeaveCost:
    """What leaving now would cost a player (docs/rules.md §8, §10): the table view's
    ``leave_cost``."""

    points: int
    """The change leaving makes to the player's ledger: negative, or 0 when only a match is
    forfeited between its games."""
    match: bool
    """Whether leaving forfeits the match (its winner the opponent, whatever the score)."""
    games: tuple[Forfeited, ...]
    """The games forfeited: the one in play; in a chouette, a member's own game against the
    box, or the box's against every member still in the game."""


def match_left(state: TableState, seat: int) -> Match | None:
    """The match (or money play) after the player in ``seat`` leaves, when leaving forfeits:
    in mid-game, or in mid-match (:meth:`engine.match.Match.forfeit`); None when leaving costs
    nothing (between money games, before a match's first throw, or once the match is over).
    What the decider records (:func:`events.domain.duel_table.decide`) and what the table
    view says it would cost (:func:`leave_cost`) both come from here."""
    series = state.match
    if state.match_winner or series is None or not series.in_play:
        return None
    return series.forfeit(seat)


def leave_cost(state: TableState, player: str | None) -> LeaveCost | None:
    """What ``player`` leaving now would cost them, from the very forfeit the decider applies
    (:func:`match_left`; :meth:`engine.chouette.Chouette.leave` in a chouette, which the
    decider and the fold both call): None when it costs nothing (between games, before a
    game's first throw, a chouette member whose game is settled or who plays from the next,
    anyone not at the table)."""
    if player is None:
        return None
    ch = state.chouette
    if state.kind == "chouette":
        if ch is None or player not in state.members or not ch.has_game_in_play(player):
            return None
        before = ch.game.settlements if ch.game is not None else ()
        after = ch.leave(player)
        assert after.game is not None
        games = tuple(
            Forfeited(s.winner, int(s.result), s.cube)
            for s in after.game.settlements[len(before) :]
            if s.loser == player
        )
        points = after.ledger.get(player, 0) - ch.ledger.get(player, 0)
        return LeaveCost(points=points, match=False, games=games)
    seat = state.seat_of(player)
    forfeited = match_left(state, seat) if seat is not None else None
    if forfeited is None or state.match is None:
        return None
    games = ()
    if len(forfeited.results) > len(state.match.results):
        r = forfeited.results[-1]
        games = (Forfeited(state.seats[r.winner] or "", int(r.result), r.cube),)
    points = -sum(g.points for g in games)
    return LeaveCost(points=points, match=forfeited.is_match, games=games)


_FORFEITING = (e.TimeExpired, e.PlayerLeft)
"""The events that may note a forfeit (:func:`evolve_forfeits`)."""

_WINDOW_OWN = (e.ClientSeedWaived, e.SeedWindowClosed)
"""The seed window's own events (:func:`evolve_window`)."""


def evolve_forfeits(before: TableState, after: TableState, event: e.Event) -> TableState:
    """``after`` (the state folded from ``before`` by ``event``, for every kind of table) with
    the game's forfeits noted: a player out of time (``time``, or ``away`` and walking away
    when they were not connected), a player leaving a game under way (``left``). A player who
    leaves is no longer walking away."""
    if not isinstance(event, _FORFEITING):
        return after  # nearly every event: nobody forfeits
    match event:
        case e.TimeExpired(player=player, absent=absent):
            walking = (*after.walking_away, player) if absent else after.walking_away
            how = "away" if absent else "time"
            return replace(after, forfeits=(*after.forfeits, (player, how)), walking_away=walking)
        case e.PlayerLeft(player=player):
            walking = tuple(p for p in after.walking_away if p != player)
            if _has_game_in_play(before, player):
                return replace(
                    after, forfeits=(*after.forfeits, (player, "left")), walking_away=walking
                )
            if walking != after.walking_away:
                return replace(after, walking_away=walking)
    return after


def evolve_seed(s: TableState, event: e.ClientSeedAdded) -> TableState:
    """A client seed joins the current game's, in order; one recorded after the first throw,
    after the window closed, twice, or by someone not playing does not fit the rules (an audit
    reports it)."""
    _fits_window(s, event.player, event.game)
    return replace(
        s,
        client_seeds=(*s.client_seeds, event.seed),
        seed_answered=(*s.seed_answered, event.player) if s.window_open else s.seed_answered,
    )


def _fits_window(s: TableState, player: str, game: int) -> None:
    if not s.in_game or game != s.game_no:
        raise IllegalActionError(f"a dice seed answer for game {game}, which is not in play")
    if s.window_open:
        if player in s.seed_answered or player not in s.seed_players:
            raise IllegalActionError(f"a second seed answer, or one by {player!r}, not playing")
    elif seed_window_ms(s) or s.dice_counter:
        raise IllegalActionError("a client seed recorded after the seed window closed")


def evolve_window(s: TableState, event: e.Event) -> TableState | None:
    """The seed window's own events (a waiver, the closing), folded alike for every kind of
    table, or None for any other event. A throw while the window is open does not fit the
    rules, nor a closing that names the wrong players or comes before its time."""
    if not s.window_open and not isinstance(event, _WINDOW_OWN):
        return None  # nearly every event: no window open, and not one of its own events
    match event:
        case e.ClientSeedWaived(player=player, game=game):
            if not s.window_open:
                raise IllegalActionError("a seed waiver with no seed window open")
            _fits_window(s, player, game)
            return replace(s, seed_answered=(*s.seed_answered, player))
        case e.SeedWindowClosed(game=game, missing=missing):
            if not s.window_open or game != s.game_no:
                raise IllegalActionError(f"game {game}'s seed window closed, but it was not open")
            if sorted(missing) != sorted(s.seed_waiting):
                raise IllegalActionError(
                    f"the seed window closed without {missing!r}, but was waiting for "
                    f"{list(s.seed_waiting)!r}"
                )
            if missing and event.at < s.seed_deadline:
                raise IllegalActionError(
                    f"the seed window closed at {event.at}, before its time ran out at "
                    f"{s.seed_deadline}"
                )
            return replace(s, window_open=False)
        case e.OpeningThrow() | e.DiceRolled() | e.LineThrow() if s.window_open:
            raise IllegalActionError(f"{e.tag(event)} before the seed window closed")
    return None
