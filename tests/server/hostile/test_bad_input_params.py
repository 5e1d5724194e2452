"""Query parameters and headers out of range are a 400 naming them, never a number handed to SQL
(a 503 with the driver's words, as ``/log?after=9223372036854775808`` was); and no answer, a
503 or ``/readyz`` included, ever carries the driver's text or SQL (issue 11, finding 3)."""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import asyncpg
import msgspec
import pytest

from server.openapi.document import build_spec
from tests.server.conftest import Api, Reply, connect, read_sse, ws_path

INT32 = 2**31
INT64 = 2**63
AUDITOR = {"Authorization": "Bearer let-me-audit"}

DRIVER_WORDS = re.compile(
    r"asyncpg|postgres|sqlstate|\bsql\b|relation|does not exist|syntax|int32|int64|bigint|"
    r"query argument|invalid input|out of range for|\(\d{2}[0-9A-Z]{3}\)|\$\d|"
    r"(?-i:[A-Z][a-z]+Error)",
    re.IGNORECASE,
)
"""Words of a driver's or the database's error messages (and exception class names), which no
answer may carry."""


def clean(reply: Reply) -> None:
    """Assert that the answer is no 5xx and quotes nothing of the database."""
    assert reply.status < 500, (reply.status, reply.body)
    text = reply.body if isinstance(reply.body, str) else msgspec.json.encode(reply.body).decode()
    assert not DRIVER_WORDS.search(text), text


def out_of_range(reply: Reply, name: str) -> None:
    clean(reply)
    problem = reply.problem(400, "bad-request")
    assert problem.get("field") == name, problem
    assert name in problem["detail"], problem


@pytest.fixture
async def feed(make_api: Callable[..., Awaitable[Api]]) -> Api:
    api = await make_api(auditor_token="let-me-audit")
    await api.seat_two("money")
    return api


async def log_query(api: Api, query: str) -> Reply:
    return await api.request("GET", f"/log?{query}", headers=AUDITOR)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("partition", -1),
        ("partition", 1),  # this server has one partition
        ("partition", INT32),
        ("partition", INT64),
        ("after", -1),
        ("after", INT64),
        ("after", 10**30),
        ("limit", 0),
        ("limit", -1),
        ("limit", 10_001),
        ("limit", INT32),
        ("limit", INT64),
    ],
)
async def test_log_parameters_out_of_range(feed: Api, name: str, value: int) -> None:
    out_of_range(await log_query(feed, f"{name}={value}"), name)


async def test_log_parameters_that_are_no_plain_integer(feed: Api) -> None:
    for name in ("partition", "after", "limit"):
        for raw in ("", "x", "1.5", "1e3", "0x10", "1_0", "+1", " 1", "%D9%A3", "1%00"):
            out_of_range(await log_query(feed, f"{name}={raw}"), name)


async def test_log_parameters_in_range(feed: Api) -> None:
    for query in (f"after={INT32}", f"after={INT64 - 1}", "limit=10000", "partition=0&limit=1"):
        reply = await log_query(feed, query)
        clean(reply)
        assert reply.status == 200, (query, reply.body)
    assert len((await log_query(feed, "limit=1")).body["events"]) == 1
    assert (await log_query(feed, f"after={INT32}")).body["events"] == []


# -- the streams ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["after", "chat_after"])
@pytest.mark.parametrize("value", [-1, INT64, 10**30])
async def test_stream_positions_out_of_range(api: Api, name: str, value: int) -> None:
    table, _, _ = await api.seat_two("money")
    before = await api.versions(table)
    # The WebSocket refuses the upgrade; the same request without it shows the problem.
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await api.client.ws_connect(ws_path(table, **{name: value}))
    assert refused.value.status == 400
    out_of_range(await api.request("GET", f"/tables/{table}/ws?{name}={value}"), name)
    out_of_range(await api.request("GET", f"/tables/{table}/events?{name}={value}"), name)
    assert await api.versions(table) == before


async def test_last_event_id_out_of_range(api: Api) -> None:
    table, _, _ = await api.seat_two("money")
    for header in ("-1.0", "0.-1", f"{INT64}.0", f"0.{INT64}", "1.2.3", "1 .2"):
        reply = await api.request(
            "GET", f"/tables/{table}/events", headers={"Last-Event-ID": header}
        )
        out_of_range(reply, "Last-Event-ID")


