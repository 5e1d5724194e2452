"""Every position of the log holds an event: the density check (issue 27).

An append allocates its positions under its partition's counter row lock (``docs/store.md``),
so a partition's events are exactly its positions ``1..head``. A **hole**, a position up to the
head with no event, cannot arise by design: it is an event deleted, or a head moved on, by
someone who could switch the append-only triggers off. The live feed finds a hole it reads past
(:mod:`events.store.subscription`); an event deleted after the feed read it, or before the process
started, it never reads again. This module finds a hole anywhere, by counting.

Positions are the primary key ``(partition, position)``, so a partition's count of events over
positions ``(a, b]`` is ``b - a`` exactly when none is missing there, and counting them is an
index-only scan of that key (once autovacuum has marked the log's pages all-visible, as it does
for an append-only table). :class:`DensityCheck` counts, at each :meth:`~DensityCheck.check`:

- each partition's **new** positions, those up to its head not counted before: at the first
  check (the process's start-up), the whole partition; then what was appended since;
- the next ``sweep`` of its **older** positions, round and round the partition, so that an event
  deleted long after it was counted is found within ``head / sweep`` checks.

All of one check's counts and heads are one statement, hence one snapshot: the positions up to
a head read in it are committed, so a count short of them is a hole, never a commit still under
way. A range that comes up short is then bisected, by counting its halves, to its first missing
position (about the range's count again, in ``log2`` of its length queries), and the next
event stored after it is looked up (one index probe).

What it costs (``bench/log_density.py``, ``docs/store.md``): some 0.3 s a million events for the
start-up count, and some 10 ms a check at the default sweep (1,000 new positions and 20,000 old
ones, on 5 million events).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import asyncpg

from events.store.errors import describe_hole, translate_errors
from events.store.event_store import EventStore

__all__ = ["SWEEP", "DensityCheck", "LogHole", "first_missing", "next_stored"]

SWEEP: Final = 20_000
"""Older positions a check counts again in each partition: some 5 ms of an index-only scan
on the machine of ``docs/store.md``."""


@dataclass(frozen=True, slots=True)
class LogHole:
    """Positions missing from a partition's log: ``position`` and the ones after it, up to
    ``next_position`` (0: none stored yet, the partition's head is ahead of its last event)."""

    partition: int
    position: int
    next_position: int

    def describe(self) -> str:
        """The hole as it is named everywhere (:func:`events.store.errors.describe_hole`)."""
        return describe_hole(self.partition, self.position, self.next_position)


_CHECK: Final = """
SELECT p.partition, p.head, coalesce(c.checked, 0) AS checked,
       coalesce(c.swept, 0) AS swept, least(coalesce(c.sweep_to, 0), p.head) AS sweep_to,
       (SELECT count(*) FROM events e
        WHERE e.partition = p.partition
          AND e.position > coalesce(c.checked, 0) AND e.position <= p.head) AS fresh,
       (SELECT count(*) FROM events e
        WHERE e.partition = p.partition
          AND e.position > coalesce(c.swept, 0)
          AND e.position <= least(coalesce(c.sweep_to, 0), p.head)) AS old
FROM log_partitions p
LEFT JOIN unnest($1::int[], $2::bigint[], $3::bigint[], $4::bigint[])
    AS c(partition, checked, swept, sweep_to) USING (partition)
ORDER BY p.partition
"""
"""Each partition's head, its count of new positions ``(checked, head]`` and of the older
ones being swept ``(swept, sweep_to]``, in one snapshot. Neither range goes past the head: a
head moved back (a partition cut short) leaves no hole below it, and nothing above it is
counted."""

_COUNT: Final = (
    "SELECT count(*) FROM events WHERE partition = $1 AND position > $2 AND position <= $3"
)
_NEXT: Final = "SELECT min(position) FROM events WHERE partition = $1 AND position > $2"


async def first_missing(conn: asyncpg.Connection, partition: int, after: int, upto: int) -> int:
    """The first position of ``(after, upto]`` with no event, given that one is missing there:
    the range is halved, keeping the half whose count is short."""
    low, high = after, upto  # (after, low] is whole; (low, high] is not
    while high - low > 1:
        middle = (low + high) // 2
        if await conn.fetchval(_COUNT, partition, low, middle) == middle - low:
            low = middle
        else:
            high = middle
    return high


async def next_stored(conn: asyncpg.Connection, partition: int, position: int) -> int:
    """The first position after ``position`` with an event (0: none)."""
    found = await conn.fetchval(_NEXT, partition, position)
    return 0 if found is None else int(found)


@dataclass(slots=True)
class _Partition:
    checked: int = 0
    """Every position up to here has been counted at least once."""
    swept: int = 0
    """The sweep of the older positions has counted up to here in this round."""


class DensityCheck:
    """Counts each partition's positions against its head, new ones first and then the older
    ones again a slice at a time (see the module's docstring). Kept by a process for its life.

    :param sweep: how many older positions of each partition a check counts again.
    """

    def __init__(self, store: EventStore, *, sweep: int = SWEEP) -> None:
        if sweep < 1:
            raise ValueError(f"a density check's sweep is at least 1 position, not {sweep}")
        self.store = store
        self.sweep = sweep
        self._partitions: dict[int, _Partition] = {}
        self.checks = 0
        """How many checks have been made."""

    def checked(self, partition: int) -> int:
        """The position up to which ``partition`` has been counted (0 before the first check)."""
        known = self._partitions.get(partition)
        return 0 if known is None else known.checked

    def swept(self, partition: int) -> int:
        """The position up to which the sweep has counted ``partition`` again in this round."""
        known = self._partitions.get(partition)
        return 0 if known is None else known.swept

    async def check(self) -> list[LogHole]:
        """One check of every partition: the first hole found in each, by partition.

        :raises StoreError: the database did not answer (nothing is counted as checked).
        """
        known = sorted(self._partitions.items())
        ranges = [(p, s.swept, min(s.swept + self.sweep, s.checked)) for p, s in known]
        holes: list[LogHole] = []
        with translate_errors():
            async with self.store.pool.acquire() as conn, conn.transaction(readonly=True):
                # The planner, unsure how many rows a range holds, may think one check dear
                # enough to compile (on a log_partitions not analysed yet: 0.7 s of JIT for
                # one 5 ms count); compiling never pays for a count this simple.
                await conn.execute("SET LOCAL jit = off")
                rows = await conn.fetch(
                    _CHECK,
                    [p for p, _, _ in ranges],
                    [s.checked for _, s in known],
                    [low for _, low, _ in ranges],
                    [high for _, _, high in ranges],
                )
                for r in rows:
                    partition, head = int(r["partition"]), int(r["head"])
                    state = self._partitions.setdefault(partition, _Partition())
                    checked, swept = int(r["checked"]), int(r["swept"])
                    sweep_to = int(r["sweep_to"])
                    short: list[tuple[int, int]] = []
                    if sweep_to > swept and r["old"] < sweep_to - swept:
                        short.append((swept, sweep_to))
                    if head > checked and r["fresh"] < head - checked:
                        short.append((checked, head))
                    if short:
                        after, upto = short[0]
                        missing = await first_missing(conn, partition, after, upto)
                        holes.append(
                            LogHole(partition, missing, await next_stored(conn, partition, missing))
                        )
                    # Counted up to the head, hole or not: a known hole is watched by the
                    # live feed until it is filled, and the sweep counts the range again.
                    state.checked = head
                    # The next slice, or the next round once the older positions are done.
                    state.swept = sweep_to if swept < sweep_to < min(checked, head) else 0
        self.checks += 1
        return holes
