"""Audit a table: is every stored event what the rules and the dice allow?

For each stream of a table the audit checks, and names the first failure with its version:

- **chain**: the store's per-stream hash chain (:meth:`EventStore.verify_chain`);
- **versions**: the stream's versions are dense, 1..n;
- **decode**: every payload decodes as an event of the stream's kind;
- **rules**: re-decided through the engine. The events are folded one by one with
  :func:`~events.domain.decider.evolve`; at the start of each command's events the audit works out
  the
  command that must have produced them (a roll, a play, a double...), runs
  :func:`~events.domain.decider.decide` on the state before them, and requires exactly the recorded
  events back: each play legal, each cube action allowed, each result, settlement and ledger
  entry as the engine computes it;
- **dice**: every throw against the revealed seed. A finished game's ``game_ended`` reveals its
  seed; SHA-256 of it must be the commitment published in its ``game_started``, and the audit
  re-decides that game's throws from the seed and the players' recorded seeds
  (:mod:`events.domain.dice`), so a throw that the seed does not give fails at its version. A game
  still in play keeps its seed secret: its throws are taken as recorded and the game is
  reported **pending** (not failed) until it ends.

The batch of events a command produced is found by re-deciding, not by trusting the stored
command ids (they are not covered by the hash chain); the command ids are used only to say which
event is at fault when a command's recorded events stop short of what the rules produce.

:func:`audit_records` is this pure core (recorded events in, report out);
:mod:`events.records.audit_scan` reads the store for it, and ``GET /tables/{id}/audit`` serves it
(:mod:`server.http.records`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from engine.errors import EngineError
from events.domain import dice as fair
from events.domain import types as e
from events.domain.decider import evolve
from events.domain.rules_check import (
    MissingThrow,
    RecordedThrows,
    brief,
    command_of,
    decide_as,
    dice_of,
)
from events.domain.table import CommandError, TableState
from events.store.errors import CorruptEventError
from events.store.event_store import RecordedEvent
from events.store.personal_keys import UNOPENED
from events.store.streams import decode_recorded, parse_stream

__all__ = [
    "Failure",
    "StreamAudit",
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


class _NeedMore(Exception):
    """What a command's events are found to be depends on events not read yet."""


@dataclass(frozen=True, slots=True)
class _Draw:
    """A throw taken as recorded because its game's seed was not known yet."""

    game: int
    counter: int
    clients: tuple[str, ...]
    value: int


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


class _AuditDice(RecordedThrows):
    """The decider's dice source during an audit.

    A game whose seed was revealed (and matches its commitment) throws what the seed derives,
    so a recorded throw that differs is caught by the comparison. A game in play throws what
    was recorded (its dice cannot be checked yet). Commitments and seeds are the recorded ones:
    they are checked against each other separately.
    """

    def __init__(
        self,
        games: dict[int, _GameDice],
        unsettled: Callable[[_Draw], None] | None = None,
    ) -> None:
        super().__init__()
        self.games = games
        self.unsettled = unsettled
        """Told of each throw taken as recorded for a game whose seed may still be revealed
        (see :class:`StreamAudit`)."""
        self._keys: dict[tuple[int, tuple[str, ...]], bytes] = {}

    def commitment(self, game: int) -> str:
        info = self.games.get(game)
        return info.commitment if info else ""

    def reveal(self, game: int) -> str:
        info = self.games.get(game)
        return info.revealed if info else ""

    def die(self, game: int, counter: int, clients: Sequence[str] = ()) -> int:
        clients = tuple(clients)
        info = self.games.get(game)
        if info is not None and info.seed is not None:
            cache = (game, clients)
            key = self._keys.get(cache)
            if key is None:
                key = self._keys[cache] = fair.game_key(info.seed, clients)
            return fair.derive_die(key, counter)
        value = self.recorded(game, counter)
        if self.unsettled is not None and (info is None or (info.commitment and not info.ended_at)):
            self.unsettled(_Draw(game, counter, clients, value))
        return value


