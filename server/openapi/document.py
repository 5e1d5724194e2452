"""The API reference: the OpenAPI 3.1 document at ``/openapi.json``, generated from the route
table (:data:`server.http.routes.ROUTES`), and an interactive page of it at ``/docs``.

Every route is in the document, by its path and method, with its ``operationId`` (its handler's
name), its tag, summary and description, its request body, every status it answers with and who
may call it, as the route table says (:class:`server.openapi.operation.Operation`). The schemas
are generated from the msgspec types the route table names: those the handlers decode
(:mod:`server.http.common`, :mod:`events.domain.commands`) and encode
(:mod:`server.views.schemas`, :mod:`events.domain.types`), with
``msgspec.json.schema_components``: no schema is kept by hand. What the types cannot say is
written with the routes: each operation's purpose, the game flow, the statuses it really answers
with, its parameters and examples of its requests (which ``tests/server/operations/test_api_reference.py``
decodes with the request types).

``/docs``, the interactive page of this document, and ``/openapi.json`` itself are served by
:mod:`server.openapi.docs_page`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec
from aiohttp import web

from server.http.problems import PROBLEM_BASE
from server.http.routes import ROUTES, Route
from server.http.wire import EventMessage
from server.openapi import asyncapi, operation
from server.openapi import docs_page as api_docs
from server.openapi.operation import BEARER, OPTIONAL_BEARER, STREAM_TICKET, Ref
from server.views import schemas as s
from server.views.throw import ThrowView

__all__ = [
    "BEARER",
    "BODIES",
    "NAMED",
    "OPTIONAL_BEARER",
    "STREAMED",
    "STREAM_TICKET",
    "build_spec",
    "register_extras",
]

# -- the schemas ------------------------------------------------------------------------------

NAMED: dict[str, Any] = {ref.name: ref.type for ref in operation.NAMED}
"""Types the document names that are not structs: msgspec names a struct after its class but
writes a union out where it is used. Each becomes ``#/components/schemas/<name>``."""

STREAMED: list[Any] = [
    EventMessage,
    ThrowView,
    s.Resync,
    s.Presence,
    s.CommandReply,
    s.CommandRefused,
]
"""What the streams send and a socket's command is answered with (:mod:`server.http.wire`): no
route's body (a stream is a ``101`` or ``text/event-stream``), so named here."""


def _resolve(value: Any, found: dict[str, Any]) -> Any:
    """``value`` with each :class:`Ref` written as its ``$ref`` (and its type kept in ``found``
    under its name); the route table's objects are copied, never changed."""
    if isinstance(value, Ref):
        if found.setdefault(value.name, value.type) is not value.type:
            raise ValueError(f"two types are named {value.name!r} in the route table")
        return {"$ref": s.COMPONENT.format(name=value.name)}
    if isinstance(value, dict):
        return {k: _resolve(v, found) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, found) for v in value]
    return value


def _paths(routes: Iterable[Route], found: dict[str, Any]) -> dict[str, Any]:
    """Every route's operation, by its path and method (in the table's order)."""
    paths: dict[str, Any] = {}
    ids: set[str] = set()
    for route in routes:
        operations = paths.setdefault(route.template, {})
        method = route.method.lower()
        if method in operations or route.operation_id in ids:
            raise ValueError(f"{route.method} {route.path}: listed twice in the route table")
        ids.add(route.operation_id)
        operations[method] = _resolve(route.operation.document(route.operation_id), found)
    return paths


def _bodies(found: dict[str, Any]) -> list[Any]:
    """The structs of ``found`` (the types the routes name) and the stream messages."""
    structs = [t for name, t in found.items() if name not in NAMED]
    return [*structs, *(t for t in STREAMED if t not in structs)]


