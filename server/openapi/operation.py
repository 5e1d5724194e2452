"""The pieces the route table (:mod:`server.http.routes`) describes its operations with, for the
OpenAPI document (:mod:`server.openapi.document`): responses, problems, request bodies and
parameters, whose schemas name the msgspec types that encode or decode them (:class:`Ref`), and
the phrases many operations share.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from events.domain import commands as c
from events.domain import types as e
from server.http.common import BIGINT_MAX
from server.openapi import examples as x
from server.views import schemas as s

JSON = "application/json"
PROBLEM = "application/problem+json"


@dataclass(frozen=True)
class Ref:
    """A schema by its component's name: the type it is generated from (a struct, named after its
    class, or a union :data:`NAMED` names). :mod:`server.openapi.document` writes it as
    ``{"$ref": "#/components/schemas/<name>"}`` and generates the component from ``type``."""

    name: str
    type: Any


TABLE_VIEW = Ref("TableView", s.TableView)
"""The table view (a union over the kinds of table)."""
EVENT = Ref("Event", e.AnyEvent)
"""Any event (a union)."""
COMMAND = Ref("Command", c.AnyCommand)
"""Any command (a union)."""
NAMED = (TABLE_VIEW, EVENT, COMMAND)
"""The unions the document names (msgspec writes a union out where it is used, and names a
struct after its class): each becomes ``#/components/schemas/<name>``."""


def ref(schema: Any) -> Ref:
    """The schema of ``schema``: a :class:`Ref` as it is, or a struct type by its class's name."""
    return schema if isinstance(schema, Ref) else Ref(schema.__name__, schema)


def json_body(schema: Any, examples: dict[str, Any] | None = None) -> dict[str, Any]:
    media: dict[str, Any] = {"schema": ref(schema)}
    if examples:
        media["examples"] = examples
    return {"content": {JSON: media}}


def answer(description: str, schema: Any = None) -> dict[str, Any]:
    """A response: its description, and its JSON body's type (none: no body)."""
    if schema is None:
        return {"description": description}
    return {"description": description, **json_body(schema)}


def text(description: str, media_type: str, **headers: str) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "description": description,
        "content": {media_type: {"schema": {"type": "string"}}},
    }
    if headers:
        answer["headers"] = {
            k: {"description": v, "schema": {"type": "string"}} for k, v in headers.items()
        }
    return answer


def problem(description: str) -> dict[str, Any]:
    return {"description": description, "content": {PROBLEM: {"schema": ref(s.Problem)}}}


def too_many() -> dict[str, Any]:
    """The ``429`` answer of a rate-limited operation (:mod:`server.access.ratelimit`)."""
    return {
        **problem(TOO_MANY),
        "headers": {
            "Retry-After": {
                "description": "Seconds to wait before trying again.",
                "schema": {"type": "integer", "minimum": 1},
            }
        },
    }


def slugs(*slugs: str) -> str:
    return ", ".join(f"`{slug}`" for slug in slugs)


BAD_BODY = f"The body is not JSON, not `application/json`, or does not fit the schema ({slugs('malformed-json', 'invalid-field', 'bad-request')}; `field` names the input at fault)"
BAD_TOKEN = "The `Authorization` header is not `Bearer <token>`, the token is unknown, expired or revoked, or a token was sent in the URL (`unauthorized`)"
NO_TOKEN = "No token, a malformed `Authorization` header, an unknown, expired or revoked token, or a token in the URL (`unauthorized`)"
BAD_TICKET = "The ticket is unknown, used or expired (ask `POST /tickets` for another), the `Authorization` header is not `Bearer <token>` or its token is unknown, expired or revoked, or a token was sent in the URL (`unauthorized`)"
TOO_MANY = "Over a rate limit or a cap (`rate-limited`): wait the `Retry-After` seconds"
NO_TABLE = "No table has this id (`not-found`)"
TOO_LARGE = "The body is larger than the server's limit (`too-large`)"
UNAVAILABLE = f"The database is unavailable ({slugs('unavailable', 'store-error')}); retry later (commands: with the same `command_id`)"
ABSENT = "No such file (`not-found`)"
NOT_MODIFIED = "Unchanged since the `ETag` or `Last-Modified` the client sent"


@dataclass(frozen=True)
class Operation:
    """What the document says of one route: its tag, summary and description (the prose), the
    statuses it answers with (each a response object whose schemas are :class:`Ref`s to the
    types that encode them; a problem's is :class:`~server.views.schemas.Problem`), its request
    body (a :class:`Ref` to the type that decodes it, with examples), its parameters and who may
    call it (``security``: ``None`` is anyone)."""

    tag: str
    summary: str
    description: str
    responses: dict[int, dict[str, Any]]
    body: dict[str, Any] | None = None
    parameters: list[dict[str, Any]] = field(default_factory=list)
    security: list[dict[str, list[str]]] | None = None

    @property
    def problem_statuses(self) -> list[int]:
        """The statuses it answers with a problem (``application/problem+json``)."""
        return sorted(k for k, v in self.responses.items() if PROBLEM in v.get("content", {}))

    def document(self, operation_id: str) -> dict[str, Any]:
        """The OpenAPI operation object (its schemas still :class:`Ref`s)."""
        doc: dict[str, Any] = {
            "tags": [self.tag],
            "summary": self.summary,
            "description": self.description,
            "operationId": operation_id,
        }
        if self.parameters:
            doc["parameters"] = self.parameters
        if self.body is not None:
            doc["requestBody"] = {"required": True, **self.body}
        if self.security is not None:
            doc["security"] = self.security
        doc["responses"] = {str(k): v for k, v in sorted(self.responses.items())}
        return doc


