"""The tournaments' list is a read model of the log (server/readmodels/tournaments.py): each
tournament's row is its stream's fold, written by a projector in the same transaction as its
checkpoint, read by ``GET /tournaments`` as new as the log, rebuilt like the others; a private
tournament is listed to its director, the invited and its entrants only; an event the rules
refuse is skipped and recorded, and the list goes on.
"""

from __future__ import annotations

import uuid
from typing import Any

from events.domain import types as e
from events.store.event_store import EventStore
from events.store.personal_keys import PersonalKeys, master_key
from events.store.projection import skipped_events
from events.store.streams import append_events, tournament_stream
from server.http.social import READ_MODELS
from server.keys import TABLES
from server.readmodels.erasure import pseudonymise
from server.readmodels.rebuild import rebuild
from server.readmodels.tournaments import TournamentsProjector
from tests.server.conftest import SEED_KEY, Api
from tests.server.tournaments.helpers import create, forfeit, seated, until, view


async def _listed(api: Api, user: Any = None) -> dict[str, dict[str, Any]]:
    r = await api.request("GET", "/tournaments", user=user)
    assert r.status == 200, r.body
    return {t["id"]: t for t in r.body["tournaments"]}


async def _rows(store: EventStore) -> list[tuple[Any, ...]]:
    return [
        tuple(r)
        for r in await store.pool.fetch(
            "SELECT tournament_id, name, format, director, private, rated, status, entrants,"
            " rounds, winner, created_at, version FROM tournament_list ORDER BY tournament_id"
        )
    ]


async def _places(store: EventStore) -> list[tuple[Any, ...]]:
    sql = "SELECT table_id, tournament_id, round, board FROM tournament_tables ORDER BY table_id"
    return [tuple(r) for r in await store.pool.fetch(sql)]


async def test_the_list_follows_each_tournament_and_a_rebuild_gives_it_again(
    api: Api, owner_store: EventStore
) -> None:
    director, ann, bob, cat, stranger = [await api.register() for _ in range(5)]
    cup = await create(api, director, format="knockout", match_length=1)
    club = await create(api, director, format="swiss", rounds=2, private=True,
                        invited=[cat.account_id])  # fmt: skip
    # Listed at once (the list is read as new as the log), as its own view says.
    listed = await _listed(api, ann)
    assert cup in listed and club not in listed
    assert listed[cup] | {"entrants": 0} == listed[cup]
    assert (listed[cup]["status"], listed[cup]["name"]) == ("entering", "Club night")
    for u in (ann, bob):
        assert (await api.request("POST", f"/tournaments/{cup}/entries", user=u)).status == 200
    r = await api.request("POST", f"/tournaments/{club}/entries", user=cat)
    assert r.status == 200, r.body
    assert (await _listed(api, ann))[cup]["entrants"] == 2
    # The private one: to its director, the invited and its entrant; to nobody else.
    for who in (director, cat):
        assert club in await _listed(api, who)
    assert club not in await _listed(api, stranger) and club not in await _listed(api)

    # Played to its end: the list says who won, as the tournament's own view does.
    assert (await api.request("POST", f"/tournaments/{cup}/start", user=director)).status == 200
    v = await view(api, cup)
    board = v["rounds"][0]["boards"][0]
    await seated(api, board["table_id"])
    # The match table knows its place in the tournament (its page links back); another
    # table does not.
    assert api.app is not None
    await api.app[READ_MODELS].catch_up()
    r = await api.request("GET", f"/tables/{board['table_id']}")
    assert r.body["tournament"] == {"tournament_id": cup, "round": 1, "board": 1}, r.body
    other = await api.create_table(ann, "match", match_length=1)
    assert (await api.request("GET", f"/tables/{other}")).body["tournament"] is None
    users = {ann.account_id: ann, bob.account_id: bob}
    await forfeit(api, board["table_id"], users, loser=board["b"])
    v = await until(api, cup, lambda v: v["status"] == "finished")
    row = (await _listed(api))[cup]
    assert (row["status"], row["winner"], row["rounds"]) == ("finished", v["winner"], 1)
    assert (row["format"], row["director"], row["rated"]) == (
        "knockout",
        director.account_id,
        False,
    )

    # A rebuild from the log gives the very same rows.
    assert api.app is not None
    await api.app[READ_MODELS].catch_up()
    live = await _rows(api.app[TABLES].store)
    places = await _places(api.app[TABLES].store)
    owner_store.keys = PersonalKeys(owner_store.pool, master_key(SEED_KEY))
    await rebuild(owner_store, TournamentsProjector)
    assert await _rows(api.app[TABLES].store) == live and len(live) == 2
    assert await _places(api.app[TABLES].store) == places and len(places) == 1


async def test_an_erased_director_leaves_no_name_and_a_bad_event_is_skipped(api: Api) -> None:
    director, ann, bob = [await api.register() for _ in range(3)]
    cup = await create(api, director, format="knockout", match_length=1)
    for u in (ann, bob):
        assert (await api.request("POST", f"/tournaments/{cup}/entries", user=u)).status == 200
    assert (await api.request("POST", f"/tournaments/{cup}/start", user=director)).status == 200
    assert api.app is not None
    store = api.app[TABLES].store
    # An entry after the start, which the rules refuse, written straight into the log.
    version = await store.stream_version(tournament_stream(cup))
    await append_events(
        store,
        tournament_stream(cup),
        [e.TournamentEntered(player="u_" + uuid.uuid4().hex, at=1)],
        expected_version=version,
        command_id=uuid.uuid4(),
        actor="someone",
    )
    listed = await _listed(api)
    assert listed[cup]["entrants"] == 2 and listed[cup]["status"] == "playing"
    _, skipped = await skipped_events(store, "tournaments")
    assert [(s.stream_id, s.version, s.type) for s in skipped] == [
        (tournament_stream(cup), version + 1, "tournament_entered")
    ]
    # The list goes on after it.
    cup2 = await create(api, director, format="knockout", match_length=1)
    assert cup2 in await _listed(api)

    await pseudonymise(store.pool, director.account_id)
    assert {t["name"] for t in (await _listed(api)).values()} == {""}