def _named(routes: Iterable[Route]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    _paths(routes, found)
    return found


BODIES: list[Any] = _bodies(_named(ROUTES))
"""Every request and response body of the routes (and the stream messages), by the type that
decodes or encodes it; each is a component named after its class."""


def _components(types: dict[str, Any]) -> dict[str, Any]:
    bodies = _bodies(types)
    generated, components = msgspec.json.schema_components(
        [*bodies, *NAMED.values()], ref_template=s.COMPONENT
    )
    for name, schema in zip(NAMED, generated[len(bodies) :], strict=True):
        if schema.get("$ref") != s.COMPONENT.format(name=name):
            components[name] = schema
    # As JSON has them: a default written as a tuple (a play tree's ``((),)``) is an array.
    return msgspec.json.decode(msgspec.json.encode(dict(sorted(components.items()))))


# -- the document -----------------------------------------------------------------------------

OVERVIEW = f"""An event-sourced backgammon server for chouettes, matches and money play.

**Getting in.** `POST /guests`, `POST /accounts` or `POST /sessions` answers with a `token`: send \
it as `Authorization: Bearer <token>` (the *Authorize* button, for *Try it out*), never in a URL. \
A token expires (an account's after 30 days, a guest's after 7, by default); `DELETE /sessions` \
revokes it, `DELETE /sessions?everywhere=true` every token of the account. A browser's WebSocket \
or EventSource cannot send the header: it asks `POST /tickets` for a ticket, good for one \
connection within seconds, and passes it as `?ticket=`.

**Fair use.** Requests are rate-limited per address and per account, with caps on open tables \
and open connections; over a limit the answer is `429` with `Retry-After` (seconds).

**Account ids.** Every `player`, `member`, `cube`, `cubes`, `to`, `owner`, `by`, `to_answer`, \
`winner` and `created_by` field holds **account ids** (the `account_id` of those answers), never a \
seat number or a display name. Display names are in the table view's `players`.

**A money game or a match.** Create the table (`POST /tables`); each player sends `join` \
(optionally with `seat` 0 or 1). The first game starts by itself when the second player sits \
down, and each next game when the previous one ends (`start_game` starts one when both seats are \
taken and no game is in play). Either seated player then sends `roll` for the **opening throw**: \
the server throws one die for each (again on a tie), and the higher die moves first, playing both \
dice. From then on the player on roll sends `double` or `roll`, then `move`; the opponent answers \
a double with `take`, `drop` or `beaver`.

**A chouette.** Create it with kind `chouette`; players `join` the line. Once two or more have \
joined, any of them sends `start_game`: the server throws for the line (the highest die is the \
box, the next the captain, then the others) and the first game starts. The **box or the captain** \
sends `roll` for the opening throw; the captain (or the acting captain, once the captain's own \
game is over) plays the team's checkers. After each game the line rotates and the next game \
starts by itself while two or more players remain. With multiple cubes, the box names the cubes \
it doubles in `cubes` (member account ids; empty: every cube it may turn) and a member doubles \
their own cube with a plain `double`; the box answering a member's double or resignation names \
that member in `cube`, and offering a resignation names members in `to`; a member answering \
names nobody (the answer is for their own cube).

**What may I do now?** `GET /tables/{{table_id}}` is the table as the caller sees it: whose turn \
it is, `allowed` (the commands the caller may send now), the legal plays after a roll, the cubes, \
the line and the ledger. A client needs no rules of its own.

**Commands are retry-safe.** Each carries a `command_id` (a UUID the client makes): sending the \
same envelope again answers with the first outcome (200, `duplicate: true`) and records nothing \
new. After a 503, retry with the same `command_id`.

**Following a table.** `GET /tables/{{table_id}}/ws` (WebSocket) or `/events` (Server-Sent \
Events) stream every event as an `EventMessage` (a throw's with the legal plays, `m`); \
refetch the table view after other table events.

**Errors** are RFC 9457 problems (`Problem`, `application/problem+json`): show `detail`. Their \
`type` is `{PROBLEM_BASE}<slug>`; each response below names its slugs.

The rules are in `docs/rules.md`, the design in `docs/design.md`."""


def build_spec(routes: Iterable[Route] = ROUTES) -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``routes`` (the app's: every route, every status it answers)."""
    types: dict[str, Any] = {}
    paths = _paths(routes, types)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "chouette",
            "version": "0.1.0",
            "description": OVERVIEW,
            "license": {"name": "AGPL-3.0-or-later", "identifier": "AGPL-3.0-or-later"},
        },
        "tags": [
            {"name": "Accounts", "description": "Tokens: register, log in, play as a guest."},
            {"name": "Tables", "description": "The lobby, creating tables, playing."},
            {"name": "Streams", "description": "A table's events, live."},
            {"name": "Record", "description": "A table's history: replay, audit, export."},
            {"name": "Operations", "description": "Health, metrics, the global log."},
            {"name": "Reference", "description": "This document."},
            {"name": "Page", "description": "The web client, for a browser."},
            {"name": "Social", "description": "Profiles, ratings, leaderboards, invitations."},
            {"name": "Tournaments", "description": "Knockouts, Swiss tournaments, round robins."},
        ],
        "paths": paths,
        "components": {
            "schemas": _components(types),
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A token from `POST /accounts`, `POST /sessions` or `POST /guests` (for `GET /log`: the auditor token).",
                },
                "ticket": {
                    "type": "apiKey",
                    "in": "query",
                    "name": "ticket",
                    "description": "A single-use ticket from `POST /tickets`, for a browser's WebSocket or EventSource (which cannot send headers). A token is never accepted in a URL.",
                },
            },
        },
    }


def register_extras(app: web.Application) -> None:
    """Build the documents and the page once (they depend on the code only): the OpenAPI
    document and its page, and the AsyncAPI document (:mod:`server.openapi.asyncapi`)."""
    api_docs.register(app, msgspec.json.encode(build_spec()))
    asyncapi.register(app)
