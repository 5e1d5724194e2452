"""Bot accounts for outside engines (issue 33, parts 3 and 4; docs/bots.md, "Outside bots"), on
the real app and PostgreSQL: an owner marks their registered account a bot account
(``POST /me/bot``: password asked, guests and accounts with a rated match or a seat refused,
for good, hostile bodies changing nothing); every join it makes says so in the log
(``player_joined.bot``), from which the table view, the lobby, the ratings and their rebuilds
agree; a rated match rates it only when its table says so; and it is an ordinary account for
everything else — team chat, rate limits, private tables, invitations and clocks — and never
one the server's bot runner plays."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import msgspec
import pytest
from aiohttp.test_utils import TestClient

from events.domain import types as e
from events.domain.dice import encode_seed_key
from events.records.simulate import simulate_table
from events.store.event_store import EventStore
from events.store.streams import new_event, table_stream
from server.cli.main import main
from server.config import Rate
from server.http.social import READ_MODELS
from server.keys import ACCOUNTS_POOL, LOBBY, TABLES
from server.live.bots import BOTS
from server.readmodels.accounts import bots_at_unfinished_tables
from server.readmodels.ratings import RatingsProjector
from tests.server.conftest import Api, Reply, User, connect
from tests.server.people.social_events import snapshot
from tests.server.tables.test_timers import Clock, connected, events_of, timers

MakeApi = Callable[..., Awaitable[Api]]
PASSWORD = "correct horse"
"""``Api.register``'s password."""
SECRET = "the box is gammoned: double now"
FAIR_KEY = bytes(range(1, 33))
FAIR = {"dice_factory": None, "seed_key": FAIR_KEY}
"""The provably fair dice (as served), so that the audit checks every throw too."""


async def mark(api: Api, user: User, password: str = PASSWORD) -> Reply:
    return await api.request("POST", "/me/bot", user=user, json={"password": password})


async def bot_account(api: Api) -> User:
    """A freshly registered account, marked a bot account."""
    user = await api.register()
    r = await mark(api, user)
    assert r.status == 200 and r.body["bot"] is True, r.body
    return user


async def marked(api: Api, user: User) -> bool:
    pool = api.app[ACCOUNTS_POOL]  # type: ignore[index]
    return bool(
        await pool.fetchval(
            "SELECT outside_bot FROM accounts WHERE account_id = $1", user.account_id
        )
    )


async def caught_up(api: Api) -> None:
    assert api.app is not None
    await api.app[LOBBY].catch_up()
    await api.app[READ_MODELS].catch_up()


async def lobby_row(api: Api, table: str) -> dict[str, Any]:
    await caught_up(api)
    r = await api.request("GET", "/tables")
    assert r.status == 200, r.body
    return next(t for t in r.body["tables"] if t["id"] == table)


def players(view: dict[str, Any]) -> dict[str, bool]:
    """``{account id: bot}`` of a table view."""
    return {p["id"]: p["bot"] for p in view["players"]}


async def joined(api: Api, table: str) -> list[e.PlayerJoined]:
    return [ev for ev in await events_of(api, table) if isinstance(ev, e.PlayerJoined)]


async def audit_ok(api: Api, table: str) -> None:
    """The audit passes (a game in play: its dice pending until its seed is revealed)."""
    r = await api.request("GET", f"/tables/{table}/audit")
    assert r.status == 200 and r.body["status"] in ("ok", "pending"), r.body
    assert r.body["first_failure"] is None, r.body


# -- marking ----------------------------------------------------------------------------------