def _scan_game(games: dict[int, _GameDice], version: int, ev: e.Event) -> bool:
    """Note a game's commitment or revealed seed (checking one against the other); True when
    ``ev`` ends a game."""
    if isinstance(ev, e.GameStarted):
        if ev.game not in games:
            games[ev.game] = _GameDice(started_at=version, commitment=ev.dice_commitment)
    elif isinstance(ev, e.GameEnded):
        info = games.get(ev.game)
        if info is None or info.ended_at:
            return False  # the rules check reports a game ended twice or never started
        info.ended_at = version
        info.revealed = ev.seed
        if ev.seed and fair.verify(ev.seed, info.commitment):
            info.seed = bytes.fromhex(ev.seed)
        else:
            try:
                info.bad_seed = bytes.fromhex(ev.seed)
            except ValueError:
                info.bad_seed_holds = False
        return True
    return False


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
    audit = StreamAudit(stream_id, progress=progress)
    rest: Sequence[RecordedEvent] = records
    while (again := audit.feed(rest)) is not None:
        rest = records[again - 1 :]
    report = audit.report()
    if chain is not None:
        report.fail("chain", chain.version, chain.reason, _type_at(records, chain.version))
    return report


@dataclass(slots=True)
class _Checkpoint:
    """Where a :class:`StreamAudit` goes back to when a seed revealed later does not derive the
    throws it took as recorded: everything before the command at ``version``."""

    version: int
    state: TableState
    report: StreamReport
    folded: dict[int, tuple[bool, bool]]
    """``folded`` and ``bad_seed_holds`` of each game not folded yet."""
    checked: int


def _copy_report(report: StreamReport) -> StreamReport:
    return dataclasses.replace(
        report,
        failures=list(report.failures),
        dice_verified=list(report.dice_verified),
        pending=list(report.pending),
        uncommitted=list(report.uncommitted),
    )


