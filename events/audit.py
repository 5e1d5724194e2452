"""Audit a table: is every stored event what the rules and the dice allow?

For each stream of a table the audit checks, and names the first failure with its version:

- **chain**: the store's per-stream hash chain (:meth:`EventStore.verify_chain`);
- **versions**: the stream's versions are dense, 1..n;
- **decode**: every payload decodes as an event of the stream's kind;
- **rules**: re-decided through the engine. The events are folded one by one with
  :func:`~events.decider.evolve`; at the start of each command's events the audit works out the
  command that must have produced them (a roll, a play, a double...), runs
  :func:`~events.decider.decide` on the state before them, and requires exactly the recorded
  events back: each play legal, each cube action allowed, each result, settlement and ledger
  entry as the engine computes it;
- **dice**: every throw against the revealed seed. A finished game's ``game_ended`` reveals its
  seed; SHA-256 of it must be the commitment published in its ``game_started``, and the audit
  re-decides that game's throws from the seed and the players' recorded seeds
  (:mod:`events.dice`), so a throw that the seed does not give fails at its version. A game
  still in play keeps its seed secret: its throws are taken as recorded and the game is
  reported **pending** (not failed) until it ends.

The batch of events a command produced is found by re-deciding, not by trusting the stored
command ids (they are not covered by the hash chain); the command ids are used only to say which
event is at fault when a command's recorded events stop short of what the rules produce.

:func:`audit_records` is this pure core (recorded events in, report out);
:mod:`events.audit_scan` reads the store for it, and ``GET /tables/{id}/audit`` serves it
(:mod:`server.record_handlers`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from engine.errors import EngineError
from events import commands as c
from events import dice as fair
from events import types as e
from events.decider import decide, evolve
from events.errors import CorruptEventError
from events.store import RecordedEvent
from events.streams import decode_recorded, parse_stream
from events.table import CommandError, NotAllowedError, TableState

__all__ = [
    "Failure",
    "StreamReport",
    "TableReport",
    "audit_records",
]

CHECKS = ("chain", "versions", "decode", "rules", "dice")
"""The checks of a stream, in the order they are reported."""

_json = msgspec.json.Encoder()


@dataclass(frozen=True, slots=True)
class Failure:
    """The first failure of one check in one stream."""

    check: str
    """``chain``, ``versions``, ``decode``, ``rules`` or ``dice``."""
    version: int
    """The stream version at fault."""
    reason: str
    event: str = ""
    """The type of the event at that version, when there is one."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "version": self.version,
            "event": self.event,
            "reason": self.reason,
        }


@dataclass(slots=True)
class StreamReport:
    """What the audit found in one stream."""

    stream: str
    events: int = 0
    failures: list[Failure] = field(default_factory=list)
    """At most one per check, in version order."""
    games: int = 0
    """Games started in the stream."""
    dice_verified: list[int] = field(default_factory=list)
    """Games whose every throw was re-derived from the revealed seed."""
    pending: list[int] = field(default_factory=list)
    """Games still in play: their seed is secret, so their throws cannot be checked yet."""
    uncommitted: list[int] = field(default_factory=list)
    """Games whose dice were never committed to (imported from a file): their rules are
    checked, their dice cannot be."""
    seconds: float = 0.0

    @property
    def first_failure(self) -> Failure | None:
        return min(self.failures, key=lambda f: (f.version, CHECKS.index(f.check)), default=None)

    @property
    def status(self) -> str:
        """``failed``, ``pending`` (every check that can be made holds, a game is in play) or
        ``ok``."""
        if self.failures:
            return "failed"
        return "pending" if self.pending else "ok"

    def fail(self, check: str, version: int, reason: str, event: str = "") -> None:
        """Record the first failure of ``check`` (later ones of the same check are dropped)."""
        if any(f.check == check for f in self.failures):
            return
        self.failures.append(Failure(check, version, reason, event))
        self.failures.sort(key=lambda f: (f.version, CHECKS.index(f.check)))

    def as_dict(self) -> dict[str, Any]:
        first = self.first_failure
        return {
            "stream": self.stream,
            "status": self.status,
            "events": self.events,
            "first_failure": first.as_dict() if first else None,
            "failures": [f.as_dict() for f in self.failures],
            "checks": {check: self._check_status(check) for check in CHECKS},
            "games": {
                "started": self.games,
                "dice_verified": self.dice_verified,
                "pending": self.pending,
                "uncommitted": self.uncommitted,
            },
        }

    def _check_status(self, check: str) -> str:
        if any(f.check == check for f in self.failures):
            return "failed"
        if check == "dice" and self.pending:
            return "pending"
        if check == "dice" and self.uncommitted:
            return "uncommitted"
        return "ok"