async def test_an_owner_marks_their_account_a_bot_account_for_good(
    api: Api, pool: asyncpg.Pool
) -> None:
    ann = await api.register()
    me = await api.request("GET", "/me", user=ann)
    assert me.body["bot"] is False

    # No token, a wrong password: refused, nothing written.
    (await api.request("POST", "/me/bot", json={"password": PASSWORD})).problem(401)
    (await mark(api, ann, "wrong horse")).problem(401, "unauthorized")
    assert not await marked(api, ann)

    r = await mark(api, ann)
    assert r.status == 200, r.body
    assert r.body == {
        "account_id": ann.account_id,
        "username": ann.username,
        "display_name": ann.display_name,
        "guest": False,
        "bot": True,
    }
    assert await marked(api, ann)
    assert (await api.request("GET", "/me", user=ann)).body["bot"] is True
    profile = await api.request("GET", f"/players/{ann.username}")
    assert profile.status == 200, profile.body
    assert profile.body["bot"] is True and profile.body["outside_bot"] is True
    # A bot account may be rated where a table says so: its rating is shown.
    assert profile.body["rating"]["rating"] == 1500
    person = await api.request("GET", f"/players/{(await api.register()).username}")
    assert person.body["bot"] is False and person.body["outside_bot"] is False

    # Asked again: answered as it is. Nothing unmarks it: no route, and the database refuses.
    again = await mark(api, ann)
    assert again.status == 200 and again.body == r.body
    for method in ("DELETE", "PUT", "PATCH", "GET"):
        assert (await api.request(method, "/me/bot", user=ann)).status == 405, method
    with pytest.raises(asyncpg.PostgresError, match="bot account for good") as refused:
        await pool.execute(
            "UPDATE accounts SET outside_bot = false WHERE account_id = $1", ann.account_id
        )
    with pytest.raises(asyncpg.PostgresError, match="bot account for good") as refused:
        await pool.execute(
            "UPDATE accounts SET outside_bot_at = now() WHERE account_id = $1", ann.account_id
        )
    assert refused.value.sqlstate == "CH007"
    # A guest, a server's bot: never marked, by the database's own check too.
    guest = await api.guest()
    with pytest.raises(asyncpg.CheckViolationError):
        await pool.execute(
            "UPDATE accounts SET outside_bot = true, outside_bot_at = now() WHERE account_id = $1",
            guest.account_id,
        )
    assert (await api.request("GET", "/me", user=ann)).body["bot"] is True


async def test_only_the_owner_marks_only_their_own_registered_account(api: Api) -> None:
    ann, bob = await api.register(), await api.register()
    # The token says whose account: a body naming another account is refused as unknown.
    for body in (
        {"password": PASSWORD, "account_id": ann.account_id},
        {"password": PASSWORD, "username": ann.username},
    ):
        r = await api.request("POST", "/me/bot", user=bob, json=body)
        r.problem(400)
    assert not await marked(api, ann) and not await marked(api, bob)
    # Bob's password is not Ann's.
    (await mark(api, bob, PASSWORD + "!")).problem(401)
    assert not await marked(api, bob)
    # A guest has no password and is not a registered account.
    guest = await api.guest()
    (await mark(api, guest, "anything at all")).problem(403, "not-registered")
    assert (await api.request("GET", "/me", user=guest)).body["bot"] is False


async def test_hostile_bodies_are_refused_and_change_nothing(api: Api) -> None:
    ann = await api.register()
    bodies: list[Any] = [
        {},
        {"password": ""},
        {"password": None},
        {"password": 12345678},
        {"password": ["correct horse"]},
        {"password": "correct\x00horse"},
        {"password": "correct horse\n"},
        {"password": "x" * 257},
        {"password": PASSWORD, "bot": False},
        [PASSWORD],
        "correct horse",
        None,
    ]
    for body in bodies:
        r = await api.request("POST", "/me/bot", user=ann, json=body)
        problem = r.problem(400)
        assert "SELECT" not in problem["detail"] and "asyncpg" not in problem["detail"]
    for raw in (b"{", b"\xff\xfe", b"", b'{"password": "correct horse"'):
        r = await api.request(
            "POST", "/me/bot", user=ann, data=raw, headers={"Content-Type": "application/json"}
        )
        r.problem(400)
    big = b'{"password": "' + b"x" * 200_000 + b'"}'
    r = await api.request(
        "POST", "/me/bot", user=ann, data=big, headers={"Content-Type": "application/json"}
    )
    assert r.status in (400, 413), r.status
    assert not await marked(api, ann)
    assert (await api.request("GET", "/me", user=ann)).body["bot"] is False


