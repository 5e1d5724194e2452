"""Subscriptions: catch up from the database, then follow the log live, with no gap and no
duplicate at the hand-over.

One :class:`LiveFeed` per process owns the one dedicated LISTEN connection (reconnected when it
drops) and one *feed* per log partition: a task that reads new events once, when woken by a
notification or by the polling fallback, and hands them to every live subscriber of that
partition. Each subscriber has a bounded queue; one that falls behind is detached and goes back to
reading from the database itself, so a slow consumer costs memory for at most its queue.

Why a reader can trust positions: an append allocates its positions under its partition's
counter row lock, held until it commits, so transactions of one partition commit in position
order and a reader following ``position > checkpoint`` can never skip an event that commits late
(plain ``bigserial`` gives no such promise: a lower id can commit after a higher one has been
read). Readers still check that positions are contiguous and, on a jump, re-read from their
checkpoint instead of skipping.

A jump that lasts (``hole_grace`` seconds), or a partition head above the last event, is a
**hole**: it cannot arise by design, so it is corruption (an event deleted, a head moved on). It is
reported at once: an error naming the partition and the position, :attr:`LiveFeed.holes` (which
makes the server not ready) and the ``on_hole`` callback (a metric). What is intact keeps being
served: the partition's feed moves past the hole for the subscribers of single streams, whose
own versions are checked; log subscribers, which follow positions, are never handed anything
past it and wait, reading the database at the polling interval, until it is filled. Other
partitions are not affected. ``chouette audit --all`` names the cause.

A feed reads each position once, so it never meets an event deleted after it read it, nor one
deleted before the process started. The live feed therefore also counts the log
(:class:`events.store.density.DensityCheck`): every partition whole when it starts, before
:meth:`LiveFeed.start` returns, then every ``check_interval`` the positions appended since and
a slice of the older ones, round and round. A hole it finds is reported as above, and watched
until it is filled.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Final

import asyncpg

from events.store.density import SWEEP, DensityCheck, LogHole
from events.store.errors import StoreError, translate_errors
from events.store.event_store import EventStore, RecordedEvent
from events.store.lru import Lru

__all__ = [
    "CHANNEL",
    "LiveFeed",
    "LogHole",
    "LogSubscription",
    "StreamSubscription",
    "Subscription",
]

CHANNEL: Final = "chouette_events"
"""The notification channel; payloads are ``"partition:last_position"``."""

_log = logging.getLogger(__name__)


def _contiguous(
    batch: list[RecordedEvent], after: int, key: Callable[[RecordedEvent], int]
) -> bool:
    return _run(batch, after, key) == len(batch)


def _run(batch: list[RecordedEvent], after: int, key: Callable[[RecordedEvent], int]) -> int:
    """How many events at the start of ``batch`` continue from ``after`` without a gap."""
    expected = after + 1
    for n, event in enumerate(batch):
        if key(event) != expected:
            return n
        expected += 1
    return len(batch)


def _position(event: RecordedEvent) -> int:
    return event.position


def _version(event: RecordedEvent) -> int:
    return event.version


class _Sink:
    """A live subscriber's bounded queue, filled by its partition's feed."""

    __slots__ = ("_waiter", "batches", "count", "detached", "limit", "stream_id")

    def __init__(self, limit: int, stream_id: str | None) -> None:
        self.batches: deque[list[RecordedEvent]] = deque()
        self.count = 0
        self.limit = limit
        self.stream_id = stream_id
        self.detached = False
        # A bare future rather than an asyncio.Event: a sink waits once for every batch of
        # every socket, and Event.wait makes a coroutine and a future each time.
        self._waiter: asyncio.Future[None] | None = None

    def wake(self) -> None:
        """Wake the subscription waiting on this sink, if one is."""
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def waiter(self) -> asyncio.Future[None]:
        """A future done at the next :meth:`wake` (check the queue before awaiting it)."""
        waiter = self._waiter
        if waiter is None or waiter.done():
            waiter = self._waiter = asyncio.get_running_loop().create_future()
        return waiter

    def offer(self, batch: list[RecordedEvent]) -> bool:
        """Queue a batch; False (and detached) when it would overflow."""
        if self.count + len(batch) > self.limit:
            self.detached = True
            self.wake()
            return False
        self.batches.append(batch)
        self.count += len(batch)
        self.wake()
        return True

    def pop(self, merge: bool = False) -> list[RecordedEvent]:
        """The oldest queued batch; with ``merge``, every queued batch as one."""
        batch = self.batches.popleft()
        while merge and self.batches:
            batch = batch + self.batches.popleft()
        self.count -= len(batch)
        return batch


class _Feed:
    """Reads one partition's new events once and hands them to its live subscribers."""

    VERSIONS_KEPT: Final = 50_000
    """How many streams' last versions :attr:`versions` keeps."""

    def __init__(self, live: LiveFeed, partition: int) -> None:
        self.live = live
        self.partition = partition
        self.position = -1
        """The last position handed out; -1 until the feed knows the partition's head."""
        self.jumps = 0
        """How many times a read was not contiguous and was repeated."""
        self._gap: tuple[int, float] | None = None
        """A gap being waited out: the first missing position, and since when."""
        self._checked = 0.0
        """When the partition's head was last compared with the last position read."""
        self.log_sinks: set[_Sink] = set()
        self.stream_sinks: dict[str, set[_Sink]] = {}
        self.versions: Lru[int] = Lru(self.VERSIONS_KEPT)
        """The last version of each stream that this feed has handed out or that a subscription
        read after attaching (:meth:`note`), for the :data:`VERSIONS_KEPT` streams used last.
        A subscription whose cursor is a stream's entry here has missed nothing that the feed
        will not deliver (see :meth:`Subscription.next_batch`)."""
        self.wake = asyncio.Event()
        self.ready = asyncio.Event()
        self.task = asyncio.create_task(self._run(), name=f"log-feed-{partition}")

    def latest(self, stream_id: str | None) -> int | None:
        """The stream's last version as this feed knows it, or None when it does not.

        Every event of the partition up to :attr:`position` has passed through the feed, which
        notes its version, so a stream's entry is its last version among those positions (or
        later: a read's, :meth:`note`). An entry can be low only past a hole, which a
        subscription finds by its own versions (and then reads the database)."""
        return None if stream_id is None else self.versions.get(stream_id)

    def note(self, stream_id: str, version: int) -> None:
        """A subscription attached to this feed read the stream up to ``version`` from the
        database: everything before the feed's position at the attach is in what it read, and
        everything after comes through the feed."""
        known = self.versions.get(stream_id)
        if known is None or known < version:
            self.versions.put(stream_id, version)

    def attach(self, sink: _Sink) -> int:
        """Start handing batches to ``sink``; returns the position it will continue from."""
        if sink.stream_id is None:
            self.log_sinks.add(sink)
        else:
            self.stream_sinks.setdefault(sink.stream_id, set()).add(sink)
        return self.position

    def detach(self, sink: _Sink) -> None:
        if sink.stream_id is None:
            self.log_sinks.discard(sink)
            return
        sinks = self.stream_sinks.get(sink.stream_id)
        if sinks is not None:
            sinks.discard(sink)
            if not sinks:
                del self.stream_sinks[sink.stream_id]

    def _deliver(self, batch: list[RecordedEvent]) -> None:
        versions = self.versions
        for event in batch:
            versions.put(event.stream_id, event.version)
        for sink in tuple(self.log_sinks):
            if not sink.offer(batch):
                self.detach(sink)
        if self.stream_sinks:
            by_stream: dict[str, list[RecordedEvent]] = {}
            for event in batch:
                if event.stream_id in self.stream_sinks:
                    by_stream.setdefault(event.stream_id, []).append(event)
            for stream_id, events in by_stream.items():
                for sink in tuple(self.stream_sinks.get(stream_id, ())):
                    if not sink.offer(events):
                        self.detach(sink)

    async def _sleep(self, seconds: float) -> None:
        try:
            async with asyncio.timeout(seconds):
                await self.wake.wait()
        except TimeoutError:
            pass

    async def _run(self) -> None:
        live = self.live
        store = live.store
        while self.position < 0:
            try:
                heads = await store.partition_heads()
            except StoreError as e:
                _log.warning("log feed %d cannot read the partition head: %s", self.partition, e)
                await asyncio.sleep(live.poll_interval)
                continue
            self.position = heads.get(self.partition, 0)
        self.ready.set()
        backoff = 0.005
        while True:
            self.wake.clear()
            try:
                batch = await store.read_log(self.partition, self.position, live.batch_size)
                n = _run(batch, self.position, _position)
                if n:
                    self.position = batch[n - 1].position
                    self._deliver(batch[:n])
                rest = batch[n:]
                gap = self.position + 1 if rest else None if batch else await self._head_gap()
            except StoreError as e:
                _log.warning("log feed %d cannot read: %s", self.partition, e)
                await self._sleep(live.poll_interval)
                continue
            if gap is None:
                self._gap = None
            elif not self._hole(gap, rest):
                # Not expected with commit-ordered positions: wait a little and read again from
                # where we are, until the gap has lasted too long to be anything but a hole.
                self.jumps += 1
                _log.warning(
                    "log feed %d: position %d is missing; reading again", self.partition, gap
                )
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, live.poll_interval)
                continue
            backoff = 0.005
            if n == live.batch_size or rest:
                continue  # more to read now
            if live.holes:
                with contextlib.suppress(StoreError):
                    await live._recheck(self.partition)
            # Woken at once if a notification came in during the read.
            await self._sleep(live.poll_interval)

    async def _head_gap(self) -> int | None:
        """After a read that found nothing: the first missing position when the partition's
        head is past the last position read (a head moved on leaves a hole that no read shows).
        Asked at most once per polling interval, unless a gap is being waited out."""
        now = asyncio.get_running_loop().time()
        if self._gap is None and now - self._checked < self.live.poll_interval:
            return None
        self._checked = now
        head = (await self.live.store.partition_heads()).get(self.partition, 0)
        if head <= self.position:
            return None
        # Committed since the read (its events are seen with the head), or a hole.
        if await self.live.store.read_log(self.partition, self.position, 1):
            return None
        return self.position + 1

    def _hole(self, missing: int, rest: list[RecordedEvent]) -> bool:
        """Whether the gap at ``missing`` is a hole: known already, or lasting ``hole_grace``.
        A hole is reported, the log subscribers (which must not skip it) are sent back to the
        database, and the feed goes on past it for the stream subscribers."""
        known = self.live._holes.get(self.partition)
        if known is None or known.position != missing:
            now = asyncio.get_running_loop().time()
            if self._gap is None or self._gap[0] != missing:
                self._gap = (missing, now)
            if now - self._gap[1] < self.live.hole_grace:
                return False
        self._gap = None
        self.live._report(LogHole(self.partition, missing, rest[0].position if rest else 0))
        for sink in tuple(self.log_sinks):
            sink.detached = True
            sink.wake()
        self.log_sinks.clear()
        if rest:
            self.position = rest[0].position - 1
        return True


