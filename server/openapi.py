"""The OpenAPI 3.1 document, generated from the msgspec types the handlers decode and encode
(no hand-kept copy of any schema), and a readable HTML page of it at ``/docs``."""

from __future__ import annotations

import html
from typing import Any

import msgspec
from aiohttp import web

from events import types as e
from server import handlers as h

_SPEC_KEY = web.AppKey("openapi", dict)


class Problem(msgspec.Struct, kw_only=True):
    """An RFC 9457 problem."""

    type: str
    title: str
    status: int
    detail: str
    field: str | None = None


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _body(name: str) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": _ref(name)}}}


def _ok(name: str | None, description: str, status: str = "200") -> dict[str, Any]:
    resp: dict[str, Any] = {"description": description}
    if name:
        resp["content"] = {"application/json": {"schema": _ref(name)}}
    return {status: resp}


_PROBLEMS = {
    str(code): {
        "description": text,
        "content": {"application/problem+json": {"schema": _ref("Problem")}},
    }
    for code, text in (
        (400, "Malformed JSON, wrong types or unknown fields"),
        (401, "No token, or a revoked one"),
        (403, "Not your turn or role"),
        (404, "No such table"),
        (409, "Not allowed now, or a version conflict"),
        (413, "Body too large"),
        (422, "Illegal play (the engine's reason)"),
        (503, "Database unavailable: retry with the same command id"),
    )
}


def build_spec() -> dict[str, Any]:
    types: list[Any] = [
        h.Register,
        h.Login,
        h.GuestRequest,
        h.TokenResponse,
        h.CommandEnvelope,
        h.CreateTableRequest,
        h.CommandResult,
        h.EventMessage,
        Problem,
        e.AnyEvent,
    ]
    (_, *_), components = msgspec.json.schema_components(
        types, ref_template="#/components/schemas/{name}"
    )
    secured: list[dict[str, list[str]]] = [{"bearer": []}]
    param_table = {
        "name": "table_id",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "format": "uuid"},
    }
    paths: dict[str, Any] = {
        "/accounts": {
            "post": {
                "summary": "Register an account",
                "requestBody": _body("Register"),
                "responses": {**_ok("TokenResponse", "Created, with a token", "201"), **_PROBLEMS},
            }
        },
        "/sessions": {
            "post": {
                "summary": "Log in",
                "requestBody": _body("Login"),
                "responses": {**_ok("TokenResponse", "A fresh token"), **_PROBLEMS},
            },
            "delete": {
                "summary": "Log out (revoke this token)",
                "security": secured,
                "responses": {"204": {"description": "Revoked"}, **_PROBLEMS},
            },
        },
        "/guests": {
            "post": {
                "summary": "Play as a guest",
                "responses": {
                    **_ok("TokenResponse", "A guest account and token", "201"),
                    **_PROBLEMS,
                },
            }
        },
        "/me": {
            "get": {
                "summary": "The caller's account",
                "security": secured,
                "responses": {"200": {"description": "The account"}, **_PROBLEMS},
            }
        },
        "/tables": {
            "get": {
                "summary": "The lobby: open and running tables",
                "parameters": [
                    {
                        "name": "kind",
                        "in": "query",
                        "schema": {"enum": ["money", "match", "chouette"]},
                    }
                ],
                "responses": {"200": {"description": "Tables"}, **_PROBLEMS},
            },
            "post": {
                "summary": "Create a table",
                "security": secured,
                "requestBody": _body("CreateTableRequest"),
                "responses": {"201": {"description": "Created"}, **_PROBLEMS},
            },
        },
        "/tables/{table_id}": {
            "get": {
                "summary": "A table's state for the caller: Position ID, Match ID, turn, allowed actions, legal plays, cubes, line, ledger",
                "parameters": [param_table],
                "responses": {"200": {"description": "The state"}, **_PROBLEMS},
            }
        },
        "/tables/{table_id}/commands": {
            "post": {
                "summary": "Send a command (retry-safe by command_id)",
                "security": secured,
                "parameters": [param_table],
                "requestBody": _body("CommandEnvelope"),
                "responses": {
                    **_ok("CommandResult", "Recorded", "201"),
                    **_ok("CommandResult", "A retry: the first outcome"),
                    **_PROBLEMS,
                },
            }
        },
        "/tables/{table_id}/ws": {
            "get": {
                "summary": "WebSocket: EventMessage out (after=N, chat_after=M to resume), CommandEnvelope in",
                "parameters": [
                    param_table,
                    {"name": "after", "in": "query", "schema": {"type": "integer"}},
                    {"name": "chat_after", "in": "query", "schema": {"type": "integer"}},
                ],
                "responses": {"101": {"description": "Switching protocols"}, **_PROBLEMS},
            }
        },
        "/tables/{table_id}/events": {
            "get": {
                "summary": "Server-Sent Events of EventMessage; id '<table>.<chat>' for Last-Event-ID",
                "parameters": [param_table],
                "responses": {"200": {"description": "text/event-stream"}, **_PROBLEMS},
            }
        },
        "/tables/{table_id}/audit": {
            "get": {
                "summary": "Audit the table: hash chain, dense versions, every event re-decided by the rules, every throw against its game's revealed seed (a game in play: pending); the first failure per stream with its version",
                "parameters": [param_table],
                "responses": {
                    "200": {"description": "The audit report (status ok, pending or failed)"},
                    **_PROBLEMS,
                },
            }
        },
        "/tables/{table_id}/replay": {
            "get": {
                "summary": "The table as it stood at a version (the fold up to it): the state with Position ID and Match ID, and the event at that version in words and notation",
                "parameters": [
                    param_table,
                    {"name": "at", "in": "query", "schema": {"type": "integer", "minimum": 1}},
                ],
                "responses": {"200": {"description": "The state at that version"}, **_PROBLEMS},
            }
        },
        "/tables/{table_id}/export.mat": {
            "get": {
                "summary": "The table's games in GNU Backgammon's .mat format (import mat)",
                "parameters": [param_table],
                "responses": {"200": {"description": "text/plain .mat file"}, **_PROBLEMS},
            }
        },
        "/log": {
            "get": {
                "summary": "The global feed by log position (auditors)",
                "security": secured,
                "parameters": [
                    {"name": n, "in": "query", "schema": {"type": "integer"}}
                    for n in ("partition", "after", "limit")
                ],
                "responses": {"200": {"description": "Events"}, **_PROBLEMS},
            }
        },
        "/healthz": {
            "get": {"summary": "Liveness", "responses": {"200": {"description": "Alive"}}}
        },
        "/readyz": {
            "get": {
                "summary": "Readiness (database reachable)",
                "responses": {"200": {"description": "Ready"}, "503": {"description": "Not ready"}},
            }
        },
        "/metrics": {
            "get": {
                "summary": "Prometheus metrics",
                "responses": {"200": {"description": "Text exposition format"}},
            }
        },
        "/openapi.json": {
            "get": {
                "summary": "This OpenAPI document",
                "responses": {"200": {"description": "OpenAPI 3.1, as JSON"}},
            }
        },
        "/docs": {
            "get": {
                "summary": "This document as a readable HTML page",
                "responses": {"200": {"description": "text/html"}},
            }
        },
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "chouette",
            "version": "0.1.0",
            "description": "An event-sourced backgammon server for chouettes, matches and money play.",
            "license": {"name": "AGPL-3.0-or-later", "identifier": "AGPL-3.0-or-later"},
        },
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


