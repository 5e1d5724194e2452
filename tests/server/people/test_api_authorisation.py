"""The authorisation matrix of two-player tables: every command × every role, at every moment
of a game, is allowed exactly where the rules say, and a refused command stores nothing.

Roles: ``P`` the player whose turn it is (for the opening: seat 0), ``O`` the other seated
player, ``S`` a spectator (watching on a socket), ``X`` a stranger, ``N`` no token, ``R`` a
revoked token. Statuses: 201 recorded, 401 not authenticated, 403 another role's (or another
player's turn), 409 nobody may do it now, 422 an illegal play.

The rule for 403 against 409: a command that someone else at the table may send now is 403 for
the wrong sender; one that nobody may send at this moment is 409 for everyone seated (an
onlooker, who may never send it, gets 403).
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tests.server.conftest import Api, User, connect, notations, only

COMMANDS: dict[str, dict[str, Any]] = {
    "join": {"type": "join"},
    "leave": {"type": "leave"},
    "start_game": {"type": "start_game"},
    "add_seed": {"type": "add_seed", "seed": "my own seed"},
    "roll": {"type": "roll"},
    "move": {"type": "move"},  # the notation is filled in from the state
    "double": {"type": "double"},
    "take": {"type": "take"},
    "drop": {"type": "drop"},
    "beaver": {"type": "beaver"},
    "resign": {"type": "resign", "level": 1},
    "accept": {"type": "accept"},
    "decline": {"type": "decline"},
    "chat": {"type": "chat", "text": "hello"},
    "team_chat": {"type": "chat", "channel": "team", "text": "psst"},
}

# What each role gets for each command: (P, O, S); the stranger X gets what S gets, N and R 401.
# Commands not listed get (409, 409, 403), or (409, 403, 403) while O is not seated.
EXPECTED: dict[str, dict[str, tuple[int, int, int]]] = {
    "waiting": {  # P created the table and sits; O is not seated yet (and may join)
        "join": (409, 201, 201),
        "leave": (201, 403, 403),
        "chat": (201, 403, 403),
        "team_chat": (409, 409, 409),
    },
    "opening": {
        "join": (409, 409, 409),
        "leave": (201, 201, 403),  # free before the first throw, else a forfeit
        "add_seed": (201, 201, 403),
        "roll": (201, 201, 403),
        "chat": (201, 201, 403),
        "team_chat": (409, 409, 409),
    },
    "roll": {  # P is on roll, before rolling
        "join": (409, 409, 409),
        "leave": (201, 201, 403),  # free before the first throw, else a forfeit
        "roll": (201, 403, 403),
        "double": (201, 403, 403),
        "resign": (201, 403, 403),
        "chat": (201, 201, 403),
        "team_chat": (409, 409, 409),
    },
    "move": {  # P has rolled
        "join": (409, 409, 409),
        "leave": (201, 201, 403),  # free before the first throw, else a forfeit
        "move": (201, 403, 403),
        "chat": (201, 201, 403),
        "team_chat": (409, 409, 409),
    },
    "doubled": {  # P doubled; O answers (beavers allowed at this table)
        "join": (409, 409, 409),
        "leave": (201, 201, 403),  # free before the first throw, else a forfeit
        "take": (403, 201, 403),
        "drop": (403, 201, 403),
        "beaver": (403, 201, 403),
        "chat": (201, 201, 403),
        "team_chat": (409, 409, 409),
    },
    "beavered": {  # P doubled, O beavered; P answers
        "join": (409, 409, 409),
        "leave": (201, 201, 403),  # free before the first throw, else a forfeit
        "take": (201, 403, 403),
        "drop": (201, 403, 403),
        "beaver": (409, 403, 403),
        "chat": (201, 201, 403),
        "team_chat": (409, 409, 409),
    },
    "resignation": {  # P offered to resign; O answers
        "join": (409, 409, 409),
        "leave": (201, 201, 403),  # free before the first throw, else a forfeit
        "accept": (403, 201, 403),
        "decline": (403, 201, 403),
        "chat": (201, 201, 403),
        "team_chat": (409, 409, 409),
    },
    "match_over": {  # a 1-point match that P won
        "join": (409, 409, 409),
        "leave": (201, 201, 403),
        "chat": (201, 201, 403),
        "team_chat": (409, 409, 409),
    },
}


@dataclass
class Cast:
    api: Api
    p: User
    o: User
    s: User
    x: User
    r: User


async def build(cast: Cast, scenario: str) -> tuple[str, User, User]:
    """A fresh table at the scenario's moment; returns (table, P, O)."""
    api = cast.api
    a, b = cast.p, cast.o
    kind, options = ("match", {"match_length": 1}) if scenario == "match_over" else ("money", {})
    if scenario in ("doubled", "beavered"):
        options = {"beavers": True}
    table = await api.create_table(a, kind, **options)
    await api.ok(a, table, "join")
    if scenario == "waiting":
        return table, a, b
    await api.ok(b, table, "join")
    users = {a.account_id: a, b.account_id: b}
    if scenario == "opening":
        return table, a, b
    await api.ok(a, table, "roll")
    s = await api.state(table)
    mover = users[only(s["game"]["to_act"])]
    await api.ok(mover, table, "move", notation=s["game"]["legal_plays"][0]["notation"])
    s = await api.state(table)
    assert s["game"]["phase"] == "roll"
    p = users[only(s["game"]["to_act"])]
    o = a if p is b else b
    if scenario == "roll":
        return table, p, o
    if scenario == "move":
        await api.ok(p, table, "roll")
        assert (await api.state(table))["game"]["phase"] == "move"
        return table, p, o
    if scenario in ("doubled", "beavered"):
        await api.ok(p, table, "double")
        if scenario == "beavered":
            await api.ok(o, table, "beaver")
        return table, p, o
    if scenario == "resignation":
        await api.ok(p, table, "resign", level=1)
        return table, p, o
    if scenario == "match_over":
        await api.ok(p, table, "double")
        await api.ok(o, table, "drop")
        assert (await api.state(table))["match_winner"] == p.account_id
        return table, p, o
    raise AssertionError(scenario)