class StreamAudit:
    """The audit of one stream, fed its recorded events in version order, a page at a time, and
    kept: :meth:`report` says what a whole-stream audit of the events fed so far would say, and
    feeding the events appended since costs only their own checks. So the command line audits a
    table of any size in bounded memory, and ``GET /tables/{id}/audit`` extends the audit it
    cached (docs/audit.md).

    Two things make this more than a loop:

    - A command's events are checked when they are all read: a check that could still change
      with events not read yet (the record stopping short of what the rules give, a throw
      looked for past the last event read) waits for them; :meth:`report` settles it as the
      end of the stream.
    - A game's throws are re-derived from its seed, which is revealed only when it ends. Until
      then they are taken as recorded (as for a game in play), and each such throw is kept; when
      the seed is read, each is derived from it. If all are what the seed derives, the audit
      is what it would have been knowing the seed from the start; if not (or the revealed seed
      is not the committed one), :meth:`feed` goes back to its checkpoint before the first such
      throw and asks to be fed again from there: the rare path of a tampered stream.
    """

    def __init__(self, stream_id: str, *, progress: Callable[[int], None] | None = None) -> None:
        self.stream_id = stream_id
        name = parse_stream(stream_id)
        self._chat = name is not None and name.kind == "chat"
        self._progress = progress
        self._report = StreamReport(stream_id)
        self._games: dict[int, _GameDice] = {}
        self._dice = _AuditDice(self._games, self._unsettled)
        self._state = TableState(table_id=name.table_id if name is not None else stream_id)
        # The decoded events not checked yet (from index _i), with their records.
        self._events: list[tuple[int, e.Event]] = []
        self._records: list[RecordedEvent] = []
        self._i = 0
        self._decoded = 0
        """The last version decoded: versions 1 to it are dense and decode."""
        self._scanned = 0
        """The last version whose game commitments and seeds are noted."""
        self._decode_stopped = False
        self._rules_stopped = False
        self._fed = 0
        self._replay = 0
        """Records still to be fed again after going back to the checkpoint."""
        self._draws: list[_Draw] = []
        self._checkpoint: _Checkpoint | None = None
        self._before: tuple[TableState, int] = (self._state, 1)
        """The state before the command being checked, and its first version."""
        self._scratch = False
        self._seconds = 0.0
        self.checked = 0
        """Events the rules check has folded (for the cache's tests and metrics)."""

    @property
    def events(self) -> int:
        """How many recorded events were fed."""
        return self._fed

    def feed(self, records: Sequence[RecordedEvent]) -> int | None:
        """Audit the next recorded events, as far as they can be checked without the ones after
        them. Returns None, or the version to feed the events again from (the checkpoint: see the
        class's docstring); the events fed again from there are not counted twice."""
        started = time.perf_counter()
        new = 0
        revealed = False
        for rec in records:
            if self._replay:
                self._replay -= 1
            else:
                self._fed += 1
                new += 1
            if self._decode_stopped:
                continue
            expected = self._decoded + 1
            if rec.version != expected:
                self._report.fail(
                    "versions",
                    expected,
                    f"version {expected} is missing (the next stored is {rec.version})"
                    if rec.version > expected
                    else f"version {rec.version} is stored twice or out of order",
                )
                self._decode_stopped = True
                continue
            try:
                # What a person typed is not opened: the rules never depend on it, so the
                # audit checks the stored bytes with no key at all (docs/privacy.md).
                ev = decode_recorded(rec, UNOPENED)
            except CorruptEventError as exc:
                self._report.fail("decode", rec.version, str(exc), rec.type)
                self._decode_stopped = True
                continue
            self._decoded = rec.version
            if rec.version > self._scanned:
                self._scanned = rec.version
                revealed |= _scan_game(self._games, rec.version, ev)
            if not self._rules_stopped:
                self._events.append((rec.version, ev))
                self._records.append(rec)
        again = None
        if revealed and self._draws and not self._settle():
            again = self._go_back()
        elif self._chat:
            self._check_chat()
        else:
            self._check_rules()
        if self._progress is not None and new:
            self._progress(new)
        self._seconds += time.perf_counter() - started
        return again

    def report(self) -> StreamReport:
        """What the audit found in the events fed so far, as at the end of the stream: a
        command's events are checked with what was read, and each game's seed against its
        commitment."""
        report = _copy_report(self._report)
        report.events = self._fed
        if not self._chat and not self._rules_stopped and self._i < len(self._events):
            # The command at the cursor waits for events that, at the end, will not come: it
            # fails as the stream stands (into the copy: more events may still come).
            self._scratch = True
            try:
                self._step(report, final=True)
            finally:
                self._scratch = False
        report.games = len(self._games)
        _check_seeds(self._games, report)
        report.seconds = self._seconds
        return report

    # -- the checks ---------------------------------------------------------------------------

    def _check_chat(self) -> None:
        for version, ev in self._events[self._i :]:
            if not isinstance(ev, e.ChatPosted):
                self._report.fail(
                    "rules", version, f"a {e.tag(ev)} event in a chat stream", e.tag(ev)
                )
                self._stop_rules()
                return
        self.checked += len(self._events) - self._i
        self._events.clear()
        self._records.clear()
        self._i = 0

    def _check_rules(self) -> None:
        while not self._rules_stopped and self._i < len(self._events):
            self._before = (self._state, self._events[self._i][0])
            try:
                n = self._step(self._report, final=self._decode_stopped)
            except _NeedMore:
                break
            if n is None or not self._fold(n):
                self._stop_rules()
        if self._i > 4096:  # forget what is checked, now and then rather than each time
            del self._events[: self._i]
            del self._records[: self._i]
            self._i = 0

    def _stop_rules(self) -> None:
        self._rules_stopped = True
        self._events.clear()
        self._records.clear()
        self._i = 0

    def _step(self, report: StreamReport, *, final: bool) -> int | None:
        """Check the command whose events start at the cursor: the number of its events when
        they are what the rules give (nothing is folded yet), None when a failure was
        recorded in ``report``.

        :raises _NeedMore: the answer depends on events not read yet (not ``final``).
        """
        events, records, i, state = self._events, self._records, self._i, self._state
        version, first = events[i]
        # An expiry's input (who was absent) is read back from the events after its first.
        following = (
            [ev for _, ev in events[i + 1 : i + _WINDOW]]
            if isinstance(first, e.TimeExpired)
            else ()
        )
        found = command_of(state, first, following)
        if found is None:
            report.fail(
                "rules", version, f"no command produces a {e.tag(first)} here", e.tag(first)
            )
            return None
        actors, command = found
        dice = self._dice
        dice.state = state
        dice.batch = events[i : i + _WINDOW]
        try:
            # The command was decided at the time its events carry (all the same).
            decided = decide_as(state, actors, command, dice, first.at)
        except MissingThrow as exc:
            if not final and i + _WINDOW > len(events):
                raise _NeedMore from None
            report.fail("rules", _batch_end(records, i, final), str(exc), e.tag(first))
            return None
        except (EngineError, CommandError) as exc:
            report.fail("rules", version, f"{e.tag(first)} is not allowed: {exc}", e.tag(first))
            return None
        decided = _as_before_issue_27(decided, events, i)
        if _compare(decided, events, records, i, self._games, state, report, final):
            return None
        return len(decided)

    def _fold(self, n: int) -> bool:
        """Fold the ``n`` events of a command that checked out."""
        games, report = self._games, self._report
        for v, ev in self._events[self._i : self._i + n]:
            _track_bad_seed(games, self._state, ev)
            try:
                self._state = evolve(self._state, ev)
            except (EngineError, CommandError) as exc:  # pragma: no cover - decide agreed
                report.fail("rules", v, f"{e.tag(ev)} does not apply: {exc}", e.tag(ev))
                return False
            if isinstance(ev, e.GameEnded) and ev.game in games:
                games[ev.game].folded = True
                if games[ev.game].seed is not None:
                    report.dice_verified.append(ev.game)
        self._i += n
        self.checked += n
        return True

    # -- seeds revealed after their throws were checked ---------------------------------------

    def _unsettled(self, draw: _Draw) -> None:
        if self._scratch:
            return
        if self._checkpoint is None:
            # The report and the games are as before the command being checked: its throws
            # are drawn before anything is recorded or folded.
            state, version = self._before
            self._checkpoint = _Checkpoint(
                version,
                state,
                _copy_report(self._report),
                {n: (g.folded, g.bad_seed_holds) for n, g in self._games.items() if not g.folded},
                self.checked,
            )
        self._draws.append(draw)

    def _settle(self) -> bool:
        """Derive the kept throws of each game whose seed is now revealed: True when each is
        what the seed gives (or the game has no commitment, so its dice are never checked)."""
        keys: dict[tuple[int, tuple[str, ...]], bytes] = {}
        keep: list[_Draw] = []
        for draw in self._draws:
            info = self._games.get(draw.game)
            if info is None or not info.ended_at:
                keep.append(draw)
                continue
            if not info.commitment:
                continue
            if info.seed is None:
                return False
            key = keys.get((draw.game, draw.clients))
            if key is None:
                key = keys[draw.game, draw.clients] = fair.game_key(info.seed, draw.clients)
            if fair.derive_die(key, draw.counter) != draw.value:
                return False
        self._draws = keep
        if not keep:
            self._checkpoint = None
        return True

    def _go_back(self) -> int:
        """Return to the checkpoint; the version to feed the events again from."""
        point = self._checkpoint
        assert point is not None, "kept throws come with a checkpoint"
        self._state = point.state
        self._report = point.report
        for number, (folded, holds) in point.folded.items():
            game = self._games.get(number)
            if game is not None:
                game.folded, game.bad_seed_holds = folded, holds
        self.checked = point.checked
        self._events.clear()
        self._records.clear()
        self._i = 0
        self._decoded = point.version - 1
        self._decode_stopped = self._rules_stopped = False
        self._draws.clear()
        self._checkpoint = None
        self._replay = self._fed - (point.version - 1)
        return point.version


