"""The store's errors, and the one place where driver errors become them.

Every call into asyncpg in ``events/`` runs inside :func:`translate_errors`, so callers (the
server's error middleware, projectors, the CLI) only ever see :class:`StoreError` and its
subclasses, with the driver's exception kept as ``__cause__``.

SQLSTATE class ``CH`` is ours; the server-side functions in ``sql/`` raise it:

========  =============================================================
``CH001`` the stream is not at the expected version
``CH002`` the command id was already used for another stream
``CH003`` the stream's head hash does not match its last event
``CH004`` UPDATE, DELETE or TRUNCATE on an append-only table
``CH005`` malformed arguments to ``append_events``/``append_batch``
========  =============================================================
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import asyncpg

__all__ = [
    "AppendOnlyError",
    "ChainBrokenError",
    "CommandReusedError",
    "ConcurrencyError",
    "CorruptEventError",
    "LogHoleError",
    "PoisonEventError",
    "StoreError",
    "StoreUnavailableError",
    "append_error",
    "describe_hole",
    "translate",
    "translate_errors",
]


class StoreError(Exception):
    """Base class of every error the event store raises."""


class ConcurrencyError(StoreError):
    """The stream was not at the version the append expected: somebody else appended first."""

    def __init__(self, stream_id: str, expected: int | None, actual: int) -> None:
        super().__init__(
            f"stream {stream_id!r} is at version {actual}, not the expected {expected}"
        )
        self.stream_id = stream_id
        """The stream appended to."""
        self.expected = expected
        """The version the append expected (``None`` for "any", which never conflicts)."""
        self.actual = actual
        """The stream's version when the append was checked."""


class CommandReusedError(StoreError):
    """A command id that was already recorded for another stream."""

    def __init__(self, command_id: uuid.UUID, stream_id: str) -> None:
        super().__init__(f"command {command_id} was already used for stream {stream_id!r}")
        self.command_id = command_id
        self.stream_id = stream_id
        """The stream the command id was first recorded for."""


class StoreUnavailableError(StoreError):
    """The database cannot be reached: connection refused or lost, or the server shutting down.

    The outcome of an append that fails this way is unknown; retry it with the same command id.
    """


class CorruptEventError(StoreError):
    """A stored event whose payload cannot be decoded."""

    def __init__(self, stream_id: str, version: int, reason: str) -> None:
        super().__init__(f"event {stream_id!r} version {version} is corrupt: {reason}")
        self.stream_id = stream_id
        self.version = version
        self.reason = reason


def describe_hole(partition: int, position: int, next_position: int = 0) -> str:
    """How a hole in the log is named everywhere (``/readyz``, ``/log/heads``, the server's
    log, the projectors): the partition, its first missing position, and what is stored past it
    (``next_position``; 0: nothing, the partition's head is past its last event).

    >>> describe_hole(0, 4, 5)
    'log partition 0 has no event at position 4 (the next stored is 5)'
    """
    after = (
        f"the next stored is {next_position}"
        if next_position
        else "the partition's head is past its last event"
    )
    return f"log partition {partition} has no event at position {position} ({after})"


class LogHoleError(StoreError):
    """A log partition has no event at a position up to its head: the store is corrupt (an
    event deleted, or a head moved on, by someone who switched the append-only triggers off),
    and whatever needs the log whole up to there (the running hashes of the chain heads, a
    projector) cannot go on. Retrying does not help; ``chouette audit --all`` names the cause.
    """

    def __init__(self, partition: int, position: int, next_position: int = 0, who: str = ""):
        text = describe_hole(partition, position, next_position)
        super().__init__(f"{who}: {text}" if who else text)
        self.partition = partition
        self.position = position
        """The first missing position."""
        self.next_position = next_position
        """The next stored position after it (0: none)."""


