"""Strings a client sends: NUL and other control characters in every string field of every
endpoint are a 400 naming the field (a WebSocket error message on the socket), and nothing is
written; and an event the lobby cannot apply — which the API can no longer produce, so the tests
write it into the store themselves — is skipped, counted and reported, never a lobby stuck for
good (issue 11, finding 2)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest
from aiohttp.test_utils import TestClient

from events.domain import types as e
from events.store.streams import append_events, table_stream
from server.keys import ACCOUNTS_POOL, LOBBY, TABLES
from server.openapi import document as openapi
from tests.server.conftest import Api, User, connect, samples

NAME_BAD = ["\x00", "\x01", "\t", "\n", "\r", "\x1b", "\x7f", "\x85", "\x9b"]
"""Refused in every name, id, seed, notation and password: every control character."""

TEXT_BAD = ["\x00", "\x01", "\x08", "\x0b", "\r", "\x1b", "\x7f", "\x9b"]
"""Refused in chat: every control character but tab and newline."""


def spoil(value: str, bad: str) -> str:
    """``value`` with ``bad`` in the middle (the length stays within every field's limits)."""
    half = len(value) // 2
    return value[:half] + bad + value[half:]


async def written(api: Api) -> tuple[int, int, int]:
    """Accounts, tokens and events in the database."""
    pool = api.app[ACCOUNTS_POOL]  # type: ignore[index]
    return (
        await pool.fetchval("SELECT count(*) FROM accounts"),
        await pool.fetchval("SELECT count(*) FROM tokens"),
        await pool.fetchval("SELECT count(*) FROM events"),
    )


async def lobby(api: Api) -> list[dict[str, Any]]:
    await api.app[LOBBY].catch_up()  # type: ignore[index]
    r = await api.request("GET", "/tables")
    assert r.status == 200, r.body
    return list(r.body["tables"])


def refused(reply: Any, field: str, case: str) -> str | None:
    """Why ``reply`` is not the 400 naming ``field`` it must be (None when it is)."""
    if reply.status != 400 or not isinstance(reply.body, dict):
        return f"{case}: {reply.status} {reply.body}"
    problem = reply.problem(400, "invalid-field")
    if problem.get("field") != field:
        return f"{case}: field {problem.get('field')!r}, not {field!r}"
    if "control characters" not in problem["detail"]:
        return f"{case}: detail {problem['detail']!r}"
    return None


# -- every string field has its pattern -------------------------------------------------------


def unchecked(t: mi.Type, path: str, seen: set[type]) -> Iterator[str]:
    """The paths of the string fields under ``t`` with no pattern."""
    match t:
        case mi.StrType(pattern=None):
            yield path
        case mi.StructType(cls=cls) if cls not in seen:
            seen.add(cls)
            for f in t.fields:
                yield from unchecked(f.type, f"{path}.{f.encode_name}", seen)
        case mi.UnionType(types=types):
            for member in types:
                yield from unchecked(member, path, seen)
        case mi.ListType() | mi.SetType() | mi.FrozenSetType() | mi.VarTupleType():
            yield from unchecked(t.item_type, f"{path}[]", seen)
        case mi.TupleType(item_types=items):
            for i, item in enumerate(items):
                yield from unchecked(item, f"{path}[{i}]", seen)
        case mi.DictType(key_type=key, value_type=value):
            yield from unchecked(key, f"{path}{{key}}", seen)
            yield from unchecked(value, f"{path}{{}}", seen)


def test_every_string_a_client_sends_has_a_pattern() -> None:
    """Every request body the API documents (commands included), walked field by field: a new
    string field without :data:`events.domain.types.Name` or :data:`events.domain.types.Text` fails
    here."""
    doc = openapi.build_spec()
    types = {t.__name__: t for t in openapi.BODIES}
    requests = {
        media["schema"]["$ref"].rsplit("/", 1)[-1]
        for item in doc["paths"].values()
        for op in item.values()
        if isinstance(op, dict) and "requestBody" in op
        for media in op["requestBody"]["content"].values()
    }
    assert {
        "Register",
        "Login",
        "GuestRequest",
        "CreateTableRequest",
        "CommandEnvelope",
    } <= requests
    missing = [
        path
        for name in sorted(requests)
        for path in unchecked(mi.type_info(types[name]), name, set())
    ]
    assert missing == []
    schema = doc["components"]["schemas"]["Chat"]["properties"]["text"]
    assert schema["pattern"].startswith("^[^\\x00-\\x08"), schema


# -- accounts and tables ------------------------------------------------------------------------

ACCOUNT_CASES = [
    ("/accounts", "username", {"username": "annie", "password": "correct horse"}),
    ("/accounts", "password", {"username": "annie", "password": "correct horse"}),
    (
        "/accounts",
        "display_name",
        {"username": "annie", "password": "correct horse", "display_name": "Annie"},
    ),
    ("/sessions", "username", {"username": "annie", "password": "correct horse"}),
    ("/sessions", "password", {"username": "annie", "password": "correct horse"}),
    ("/guests", "display_name", {"display_name": "Cat"}),
]


@pytest.mark.parametrize(
    ("path", "field", "body"), ACCOUNT_CASES, ids=[f"{p}.{f}" for p, f, _ in ACCOUNT_CASES]
)
async def test_control_characters_in_account_fields(
    api: Api, path: str, field: str, body: dict[str, Any]
) -> None:
    await api.register("annie", "correct horse")  # so that /sessions has someone to refuse
    before = await written(api)
    failures = []
    for bad in NAME_BAD:
        doc = {**body, field: spoil(body[field], bad)}
        reply = await api.request("POST", path, json=doc)
        # The username's own pattern words its refusal in its own way.
        if field == "username":
            if reply.status != 400 or reply.body.get("field") != "username":
                failures.append(f"{bad!r}: {reply.status} {reply.body}")
        elif why := refused(reply, field, repr(bad)):
            failures.append(why)
    assert not failures, "\n".join(failures)
    assert await written(api) == before


async def test_control_characters_in_a_table_name(api: Api) -> None:
    user = await api.register()
    before = await written(api)
    failures = []
    for bad in NAME_BAD:
        body = {"kind": "money", "name": spoil("Friday money", bad)}
        reply = await api.request("POST", "/tables", user=user, json=body)
        if why := refused(reply, "name", repr(bad)):
            failures.append(why)
    assert not failures, "\n".join(failures)
    assert await written(api) == before
    assert await lobby(api) == []


# -- commands, over HTTP and on the socket -------------------------------------------------------

COMMAND_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("join.display_name", {"type": "join", "display_name": "Dora"}, "display_name"),
    ("add_seed.seed", {"type": "add_seed", "seed": "c0ffee5eed"}, "seed"),
    ("move.notation", {"type": "move", "notation": "13/7 8/7"}, "notation"),
    ("double.cubes", {"type": "double", "cubes": ["u_0b9e8d7c6f5a"]}, "cubes[0]"),
    ("take.cube", {"type": "take", "cube": "u_0b9e8d7c6f5a"}, "cube"),
    ("drop.cube", {"type": "drop", "cube": "u_0b9e8d7c6f5a"}, "cube"),
    ("beaver.cube", {"type": "beaver", "cube": "u_0b9e8d7c6f5a"}, "cube"),
    ("accept.cube", {"type": "accept", "cube": "u_0b9e8d7c6f5a"}, "cube"),
    ("decline.cube", {"type": "decline", "cube": "u_0b9e8d7c6f5a"}, "cube"),
    ("resign.to", {"type": "resign", "level": 1, "to": ["u_0b9e8d7c6f5a"]}, "to[0]"),
    ("chat.text", {"type": "chat", "text": "good game"}, "text"),
]


