"""A command id is not a key to someone else's events (issue 11, finding 1).

The cross-user matrix, over HTTP and over the WebSocket: the same user sending the same command
again gets its first outcome (``200``, ``duplicate``); the same user with another command, or
anyone else with any command, gets ``409 command-id-reused`` that reveals nothing of the first
command (no events, no stream, no text), and nothing is written. Before the fix, a box who sent
the captain's team-chat command id got the captain's message back.

The store underneath: an append records its actor and a digest of the command with the id
(``sql/015_command_actors_sealed_seeds.sql``), and answers a recorded id with its outcome only
when both match.
"""

from __future__ import annotations

import uuid
from typing import Any

import msgspec
import pytest
from aiohttp.test_utils import TestClient

from events.domain import commands as c
from events.service import command_digest
from events.store.errors import CommandReusedError
from events.store.event_store import EventStore, NewEvent
from events.store.streams import chat_stream, table_stream
from tests.server.conftest import Api, Reply, User, connect

SECRET = "double them now, their board is weak"


def assert_reveals_nothing(body: Any, table: str, *secrets: str) -> None:
    """A reused-id problem: no events, no stream, not the table, none of ``secrets``."""
    assert "events" not in body and "stream" not in body, body
    text = msgspec.json.encode(body).decode()
    for leak in (table, table_stream(table), chat_stream(table), *secrets):
        assert leak not in text, (leak, body)


def reused(reply: Reply, table: str, *secrets: str) -> None:
    body = reply.problem(409, "command-id-reused")
    assert body.get("field") == "command_id"
    assert_reveals_nothing(body, table, *secrets)


async def chouette(api: Api) -> tuple[str, dict[str, User]]:
    """A four-player chouette thrown for the line: users by role (box, captain, second, last)."""
    users = [await api.register() for _ in range(4)]
    table = await api.create_table(users[0], "chouette")
    for u in users:
        await api.ok(u, table, "join")
    await api.ok(users[0], table, "start_game")
    s = await api.state(table)
    by_id = {u.account_id: u for u in users}
    line = [by_id[p] for p in s["line"]]
    return table, dict(zip(("box", "captain", "second", "last"), line, strict=True))


# -- over HTTP ------------------------------------------------------------------------------------


async def test_the_matrix_over_http_on_the_table_stream(api: Api) -> None:
    table, a, b = await api.seat_two("money")
    stranger = await api.register()
    opener = a if (await api.state(table))["seats"][0] == a.account_id else b
    other = b if opener is a else a
    cid = str(uuid.uuid4())
    first = await api.send(opener, table, {"type": "roll"}, cid)
    assert first.status == 201, first.body
    versions = await api.versions(table)

    # The same user, the same command: the first outcome.
    again = await api.send(opener, table, {"type": "roll"}, cid)
    assert again.status == 200 and again.body["duplicate"] is True, again.body
    assert again.body["events"] == first.body["events"]

    # The same user, another command; another user or a stranger, any command: 409, nothing.
    reused(await api.send(opener, table, {"type": "add_seed", "seed": "x"}, cid), table)
    reused(await api.send(other, table, {"type": "roll"}, cid), table)
    reused(await api.send(stranger, table, {"type": "roll"}, cid), table)
    reused(await api.send(other, table, {"type": "chat", "text": "hi"}, cid), table)
    assert await api.versions(table) == versions


async def test_the_matrix_over_http_on_the_chat_stream(api: Api) -> None:
    table, a, b = await api.seat_two("money")
    cid = str(uuid.uuid4())
    said = {"type": "chat", "text": SECRET}
    first = await api.send(a, table, said, cid)
    assert first.status == 201 and first.body["stream"] == "chat", first.body
    versions = await api.versions(table)

    again = await api.send(a, table, said, cid)
    assert again.status == 200 and again.body["duplicate"] is True
    assert again.body["events"][0]["d"]["text"] == SECRET

    reused(await api.send(a, table, {"type": "chat", "text": "something else"}, cid), table, SECRET)
    reused(await api.send(b, table, said, cid), table, SECRET)
    reused(await api.send(await api.guest(), table, said, cid), table, SECRET)
    assert await api.versions(table) == versions


async def test_a_box_reusing_the_captains_team_chat_id_gets_409_and_never_the_text(
    api: Api,
) -> None:
    table, role = await chouette(api)
    spectator = await api.register()
    cid = str(uuid.uuid4())
    advice = {"type": "chat", "channel": "team", "text": SECRET}
    first = await api.send(role["captain"], table, advice, cid)
    assert first.status == 201, first.body
    versions = await api.versions(table)

    # The box, with the very same command, with a command it may send, and a spectator.
    reused(await api.send(role["box"], table, advice, cid), table, SECRET)
    reused(await api.send(role["box"], table, {"type": "chat", "text": "hi"}, cid), table, SECRET)
    reused(await api.send(spectator, table, advice, cid), table, SECRET)
    # Another member of the team may read the message, but the id is still not theirs.
    reused(await api.send(role["second"], table, advice, cid), table, SECRET)
    assert await api.versions(table) == versions

    # The captain's own retry is answered as before.
    again = await api.send(role["captain"], table, advice, cid)
    assert again.status == 200 and again.body["events"][0]["d"]["text"] == SECRET


