"""The live protocol's reference: ``/asyncapi.json`` is a valid AsyncAPI 3.0 document (by the
AsyncAPI Initiative's published JSON schema, ``tests/data/asyncapi``), describes every event
type and every control message the server sends, and is true to the running server: the
messages a real socket and a real SSE stream carry validate against the payloads it gives."""

from __future__ import annotations

import asyncio
import json
import random
import re
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import msgspec
from jsonschema import Draft7Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

from events.domain.types import EVENT_TYPES
from server.openapi import asyncapi
from tests.server.conftest import Api, next_action, read_sse, ticket
from tests.server.tournaments.helpers import create, forfeit, until

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = json.loads((ROOT / "tests/data/asyncapi/3.0.0.json").read_text())
"""The official JSON schema of AsyncAPI 3.0.0 (``@asyncapi/specs`` 6.11.1, vendored)."""

DOC_URI = "urn:chouette:asyncapi"


async def _doc(api: Api) -> dict[str, Any]:
    r = await api.request("GET", "/asyncapi.json")
    assert r.status == 200 and r.content_type == "application/json"
    return dict(r.body)


def _errors(doc: dict[str, Any]) -> list[str]:
    return [
        f"{list(e.absolute_path)}: {e.message[:200]}"
        for e in Draft7Validator(SCHEMA).iter_errors(doc)
    ]


async def test_the_document_is_valid_asyncapi_3(api: Api) -> None:
    doc = await _doc(api)
    assert doc["asyncapi"] == "3.0.0"
    assert _errors(doc) == []
    # The validator is no rubber stamp: the mistakes a generator could make are refused.
    broken = json.loads(json.dumps(doc))
    broken["components"]["schemas"]["ThrowView"]["discriminator"] = {"propertyName": "player"}
    assert _errors(broken)
    broken = json.loads(json.dumps(doc))
    broken["operations"]["sendChat"]["action"] = "publish"
    assert _errors(broken)
    broken = json.loads(json.dumps(doc))
    del broken["channels"]["tableStream"]["address"]
    broken["channels"]["tableStream"]["adress"] = "/tables/{table_id}/ws"
    assert _errors(broken)


async def test_the_openapi_document_lists_it(api: Api) -> None:
    r = await api.request("GET", "/openapi.json")
    assert "get" in r.body["paths"]["/asyncapi.json"]


def test_every_event_type_is_described() -> None:
    """An event type added to the union without a summary in ``EVENT_SUMMARIES`` fails here."""
    doc = asyncapi.build_asyncapi()
    messages = doc["components"]["messages"]
    missing = sorted(set(EVENT_TYPES) - set(asyncapi.EVENT_SUMMARIES))
    assert missing == [], f"describe these event types in EVENT_SUMMARIES: {missing}"
    assert sorted(set(asyncapi.EVENT_SUMMARIES) - set(EVENT_TYPES)) == []
    for tag, cls in EVENT_TYPES.items():
        message = messages[tag]
        assert message["name"] == tag and message["summary"], tag
        props = message["payload"]["properties"]
        assert props["t"]["enum"] == [tag]
        ref = props["d"]["$ref"]
        assert ref == f"#/components/schemas/{cls.__name__}"
        # The event's own schema, with every field of its struct.
        schema = doc["components"]["schemas"][cls.__name__]
        assert set(schema["properties"]) == {*cls.__struct_fields__, "type"}, tag
        assert ("m" in props) == (tag in (*asyncapi.THROWS, *asyncapi.MOVES)), tag
        if "m" in props:
            view = "ThrowView" if tag in asyncapi.THROWS else "MoveView"
            assert props["m"]["$ref"] == f"#/components/schemas/{view}", tag
    # Every event of a table is somewhere a client receives it: on a WebSocket channel and on
    # SSE (an account's erasure is in no table's streams: the log has it, GET /log; nor is a
    # tournament's event, which is in its own stream).
    channels = doc["channels"]
    on_socket = {*channels["tableStream"]["messages"], *channels["chatStream"]["messages"]}
    elsewhere = {"account_erased", *(t for t in EVENT_TYPES if t.startswith("tournament_"))}
    tables = set(EVENT_TYPES) - elsewhere
    assert tables <= on_socket and not elsewhere & on_socket
    assert tables <= set(channels["tableEvents"]["messages"])