def _type_at(records: Sequence[RecordedEvent], version: int) -> str:
    if 1 <= version <= len(records) and records[version - 1].version == version:
        return records[version - 1].type
    return ""


def _batch_end(records: Sequence[RecordedEvent], i: int, final: bool) -> int:
    """The last version recorded under the same command id as the event at index ``i``.

    :raises _NeedMore: the records read so far end with that command id (not ``final``).
    """
    command = records[i].command_id
    j = i
    while j + 1 < len(records) and records[j + 1].command_id == command:
        j += 1
    if j + 1 == len(records) and not final:
        raise _NeedMore
    return records[j].version


def _compare(
    decided: list[e.Event],
    events: list[tuple[int, e.Event]],
    records: Sequence[RecordedEvent],
    i: int,
    games: dict[int, _GameDice],
    state: TableState,
    report: StreamReport,
    final: bool = True,
) -> bool:
    """Compare the decided events with the recorded ones from index ``i``; report and return
    True at the first difference.

    :raises _NeedMore: the events run out before the decided ones do, and more may come (not
        ``final``).
    """
    for k, want in enumerate(decided):
        if i + k >= len(events):
            if not final:
                raise _NeedMore
            version = events[-1][0]
            report.fail(
                "rules",
                version,
                f"the record stops here; the rules add {e.tag(want)}: {brief(want)}",
                e.tag(events[-1][1]),
            )
            return True
        version, got = events[i + k]
        if got == want or _same_in_schema_1(got, want, records[i + k].schema_version):
            continue
        if k and records[i + k].command_id != records[i].command_id:
            # The command's recorded events stop short of what the rules produce: the fault is
            # in what the command recorded, not in the next command.
            version = _batch_end(records, i, True)
            got_tag = e.tag(events[i + k - 1][1])
            report.fail(
                "rules",
                version,
                f"{got_tag} must be followed by {e.tag(want)}: {brief(want)}",
                got_tag,
            )
            return True
        check = "rules"
        thrown, wanted = dice_of(got), dice_of(want)
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
            reason = f"recorded {brief(got)}; the rules give {brief(want)}"
        report.fail(check, version, reason, e.tag(got))
        return True
    return False


