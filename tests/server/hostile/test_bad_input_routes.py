"""Bad input that got a 500 or the wrong answer (issue 27, part 5): a table id that is no uuid,
on every route of a table; leaderboard days before the calendar can count back from; stream
positions out of range from a caller with a ticket; a bot's strength left out; the analysis of
a table that has finished no game. Each is a 4xx problem that names what is wrong and stores
nothing."""

from __future__ import annotations

import re
from typing import Any

import aiohttp
import pytest

from server.openapi.document import BEARER, build_spec
from tests.server.conftest import Api, ticket, ws_path

BAD_ID = "not-a-uuid"
_PLACEHOLDER = re.compile(r"\{([^}:]+)(?::[^}]*)?\}")


def table_routes(api: Api) -> list[tuple[str, str]]:
    """Every (method, path template) of the app's router with a table id in its path."""
    assert api.app is not None
    out = set()
    for route in api.app.router.routes():
        info = route.resource.get_info() if route.resource is not None else {}
        template = str(info.get("formatter") or info.get("path") or "")
        if "{table_id}" in template and route.method != "*":
            out.add((route.method, template))
    return sorted(out)


def bad_path(template: str) -> str:
    """The template with ``not-a-uuid`` for the table and a plausible value for anything else."""
    return _PLACEHOLDER.sub(lambda m: BAD_ID if m[1] == "table_id" else "abc", template)


def security(method: str, template: str) -> list[dict[str, list[str]]] | None:
    op = build_spec()["paths"][template].get(method.lower())
    assert op is not None, f"{method} {template} is not documented"
    return op.get("security")


async def test_a_table_id_that_is_no_uuid_is_a_404_on_every_route(api: Api) -> None:
    """Authorised first: whoever must send a token and sends none (or a bad one) is told so
    (401) before anything else; with a good one, every route says there is no such table."""
    routes = table_routes(api)
    assert len(routes) >= 15, routes  # the walk found the table routes
    ann = await api.register()
    failures = []
    for method, template in routes:
        path = bad_path(template)
        sec = security("GET" if method == "HEAD" else method, template)
        takes_token = sec is not None
        for who, headers, status in (
            ("a token", ann.headers, 404),
            ("no token", {}, 401 if sec == BEARER else 404),
            ("a bad token", {"Authorization": "Bearer nonsense"}, 401 if takes_token else 404),
        ):
            if method == "HEAD":  # no body to read
                async with api.client.head(path, headers=headers) as resp:
                    if resp.status != status:
                        failures.append(f"HEAD {path} with {who}: {resp.status}")
                continue
            reply = await api.request(method, path, json={}, headers=headers)
            if reply.status != status:
                failures.append(f"{method} {path} with {who}: {reply.status} {reply.body}")
                continue
            problem = reply.problem(status)
            if status == 404 and BAD_ID not in problem["detail"]:
                failures.append(f"{method} {path} with {who}: {problem}")
    assert not failures, "\n".join(failures)


# -- the chouette leaderboard's days ----------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("until=0001-01-01", "until"),
        ("until=0001-01-29", "until"),
        ("since=0001-01-01&until=0001-01-29", "until"),
        ("since=0001-01-01", "since"),
        ("since=0001-01-01&until=1970-01-01", "since"),
        ("until=1969-12-31", "until"),
        ("since=1969-12-31&until=1970-01-10", "since"),
    ],
)
async def test_leaderboard_days_out_of_range_are_a_400_naming_them(
    api: Api, query: str, field: str
) -> None:
    reply = await api.request("GET", f"/leaderboards/chouette?{query}")
    problem = reply.problem(400, "bad-request")
    assert problem["field"] == field, problem
    assert field in problem["detail"] and "1970-01-01" in problem["detail"], problem


async def test_leaderboard_days_at_the_ends_of_the_range(api: Api) -> None:
    # The default first day counts 29 days back from the last, and never before the range.
    first = await api.request("GET", "/leaderboards/chouette?until=1970-01-05")
    assert first.status == 200, first.body
    assert (first.body["since"], first.body["until"]) == ("1970-01-01", "1970-01-05")
    last = await api.request("GET", "/leaderboards/chouette?since=9999-12-31&until=9999-12-31")
    assert last.status == 200, last.body
    assert last.body["players"] == []


# -- stream positions, with a ticket ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("after", "-1"),
        ("after", "1e20"),
        ("after", str(2**70)),
        ("after", "2**70"),
        ("after", "9223372036854775808"),
        ("chat_after", "-1"),
        ("chat_after", "1e20"),
    ],
)
async def test_stream_positions_out_of_range_are_refused_before_the_upgrade(
    api: Api, name: str, value: str
) -> None:
    table, a, _ = await api.seat_two("money")
    before = await api.versions(table)
    path = f"/tables/{table}/ws?{name}={value}&ticket={await ticket(api.client, a)}"
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await api.client.ws_connect(path)
    assert refused.value.status == 400
    # Anonymous (a public table may be watched without a ticket): the same.
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await api.client.ws_connect(f"/tables/{table}/ws?{name}={value}")
    assert refused.value.status == 400
    # With the header instead of a ticket, and on SSE: the same problem, naming the parameter.
    for stream in ("ws", "events"):
        reply = await api.request("GET", f"/tables/{table}/{stream}?{name}={value}", user=a)
        assert reply.problem(400, "bad-request")["field"] == name
    # A good ticket for a good request still opens the socket.
    ws = await api.client.ws_connect(ws_path(table, await ticket(api.client, a)))
    await ws.close()
    assert await api.versions(table) == before


# -- a bot's strength -------------------------------------------------------------------------


async def test_a_bot_needs_its_strength(api: Api) -> None:
    ann = await api.register()
    table = await api.create_table(ann, "money")
    before = await api.versions(table)
    for body in ({}, {"seat": 1}, {"command_id": "8b0c6f4e-9b1e-4d7a-9a39-1f0f5f0a7a11"}):
        reply = await api.request("POST", f"/tables/{table}/bots", user=ann, json=body)
        problem = reply.problem(400, "invalid-field")
        assert problem["field"] == "strength" and "strength" in problem["detail"], problem
    assert await api.versions(table) == before
    schema = build_spec()["components"]["schemas"]["SeatBotRequest"]
    assert "strength" in schema.get("required", []), schema


# -- an analysis of nothing -------------------------------------------------------------------


async def test_the_analysis_of_a_table_with_no_finished_game_is_a_409(api: Api) -> None:
    pytest.importorskip("gnubg")
    table, _, _ = await api.seat_two("money")
    reply = await api.request("GET", f"/tables/{table}/analysis")
    problem = reply.problem(409, "no-finished-game")
    assert "no finished game yet" in problem["detail"], problem
    op: dict[str, Any] = build_spec()["paths"]["/tables/{table_id}/analysis"]["get"]
    assert "409" in op["responses"], op["responses"]
