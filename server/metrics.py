"""A small Prometheus registry: counters, gauges and histograms in the text exposition format.

Written here rather than taken from ``prometheus_client`` because the server needs a handful of
metrics and the exposition format is a page of code; no global registry, one per app.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import defaultdict

from events.domain.rules_check import CheckCost
from events.store.projection import SkippedEvent
from events.store.subscription import LogHole

Labels = tuple[tuple[str, str], ...]

DEFAULT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


def _fmt_labels(labels: Labels, extra: tuple[tuple[str, str], ...] = ()) -> str:
    items = labels + extra
    if not items:
        return ""
    body = ",".join(
        f'{k}="{v.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"'
        for k, v in items
    )
    return "{" + body + "}"


class Metric:
    def __init__(self, name: str, help_: str, kind: str) -> None:
        self.name, self.help, self.kind = name, help_, kind

    def render(self) -> list[str]:
        return [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} {self.kind}"]


class _Values(Metric):
    """A metric with one number per set of labels."""

    def __init__(self, name: str, help_: str, kind: str) -> None:
        super().__init__(name, help_, kind)
        self.values: dict[Labels, float] = defaultdict(float)

    def inc(self, amount: float = 1.0, **labels: str) -> None:
        self.values[tuple(sorted(labels.items()))] += amount

    def render(self) -> list[str]:
        return super().render() + [
            f"{self.name}{_fmt_labels(k)} {v}" for k, v in sorted(self.values.items())
        ]


class Counter(_Values):
    def __init__(self, name: str, help_: str) -> None:
        super().__init__(name, help_, "counter")


class Gauge(_Values):
    def __init__(self, name: str, help_: str) -> None:
        super().__init__(name, help_, "gauge")

    def set(self, value: float, **labels: str) -> None:
        self.values[tuple(sorted(labels.items()))] = value


class Histogram(Metric):
    def __init__(self, name: str, help_: str, buckets: tuple[float, ...] = DEFAULT_BUCKETS) -> None:
        super().__init__(name, help_, "histogram")
        self.buckets = buckets
        self.counts: dict[Labels, list[int]] = {}
        """Per labels, the observations in each bucket alone (the last: above every bound);
        made cumulative as they are rendered. An observation is one ``bisect``, not a pass
        over every bound: several are made per command."""
        self.sums: dict[Labels, float] = defaultdict(float)

    def observe(self, value: float, **labels: str) -> None:
        key = tuple(sorted(labels.items())) if labels else ()
        counts = self.counts.get(key)
        if counts is None:
            counts = self.counts[key] = [0] * (len(self.buckets) + 1)
        counts[bisect_left(self.buckets, value)] += 1
        self.sums[key] += value

    def render(self) -> list[str]:
        lines = super().render()
        for key, alone in sorted(self.counts.items()):
            counts, total = [], 0
            for n in alone:
                total += n
                counts.append(total)
            for bound, n in zip((*self.buckets, math.inf), counts, strict=True):
                le = "+Inf" if bound == math.inf else repr(bound)
                lines.append(f"{self.name}_bucket{_fmt_labels(key, (('le', le),))} {n}")
            lines.append(f"{self.name}_sum{_fmt_labels(key)} {self.sums[key]}")
            lines.append(f"{self.name}_count{_fmt_labels(key)} {counts[-1]}")
        return lines


class Metrics:
    """The server's metrics."""

    def __init__(self) -> None:
        self.commands = Counter("chouette_commands_total", "Commands by type and outcome.")
        self.command_latency = Histogram(
            "chouette_command_seconds", "Time to decide and append a command."
        )
        self.append_latency = Histogram(
            "chouette_append_seconds", "Time of the event store append round trip."
        )
        self.rejected = Counter(
            "chouette_decisions_rejected_total",
            "Decided batches the rules check refused before their append, by the event type at"
            " fault (a bug in a decision: nothing was written; the log has the table and"
            " command ids).",
        )
        self.stored_skipped = Counter(
            "chouette_stored_events_skipped_total",
            "Stored events this process skipped while loading a table's state, because they do"
            " not apply (written by an older server; the table's audit names each).",
        )
        self.check_seconds = Counter(
            "chouette_decision_check_seconds_total",
            "Time spent checking decided batches against the rules before their append, beyond"
            " folding their events (which every command does: the check's fold is the state"
            " kept).",
        )
        self.checked_again = Counter(
            "chouette_decisions_decided_again_total",
            "Decided batches the check decided again in full (the others were decide()'s own"
            " answer to the command the audit infers from them, and were only folded).",
        )
        self.clients = Gauge("chouette_connected_clients", "Connected stream clients by kind.")
        self.subscriber_lag = Gauge(
            "chouette_subscriber_lag_events",
            "Events between the log head and the slowest live subscriber.",
        )
        self.skipped_events = Counter(
            "chouette_projection_skipped_events_total",
            "Events a projector could not apply and skipped (listed in /readyz).",
        )
        self.log_holes = Gauge(
            "chouette_log_holes",
            "1 for a log partition with a hole (a missing position: the store is corrupt; the"
            " partition and position are in /readyz and the log), 0 once it is filled.",
        )
        self.expiries = Counter(
            "chouette_timer_expiries_total",
            "Expiries the timer service sent, by outcome (ok, duplicate: another process fired"
            " it first, refused: nothing had run out any more, error).",
        )
        self.expiry_lateness = Histogram(
            "chouette_timer_lateness_seconds",
            "How long after a clock's deadline the timer service sent its expiry.",
            (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
        )
        self.timer_seconds = Counter(
            "chouette_timer_seconds_total",
            "Time the timer service spent: scheduling each folded state (part=hook) and in its"
            " loop's own work (part=loop); the expiries it sends are commands, counted there.",
        )
        self.timer_tables = Gauge(
            "chouette_timer_tables", "Tables with something running that this process watches."
        )
        self._sent: dict[object, dict[str, int]] = {}
        self.all: list[Metric] = [
            self.commands,
            self.command_latency,
            self.append_latency,
            self.rejected,
            self.stored_skipped,
            self.check_seconds,
            self.checked_again,
            self.clients,
            self.subscriber_lag,
            self.skipped_events,
            self.log_holes,
            self.expiries,
            self.expiry_lateness,
            self.timer_seconds,
            self.timer_tables,
        ]

    # The command service's observer (events.service.CommandObserver).

    def command_done(self, kind: str, outcome: str, seconds: float) -> None:
        """A command finished: count it by type and outcome, and time it."""
        self.commands.inc(type=kind, outcome=outcome)
        self.command_latency.observe(seconds, type=kind)

    def append_done(self, seconds: float) -> None:
        """An append of a decided command took ``seconds``."""
        self.append_latency.observe(seconds)

    def checks_seen(self, cost: CheckCost) -> None:
        """The command service's checks before append, read at scrape time."""
        self.check_seconds.values[()] = cost.seconds
        self.checked_again.values[()] = cost.decided_again

    def skipped_seen(self, count: int) -> None:
        """The command service's count of skipped stored events, read at scrape time."""
        self.stored_skipped.values[()] = count

    def decision_rejected(self, event_type: str) -> None:
        """The check refused a decided batch at an ``event_type``."""
        self.rejected.inc(event=event_type)

    # The timer service's observer (server.live.timers.TimerObserver).

    def expiry_done(self, outcome: str, lateness: float) -> None:
        """An expiry was sent ``lateness`` seconds after its deadline."""
        self.expiries.inc(outcome=outcome)
        self.expiry_lateness.observe(lateness)

    def timers_seen(self, hook: float, loop: float, tables: int) -> None:
        """The timer service's running totals, read at scrape time (kept as plain floats by
        the service, so a command pays no label lookup)."""
        self.timer_seconds.values[(("part", "hook"),)] = hook
        self.timer_seconds.values[(("part", "loop"),)] = loop
        self.timer_tables.set(tables)

    # A projector's observer (events.store.projection.Projector.on_skip).

    def event_skipped(self, skipped: SkippedEvent) -> None:
        """A projector skipped a poison event (this process's count; the record is in the
        database)."""
        self.skipped_events.inc(projector=skipped.projector)

    # The live feed's observer (events.store.subscription.LiveFeed.on_hole).

    def holes_changed(self, holes: list[LogHole]) -> None:
        """The holes known in the log changed."""
        for labels in self.log_holes.values:
            self.log_holes.values[labels] = 0
        for hole in holes:
            self.log_holes.set(1, partition=str(hole.partition))

    # Subscriber lag: each stream client records the last version it was sent of each stream
    # it follows; at scrape time the handler reads those streams' heads and the gauge is the
    # largest difference. A client whose socket is not read stops being sent anything, so its
    # lag grows with every event appended after it stalled.

    def sent(self, client: object, stream_id: str, version: int) -> None:
        """Record the last version of ``stream_id`` sent to ``client``."""
        self._sent.setdefault(client, {})[stream_id] = version

    def gone(self, client: object) -> None:
        self._sent.pop(client, None)

    def followed_streams(self) -> set[str]:
        return {stream for streams in self._sent.values() for stream in streams}

    def update_lag(self, heads: dict[str, int]) -> None:
        """Set the subscriber lag gauge from the streams' head versions."""
        lag = max(
            (
                heads.get(stream, version) - version
                for streams in self._sent.values()
                for stream, version in streams.items()
            ),
            default=0,
        )
        self.subscriber_lag.set(max(lag, 0))

    def render(self) -> str:
        return "\n".join(line for m in self.all for line in m.render()) + "\n"