async def test_stream_positions_in_range_but_ahead_are_a_resync(api: Api) -> None:
    """2^31 is a version a stream can reach: in range, only not yet there."""
    table, _, _ = await api.seat_two("money")
    ws = await connect(api.client, table, after=INT32)
    await ws.wait_for(lambda c: bool(c.controls))
    assert ws.controls[0]["ctl"] == "resync" and ws.controls[0]["asked"] == INT32
    await ws.close()
    async with api.client.get(
        f"/tables/{table}/events", headers={"Last-Event-ID": f"{INT64 - 1}.0"}
    ) as resp:
        got = await read_sse(resp, 1)
    assert got[0][0] == "resync"


# -- the replay and the lobby --------------------------------------------------------------------


@pytest.mark.parametrize("value", ["-1", str(INT64), str(10**30), "x", "1.0", ""])
async def test_replay_versions_out_of_range(api: Api, value: str) -> None:
    table, _, _ = await api.seat_two("money")
    out_of_range(await api.request("GET", f"/tables/{table}/replay?at={value}"), "at")


async def test_replay_versions_in_range_the_table_has_not_reached_are_a_404(api: Api) -> None:
    table, _, _ = await api.seat_two("money")
    for value in (0, INT32, INT64 - 1):
        reply = await api.request("GET", f"/tables/{table}/replay?at={value}")
        clean(reply)
        reply.problem(404, "not-found")


async def test_lobby_kinds(api: Api) -> None:
    for kind in ("poker", "", "money%00", "MONEY", "%00"):
        out_of_range(await api.request("GET", f"/tables?kind={kind}"), "kind")
    assert (await api.request("GET", "/tables?kind=chouette")).status == 200


# -- the database's words stay in the log ---------------------------------------------------------


async def test_a_503_says_database_unavailable_and_logs_the_rest(
    api: Api, admin: asyncpg.Connection, caplog: pytest.LogCaptureFixture
) -> None:
    table, a, _ = await api.seat_two("money")
    # Real driver errors: relations that are not there (renamed by the owner: the server's
    # role may not).
    await admin.execute("ALTER TABLE lobby_tables RENAME TO lobby_tables_away")
    await admin.execute("ALTER TABLE commands RENAME TO commands_away")
    with caplog.at_level(logging.WARNING, logger="chouette"):
        lobby = await api.request("GET", "/tables")
        command = await api.send(a, table, {"type": "chat", "text": "anyone?"})
    ws = await connect(api.client, table, a)
    envelope = {"command_id": str(uuid.uuid4()), "command": {"type": "chat", "text": "hello?"}}
    on_socket = await ws.raw(msgspec.json.encode(envelope))
    await ws.close()

    for reply in (lobby, command):
        problem = reply.problem(503)
        assert problem["detail"].startswith("database unavailable"), problem
        text = msgspec.json.encode(reply.body).decode()
        assert not DRIVER_WORDS.search(text), text
    problem = on_socket["problem"]
    assert problem["status"] == 503 and problem["detail"].startswith("database unavailable")
    assert not DRIVER_WORDS.search(msgspec.json.encode(on_socket).decode()), on_socket
    # The server's log has what the answer does not, with the request's table.
    logged = [r for r in caplog.records if "does not exist" in r.getMessage()]
    assert any("lobby_tables" in r.getMessage() for r in logged), caplog.text
    assert any(getattr(r, "table_id", None) == table for r in logged), caplog.text


async def test_readyz_says_database_unavailable_and_nothing_more(
    api: Api, admin: asyncpg.Connection, caplog: pytest.LogCaptureFixture
) -> None:
    ready = await api.request("GET", "/readyz")
    assert ready.status == 200 and ready.body["skipped_events"] == 0
    await admin.execute("ALTER TABLE projection_skipped RENAME TO projection_skipped_away")
    with caplog.at_level(logging.WARNING, logger="chouette"):
        ready = await api.request("GET", "/readyz")
    assert ready.status == 503
    assert ready.body == {"status": "unavailable", "detail": "database unavailable"}
    assert "projection_skipped" in caplog.text


def test_every_integer_parameter_is_documented_with_its_range() -> None:
    doc: dict[str, Any] = build_spec()
    for path, item in doc["paths"].items():
        for op in item.values():
            for param in op.get("parameters", []):
                schema = param["schema"]
                if schema.get("type") == "integer":
                    assert "minimum" in schema, (path, param["name"])
                    if param["name"] != "partition":
                        assert "maximum" in schema, (path, param["name"])