async def test_an_account_with_a_rated_match_or_an_unfinished_seat_is_not_marked(
    api: Api,
) -> None:
    ann, bob = await api.register(), await api.register()
    table = await api.create_table(ann, "match", match_length=1, rated=True)
    await api.ok(ann, table, "join")
    await api.ok(bob, table, "join")
    # Seated at a table not finished (as a person): refused, with the table named.
    seated = (await mark(api, ann)).problem(409, "seated")
    assert seated["tables"] == [table]
    opener = ann if (await api.state(table))["seats"][0] == ann.account_id else bob
    await api.ok(opener, table, "roll")  # the opening throw: the game is under way
    await api.ok(ann, table, "leave")  # a forfeit: Bob wins the match, rated
    await caught_up(api)
    changes = await api.request("GET", f"/tables/{table}/ratings")
    assert len(changes.body["changes"]) == 2, changes.body
    for who in (ann, bob):
        (await mark(api, who)).problem(409, "rated-matches-played")
        assert not await marked(api, who)

    # A seat at an open money table: refused until it is left.
    cat = await api.register()
    money = await api.create_table(ann, "money")
    await api.ok(cat, money, "join")
    assert (await mark(api, cat)).problem(409, "seated")["tables"] == [money]
    assert not await marked(api, cat)
    await api.ok(cat, money, "leave")
    assert (await mark(api, cat)).status == 200
    assert await marked(api, cat)


# -- the log says who sat as a bot ------------------------------------------------------------


async def test_a_bot_account_sits_as_a_bot_in_the_log_the_view_and_the_lobby(
    make_api: MakeApi,
) -> None:
    api = await make_api(**FAIR)
    client = api.client
    ann, robo = await api.register(), await bot_account(api)
    table = await api.create_table(ann, "money")
    await api.ok(ann, table, "join")
    # Nobody says it for themselves: a join with `bot` set is refused, over HTTP and the
    # socket, whoever sends it; nothing is written.
    before = await api.versions(table)
    for who in (robo, await api.register()):
        for bot in (True,):
            r = await api.send(who, table, {"type": "join", "bot": bot})
            assert r.problem(400)["field"] == "command.bot"
    sock = await connect(client, table, robo)
    try:
        reply = await sock.command({"type": "join", "bot": True})
        assert reply["ctl"] == "error" and reply["problem"]["status"] == 400, reply
    finally:
        await sock.close()
    assert await api.versions(table) == before

    result = await api.ok(robo, table, "join", bot=False)  # false is the default: as left out
    assert result["events"][0]["t"] == "player_joined"
    assert result["events"][0]["d"]["bot"] is True
    assert [(j.player, j.bot) for j in await joined(api, table)] == [
        (ann.account_id, False),
        (robo.account_id, True),
    ]
    view = await api.state(table)
    assert players(view) == {ann.account_id: False, robo.account_id: True}
    row = await lobby_row(api, table)
    assert row["bots"] == [robo.account_id]

    # The server's own bots say so too, beside it, at a chouette.
    club = await api.create_table(ann, "chouette")
    await api.ok(ann, club, "join")
    await api.ok(robo, club, "join")
    seated = await api.request("POST", f"/tables/{club}/bots", user=ann, json={"strength": "basic"})
    assert seated.status == 201, seated.body
    server_bot = seated.body["bot_id"]
    assert [(j.player, j.bot) for j in await joined(api, club)] == [
        (ann.account_id, False),
        (robo.account_id, True),
        (server_bot, True),
    ]
    assert players(await api.state(club)) == {
        ann.account_id: False,
        robo.account_id: True,
        server_bot: True,
    }
    assert (await lobby_row(api, club))["bots"] == [robo.account_id, server_bot]
    # The table's creator removes the server's bots, never a bot account.
    gone = await api.request("DELETE", f"/tables/{club}/bots/{robo.account_id}", user=ann)
    gone.problem(404)
    # The runner plays the server's bot only.
    assert api.app is not None
    assert set(api.app[BOTS].bots_at(club)) == {server_bot}
    assert api.app[BOTS].bots_at(table) == {}
    for t in (table, club):
        await audit_ok(api, t)


async def test_a_socket_opened_before_the_mark_joins_as_a_bot(api: Api, client: TestClient) -> None:
    ann, robo = await api.register(), await api.register()
    table = await api.create_table(ann, "money")
    sock = await connect(client, table, robo)  # its session says: not a bot
    try:
        assert (await mark(api, robo)).status == 200
        reply = await sock.command({"type": "join"})
        assert reply["ctl"] == "result", reply
        assert reply["events"][0]["d"]["bot"] is True
    finally:
        await sock.close()
    assert players(await api.state(table)) == {robo.account_id: True}


