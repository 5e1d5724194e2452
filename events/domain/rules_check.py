"""The audit's rules check, for one batch of events: what command must have produced an event,
and whether a batch is what the rules give.

A table's log is append-only, so a wrong decision would be kept for good. The audit
(:mod:`events.records.audit`) finds such an event after the fact; :func:`check_batch` refuses it
before
it is written. Both use what is here:

- :func:`command_of`: the command that must have produced an event as its first event (a roll
  for a throw, a play for ``checkers_moved``, an expiry for ``time_expired``...), with who may
  have sent it;
- :func:`decide_as`: that command decided by the first of those actors whose role allows it;
- the recorded events must be exactly the decided ones, and each must apply
  (:func:`~events.domain.decider.evolve`).

:func:`check_batch` runs that over a batch a command decided (a player's, a timer's, a bot's) or
an import's step, before the service or the importer appends it: the same check the audit makes
later, so nothing is appended that the audit would reject. The batch is found to be one command's
events or several in a row (a throw asked for as the seed window closes is the window's close,
then the throw), exactly as the audit splits a stream.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from events.domain import commands as c
from events.domain import types as e
from events.domain.decider import decide, evolve
from events.domain.table import DiceSource, NotAllowedError, TableState

__all__ = [
    "CheckCost",
    "DecisionRejectedError",
    "MissingThrow",
    "RecordedThrows",
    "absent_of",
    "check_batch",
    "check_steps",
    "command_of",
    "decide_as",
    "dice_of",
]

_json = msgspec.json.Encoder()


class MissingThrow(Exception):
    """The rules need a throw that the record does not have."""


class DecisionRejectedError(Exception):
    """A decided batch of events that the rules do not accept: it was not appended.

    Not a :class:`ValueError` (a refused command): the command may have been perfectly good;
    what failed is the server's decision, a bug. ``reason`` names the rule (for the log);
    what a client is told names only the table and the event type.
    """

    def __init__(self, table_id: str, version: int, event_type: str, reason: str) -> None:
        super().__init__(
            f"table {table_id}: the decided {event_type} at version {version} is not what the "
            f"rules give: {reason}"
        )
        self.table_id = table_id
        self.version = version
        self.event_type = event_type
        self.reason = reason


def dice_of(ev: e.Event) -> tuple[int, ...]:
    """The dice an event records, in the order they were thrown."""
    if isinstance(ev, (e.OpeningThrow, e.DiceRolled)):
        return ev.dice
    if isinstance(ev, e.LineThrow):
        return tuple(ev.throws.values())
    return ()


class RecordedThrows:
    """A dice source that gives what the events being checked record (from :attr:`batch`,
    throws counted from :attr:`state`'s dice counter): for games whose seed the checker does
    not hold (an import, a game in play during an audit). Commitments and revealed seeds too are
    the recorded ones; the audit checks them against each other."""

    def __init__(self) -> None:
        self.state = TableState()
        self.batch: Sequence[tuple[int, e.Event]] = ()

    def commitment(self, game: int) -> str:
        for _, ev in self.batch:
            if isinstance(ev, e.GameStarted) and ev.game == game:
                return ev.dice_commitment
        return ""

    def reveal(self, game: int) -> str:
        for _, ev in self.batch:
            if isinstance(ev, e.GameEnded) and ev.game == game:
                return ev.seed
        return ""

    def die(self, game: int, counter: int, clients: Sequence[str] = ()) -> int:
        return self.recorded(game, counter)

    def recorded(self, game: int, counter: int) -> int:
        """The die at ``counter`` as the events being checked record it."""
        index = counter - (self.state.dice_counter if game == self.state.game_no else 0)
        for _, ev in self.batch:
            thrown = dice_of(ev)
            if index < len(thrown):
                return thrown[index]
            index -= len(thrown)
        raise MissingThrow(f"the rules need another throw here (die {counter} of game {game})")


def command_of(
    state: TableState, event: e.Event, following: Sequence[e.Event] = ()
) -> tuple[list[str], c.Command] | None:
    """The command that must have produced ``event`` as its first event, with who may have
    sent it (the event's player, or for a throw or start that names nobody, everyone seated).
    None for an event that no command produces first.

    ``following``: the events recorded after it, as far as they are known (the rest of the
    batch, and maybe later ones): an expiry's ``absent``, an input the server gave it, is
    read back from what its events record (:func:`absent_of`)."""
    # Nearly every event: a player's throw or play, straight to its command (as below).
    if type(event) is e.DiceRolled and event.player:
        return [event.player], c.Roll()
    if type(event) is e.CheckersMoved and event.player:
        return [event.player], c.Move(moves=[(a, b) for a, b in event.moves])
    anyone = list(state.players) or [state.created_by]
    player = getattr(event, "player", None)
    by = [player] if player else anyone
    # In a chouette the box names the cubes it acts on; a member always acts on their own,
    # which the events name explicitly (schema 2) but the command leaves out.
    box = state.chouette is not None and player == state.chouette.box
    match event:
        case e.TableCreated():
            return [event.created_by], c.CreateTable(
                kind=event.kind, options=event.options, name=event.name
            )
        case e.PlayerJoined():
            return by, c.Join(seat=event.seat, display_name=event.display_name, bot=event.bot)
        case e.PlayerLeft():
            return by, c.Leave()
        case e.GameStarted():
            return anyone, c.StartGame()
        case e.ClientSeedAdded():
            return by, c.AddSeed(seed=event.seed)
        case e.ClientSeedWaived():
            return by, c.WaiveSeed()
        case e.SeedWindowClosed():
            # Closed as a throw was asked for, or by the timer: either way it is what judging
            # the time then gives (a throw that came with it is then checked as a roll).
            return anyone, c.Expire()
        case e.TimeExpired():
            return anyone, c.Expire(absent=absent_of(event, following))
        case e.LineThrow():
            return anyone, c.Roll()  # the line, thrown by a member's roll or by the timer
        case e.OpeningThrow():
            return anyone, c.Roll()
        case e.DiceRolled():
            return by, c.Roll()
        case e.CheckersMoved():
            return by, c.Move(moves=[(a, b) for a, b in event.moves])
        case e.CubeOffered():
            return by, c.Double(cubes=list(event.cubes) if box else [])
        case e.CubeTaken():
            return by, c.Take(cube=event.cube if box else "")
        case e.CubeDropped():
            return by, c.Drop(cube=event.cube if box else "")
        case e.CubeBeavered():
            return by, c.Beaver(cube=event.cube if box else "")
        case e.ResignationOffered():
            return by, c.Resign(level=event.level, to=list(event.to) if box else [])
        case e.ResignationAccepted():
            return by, c.Accept(cube=event.cube if box else "")
        case e.ResignationDeclined():
            return by, c.Decline(cube=event.cube if box else "")
    return None


def absent_of(first: e.TimeExpired, following: Sequence[e.Event]) -> list[str]:
    """The ``absent`` of the expiry whose events begin with ``first``, as they record it: who
    ran out of time while not connected (each ``time_expired`` of its first run says), and when
    that ended the game, who of the line was not connected (the ``line_rotated`` that follows
    the game's end and the leaves). The rest of who was absent changed nothing it decided."""
    batch = [first, *following]
    absent: list[str] = []
    k = 0
    while k < len(batch) and isinstance(batch[k], e.TimeExpired):
        expired = batch[k]
        assert isinstance(expired, e.TimeExpired)
        if expired.absent:
            absent.append(expired.player)
        k += 1
    if k < len(batch) and isinstance(batch[k], e.GameEnded):
        k += 1
        while k < len(batch) and isinstance(batch[k], e.PlayerLeft):
            k += 1
        rotated = batch[k] if k < len(batch) else None
        if isinstance(rotated, e.LineRotated):
            absent += [p for p in rotated.absent if p not in absent]
    return absent


def decide_as(
    state: TableState, actors: list[str], command: c.Command, dice: DiceSource, now: int
) -> list[e.Event]:
    """Decide ``command`` at ``now`` for the first of ``actors`` whose role allows it."""
    error: Exception | None = None
    for actor in actors:
        try:
            return decide(state, actor, command, dice, now)
        except NotAllowedError as exc:
            error = error or exc
    assert error is not None
    raise error


def brief(event: e.Event) -> str:
    """An event as compact JSON, for a failure's reason."""
    text = _json.encode(event).decode()
    return text if len(text) <= 300 else text[:297] + "..."


def _same(inferred: c.Command, sent: c.Command) -> bool:
    """Whether the command the audit infers is the one that was decided (a play's moves as
    pairs either way)."""
    if isinstance(inferred, c.Move) and isinstance(sent, c.Move):
        return sent.moves is not None and [tuple(m) for m in sent.moves] == [
            tuple(m) for m in inferred.moves or ()
        ]
    return inferred == sent


@dataclass(slots=True)
class CheckCost:
    """What checking batches cost beyond folding their events (which a command does anyway:
    the fold :func:`check_batch` makes is the state the service keeps), added up."""

    seconds: float = 0.0
    """Time spent working out, deciding again and comparing (not folding)."""
    batches: int = 0
    decided_again: int = 0
    """Runs of a batch decided again in full (the rest were decide()'s own answer)."""


def check_batch(
    state: TableState,
    events: Sequence[e.Event],
    dice: DiceSource | None = None,
    *,
    decided_as: tuple[str, c.Command] | None = None,
    cost: CheckCost | None = None,
) -> TableState:
    """The state after ``events``, which a command decided from ``state``, when they are what
    the audit would find the rules give; otherwise :class:`DecisionRejectedError`.

    Each run of the batch is checked as the audit checks a stream: the command its first event
    must come from (:func:`command_of`), decided again at that event's time by the first actor
    allowed (:func:`decide_as`), must give exactly the recorded events, and each must apply.

    :param dice: the dice the batch was decided with (the service's fair dice, with the seeds
        of the game in play and the next: so every throw is re-derived); None to take the
        dice as recorded (an import's, a simulation's: :class:`RecordedThrows`).
    :param decided_as: the actor and command that :func:`events.domain.decider.decide` itself was
        given, with ``dice``, to produce ``events``. When the audit infers that very actor and
        command from the first event, deciding it again is the same pure computation on the
        same inputs and gives ``events`` back (the audit's decision is that one), so it is not
        run again: the batch is folded. Any other inference is decided again (an expiry that
        decided a throw, a play given in notation...). Never pass it for another decider.
    :param cost: where the time the check takes beyond the fold is added up (the server's
        metrics, the benchmark).
    """
    started = time.perf_counter()
    try:
        return _check(state, events, dice, decided_as, cost)
    finally:
        if cost is not None:
            cost.batches += 1
            cost.seconds += time.perf_counter() - started


def _check(
    state: TableState,
    events: Sequence[e.Event],
    dice: DiceSource | None,
    decided_as: tuple[str, c.Command] | None,
    cost: CheckCost | None,
) -> TableState:
    table_id = state.table_id
    recorded = RecordedThrows()
    source: DiceSource = recorded if dice is None else dice
    s = state
    i = 0
    while i < len(events):
        first = events[i]
        tag = e.tag(first)
        version = s.version + 1
        found = command_of(s, first, events[i + 1 :])
        if found is None:
            raise DecisionRejectedError(table_id, version, tag, f"no command produces a {tag} here")
        actors, command = found
        if (
            not i
            and decided_as is not None
            and actors[0] == decided_as[0]
            and _same(command, decided_as[1])
        ):
            return _apply(table_id, s, events, cost)  # decide() gave them from this state
        if cost is not None:
            cost.decided_again += 1
        recorded.state = s
        recorded.batch = [(0, ev) for ev in events[i:]]
        try:
            decided = decide_as(s, actors, command, source, first.at)
        except MissingThrow as exc:
            raise DecisionRejectedError(table_id, version, tag, str(exc)) from None
        except Exception as exc:  # a refusal (a ValueError), or the rules failing on it
            raise DecisionRejectedError(table_id, version, tag, f"not allowed: {exc}") from None
        if not decided:
            raise DecisionRejectedError(table_id, version, tag, "the rules record nothing here")
        for k, want in enumerate(decided):
            if i + k >= len(events):
                reason = f"the batch stops short; the rules add {e.tag(want)}: {brief(want)}"
                raise DecisionRejectedError(table_id, version + k - 1, e.tag(events[-1]), reason)
            got = events[i + k]
            if got != want:
                reason = f"decided {brief(got)}; the rules give {brief(want)}"
                raise DecisionRejectedError(table_id, version + k, e.tag(got), reason)
        s = _apply(table_id, s, events[i : i + len(decided)], cost)
        i += len(decided)
    return s


def _apply(
    table_id: str, state: TableState, events: Sequence[e.Event], cost: CheckCost | None = None
) -> TableState:
    """The state after ``events``, each of which must apply; the time it takes is not the
    check's (taken off ``cost``: the service folds a command's events in any case)."""
    started = time.perf_counter()
    s = state
    for ev in events:
        try:
            s = evolve(s, ev)
        except Exception as exc:  # the rules' refusal, or a bad event failing the fold
            reason = f"it does not apply: {exc}"
            raise DecisionRejectedError(table_id, s.version + 1, e.tag(ev), reason) from None
    if cost is not None:
        cost.seconds -= time.perf_counter() - started
    return s


def check_steps(
    table_id: str, steps: Sequence[Sequence[e.Event]], state: TableState | None = None
) -> TableState:
    """The state after appending ``steps`` (each one command's events, as an import or a
    simulation writes them) to a table at ``state`` (a new table by default), each checked by
    :func:`check_batch` with the dice as recorded.

    :raises DecisionRejectedError: at the first step the rules do not give.
    """
    s = state if state is not None else TableState(table_id=table_id)
    for events in steps:
        s = check_batch(s, events)
    return s