def op(
    tag: str,
    summary: str,
    description: str,
    responses: dict[int, dict[str, Any]],
    *,
    body: dict[str, Any] | None = None,
    parameters: list[dict[str, Any]] | None = None,
    security: list[dict[str, list[str]]] | None = None,
) -> Operation:
    """An :class:`Operation` (the arguments in the order the route table writes them)."""
    return Operation(tag, summary, description, responses, body, parameters or [], security)


BEARER: list[dict[str, list[str]]] = [{"bearer": []}]
"""A token is required."""
OPTIONAL_BEARER: list[dict[str, list[str]]] = [{"bearer": []}, {}]
"""A token is optional: without one the caller is an anonymous spectator."""
STREAM_TICKET: list[dict[str, list[str]]] = [{"bearer": []}, {"ticket": []}, {}]
"""Streams: a browser's WebSocket and EventSource cannot set headers, so a ticket
(``POST /tickets``) in the URL instead; never the token itself."""


def param(
    name: str, where: str, schema: dict[str, Any], description: str, *, required: bool = False
) -> dict[str, Any]:
    return {
        "name": name,
        "in": where,
        "required": required or where == "path",
        "description": description,
        "schema": schema,
    }


TABLE = {
    **param("table_id", "path", {"type": "string", "format": "uuid"}, "The table id (a UUID)."),
    "example": x.TABLE_ID,
}


def resume_params(note: str) -> list[dict[str, Any]]:
    """The streams' ``after`` and ``chat_after``: the versions to resume after."""
    version = {"type": "integer", "minimum": 0, "maximum": BIGINT_MAX, "default": 0}
    return [
        param("after", "query", version, f"Resume after this table version{note}."),
        param("chat_after", "query", version, f"Resume after this chat version{note}."),
    ]


VIEWS = param(
    "views",
    "query",
    {"type": "integer", "minimum": 0, "maximum": 1, "default": 0},
    "1: a move's message carries `m`, a `MoveView` (every viewer's table view after it), while"
    " this socket is open: for a client that shows the view, as the web page does.",
)


TICKET = param(
    "ticket",
    "query",
    {"type": "string"},
    "A ticket from `POST /tickets`: the connection acts as its account (used up by this"
    " connection). Without a ticket or the header, the caller is an anonymous spectator.",
)


STREAM_MESSAGES = """Each message is an `EventMessage` `{"v": version, "s": "table" | "chat", \
"t": type, "d": event, "h": chain hash}`; each stream's versions are gap-free, and `h` is the \
event's stored chain hash (its stream's chain head at `v`: keep it, see `GET /log/heads`). A \
team-channel chat message the viewer may not read (the box, spectators) comes as `{"v", "s"}` \
only, so versions never skip. \
A throw (`opening_throw`, `dice_rolled`) also carries `m`, a `ThrowView`: who moves, the dice and \
the legal plays as a tree of single-die steps (`play_tree`, as in the table view: each path from \
node 0 to a step whose `next` is 0 is a route of a legal play), or `play_tree: [[]]` when the \
thrower cannot move (the turn has passed; `passed` is then true and `status` says so): the player to move never needs to fetch the table view to play. It also \
says what the throw leaves each viewer (`viewers`, by account id, for everyone at the table and \
its creator; `spectator` for anyone else signed in; `anonymous`): each an `AfterThrow`, the \
`allowed`, `targets` and `turn` the viewer's table view shows after the throw, so a client \
follows a throw without rules of its own. \
On a WebSocket opened with `views=1` (the web page's), a move (`checkers_moved`) after which \
the game goes on carries `m` too, a `MoveView`: the table view's `game` after it as a spectator \
sees it, the clocks, a chouette's `text`, and for each viewer (`viewers`, `spectator`, \
`anonymous`) an `AfterMove`: their `allowed`, `targets`, `turn`, `leave_cost`, and `flip` when \
their `sides` are the other way round; the message is the table's, so every socket of the table \
gets it while such a socket is open. \
Resume with `after` (the last table version seen) and `chat_after` (the last chat version). A \
position that cannot be resumed from (ahead of the stream, or older than the resync window) gets \
a `Resync` message instead: fetch `GET /tables/{table_id}` and reconnect from its version. One \
that is no version at all (negative, or past 2^63 − 1) is a 400. \
Who is connected to the table comes as a `Presence` message (`ctl: presence`; on SSE the \
`presence` event) whenever it changes: ephemeral, not an event, with no version."""

# -- the social routes' phrases and parameters -------------------------------------------------

PRIVATE_NO_TABLE = (
    "No table has this id, or it is private and the caller may not see it: the same answer"
    " (`not-found`)"
)
SOCIAL_UNAVAILABLE = "The database is unavailable (`unavailable`, `store-error`); retry later"
DAY = {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}
SOCIAL_CREATOR = "Private tables' creator only."
SOCIAL_TABLE = param("table_id", "path", {"type": "string", "format": "uuid"}, "The table id.")
"""The social routes' table id (without :data:`TABLE`'s example)."""
PAGE_PARAMS = [
    param(
        "limit",
        "query",
        {"type": "integer", "minimum": 1, "maximum": 100, "default": 50},
        "Rows to answer.",
    ),
    param(
        "offset",
        "query",
        {"type": "integer", "minimum": 0, "maximum": 100000, "default": 0},
        "Rows to pass over first.",
    ),
]
"""A leaderboard's page."""
