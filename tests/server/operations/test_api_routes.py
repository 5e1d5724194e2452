"""The route table (server/http/routes/) is the app's routes, all of them and nothing else, and
the OpenAPI document is generated from it: a route added to the table is in the document, its
body and answers' schemas generated from its msgspec types (issue 28)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import msgspec
from aiohttp import web
from openapi_spec_validator import validate

from server.http.routes import ROUTES, Route, add_routes
from server.openapi import document as openapi
from server.openapi.operation import BEARER, NO_TOKEN, answer, json_body, op, param, problem
from tests.server.conftest import Api

ROOT = Path(__file__).resolve().parents[3]


def _routed(app: web.Application) -> dict[tuple[str, str], Any]:
    """The app's routes by method and path template, with their handlers (``HEAD`` aside)."""
    return {
        (route.method, route.resource.canonical): route.handler  # type: ignore[union-attr]
        for route in app.router.routes()
        if route.method != "HEAD"
    }


async def test_the_app_has_exactly_the_route_tables_routes(api: Api) -> None:
    assert api.app is not None
    routed = _routed(api.app)
    table = {(r.method, r.template): r.handler for r in ROUTES}
    assert len(table) == len(ROUTES) == 54  # no route listed twice
    assert routed == table
    # aiohttp answers HEAD for each GET, as it did before the table: exactly those.
    heads = {
        route.resource.canonical  # type: ignore[union-attr]
        for route in api.app.router.routes()
        if route.method == "HEAD"
    }
    assert heads == {r.template for r in ROUTES if r.method == "GET"}
    # And the route table's paths are really routed: one of them, with aiohttp's pattern.
    assert (await api.request("GET", "/static/no/such/file.js")).status == 404
    async with api.client.head("/healthz") as resp:
        assert resp.status == 200


async def test_every_route_the_app_has_is_in_the_served_document(api: Api) -> None:
    assert api.app is not None
    doc = dict((await api.request("GET", "/openapi.json")).body)
    documented = {
        (method.upper(), path): operation["operationId"]
        for path, item in doc["paths"].items()
        for method, operation in item.items()
    }
    for route in api.app.router.routes():
        if route.method == "HEAD":
            continue
        key = (route.method, route.resource.canonical)  # type: ignore[union-attr]
        assert key in documented, f"{key} is routed but not in /openapi.json"
    ids = list(documented.values())
    assert len(ids) == len(set(ids)) == len(ROUTES)
    assert documented["POST", "/tables/{table_id}/commands"] == "post_command"
    assert documented["GET", "/tables/{table_id}/audit"] == "audit"  # handle_ left off
    # What each route says is what the document says, schemas and all.
    for route in ROUTES:
        operation = doc["paths"][route.template][route.method.lower()]
        assert sorted(map(int, operation["responses"])) == sorted(route.operation.responses)
        assert operation["summary"] == route.operation.summary
        problems = [
            int(status)
            for status, response in operation["responses"].items()
            if "application/problem+json" in response.get("content", {})
        ]
        assert sorted(problems) == route.operation.problem_statuses


class Greeting(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A request no route of the server takes."""

    to: str


class Greeted(msgspec.Struct, kw_only=True):
    """An answer no route of the server gives."""

    words: str
    times: int


async def _greet(request: web.Request) -> web.Response:
    return web.Response(text="hello")


def test_a_route_added_to_the_table_is_in_the_document_with_its_types() -> None:
    greet = Route(
        "POST",
        "/greetings/{name:[a-z]+}",
        _greet,
        op(
            "Social",
            "Greet someone",
            "Says hello.",
            {201: answer("Greeted", Greeted), 401: problem(NO_TOKEN)},
            body=json_body(Greeting, {"one": {"value": {"to": "you"}}}),
            parameters=[param("name", "path", {"type": "string"}, "Whom to greet.")],
            security=BEARER,
        ),
    )
    before = openapi.build_spec()
    assert "/greetings/{name}" not in before["paths"]
    assert "Greeting" not in before["components"]["schemas"]
    doc = openapi.build_spec((*ROUTES, greet))
    validate(doc)
    operation = doc["paths"]["/greetings/{name}"]["post"]
    assert operation["operationId"] == "_greet"
    assert operation["security"] == BEARER
    body = operation["requestBody"]["content"]["application/json"]
    assert body["schema"] == {"$ref": "#/components/schemas/Greeting"}
    assert operation["responses"]["201"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Greeted"
    }
    assert set(operation["responses"]) == {"201", "401"}
    schemas = doc["components"]["schemas"]
    assert schemas["Greeted"]["required"] == ["words", "times"]
    assert schemas["Greeting"]["additionalProperties"] is False
    # Everything else is as it was.
    assert {k: v for k, v in doc["paths"].items() if k != "/greetings/{name}"} == before["paths"]
    # And it is registered like every other route.
    app = web.Application()
    add_routes(app)
    assert ("POST", "/greetings/{name}") not in _routed(app)
    assert len(_routed(app)) == len(ROUTES)


def test_a_route_listed_twice_is_refused() -> None:
    twice = (*ROUTES, ROUTES[0])
    try:
        openapi.build_spec(twice)
    except ValueError as exc:
        assert "listed twice" in str(exc)
    else:
        raise AssertionError("a route listed twice was documented")


def _sources() -> list[Path]:
    return sorted(p for p in (ROOT / "server").rglob("*.py"))


def test_only_the_route_table_registers_routes() -> None:
    calls = {"add_route", "add_get", "add_post", "add_put", "add_patch", "add_delete"}
    calls |= {"add_head", "add_view", "add_static", "add_routes"}
    found = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in calls:
                found.append((path.relative_to(ROOT).as_posix(), node.attr))
    # server/app.py calls add_routes; the table's module adds each route.
    assert sorted(set(found)) == [
        ("server/app.py", "add_routes"),
        ("server/http/routes/__init__.py", "add_get"),
        ("server/http/routes/__init__.py", "add_route"),
    ]


def test_no_module_reaches_into_another_for_a_private_name() -> None:
    """``from server.x import _name`` or ``module._name`` across modules: the helpers every
    route shares are public (server/http/common.py, server/http/wire.py)."""
    found = []
    for path in _sources():
        tree = ast.parse(path.read_text())
        modules = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("server"):
                found += [(path.name, a.name) for a in node.names if a.name.startswith("_")]
                modules |= {a.asname or a.name for a in node.names}
            elif isinstance(node, ast.Import):
                modules |= {a.asname or a.name for a in node.names if a.name.startswith("server")}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                found.append((path.name, f"{node.value.id}.{node.attr}"))
    assert found == []