class LiveFeed:
    """The live-feed hub of a process: its one LISTEN connection and the per-partition feeds
    that hand new events to its subscriptions.

    :param store: the store to read from.
    :param dsn: where to LISTEN (default: ``store.dsn``).
    :param listen: False to rely on polling alone.
    :param poll_interval: how often feeds read even without a notification, in seconds: the
        fallback for a lost notification or a dropped listener connection.
    :param batch_size: most events per read.
    :param queue_events: most events queued for one live subscriber before it is detached.
    :param hole_grace: how long, in seconds, a gap in the positions is read again before it is
        taken for a hole (see the module's docstring).
    :param on_hole: called with :attr:`holes` whenever a hole is found or filled again (a
        metric, say).
    :param check_interval: how often, in seconds, the log's density is checked (see the
        module's docstring; default: ``poll_interval``).
    :param check_sweep: how many older positions of each partition a check counts again.

    Use as ``async with LiveFeed(store) as live:``, then :meth:`subscribe` or
    :meth:`subscribe_stream`.
    """

    def __init__(
        self,
        store: EventStore,
        *,
        dsn: str | None = None,
        listen: bool = True,
        poll_interval: float = 1.0,
        reconnect_delay: float = 0.5,
        batch_size: int = 1000,
        queue_events: int = 10_000,
        hole_grace: float = 0.2,
        on_hole: Callable[[list[LogHole]], None] | None = None,
        check_interval: float | None = None,
        check_sweep: int = SWEEP,
    ) -> None:
        if listen and (dsn or store.dsn) is None:
            raise ValueError("a LiveFeed that listens needs a dsn (or a store made by connect())")
        self.store = store
        self.poll_interval = poll_interval
        self.reconnect_delay = reconnect_delay
        self.batch_size = batch_size
        self.queue_events = queue_events
        self.hole_grace = hole_grace
        self.on_hole = on_hole
        self._holes: dict[int, LogHole] = {}
        self.check_interval = poll_interval if check_interval is None else check_interval
        self.density = DensityCheck(store, sweep=check_sweep)
        """The count of the log's positions against its heads."""
        self._checker: asyncio.Task[None] | None = None
        self.connections = 0
        """How many times the LISTEN connection has been established."""
        self._dsn = dsn or store.dsn
        self._listen = listen
        self._feeds: dict[int, _Feed] = {}
        self._listener: asyncio.Task[None] | None = None
        self._listening = asyncio.Event()
        self._first_attempt = asyncio.Event()
        self._closed = False
        self._channels: dict[str, tuple[Callable[[str], None], Callable[[], None]]] = {}
        self._partitions: Lru[int] = Lru(self.PARTITIONS_KEPT)
        """The partitions of the streams subscribed to lately (a stream never changes
        partition once appended to), so that a new subscription does not look it up again."""

    PARTITIONS_KEPT = 20_000
    """How many streams' partitions :attr:`_partitions` keeps (least recently used first out)."""

    @property
    def closed(self) -> bool:
        return self._closed

    def listen(
        self, channel: str, on_payload: Callable[[str], None], on_connect: Callable[[], None]
    ) -> None:
        """LISTEN on ``channel`` too, over the same connection; call before :meth:`start`.
        ``on_payload`` gets each notification's payload; ``on_connect`` is called each time the
        connection is (re)established, once it listens: what was notified while it was down
        is lost, so whatever a notification would have changed must be forgotten then. While
        :attr:`listening` is False, nothing is heard."""
        self._channels[channel] = (on_payload, on_connect)

    async def stream_partition(self, stream_id: str) -> int | None:
        """The partition a stream lives in (remembered), or None before its first append."""
        known = self._partitions.get(stream_id)
        if known is not None:
            return known
        found = await self.store.stream_partition(stream_id)
        if found is not None:
            self._partitions.put(stream_id, found)
        return found

    def known_version(self, stream_id: str) -> int | None:
        """A stream's last version as this process's feeds know it (:meth:`_Feed.latest`):
        at most its head in the database, a few milliseconds behind it at worst; None when no
        feed knows the stream."""
        known = [v for f in self._feeds.values() if (v := f.latest(stream_id)) is not None]
        return max(known) if known else None

    @property
    def holes(self) -> list[LogHole]:
        """The holes found in the log and not filled since, by partition."""
        return [self._holes[p] for p in sorted(self._holes)]

    def _report(self, hole: LogHole) -> None:
        """A hole is found: say so once (an error naming it), list it, and tell ``on_hole``.
        A partition lists its first hole."""
        known = self._holes.get(hole.partition)
        if known is not None and known.position < hole.position:
            return
        if known is not None and known.position == hole.position:
            # The same hole, seen again, perhaps with events after it now (not fewer: a reader
            # with an older snapshot may not have seen them yet).
            if hole.next_position > known.next_position:
                self._holes[hole.partition] = hole
            return
        self._holes[hole.partition] = hole
        _log.error(
            "%s: the log is corrupt (a hole cannot arise by design); serving what is intact;"
            " run `chouette audit --all` to name the cause",
            hole.describe(),
            extra={"partition": hole.partition, "position": hole.position},
        )
        if self.on_hole is not None:
            self.on_hole(self.holes)

    async def _recheck(self, partition: int) -> None:
        """Forget a partition's hole once its missing position is stored (an operator's
        repair), or once the partition's head is below it (cut short: no position is missing
        there; ``check_heads`` against saved heads names that)."""
        hole = self._holes.get(partition)
        if hole is None:
            return
        found = await self.store.read_log(partition, hole.position - 1, 1)
        if found and found[0].position == hole.position:
            _log.warning("log partition %d has position %d again", partition, hole.position)
        elif (await self.store.partition_heads()).get(partition, 0) < hole.position:
            _log.warning(
                "log partition %d ends before position %d now: no hole there",
                partition,
                hole.position,
            )
        else:
            return
        del self._holes[partition]
        if self.on_hole is not None:
            self.on_hole(self.holes)

    @property
    def listening(self) -> bool:
        """Whether the LISTEN connection is up right now."""
        return self._listening.is_set()

    async def start(self) -> None:
        """Start listening, and checking the log's density; waits for the first connection
        attempt and the first check, of every partition whole (a failure of either is retried).
        """
        if self._listen and self._listener is None:
            self._listener = asyncio.create_task(self._listen_loop(), name="log-listener")
            await self._first_attempt.wait()
        if self._checker is None:
            await self._check()
            self._checker = asyncio.create_task(self._check_loop(), name="log-density")

    async def _check(self) -> None:
        """Check the log's density once: holes filled since are forgotten, new ones reported."""
        try:
            for partition in list(self._holes):
                await self._recheck(partition)
            for hole in await self.density.check():
                self._report(hole)
        except StoreError as e:
            _log.warning("the log's density cannot be checked: %s", e)

    async def _check_loop(self) -> None:
        while True:
            await asyncio.sleep(self.check_interval)
            await self._check()

    async def wait_listening(self) -> None:
        """Wait until the LISTEN connection is up."""
        await self._listening.wait()

    async def close(self) -> None:
        """Stop listening and feeding; open subscriptions end."""
        self._closed = True
        tasks = [feed.task for feed in self._feeds.values()]
        if self._listener is not None:
            tasks.append(self._listener)
        if self._checker is not None:
            tasks.append(self._checker)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for feed in self._feeds.values():
            for sink in [*feed.log_sinks, *(s for ss in feed.stream_sinks.values() for s in ss)]:
                sink.detached = True
                sink.wake()
        self._feeds.clear()

    async def __aenter__(self) -> LiveFeed:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def wake(self, partition: int | None = None) -> None:
        """Make a partition's feed (or every feed) read now."""
        if partition is None:
            for each in self._feeds.values():
                each.wake.set()
            return
        feed = self._feeds.get(partition)
        if feed is not None:
            feed.wake.set()

    def feed_jumps(self, partition: int) -> int:
        """How many non-contiguous reads a partition's feed has seen (and re-read)."""
        feed = self._feeds.get(partition)
        return 0 if feed is None else feed.jumps

    def subscribe(
        self, partition: int = 0, after_position: int = 0, *, batch_size: int | None = None
    ) -> LogSubscription:
        """Every event of a partition's log after ``after_position``, then live."""
        return LogSubscription(self, partition, after_position, batch_size or self.batch_size)

    def subscribe_stream(
        self,
        stream_id: str,
        after_version: int = 0,
        *,
        partition: int | None = None,
        batch_size: int | None = None,
    ) -> StreamSubscription:
        """Every event of one stream after ``after_version``, then live.

        :param partition: the stream's partition, if it may not exist yet and was (or will be)
            placed explicitly; by default it is looked up, else :meth:`EventStore.partition_for`.
        """
        return StreamSubscription(
            self, stream_id, after_version, partition, batch_size or self.batch_size
        )

    async def _feed(self, partition: int) -> _Feed:
        if self._closed:
            raise StoreError("the live feed is closed")
        feed = self._feeds.get(partition)
        if feed is None:
            feed = self._feeds[partition] = _Feed(self, partition)
        await feed.ready.wait()
        return feed

    def _on_notify(
        self, connection: asyncpg.Connection, pid: int, channel: str, payload: object
    ) -> None:
        partition, _, _ = str(payload).partition(":")
        try:
            self.wake(int(partition))
        except ValueError:
            self.wake()

    async def _listen_loop(self) -> None:
        assert self._dsn is not None
        while True:
            connection: asyncpg.Connection | None = None
            lost = asyncio.Event()

            def on_lost(_connection: object, lost: asyncio.Event = lost) -> None:
                lost.set()

            try:
                with translate_errors():
                    connection = await asyncpg.connect(self._dsn)
                    connection.add_termination_listener(on_lost)
                    await connection.add_listener(CHANNEL, self._on_notify)
                    for channel, (on_payload, _) in self._channels.items():
                        await connection.add_listener(channel, _payload_to(on_payload))
                for _, on_connect in self._channels.values():
                    on_connect()
                self.connections += 1
                self._listening.set()
                self._first_attempt.set()
                # Anything committed while we were not listening.
                self.wake()
                await lost.wait()
                _log.warning("LISTEN connection lost; reconnecting")
            except StoreError as e:
                _log.warning("LISTEN connection failed: %s", e)
            finally:
                self._listening.clear()
                self._first_attempt.set()
                if connection is not None and not connection.is_closed():
                    connection.terminate()
            await asyncio.sleep(self.reconnect_delay)


