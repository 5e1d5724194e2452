"""``GET /tables/{id}/audit`` keeps its audits and is rate-limited (issue 12, finding 7).

A table's audit is kept by its head: asked again, an unchanged table is answered without a
single event read or checked; after one more command, only that command's events are read and
checked. The answer is always what a fresh audit says, a rewrite of an old event behind the kept
audit's back included. Audits are limited per address.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Awaitable, Callable, Sequence

import asyncpg
import pytest

from events.domain import types as e
from events.records.audit import StreamAudit
from events.records.audit_scan import audit_table
from events.records.simulate import simulate_table
from events.store.chain import ZERO_HASH, stored_hash
from events.store.event_store import EventStore, RecordedEvent
from events.store.streams import append_steps, table_stream
from server.config import Rate
from server.http.records import AUDITS
from tests.server.conftest import Api


async def test_an_audit_is_kept_and_extended_by_the_new_events_only(
    api: Api, store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    table_id = str(uuid.uuid4())
    steps = [s.events for s in simulate_table(table_id, games=3, rng=random.Random(3)).steps]
    version = await append_steps(store, table_id, steps[:-1])
    fed: list[int] = []
    feed = StreamAudit.feed

    def counting(self: StreamAudit, records: Sequence[RecordedEvent]) -> int | None:
        fed.append(len(records))
        return feed(self, records)

    monkeypatch.setattr(StreamAudit, "feed", counting)

    first = await api.request("GET", f"/tables/{table_id}/audit")
    assert first.status == 200, first.body
    assert first.body["events"] == version
    assert api.app is not None
    kept = api.app[AUDITS].get(table_id)
    assert kept is not None and kept.read == version and kept.checked == version
    assert sum(fed) == version

    # Unchanged: the same answer, nothing read, nothing checked.
    fed.clear()
    again = await api.request("GET", f"/tables/{table_id}/audit")
    assert again.body == first.body
    assert fed == [] and kept.read == version and kept.checked == version

    # One more command: only its events are read and checked.
    last = await append_steps(store, table_id, steps[-1:], after=version)
    fed.clear()
    grown = await api.request("GET", f"/tables/{table_id}/audit")
    assert grown.body["events"] == last
    new = last - version
    assert api.app[AUDITS].get(table_id) is kept
    assert sum(fed) == new and kept.read == last and kept.checked == last
    fresh = await audit_table(store, table_id)
    assert fresh is not None and grown.body == fresh.as_dict()


async def test_a_rewrite_behind_the_kept_audit_is_found(
    api: Api, store: EventStore, admin: asyncpg.Connection
) -> None:
    table_id = str(uuid.uuid4())
    table = simulate_table(table_id, games=2, rng=random.Random(4), finish=False)
    await append_steps(store, table_id, [s.events for s in table.steps])
    assert (await api.request("GET", f"/tables/{table_id}/audit")).body["status"] == "pending"
    # A throw of the finished first game changed, the chain recomputed: the head's version is
    # the same, its hash is not.
    stream = table_stream(table_id)
    rows = await store.read_stream(stream)
    v = next(r.version for r in rows if r.type == "dice_rolled")
    old = e.decode(rows[v - 1].type, rows[v - 1].schema_version, rows[v - 1].data)
    assert isinstance(old, e.DiceRolled)
    changed = e.DiceRolled(player=old.player, dice=(old.dice[1] % 6 + 1, 1))
    async with admin.transaction():
        await admin.execute("ALTER TABLE events DISABLE TRIGGER ALL")
        await admin.execute(
            "UPDATE events SET data = $1 WHERE stream_id = $2 AND version = $3",
            e.encode(changed),
            stream,
            v,
        )
        prev = ZERO_HASH
        for r in await admin.fetch(
            "SELECT version, type, schema_version, data, command_id, recorded_at, chain_version"
            " FROM events WHERE stream_id = $1 ORDER BY version",
            stream,
        ):
            digest = stored_hash(prev, stream, r)
            await admin.execute(
                "UPDATE events SET prev_hash = $1, hash = $2 WHERE stream_id = $3 AND version = $4",
                prev,
                digest,
                stream,
                r["version"],
            )
            prev = digest
        await admin.execute("UPDATE streams SET head_hash = $1 WHERE stream_id = $2", prev, stream)
        await admin.execute("ALTER TABLE events ENABLE TRIGGER ALL")
    body = (await api.request("GET", f"/tables/{table_id}/audit")).body
    assert body["status"] == "failed"
    assert (body["first_failure"]["version"], body["first_failure"]["check"]) == (v, "dice")


async def test_audits_are_limited_per_address(
    make_api: Callable[..., Awaitable[Api]], store: EventStore
) -> None:
    api = await make_api(rate_limits=True, rate_audits=Rate(2, 60))
    table_id = str(uuid.uuid4())
    table = simulate_table(table_id, games=1, rng=random.Random(5))
    await append_steps(store, table_id, [s.events for s in table.steps])
    for _ in range(2):
        assert (await api.request("GET", f"/tables/{table_id}/audit")).status == 200
    refused = await api.request("GET", f"/tables/{table_id}/audit")
    assert refused.status == 429
    assert refused.body["type"].endswith("rate-limited")
    assert int(refused.headers["Retry-After"]) >= 1
