"""Accounts: register, log in, log out, guests; and the lobby."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp.test_utils import TestClient

from server.keys import CONFIG
from tests.server.conftest import Api, User, connect, only


async def test_register_then_me(api: Api) -> None:
    r = await api.request(
        "POST",
        "/accounts",
        json={"username": "marie.curie", "password": "radium-1898", "display_name": "Marie"},
    )
    assert r.status == 201
    body = r.body
    assert set(body) == {"token", "account_id", "username", "display_name", "guest", "expires_in"}
    assert body["expires_in"] == api.app[CONFIG].token_ttl  # type: ignore[index]
    assert body["username"] == "marie.curie" and body["display_name"] == "Marie"
    assert body["guest"] is False and len(body["token"]) >= 32
    me = await api.request("GET", "/me", headers={"Authorization": f"Bearer {body['token']}"})
    assert me.status == 200
    fields = ("account_id", "username", "display_name", "guest")
    assert me.body == {**{k: body[k] for k in fields}, "bot": False}
    # The display name defaults to the username.
    plain = await api.request(
        "POST", "/accounts", json={"username": "pierre", "password": "polonium-1898"}
    )
    assert plain.status == 201 and plain.body["display_name"] == "pierre"


async def test_login_wrong_password_and_unknown_user(api: Api) -> None:
    user = await api.register("ada", password="analytical engine")
    ok = await api.request(
        "POST", "/sessions", json={"username": "ada", "password": "analytical engine"}
    )
    assert ok.status == 200
    assert ok.body["account_id"] == user.account_id and ok.body["token"] != user.token
    wrong = await api.request(
        "POST", "/sessions", json={"username": "ada", "password": "difference"}
    )
    unknown = await api.request(
        "POST", "/sessions", json={"username": "nobody", "password": "analytical engine"}
    )
    for reply in (wrong, unknown):
        problem = reply.problem(401, "unauthorized")
        assert "wrong username or password" in problem["detail"]
    # The same answer for both, so a caller cannot probe for usernames.
    assert wrong.body == unknown.body
    # Both tokens work.
    for token in (user.token, ok.body["token"]):
        me = await api.request("GET", "/me", headers={"Authorization": f"Bearer {token}"})
        assert me.status == 200 and me.body["username"] == "ada"


async def test_duplicate_username_and_bad_fields(api: Api) -> None:
    await api.register("grace")
    dup = await api.request(
        "POST", "/accounts", json={"username": "grace", "password": "another password"}
    )
    assert dup.problem(409, "username-taken")["field"] == "username"
    for body, field in (
        ({"username": "gh", "password": "long enough"}, "username"),
        ({"username": "has space", "password": "long enough"}, "username"),
        ({"username": "x" * 33, "password": "long enough"}, "username"),
        ({"username": "hopper", "password": "short"}, "password"),
        ({"username": "hopper", "password": 12345678}, "password"),
        ({"username": "hopper", "password": "long enough", "admin": True}, "admin"),
        ({"password": "long enough"}, None),
    ):
        problem = (await api.request("POST", "/accounts", json=body)).problem(400)
        if field:
            assert problem["field"] == field, (body, problem)
    # None of them made an account.
    login = await api.request(
        "POST", "/sessions", json={"username": "hopper", "password": "long enough"}
    )
    login.problem(401)


async def test_logout_revokes_only_that_token(api: Api) -> None:
    user = await api.register("alan", password="enigma machine")
    second = await api.request(
        "POST", "/sessions", json={"username": "alan", "password": "enigma machine"}
    )
    other = {"Authorization": f"Bearer {second.body['token']}"}
    assert (await api.request("DELETE", "/sessions", user=user)).status == 204
    (await api.request("GET", "/me", user=user)).problem(401)
    (await api.request("DELETE", "/sessions", user=user)).problem(401)
    (await api.request("POST", "/tables", user=user, json={"kind": "money"})).problem(401)
    assert (await api.request("GET", "/me", headers=other)).status == 200


async def test_guests_play_without_an_account(api: Api) -> None:
    bare = await api.request("POST", "/guests")
    assert bare.status == 201 and bare.body["guest"] is True
    assert bare.body["expires_in"] == api.app[CONFIG].guest_token_ttl  # type: ignore[index]
    assert bare.body["username"].startswith("guest-")
    named = await api.guest("Visitor")
    assert named.display_name == "Visitor"
    host = await api.register()
    table = await api.create_table(host, "money")
    await api.ok(host, table, "join")
    joined = await api.ok(named, table, "join")
    assert joined["events"][0]["d"]["display_name"] == "Visitor"
    s = await api.state(table, named)
    assert s["role"] == "player" and "roll" in s["allowed"]
    me = await api.request("GET", "/me", user=named)
    assert me.body["guest"] is True
    # A guest has no password, so cannot log in again; logging out ends the guest session.
    (
        await api.request(
            "POST", "/sessions", json={"username": named.username, "password": "anything at all"}
        )
    ).problem(401)
    assert (await api.request("DELETE", "/sessions", user=named)).status == 204
    (await api.send(named, table, {"type": "roll"})).problem(401)
    bad = await api.request("POST", "/guests", json={"display_name": "x" * 65})
    bad.problem(400)


# -- lobby ----------------------------------------------------------------------------------------


async def lobby_until(
    api: Api, query: str, predicate: Any, timeout: float = 10
) -> list[dict[str, Any]]:
    """The lobby listing once the projector has caught up with what ``predicate`` expects."""
    async with asyncio.timeout(timeout):
        while True:
            r = await api.request("GET", f"/tables{query}")
            assert r.status == 200, r.body
            if predicate(r.body["tables"]):
                return list(r.body["tables"])
            await asyncio.sleep(0.05)


async def test_the_lobby_lists_open_and_running_tables(api: Api) -> None:
    assert (await api.request("GET", "/tables")).body == {"tables": []}
    a, b, c = [await api.register() for _ in range(3)]
    money = await api.create_table(a, "money", beavers=True, jacoby=True)
    match = await api.create_table(b, "match", match_length=7)
    short = await api.create_table(c, "match", match_length=1)
    chouette = await api.create_table(c, "chouette", max_players=5, consultation="none")
    await api.ok(c, chouette, "join")
    await api.ok(a, money, "join")
    await api.ok(b, money, "join")  # starts a game
    await api.ok(b, match, "join")
    await api.ok(c, short, "join")
    await api.ok(a, short, "join")

    tables = await lobby_until(
        api,
        "",
        lambda ts: (
            {t["id"]: t["status"] for t in ts}
            == {money: "playing", match: "open", short: "playing", chouette: "open"}
        ),
    )
    by_id = {t["id"]: t for t in tables}
    m = by_id[money]
    assert m["kind"] == "money" and m["status"] == "playing" and m["games"] == 1
    assert m["options"]["beavers"] is True and m["options"]["jacoby"] is True
    assert sorted(m["players"]) == sorted([a.account_id, b.account_id])
    assert m["seats"] == 2 and m["free_seats"] == 0
    t = by_id[match]
    assert t["kind"] == "match" and t["status"] == "open" and t["options"]["match_length"] == 7
    assert t["players"] == [b.account_id] and t["free_seats"] == 1
    for entry in tables:
        assert {"id", "kind", "name", "options", "players", "seats", "status"} <= set(entry)

    only = await lobby_until(api, "?kind=match", lambda ts: len(ts) == 2)
    assert {x["id"] for x in only} == {match, short}
    assert {x["id"] for x in await lobby_until(api, "?kind=money", lambda ts: len(ts) == 1)} == {
        money
    }
    (ch,) = await lobby_until(api, "?kind=chouette", lambda ts: len(ts) == 1)
    assert ch["id"] == chouette and ch["seats"] == 5 and ch["free_seats"] == 4
    assert ch["options"]["consultation"] == "none" and ch["players"] == [c.account_id]
    problem = (await api.request("GET", "/tables?kind=poker")).problem(400, "bad-request")
    assert problem["field"] == "kind"

    # A finished match leaves the lobby.
    await _finish_one_point_match(api, short, {a.account_id: a, c.account_id: c})
    await lobby_until(api, "?kind=match", lambda ts: {x["id"] for x in ts} == {match})


async def _finish_one_point_match(api: Api, table: str, users: dict[str, User]) -> None:
    s = await api.state(table)
    await api.ok(users[s["seats"][0]], table, "roll")
    s = await api.state(table)
    mover = users[only(s["game"]["to_act"])]
    await api.ok(mover, table, "move", notation=s["game"]["legal_plays"][0]["notation"])
    s = await api.state(table)
    on_roll = users[only(s["game"]["to_act"])]
    other = next(u for u in users.values() if u is not on_roll)
    await api.ok(on_roll, table, "double")
    await api.ok(other, table, "drop")
    assert (await api.state(table))["match_winner"] == on_roll.account_id


async def test_the_lobby_counts_the_spectators_watching_a_table(
    api: Api, client: TestClient
) -> None:
    a, watcher = [await api.register() for _ in range(2)]
    table = await api.create_table(a, "money")
    await api.ok(a, table, "join")
    player = await connect(client, table, a)  # a player is not a spectator
    anonymous = await connect(client, table)
    account = await connect(client, table, watcher)

    def spectators(ts: list[dict[str, Any]]) -> int:  # -1 until the lobby lists the table
        return next((t["spectators"] for t in ts if t["id"] == table), -1)

    await lobby_until(api, "", lambda ts: spectators(ts) == 2)
    await anonymous.close()
    await lobby_until(api, "", lambda ts: spectators(ts) == 1)
    await account.close()
    await player.close()
    await lobby_until(api, "", lambda ts: spectators(ts) == 0)