def _payload_to(
    on_payload: Callable[[str], None],
) -> Callable[[asyncpg.Connection, int, str, object], None]:
    def listener(connection: asyncpg.Connection, pid: int, channel: str, payload: object) -> None:
        on_payload(str(payload))

    return listener


class Subscription(abc.ABC):
    """Base of the subscriptions: iterate events (``async for event in sub``) or batches
    (``async for batch in sub.batches()``). Close it (or use ``async with``) when done.

    Catch-up reads the database in batches. When a read comes back short, the subscription
    attaches to the partition's feed, reads once more from the database to cover everything
    committed before it attached, and then takes live batches from its queue, dropping what it
    already has. If its queue overflows, or a live batch does not continue where it is, it goes
    back to reading the database. A stream subscription that starts where the feed knows the
    stream ends attaches at once and reads nothing.
    """

    _CATCH_UP: Final = 0
    _CLOSING: Final = 1
    _LIVE: Final = 2

    def __init__(self, live: LiveFeed, cursor: int, batch_size: int) -> None:
        self._live = live
        self._cursor = cursor
        self._batch_size = batch_size
        self._phase = self._CATCH_UP
        self._feed: _Feed | None = None
        self._sink: _Sink | None = None
        self._buffer: list[RecordedEvent] = []
        self._index = 0
        self._closed = False
        self.catch_ups = 0
        """How many times the subscription has gone (back) to reading the database."""
        self.reads = 0
        """How many times it has read the database."""
        self._first = True
        self.merge = False
        """Whether a live batch is everything queued since the last one (a consumer that
        lingers between batches) rather than the oldest batch the feed delivered."""

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def queued(self) -> int:
        """Events waiting in this subscription's live queue (at most ``queue_events``)."""
        return 0 if self._sink is None else self._sink.count

    @abc.abstractmethod
    async def _partition(self) -> int:
        """The partition whose feed wakes this subscription."""

    @abc.abstractmethod
    async def _read(self) -> list[RecordedEvent]:
        """The next events after the cursor, from the database."""

    @abc.abstractmethod
    def _key(self, event: RecordedEvent) -> int:
        """The event's place in what this subscription follows (position or version)."""

    def _stream_filter(self) -> str | None:
        return None

    @abc.abstractmethod
    def _gap(self, missing: int, next_key: int) -> None:
        """A gap in what this subscription follows has lasted ``hole_grace``: report it."""

    def _accept(self, batch: list[RecordedEvent]) -> bool:
        if not _contiguous(batch, self._cursor, self._key):
            return False
        self._cursor = self._key(batch[-1])
        return True

    def _leave_live(self) -> None:
        if self._sink is not None and self._feed is not None:
            self._feed.detach(self._sink)
        self._sink = None
        self._phase = self._CATCH_UP
        self.catch_ups += 1

    async def next_batch(self) -> list[RecordedEvent]:
        """The next non-empty batch, waiting for one if need be.

        :raises StopAsyncIteration: the subscription (or its live feed) is closed.
        """
        jump_delay = 0.005
        gap_since: float | None = None
        while True:
            if self._closed or self._live.closed:
                raise StopAsyncIteration
            if self._phase == self._LIVE:
                sink = self._sink
                assert sink is not None
                if sink.batches:
                    batch = [e for e in sink.pop(self.merge) if self._key(e) > self._cursor]
                    if not batch:
                        continue
                    if self._accept(batch):
                        return batch
                    self._leave_live()
                    continue
                if sink.detached:
                    self._leave_live()
                    continue
                await sink.waiter()
                continue
            if self._first:
                self._first = False
                if await self._attach_if_current():
                    continue
            batch = await self._read()
            self.reads += 1
            n = _run(batch, self._cursor, self._key)
            cut = 0 < n < len(batch)
            if cut:
                batch = batch[:n]  # up to the gap now; the gap itself at the next read
            if batch and not self._accept(batch):
                # A gap where we are: wait it out (never skip it); once it has lasted, report it.
                now = asyncio.get_running_loop().time()
                gap_since = now if gap_since is None else gap_since
                if now - gap_since >= self._live.hole_grace:
                    self._gap(self._cursor + 1, self._key(batch[0]))
                await asyncio.sleep(jump_delay)
                jump_delay = min(jump_delay * 2, self._live.poll_interval)
                continue
            gap_since = None
            short = len(batch) < self._batch_size and not cut
            if short:
                if self._phase == self._CATCH_UP:
                    # Near the head: attach, then read once more to cover the attach.
                    self._feed = await self._live._feed(await self._partition())
                    self._sink = _Sink(self._live.queue_events, self._stream_filter())
                    self._feed.attach(self._sink)
                    self._phase = self._CLOSING
                else:
                    self._phase = self._LIVE
                    stream_id = self._stream_filter()
                    if stream_id is not None and self._feed is not None:
                        self._feed.note(stream_id, self._cursor)
            if batch:
                return batch

    async def _attach_if_current(self) -> bool:
        """At the start, for one stream: go live at once, reading nothing, when the cursor is
        the stream's last version as the partition's feed knows it (:meth:`_Feed.latest`).
        Checked and attached with nothing awaited in between, so no event falls between the
        two: what the feed has handed out ends at the cursor, and what it hands out next
        reaches the new queue. A socket opened on a table this process serves reads nothing."""
        stream_id = self._stream_filter()
        if stream_id is None:
            return False
        feed = await self._live._feed(await self._partition())
        if feed.latest(stream_id) != self._cursor:
            return False
        self._feed = feed
        self._sink = _Sink(self._live.queue_events, stream_id)
        feed.attach(self._sink)
        self._phase = self._LIVE
        return True

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> RecordedEvent:
        if self._index >= len(self._buffer):
            self._buffer = await self.next_batch()
            self._index = 0
        event = self._buffer[self._index]
        self._index += 1
        return event

    async def batches(self) -> AsyncIterator[list[RecordedEvent]]:
        """The events in batches, as read; ends when the subscription is closed."""
        if self._index < len(self._buffer):
            rest = self._buffer[self._index :]
            self._buffer, self._index = [], 0
            yield rest
        while True:
            try:
                batch = await self.next_batch()
            except StopAsyncIteration:
                return
            yield batch

    async def close(self) -> None:
        """Stop: a waiting iteration ends."""
        self._closed = True
        sink = self._sink
        if sink is not None:
            if self._feed is not None:
                self._feed.detach(sink)
            sink.wake()
        self._sink = None

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


