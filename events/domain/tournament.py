"""The tournament aggregate: ``decide(state, actor, command, now) -> events`` and
``evolve(state, event) -> state``, pure, built on :mod:`engine.tournament` (docs/tournaments.md).

A tournament's stream (``tournament-<id>``) holds its events only; :func:`fold` turns them into a
:class:`TournamentState`, whose ``rules`` is the engine's :class:`~engine.tournament.Tournament`
folded from the same facts. Deciding never changes anything: it returns the events that record
a command, or raises the domain's usual errors (:mod:`events.domain.table`: a 404 for no such
tournament, 403 for a role that may not, 400 for a shape that does not fit) or the engine's
:class:`~engine.errors.TournamentError` for what the rules do not allow now (409).

The tournament moves on by itself inside :func:`decide`: every command whose facts complete a
round is answered with that round's last fact *and* the next round's pairing (or the
tournament's end) in the same batch, so no stream ever rests on a complete round that has not
been followed up. The pairing recorded is :func:`engine.tournament.next_round`'s, so the audit
pairs every round again from the facts before it (:func:`audit_events`). Each board to play
names its match table, whose id is derived from the tournament, round and board
(:func:`match_table_id`): the server creates the tables (server/live/tournaments.py), and a
retry names the same table.

>>> options = e.TournamentOptions(format="round_robin", match_length=1)
>>> s = fold(decide(TournamentState("t1"), "ann", c.CreateTournament(options=options), 1))
>>> for who in ("ann", "bob", "cat"):
...     s = fold(decide(s, who, c.EnterTournament(rating=1500), 2), s)
>>> paired = decide(s, "ann", c.StartTournament(), 3)
>>> [(b.a, b.b) for b in paired[0].boards]
[('bob', 'cat'), ('ann', None)]
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

import msgspec

from engine.errors import TournamentError
from engine.frozen import replace
from engine.tournament import (
    Adjusted,
    Entered,
    Fact,
    Format,
    Pairing,
    Result,
    RoundPaired,
    Tournament,
    TournamentSpec,
    Withdrew,
    audit,
    next_round,
    standings,
    winner,
)
from events.domain import commands as c
from events.domain import types as e
from events.domain.table import CommandError, InvalidCommandError, NotAllowedError

__all__ = [
    "SERVER",
    "TournamentNotFoundError",
    "TournamentState",
    "audit_events",
    "decide",
    "evolve",
    "fact_of",
    "fold",
    "match_table_id",
    "spec_of",
    "winner_of",
]

SERVER: Final = "server:tournaments"
"""The actor of what the server records by itself (a match's result, a no-show): no account
can be named so (account ids are ``u_...``, ``g_...`` or ``bot:...``)."""


class TournamentNotFoundError(CommandError):
    """No tournament has this id (or the caller may not know of it: a private one)."""

    def __init__(self, tournament_id: str) -> None:
        super().__init__(f"no tournament {tournament_id!r}")
        self.tournament_id = tournament_id


def match_table_id(tournament_id: str, round_: int, board: int) -> str:
    """The id of the match table of board ``board`` of round ``round_``: derived, so that the
    pairing can name it before it exists and creating it again names the same table.

    >>> match_table_id("t", 1, 1) == match_table_id("t", 1, 1) != match_table_id("t", 1, 2)
    True
    """
    name = f"chouette:tournament:{tournament_id}:round:{round_}:board:{board}"
    return str(uuid.uuid5(uuid.NAMESPACE_URL, name))


def spec_of(options: e.TournamentOptions) -> TournamentSpec:
    """The engine's rules for ``options``.

    :raises InvalidCommandError: options the rules do not take together (rounds for a
        knockout, a third place in a Swiss tournament, a field above the format's limit...)."""
    try:
        spec = TournamentSpec(Format(options.format), options.rounds, options.third_place)
    except TournamentError as exc:
        raise InvalidCommandError(str(exc)) from None
    if options.max_field is not None and options.max_field > spec.max_field:
        raise InvalidCommandError(
            f"a {options.format} tournament takes at most {spec.max_field} players"
        )
    if options.invited and not options.private:
        raise InvalidCommandError("only a private tournament has a list of invited accounts")
    return spec


@dataclass(frozen=True, slots=True)
class TournamentState:
    """A tournament's state: its options and the engine's fold of its facts."""

    tournament_id: str
    version: int = 0
    options: e.TournamentOptions | None = None
    created_by: str = ""
    name: str = ""
    rules: Tournament | None = None
    tables: dict[tuple[int, int], str] = field(default_factory=dict)
    """Each board's match table, by (round, board); byes and walkovers have none."""
    paired_at: tuple[int, ...] = ()
    """When each round was paired (ms since the epoch), round 1 first."""
    how: dict[tuple[int, int], str] = field(default_factory=dict)
    """How each board recorded by a result was decided (``match``, ``no_show``, ``adjusted``)."""
    finished: bool = False
    winner: str | None = None
    created_at: int = 0
    last_at: int = 0

    @property
    def exists(self) -> bool:
        return self.version > 0

    @property
    def t(self) -> Tournament:
        """The engine's state (a tournament that exists has one)."""
        if self.rules is None:
            raise TournamentNotFoundError(self.tournament_id)
        return self.rules

    @property
    def max_field(self) -> int:
        assert self.options is not None
        return self.options.max_field or self.t.spec.max_field

    def may_see(self, account_id: str | None) -> bool:
        """Whether ``account_id`` may know of this tournament: anyone for a public one; the
        director, the invited and the entrants of a private one."""
        if self.options is None or not self.options.private:
            return True
        if account_id is None:
            return False
        if account_id == self.created_by or account_id in self.options.invited:
            return True
        return any(x.player == account_id for x in self.t.entrants)

    def board_of_table(self, table_id: str) -> tuple[int, int] | None:
        """The (round, board) whose match table ``table_id`` is."""
        for key, tid in self.tables.items():
            if tid == table_id:
                return key
        return None


# -- the fold -----------------------------------------------------------------------------------


def fact_of(event: e.Event) -> Fact | None:
    """The engine's fact an event records (None for the creation and the end)."""
    match event:
        case e.TournamentEntered(player=player, rating=rating):
            return Entered(player, rating)
        case e.TournamentWithdrew(player=player):
            return Withdrew(player)
        case e.TournamentRoundPaired(round=number, boards=boards):
            return RoundPaired(number, tuple(Pairing(b.a, b.b) for b in boards))
        case e.TournamentResult(round=number, board=board, winner=who, forfeit=forfeit):
            return Result(number, board, who, forfeit)
        case e.TournamentResultAdjusted(
            round=number, board=board, winner=who, forfeit=forfeit, reason=reason
        ):
            return Adjusted(number, board, who, reason, forfeit)
    return None


def evolve(state: TournamentState, event: e.Event) -> TournamentState:
    """The state after ``event``. Pure; raises :class:`~engine.errors.TournamentError` for an
    event the rules do not allow (which the audit reports)."""
    at = event.at or state.last_at
    s = replace(state, version=state.version + 1, last_at=at)
    match event:
        case e.TournamentCreated():
            if state.exists:
                raise TournamentError("the tournament already exists")
            return replace(
                s,
                tournament_id=event.tournament_id,
                options=event.options,
                created_by=event.created_by,
                name=event.name,
                rules=Tournament.new(spec_of(event.options)),
                created_at=event.at,
            )
        case e.TournamentFinished(winner=who):
            if not s.t.is_finished or state.finished:
                raise TournamentError("the tournament cannot end: its last round is not over")
            return replace(s, finished=True, winner=who)
    fact = fact_of(event)
    if fact is None:
        raise TournamentError(f"not a tournament's event: {e.tag(event)}")
    s = replace(s, rules=s.t.apply(fact))
    match event:
        case e.TournamentRoundPaired(round=number, boards=boards):
            tables = dict(s.tables)
            for i, b in enumerate(boards, 1):
                if b.table_id is not None:
                    tables[(number, i)] = b.table_id
            return replace(s, tables=tables, paired_at=(*s.paired_at, at))
        case e.TournamentResult(round=number, board=board, how=how):
            return replace(s, how={**s.how, (number, board): how})
        case e.TournamentResultAdjusted(round=number, board=board):
            return replace(s, how={**s.how, (number, board): "adjusted"})
    return s


def fold(events: Iterable[e.Event], state: TournamentState | None = None) -> TournamentState:
    """Fold a tournament's events into its state (a new one's from nothing)."""
    s = state or TournamentState("")
    for event in events:
        s = evolve(s, event)
    return s


def audit_events(events: Iterable[e.Event]) -> tuple[int, ...]:
    """The rounds of a tournament's stream whose recorded pairing is not what the rules pair
    from the facts before it (:func:`engine.tournament.audit`); an empty tuple: every round
    paired again exactly.

    :raises TournamentError: the stream does not start with its creation, or holds a fact
        the fold refuses."""
    events = list(events)
    if not events or not isinstance(events[0], e.TournamentCreated):
        raise TournamentError("a tournament's stream starts with tournament_created")
    facts = [f for f in map(fact_of, events[1:]) if f is not None]
    return audit(spec_of(events[0].options), facts)


# -- deciding -----------------------------------------------------------------------------------


def decide(
    state: TournamentState, actor: str, command: c.TournamentCommand, now: int
) -> list[e.Event]:
    """The events that record ``command`` by ``actor`` at ``now`` (ms since the epoch), or a
    precise error. Pure.

    :raises TournamentNotFoundError: no such tournament (or a private one ``actor`` may not see).
    :raises NotAllowedError: the actor's role does not allow it (not the director...).
    :raises InvalidCommandError: options or a result that do not fit the tournament.
    :raises TournamentError: the rules do not allow it now (entries closed, already entered...).
    """
    if isinstance(command, c.CreateTournament):
        return _stamped(_create(state, actor, command), now)
    if not state.exists or not state.may_see(actor):
        raise TournamentNotFoundError(state.tournament_id)
    events = _stamped(_decide(state, actor, command, now), now)
    return [*events, *_stamped(_follow_up(fold(events, state), state.tournament_id), now)]


def _stamped(events: list[e.Event], now: int) -> list[e.Event]:
    return [msgspec.structs.replace(ev, at=now) for ev in events]


def _create(state: TournamentState, actor: str, cmd: c.CreateTournament) -> list[e.Event]:
    if state.exists:
        raise CommandError("the tournament already exists")
    if not state.tournament_id:
        raise CommandError("a new tournament needs an id (TournamentState(tournament_id))")
    spec_of(cmd.options)
    return [
        e.TournamentCreated(
            tournament_id=state.tournament_id,
            options=cmd.options,
            created_by=actor,
            name=cmd.name,
        )
    ]


def _decide(
    state: TournamentState, actor: str, cmd: c.TournamentCommand, now: int
) -> list[e.Event]:
    t = state.t
    options = state.options
    assert options is not None
    match cmd:
        case c.EnterTournament(rating=rating, guest=guest):
            if guest and options.rated:
                raise NotAllowedError("a rated tournament is for registered accounts")
            if t.has_started:
                raise TournamentError("entries are closed: the first round has been paired")
            if options.entries_close is not None and now > options.entries_close:
                raise TournamentError("entries are closed: the entry window is over")
            if any(x.player == actor for x in t.entrants):
                raise TournamentError("you have already entered this tournament")
            if len(t.field) >= state.max_field:
                raise TournamentError(f"the tournament is full ({state.max_field} players)")
            t.apply(Entered(actor, rating))  # the rules' own refusals, before anything is said
            return [e.TournamentEntered(player=actor, rating=rating)]
        case c.WithdrawTournament():
            if not any(x.player == actor for x in t.entrants):
                raise TournamentError("you have not entered this tournament")
            t.apply(Withdrew(actor))
            return [e.TournamentWithdrew(player=actor)]
        case c.StartTournament():
            _director(state, actor)
            if t.has_started:
                raise TournamentError("the tournament has started already")
            return [_paired(state)]
        case c.RecordResult(round=number, board=board, winner=who, forfeit=forfeit, how=how):
            if actor != SERVER:
                raise NotAllowedError("results are recorded by the server from the match tables")
            t.apply(Result(number, board, who, forfeit))
            return [
                e.TournamentResult(round=number, board=board, winner=who, forfeit=forfeit, how=how)
            ]
        case c.AdjustResult(round=number, board=board, winner=who, forfeit=forfeit, reason=why):
            _director(state, actor)
            if state.finished:
                raise TournamentError("the tournament is over: its results are final")
            t.apply(Adjusted(number, board, who, why, forfeit))
            return [
                e.TournamentResultAdjusted(
                    round=number,
                    board=board,
                    winner=who,
                    forfeit=forfeit,
                    director=actor,
                    reason=why,
                )
            ]
    raise InvalidCommandError(f"not a tournament command: {type(cmd).__name__}")


def _director(state: TournamentState, actor: str) -> None:
    if actor != state.created_by:
        raise NotAllowedError("only the tournament's director may do this")


def _paired(state: TournamentState) -> e.TournamentRoundPaired:
    """The next round as the rules pair it, each board to play with its match table (a bye,
    or a board one of whose players has withdrawn, is decided as it is paired: no table)."""
    t = state.t
    paired = next_round(t)
    after = t.apply(paired)
    boards = []
    for i, p in enumerate(paired.pairings, 1):
        decided = after.rounds[-1].boards[i - 1].decided
        table = None if decided else match_table_id(state.tournament_id, paired.round, i)
        boards.append(e.PairedBoard(a=p.a, b=p.b, table_id=table))
    return e.TournamentRoundPaired(round=paired.round, boards=boards)


def _follow_up(state: TournamentState, tournament_id: str) -> list[e.Event]:
    """What the tournament records by itself after a command: the next round once the last
    is decided (again, while a round is decided as it is paired), and its end."""
    out: list[e.Event] = []
    s = state
    while s.t.awaiting_pairing:
        paired = _paired(s)
        out.append(paired)
        s = evolve(s, paired)
    if s.t.is_finished and not s.finished:
        out.append(e.TournamentFinished(winner=winner_of(s.t)))
    return out


def winner_of(t: Tournament) -> str | None:
    """Who won a finished tournament: the knockout's final, else the top of the standings."""
    if t.format is Format.KNOCKOUT:
        return winner(t)
    table = standings(t)
    return table[0].player if table else None
