"""The audit over the store: read a table's streams a page at a time, check their hash chains and
what the store's other tables say of them, and audit them
(:class:`events.records.audit.StreamAudit`).

:mod:`events.records.audit` checks events already read; this module reads them, and checks what only
the database can tell:

- each stream's hash chain, and its row in ``streams`` (present, at the version of its last
  event, with its hash);
- ``commands``: the rows of a stream's events point inside it, and for :func:`audit_all`
  every row does;
- ``log_partitions``: each partition's head is its last position, and positions are dense.

:func:`audit_all` lists the tables from the events themselves (and ``streams``), not from
``streams`` alone: a table the store has forgotten is audited, and fails. Memory stays bounded
whatever the size of a table: events are read in pages of :data:`PAGE` in one read-only
snapshot, and the rules are checked in a worker thread, so that a server's event loop keeps
serving its other clients meanwhile.

:class:`AuditCache` keeps the audits of the tables audited recently (``GET /tables/{id}/audit``):
an unchanged table is answered without reading its events, and one that has grown is extended
by its new events only.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import asyncpg

from engine.errors import EngineError
from events.domain import tournament
from events.domain.types import AccountErased, MatchEnded, TournamentResult
from events.records.audit import Failure, StreamAudit, StreamReport, TableReport
from events.store import audit_reads as reads
from events.store.chain import ZERO_HASH, stored_hash
from events.store.errors import CorruptEventError, translate_errors
from events.store.event_store import EventStore, RecordedEvent
from events.store.personal_keys import UNOPENED
from events.store.streams import (
    account_of_stream,
    chat_stream,
    decode_recorded,
    parse_stream,
    table_stream,
    tournament_of_stream,
)

__all__ = [
    "PAGE",
    "AuditCache",
    "StoreAudit",
    "TableAudit",
    "audit_all",
    "audit_stream",
    "audit_table",
    "audit_tables",
    "check_log",
]

PAGE: Final = 2000
"""Events read at a time."""

_Progress = Callable[[int], None] | None

_FORGOTTEN: Final = "events without a stream row: the store has forgotten the stream"


# -- one stream -------------------------------------------------------------------------------


@dataclass(slots=True)
class _Chain:
    """A stream's hash chain, checked as its events are read (as
    :meth:`EventStore.verify_chain` does in one go): the first break, if any."""

    stream_id: str
    prev: bytes = ZERO_HASH
    expected: int = 1
    chain: int = 1
    """The chain version of the last event: a stream's chain versions never go down."""
    last_type: str = ""
    broken: Failure | None = None

    def add(self, row: asyncpg.Record) -> None:
        if self.broken is not None:
            return
        version: int = row["version"]
        if version != self.expected:
            reason = f"version {self.expected} is missing (next is {version})"
            self.broken = Failure("chain", self.expected, reason)
            return
        if row["prev_hash"] != self.prev:
            reason = "prev_hash is not the previous event's hash"
            self.broken = Failure("chain", version, reason, row["type"])
            return
        if row["chain_version"] < self.chain:
            reason = f"chain version {row['chain_version']} after version {self.chain}"
            self.broken = Failure("chain", version, reason, row["type"])
            return
        self.chain = row["chain_version"]
        try:
            digest = stored_hash(self.prev, self.stream_id, row)
        except ValueError as e:
            self.broken = Failure("chain", version, str(e), row["type"])
            return
        if row["hash"] != digest:
            reason = "stored hash does not match the stored event"
            self.broken = Failure("chain", version, reason, row["type"])
            return
        self.prev = digest
        self.expected += 1
        self.last_type = row["type"]

    def failure(self, head: asyncpg.Record | None) -> Failure | None:
        """The chain's first failure, given the stream's row in ``streams`` (None: no row)."""
        if self.broken is not None:
            return self.broken
        last = self.expected - 1
        if head is None:
            return None if last == 0 else Failure("chain", 1, _FORGOTTEN)
        if head["version"] != last:
            return Failure(
                "chain",
                min(head["version"], last) + 1,
                f"the stream is at version {head['version']} but its last event is {last}",
            )
        if head["head_hash"] != self.prev:
            return Failure(
                "chain", last, "the stream's head hash is not its last event's", self.last_type
            )
        return None