class LogSubscription(Subscription):
    """A partition's log after a position. :attr:`position` is the last position delivered."""

    def __init__(self, live: LiveFeed, partition: int, after_position: int, batch_size: int):
        super().__init__(live, after_position, batch_size)
        self.partition = partition

    @property
    def position(self) -> int:
        return self._cursor

    async def _partition(self) -> int:
        return self.partition

    async def _read(self) -> list[RecordedEvent]:
        return await self._live.store.read_log(self.partition, self._cursor, self._batch_size)

    def _key(self, event: RecordedEvent) -> int:
        return event.position

    def _gap(self, missing: int, next_key: int) -> None:
        self._live._report(LogHole(self.partition, missing, next_key))


class StreamSubscription(Subscription):
    """One stream after a version. :attr:`version` is the last version delivered."""

    def __init__(
        self,
        live: LiveFeed,
        stream_id: str,
        after_version: int,
        partition: int | None,
        batch_size: int,
    ):
        super().__init__(live, after_version, batch_size)
        self.stream_id = stream_id
        self._partition_id = partition
        self._reported = 0

    @property
    def version(self) -> int:
        return self._cursor

    async def _partition(self) -> int:
        if self._partition_id is None:
            found = await self._live.stream_partition(self.stream_id)
            if found is None:
                found = self._live.store.partition_for(self.stream_id)
            self._partition_id = found
        return self._partition_id

    async def _read(self) -> list[RecordedEvent]:
        return await self._live.store.read_stream(
            self.stream_id, self._cursor, limit=self._batch_size
        )

    def _key(self, event: RecordedEvent) -> int:
        return event.version

    def _stream_filter(self) -> str | None:
        return self.stream_id

    def _gap(self, missing: int, next_key: int) -> None:
        if self._reported != missing:
            self._reported = missing
            _log.error(
                "stream %s has no version %d (the next stored is %d): the store is corrupt;"
                " run `chouette audit --all` to name the cause",
                self.stream_id,
                missing,
                next_key,
                extra={"stream": self.stream_id, "version": missing},
            )
