"""Private tables and invitations (issue 15): a private table never appears to someone without
access — not in the lobby, not by id on any route, not on its streams — and answers them exactly
as a table that does not exist; an invitation code lets an account in; a revoked code stops
working, for redeeming and for the access it gave."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import WSCloseCode

from server.http.social import READ_MODELS
from server.keys import LOBBY
from tests.server.conftest import Api, User, WsClient, connect, read_sse, ticket

ROUTES = [
    ("GET", "/tables/{id}"),
    ("GET", "/tables/{id}/replay"),
    ("GET", "/tables/{id}/audit"),
    ("GET", "/tables/{id}/export.mat"),
    ("GET", "/tables/{id}/ratings"),
    ("GET", "/tables/{id}/invitations"),
    ("POST", "/tables/{id}/invitations"),
    ("DELETE", "/tables/{id}/invitations/" + "0" * 32),
    ("POST", "/tables/{id}/bots"),
    ("DELETE", "/tables/{id}/bots/b_x"),
]


async def _answers(api: Api, table_id: str, user: User | None) -> list[tuple[int, Any]]:
    """What every route of a table answers ``user``, with the table's id written as ``<id>``
    (so that a private table's answers can be compared with an unknown table's)."""
    out: list[tuple[int, Any]] = []
    for method, path in ROUTES:
        r = await api.request(method, path.format(id=table_id), user=user, json={})
        out.append((r.status, str(r.body).replace(table_id, "<id>")))
    join = await api.send(user, table_id, {"type": "join"}) if user else None
    if join is not None:
        out.append((join.status, str(join.body).replace(table_id, "<id>")))
    async with api.client.get(f"/tables/{table_id}/events") as resp:
        out.append((resp.status, (await resp.text()).replace(table_id, "<id>")))
    path = f"/tables/{table_id}/ws"
    if user is not None:
        path += f"?ticket={await ticket(api.client, user)}"
    async with api.client.get(path) as resp:  # a plain GET: the handshake is refused first
        out.append((resp.status, (await resp.text()).replace(table_id, "<id>")))
    return out


async def _lobby_ids(api: Api, user: User | None) -> set[str]:
    r = await api.request("GET", "/tables", user=user)
    assert r.status == 200
    return {t["id"] for t in r.body["tables"]}


async def test_a_private_table_is_unknown_to_strangers(api: Api) -> None:
    owner, stranger = await api.register(), await api.register()
    guest = await api.guest()
    r = await api.request(
        "POST",
        "/tables",
        user=owner,
        json={"kind": "chouette", "name": "Thursday club", "options": {"private": True}},
    )
    assert r.status == 201, r.body
    table_id = r.body["id"]
    assert r.body["table"]["options"]["private"] is True
    await api.ok(owner, table_id, "join")
    assert api.app is not None
    await api.app[READ_MODELS].catch_up()
    await api.app[LOBBY].catch_up()

    public = await api.create_table(owner, "money")
    await api.app[LOBBY].catch_up()
    assert public in await _lobby_ids(api, None)
    unknown = str(uuid.uuid4())
    for who in (stranger, guest, None):
        ids = await _lobby_ids(api, who)
        assert table_id not in ids
        # Every route: exactly what a table that does not exist answers.
        assert await _answers(api, table_id, who) == await _answers(api, unknown, who)

    # The owner sees it, and finds it by name among their tables.
    assert (await api.request("GET", f"/tables/{table_id}", user=owner)).status == 200
    mine = await api.request("GET", "/me/tables?name=thursday", user=owner)
    assert [t["table_id"] for t in mine.body["tables"]] == [table_id]
    assert (await api.request("GET", "/me/tables", user=stranger)).body["tables"] == []
    assert (await api.request("GET", "/me/tables?name=club", user=stranger)).body["tables"] == []


async def test_an_invitation_lets_in_and_a_revoked_one_stops_working(api: Api) -> None:
    owner, friend, other, late = (
        (await api.register() for _ in range(4)).__aiter__(),
        None,
        None,
        None,
    )  # type: ignore[attr-defined]
    del owner, friend, other, late
    owner, friend, other, late = [await api.register() for _ in range(4)]
    r = await api.request(
        "POST", "/tables", user=owner, json={"kind": "money", "options": {"private": True}}
    )
    table_id = r.body["id"]

    # Only the creator manages invitations.
    made = await api.request("POST", f"/tables/{table_id}/invitations", user=owner)
    assert made.status == 201, made.body
    code, invitation = made.body["code"], made.body["invitation_id"]
    assert len(code) >= 32 and made.body["link"].endswith(code)
    second = await api.request("POST", f"/tables/{table_id}/invitations", user=owner)
    assert second.body["code"] != code

    # A wrong code is refused; the right one lets friend and other in.
    wrong = await api.request("POST", "/invitations", user=friend, json={"code": "x" * 32})
    wrong.problem(404)
    for who in (friend, other):
        ok = await api.request("POST", "/invitations", user=who, json={"code": code})
        assert ok.status == 200, ok.body
        assert ok.body["table_id"] == table_id
        assert (await api.request("GET", f"/tables/{table_id}", user=who)).status == 200
    listed = await api.request("GET", f"/tables/{table_id}/invitations", user=owner)
    assert [(i["invitation_id"], i["redeemed_by"]) for i in listed.body["invitations"]] == [
        (invitation, 2),
        (second.body["invitation_id"], 0),
    ]
    assert "code" not in str(listed.body)
    (await api.request("GET", f"/tables/{table_id}/invitations", user=friend)).problem(403)
    (await api.request("POST", f"/tables/{table_id}/invitations", user=friend)).problem(403)

    # friend joins (a player keeps access); other only watches.
    await api.ok(friend, table_id, "join")
    ws_ok = await api.client.ws_connect(
        f"/tables/{table_id}/ws?ticket={await ticket(api.client, other)}"
    )
    await ws_ok.close()

    # Revoked: the code stops working, and so does the access it gave to the watcher.
    gone = await api.request("DELETE", f"/tables/{table_id}/invitations/{invitation}", user=owner)
    assert gone.status == 204
    (await api.request("POST", "/invitations", user=late, json={"code": code})).problem(404)
    (await api.request("GET", f"/tables/{table_id}", user=other)).problem(404)
    (await api.request("GET", f"/tables/{table_id}", user=late)).problem(404)
    async with api.client.get(
        f"/tables/{table_id}/ws?ticket={await ticket(api.client, other)}"
    ) as resp:
        assert resp.status == 404
    assert (await api.request("GET", f"/tables/{table_id}", user=friend)).status == 200
    # The other code still works.
    again = await api.request("POST", "/invitations", user=late, json={"code": second.body["code"]})
    assert again.status == 200
    assert (await api.request("GET", f"/tables/{table_id}", user=late)).status == 200
    # Revoking is for a known invitation of this table.
    (await api.request("DELETE", f"/tables/{table_id}/invitations/{'f' * 32}", user=owner)).problem(
        404
    )


async def test_invitations_are_for_private_tables_and_rated_for_matches(api: Api) -> None:
    owner = await api.register()
    public = await api.create_table(owner, "money")
    (await api.request("POST", f"/tables/{public}/invitations", user=owner)).problem(
        409, "not-private"
    )
    for kind, options in (
        ("money", {"rated": True}),
        ("chouette", {"rated": True}),
        ("match", {"rated": True, "match_length": 0}),
    ):
        r = await api.request(
            "POST", "/tables", user=owner, json={"kind": kind, "options": options}
        )
        r.problem(400)
    guest = await api.guest()
    r = await api.request(
        "POST",
        "/tables",
        user=guest,
        json={"kind": "match", "options": {"rated": True, "match_length": 3}},
    )
    r.problem(403)
    r = await api.request(
        "POST",
        "/tables",
        user=owner,
        json={"kind": "match", "options": {"rated": True, "match_length": 3}},
    )
    assert r.status == 201 and r.body["table"]["options"]["registered_only"] is True
    (await api.send(guest, r.body["id"], {"type": "join"})).problem(403)


async def test_hostile_input_on_the_invitation_routes(api: Api) -> None:
    owner = await api.register()
    r = await api.request(
        "POST", "/tables", user=owner, json={"kind": "money", "options": {"private": True}}
    )
    table_id = r.body["id"]
    for body in (
        {"code": "a\x00" * 10},
        {"code": "x" * 65},
        {"code": "short"},
        {"code": 5},
        {"code": "x" * 32, "extra": 1},
        {},
        [],
    ):
        reply = await api.request("POST", "/invitations", user=owner, json=body)
        reply.problem(400)
    (await api.request("POST", "/invitations", json={"code": "x" * 32})).problem(401)
    bad = await api.request(
        "POST", "/invitations", user=owner, data="{", headers={"Content-Type": "application/json"}
    )
    bad.problem(400)
    for inv in ("%00", "x" * 200, "Z" * 32, "..%2F..%2Fetc"):
        reply = await api.request("DELETE", f"/tables/{table_id}/invitations/{inv}", user=owner)
        assert reply.status == 404, reply.body
    for name in ("%00", "a%0Ab", "x" * 101):
        (await api.request("GET", f"/me/tables?name={name}", user=owner)).problem(400)
    (await api.request("GET", "/me/tables")).problem(401)


async def _private(api: Api, owner: User, kind: str = "money", name: str = "") -> str:
    r = await api.request(
        "POST",
        "/tables",
        user=owner,
        json={"kind": kind, "name": name, "options": {"private": True}},
    )
    assert r.status == 201, r.body
    return str(r.body["id"])


async def _invite(api: Api, owner: User, table_id: str) -> tuple[str, str]:
    """A new invitation to the table: its id and its code."""
    made = await api.request("POST", f"/tables/{table_id}/invitations", user=owner)
    assert made.status == 201, made.body
    return made.body["invitation_id"], made.body["code"]


async def test_revoking_one_of_two_redeemed_invitations_keeps_the_other_s_access(
    api: Api,
) -> None:
    owner, friend = await api.register(), await api.register()
    table_id = await _private(api, owner, name="Two codes")
    (first, first_code), (second, second_code) = [await _invite(api, owner, table_id) for _ in "ab"]
    for code in (first_code, second_code):
        ok = await api.request("POST", "/invitations", user=friend, json={"code": code})
        assert ok.status == 200, ok.body
    # A code redeemed again by the same account counts once.
    again = await api.request("POST", "/invitations", user=friend, json={"code": first_code})
    assert again.status == 200, again.body
    listed = await api.request("GET", f"/tables/{table_id}/invitations", user=owner)
    assert [(i["invitation_id"], i["redeemed_by"]) for i in listed.body["invitations"]] == [
        (first, 1),
        (second, 1),
    ]
    assert api.app is not None
    await api.app[READ_MODELS].catch_up()

    # Either one revoked: the other still gives access (both orders).
    gone = await api.request("DELETE", f"/tables/{table_id}/invitations/{second}", user=owner)
    assert gone.status == 204
    assert (await api.request("GET", f"/tables/{table_id}", user=friend)).status == 200
    mine = await api.request("GET", "/me/tables", user=friend)
    assert [t["table_id"] for t in mine.body["tables"]] == [table_id]
    async with api.client.get(
        f"/tables/{table_id}/events?ticket={await ticket(api.client, friend)}"
    ) as resp:
        assert resp.status == 200

    # Both revoked: no access left.
    gone = await api.request("DELETE", f"/tables/{table_id}/invitations/{first}", user=owner)
    assert gone.status == 204
    (await api.request("GET", f"/tables/{table_id}", user=friend)).problem(404)
    assert (await api.request("GET", "/me/tables", user=friend)).body["tables"] == []


async def test_the_first_of_two_redeemed_invitations_revoked_keeps_the_second_s_access(
    api: Api,
) -> None:
    owner, friend = await api.register(), await api.register()
    table_id = await _private(api, owner)
    (first, first_code), (_, second_code) = [await _invite(api, owner, table_id) for _ in "ab"]
    for code in (first_code, second_code):
        ok = await api.request("POST", "/invitations", user=friend, json={"code": code})
        assert ok.status == 200, ok.body
    gone = await api.request("DELETE", f"/tables/{table_id}/invitations/{first}", user=owner)
    assert gone.status == 204
    assert (await api.request("GET", f"/tables/{table_id}", user=friend)).status == 200


MakeApi = Callable[..., Awaitable[Api]]


async def _closed_within(sock: WsClient, seconds: float) -> None:
    async with asyncio.timeout(seconds):
        assert sock.task is not None
        await sock.task


async def test_a_revoked_watcher_s_streams_close_within_the_session_check(
    make_api: MakeApi,
) -> None:
    api = await make_api(session_check=0.3)
    owner, watcher, twice = [await api.register() for _ in range(3)]
    table_id = await _private(api, owner, name="Watched")
    await api.ok(owner, table_id, "join")
    (revoked, code), (_, other_code) = [await _invite(api, owner, table_id) for _ in "ab"]
    for who, codes in ((watcher, [code]), (twice, [code, other_code])):
        for c in codes:
            ok = await api.request("POST", "/invitations", user=who, json={"code": c})
            assert ok.status == 200, ok.body
    sock = await connect(api.client, table_id, watcher)
    kept = await connect(api.client, table_id, twice)  # the other code still lets them in
    player = await connect(api.client, table_id, owner)
    events = await api.client.get(
        f"/tables/{table_id}/events?ticket={await ticket(api.client, watcher)}"
    )
    assert events.status == 200
    head, _ = await api.versions(table_id)
    assert len(await read_sse(events, head)) == head
    await asyncio.sleep(1)  # checked a few times, and still allowed
    assert sock.task is not None and not sock.task.done()

    gone = await api.request("DELETE", f"/tables/{table_id}/invitations/{revoked}", user=owner)
    assert gone.status == 204
    # A socket that sends nothing is closed by the server, and the event stream ends.
    await _closed_within(sock, 5)
    assert sock.ws.close_code == WSCloseCode.POLICY_VIOLATION
    async with asyncio.timeout(5):
        while await events.content.readline():
            pass
    events.close()

    # What is said afterwards reaches those who still have access, and not the revoked one.
    await api.ok(owner, table_id, "chat", text="after the revocation")
    for still in (kept, player):
        await still.wait_for(
            lambda c: any(m["d"].get("text") == "after the revocation" for m in c.stream("chat"))
        )
        assert still.task is not None and not still.task.done()
    assert not any(m["d"].get("text") == "after the revocation" for m in sock.stream("chat"))
    await kept.close()
    await player.close()


async def test_a_revoked_watcher_s_command_on_an_open_socket_is_refused(
    make_api: MakeApi,
) -> None:
    # The periodic check is slow here: the refusal comes from the command's own check.
    api = await make_api(session_check=60)
    owner, watcher = await api.register(), await api.register()
    table_id = await _private(api, owner)
    await api.ok(owner, table_id, "join")
    invitation, code = await _invite(api, owner, table_id)
    assert (await api.request("POST", "/invitations", user=watcher, json={"code": code})).status
    sock = await connect(api.client, table_id, watcher)
    await sock.wait_version(1)

    gone = await api.request("DELETE", f"/tables/{table_id}/invitations/{invitation}", user=owner)
    assert gone.status == 204
    before = await api.versions(table_id)
    for command in ({"type": "join"}, {"type": "chat", "text": "still here?"}):
        refused = await sock.command(command)
        # What a command for a table that does not exist answers.
        assert refused["ctl"] == "error", refused
        assert refused["problem"]["status"] == 404, refused
        assert refused["problem"]["detail"] == f"no table {table_id!r}", refused
        if sock.task is not None and sock.task.done():
            break
    assert await api.versions(table_id) == before
    await _closed_within(sock, 5)
    assert sock.ws.close_code == WSCloseCode.POLICY_VIOLATION


async def test_my_tables_match_the_words_of_a_name_in_any_order_and_spacing(api: Api) -> None:
    owner = await api.register()
    club = await _private(api, owner, "chouette", "The Thursday club")
    other = await _private(api, owner, "chouette", "Friday night")
    assert api.app is not None
    await api.app[READ_MODELS].catch_up()

    async def found(name: str) -> list[str]:
        r = await api.request("GET", f"/me/tables?name={name}", user=owner)
        assert r.status == 200, r.body
        return [t["table_id"] for t in r.body["tables"]]

    for name in (
        "thursday",
        "club%20thursday",
        "%20%20THURSDAY%20%20%20club%20",
        "thurs%20%20club",
        "club%20the",
        "Club",
    ):
        assert await found(name) == [club], name
    for name in ("friday%20club", "thursdayclub", "thursday%20night"):
        assert await found(name) == [], name
    assert await found("NIGHT%20%20friday") == [other]
    assert set(await found("")) == set(await found("%20%20")) == {club, other}
