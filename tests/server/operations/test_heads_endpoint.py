"""The published chain heads (issue 12, finding 4): ``GET /log/heads`` signed with the key at
``/.well-known/chouette-signing-key``, the per-stream heads for the auditor only, and each
table's chain head in its view and on its streams."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from test_api_reference import conforms

from events.store.heads import HeadsError, HeadsSigner, fingerprint, parse_heads, verify_heads
from events.store.streams import chat_stream, table_stream
from server.cli.main import main
from server.config import Config, Rate, load_signing_key, signing_key_path
from server.keys import TABLES
from tests.server.conftest import SIGNING_KEY, Api, chouette, connect, read_sse

AUDITOR = {"Authorization": "Bearer let-me-audit"}


async def _public_key(api: Api) -> bytes:
    r = await api.request("GET", "/.well-known/chouette-signing-key")
    assert r.status == 200
    doc = await _doc(api)
    conforms(doc, "get", "/.well-known/chouette-signing-key", r)
    assert r.body["algorithm"] == "Ed25519"
    key = base64.b64decode(r.body["public_key"])
    assert r.body["fingerprint"] == fingerprint(key)
    return key


async def _doc(api: Api) -> dict[str, Any]:
    return dict((await api.request("GET", "/openapi.json")).body)


async def test_the_heads_verify_with_the_published_key_and_a_change_does_not(
    make_api: Any,
) -> None:
    api = await make_api(auditor_token="let-me-audit")
    table, a, _ = await api.seat_two("money")
    await api.ok(a, table, "chat", text="good luck")
    key = await _public_key(api)
    assert key == HeadsSigner(SIGNING_KEY).public_key

    r = await api.request("GET", "/log/heads")
    assert r.status == 200
    conforms(await _doc(api), "get", "/log/heads", r)
    document, raw = parse_heads(json.dumps(r.body).encode())
    verify_heads(raw, key)
    assert "streams" not in r.body  # the public document lists no table
    store = api.app[TABLES].store  # type: ignore[index]
    heads = await store.partition_heads()
    assert {p.partition: p.position for p in document.partitions} == heads

    for changed in (
        {**raw, "made_at": "2000-01-01T00:00:00Z"},
        {**raw, "partitions": [{**raw["partitions"][0], "position": heads[0] - 1}]},
        {**raw, "streams": []},
    ):
        with pytest.raises(HeadsError, match="does not verify"):
            verify_heads(changed, key)

    # The auditor gets every stream's head too, signed the same way.
    r = await api.request("GET", "/log/heads?streams=true", headers=AUDITOR)
    assert r.status == 200
    conforms(await _doc(api), "get", "/log/heads", r)
    document, raw = parse_heads(json.dumps(r.body).encode())
    verify_heads(raw, key)
    streams = {s.stream: s for s in document.streams or []}
    assert set(streams) == {table_stream(table), chat_stream(table)}
    version = await store.stream_version(table_stream(table))
    assert streams[table_stream(table)].version == version
    head = await store.chain_head(table_stream(table), version)
    assert head is not None and streams[table_stream(table)].hash == head.hex()

    # The running hashes grow with the log, from where they were.
    await api.ok(a, table, "chat", text="again")
    r = await api.request("GET", "/log/heads")
    later, raw = parse_heads(json.dumps(r.body).encode())
    verify_heads(raw, key)
    assert later.partitions[0].position == heads[0] + 1
    assert later.partitions[0].running_hash != document.partitions[0].running_hash


async def test_the_per_stream_heads_are_for_the_auditor(make_api: Any) -> None:
    api = await make_api(auditor_token="let-me-audit")
    user = await api.register()
    (await api.request("GET", "/log/heads?streams=true")).problem(401)
    (await api.request("GET", "/log/heads?streams=true", user=user)).problem(403)
    (await api.request("GET", "/log/heads?streams=maybe")).problem(400)
    # Without streams, a token changes nothing: the public document.
    r = await api.request("GET", "/log/heads?streams=false", user=user)
    assert r.status == 200 and "streams" not in r.body
    # No auditor token configured: nobody gets them.
    other = await make_api()
    (await other.request("GET", "/log/heads?streams=true", headers=AUDITOR)).problem(403)


async def test_heads_are_limited_per_address(make_api: Any) -> None:
    api = await make_api(rate_limits=True, rate_heads=Rate(2, 60))
    for _ in range(2):
        assert (await api.request("GET", "/log/heads")).status == 200
    refused = await api.request("GET", "/log/heads")
    assert refused.status == 429 and int(refused.headers["Retry-After"]) >= 1
    # The public key is not limited: it is a constant.
    assert (await api.request("GET", "/.well-known/chouette-signing-key")).status == 200


async def test_the_table_view_and_its_streams_carry_the_chain_head(api: Api) -> None:
    table, a, b = await api.seat_two("money")
    await api.ok(a, table, "chat", text="hello")
    store = api.app[TABLES].store  # type: ignore[index]
    view = await api.state(table)
    head = await store.chain_head(table_stream(table), view["version"])
    assert head is not None and view["chain_head"] == head.hex()

    ws = await connect(api.client, table, b)
    try:
        await ws.wait_version(view["version"])
        await ws.wait_version(1, "chat")
        for name, stream in (("table", table_stream(table)), ("chat", chat_stream(table))):
            for m in ws.stream(name):
                stored = await store.chain_head(stream, m["v"])
                assert stored is not None and m["h"] == stored.hex(), (name, m["v"])
        assert ws.stream()[-1]["h"] == view["chain_head"]
    finally:
        await ws.close()

    async with api.client.get(f"/tables/{table}/events") as resp:
        events = await read_sse(resp, view["version"] + 1)
    by_stream = {(d["s"], d["v"]): d.get("h") for _, _, d in events}
    assert by_stream[("table", view["version"])] == view["chain_head"]
    assert all(h for h in by_stream.values())


async def test_a_hidden_team_message_carries_no_hash(api: Api) -> None:
    """With the previous hash, a hidden message's own would let a short one be guessed."""
    table, users = await chouette(api, players=3)
    box, _, second = (await api.state(table))["line"]
    outsider, member = (
        await connect(api.client, table, users[box]),
        await connect(api.client, table, users[second]),
    )
    try:
        advice = await api.ok(users[second], table, "chat", channel="team", text="take")
        v = advice["last_version"]
        for ws in (outsider, member):
            await ws.wait_version(v, "chat")
        assert outsider.stream("chat")[-1] == {"v": v, "s": "chat"}
        store = api.app[TABLES].store  # type: ignore[index]
        stored = await store.chain_head(chat_stream(table), v)
        assert stored is not None and member.stream("chat")[-1]["h"] == stored.hex()
    finally:
        await outsider.close()
        await member.close()