@dataclass(slots=True)
class _Stream:
    """One stream of a table under audit: its auditor, its chain, and what the store's other
    tables say of it."""

    name: str
    audit: StreamAudit
    chain: _Chain
    read: int = 0
    """The last version read."""
    head: asyncpg.Record | None = None
    """Its row in ``streams``, as last read."""
    store: list[Failure] = field(default_factory=list)
    """Failures of the cross-checks with ``commands``."""
    top_command: tuple[int, uuid.UUID, int] | None = None
    """The ``commands`` row of its events that reaches furthest: (last, id, first)."""

    def report(self) -> StreamReport:
        report = self.audit.report()
        chain = self.chain.failure(self.head)
        if chain is not None:
            report.fail(chain.check, chain.version, chain.reason, chain.event)
        if self.top_command is not None and self.top_command[0] > self.read:
            top, command, first = self.top_command
            report.fail("versions", top, _past_head(command, first, top, self.read))
        for f in self.store:
            report.fail(f.check, f.version, f.reason, f.event)
        return report


def _past_head(command: uuid.UUID, first: int, top: int, last: int) -> str:
    return (
        f"commands: command {command} records versions {first} to {top}, past the stream's"
        f" last event ({last})"
    )


class TableAudit:
    """The audit of one table, kept between reads: each of its streams' auditor, hash chain and
    cross-checks, so that reading the events appended since extends it.

    :param streams: the table's streams to audit (default: its play stream, and its chat
        stream when that has events).
    """

    def __init__(
        self, table_id: str, *, progress: _Progress = None, streams: Sequence[str] = ()
    ) -> None:
        self.table_id = table_id
        self._progress = progress
        self._streams: dict[str, _Stream] = {}
        self._names = list(streams) or [table_stream(table_id), chat_stream(table_id)]
        self._explicit = bool(streams)
        self.read = 0
        """Events read from the store so far."""

    @property
    def checked(self) -> int:
        """Events the rules check has folded so far (each once, unless a revealed seed sent an
        audit back to its checkpoint)."""
        return sum(s.audit.checked for s in self._streams.values())

    def heads(self) -> dict[str, tuple[int, bytes]]:
        """Each stream's row in ``streams`` as last read: (version, head hash)."""
        return {
            s.name: (int(s.head["version"]), bytes(s.head["head_hash"]))
            for s in self._streams.values()
            if s.head is not None and s.head["version"]
        }

    def chain_ok(self) -> bool:
        return all(s.chain.failure(s.head) is None for s in self._streams.values())

    def fail(self, stream: str, failure: Failure) -> None:
        """Add a failure found elsewhere (the ``commands`` pass of :func:`audit_all`)."""
        self._stream(stream).store.append(failure)

    def _stream(self, name: str) -> _Stream:
        s = self._streams.get(name)
        if s is None:
            s = self._streams[name] = _Stream(
                name, StreamAudit(name, progress=self._progress), _Chain(name)
            )
        return s

    async def extend(self, conn: asyncpg.Connection) -> bool:
        """Read and audit the events appended since the last read (all, the first time), in
        the caller's transaction (repeatable read, for one snapshot). False when the table
        does not exist (its play stream has no event and no version)."""
        rows = await reads.stream_heads(conn, self._names)
        heads = {r["stream_id"]: r for r in rows}
        for name in self._names:
            s = self._streams.get(name)
            head = heads.get(name)
            # A chat stream is audited once it has events (or says it has).
            if (
                s is None
                and not self._explicit
                and name != self._names[0]
                and not (head is not None and head["version"])
                and not await reads.has_events(conn, name)
            ):
                continue
            s = self._stream(name)
            s.head = head
            await self._read(conn, s)
        play = self._streams[self._names[0]]
        return self._explicit or play.audit.events > 0 or bool(play.head and play.head["version"])

    async def _read(self, conn: asyncpg.Connection, s: _Stream) -> None:
        after = s.read
        while True:
            again: int | None = None
            cursor = await reads.events_after(conn, s.name, after)
            while rows := await cursor.fetch(PAGE):
                records = [RecordedEvent(*tuple(r)[:9]) for r in rows]
                new = [r for r in rows if r["version"] > s.read]
                if new:
                    for r in new:
                        s.chain.add(r)
                    await self._check_commands(conn, s, records[len(rows) - len(new) :])
                    s.read = new[-1]["version"]
                    self.read += len(new)
                again = await asyncio.to_thread(s.audit.feed, records)
                if again is not None:
                    break
            if again is None:
                return
            after = again - 1  # back to the checkpoint: read from there again

    async def _check_commands(
        self, conn: asyncpg.Connection, s: _Stream, records: Sequence[RecordedEvent]
    ) -> None:
        """Note the ``commands`` row of these events that reaches furthest: it must not point
        past the stream's last event (checked in :meth:`_Stream.report`)."""
        rows = await reads.command_rows(conn, list({r.command_id for r in records}))
        for row in rows:
            if row["stream_id"] != s.name:
                continue
            top = (int(row["last_version"]), row["command_id"], int(row["first_version"]))
            if s.top_command is None or top[0] > s.top_command[0]:
                s.top_command = top

    def report(self) -> TableReport:
        """The table's audit as of the last read."""
        report = TableReport(self.table_id)
        for name in self._names:
            s = self._streams.get(name)
            if s is None:
                continue
            stream = s.report()
            if name == self._names[0] and not stream.events and not s.head:
                stream.fail("versions", 1, "no such table: the stream has no events")
            report.streams.append(stream)
        return report