async def test_a_create_tables_command_id_is_its_creators_only(api: Api) -> None:
    a, b = await api.register(), await api.register()
    cid = str(uuid.uuid4())
    body = {"kind": "money", "name": "Ann's table", "command_id": cid}
    first = await api.request("POST", "/tables", user=a, json=body)
    assert first.status == 201, first.body
    table = first.body["id"]

    again = await api.request("POST", "/tables", user=a, json=body)
    assert again.status == 200 and again.body["duplicate"] is True and again.body["id"] == table

    other = await api.request("POST", "/tables", user=b, json=body)
    reused(other, table, "Ann's table")
    changed = await api.request("POST", "/tables", user=a, json={**body, "kind": "chouette"})
    reused(changed, table, "Ann's table")
    assert (await api.versions(table)) == (1, 0)


# -- over the WebSocket ---------------------------------------------------------------------------


async def test_the_matrix_over_the_websocket(api: Api, client: TestClient) -> None:
    table, role = await chouette(api)
    sockets = {name: await connect(client, table, user) for name, user in role.items()}
    try:
        cid = str(uuid.uuid4())
        advice = {"type": "chat", "channel": "team", "text": SECRET}
        first = await sockets["captain"].command(advice, cid)
        assert first["ctl"] == "result" and first["duplicate"] is False, first
        versions = await api.versions(table)

        again = await sockets["captain"].command(advice, cid)
        assert again["ctl"] == "result" and again["duplicate"] is True
        assert again["events"][0]["d"]["text"] == SECRET

        for name, command in (
            ("captain", {"type": "chat", "channel": "team", "text": "other words"}),
            ("box", advice),
            ("box", {"type": "chat", "text": "hi"}),
            ("box", {"type": "roll"}),
            ("second", advice),
        ):
            reply = await sockets[name].command(command, cid)
            assert reply["ctl"] == "error" and reply["command_id"] == cid, (name, reply)
            problem = reply["problem"]
            assert problem["status"] == 409, (name, problem)
            assert problem["type"].endswith("/command-id-reused")
            assert_reveals_nothing(problem, table, SECRET)
        assert await api.versions(table) == versions

        # A table command's id over the socket: the same matrix.
        s = await api.state(table)
        opener = next(n for n, u in role.items() if u.account_id == s["box"])
        rolled = str(uuid.uuid4())
        ok = await sockets[opener].command({"type": "roll"}, rolled)
        assert ok["ctl"] == "result", ok
        retry = await sockets[opener].command({"type": "roll"}, rolled)
        assert retry["ctl"] == "result" and retry["duplicate"] is True
        assert retry["events"] == ok["events"]
        stolen = await sockets["last"].command({"type": "roll"}, rolled)
        assert stolen["ctl"] == "error" and stolen["problem"]["status"] == 409
        assert_reveals_nothing(stolen["problem"], table)
    finally:
        for ws in sockets.values():
            await ws.close()


# -- the store and the service underneath ---------------------------------------------------------


async def test_the_store_answers_a_recorded_id_only_to_its_actor_and_command(
    store: EventStore,
) -> None:
    event = [NewEvent(type="noted", data=b'{"n":1}')]
    cid = uuid.uuid4()
    digest = command_digest("t", c.Roll())
    first = await store.append(
        "s-1", event, expected_version=0, command_id=cid, actor="ann", digest=digest
    )
    again = await store.append(
        "s-1", event, expected_version=None, command_id=cid, actor="ann", digest=digest
    )
    assert again.duplicate and again.events == first.events
    for actor, other_digest in (("bob", digest), ("ann", command_digest("t", c.StartGame()))):
        with pytest.raises(CommandReusedError):
            await store.append(
                "s-1",
                event,
                expected_version=None,
                command_id=cid,
                actor=actor,
                digest=other_digest,
            )
        with pytest.raises(CommandReusedError):
            await store.command_outcome(cid, "s-1", actor=actor, digest=other_digest)
    outcome = await store.command_outcome(cid, "s-1", actor="ann", digest=digest)
    assert outcome is not None and outcome.events == first.events
    with pytest.raises(CommandReusedError):  # another stream
        await store.command_outcome(cid, "s-2", actor="ann", digest=digest)
    assert await store.command_outcome(uuid.uuid4(), "s-1", actor="ann", digest=digest) is None
    # Tools that append with no actor (an imported .mat file) keep plain retries by id.
    anonymous = uuid.uuid4()
    await store.append("s-3", event, expected_version=0, command_id=anonymous)
    assert (await store.append("s-3", event, expected_version=None, command_id=anonymous)).duplicate
    with pytest.raises(CommandReusedError):
        await store.append("s-3", event, expected_version=None, command_id=anonymous, actor="x")
    assert await store.stream_version("s-1") == 1 and await store.stream_version("s-3") == 1


def test_a_commands_digest_is_of_the_command_and_the_table() -> None:
    join = c.Join(display_name="Ann")
    assert command_digest("t1", join) == command_digest("t1", c.Join(display_name="Ann"))
    assert command_digest("t1", join) != command_digest("t2", join)
    assert command_digest("t1", join) != command_digest("t1", c.Join(display_name="Bob"))
    assert command_digest("t1", c.Chat(text="a")) != command_digest("t1", c.Chat(text="b"))
    assert len(command_digest("t1", join)) == 32
