"""The tournaments' routes as a client sees them (docs/tournaments.md): retries by command id
record once, the list shows what it should newest first, the name is sealed in the store, and a
knockout's state is its bracket, a round robin's its standings."""

from __future__ import annotations

import uuid

from events.domain import types as e
from events.store.streams import decode_recorded, table_stream, tournament_stream
from server.keys import TABLES
from tests.server.conftest import Api
from tests.server.operations.test_api_reference import conforms
from tests.server.tournaments.helpers import create, seated, until, view


async def test_a_retried_create_or_entry_records_once(api: Api) -> None:
    assert api.app is not None
    store = api.app[TABLES].store
    director, player = await api.register(), await api.register()
    cid = str(uuid.uuid4())
    body = {"command_id": cid, "options": {"format": "knockout"}, "name": "Spring cup"}
    first = await api.request("POST", "/tournaments", user=director, json=body)
    again = await api.request("POST", "/tournaments", user=director, json=body)
    assert (first.status, again.status) == (201, 200), (first.body, again.body)
    assert first.body["id"] == again.body["id"] and again.body["duplicate"]
    tid = first.body["id"]
    # Someone else sending that command id is refused, and creates nothing.
    other = await api.request("POST", "/tournaments", user=player, json=body)
    assert other.status == 409 and other.body["type"].endswith("command-id-reused")
    entry = {"command_id": str(uuid.uuid4())}
    for _ in range(2):
        r = await api.request("POST", f"/tournaments/{tid}/entries", user=player, json=entry)
        assert r.status == 200, r.body
        assert [x["player"] for x in r.body["entrants"]] == [player.account_id]
    assert await store.stream_version(tournament_stream(tid)) == 2
    # The name is the director's words: sealed under their key in the stored bytes.
    created = (await store.read_stream(tournament_stream(tid)))[0]
    assert b"Spring cup" not in created.data
    assert (await view(api, tid))["name"] == "Spring cup"


async def test_the_list_and_the_views_of_each_format(api: Api) -> None:
    director = await api.register()
    knockout = await create(api, director, format="knockout", third_place=True, match_length=1)
    robin = await create(api, director, format="round_robin", match_length=1)
    listed = (await api.request("GET", "/tournaments")).body["tournaments"]
    assert [t["id"] for t in listed][:2] == [robin, knockout]
    assert listed[0]["status"] == "entering" and listed[0]["format"] == "round_robin"
    players = [await api.register() for _ in range(5)]
    for tid in (knockout, robin):
        for u in players:
            r = await api.request("POST", f"/tournaments/{tid}/entries", user=u)
            assert r.status == 200, r.body
        r = await api.request("POST", f"/tournaments/{tid}/start", user=director)
        assert r.status == 200, r.body
    k = await view(api, knockout)
    # Five players: a bracket of eight, three byes to the top seeds, three rounds.
    assert k["standings"] is None and k["total_rounds"] == 3
    assert [len(r) for r in k["bracket"]] == [4, 2, 1]  # (the third place once paired)
    assert sum(m["bye"] for m in k["bracket"][0]) == 3
    assert sum(1 for b in k["rounds"][0]["boards"] if b["table"]) == 1
    rr = await until(api, robin, lambda v: len(v["rounds"]) == 1)
    assert rr["bracket"] is None and rr["total_rounds"] == 5
    assert len(rr["standings"]) == 5 and [s["rank"] for s in rr["standings"]] == [1, 2, 3, 4, 5]
    listed = (await api.request("GET", "/tournaments")).body["tournaments"]
    assert {t["id"]: t["status"] for t in listed}[knockout] == "playing"


async def test_a_bot_account_enters_and_sits_as_a_bot(api: Api) -> None:
    """A bot account (``POST /me/bot``) may be an entrant: the runner seats it as a bot, as its
    own join would (docs/bots.md)."""
    assert api.app is not None
    director, person, robot = [await api.register() for _ in range(3)]
    r = await api.request("POST", "/me/bot", user=robot, json={"password": "correct horse"})
    assert r.status in (200, 201), r.body
    tid = await create(api, director, format="knockout", match_length=1)
    for u in (person, robot):
        assert (await api.request("POST", f"/tournaments/{tid}/entries", user=u)).status == 200
    assert (await api.request("POST", f"/tournaments/{tid}/start", user=director)).status == 200
    table = (await view(api, tid))["rounds"][0]["boards"][0]["table_id"]
    await seated(api, table)
    events = await api.app[TABLES].store.read_stream(table_stream(table))
    joined = [decode_recorded(x) for x in events if x.type == "player_joined"]
    bots = {j.player: j.bot for j in joined if isinstance(j, e.PlayerJoined)}
    assert bots == {person.account_id: False, robot.account_id: True}


async def test_real_answers_are_the_documented_types(api: Api) -> None:
    """Each tournament route's answers, success and problem, are exactly what the OpenAPI
    document says they are (decoded with the documented type, nothing lost or added)."""
    doc = (await api.request("GET", "/openapi.json")).body
    director, a, b = [await api.register() for _ in range(3)]
    body = {"command_id": str(uuid.uuid4()), "options": {"format": "swiss", "rounds": 1}}
    made = await api.request("POST", "/tournaments", user=director, json=body)
    created = conforms(doc, "post", "/tournaments", made)
    tid = created.id
    conforms(
        doc,
        "post",
        "/tournaments",
        await api.request("POST", "/tournaments", user=director, json=body),
    )
    one = "/tournaments/{tournament_id}"
    for u in (a, b):
        conforms(
            doc,
            "post",
            one + "/entries",
            await api.request("POST", f"/tournaments/{tid}/entries", user=u),
        )
    again = await api.request("POST", f"/tournaments/{tid}/entries", user=a)
    assert conforms(doc, "post", one + "/entries", again).status == 409
    refused = await api.request("POST", f"/tournaments/{tid}/start", user=a)
    assert conforms(doc, "post", one + "/start", refused).status == 403
    started = conforms(
        doc,
        "post",
        one + "/start",
        await api.request("POST", f"/tournaments/{tid}/start", user=director),
    )
    assert started.status == "playing" and started.rounds[0].boards[0].table is not None
    conforms(doc, "get", one, await api.request("GET", f"/tournaments/{tid}"))
    conforms(doc, "get", "/tournaments", await api.request("GET", "/tournaments"))
    adjust = {"round": 1, "board": 1, "winner": a.account_id, "reason": "too early"}
    early = await api.request("POST", f"/tournaments/{tid}/adjust", user=director, json=adjust)
    assert conforms(doc, "post", one + "/adjust", early).status == 409
    left = await api.request("DELETE", f"/tournaments/{tid}/entries/me", user=b)
    assert conforms(doc, "delete", one + "/entries/me", left).status == "finished"
    missing = await api.request("GET", f"/tournaments/{uuid.uuid4()}")
    assert conforms(doc, "get", one, missing).status == 404