@dataclass(slots=True)
class TableReport:
    """The audit of one table: its play stream and its chat stream."""

    table_id: str
    streams: list[StreamReport] = field(default_factory=list)

    @property
    def events(self) -> int:
        return sum(s.events for s in self.streams)

    @property
    def status(self) -> str:
        statuses = {s.status for s in self.streams}
        for status in ("failed", "pending"):
            if status in statuses:
                return status
        return "ok"

    @property
    def first_failure(self) -> tuple[str, Failure] | None:
        found = [(s.stream, s.first_failure) for s in self.streams if s.first_failure]
        return found[0] if found else None

    def as_dict(self) -> dict[str, Any]:
        first = self.first_failure
        return {
            "table": self.table_id,
            "status": self.status,
            "events": self.events,
            "first_failure": ({"stream": first[0], **first[1].as_dict()} if first else None),
            "streams": [s.as_dict() for s in self.streams],
        }


class _MissingThrow(Exception):
    """The rules need a throw that the record does not have."""


@dataclass(slots=True)
class _GameDice:
    """What the stream says about one game's dice."""

    started_at: int = 0
    """Version of its ``game_started``."""
    commitment: str = ""
    ended_at: int = 0
    """Version of its ``game_ended`` (0 while in play)."""
    revealed: str = ""
    """The seed revealed in its ``game_ended``, as recorded (hex)."""
    seed: bytes | None = None
    """The revealed seed, when it matches the commitment."""
    bad_seed: bytes | None = None
    """A revealed seed that does not match the commitment (to tell which of the two is off)."""
    bad_seed_holds: bool = True
    """Whether every throw checked so far is what ``bad_seed`` derives."""
    folded: bool = False
    """Whether the rules check folded the game to its end (so all its throws were seen)."""


_WINDOW = 64
"""How many recorded events a command's dice are looked for in (a long run of tied opening
throws is the longest batch of throws)."""


class _AuditDice:
    """The decider's dice source during an audit.

    A game whose seed was revealed (and matches its commitment) throws what the seed derives,
    so a recorded throw that differs is caught by the comparison. A game in play throws what
    was recorded (its dice cannot be checked yet). Commitments and seeds are the recorded ones:
    they are checked against each other separately.
    """

    def __init__(self, games: dict[int, _GameDice]) -> None:
        self.games = games
        self.state = TableState()
        self.batch: Sequence[tuple[int, e.Event]] = ()
        self._keys: dict[tuple[int, tuple[str, ...]], bytes] = {}

    def commitment(self, game: int) -> str:
        info = self.games.get(game)
        return info.commitment if info else ""

    def reveal(self, game: int) -> str:
        info = self.games.get(game)
        return info.revealed if info else ""

    def die(self, game: int, counter: int) -> int:
        info = self.games.get(game)
        # A game's players may add seeds only after it starts: a game being started (the
        # throws for a chouette's line) throws with none.
        clients = self.state.client_seeds if game == self.state.game_no else ()
        if info is not None and info.seed is not None:
            cache = (game, clients)
            key = self._keys.get(cache)
            if key is None:
                key = self._keys[cache] = fair.game_key(info.seed, clients)
            return fair.derive_die(key, counter)
        return self.recorded(game, counter)

    def recorded(self, game: int, counter: int) -> int:
        """The die at ``counter`` as the events being checked record it."""
        index = counter - (self.state.dice_counter if game == self.state.game_no else 0)
        for _, ev in self.batch:
            thrown = _dice_of(ev)
            if index < len(thrown):
                return thrown[index]
            index -= len(thrown)
        raise _MissingThrow(f"the rules need another throw here (die {counter} of game {game})")