@contextlib.asynccontextmanager
async def _snapshot(store: EventStore) -> AsyncIterator[asyncpg.Connection]:
    """A connection in a read-only transaction that sees one snapshot of the store."""
    with translate_errors():
        async with (
            store.pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            yield conn


async def audit_stream(
    store: EventStore, stream_id: str, progress: _Progress = None
) -> StreamReport:
    """Read and audit one stream (the rules in a worker thread: see :func:`audit_table`)."""
    table = TableAudit(stream_id, progress=progress, streams=[stream_id])
    async with _snapshot(store) as conn:
        await table.extend(conn)
    return table.report().streams[0]


async def audit_table(
    store: EventStore, table_id: str, progress: _Progress = None
) -> TableReport | None:
    """Audit a table's play stream and chat stream; None when the table does not exist.

    The events are read a page at a time in one snapshot; the rules are checked in a worker
    thread, so that a server's event loop keeps serving its other clients meanwhile.
    """
    table = TableAudit(table_id, progress=progress)
    async with _snapshot(store) as conn:
        if not await table.extend(conn):
            return None
    return table.report()


async def audit_tables(
    store: EventStore, ids: Iterable[str], progress: _Progress = None
) -> list[TableReport]:
    """Audit several tables, in order (a missing table gets a failed report)."""
    reports: list[TableReport] = []
    for table_id in ids:
        report = await audit_table(store, table_id, progress)
        if report is None:
            report = TableReport(table_id)
            missing = StreamReport(table_stream(table_id))
            missing.fail("versions", 1, "no such table: the stream has no events")
            report.streams.append(missing)
        reports.append(report)
    return reports


# -- the whole store --------------------------------------------------------------------------


@dataclass(slots=True)
class StoreAudit:
    """The audit of the whole store (``chouette audit --all``)."""

    tables: list[TableReport] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    """Log partitions whose head is not their last position, or whose positions have holes."""
    store: list[dict[str, Any]] = field(default_factory=list)
    """What belongs to no table: a stream that is not a table's, a ``commands`` row for a
    stream with no events."""

    @property
    def failed(self) -> bool:
        return bool(self.log or self.store or any(t.status == "failed" for t in self.tables))


async def audit_all(store: EventStore, progress: _Progress = None) -> StoreAudit:
    """Audit every table and the log, in one snapshot.

    The tables are those of the events' stream ids (and of ``streams`` rows that claim events),
    so a table whose ``streams`` row is gone is audited and fails; ``streams``, ``commands`` and
    ``log_partitions`` are checked against the events.
    """
    result = StoreAudit()
    async with _snapshot(store) as conn:
        commands = await _bad_commands(conn)
        result.log = await _check_log(conn)
        async for table_id, streams in _tables(conn):
            if table_id is None:
                for name in streams:
                    if account_of_stream(name) is not None:
                        result.store.extend(await _audit_account(conn, name, commands))
                        continue
                    if tournament_of_stream(name) is not None:
                        result.store.extend(await _audit_tournament(conn, name, commands))
                        continue
                    n = await reads.count_events(conn, name)
                    result.store.append(
                        {"stream": name, "reason": f"not a table's stream ({n} events)"}
                    )
                continue
            names = [table_stream(table_id), *(n for n in streams if n != table_stream(table_id))]
            audit = TableAudit(table_id, progress=progress, streams=names)
            for name in names:
                for failure in commands.pop(name, ()):
                    audit.fail(name, failure)
            await audit.extend(conn)
            result.tables.append(audit.report())
        for name, failures in sorted(commands.items()):
            for f in failures:
                result.store.append({"stream": name, "version": f.version, "reason": f.reason})
    return result


async def _audit_account(
    conn: asyncpg.Connection, name: str, commands: dict[str, list[Failure]]
) -> list[dict[str, Any]]:
    """An account's stream (docs/privacy.md): its chain, and one ``account_erased`` event for
    that very account, nothing else. Its failures, as :attr:`StoreAudit.store` lists them."""
    account = account_of_stream(name)
    chain = _Chain(name)
    failures = [
        {"stream": name, "version": f.version, "reason": f.reason} for f in commands.pop(name, ())
    ]
    cursor = await reads.events_after(conn, name, 0)
    while rows := await cursor.fetch(PAGE):
        for row in rows:
            chain.add(row)
            rec = RecordedEvent(*tuple(row)[:9])
            try:
                ev = decode_recorded(rec, UNOPENED)
            except CorruptEventError as exc:
                ev, reason = None, str(exc)
            else:
                reason = "an account's stream holds its one account_erased event only"
            if not (rec.version == 1 and isinstance(ev, AccountErased) and ev.account == account):
                failures.append({"stream": name, "version": rec.version, "reason": reason})
    heads = await reads.stream_heads(conn, [name])
    broken = chain.failure(heads[0] if heads else None)
    if broken is not None:
        failures.append({"stream": name, "version": broken.version, "reason": broken.reason})
    return failures


async def _audit_tournament(
    conn: asyncpg.Connection, name: str, commands: dict[str, list[Failure]]
) -> list[dict[str, Any]]:
    """A tournament's stream (docs/tournaments.md): its chain; its events fold by the rules of
    :mod:`engine.tournament` (the first that does not is a failure, and the rest is not
    read); every round's pairing is what the rules pair from the facts before it
    (:func:`events.domain.tournament.audit_events`); the winner recorded is the rules'. Its
    failures, as :attr:`StoreAudit.store` lists them."""
    chain = _Chain(name)
    failures = [
        {"stream": name, "version": f.version, "reason": f.reason} for f in commands.pop(name, ())
    ]
    state = tournament.TournamentState(tournament_of_stream(name) or "")
    events = []
    broken = False
    cursor = await reads.events_after(conn, name, 0)
    while rows := await cursor.fetch(PAGE):
        for row in rows:
            chain.add(row)
            if broken:
                continue
            rec = RecordedEvent(*tuple(row)[:9])
            try:
                ev = decode_recorded(rec, UNOPENED)
                state = tournament.evolve(state, ev)
            except (CorruptEventError, EngineError) as exc:
                failures.append({"stream": name, "version": rec.version, "reason": str(exc)})
                broken = True
                continue
            events.append(ev)
    if not broken and events:
        for number in tournament.audit_events(events):
            failures.append(
                {
                    "stream": name,
                    "round": number,
                    "reason": f"round {number}'s pairing is not what the rules pair",
                }
            )
        if state.finished and state.winner != tournament.winner_of(state.t):
            failures.append({"stream": name, "reason": "the winner recorded is not the rules'"})
        failures += await _match_results(conn, name, state, events)
    heads = await reads.stream_heads(conn, [name])
    head_failure = chain.failure(heads[0] if heads else None)
    if head_failure is not None:
        failures.append(
            {"stream": name, "version": head_failure.version, "reason": head_failure.reason}
        )
    return failures


async def _match_results(
    conn: asyncpg.Connection,
    name: str,
    state: tournament.TournamentState,
    events: Sequence[Any],
) -> list[dict[str, Any]]:
    """Each result a tournament recorded from a match (``how: match``) against its match
    table's log: the table's ``match_ended`` names the same winner."""
    failures = []
    for ev in events:
        if not isinstance(ev, TournamentResult) or ev.how != "match":
            continue
        table_id = state.tables.get((ev.round, ev.board))
        ended = None if table_id is None else await _match_winner(conn, table_id)
        if ended is None or ended != ev.winner:
            failures.append(
                {
                    "stream": name,
                    "round": ev.round,
                    "board": ev.board,
                    "reason": f"round {ev.round} board {ev.board}'s result is not its match"
                    f" table's ({'no match_ended' if ended is None else ended + ' won'})",
                }
            )
    return failures


async def _match_winner(conn: asyncpg.Connection, table_id: str) -> str | None:
    """Who won the match of ``table_id``, as its ``match_ended`` says (None: none recorded)."""
    cursor = await reads.events_after(conn, table_stream(table_id), 0)
    while rows := await cursor.fetch(PAGE):
        for row in rows:
            if row["type"] != "match_ended":
                continue
            try:
                ev = decode_recorded(RecordedEvent(*tuple(row)[:9]), UNOPENED)
            except CorruptEventError:
                return None
            return ev.winner if isinstance(ev, MatchEnded) else None
    return None


async def _tables(conn: asyncpg.Connection) -> AsyncIterator[tuple[str | None, list[str]]]:
    """Each table id with its streams, in id order; streams of no table come with None."""
    cursor = await reads.all_streams(conn)
    table: str | None = None
    streams: list[str] = []
    while rows := await cursor.fetch(1000):
        for r in rows:
            name = parse_stream(r["stream_id"])
            if name is None:
                yield None, [r["stream_id"]]
                continue
            if name.table_id != table and streams:
                yield table, streams
                streams = []
            table = name.table_id
            streams.append(r["stream_id"])
    if streams:
        yield table, streams


async def _bad_commands(conn: asyncpg.Connection) -> dict[str, list[Failure]]:
    """The first ``commands`` row of each stream that does not point inside its events."""
    found: dict[str, list[Failure]] = {}
    cursor = await reads.bad_commands(conn)
    while rows := await cursor.fetch(1000):
        for r in rows:
            if r["stream_id"] in found:
                continue
            first, last, top = int(r["first_version"]), int(r["last_version"]), r["top"]
            if top is not None and last > top:
                failure = Failure("versions", last, _past_head(r["command_id"], first, last, top))
            elif top is None:
                reason = f"commands: command {r['command_id']} records a stream with no events"
                failure = Failure("versions", first, reason)
            else:
                reason = f"commands: command {r['command_id']} records versions {first} to {last}"
                failure = Failure("versions", max(first, 1), reason)
            found[r["stream_id"]] = [failure]
    return found


async def check_log(store: EventStore) -> list[dict[str, Any]]:
    """Each log partition's positions must be dense 1..head: a deleted event leaves a hole,
    and so does a head moved on with no event."""
    with translate_errors():
        async with store.pool.acquire() as conn:
            return await _check_log(conn)


async def _check_log(conn: asyncpg.Connection) -> list[dict[str, Any]]:
    problems = []
    for r in await reads.log_partitions(conn):
        head, n, top = r["head"], int(r["n"]), int(r["top"])
        if head is not None and n == head and top == head:
            continue
        problem: dict[str, Any] = {
            "partition": r["partition"],
            "head": head,
            "events": n,
            "last_position": top,
        }
        if head is None:
            problem["reason"] = (
                f"the log has {n} events at positions up to {top} but no log_partitions row"
            )
        else:
            problem["reason"] = (
                f"the log has {n} events at positions up to {top}, its head is {head}:"
                " positions are not dense"
            )
        hole: int | None = None
        if n and r["low"] > 1:
            hole = 1
        elif n < top:
            hole = await reads.first_hole(conn, r["partition"], top)
        if hole is None and head is not None and head > top:
            hole = top + 1
        if hole is not None:
            problem["first_missing"] = int(hole)
            problem["reason"] += f" (position {hole} is missing)"
        problems.append(problem)
    return problems


# -- the server's cache -----------------------------------------------------------------------


@dataclass(slots=True)
class _Cached:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    audit: TableAudit | None = None
    report: TableReport | None = None


class AuditCache:
    """The audits of the tables audited recently, by table (``GET /tables/{id}/audit``).

    A table is looked up by its streams' heads (version and head hash, one query): unchanged,
    its last report is the answer and no event is read; grown, its kept :class:`TableAudit`
    reads and checks the new events only. Anything else (a head that went back, a chain that
    no longer extends) audits the table afresh, so the answer is always what a fresh audit of
    the same snapshot would say. At most ``size`` tables are kept, the least recently audited
    forgotten first.
    """

    def __init__(self, store: EventStore, size: int = 256) -> None:
        self.store = store
        self.size = size
        self._tables: OrderedDict[str, _Cached] = OrderedDict()

    def get(self, table_id: str) -> TableAudit | None:
        """The kept audit of a table (for tests and metrics)."""
        cached = self._tables.get(table_id)
        return cached.audit if cached is not None else None

    async def audit(self, table_id: str) -> TableReport | None:
        """The table's audit; None when the table does not exist."""
        cached = self._tables.get(table_id)
        if cached is None:
            cached = self._tables[table_id] = _Cached()
        self._tables.move_to_end(table_id)
        while len(self._tables) > self.size:
            self._tables.popitem(last=False)
        async with cached.lock, _snapshot(self.store) as conn:
            return await self._audit(conn, table_id, cached)

    async def _audit(
        self, conn: asyncpg.Connection, table_id: str, cached: _Cached
    ) -> TableReport | None:
        audit, report = cached.audit, cached.report
        if audit is not None and report is not None:
            rows = await reads.stream_heads(conn, [table_stream(table_id), chat_stream(table_id)])
            heads = {
                r["stream_id"]: (int(r["version"]), bytes(r["head_hash"]))
                for r in rows
                if r["version"]
            }
            if heads == audit.heads():
                return report
            if any(audit.heads().get(s, (0, b""))[0] > v for s, (v, _) in heads.items()):
                audit = None  # a stream went back: start again
        was_ok = audit is not None and audit.chain_ok()
        if audit is None:
            audit = TableAudit(table_id)
        if not await audit.extend(conn):
            self._tables.pop(table_id, None)
            return None
        if was_ok and not audit.chain_ok():
            # The new events do not extend the chain audited so far: something before them was
            # changed. Audit afresh, so that the failure is named where it is.
            audit = TableAudit(table_id)
            await audit.extend(conn)
        cached.audit, cached.report = audit, audit.report()
        return cached.report