def register_extras(app: web.Application) -> None:
    app[_SPEC_KEY] = build_spec()


async def spec(request: web.Request) -> web.Response:
    return h.json_response(request.app[_SPEC_KEY])


async def docs(request: web.Request) -> web.Response:
    """A readable page of the same document, rendered here (no scripts, no CDN)."""
    doc = request.app[_SPEC_KEY]
    parts = [
        "<!doctype html><meta charset=utf-8><title>chouette API</title>",
        "<style>body{font:15px/1.5 system-ui;max-width:60em;margin:2em auto;padding:0 1em}"
        "code,pre{background:#f4f4f4;padding:.1em .3em}h3{margin-bottom:.2em}</style>",
        f"<h1>{html.escape(doc['info']['title'])} API</h1><p>{html.escape(doc['info']['description'])}"
        " The machine-readable document is at <a href=/openapi.json>/openapi.json</a>.</p>",
    ]
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            parts.append(f"<h3><code>{method.upper()} {html.escape(path)}</code></h3>")
            parts.append(f"<p>{html.escape(op.get('summary', ''))}</p>")
            codes = ", ".join(op.get("responses", {}))
            parts.append(f"<p>Responses: {html.escape(codes)}</p>")
    parts.append("<h2>Schemas</h2>")
    for name, schema in doc["components"]["schemas"].items():
        parts.append(f"<h3 id={html.escape(name)}>{html.escape(name)}</h3>")
        parts.append(
            f"<pre>{html.escape(msgspec.json.format(msgspec.json.encode(schema)).decode())}</pre>"
        )
    return web.Response(text="".join(parts), content_type="text/html")