def spoiled(command: dict[str, Any], field: str, bad: str) -> dict[str, Any]:
    name, _, index = field.partition("[")
    value = command[name]
    if index:
        return {**command, name: [spoil(value[0], bad)]}
    return {**command, name: spoil(value, bad)}


@pytest.mark.parametrize(
    ("command", "field"), [c[1:] for c in COMMAND_CASES], ids=[c[0] for c in COMMAND_CASES]
)
async def test_control_characters_in_command_fields(
    api: Api, client: TestClient, command: dict[str, Any], field: str
) -> None:
    table, a, _ = await api.seat_two("money")
    before, listed = await api.versions(table), await lobby(api)
    bads = TEXT_BAD if field == "text" else NAME_BAD
    failures = []
    for bad in bads:
        reply = await api.send(a, table, spoiled(command, field, bad))
        if why := refused(reply, f"command.{field}", f"HTTP {bad!r}"):
            failures.append(why)
    ws = await connect(client, table, a)
    try:
        for bad in bads:
            # A command that does not decode has no command id to answer to: the next reply.
            envelope = {"command_id": str(uuid.uuid4()), "command": spoiled(command, field, bad)}
            answer = await ws.raw(msgspec.json.encode(envelope))
            problem = answer.get("problem", {})
            if (answer["ctl"], problem.get("status"), problem.get("field")) != (
                "error",
                400,
                f"command.{field}",
            ):
                failures.append(f"socket {bad!r}: {answer}")
    finally:
        await ws.close()
    assert not failures, "\n".join(failures)
    assert await api.versions(table) == before
    assert await lobby(api) == listed


async def test_tabs_and_newlines_in_chat_and_any_script_in_names_are_fine(api: Api) -> None:
    guest = await api.guest("Zoë 🎲 Ωμέγα")
    assert guest.display_name == "Zoë 🎲 Ωμέγα"
    table, a, _ = await api.seat_two("money")
    result = await api.ok(a, table, "chat", text="first line\n\tsecond line\n")
    assert result["events"][0]["d"]["text"] == "first line\n\tsecond line\n"
    r = await api.request(
        "POST", "/tables", user=a, json={"kind": "money", "name": "Ännchen’s table ♠"}
    )
    assert r.status == 201, r.body


