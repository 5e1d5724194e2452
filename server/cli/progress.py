"""A one-line progress bar for the long runs of the ``chouette`` command (audit, import)."""

from __future__ import annotations

import sys
import time
from typing import IO

__all__ = ["Progress"]


class Progress:
    """A one-line progress bar on a terminal's stderr; silent when stderr is not a terminal
    (a log file or a pipe gets no carriage-return noise).

    >>> import io
    >>> bar = Progress(100, "audit", stream=io.StringIO())
    >>> bar.advance(50); bar.done
    50
    """

    def __init__(
        self, total: int, label: str, *, stream: IO[str] | None = None, unit: str = "events"
    ) -> None:
        self.total = max(total, 0)
        self.label = label
        self.unit = unit
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self._started = time.perf_counter()
        self._drawn = 0.0

    def advance(self, n: int) -> None:
        self.done += n
        now = time.perf_counter()
        if self.enabled and (now - self._drawn >= 0.1 or self.done >= self.total):
            self._drawn = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        width = 30
        frac = min(self.done / self.total, 1.0) if self.total else 1.0
        filled = int(frac * width)
        rate = self.done / max(now - self._started, 1e-9)
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {frac:4.0%} "
            f"{self.done}/{self.total} {self.unit} {rate:,.0f}/s "
        )
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self._draw(time.perf_counter())
            self.stream.write("\n")
            self.stream.flush()
