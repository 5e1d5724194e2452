"""An erasure in the middle of a tournament (docs/privacy.md, docs/tournaments.md): an erased
entrant withdraws (their match still to play forfeited, paired no more); an erased director's
tournament goes on (its match tables carry no name sealed under the destroyed key), its name
reads as none; ``audit --all`` passes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from server.cli.main import main
from tests.server.conftest import Api
from tests.server.tournaments.helpers import create, forfeit, seated, until, view


async def test_erased_entrant_and_director(
    make_api: Any, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    api: Api = await make_api(dice_factory=None)
    director = await api.register()
    tid = await create(api, director, format="swiss", rounds=2, match_length=1)
    players = [await api.register() for _ in range(4)]
    users = {u.account_id: u for u in players}
    for u in players:
        assert (await api.request("POST", f"/tournaments/{tid}/entries", user=u)).status == 200
    assert (await api.request("POST", f"/tournaments/{tid}/start", user=director)).status == 200
    first, second = (await view(api, tid))["rounds"][0]["boards"]
    await forfeit(api, first["table_id"], users, loser=first["b"])
    await until(api, tid, lambda v: v["rounds"][0]["boards"][0]["decided"])
    for who in (director, users[second["b"]]):
        r = await api.request("DELETE", "/me", user=who, json={"password": "correct horse"})
        assert r.status == 204, r.body
    v = await until(api, tid, lambda v: len(v["rounds"]) == 2)
    assert v["name"] == ""  # the director's words, gone with their key
    board = v["rounds"][0]["boards"][1]
    assert (board["winner"], board["how"]) == (second["a"], "withdrawal")
    withdrawn = {x["player"] for x in v["entrants"] if x["withdrawn"]}
    assert withdrawn == {second["b"]}
    paired = v["rounds"][1]["boards"]
    assert second["b"] not in {p for b in paired for p in (b["a"], b["b"])}
    to_play = [b for b in paired if not b["decided"]]
    assert len(to_play) == 1  # three left: one match and a bye
    await seated(api, to_play[0]["table_id"])
    await forfeit(api, to_play[0]["table_id"], users, loser=to_play[0]["b"])
    v = await until(api, tid, lambda v: v["status"] == "finished")
    status = await asyncio.to_thread(main, ["audit", "--all", "--json", "--database-url", db_url])
    doc = json.loads(capsys.readouterr().out)
    assert status == 0, (doc["store"], [r for r in doc["reports"] if r["status"] != "ok"])
