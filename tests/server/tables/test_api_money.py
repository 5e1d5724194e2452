"""A whole money game between two clients over WebSockets, and command-id retries."""

from __future__ import annotations

import hashlib
import random
import uuid
from typing import Any

from aiohttp.test_utils import TestClient

from engine.game import Phase
from engine.notation import format_play
from events.domain.decider import fold
from events.domain.table import TableState
from events.store.streams import decode_recorded, table_stream
from server.keys import TABLES
from tests.server.conftest import Api, Fold, WsClient, assert_gap_free, connect


def my_action(
    state: TableState, me: str, rng: random.Random, doubled: set[str]
) -> dict[str, Any] | None:
    """What ``me`` does now at a money table, from the client's own fold (None: wait).

    Each player doubles once, at their first chance; a double is always taken."""
    game = state.game
    if game is None or not state.in_game:
        return None
    seat = state.seat_of(me)
    if game.phase is Phase.OPENING:
        return {"type": "roll"} if seat == 0 else None
    if game.to_act != seat:
        return None
    if game.phase is Phase.ROLL:
        if me not in doubled and game.can_double(seat):
            doubled.add(me)
            return {"type": "double"}
        return {"type": "roll"}
    if game.phase is Phase.MOVE:
        play = rng.choice(game.legal_plays())
        return {"type": "move", "notation": format_play(game.position, play.moves)}
    if game.phase is Phase.DOUBLED:
        return {"type": "take"}
    raise AssertionError(f"unexpected phase {game.phase}")


async def play_over_socket(ws: WsClient, me: str, rng: random.Random, doubled: set[str]) -> Fold:
    """Fold what arrives and act when the fold says so, until game 1 is over (a money table
    then waits for a player to throw for the next)."""
    fold = Fold()
    seen = 0
    while True:
        table = ws.stream("table")
        for m in table[seen:]:
            fold.feed(m)
        seen = len(table)
        if fold.state.game_no >= 1 and not fold.state.in_game:
            return fold
        action = my_action(fold.state, me, rng, doubled)
        if action is None:
            await ws.wait_for(lambda c, n=seen: len(c.stream("table")) > n)
            continue
        reply = await ws.command(action)
        assert reply["ctl"] == "result", reply
        assert reply["duplicate"] is False
        await ws.wait_version(reply["last_version"])


async def test_a_whole_money_game_over_websockets(api: Api, client: TestClient) -> None:
    a, b = await api.register("alice"), await api.register("bob")
    table = await api.create_table(a, "money")
    wa = await connect(client, table, a, after=0)
    wb = await connect(client, table, b, after=0)
    spectator = await connect(client, table, after=0)
    for ws in (wa, wb):
        reply = await ws.command({"type": "join"})
        assert reply["ctl"] == "result", reply

    doubled: set[str] = set()
    fa, fb = await _both(
        play_over_socket(wa, a.account_id, random.Random(1), doubled),
        play_over_socket(wb, b.account_id, random.Random(2), doubled),
    )

    final = await api.state(table, a)
    head = final["version"]
    for ws in (wa, wb, spectator):
        await ws.wait_version(head)
        assert_gap_free(ws.stream("table"))
        assert ws.last() == head
    # Everyone saw the same events, in the same order.
    assert wa.stream("table") == wb.stream("table") == spectator.stream("table")

    types = [m["d"]["type"] for m in wa.stream("table")]
    assert types[:4] == ["table_created", "player_joined", "player_joined", "game_started"]
    assert "opening_throw" in types and "checkers_moved" in types
    assert types.count("cube_offered") == types.count("cube_taken") >= 1
    ended = [m["d"] for m in wa.stream("table") if m["d"]["type"] == "game_ended"]
    assert len(ended) == 1 and ended[0]["game"] == 1
    assert types[-1] == "game_ended"  # money play waits for a player to throw for the next game

    # The dice were committed to before the game and the seed revealed after it.
    started = next(m["d"] for m in wa.stream("table") if m["d"]["type"] == "game_started")
    assert (
        hashlib.sha256(bytes.fromhex(ended[0]["seed"])).hexdigest() == (started["dice_commitment"])
    )

    # The ledger sums to zero and agrees with the settlement and with each client's fold.
    ledger = final["ledger"]
    assert sum(ledger.values()) == 0
    assert set(ledger) == {a.account_id, b.account_id}
    winner = ended[0]["winner"]
    points = ended[0]["result"] * ended[0]["cube"]
    assert ledger[winner] == points > 0
    assert ended[0]["cube"] >= 2  # the double was taken
    assert dict(fa.state.ledger) == dict(fb.state.ledger) == ledger
    assert fa.state.version == fb.state.version == head
    assert final["game"]["number"] == 1 and final["game"]["phase"] == "over"
    assert not final["in_game"] and {"roll", "start_game", "leave"} <= set(final["allowed"])
    assert final["game"]["position_id"] == fa.state.game.position_id()  # type: ignore[union-attr]

    # The server's cached state (a derived snapshot) equals a fresh fold of the stored events.
    tables = api.app[TABLES]  # type: ignore[index]
    stored = await tables.store.read_stream(table_stream(table))
    assert tables.cached(table) == fold(decode_recorded(r, tables.store.keys) for r in stored)

    for ws in (wa, wb, spectator):
        await ws.close()


