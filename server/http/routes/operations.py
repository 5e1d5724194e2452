"""Operations (the global log, signed heads, health, readiness, metrics), the API reference
(``/openapi.json``, ``/docs``) and the web page's files. Part of the one route table
(:mod:`server.http.routes`)."""

from __future__ import annotations

from events.store.heads import HeadsDocument
from server.http import handlers as h
from server.http import heads
from server.http import web as page
from server.http.common import (
    BIGINT_MAX,
)
from server.http.handlers import LOG_LIMIT_MAX
from server.http.routes.route import Route
from server.openapi import asyncapi
from server.openapi import docs_page as api_docs
from server.openapi.operation import (
    ABSENT,
    BEARER,
    JSON,
    NOT_MODIFIED,
    OPTIONAL_BEARER,
    UNAVAILABLE,
    answer,
    op,
    param,
    problem,
    text,
    too_many,
)
from server.views.schemas import (
    Health,
    LogFeed,
    NotReady,
    Ready,
    SigningKey,
)

__all__ = ["ROUTES"]

ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/log",
        h.global_feed,
        op(
            "Operations",
            "The global log (auditors)",
            "Events of every stream by their position in one partition of the log, for"
            " auditors and projectors. The token is the server's configured auditor token.",
            {
                200: answer("Events after `after`, at most `limit`", LogFeed),
                400: problem(
                    "`partition`, `after` or `limit` is not an integer in range (`bad-request`)"
                ),
                401: problem("No token, or a malformed `Authorization` header (`unauthorized`)"),
                403: problem("Not the auditor token (`forbidden`)"),
                503: problem(UNAVAILABLE),
            },
            parameters=[
                param(
                    "partition",
                    "query",
                    {"type": "integer", "minimum": 0, "default": 0},
                    "The log partition, 0 to the server's partitions − 1.",
                ),
                param(
                    "after",
                    "query",
                    {"type": "integer", "minimum": 0, "maximum": BIGINT_MAX, "default": 0},
                    "Events after this position.",
                ),
                param(
                    "limit",
                    "query",
                    {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": LOG_LIMIT_MAX,
                        "default": 1000,
                    },
                    "At most this many events.",
                ),
            ],
            security=BEARER,
        ),
    ),
    Route(
        "GET",
        "/log/heads",
        heads.log_heads,
        op(
            "Operations",
            "The signed chain heads",
            "Every log partition's last position with a running hash of its events, signed"
            " with the server's Ed25519 key (kept outside the database; the public key is at"
            " `/.well-known/chouette-signing-key`). Save it: `chouette audit --against` later"
            " shows any rewrite of the log since, however consistent. With `streams=true` and"
            " the auditor token, every stream's version and chain head too (they list every"
            " table id). The running hash and the signed bytes: docs/heads.md.",
            {
                200: answer("The heads, signed", HeadsDocument),
                400: problem("`streams` is not `true` or `false` (`bad-request`)"),
                401: problem(
                    "`streams=true` without a token, or a malformed `Authorization` header"
                    " (`unauthorized`)"
                ),
                403: problem("`streams=true` with a token that is not the auditor's (`forbidden`)"),
                429: too_many(),
                500: problem(
                    "The log has a hole (`corrupt-log`: the detail names each partition and"
                    " its first missing position, as `/readyz` does): the store is corrupt,"
                    " and no heads are signed until it is repaired"
                ),
                503: problem(UNAVAILABLE),
            },
            parameters=[
                param(
                    "streams",
                    "query",
                    {"type": "boolean", "default": False},
                    "Add every stream's head (the auditor token only).",
                )
            ],
            security=OPTIONAL_BEARER,
        ),
    ),
    Route(
        "GET",
        "/.well-known/chouette-signing-key",
        heads.signing_key,
        op(
            "Operations",
            "The heads' public key",
            "The Ed25519 public key that verifies `GET /log/heads` documents, and its"
            " fingerprint (each document names the key that signed it by it).",
            {200: answer("The public key", SigningKey)},
        ),
    ),
    Route(
        "GET",
        "/healthz",
        h.healthz,
        op("Operations", "Liveness", "The process answers.", {200: answer("Alive", Health)}),
    ),
    Route(
        "GET",
        "/readyz",
        h.readyz,
        op(
            "Operations",
            "Readiness",
            "The database answers within two seconds. Events the lobby could not apply"
            " (a stored event whose data its read model cannot hold) are skipped and listed"
            " here, and leave the server ready: every instance reads the same log and goes"
            " on past them. The reasons are in the server's log, never in an answer. A hole"
            " anywhere in the log (a missing position, which cannot arise by design) makes it"
            " not ready (`corrupt`; the detail names each: `log partition P has no event at"
            ' position N`), from start-up on; how soon it is found: docs/store.md, "Holes in'
            ' the log".',
            {200: answer("Ready", Ready), 503: answer("Not ready", NotReady)},
        ),
    ),
    Route(
        "GET",
        "/metrics",
        h.metrics,
        op(
            "Operations",
            "Prometheus metrics",
            "Commands, latencies, connected clients and subscriber lag.",
            {200: text("The Prometheus text exposition format", "text/plain")},
        ),
    ),
    Route(
        "GET",
        "/openapi.json",
        api_docs.spec,
        op(
            "Reference",
            "This document",
            "The OpenAPI 3.1 document, generated from the server's types.",
            {
                200: {
                    "description": "OpenAPI 3.1",
                    "content": {JSON: {"schema": {"type": "object"}}},
                }
            },
        ),
    ),
    Route(
        "GET",
        "/asyncapi.json",
        asyncapi.asyncapi_spec,
        op(
            "Reference",
            "The live protocol",
            "The AsyncAPI 3.0 document of the streams (`/tables/{table_id}/ws` and"
            " `/events`), generated from the server's types: every event type's message, the"
            " throw's `m`, the control messages, the socket's commands, tickets, resume,"
            " ordering and exactly-once.",
            {
                200: {
                    "description": "AsyncAPI 3.0",
                    "content": {JSON: {"schema": {"type": "object"}}},
                }
            },
        ),
    ),
    Route(
        "GET",
        "/docs",
        api_docs.docs,
        op(
            "Reference",
            "The interactive reference",
            "This document in Swagger UI: schemas, examples and *Try it out*. Served with"
            " its assets from this server, so it works offline.",
            {200: text("The page", "text/html")},
        ),
    ),
    Route(
        "GET",
        "/docs/static/{asset}",
        api_docs.docs_asset,
        op(
            "Reference",
            "An asset of the interactive reference",
            "Swagger UI's scripts, styles and icons, from the installed `swagger-ui-py` package.",
            {
                200: {
                    "description": "The asset",
                    "content": {
                        t: {"schema": {"type": "string"}}
                        for t in ("text/javascript", "text/css", "image/png")
                    },
                },
                304: answer(NOT_MODIFIED),
                404: problem(ABSENT),
            },
            parameters=[param("asset", "path", {"type": "string"}, "The file's name.")],
        ),
    ),
    Route(
        "GET",
        "/",
        page.index,
        op(
            "Page",
            "The web client",
            "The page a player opens in a browser: the lobby, the tables and their replays.",
            {200: text("The page", "text/html"), 304: answer(NOT_MODIFIED)},
        ),
    ),
    Route(
        "GET",
        "/static/{path:.+}",
        page.static,
        op(
            "Page",
            "A file of the web client",
            "The page's modules, styles and images.",
            {
                200: {
                    "description": "The file",
                    "content": {"*/*": {"schema": {"type": "string"}}},
                },
                304: answer(NOT_MODIFIED),
                404: problem(ABSENT),
            },
            parameters=[
                param("path", "path", {"type": "string"}, "The file's path under `/static/`.")
            ],
        ),
    ),
)