def _as_before_issue_27(
    decided: list[e.Event], events: list[tuple[int, e.Event]], i: int
) -> list[e.Event]:
    """The decided events as the server recorded them before issue 27, when the recorded
    events from index ``i`` are that older form; otherwise ``decided`` as it is.

    A match forfeited between its games (a leave, or a time forfeit, while its next game was
    started but not yet thrown) now ends that game unplayed before ``match_ended``
    (docs/rules.md §10, "A finished match is finished"). Before, ``match_ended`` came at once
    and the game was left open, its seed never revealed. That was what the rules gave then,
    and the open game had no throw, so it is accepted: its dice stay ``pending`` (nothing was
    thrown with them), and any event written into the finished match later fails the rules
    check at its own version."""
    for k, ev in enumerate(decided[:-1]):
        after = decided[k + 1]
        unplayed = isinstance(ev, e.GameEnded) and ev.how == "unplayed"
        recorded = events[i + k][1] if i + k < len(events) else None
        if unplayed and isinstance(after, e.MatchEnded) and recorded == after:
            return [*decided[:k], *decided[k + 1 :]]
    return decided


def _same_in_schema_1(got: e.Event, want: e.Event, schema_version: int) -> bool:
    """Whether a schema-1 event says what the rules decide, in schema 1's terms: before schema 2
    the cube, resignation and game-end events left implicit what they now name (every cube the
    box may turn, a member's own cube, each member's game), so the fields schema 2 fills are
    not compared."""
    if schema_version != 1 or type(got) is not type(want):
        return False
    match got, want:
        case e.CubeOffered(), e.CubeOffered():
            return got.player == want.player and got.cubes in ([], want.cubes)
        case e.ResignationOffered(), e.ResignationOffered():
            return (got.player, got.level) == (want.player, want.level) and got.to in ([], want.to)
        case e.GameEnded(), e.GameEnded():
            return (got.game, got.settlements, got.seed) == (want.game, want.settlements, want.seed)
    if isinstance(got, e.Answer) and isinstance(want, e.Answer):
        return got.player == want.player and not got.cubes and got.cube in ("", want.cube)
    return False


def _track_bad_seed(games: dict[int, _GameDice], state: TableState, ev: e.Event) -> None:
    """For a game whose revealed seed fails its commitment: does the seed derive the throws?"""
    thrown = dice_of(ev)
    if not thrown:
        return
    info = games.get(state.game_no)
    if info is None or info.bad_seed is None or not info.bad_seed_holds:
        return
    derived = fair.derive_dice(info.bad_seed, state.client_seeds, len(thrown), state.dice_counter)
    if tuple(derived) != thrown:
        info.bad_seed_holds = False
