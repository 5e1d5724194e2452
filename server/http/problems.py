"""RFC 9457 problem responses, and the one middleware that maps every error to one.

Handlers raise; they never build error responses themselves. The middleware maps engine errors
(rules), the table's domain errors (:mod:`events.domain.table`: no such table, a reused command
id...),
store errors (conflicts, outages), decoding errors (bad input) and :class:`Problem` to a
JSON problem with ``type``, ``title``, ``status``, ``detail`` and, where known, the ``field`` at
fault. Bad input is never a 500, and since a command is appended only after it was decided, no
error path has written anything.

No answer carries the database driver's text or SQL: a store error is a 503 saying "database
unavailable", and the detail goes to the server's log with the request's method, path and table.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable

import msgspec
from aiohttp import web

from engine.errors import (
    EngineError,
    GameOverError,
    IllegalPlayError,
    InvalidPlayError,
    NotYourTurnError,
)
from events.domain.rules_check import DecisionRejectedError
from events.domain.table import (
    ChatNotAllowedError,
    CommandError,
    CommandIdReusedError,
    InvalidCommandError,
    NotAllowedError,
    TableExistsError,
    TableNotFoundError,
)
from events.domain.tournament import TournamentNotFoundError
from events.domain.types import NAME_PATTERN, TEXT_PATTERN
from events.store.errors import (
    CommandReusedError,
    ConcurrencyError,
    CorruptEventError,
    LogHoleError,
    StoreError,
    StoreUnavailableError,
)
from server.keys import CONFIG

log = logging.getLogger("chouette.server")

PROBLEM_BASE = "https://chouette.invalid/problems/"
"""Problem ``type`` URIs are stable identifiers under this base (documented in OpenAPI)."""


class Problem(Exception):
    """An error the server reports as a problem response."""

    def __init__(
        self,
        status: int,
        slug: str,
        title: str,
        detail: str = "",
        *,
        field: str | None = None,
        headers: dict[str, str] | None = None,
        **extra: object,
    ) -> None:
        super().__init__(detail or title)
        self.status = status
        self.slug = slug
        self.title = title
        self.detail = detail or title
        self.field = field
        self.headers = headers or {}
        self.extra = extra

    def body(self) -> dict[str, object]:
        doc: dict[str, object] = {
            "type": PROBLEM_BASE + self.slug,
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
        }
        if self.field:
            doc["field"] = self.field
        doc.update(self.extra)
        return doc


def bad_request(detail: str, field: str | None = None) -> Problem:
    return Problem(400, "bad-request", "Bad request", detail, field=field)


def not_found(detail: str) -> Problem:
    return Problem(404, "not-found", "Not found", detail)


def unauthorized(detail: str = "a bearer token is required") -> Problem:
    return Problem(
        401, "unauthorized", "Unauthorized", detail, headers={"WWW-Authenticate": "Bearer"}
    )


def forbidden(detail: str) -> Problem:
    return Problem(403, "forbidden", "Forbidden", detail)


def corrupt_log(holes: str) -> Problem:
    """The ``500`` of a request that needs the log whole where it has a hole: ``holes`` names
    each (:func:`events.store.errors.describe_hole`). Not a ``503``: retrying does not help, the
    store is corrupt until an operator repairs it."""
    return Problem(
        500,
        "corrupt-log",
        "Corrupt log",
        f"{holes}: the log is corrupt (a hole cannot arise by design), and this needs it whole",
    )


_FIELD = re.compile(r"at `\$\.?([^`]*)`")
_UNKNOWN = re.compile(r"unknown field `([^`]*)`")
_MISSING = re.compile(r"missing required field `([^`]*)`")
_CONTROL = {
    f"matching regex {NAME_PATTERN!r}": "may not hold control characters (NUL, tab, newline...)",
    f"matching regex {TEXT_PATTERN!r}": (
        "may not hold control characters (NUL...) other than tab and newline"
    ),
}
"""msgspec's words for a string that fails the patterns of events.domain.types, and ours."""

UNAVAILABLE = "database unavailable"
"""What a 503 says about the database, whatever the driver said (that goes to the log)."""