async def test_a_lone_surrogate_never_decodes(api: Api) -> None:
    # JSON can spell one, but msgspec refuses it: no str with a surrogate reaches the server.
    before = await written(api)
    for body in (b'{"display_name": "a\\ud800b"}', b'{"display_name": "\\udc00"}'):
        reply = await api.request(
            "POST", "/guests", data=body, headers={"Content-Type": "application/json"}
        )
        reply.problem(400, "malformed-json")
    assert await written(api) == before


async def test_a_nul_in_a_guest_name_is_a_400_not_a_503_with_the_drivers_words(api: Api) -> None:
    reply = await api.request("POST", "/guests", json={"display_name": "a\x00b"})
    problem = reply.problem(400, "invalid-field")
    assert problem["field"] == "display_name"
    text = msgspec.json.encode(reply.body).decode()
    for words in ("UTF8", "0x00", "byte sequence", "Error"):
        assert words not in text, text


# -- a poison event in the log -------------------------------------------------------------------


async def poison(api: Api, user: User, name: str = "a\x00b") -> str:
    """A table whose ``table_created`` event carries ``name``, written straight into the store
    (the API refuses such a name): the lobby's text column cannot hold a NUL."""
    table_id = str(uuid.uuid4())
    event = e.TableCreated(
        table_id=table_id,
        kind="money",
        options=e.TableOptions(),
        created_by=user.account_id,
        name=name,
    )
    store = api.app[TABLES].store  # type: ignore[index]
    await append_events(
        store, table_stream(table_id), [event], expected_version=0, command_id=uuid.uuid4()
    )
    return table_id


async def listed(api: Api, table_id: str, timeout: float = 15) -> None:
    """Wait until the lobby (its live projector: nobody calls catch_up) lists ``table_id``."""
    async with asyncio.timeout(timeout):
        while True:
            r = await api.request("GET", "/tables")
            if any(t["id"] == table_id for t in r.body["tables"]):
                return
            await asyncio.sleep(0.1)


def skipped_metric(text: str) -> float:
    return samples(text, "chouette_projection_skipped_events_total").get('{projector="lobby"}', 0.0)


async def test_a_poison_event_is_skipped_and_the_lobby_goes_on_after_a_restart(
    make_api: Callable[..., Awaitable[Api]],
) -> None:
    api = await make_api(poll_interval=0.2)
    user = await api.register()
    bad = await poison(api, user)
    # A player joining under a name the lobby's names column cannot hold, too.
    joined = await api.create_table(user, "chouette")
    await listed(api, joined)
    store = api.app[TABLES].store  # type: ignore[index]
    version = await store.stream_version(table_stream(joined))
    await append_events(
        store,
        table_stream(joined),
        [e.PlayerJoined(player=user.account_id, display_name="x\x00y")],
        expected_version=version,
        command_id=uuid.uuid4(),
    )

    # New tables keep appearing, from the live projector.
    good = await api.create_table(user)
    await listed(api, good)
    tables = (await api.request("GET", "/tables")).body["tables"]
    assert bad not in {t["id"] for t in tables}

    ready = await api.request("GET", "/readyz")
    assert ready.status == 200 and ready.body["status"] == "ready", ready.body
    assert ready.body["skipped_events"] == 2
    assert [(s["version"], s["cause"]) for s in ready.body["skipped"]] == [
        (version + 1, "unwritable"),
        (1, "unwritable"),
    ]
    # Which tables: not for anyone who asks (a private table's id), by position for auditors.
    assert "stream" not in ready.body["skipped"][0]
    assert bad not in msgspec.json.encode(ready.body).decode()
    assert all(s["projector"] == "lobby" and s["position"] >= 1 for s in ready.body["skipped"])
    text = msgspec.json.encode(ready.body).decode()
    assert "UTF8" not in text and "0x00" not in text, text
    metrics = await api.request("GET", "/metrics")
    assert skipped_metric(metrics.body) == 2

    # The server stops and starts again: the skips are remembered, nothing is replayed.
    await api.client.close()
    again = await make_api(poll_interval=0.2)
    later = await again.create_table(user)
    await listed(again, later)
    ready = await again.request("GET", "/readyz")
    assert ready.status == 200 and ready.body["skipped_events"] == 2
    assert skipped_metric((await again.request("GET", "/metrics")).body) == 0
    pool = again.app[ACCOUNTS_POOL]  # type: ignore[index]
    assert await pool.fetchval("SELECT count(*) FROM projection_skipped WHERE name = 'lobby'") == 2
    # The profiles read model cannot hold the table's name either: skipped once, there too.
    assert (
        await pool.fetchval("SELECT count(*) FROM projection_skipped WHERE name = 'profiles'") == 1
    )
    head = await pool.fetchval("SELECT head FROM log_partitions WHERE partition = 0")
    checkpoint = await pool.fetchval(
        "SELECT position FROM projection_checkpoints WHERE name = 'lobby' AND partition = 0"
    )
    assert checkpoint == head