async def test_joins_recorded_before_the_field_read_as_before(make_api: MakeApi) -> None:
    """A table recorded before joins said who sat as a bot: its stored bytes have no ``bot``
    (kept so, the chain over them untouched), they decode with ``bot: false``, the audit
    re-derives them, and the server's bot among them is still told by its id."""
    api = await make_api(**FAIR)
    assert api.app is not None
    store = api.app[TABLES].store
    table = str(uuid.uuid4())
    sim = simulate_table(table, players=("u_ann", "b_old"), games=1, rng=random.Random(5))
    version = 0
    for step in sim.steps:
        appended = []
        for ev in step.events:
            new = new_event(ev)
            if isinstance(ev, e.PlayerJoined):
                raw = msgspec.json.decode(new.data)
                assert raw.pop("bot") is False
                new = msgspec.structs.replace(new, data=msgspec.json.encode(raw))
            appended.append(new)
        result = await store.append(
            table_stream(table),
            appended,
            expected_version=version,
            command_id=uuid.uuid4(),
            actor=step.actor,
        )
        version = result.last_version
    stored = [r for r in await store.read_stream(table_stream(table)) if r.type == "player_joined"]
    assert len(stored) == 2 and all(b'"bot"' not in r.data for r in stored)
    assert [(j.player, j.bot) for j in await joined(api, table)] == [
        ("u_ann", False),
        ("b_old", False),
    ]
    assert players(await api.state(table)) == {"u_ann": False, "b_old": True}
    assert (await lobby_row(api, table))["bots"] == ["b_old"]
    await audit_ok(api, table)


async def test_the_server_never_plays_a_bot_account_nor_after_a_restart(
    api: Api, make_api: MakeApi
) -> None:
    ann, robo = await api.register(), await bot_account(api)
    club = await api.create_table(ann, "chouette")
    await api.ok(ann, club, "join")
    await api.ok(robo, club, "join")
    seated = await api.request("POST", f"/tables/{club}/bots", user=ann, json={"strength": "basic"})
    assert seated.status == 201, seated.body
    server_bot = seated.body["bot_id"]
    await caught_up(api)
    pool = api.app[ACCOUNTS_POOL]  # type: ignore[index]
    assert [(t, bot) for t, bot, _ in await bots_at_unfinished_tables(pool)] == [(club, server_bot)]
    # A process started now watches again the bots of unfinished tables: the server's only.
    again = await make_api()
    assert again.app is not None
    runner = again.app[BOTS]
    assert runner.bots_at(club) == {server_bot: "basic"}
    assert players(await again.state(club)) == {
        ann.account_id: False,
        robo.account_id: True,
        server_bot: True,
    }


# -- ratings ----------------------------------------------------------------------------------


async def _rated_match(api: Api, a: User, b: User, rng: random.Random, **options: Any) -> str:
    """A rated 1-point match between ``a`` and ``b``, played to its end by legal plays."""
    table = await api.create_table(a, "match", match_length=1, rated=True, **options)
    await api.ok(a, table, "join")
    await api.ok(b, table, "join")
    users = {a.account_id: a, b.account_id: b}
    view = await api.play_out(table, users, rng)
    assert view["match_winner"] in users, view
    return table


async def _rating(api: Api, user: User) -> dict[str, Any]:
    r = await api.request("GET", f"/players/{user.username}")
    assert r.status == 200, r.body
    return dict(r.body["rating"])


