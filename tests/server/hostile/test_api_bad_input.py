"""Bad input gets the right 4xx problem (RFC 9457, with the field at fault where known) and
stores nothing — over HTTP and over the WebSocket, whose socket stays usable."""

from __future__ import annotations

import random
import uuid
from typing import Any

import aiohttp
import msgspec
import pytest
from aiohttp.test_utils import TestClient

from server.keys import ACCOUNTS_POOL, CONFIG
from tests.server.conftest import PROBLEM, Api, User, connect, only, ticket, ws_path


@pytest.fixture
async def game(api: Api) -> tuple[str, User, User, dict[str, Any]]:
    """A money game with ``P`` on roll having rolled (phase move); returns (table, P, O, state)."""
    table, a, b = await api.seat_two("money")
    users = {a.account_id: a, b.account_id: b}
    s = await api.until_phase(
        table, users, random.Random(2), lambda s: s["game"]["phase"] == "move"
    )
    p = users[only(s["game"]["to_act"])]
    return table, p, (a if p is b else b), s


def envelope(command: Any, command_id: Any = None) -> dict[str, Any]:
    return {"command_id": command_id or str(uuid.uuid4()), "command": command}


def bad_bodies(legal: str) -> list[tuple[str, bytes | str, int, str, str | None]]:
    """(case, body, status, problem slug, field)."""
    cid = str(uuid.uuid4())

    def j(doc: Any) -> bytes:
        return msgspec.json.encode(doc)

    return [
        (
            "truncated json",
            '{"command_id": "' + cid + '", "command": {',
            400,
            "malformed-json",
            None,
        ),
        ("not json", "roll the dice please", 400, "malformed-json", None),
        ("invalid utf-8", b'{"command_id": \xff\xfe}', 400, "malformed-json", None),
        ("a list", j([1, 2]), 400, "invalid-field", None),
        ("empty object", j({}), 400, "invalid-field", None),
        ("no command", j({"command_id": cid}), 400, "invalid-field", "command"),
        ("no command id", j({"command": {"type": "roll"}}), 400, "invalid-field", "command_id"),
        (
            "command id a number",
            j(envelope({"type": "roll"}, 42)),
            400,
            "invalid-field",
            "command_id",
        ),
        (
            "bad uuid",
            j(envelope({"type": "roll"}, "not-a-uuid")),
            400,
            "invalid-field",
            "command_id",
        ),
        (
            "unknown top-level field",
            j({**envelope({"type": "roll"}), "dice": [6, 6]}),
            400,
            "invalid-field",
            "dice",
        ),
        (
            "unknown nested field",
            j(envelope({"type": "roll", "dice": [6, 6]})),
            400,
            "invalid-field",
            "command.dice",
        ),
        (
            "unknown command",
            j(envelope({"type": "teleport"})),
            400,
            "invalid-field",
            "command.type",
        ),
        (
            "no command type",
            j(envelope({"notation": legal})),
            400,
            "invalid-field",
            "command.type",
        ),
        (
            "wrong type",
            j(envelope({"type": "resign", "level": "one"})),
            400,
            "invalid-field",
            "command.level",
        ),
        (
            "out of range",
            j(envelope({"type": "resign", "level": 4})),
            400,
            "invalid-field",
            "command.level",
        ),
        ("huge number", j(envelope({"type": "resign", "level": 10**30})), 400, None, None),
        (
            "bad move pair",
            j(envelope({"type": "move", "moves": [[30, 1]]})),
            400,
            "invalid-field",
            "command.moves[0][0]",
        ),
        (
            "too many moves",
            j(envelope({"type": "move", "moves": [[6, 5]] * 5})),
            400,
            "invalid-field",
            "command.moves",
        ),
        (
            "long chat",
            j(envelope({"type": "chat", "text": "x" * 2001})),
            400,
            "invalid-field",
            "command.text",
        ),
        (
            "empty chat",
            j(envelope({"type": "chat", "text": ""})),
            400,
            "invalid-field",
            "command.text",
        ),
        (
            "bad channel",
            j(envelope({"type": "chat", "channel": "box", "text": "hi"})),
            400,
            "invalid-field",
            "command.channel",
        ),
        (
            "create as a command",
            j(envelope({"type": "create_table", "kind": "money"})),
            400,
            "bad-request",
            "command.type",
        ),
        (
            "notation garbage",
            j(envelope({"type": "move", "notation": "hello world"})),
            400,
            "invalid-play",
            "notation",
        ),
        (
            "illegal play",
            j(envelope({"type": "move", "notation": "6/off"})),
            422,
            "illegal-play",
            None,
        ),
    ]