async def test_the_server_generates_its_key_beside_the_seed_key(tmp_path: Path) -> None:
    config = Config(database_url="postgresql://x", data_dir=tmp_path / "pgdata")
    assert load_signing_key(config, create=False) is None
    key = load_signing_key(config)
    path = signing_key_path(config)
    assert path.parent == tmp_path / "pgdata-keys" and path.stat().st_mode & 0o077 == 0
    assert key is not None and load_signing_key(config, create=False) == key
    configured = Config(data_dir=tmp_path / "none", signing_key=bytes(32))
    assert load_signing_key(configured) == bytes(32)
    path.write_text("not a key")
    with pytest.raises(ValueError, match=r"chouette-signing\.key: the signing key must be base64"):
        load_signing_key(config)


async def test_the_signing_key_is_configured_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CHOUETTE_SIGNING_KEY", base64.b64encode(bytes(range(32))).decode())
    assert Config.from_env().signing_key == bytes(range(32))
    monkeypatch.setenv("CHOUETTE_SIGNING_KEY", "short")
    with pytest.raises(ValueError, match="signing key"):
        Config.from_env()


async def test_heads_from_the_server_and_the_command_agree(
    make_api: Any, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``chouette heads`` computes from the database what the server keeps incrementally."""
    api = await make_api(auditor_token="let-me-audit")
    await api.seat_two("money")
    served = (await api.request("GET", "/log/heads?streams=true", headers=AUDITOR)).body
    monkeypatch.setenv("CHOUETTE_SIGNING_KEY", base64.b64encode(SIGNING_KEY).decode())
    out = io.StringIO()

    def run() -> int:
        with contextlib.redirect_stdout(out):
            return main(["heads", "--database-url", db_url])

    assert await asyncio.to_thread(run) == 0
    made = json.loads(out.getvalue())
    for key in ("partitions", "streams", "key"):
        assert made[key] == served[key], key