async def test_bots_are_rated_only_where_the_table_says_so_and_a_rebuild_agrees(
    make_api: MakeApi, store: EventStore, owner_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = await make_api(**FAIR)
    # The CLI's rebuild opens the players' data keys with the server's seed key.
    monkeypatch.setenv("CHOUETTE_SEED_KEY", encode_seed_key(FAIR_KEY))
    rng = random.Random(33)
    ann, robo, droid = await api.register(), await bot_account(api), await bot_account(api)

    # A bot account against a person, against another bot account: not rated.
    unrated = [
        await _rated_match(api, ann, robo, rng),
        await _rated_match(api, robo, droid, rng),
    ]
    await caught_up(api)
    for table in unrated:
        r = await api.request("GET", f"/tables/{table}/ratings")
        assert r.body["rated"] is True and r.body["changes"] == [], r.body
    for user in (ann, robo, droid):
        assert await _rating(api, user) == {
            "rating": 1500.0,
            "experience": 0,
            "matches": 0,
            "won": 0,
        }

    # The same, at tables that rate bots: rated.
    rated = [
        await _rated_match(api, ann, robo, rng, bots_rated=True),
        await _rated_match(api, robo, droid, rng, bots_rated=True),
    ]
    await caught_up(api)
    for table in rated:
        r = await api.request("GET", f"/tables/{table}/ratings")
        assert r.body["rated"] is True and len(r.body["changes"]) == 2, r.body
    assert (await _rating(api, ann))["matches"] == 1
    assert (await _rating(api, robo))["matches"] == 2
    assert (await _rating(api, droid))["matches"] == 1
    for table in (*unrated, *rated):
        await audit_ok(api, table)

    # bots_rated is for rated matches only.
    r = await api.request(
        "POST",
        "/tables",
        user=ann,
        json={"kind": "match", "options": {"match_length": 3, "bots_rated": True}},
    )
    assert r.problem(400)["field"] == "options.bots_rated"

    # Rebuilt from the log alone, the ratings and the lobby are the same.
    ratings = await snapshot(store.pool, RatingsProjector.tables)
    lobby_sql = "SELECT table_id, players, bots, status, games, version FROM lobby_tables"
    lobby = sorted(map(tuple, await store.pool.fetch(lobby_sql)))
    assert any(row[2] for row in lobby)  # the bots are in it
    for model in ("ratings", "lobby"):
        status = await asyncio.to_thread(
            main, ["project", "rebuild", model, "--database-url", owner_url]
        )
        assert status == 0, model
    assert await snapshot(store.pool, RatingsProjector.tables) == ratings
    assert sorted(map(tuple, await store.pool.fetch(lobby_sql))) == lobby


# -- fair and safe ----------------------------------------------------------------------------


async def test_a_bot_account_as_the_box_gets_no_team_chat(api: Api, client: TestClient) -> None:
    users = [await bot_account(api) for _ in range(4)]
    table = await api.create_table(users[0], "chouette")
    for u in users:
        await api.ok(u, table, "join")
    await api.ok(users[0], table, "start_game")
    view = await api.state(table)
    assert all(players(view).values())
    by_id = {u.account_id: u for u in users}
    box, captain = by_id[view["line"][0]], by_id[view["line"][1]]
    sockets = {who: await connect(client, table, by_id[who]) for who in view["line"]}
    try:
        (await api.send(box, table, {"type": "chat", "channel": "team", "text": SECRET})).problem(
            403
        )
        said = await api.ok(captain, table, "chat", channel="team", text=SECRET)
        version = said["last_version"]
        for s in sockets.values():
            await s.wait_version(version, "chat")
        box_socket = sockets[box.account_id]
        assert SECRET not in msgspec.json.encode(box_socket.messages).decode()
        hidden = box_socket.stream("chat")[-1]
        assert hidden["v"] == version and SECRET not in str(hidden)
        for who in view["line"][1:]:
            texts = [m["d"].get("text") for m in sockets[who].stream("chat")]
            assert SECRET in texts, who
        # Nor over HTTP: the box's view and its chat history hold no team channel.
        assert SECRET not in str(await api.state(table, box))
    finally:
        for s in sockets.values():
            await s.close()


async def test_a_bot_account_sees_no_dice_seed_before_its_game_ends(make_api: MakeApi) -> None:
    api = await make_api(**FAIR)
    ann, robo = await api.register(), await bot_account(api)
    table = await api.create_table(ann, "money")
    sock = await connect(api.client, table, robo)
    try:
        await api.ok(ann, table, "join")
        await api.ok(robo, table, "join")
        users = {ann.account_id: ann, robo.account_id: robo}
        rng = random.Random(7)
        views: list[dict[str, Any]] = []
        for _ in range(12):  # a few throws and plays in, seen as the bot's seat sees them
            await api.step(table, users, rng)
            views.append(await api.state(table, robo))
        await api.play_out(table, users, rng)
        ended = [ev for ev in await events_of(api, table) if isinstance(ev, e.GameEnded)]
        assert ended and len(ended[0].seed) >= 32, ended
        seed = ended[0].seed
        ended_at = next(
            i for i, ev in enumerate(await events_of(api, table)) if isinstance(ev, e.GameEnded)
        )
        await sock.wait_version(ended_at + 1)
        before = [m for m in sock.stream("table") if m["v"] <= ended_at]
        assert before and seed not in msgspec.json.encode(before).decode()
        assert seed not in str(views)
        # Revealed to everyone at the end, the bot included.
        assert seed in msgspec.json.encode(sock.stream("table")).decode()
    finally:
        await sock.close()


async def test_a_bot_accounts_commands_are_rate_limited_as_a_persons(make_api: MakeApi) -> None:
    api = await make_api(rate_limits=True, rate_commands=Rate(3, 60))
    ann, robo = await api.register(), await bot_account(api)
    table = await api.create_table(ann, "money")
    await api.ok(robo, table, "join")
    await api.ok(robo, table, "chat", text="one")
    await api.ok(robo, table, "chat", text="two")  # its third command
    before = await api.versions(table)
    limited = await api.send(robo, table, {"type": "chat", "text": "three"})
    limited.problem(429, "rate-limited")
    assert int(limited.headers["Retry-After"]) >= 1
    sock = await connect(api.client, table, robo)
    try:
        reply = await sock.command({"type": "chat", "text": "four"})
        assert reply["ctl"] == "error" and reply["problem"]["status"] == 429, reply
    finally:
        await sock.close()
    assert await api.versions(table) == before
    await api.ok(ann, table, "join")  # a person's own limit is untouched


async def test_a_bot_account_needs_an_invitation_to_a_private_table(api: Api) -> None:
    ann, robo = await api.register(), await bot_account(api)
    r = await api.request(
        "POST", "/tables", user=ann, json={"kind": "money", "options": {"private": True}}
    )
    assert r.status == 201, r.body
    table = r.body["id"]
    await api.ok(ann, table, "join")
    stranger = await api.register()
    refused = await api.send(robo, table, {"type": "join"})
    as_stranger = await api.send(stranger, table, {"type": "join"})
    assert refused.status == as_stranger.status == 404
    assert str(refused.body).replace(robo.account_id, "") == str(as_stranger.body).replace(
        stranger.account_id, ""
    )
    assert (await api.request("GET", f"/tables/{table}", user=robo)).status == 404
    await caught_up(api)
    assert table not in {
        t["id"] for t in (await api.request("GET", "/tables", user=robo)).body["tables"]
    }

    # An invitation, redeemed as a person redeems it, lets it in: it joins as a bot.
    made = await api.request("POST", f"/tables/{table}/invitations", user=ann)
    assert made.status == 201, made.body
    redeemed = await api.request(
        "POST", "/invitations", user=robo, json={"code": made.body["code"]}
    )
    assert redeemed.status in (200, 201), redeemed.body
    result = await api.ok(robo, table, "join")
    assert result["events"][0]["d"]["bot"] is True
    assert players(await api.state(table, robo)) == {ann.account_id: False, robo.account_id: True}


async def test_a_bot_account_not_connected_runs_out_of_time_as_a_person_away(
    make_api: MakeApi,
) -> None:
    clock = Clock()
    api = await make_api(clock=clock)
    robo, droid = await bot_account(api), await bot_account(api)
    table = await api.create_table(robo, "money", clock={"delay": 12, "reserve": 120})
    await api.ok(robo, table, "join")
    await api.ok(droid, table, "join")
    await api.ok(robo, table, "roll")  # the opening throw
    view = await api.state(table)
    by_id = {robo.account_id: robo, droid.account_id: droid}
    mover = by_id[view["game"]["to_act"][0]]
    other = droid if mover is robo else robo
    # The server's own bots are always at the table; a bot account is there while its program
    # has a stream open, as a person is.
    sockets = await connected(api, table, other)
    try:
        before = len(await events_of(api, table))
        clock.now += 12 + 120
        assert await timers(api).fire_due() == 1
        new = (await events_of(api, table))[before:]
        assert [type(ev) for ev in new] == [e.TimeExpired, e.GameEnded, e.PlayerLeft], new
        assert new[0] == e.TimeExpired(player=mover.account_id, absent=True, at=new[0].at)
        assert mover.account_id not in (await api.state(table))["seats"]
    finally:
        for s in sockets:
            await s.close()
