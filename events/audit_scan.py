"""The audit over the store: read a table's streams and their hash chains, and audit them.

:mod:`events.audit` checks events already read; this module reads them (and checks what only the
database can tell: the hash chain of each stream, and that the global log has no holes). The
rules are checked in a worker thread, so that a server's event loop keeps serving its other
clients meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from events.audit import Failure, StreamReport, TableReport, audit_records
from events.store import EventStore, RecordedEvent
from events.streams import CHAT_PREFIX, TABLE_PREFIX, chat_stream, parse_stream, table_stream

__all__ = ["audit_stream", "audit_table", "audit_tables", "check_log", "table_ids"]


@dataclass(frozen=True, slots=True)
class _Read:
    """One stream as read for an audit: its events and its hash chain's failure."""

    stream: str
    records: list[RecordedEvent]
    chain: Failure | None


async def _read(store: EventStore, stream: str, records: list[RecordedEvent]) -> _Read:
    chain = await store.verify_chain(stream)
    return _Read(stream, records, Failure("chain", chain.version, chain.reason) if chain else None)


async def _read_table(store: EventStore, table_id: str) -> list[_Read] | None:
    """A table's streams with their chains; None when the table does not exist."""
    play, chat = table_stream(table_id), chat_stream(table_id)
    records = await store.read_stream(play)
    if not records and not await store.stream_version(play):
        return None
    reads = [await _read(store, play, records)]
    chat_records = await store.read_stream(chat)
    if chat_records or await store.stream_version(chat):
        reads.append(await _read(store, chat, chat_records))
    return reads


def _audit_reads(
    table_id: str, reads: list[_Read], progress: Callable[[int], None] | None
) -> TableReport:
    report = TableReport(table_id)
    for r in reads:
        report.streams.append(audit_records(r.stream, r.records, chain=r.chain, progress=progress))
    return report


async def audit_stream(
    store: EventStore, stream_id: str, progress: Callable[[int], None] | None = None
) -> StreamReport:
    """Read and audit one stream (the rules in a worker thread: see :func:`audit_table`)."""
    read = await _read(store, stream_id, await store.read_stream(stream_id))
    return await asyncio.to_thread(
        audit_records, stream_id, read.records, chain=read.chain, progress=progress
    )


async def audit_table(
    store: EventStore, table_id: str, progress: Callable[[int], None] | None = None
) -> TableReport | None:
    """Audit a table's play stream and chat stream; None when the table does not exist.

    The rules are checked in a worker thread, so that a server's event loop keeps serving its
    other clients meanwhile.
    """
    reads = await _read_table(store, table_id)
    if reads is None:
        return None
    return await asyncio.to_thread(_audit_reads, table_id, reads, progress)


async def table_ids(store: EventStore) -> list[tuple[str, int]]:
    """Every table with its event count (play and chat streams), in id order."""
    rows = await store.pool.fetch(
        "SELECT stream_id, version FROM streams WHERE stream_id LIKE $1 OR stream_id LIKE $2",
        TABLE_PREFIX + "%",
        CHAT_PREFIX + "%",
    )
    counts: dict[str, int] = {}
    for r in rows:
        name = parse_stream(r["stream_id"])
        assert name is not None, "the query selects table streams only"
        counts[name.table_id] = counts.get(name.table_id, 0) + int(r["version"])
    return sorted(counts.items())


async def check_log(store: EventStore) -> list[dict[str, Any]]:
    """Each log partition's positions must be dense 1..head: a deleted event leaves a hole."""
    rows = await store.pool.fetch(
        "SELECT p.partition, p.head, count(e.position) AS n, max(e.position) AS top"
        " FROM log_partitions p LEFT JOIN events e USING (partition)"
        " GROUP BY p.partition, p.head ORDER BY p.partition"
    )
    problems = []
    for r in rows:
        head, n, top = int(r["head"]), int(r["n"]), int(r["top"] or 0)
        if n != head or top != head:
            problems.append(
                {
                    "partition": r["partition"],
                    "head": head,
                    "events": n,
                    "last_position": top,
                    "reason": f"the log has {n} events at positions up to {top}, its head is "
                    f"{head}: positions are not dense",
                }
            )
    return problems


async def audit_tables(
    store: EventStore,
    ids: Iterable[str],
    progress: Callable[[int], None] | None = None,
) -> list[TableReport]:
    """Audit several tables, in order (a missing table gets a failed report). The next table is
    read from the database while the rules of the current one are checked."""
    ids = list(ids)
    reports: list[TableReport] = []
    ahead = asyncio.ensure_future(_read_table(store, ids[0])) if ids else None
    try:
        for k, table_id in enumerate(ids):
            assert ahead is not None
            reads = await ahead
            more = k + 1 < len(ids)
            ahead = asyncio.ensure_future(_read_table(store, ids[k + 1])) if more else None
            if reads is None:
                report = TableReport(table_id)
                missing = StreamReport(table_stream(table_id))
                missing.fail("versions", 1, "no such table: the stream has no events")
                report.streams.append(missing)
            else:
                report = await asyncio.to_thread(_audit_reads, table_id, reads, progress)
            reports.append(report)
    finally:
        if ahead is not None and not ahead.done():
            ahead.cancel()
            await asyncio.gather(ahead, return_exceptions=True)
    return reports
