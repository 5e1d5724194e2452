"""Bad input and abuse at the tournaments' door (docs/tournaments.md, issue 32 item 6): each is
a clear 4xx problem, never a 500, and writes nothing to the tournament's stream.

Joining twice, after the window or the start, into a full field; a guest in a rated tournament
or creating one; a non-director starting or adjusting; huge, negative and non-integer numbers,
unknown fields, NUL and control characters in names and reasons; options that do not go
together; a private tournament, which is a 404 to whoever is not its director, invited or
entered, and absent from their list; an adjustment with a recorded reason, by the director.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

from events.store.streams import tournament_stream
from server.config import Rate
from server.keys import TABLES
from tests.server.conftest import Api, User
from tests.server.tournaments.helpers import create, forfeit, seated, until, view


async def _version(api: Api, tid: str) -> int:
    assert api.app is not None
    return await api.app[TABLES].store.stream_version(tournament_stream(tid))


async def _refused(
    api: Api, method: str, path: str, user: User | None, body: Any, status: int, tid: str
) -> dict[str, Any]:
    before = await _version(api, tid)
    r = await api.request(method, path, user=user, json=body)
    assert r.status == status, (path, body, r.status, r.body)
    assert r.content_type == "application/problem+json"
    assert "asyncpg" not in str(r.body) and "SQL" not in str(r.body)
    assert await _version(api, tid) == before, (path, body)
    return dict(r.body)


async def test_entries_twice_late_full_and_by_a_guest_are_refused(api: Api) -> None:
    director = await api.register()
    tid = await create(api, director, format="knockout", rated=True, max_field=3)
    entries = f"/tournaments/{tid}/entries"
    a, b, c, d = [await api.register() for _ in range(4)]
    guest = await api.guest("Visitor")
    for u in (a, b):
        assert (await api.request("POST", entries, user=u)).status == 200
    p = await _refused(api, "POST", entries, a, None, 409, tid)
    assert "already entered" in p["detail"]
    p = await _refused(api, "POST", entries, guest, None, 403, tid)
    assert "registered" in p["detail"]
    await _refused(api, "POST", entries, None, None, 401, tid)
    assert (await api.request("POST", entries, user=c)).status == 200
    p = await _refused(api, "POST", entries, d, None, 409, tid)
    assert "full" in p["detail"]
    # A withdrawal frees a place; entering again after withdrawing is not allowed.
    r = await api.request("DELETE", f"{entries}/me", user=c)
    assert r.status == 200 and r.body["entrants"][2]["withdrawn"]
    await _refused(api, "DELETE", f"{entries}/me", c, None, 409, tid)
    await _refused(api, "POST", entries, c, None, 409, tid)
    assert (await api.request("POST", entries, user=d)).status == 200
    # Only the director starts; then entries are closed.
    p = await _refused(api, "POST", f"/tournaments/{tid}/start", a, None, 403, tid)
    assert "director" in p["detail"]
    assert (await api.request("POST", f"/tournaments/{tid}/start", user=director)).status == 200
    await _refused(api, "POST", f"/tournaments/{tid}/start", director, None, 409, tid)
    e = await api.register()
    p = await _refused(api, "POST", entries, e, None, 409, tid)
    assert "closed" in p["detail"]
    # A guest may not direct one at all.
    r = await api.request(
        "POST", "/tournaments", user=guest, json={"options": {"format": "knockout"}}
    )
    assert r.status == 403, r.body


async def test_the_entry_window_closes(api: Api) -> None:
    director = await api.register()
    closes = int(time.time() * 1000) - 1
    tid = await create(api, director, format="round_robin", entries_close=closes)
    p = await _refused(
        api, "POST", f"/tournaments/{tid}/entries", await api.register(), {}, 409, tid
    )
    assert "window" in p["detail"]


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"format": "swiss"}, None),  # a Swiss tournament needs its rounds
        ({"format": "knockout", "rounds": 3}, None),
        ({"format": "swiss", "rounds": 3, "third_place": True}, None),
        ({"format": "round_robin", "max_field": 33}, None),
        ({"format": "knockout", "max_field": 257}, "options.max_field"),
        ({"format": "knockout", "max_field": -1}, "options.max_field"),
        ({"format": "swiss", "rounds": 10**30}, "options.rounds"),
        ({"format": "swiss", "rounds": 21}, "options.rounds"),
        ({"format": "knockout", "match_length": 0}, "options.match_length"),
        ({"format": "knockout", "match_length": 1.5}, "options.match_length"),
        ({"format": "knockout", "show_seconds": 1}, "options.show_seconds"),
        ({"format": "knockout", "entries_close": -5}, "options.entries_close"),
        ({"format": "knockout", "colour": "red"}, "options.colour"),
        ({"format": "ladder"}, "options.format"),
        ({"format": "knockout", "invited": ["u_x"]}, None),  # invited, but not private
        ({"format": "knockout", "private": True, "invited": ["u\x00x"]}, None),
    ],
)
async def test_bad_options_are_400s(api: Api, options: dict[str, Any], field: str | None) -> None:
    director = await api.register()
    r = await api.request("POST", "/tournaments", user=director, json={"options": options})
    assert r.status == 400, (options, r.body)
    assert r.content_type == "application/problem+json"
    if field is not None:
        assert r.body.get("field") == field, r.body
    listed = await api.request("GET", "/tournaments", user=director)
    assert listed.body["tournaments"] == []


@pytest.mark.parametrize(
    "body",
    [
        {"options": {"format": "knockout"}, "name": "Club\x00night"},
        {"options": {"format": "knockout"}, "name": "Club\nnight"},
        {"options": {"format": "knockout"}, "name": "x" * 101},
        {"options": {"format": "knockout"}, "extra": 1},
        {"options": {"format": "knockout"}, "command_id": "not-a-uuid"},
    ],
)
async def test_bad_bodies_are_400s(api: Api, body: dict[str, Any]) -> None:
    director = await api.register()
    r = await api.request("POST", "/tournaments", user=director, json=body)
    assert r.status == 400, (body, r.body)
    assert (await api.request("GET", "/tournaments")).body["tournaments"] == []


async def test_unknown_and_malformed_ids_are_404s(api: Api) -> None:
    user = await api.register()
    for tid in (str(uuid.uuid4()), "not-a-uuid", "x" * 500):
        for method, path in (
            ("GET", f"/tournaments/{tid}"),
            ("POST", f"/tournaments/{tid}/entries"),
            ("POST", f"/tournaments/{tid}/start"),
            ("DELETE", f"/tournaments/{tid}/entries/me"),
        ):
            r = await api.request(method, path, user=user)
            assert r.status == 404, (method, path, r.body)


async def test_a_private_tournament_is_seen_only_by_its_people(api: Api) -> None:
    director, invited, stranger = [await api.register() for _ in range(3)]
    tid = await create(
        api, director, format="round_robin", private=True, invited=[invited.account_id]
    )
    for who in (stranger, None):
        await _refused(api, "GET", f"/tournaments/{tid}", who, None, 404, tid)
        listed = await api.request("GET", "/tournaments", user=who)
        assert tid not in [t["id"] for t in listed.body["tournaments"]]
    await _refused(api, "POST", f"/tournaments/{tid}/entries", stranger, None, 404, tid)
    r = await api.request("POST", f"/tournaments/{tid}/entries", user=invited)
    assert r.status == 200, r.body
    assert (await view(api, tid, invited))["id"] == tid
    listed = await api.request("GET", "/tournaments", user=invited)
    assert tid in [t["id"] for t in listed.body["tournaments"]]
    assert (await api.request("POST", f"/tournaments/{tid}/entries", user=director)).status == 200
    r = await api.request("POST", f"/tournaments/{tid}/start", user=director)
    assert r.status == 200, r.body
    v = await view(api, tid, director)
    table = v["rounds"][0]["boards"][0]["table_id"]
    await seated(api, table, director)
    # Its match table is private: the stranger gets the unknown table's 404.
    r = await api.request("GET", f"/tables/{table}", user=stranger)
    assert r.status == 404
    assert (await api.request("GET", f"/tables/{table}", user=invited)).status == 200


async def test_only_the_director_adjusts_with_a_reason(api: Api) -> None:
    director = await api.register()
    tid = await create(api, director, format="swiss", rounds=2, match_length=1)
    players = [await api.register() for _ in range(4)]
    users = {u.account_id: u for u in players}
    for u in players:
        assert (await api.request("POST", f"/tournaments/{tid}/entries", user=u)).status == 200
    assert (await api.request("POST", f"/tournaments/{tid}/start", user=director)).status == 200
    v = await view(api, tid)
    board = v["rounds"][0]["boards"][0]
    await forfeit(api, board["table_id"], users, loser=board["b"])
    v = await until(api, tid, lambda v: v["rounds"][0]["boards"][0]["decided"])
    assert v["rounds"][0]["boards"][0]["winner"] == board["a"]
    adjust = f"/tournaments/{tid}/adjust"
    good = {"round": 1, "board": 1, "winner": board["b"], "reason": "a wrong click, agreed"}
    outsider = next(p for p in users if p not in (board["a"], board["b"]))
    await _refused(api, "POST", adjust, users[board["a"]], good, 403, tid)
    for bad, status in (
        ({**good, "reason": ""}, 400),
        ({**good, "reason": "a\x00b"}, 400),
        ({**good, "round": 0}, 400),
        ({**good, "board": 10**12}, 400),
        ({**good, "round": 9}, 409),
        ({**good, "board": 2}, 409),  # not decided yet
        ({**good, "winner": outsider}, 409),  # not on the board
        ({**good, "note": "x"}, 400),
    ):
        await _refused(api, "POST", adjust, director, bad, status, tid)
    r = await api.request("POST", adjust, user=director, json=good)
    assert r.status == 200, r.body
    adjusted = r.body["rounds"][0]["boards"][0]
    assert adjusted["winner"] == board["b"] and adjusted["how"] == "adjusted"
    assert adjusted["reason"] == "a wrong click, agreed"


async def test_creating_tournaments_is_rate_limited_as_tables_are(make_api: Any) -> None:
    api: Api = await make_api(rate_limits=True, rate_tables=Rate(1, 3600))
    director = await api.register()
    await create(api, director, format="knockout")
    r = await api.request(
        "POST", "/tournaments", user=director, json={"options": {"format": "swiss", "rounds": 2}}
    )
    assert r.status == 429 and "Retry-After" in r.headers, r.body
    listed = (await api.request("GET", "/tournaments")).body["tournaments"]
    assert [t["format"] for t in listed] == ["knockout"]