async def test_bad_command_bodies_over_http(api: Api, game: Any) -> None:
    table, p, _, s = game
    legal = s["game"]["legal_plays"][0]["notation"]
    before = await api.versions(table)
    failures = []
    for case, body, status, slug, field in bad_bodies(legal):
        reply = await api.request(
            "POST",
            f"/tables/{table}/commands",
            user=p,
            data=body,
            headers={"Content-Type": "application/json"},
        )
        if reply.status != status or reply.content_type != PROBLEM:
            failures.append(f"{case}: {reply.status} {reply.body}")
            continue
        problem = reply.problem(status, slug)
        if field is not None and problem.get("field") != field:
            failures.append(f"{case}: field {problem.get('field')!r}, not {field!r}")
        if await api.versions(table) != before:
            failures.append(f"{case}: something was stored")
    assert not failures, "\n".join(failures)
    # The illegal play's problem carries the engine's reason.
    reply = await api.send(p, table, {"type": "move", "notation": "6/off"})
    detail = reply.problem(422, "illegal-play")["detail"]
    assert "bear" in detail.lower() or "off" in detail.lower(), detail
    # And the player can still play.
    assert (await api.send(p, table, {"type": "move", "notation": legal})).status == 201


async def test_requests_that_are_not_json_or_too_large(api: Api, game: Any) -> None:
    table, p, _, s = game
    path = f"/tables/{table}/commands"
    before = await api.versions(table)
    legal = s["game"]["legal_plays"][0]["notation"]
    body = msgspec.json.encode(envelope({"type": "move", "notation": legal}))

    text = await api.request(
        "POST", path, user=p, data=body, headers={"Content-Type": "text/plain"}
    )
    assert text.problem(400)["detail"]
    form = await api.request(
        "POST",
        path,
        user=p,
        data=b"command=roll",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    form.problem(400)
    empty = await api.request(
        "POST", path, user=p, data=b"", headers={"Content-Type": "application/json"}
    )
    empty.problem(400)

    limit = api.app[CONFIG].max_body  # type: ignore[index]
    big = msgspec.json.encode(envelope({"type": "chat", "text": "x" * (limit + 1)}))
    too_large = await api.request(
        "POST", path, user=p, data=big, headers={"Content-Type": "application/json"}
    )
    problem = too_large.problem(413, "too-large")
    assert str(limit) in problem["detail"]
    assert await api.versions(table) == before


async def test_unknown_tables_and_bad_ids(api: Api, game: Any) -> None:
    _, p, _, _ = game
    nowhere = str(uuid.uuid4())
    for method, path, body in (
        ("GET", f"/tables/{nowhere}", None),
        ("POST", f"/tables/{nowhere}/commands", envelope({"type": "roll"})),
        ("GET", "/tables/not-a-uuid", None),
        ("POST", "/tables/not-a-uuid/commands", envelope({"type": "roll"})),
        ("GET", f"/tables/{nowhere}/events", None),
        ("GET", "/no/such/path", None),
    ):
        reply = await api.request(method, path, user=p, json=body)
        reply.problem(404, "not-found")
    (await api.request("DELETE", "/tables", user=p)).problem(405, "method-not-allowed")
    # The unknown table was not created by the attempt.
    (await api.request("GET", f"/tables/{nowhere}", user=p)).problem(404)
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await api.client.ws_connect(ws_path(nowhere, await ticket(api.client, p)))
    assert refused.value.status == 404


async def test_missing_invalid_and_revoked_tokens(api: Api, game: Any) -> None:
    table, _, _, _ = game
    path = f"/tables/{table}/commands"
    before = await api.versions(table)
    revoked = await api.register()
    assert (await api.request("DELETE", "/sessions", user=revoked)).status == 204
    for headers in (
        {},
        {"Authorization": "Bearer not-a-token"},
        {"Authorization": "Bearer "},
        {"Authorization": "Basic dXNlcjpwYXNz"},
        {"Authorization": "Bearer"},
        revoked.headers,
    ):
        reply = await api.request("POST", path, json=envelope({"type": "roll"}), headers=headers)
        reply.problem(401, "unauthorized")
        assert reply.headers.get("WWW-Authenticate") == "Bearer"
    for method, p2, body in (
        ("POST", "/tables", {"kind": "money"}),
        ("GET", "/me", None),
        ("DELETE", "/sessions", None),
    ):
        (await api.request(method, p2, json=body)).problem(401)
        (await api.request(method, p2, json=body, headers=revoked.headers)).problem(401)
    assert await api.versions(table) == before


async def test_bad_table_creation_stores_nothing(api: Api) -> None:
    a = await api.register()
    cases = [
        ({"kind": "poker"}, 400, "kind"),
        ({"kind": "money", "options": {"turbo": True}}, 400, "options.turbo"),
        ({"kind": "money", "options": {"match_length": "five"}}, 400, "options.match_length"),
        ({"kind": "money", "colour": "red"}, 400, "colour"),
        ({"kind": "match", "options": {"match_length": 0}}, 400, None),
        ({"kind": "money", "options": {"match_length": 5}}, 400, None),
        ({"kind": "money", "options": {"cube_mode": "single"}}, 400, None),
    ]
    for body, status, field in cases:
        reply = await api.request("POST", "/tables", user=a, json=body)
        problem = reply.problem(status)
        if field:
            assert problem.get("field") == field, (body, problem)
    lobby = await api.request("GET", "/tables")
    assert lobby.body["tables"] == []
    pool = api.app[ACCOUNTS_POOL]  # type: ignore[index]
    assert await pool.fetchval("SELECT count(*) FROM events") == 0


async def test_bad_input_over_the_websocket_keeps_the_socket(
    api: Api, client: TestClient, game: Any
) -> None:
    table, p, o, s = game
    legal = s["game"]["legal_plays"][0]["notation"]
    ws = await connect(client, table, p)
    before = await api.versions(table)
    await ws.wait_version(before[0])

    async def error(data: str | bytes, status: int, field: str | None = None) -> dict[str, Any]:
        reply = await ws.raw(data)
        assert reply["ctl"] == "error", reply
        problem = reply["problem"]
        assert problem["status"] == status, problem
        assert {"type", "title", "status", "detail"} <= set(problem)
        if field:
            assert problem.get("field") == field, problem
        return reply

    await error("{not json", 400)
    await error(b"\xff\xfe", 400)
    await error(msgspec.json.encode({**envelope({"type": "roll"}), "x": 1}), 400, "x")
    await error(
        msgspec.json.encode(envelope({"type": "roll", "dice": [6, 6]})), 400, "command.dice"
    )
    await error(msgspec.json.encode(envelope({"type": "roll"}, "nope")), 400, "command_id")
    cid = str(uuid.uuid4())
    reply = await error(
        msgspec.json.encode(envelope({"type": "move", "notation": "6/off"}, cid)), 422
    )
    assert reply["command_id"] == cid
    await error(msgspec.json.encode(envelope({"type": "double"})), 409)
    assert await api.versions(table) == before

    # The other player is refused on their own socket, which stays open too.
    wo = await connect(client, table, o)
    bad = await wo.command({"type": "move", "notation": legal})
    assert bad["ctl"] == "error" and bad["problem"]["status"] == 403
    # A watcher without a token may not send commands.
    anonymous = await connect(client, table)
    denied = await anonymous.command({"type": "roll"})
    assert denied["ctl"] == "error" and denied["problem"]["status"] == 401
    assert await api.versions(table) == before

    # The socket is still usable: the legal play is recorded and streamed.
    good = await ws.command({"type": "move", "notation": legal})
    assert good["ctl"] == "result" and good["first_version"] == before[0] + 1
    await ws.wait_version(good["last_version"])
    assert ws.stream()[-1]["v"] == good["last_version"]
    for c in (ws, wo, anonymous):
        await c.close()


async def test_an_oversized_websocket_message_closes_that_socket_only(
    api: Api, client: TestClient, game: Any
) -> None:
    table, p, _, _ = game
    before = await api.versions(table)
    ws = await client.ws_connect(ws_path(table, await ticket(client, p)))
    await ws.send_bytes(msgspec.json.encode(envelope({"type": "chat", "text": "x" * 70_000})))
    async with __import__("asyncio").timeout(10):
        while True:
            msg = await ws.receive()
            if msg.type in (
                aiohttp.WSMsgType.CLOSE,
                aiohttp.WSMsgType.CLOSED,
                aiohttp.WSMsgType.CLOSING,
            ):
                break
    assert ws.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
    assert await api.versions(table) == before
    other = await connect(client, table, p)
    await other.wait_version(before[0])
    await other.close()


async def test_bad_stream_positions(api: Api, game: Any) -> None:
    table, p, _, _ = game
    for query in ("after=abc", "chat_after=1.5", "after="):
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            pass_ = await ticket(api.client, p)
            await api.client.ws_connect(f"/tables/{table}/ws?{query}&ticket={pass_}")
        assert refused.value.status == 400, query
        reply = await api.request("GET", f"/tables/{table}/events?{query}")
        reply.problem(400, "bad-request")
    for header in ("garbage", "1.x", "one.two"):
        reply = await api.request(
            "GET", f"/tables/{table}/events", headers={"Last-Event-ID": header}
        )
        reply.problem(400, "bad-request")
