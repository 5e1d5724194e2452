"""Operations: health, readiness, metrics, the OpenAPI document and its page, and logs."""

from __future__ import annotations

import json
import logging
import re
import uuid
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from server.http.common import CommandEnvelope, CreateTableRequest, Login, Register
from server.logs import JsonFormatter
from tests.server.conftest import Api, connect, samples


async def test_health_and_readiness(api: Api) -> None:
    health = await api.request("GET", "/healthz")
    assert (health.status, health.body) == (200, {"status": "ok"})
    ready = await api.request("GET", "/readyz")
    assert ready.status == 200 and ready.body["status"] == "ready"
    assert isinstance(ready.body["lobby_lag"], int)


async def test_metrics(api: Api, client: TestClient) -> None:
    table, a, b = await api.seat_two("money")
    await api.ok(a, table, "roll")
    await api.send(a, table, {"type": "double"})  # refused: 409
    await api.send(b, table, {"type": "double"})
    watcher = await connect(client, table, a)
    await watcher.wait_version(1)

    r = await api.request("GET", "/metrics")
    assert r.status == 200 and r.content_type == "text/plain"
    text = r.body
    for name, kind in (
        ("chouette_commands_total", "counter"),
        ("chouette_command_seconds", "histogram"),
        ("chouette_append_seconds", "histogram"),
        ("chouette_connected_clients", "gauge"),
        ("chouette_subscriber_lag_events", "gauge"),
    ):
        assert f"# TYPE {name} {kind}" in text, name
        assert f"# HELP {name} " in text, name

    commands = samples(text, "chouette_commands_total")
    assert commands['{outcome="ok",type="join"}'] == 2
    assert commands['{outcome="ok",type="roll"}'] == 1
    refused = sum(v for k, v in commands.items() if 'type="double"' in k and "ok" not in k)
    assert refused == 2
    assert samples(text, "chouette_command_seconds_count")['{type="join"}'] == 2
    buckets = samples(text, "chouette_command_seconds_bucket")
    assert buckets['{type="join",le="+Inf"}'] == 2
    assert sum(samples(text, "chouette_append_seconds_count").values()) >= 4
    assert samples(text, "chouette_connected_clients")['{kind="ws"}'] == 1
    assert samples(text, "chouette_subscriber_lag_events")[""] == 0
    await watcher.close()


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


async def test_the_openapi_document(api: Api) -> None:
    r = await api.request("GET", "/openapi.json")
    assert r.status == 200 and r.content_type == "application/json"
    doc = r.body
    assert doc["openapi"].startswith("3.1.")
    assert doc["info"]["title"] and doc["info"]["version"]
    assert doc["info"]["license"]["identifier"] == "AGPL-3.0-or-later"
    schemas = doc["components"]["schemas"]
    for struct in (Register, Login, CommandEnvelope, CreateTableRequest):
        assert struct.__name__ in schemas, struct.__name__
    for name in ("TokenResponse", "CommandResult", "EventMessage", "Problem", "GuestRequest"):
        assert name in schemas, name
    # The command union is spelled out: each command type is in the envelope's schema.
    text = json.dumps(schemas)
    for command in ("join", "roll", "move", "double", "take", "drop", "resign", "chat"):
        assert f'"{command}"' in text, command
    assert set(schemas["Problem"]["required"]) >= {"type", "title", "status", "detail"}
    # Every reference resolves.
    for ref in _refs(doc):
        assert ref.startswith("#/components/schemas/"), ref
        assert ref.rsplit("/", 1)[-1] in schemas, ref
    # Every route of the app is documented, with its methods and its path parameters.
    paths = doc["paths"]
    for route in api.app.router.routes():  # type: ignore[union-attr]
        if route.method in ("HEAD", "OPTIONS"):
            continue
        path = route.resource.canonical  # type: ignore[union-attr]
        assert path in paths, path
        operation = paths[path].get(route.method.lower())
        assert operation is not None, (route.method, path)
        assert operation["responses"], (route.method, path)
        for param in re.findall(r"\{(\w+)\}", path):
            declared = [p for p in operation.get("parameters", []) if p["in"] == "path"]
            assert any(p["name"] == param and p["required"] for p in declared), (path, param)
        for status, response in operation["responses"].items():
            assert re.fullmatch(r"[1-5][0-9][0-9]", status), status
            assert response.get("description"), (path, status)
        if "requestBody" in operation:
            assert "application/json" in operation["requestBody"]["content"]
    for path, item in paths.items():
        for method in item:
            assert method in ("get", "post", "put", "patch", "delete"), (path, method)
    # Errors are documented as problems.
    post = paths["/tables/{table_id}/commands"]["post"]
    for status in ("400", "401", "403", "404", "409", "413", "422"):
        assert "application/problem+json" in post["responses"][status]["content"]
    assert doc["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"


async def test_the_docs_page(api: Api) -> None:
    r = await api.request("GET", "/docs")
    assert r.status == 200 and r.content_type == "text/html"
    page = r.body
    assert page.lower().startswith("<!doctype html>")
    # Swagger UI (test_api_reference.py): the page renders the document it loads.
    assert 'url: "/openapi.json"' in page
    doc = (await api.request("GET", "/openapi.json")).body
    for path in ("/accounts", "/tables/{table_id}/commands", "/tables/{table_id}/ws"):
        assert path in doc["paths"], path
    assert "CommandEnvelope" in doc["components"]["schemas"]


async def test_a_command_log_line_names_its_table_and_command(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    table, a, _ = await api.seat_two("money")
    command_id = str(uuid.uuid4())
    with caplog.at_level(logging.INFO, logger="chouette"):
        reply = await api.send(a, table, {"type": "roll"}, command_id)
        assert reply.status == 201
    records = [r for r in caplog.records if getattr(r, "command_id", None) == command_id]
    assert records, [r.getMessage() for r in caplog.records]
    record = records[0]
    assert record.table_id == table  # type: ignore[attr-defined]
    assert record.actor == a.account_id  # type: ignore[attr-defined]
    line = json.loads(JsonFormatter().format(record))
    assert line["table_id"] == table and line["command_id"] == command_id
    assert line["level"] == "info" and "roll" in line["msg"]


async def test_the_global_feed_is_for_auditors(make_api: Any) -> None:
    api = await make_api(auditor_token="let-me-audit")
    table, _, _ = await api.seat_two("money")
    auditor = {"Authorization": "Bearer let-me-audit"}
    (await api.request("GET", "/log")).problem(401)
    (await api.request("GET", "/log", headers={"Authorization": "Bearer nope"})).problem(403)
    r = await api.request("GET", "/log?after=0&limit=2", headers=auditor)
    assert r.status == 200
    assert [e["position"] for e in r.body["events"]] == [1, 2]
    r = await api.request("GET", "/log?after=2", headers=auditor)
    assert r.body["events"][0]["position"] == 3
    assert {e["stream"] for e in r.body["events"]} == {f"table-{table}"}
    for query in ("after=x", "limit=0", "partition=-1"):
        (await api.request("GET", f"/log?{query}", headers=auditor)).problem(400)