def _dice_of(ev: e.Event) -> tuple[int, ...]:
    """The dice an event records, in the order they were thrown."""
    if isinstance(ev, (e.OpeningThrow, e.DiceRolled)):
        return ev.dice
    if isinstance(ev, e.LineThrow):
        return tuple(ev.throws.values())
    return ()


def _command_of(state: TableState, event: e.Event) -> tuple[list[str], c.Command] | None:
    """The command that must have produced ``event`` as its first event, with who may have
    sent it (the event's player, or for a throw or start that names nobody, everyone seated).
    None for an event that no command produces first."""
    anyone = list(state.players) or [state.created_by]
    player = getattr(event, "player", None)
    by = [player] if player else anyone
    match event:
        case e.TableCreated():
            return [event.created_by], c.CreateTable(
                kind=event.kind, options=event.options, name=event.name
            )
        case e.PlayerJoined():
            return by, c.Join(seat=event.seat, display_name=event.display_name)
        case e.PlayerLeft():
            return by, c.Leave()
        case e.GameStarted():
            return anyone, c.StartGame()
        case e.ClientSeedAdded():
            return by, c.AddSeed(seed=event.seed)
        case e.OpeningThrow():
            return anyone, c.Roll()
        case e.DiceRolled():
            return by, c.Roll()
        case e.CheckersMoved():
            return by, c.Move(moves=[(a, b) for a, b in event.moves])
        case e.CubeOffered():
            return by, c.Double(cubes=list(event.cubes))
        case e.CubeTaken():
            return by, c.Take(cube=event.cube)
        case e.CubeDropped():
            return by, c.Drop(cube=event.cube)
        case e.CubeBeavered():
            return by, c.Beaver(cube=event.cube)
        case e.ResignationOffered():
            return by, c.Resign(level=event.level, to=list(event.to))
        case e.ResignationAccepted():
            return by, c.Accept(cube=event.cube)
        case e.ResignationDeclined():
            return by, c.Decline(cube=event.cube)
    return None


def _decide_as(
    state: TableState, actors: list[str], command: c.Command, dice: _AuditDice
) -> list[e.Event]:
    """Decide ``command`` for the first of ``actors`` whose role allows it."""
    error: Exception | None = None
    for actor in actors:
        try:
            return decide(state, actor, command, dice)
        except NotAllowedError as exc:
            error = error or exc
    assert error is not None
    raise error


def _brief(event: e.Event) -> str:
    """An event as compact JSON, for a failure's reason."""
    text = _json.encode(event).decode()
    return text if len(text) <= 300 else text[:297] + "..."


def _scan_games(
    events: Sequence[tuple[int, e.Event]], report: StreamReport
) -> dict[int, _GameDice]:
    """Collect each game's commitment and revealed seed, checking one against the other."""
    games: dict[int, _GameDice] = {}
    for version, ev in events:
        if isinstance(ev, e.GameStarted):
            if ev.game not in games:
                games[ev.game] = _GameDice(started_at=version, commitment=ev.dice_commitment)
        elif isinstance(ev, e.GameEnded):
            info = games.get(ev.game)
            if info is None or info.ended_at:
                continue  # the rules check reports a game ended twice or never started
            info.ended_at = version
            info.revealed = ev.seed
            if ev.seed and fair.verify(ev.seed, info.commitment):
                info.seed = bytes.fromhex(ev.seed)
            else:
                try:
                    info.bad_seed = bytes.fromhex(ev.seed)
                except ValueError:
                    info.bad_seed_holds = False
    report.games = len(games)
    return games