class PoisonEventError(Exception):
    """An event a projector cannot apply to its read model, whatever it retries: raised by a
    projector's ``handle`` for an event its rules refuse. :class:`events.store.projection.Projector`
    records such an event as skipped and moves on, instead of halting on it for good.

    Not a :class:`StoreError`: the store is fine, the event is stored for good, and it is
    one read model that cannot take it.
    """

    def __init__(self, stream_id: str, version: int, reason: str) -> None:
        super().__init__(f"event {stream_id!r} version {version} cannot be projected: {reason}")
        self.stream_id = stream_id
        self.version = version
        self.reason = reason


class ChainBrokenError(StoreError):
    """A stream's stored hash chain does not hold: its events were changed after the fact."""

    def __init__(self, stream_id: str, version: int, reason: str) -> None:
        super().__init__(f"stream {stream_id!r} hash chain broken at version {version}: {reason}")
        self.stream_id = stream_id
        self.version = version
        self.reason = reason


class AppendOnlyError(StoreError):
    """An attempt to UPDATE, DELETE or TRUNCATE stored events or commands."""


def _detail(exc: asyncpg.PostgresError) -> dict[str, object]:
    text = getattr(exc, "detail", None)
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _is_unavailable(exc: BaseException) -> bool:
    if isinstance(exc, asyncpg.PostgresError):
        state = exc.sqlstate or ""
        # 08: connection exceptions; 57P: admin/crash shutdown, cannot connect now;
        # 53300: too many connections.
        return state.startswith(("08", "57P")) or state == "53300"
    if isinstance(exc, asyncpg.InterfaceError):
        # asyncpg reports use of a connection that has gone away as an InterfaceError.
        return "closed" in str(exc)
    if isinstance(exc, asyncpg.InternalClientError):
        # The driver lost track of the protocol's state, as it does when the server ends a
        # connection between two queries ("cannot switch to state ..."): that connection is done.
        return True
    # Connection refused, reset, DNS failure, connect timeout.
    return isinstance(exc, OSError)


def translate(exc: BaseException) -> BaseException:
    """The store error for a driver error, or ``exc`` itself when it is not one."""
    if isinstance(exc, StoreError):
        return exc
    if _is_unavailable(exc):
        return StoreUnavailableError(f"database unavailable: {exc}")
    if not isinstance(exc, asyncpg.PostgresError | asyncpg.InterfaceError):
        return exc
    if isinstance(exc, asyncpg.InterfaceError):
        return StoreError(str(exc))
    state = exc.sqlstate
    detail = _detail(exc)
    if state == "CH001":
        expected = detail.get("expected")
        return ConcurrencyError(
            str(detail.get("stream_id")),
            expected if isinstance(expected, int) else None,
            int(str(detail.get("actual", -1))),
        )
    if state == "CH002":
        return CommandReusedError(
            uuid.UUID(str(detail.get("command_id"))), str(detail.get("stream_id"))
        )
    if state == "CH003":
        return ChainBrokenError(
            str(detail.get("stream_id")),
            int(str(detail.get("version", -1))),
            "the stream's head hash does not match its last event",
        )
    if state == "CH004":
        return AppendOnlyError(str(exc))
    return StoreError(f"{type(exc).__name__} ({state}): {exc}")


@contextmanager
def translate_errors() -> Iterator[None]:
    """Turn driver errors raised inside the block into store errors (``raise ... from``)."""
    try:
        yield
    except (
        asyncpg.PostgresError,
        asyncpg.InterfaceError,
        asyncpg.InternalClientError,
        OSError,
    ) as e:
        translated = translate(e)
        if translated is e:
            raise
        raise translated from e


def append_error(
    status: str,
    *,
    stream_id: str,
    expected: int | None,
    command_id: uuid.UUID,
    recorded_stream_id: str,
    version: int | None,
) -> StoreError:
    """The error for a failed item of ``append_batch`` (which reports statuses, not SQLSTATEs)."""
    if status == "conflict":
        return ConcurrencyError(stream_id, expected, -1 if version is None else version)
    if status == "command_reused":
        return CommandReusedError(command_id, recorded_stream_id)
    if status == "chain_broken":
        return ChainBrokenError(
            stream_id,
            -1 if version is None else version,
            "the stream's head hash does not match its last event",
        )
    return StoreError(f"append to stream {stream_id!r} failed: {status}")