async def _both(*coros: Any) -> list[Any]:
    import asyncio

    async with asyncio.timeout(120):
        return list(await asyncio.gather(*coros))


# -- command ids ----------------------------------------------------------------------------------


async def test_the_same_command_id_twice_gives_the_first_outcome_once(api: Api) -> None:
    table, a, b = await api.seat_two("money")
    before = await api.versions(table)
    command_id = str(uuid.uuid4())
    first = await api.send(a, table, {"type": "roll"}, command_id)
    assert first.status == 201, first.body
    assert first.body["duplicate"] is False
    after_first = await api.versions(table)
    assert after_first[0] == before[0] + len(first.body["events"])

    again = await api.send(a, table, {"type": "roll"}, command_id)
    assert again.status == 200
    assert again.body["duplicate"] is True
    for key in ("command_id", "stream", "first_version", "last_version", "events"):
        assert again.body[key] == first.body[key], key
    assert await api.versions(table) == after_first  # one set of events

    # A different command under a used id, or another player's, is neither a new decision nor
    # the first outcome: a conflict that reveals nothing (issue 11;
    # tests/server/tables/test_command_ids).
    other = await api.send(b, table, {"type": "double"}, command_id)
    assert "events" not in other.problem(409, "command-id-reused")
    assert await api.versions(table) == after_first
    # The chat stream is another stream: there the same id is a conflict, and nothing is stored.
    chat = await api.send(b, table, {"type": "chat", "text": "hi"}, command_id)
    chat.problem(409, "command-id-reused")
    assert await api.versions(table) == after_first


async def test_a_command_id_reused_on_another_table_is_a_conflict(api: Api) -> None:
    t1, a, _ = await api.seat_two("money")
    t2 = await api.create_table(a, "money")
    command_id = str(uuid.uuid4())
    assert (await api.send(a, t1, {"type": "roll"}, command_id)).status == 201
    before = await api.versions(t2)
    reply = await api.send(a, t2, {"type": "join"}, command_id)
    problem = reply.problem(409, "command-id-reused")
    assert problem["field"] == "command_id"
    assert await api.versions(t2) == before


async def test_chat_command_ids_are_retried_too(api: Api) -> None:
    table, a, _ = await api.seat_two("money")
    command_id = str(uuid.uuid4())
    first = await api.send(a, table, {"type": "chat", "text": "good luck"}, command_id)
    assert first.status == 201 and first.body["stream"] == "chat"
    again = await api.send(a, table, {"type": "chat", "text": "good luck"}, command_id)
    assert again.status == 200 and again.body["duplicate"] is True
    assert again.body["events"] == first.body["events"]
    assert (await api.versions(table))[1] == 1


async def test_a_retried_create_names_the_same_table(api: Api) -> None:
    a = await api.register()
    body = {"kind": "money", "options": {}, "command_id": str(uuid.uuid4())}
    first = await api.request("POST", "/tables", user=a, json=body)
    again = await api.request("POST", "/tables", user=a, json=body)
    assert (first.status, again.status) == (201, 200)
    assert first.body["id"] == again.body["id"]
    assert again.body["duplicate"] is True
    assert (await api.versions(first.body["id"]))[0] == 1


async def test_a_refused_command_id_is_not_spent(api: Api) -> None:
    """A command refused by the rules stored nothing, its id included: the same id may be
    used again once the command is allowed."""
    table, a, _ = await api.seat_two("money")
    s = await api.state(table)
    assert s["game"]["phase"] == "opening"
    command_id = str(uuid.uuid4())
    refused = await api.send(a, table, {"type": "double"}, command_id)
    refused.problem(409)
    ok = await api.send(a, table, {"type": "roll"}, command_id)
    assert ok.status == 201 and ok.body["duplicate"] is False