def _check_seeds(games: dict[int, _GameDice], report: StreamReport) -> None:
    """Name the first game whose revealed seed is not the committed one, and list the games
    still in play.

    When the revealed seed still derives every throw of its game, it is the genuine seed and
    the commitment is what was changed (blame ``game_started``); otherwise blame ``game_ended``.
    """
    for number, info in sorted(games.items()):
        if not info.commitment and not info.revealed:
            report.uncommitted.append(number)
        elif not info.ended_at:
            report.pending.append(number)
        elif info.seed is not None:
            continue
        elif not info.commitment:
            report.fail(
                "dice",
                info.started_at,
                f"game {number} published no dice commitment",
                "game_started",
            )
        elif info.bad_seed is not None and info.bad_seed_holds and info.folded:
            report.fail(
                "dice",
                info.started_at,
                f"the commitment of game {number} is not SHA-256 of the seed revealed at "
                f"version {info.ended_at} (which does derive every throw of the game)",
                "game_started",
            )
        else:
            report.fail(
                "dice",
                info.ended_at,
                f"the seed revealed for game {number} ({info.revealed[:16]!r}...) is not the "
                f"one committed to at version {info.started_at}",
                "game_ended",
            )


def audit_records(
    stream_id: str,
    records: Sequence[RecordedEvent],
    *,
    chain: Failure | None = None,
    progress: Callable[[int], None] | None = None,
) -> StreamReport:
    """Audit one table stream's recorded events (all of them, in version order).

    :param chain: the hash chain's failure, found by :meth:`EventStore.verify_chain`.
    :param progress: called now and then with the number of events done since the last call.
    """
    started = time.perf_counter()
    report = StreamReport(stream_id, events=len(records))
    if chain is not None:
        report.fail("chain", chain.version, chain.reason, _type_at(records, chain.version))
    events = _decode_all(records, report)
    name = parse_stream(stream_id)
    if name is not None and name.kind == "chat":
        _check_chat(events, report)
    else:
        table_id = name.table_id if name is not None else stream_id
        _check_rules(table_id, events, records, report, progress)
    report.seconds = time.perf_counter() - started
    return report


def _type_at(records: Sequence[RecordedEvent], version: int) -> str:
    if 1 <= version <= len(records) and records[version - 1].version == version:
        return records[version - 1].type
    return ""


def _decode_all(
    records: Sequence[RecordedEvent], report: StreamReport
) -> list[tuple[int, e.Event]]:
    """Decode events up to the first gap in the versions or the first undecodable payload."""
    events: list[tuple[int, e.Event]] = []
    for expected, rec in enumerate(records, 1):
        if rec.version != expected:
            report.fail(
                "versions",
                expected,
                f"version {expected} is missing (the next stored is {rec.version})"
                if rec.version > expected
                else f"version {rec.version} is stored twice or out of order",
            )
            break
        try:
            events.append((rec.version, decode_recorded(rec)))
        except CorruptEventError as exc:
            report.fail("decode", rec.version, str(exc), rec.type)
            break
    return events


def _check_chat(events: list[tuple[int, e.Event]], report: StreamReport) -> None:
    for version, ev in events:
        if not isinstance(ev, e.ChatPosted):
            report.fail("rules", version, f"a {e.tag(ev)} event in a chat stream", e.tag(ev))
            return