def from_decode_error(exc: msgspec.DecodeError) -> Problem:
    """A msgspec validation or syntax error as a 400, naming the field at fault."""
    text = str(exc)
    m = _FIELD.search(text)
    field = m.group(1) if m else None
    # An unknown or a missing field is named in the message, not in the path: `field` names it.
    named = _UNKNOWN.search(text) or _MISSING.search(text)
    if named:
        field = f"{field}.{named.group(1)}" if field else named.group(1)
    if isinstance(exc, msgspec.ValidationError):
        for words, ours in _CONTROL.items():
            if words in text:
                text = f"`{field}` {ours}" if field else f"a string {ours}"
        return Problem(400, "invalid-field", "Invalid request", text, field=field or None)
    return Problem(400, "malformed-json", "Malformed JSON", f"the body is not valid JSON: {text}")


def to_problem(exc: BaseException) -> Problem | None:
    """The problem for a known error, or None for a bug (which becomes a logged 500).

    The most precise class comes first: the table's own errors are command errors, and command
    errors are engine errors.
    """
    match exc:
        case Problem():
            return exc
        case msgspec.DecodeError():
            return from_decode_error(exc)
        case TableNotFoundError() | TournamentNotFoundError():
            return not_found(str(exc))
        case TableExistsError():
            return Problem(409, "exists", "Table exists", str(exc))
        case CommandIdReusedError() | CommandReusedError():
            return Problem(
                409, "command-id-reused", "Command id reused", str(exc), field="command_id"
            )
        case ChatNotAllowedError():
            return forbidden(str(exc))
        case InvalidCommandError():
            return Problem(400, "invalid-command", "Invalid command", str(exc))
        case NotAllowedError():
            return Problem(403, "not-your-role", "Not allowed", str(exc))
        case NotYourTurnError():
            return Problem(403, "not-your-turn", "Not your turn", str(exc))
        case IllegalPlayError():
            return Problem(422, "illegal-play", "Illegal play", str(exc))
        case InvalidPlayError():
            return Problem(400, "invalid-play", "Malformed play", str(exc), field="notation")
        case GameOverError():
            return Problem(409, "game-over", "Game over", str(exc))
        case CommandError() | EngineError():
            return Problem(409, "not-now", "Not allowed now", str(exc))
        case ConcurrencyError():
            return Problem(409, "version-conflict", "Version conflict", str(exc))
        case StoreUnavailableError():
            return Problem(
                503,
                "unavailable",
                "Service unavailable",
                f"{UNAVAILABLE}; retry with the same command id",
                headers={"Retry-After": "1"},
            )
        case DecisionRejectedError():
            # A bug in the server's decision, caught before its append: the client is told
            # the table and the event type, the rule at fault goes to the log.
            return Problem(
                500,
                "decision-rejected",
                "Decision rejected",
                f"the server's decision at table {exc.table_id} gave a {exc.event_type} event"
                " that the rules do not accept; nothing was written and the table is as it was",
                table=exc.table_id,
                event=exc.event_type,
            )
        case CorruptEventError():
            return Problem(500, "corrupt-event", "Corrupt event", str(exc))
        case LogHoleError():
            return corrupt_log(str(exc))
        case StoreError():
            # The driver's words (SQL, SQLSTATE, values) stay in the log.
            return Problem(503, "store-error", "Store error", f"{UNAVAILABLE}; retry later")
    return None


def log_failure(request: web.Request, exc: BaseException, **ids: object) -> None:
    """Log a request's 5xx with its detail (the driver's text included, which no answer
    carries) and the request's ids."""
    table_id = request.match_info.get("table_id")
    log.warning(
        "%s %s failed: %r",
        request.method,
        request.path,
        exc,
        extra={"path": request.path, "table_id": table_id, **ids},
    )


def problem_response(problem: Problem) -> web.Response:
    return web.Response(
        body=msgspec.json.encode(problem.body()),
        status=problem.status,
        content_type="application/problem+json",
        headers=problem.headers,
    )


_HTTP_SLUGS = {
    404: ("not-found", "Not found"),
    405: ("method-not-allowed", "Method not allowed"),
    413: ("too-large", "Request body too large"),
}


@web.middleware
async def error_middleware(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Every error becomes a problem response; a bug becomes a logged 500 with no details."""
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        slug, title = _HTTP_SLUGS.get(exc.status, ("http-error", exc.reason))
        detail = exc.text or exc.reason
        if exc.status == 413:
            detail = (
                f"the request body is larger than the limit of {request.app[CONFIG].max_body} bytes"
            )
        return problem_response(Problem(exc.status, slug, title, detail or title))
    except Exception as exc:
        problem = to_problem(exc)
        if problem is None:
            log.exception("unhandled error", extra={"path": request.path})
            problem = Problem(500, "internal", "Internal error", "an unexpected error occurred")
        elif problem.status >= 500:
            log_failure(request, exc)
        return problem_response(problem)