async def command_for(api: Api, table: str, name: str) -> dict[str, Any]:
    command = dict(COMMANDS[name])
    if name == "move":
        s = await api.state(table)
        plays = (notations(s["game"]) if s.get("game") else []) or ["24/23"]
        command["notation"] = plays[0]
    return command


@pytest.mark.parametrize("scenario", list(EXPECTED))
async def test_every_command_by_every_role(
    scenario: str, api: Api, client: TestClient, make_cast: Callable[[], Awaitable[Cast]]
) -> None:
    cast = await make_cast()
    table, p, o = await build(cast, scenario)
    watching = await connect(client, table, cast.s)
    roles: dict[str, User | None] = {"P": p, "O": o, "S": cast.s, "X": cast.x, "R": cast.r}
    roles["N"] = None
    expected = EXPECTED[scenario]
    failures: list[str] = []
    recorded: list[tuple[str, str]] = []

    for name in COMMANDS:
        default = (409, 403, 403) if scenario == "waiting" else (409, 409, 403)
        want_p, want_o, want_s = expected.get(name, default)
        wants = {"P": want_p, "O": want_o, "S": want_s, "X": want_s, "N": 401, "R": 401}
        for role, user in roles.items():
            want = wants[role]
            if want == 201:
                recorded.append((name, role))
                continue
            before = await cast.api.versions(table)
            reply = await cast.api.send(user, table, await command_for(cast.api, table, name))
            if reply.status != want:
                failures.append(f"{name} by {role}: {reply.status} (want {want}): {reply.body}")
                continue
            reply.problem(want)
            if await cast.api.versions(table) != before:
                failures.append(f"{name} by {role}: refused but something was stored")
    assert not failures, "\n".join(failures)

    # What the view says each seated role may do is exactly what is recorded for it.
    for role, user in (("P", p), ("O", o), ("S", cast.s)):
        allowed = set((await cast.api.state(table, user))["allowed"])
        granted = {name for name, r in recorded if r == role and name != "team_chat"}
        assert allowed == granted, (role, allowed, granted)

    # Each allowed command, on a fresh table at the same moment.
    for name, role in recorded:
        if name == "chat":
            fresh, fp, fo = table, p, o
        else:
            fresh, fp, fo = await build(cast, scenario)
        user = {"P": fp, "O": fo, "S": cast.s, "X": cast.x}[role]
        before = await cast.api.versions(fresh)
        reply = await cast.api.send(user, fresh, await command_for(cast.api, fresh, name))
        assert reply.status == 201, (name, role, reply.body)
        after = await cast.api.versions(fresh)
        stream = 1 if name == "chat" else 0
        assert after[stream] == before[stream] + len(reply.body["events"])
        assert after[1 - stream] == before[1 - stream]
    await watching.close()


@pytest.fixture
def make_cast(api: Api) -> Callable[[], Awaitable[Cast]]:
    async def make() -> Cast:
        p, o, s, x, r = [await api.register() for _ in range(5)]
        logout = await api.request("DELETE", "/sessions", user=r)
        assert logout.status == 204
        return Cast(api, p, o, s, x, r)

    return make


async def test_a_move_out_of_turn_and_an_illegal_play(api: Api) -> None:
    table, a, b = await api.seat_two("money")
    users = {a.account_id: a, b.account_id: b}
    s = await api.until_phase(
        table, users, random.Random(1), lambda s: s["game"]["phase"] == "move"
    )
    p = users[only(s["game"]["to_act"])]
    o = a if p is b else b
    before = await api.versions(table)
    legal = s["game"]["legal_plays"][0]["notation"]
    (await api.send(o, table, {"type": "move", "notation": legal})).problem(403, "not-your-turn")
    problem = (await api.send(p, table, {"type": "move", "notation": "24/1"})).problem(
        422, "illegal-play"
    )
    assert "24/1" in problem["detail"] or "24" in problem["detail"]
    assert await api.versions(table) == before
