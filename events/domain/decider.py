"""The table aggregate: ``decide(state, actor, command, dice) -> events`` and
``evolve(state, event) -> state``, both pure and built on the engine (docs/design.md).

The only way to get a table's state is to fold :func:`evolve` over its events (:func:`fold`):
on load, in tests, in replays and in audits. :func:`decide` never changes anything; it raises a
precise error (an engine ``ValueError`` subclass, or :class:`~events.domain.table.CommandError`)
when a
command is not allowed, and otherwise returns the events that record it.

Events read back from the store are folded with :func:`evolve_stored` (:func:`fold_stored`) by
everything that loads a table (the command service, the replay, the game logs and exports, the
terminal record): the log is immutable, so an event that a server once wrote wrongly (issue 27:
an opening throw after the match was forfeited) is there for good, and a table must still open.
Such an event is skipped: the state's version moves past it, :attr:`TableState.skipped
<events.domain.table.TableState.skipped>` records it, and it is logged. :func:`fold` and
:func:`evolve` stay strict (tests, the audit, which reports the event at its version).

This module only dispatches: creating a table is the same for every kind; the rest goes to the
rules of the table's kind, :mod:`events.domain.duel_table` (money and match) or
:mod:`events.domain.chouette_table`. Chat goes to the table's chat stream instead
(:func:`events.domain.chat.decide_chat`). The dice are an input too
(:class:`~events.domain.table.DiceSource`),
so the decider stays pure and every throw can be derived again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

import msgspec

from engine.errors import EngineError
from engine.frozen import replace
from events.domain import chouette_table, clocks, duel_table
from events.domain import commands as c
from events.domain import types as e
from events.domain.table import (
    CommandError,
    DiceSource,
    InvalidCommandError,
    LeaveCostChangedError,
    MatchOverError,
    NotAllowedError,
    TableState,
    evolve_forfeits,
    evolve_window,
    leave_cost,
)

__all__ = ["decide", "evolve", "evolve_stored", "fold", "fold_stored", "may_start_game"]

log = logging.getLogger("chouette.tables")


def decide(
    state: TableState, actor: str, command: c.Command, dice: DiceSource, now: int = 0
) -> list[e.Event]:
    """The events that record ``command`` by ``actor`` at time ``now``, or a precise error. Pure.

    ``now`` (milliseconds since the Unix epoch) is an input like the dice: the server passes
    its clock, an audit the recorded time. Every event returned carries it (``at``), and
    deadlines (the seed window) are judged by it.

    :raises CommandError: a command that does not fit this table.
    :raises MatchOverError: anything but leaving, once the table's match has ended.
    :raises NotAllowedError: the actor's role does not allow it.
    :raises engine.errors.EngineError: the rules do not allow it (illegal play, cube, turn...).
    """
    match command:
        case c.CreateTable():
            return _stamped(_create(state, actor, command), now)
        case _ if not state.version:
            raise CommandError("no such table")
        case c.Chat():
            raise CommandError(
                "chat goes to the table's chat stream (events.domain.chat.decide_chat)"
            )
        case c.Leave(at_most=at_most):
            # Leaving a finished match costs nothing and is still allowed. A leave that
            # would cost more than the player agreed to is refused (docs/rules.md §10).
            if at_most is not None:
                cost = leave_cost(state, actor)
                if cost is not None and -cost.points > at_most:
                    raise LeaveCostChangedError(-cost.points, at_most)
        case c.Join() | c.Expire() if state.match_winner:
            raise MatchOverError()
        case _ if state.match_winner:
            # A finished match is finished (docs/rules.md §10): no throw, play, cube action,
            # seed, new game or expiry, even where a game was left open by a server before
            # issue 27 (its events are in the log for good). Who is not seated is told that
            # first, as at any table: the role is checked before the state.
            if state.seat_of(actor) is None:
                raise NotAllowedError(f"{actor!r} is not seated at this table")
            raise MatchOverError()
    rules = chouette_table if state.kind == "chouette" else duel_table
    if isinstance(command, c.Expire):
        # Judged by time alone, and by who is connected (which the server says, ``absent``).
        return _stamped(rules.expire(state, dice, now, tuple(command.absent)), now)
    try:
        return _stamped(rules.decide(state, actor, command, dice, now), now)
    except EngineError as exc:
        # The engine names seats or account ids; a person is told names. Only the engine's
        # own errors are worded again (the table's errors already name players).
        text = str(exc)
        named = rules.name_players(state, text)
        if named == text or not type(exc).__module__.startswith("engine."):
            raise
        raise type(exc)(named) from exc


def _stamped(events: list[e.Event], now: int) -> list[e.Event]:
    """The events with the time they were decided at."""
    return [msgspec.structs.replace(ev, at=now) for ev in events] if now else events


def may_start_game(command: c.Command) -> bool:
    """Whether deciding ``command`` may start a game, and so commit to the next game's dice
    seed: the service draws that seed before deciding (docs/dice.md). A player sitting down,
    ``start_game``, a ``roll`` (a money table's next game starts when a player throws for
    it), and every action that can end a game (after which the next one starts), a forfeit on
    time (``expire``) included."""
    match command:
        case c.Join() | c.StartGame() | c.Move() | c.Drop() | c.Accept() | c.Leave():
            return True
        case c.Roll() | c.Expire():
            return True
    return False


def _create(state: TableState, actor: str, cmd: c.CreateTable) -> list[e.Event]:
    """A new table, its options checked against its kind (docs/rules.md §5–8)."""
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
    clocks.check_reserve_rule(cmd.kind, o)
    return [
        e.TableCreated(
            table_id=state.table_id, kind=cmd.kind, options=o, created_by=actor, name=cmd.name
        )
    ]


def evolve(state: TableState, event: e.Event) -> TableState:
    """The state after ``event``. Pure; raises if the event does not fit the state (which an
    audit reports as an illegal event)."""
    match event:
        case e.TableCreated():
            s = replace(
                state,
                table_id=event.table_id,
                kind=event.kind,
                options=event.options,
                created_by=event.created_by,
                name=event.name,
            )
        case _:
            window = evolve_window(state, event)
            if window is not None:
                s = window
            elif state.kind == "chouette":
                s = chouette_table.evolve(state, event)
            else:
                s = duel_table.evolve(state, event)
    s = evolve_forfeits(state, s, event)
    s = clocks.tick(state, s, event)
    at = event.at or state.last_at
    if s is state:
        return replace(state, version=state.version + 1, last_at=at)
    # ``s`` is a copy made just now and seen by nobody else: give it its version and time in
    # place rather than copying it again (a fold makes one such copy per event).
    _set_version(s, state.version + 1)
    _set_last_at(s, at)
    return s


_set_version = TableState.__dict__["version"].__set__
_set_last_at = TableState.__dict__["last_at"].__set__
"""The slots' own setters: as ``object.__setattr__(s, name, value)``, without the look-up."""