def test_every_control_message_the_server_sends_is_described() -> None:
    """Every ``ctl`` written anywhere in the server's code is a message of the document, on
    the WebSocket; those a stream sends by itself are on SSE too."""
    sent: set[str] = set()
    for path in (ROOT / "server").rglob("*.py"):
        text = path.read_text()
        sent |= set(re.findall(r"""["']ctl["']\s*:\s*["'](\w+)["']""", text))
        sent |= set(re.findall(r"""\bControl, kw_only=True, tag="(\w+)\"""", text))
    assert {"resync", "presence", "result", "error"} <= sent
    doc = asyncapi.build_asyncapi()
    assert sent <= set(doc["components"]["messages"]), sorted(sent)
    assert sent <= set(doc["channels"]["tableStream"]["messages"])
    assert {"resync", "presence"} <= set(doc["channels"]["tableEvents"]["messages"])
    reply = doc["operations"]["receiveCommand"]["reply"]["messages"]
    assert {r["$ref"].rsplit("/", 1)[-1] for r in reply} == {"result", "error"}


def _resolve(doc: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = doc
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def test_every_reference_resolves() -> None:
    doc = asyncapi.build_asyncapi()
    refs: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("$ref"), str):
                refs.append(value["$ref"])
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(doc)
    assert len(refs) > 100
    for ref in refs:
        _resolve(doc, ref)
    # An operation's messages are its channel's (AsyncAPI 3.0 requires it).
    for name, op in doc["operations"].items():
        channel = op["channel"]["$ref"]
        for m in op["messages"]:
            assert m["$ref"].startswith(channel + "/messages/"), (name, m)


def _validator(doc: dict[str, Any], name: str) -> Draft7Validator:
    registry: Registry[Any] = Registry().with_resource(
        DOC_URI, Resource.from_contents(doc, default_specification=DRAFT7)
    )
    schema = {"$ref": f"{DOC_URI}#/components/messages/{name}/payload"}
    return Draft7Validator(schema, registry=registry)


def _name(message: dict[str, Any]) -> str:
    if "ctl" in message:
        return str(message["ctl"])
    return str(message["t"]) if "t" in message else "hidden_chat"


def _conforms(doc: dict[str, Any], message: dict[str, Any], seen: set[str]) -> None:
    name = _name(message)
    assert name in doc["components"]["messages"], message
    errors = [e.message[:200] for e in _validator(doc, name).iter_errors(message)]
    assert errors == [], (name, errors)
    seen.add(name)