def _check_rules(
    table_id: str,
    events: list[tuple[int, e.Event]],
    records: Sequence[RecordedEvent],
    report: StreamReport,
    progress: Callable[[int], None] | None,
) -> None:
    games = _scan_games(events, report)
    dice = _AuditDice(games)
    state = TableState(table_id=table_id)
    i, n, reported = 0, len(events), 0
    while i < n:
        if progress is not None and i - reported >= 512:
            progress(i - reported)
            reported = i
        version, first = events[i]
        found = _command_of(state, first)
        if found is None:
            report.fail(
                "rules", version, f"no command produces a {e.tag(first)} here", e.tag(first)
            )
            break
        actors, command = found
        dice.state = state
        dice.batch = events[i : i + _WINDOW]
        try:
            decided = _decide_as(state, actors, command, dice)
        except _MissingThrow as exc:
            report.fail("rules", _batch_end(records, i), str(exc), e.tag(first))
            break
        except (EngineError, CommandError) as exc:
            report.fail("rules", version, f"{e.tag(first)} is not allowed: {exc}", e.tag(first))
            break
        if _compare(decided, events, records, i, games, state, report):
            break
        for v, ev in events[i : i + len(decided)]:
            _track_bad_seed(games, state, ev)
            try:
                state = evolve(state, ev)
            except (EngineError, CommandError) as exc:  # pragma: no cover - decide agreed
                report.fail("rules", v, f"{e.tag(ev)} does not apply: {exc}", e.tag(ev))
                return
            if isinstance(ev, e.GameEnded) and ev.game in games:
                games[ev.game].folded = True
                if games[ev.game].seed is not None:
                    report.dice_verified.append(ev.game)
        i += len(decided)
    if progress is not None:
        progress(n - reported)
    _check_seeds(games, report)


def _batch_end(records: Sequence[RecordedEvent], i: int) -> int:
    """The last version recorded under the same command id as the event at index ``i``."""
    command = records[i].command_id
    j = i
    while j + 1 < len(records) and records[j + 1].command_id == command:
        j += 1
    return records[j].version


def _compare(
    decided: list[e.Event],
    events: list[tuple[int, e.Event]],
    records: Sequence[RecordedEvent],
    i: int,
    games: dict[int, _GameDice],
    state: TableState,
    report: StreamReport,
) -> bool:
    """Compare the decided events with the recorded ones from index ``i``; report and return
    True at the first difference."""
    for k, want in enumerate(decided):
        if i + k >= len(events):
            version = events[-1][0]
            report.fail(
                "rules",
                version,
                f"the record stops here; the rules add {e.tag(want)}: {_brief(want)}",
                e.tag(events[-1][1]),
            )
            return True
        version, got = events[i + k]
        if got == want:
            continue
        if k and records[i + k].command_id != records[i].command_id:
            # The command's recorded events stop short of what the rules produce: the fault is
            # in what the command recorded, not in the next command.
            version = _batch_end(records, i)
            got_tag = e.tag(events[i + k - 1][1])
            report.fail(
                "rules",
                version,
                f"{got_tag} must be followed by {e.tag(want)}: {_brief(want)}",
                got_tag,
            )
            return True
        check = "rules"
        thrown, wanted = _dice_of(got), _dice_of(want)
        number = getattr(got, "game", None) or (
            state.game_no + 1
            if isinstance(got, e.LineThrow) and not state.in_game
            else state.game_no
        )
        info = games.get(number)
        if thrown and type(got) is type(want) and info is not None and info.seed is not None:
            check = "dice"
            reason = (
                f"throw {'-'.join(map(str, thrown))} is not what the revealed seed of game "
                f"{number} gives ({'-'.join(map(str, wanted))})"
            )
        else:
            reason = f"recorded {_brief(got)}; the rules give {_brief(want)}"
        report.fail(check, version, reason, e.tag(got))
        return True
    return False


def _track_bad_seed(games: dict[int, _GameDice], state: TableState, ev: e.Event) -> None:
    """For a game whose revealed seed fails its commitment: does the seed derive the throws?"""
    thrown = _dice_of(ev)
    if not thrown:
        return
    info = games.get(state.game_no)
    if info is None or info.bad_seed is None or not info.bad_seed_holds:
        return
    derived = fair.derive_dice(info.bad_seed, state.client_seeds, len(thrown), state.dice_counter)
    if tuple(derived) != thrown:
        info.bad_seed_holds = False