def fold(events: Iterable[e.Event], state: TableState | None = None) -> TableState:
    """Fold events into a table state: the only way to get one. Strict: an event that does not
    apply raises (tests, the audit); a table read back from the store is folded with
    :func:`fold_stored`."""
    s = state or TableState()
    for event in events:
        s = evolve(s, event)
    return s


Skipped = Callable[[int, e.Event, str], None]
"""Told of an event :func:`evolve_stored` skipped: its version, the event and why it does not
apply."""


def evolve_stored(state: TableState, event: e.Event, on_skip: Skipped | None = None) -> TableState:
    """:func:`evolve` for an event read back from the store: one that does not apply to the
    state (the rules raise) is skipped rather than raised, since the log keeps it for good and
    the table must still open. The state's version (and time) move past it as past any event,
    :attr:`~events.domain.table.TableState.skipped` gains its version, it is logged, and ``on_skip``
    is told. Pure but for the log line.

    >>> options = e.TableOptions()
    >>> s = fold([e.TableCreated(table_id="t", kind="money", options=options, created_by="a")])
    >>> s = evolve_stored(s, e.OpeningThrow(dice=(3, 1)))
    >>> s.version, s.skipped
    (2, (2,))
    """
    try:
        return evolve(state, event)
    except EngineError as exc:
        version = state.version + 1
        reason = str(exc)
        log.warning(
            "table %s: the stored %s at version %d does not apply and is skipped: %s",
            state.table_id or "?",
            e.tag(event),
            version,
            reason,
            extra={"table_id": state.table_id, "version": version},
        )
        if on_skip is not None:
            on_skip(version, event, reason)
        return replace(
            state,
            version=version,
            last_at=event.at or state.last_at,
            skipped=(*state.skipped, version),
        )


def fold_stored(
    events: Iterable[e.Event], state: TableState | None = None, on_skip: Skipped | None = None
) -> TableState:
    """Fold events read back from the store (:func:`evolve_stored`): what loads a table."""
    s = state or TableState()
    for event in events:
        s = evolve_stored(s, event, on_skip)
    return s