async def _receive(ws: aiohttp.ClientWebSocketResponse, until: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    async with asyncio.timeout(10):
        while True:
            message = msgspec.json.decode((await ws.receive()).data)
            out.append(message)
            if _name(message) == until:
                return out


async def test_real_messages_are_the_documented_ones(api: Api) -> None:
    """A WebSocket and an SSE stream of a real game: every message the server sends
    validates against the payload of the message named by its ``t`` or ``ctl``."""
    doc = await _doc(api)
    seen: set[str] = set()
    table, a, b = await api.seat_two("money")
    client = api.client
    ws = await client.ws_connect(f"/tables/{table}/ws?ticket={await ticket(client, a)}")
    other = await client.ws_connect(f"/tables/{table}/ws?ticket={await ticket(client, b)}")
    rng = random.Random(33)
    try:
        for message in await _receive(ws, "presence"):
            _conforms(doc, message, seen)
        # Play by commands on the socket until both kinds of throw have come.
        while not {"opening_throw", "dice_rolled", "checkers_moved"} <= seen:
            command, who = next_action(await api.state(table), rng)
            command["type"] = command.pop("type_")
            sock = ws if who == a.account_id else other
            await sock.send_json({"command_id": str(uuid.uuid4()), "command": command})
            for message in await _receive(sock, "result"):
                _conforms(doc, message, seen)
        await ws.send_json({"command_id": str(uuid.uuid4()), "command": {"type": "nonsense"}})
        for message in await _receive(ws, "error"):
            _conforms(doc, message, seen)
        await api.ok(a, table, "chat", text="hello")
        for message in await _receive(ws, "chat_posted"):
            _conforms(doc, message, seen)
    finally:
        await ws.close()
        await other.close()
    resync = await client.ws_connect(f"/tables/{table}/ws?after=100000")
    for message in await _receive(resync, "resync"):
        _conforms(doc, message, seen)
    await resync.close()
    assert {"result", "error", "presence", "resync", "opening_throw", "dice_rolled"} <= seen
    assert {"table_created", "player_joined", "game_started", "chat_posted"} <= seen

    # The same messages on Server-Sent Events, and its resync event.
    async with client.get(f"/tables/{table}/events") as resp:
        events = await read_sse(resp, 10_000, idle=1.0)
    assert len(events) > 5
    for _, _, data in events:
        _conforms(doc, data, seen)
    async with client.get(f"/tables/{table}/events?after=100000") as resp:
        events = await read_sse(resp, 1, idle=1.0)
    assert [e[0] for e in events] == ["resync"]
    _conforms(doc, events[0][2], seen)


async def test_a_hidden_chat_message_is_documented(api: Api) -> None:
    """A team-channel message the recipient may not read: ``{v, s}``, as documented."""
    doc = await _doc(api)
    payload = doc["components"]["messages"]["hidden_chat"]["payload"]
    assert not list(_validator(doc, "hidden_chat").iter_errors({"v": 3, "s": "chat"}))
    assert list(_validator(doc, "hidden_chat").iter_errors({"v": 3, "s": "chat", "t": "x"}))
    assert payload["required"] == ["v", "s"]


async def test_a_tournaments_stream_is_documented(api: Api) -> None:
    """A tournament's channels carry every tournament event (and no table's), and what a real
    tournament's socket and SSE stream send validates against the documented payloads."""
    doc = await _doc(api)
    channels = doc["channels"]
    tournament = set(asyncapi.TOURNAMENT_EVENTS)
    assert tournament == {t for t in EVENT_TYPES if t.startswith("tournament_")}
    for name in ("tournamentStream", "tournamentEvents"):
        events = {m for m in channels[name]["messages"] if m in EVENT_TYPES}
        assert events == tournament, name
    assert channels["tournamentStream"]["address"] == "/tournaments/{tournament_id}/ws"
    director, a, b = [await api.register() for _ in range(3)]
    tid = await create(api, director, format="knockout", match_length=1)
    for u in (a, b):
        assert (await api.request("POST", f"/tournaments/{tid}/entries", user=u)).status == 200
    assert (await api.request("POST", f"/tournaments/{tid}/start", user=director)).status == 200
    v = await until(api, tid, lambda v: len(v["rounds"]) == 1)
    board = v["rounds"][0]["boards"][0]
    users = {u.account_id: u for u in (a, b)}
    await forfeit(api, board["table_id"], users, loser=board["b"])
    await until(api, tid, lambda v: v["status"] == "finished")
    seen: set[str] = set()
    ws = await api.client.ws_connect(f"/tournaments/{tid}/ws")
    for message in await _receive(ws, "tournament_finished"):
        assert message["s"] == "tournament"
        _conforms(doc, message, seen)
    await ws.send_json({"command_id": str(uuid.uuid4()), "command": {"type": "join"}})
    for message in await _receive(ws, "error"):
        _conforms(doc, message, seen)
    await ws.close()
    assert seen >= tournament - {"tournament_withdrew", "tournament_result_adjusted"}
    async with api.client.get(f"/tournaments/{tid}/events") as resp:
        events = await read_sse(resp, 10_000, idle=1.0)
    assert [d["t"] for _, _, d in events][-1] == "tournament_finished"
    for _, _, data in events:
        _conforms(doc, data, seen)
    async with api.client.get(f"/tournaments/{tid}/events?after=1000") as resp:
        events = await read_sse(resp, 1, idle=1.0)
    assert [e[0] for e in events] == ["resync"]
    _conforms(doc, events[0][2], seen)
