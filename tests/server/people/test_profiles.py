"""Profiles and leaderboards over a few hundred simulated tables (issue 15): every statistic a
profile shows equals a plain count over the tables' events, the leaderboards rank what the
profiles say, a rebuild equals the live read model, and a rated match played through the API
shows its rating change at its end and in the history."""

from __future__ import annotations

import datetime as dt
import random
import uuid
from collections import defaultdict
from typing import Any

import msgspec
import pytest

from events.domain import commands as c
from events.domain import types as e
from events.domain.ratings import START_RATING, is_rateable, rate_match
from events.records.simulate import SimulatedTable, simulate_chouette, simulate_table
from events.store.event_store import EventStore
from events.store.streams import new_event, table_stream
from server.http.social import READ_MODELS
from server.readmodels.profiles import ProfilesProjector
from server.readmodels.ratings import RatingsProjector
from server.readmodels.rebuild import rebuild
from tests.server.conftest import Api, User
from tests.server.people.social_events import snapshot

DAY = 86_400_000


def _tables(players: list[str], rng: random.Random) -> list[tuple[str, list[e.Event]]]:
    """About 200 tables of every kind, each on its own day: money, matches (rated or not,
    some forfeited by a player leaving) and chouettes (members leaving and coming back)."""
    out: list[tuple[str, list[e.Event]]] = []
    for i in range(200):
        table_id = str(uuid.uuid4())
        r = random.Random(rng.getrandbits(64))
        if i % 5 == 4:
            members = tuple(r.sample(players, 4))
            sim: SimulatedTable = simulate_chouette(
                table_id, players=members, games=2, rng=r, leave_rate=0.02
            )
        else:
            pair = tuple(r.sample(players, 2))
            if i % 5 in (0, 1):
                sim = simulate_table(table_id, games=2, rng=r, players=pair)  # type: ignore[arg-type]
            else:
                options = e.TableOptions(match_length=3, rated=i % 5 != 3)
                sim = simulate_table(
                    table_id,
                    kind="match",
                    options=options,
                    games=2,
                    rng=r,
                    players=pair,  # type: ignore[arg-type]
                )
                if not sim.state.match_winner:
                    sim.run(pair[1], c.Leave(), r)  # the match forfeited
        shift = (i % 40) * DAY  # tables over forty days
        events = [msgspec.structs.replace(ev, at=ev.at + shift) for ev in sim.events]
        out.append((table_id, events))
    return out


def _expected(tables: list[tuple[str, list[e.Event]]]) -> dict[str, Any]:
    """The statistics by their definitions (docs/social.md), counted plainly."""
    stats: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    daily: dict[tuple[str, dt.date], int] = defaultdict(int)
    ratings: dict[str, tuple[float, int]] = {}
    for _, events in tables:
        created = events[0]
        assert isinstance(created, e.TableCreated)
        kind = created.kind
        started, players = 0, []
        for ev in events:
            if isinstance(ev, e.GameStarted):
                started, players = ev.at, list(ev.players)
            elif isinstance(ev, e.GameEnded) and ev.how != "unplayed":
                amounts: dict[str, int] = defaultdict(int)
                for s in ev.settlements:
                    amounts[s.player] += s.amount
                for p in dict.fromkeys([*players, *amounts]):
                    st = stats[p, kind]
                    st["games"] += 1
                    won = amounts[p] > 0 if kind == "chouette" else p == ev.winner
                    st["games_won"] += int(won)
                    if kind == "chouette":
                        st["gammons"] += sum(
                            1 for m in ev.members if m.winner == p and m.result >= 2
                        )
                        day = dt.date(1970, 1, 1) + dt.timedelta(days=ev.at // DAY)
                        daily[p, day] += amounts[p]
                    elif p == ev.winner and ev.result >= 2:
                        st["gammons"] += 1
                    st["ledger"] += amounts[p]
                    st["ms_played"] += ev.at - started
            elif isinstance(ev, e.MatchEnded):
                for p in players:
                    stats[p, kind]["matches"] += 1
                    stats[p, kind]["matches_won"] += int(p == ev.winner)
                if created.options.rated and all(is_rateable(p) for p in players):
                    loser = next(p for p in players if p != ev.winner)
                    w = ratings.get(ev.winner, (START_RATING, 0))
                    lo = ratings.get(loser, (START_RATING, 0))
                    n = created.options.match_length
                    r = rate_match(w[0], lo[0], n, w[1], lo[1])
                    ratings[ev.winner] = (r.winner_after, w[1] + n)
                    ratings[loser] = (r.loser_after, lo[1] + n)
    return {"stats": stats, "daily": daily, "ratings": ratings}


async def test_profiles_and_leaderboards_over_simulated_tables(
    api: Api, store: EventStore, owner_store: EventStore
) -> None:
    users: list[User] = [await api.register() for _ in range(6)]
    guest = await api.guest()
    by_id = {u.account_id: u for u in users}
    by_id[guest.account_id] = User(guest.token, guest.account_id, guest.username, "")
    tables = _tables(list(by_id), random.Random(15))
    for table_id, events in tables:
        await store.append(
            table_stream(table_id),
            [new_event(ev) for ev in events],
            expected_version=0,
            command_id=uuid.uuid4(),
        )
    assert api.app is not None
    await api.app[READ_MODELS].catch_up()
    want = _expected(tables)
    assert sum(1 for _, evs in tables for ev in evs if isinstance(ev, e.MatchEnded)) > 50

    for account_id, user in by_id.items():
        r = await api.request("GET", f"/players/{user.username}?recent=100")
        assert r.status == 200, r.body
        got = r.body["stats"]
        expected = {
            kind: {
                "games": st["games"],
                "games_won": st["games_won"],
                "matches": st["matches"],
                "matches_won": st["matches_won"],
                "gammons": st["gammons"],
                "ledger": st["ledger"],
                "seconds_played": st["ms_played"] // 1000,
            }
            for (p, kind), st in want["stats"].items()
            if p == account_id
        }
        assert got == expected, user.username
        played = {
            t
            for t, evs in tables
            if any(isinstance(ev, e.PlayerJoined) and ev.player == account_id for ev in evs)
        }
        recent = r.body["recent_tables"]
        assert {t["table_id"] for t in recent} <= played and len(recent) == min(100, len(played))
        assert [t["last_at"] for t in recent] == sorted(
            (t["last_at"] for t in recent), reverse=True
        )
        if account_id == guest.account_id:
            assert r.body["rating"] is None and r.body["guest"] is True
        else:
            rating, experience = want["ratings"].get(account_id, (START_RATING, 0))
            assert (r.body["rating"]["rating"], r.body["rating"]["experience"]) == (
                rating,
                experience,
            )
            for change in r.body["rating_history"]:
                assert change["player"] == account_id
                assert (
                    any(
                        t["table_id"] == change["table_id"]
                        and t["rating_change"] == change["change"]
                        for t in recent
                    )
                    or len(played) > 100
                )

    # A replay link of a profile works.
    link = (await api.request("GET", f"/players/{users[0].username}")).body["recent_tables"][0][
        "replay"
    ]
    assert (await api.request("GET", link)).status == 200

    # The rating leaderboard: the registered players with enough experience, best first.
    board = await api.request("GET", "/leaderboards/rating?min_experience=6")
    assert board.status == 200, board.body
    expected_board = sorted(
        ((by_id[p].username, r, x) for p, (r, x) in want["ratings"].items() if x >= 25),
        key=lambda t: (-t[1], t[0]),
    )
    assert board.body["min_experience"] == 25  # the server's minimum: never less
    got_board = [(p["username"], p["rating"], p["experience"]) for p in board.body["players"]]
    assert got_board == expected_board and len(got_board) >= 2
    assert [p["rating"] for p in board.body["players"]] == sorted(
        (p["rating"] for p in board.body["players"]), reverse=True
    )
    more = await api.request("GET", "/leaderboards/rating?min_experience=100000")
    assert more.body["players"] == [] and more.body["min_experience"] == 100000

    # The chouette leaderboard over a period: the sums of those days.
    first = min(d for _, d in want["daily"])
    since, until = first + dt.timedelta(days=5), first + dt.timedelta(days=20)
    r = await api.request("GET", f"/leaderboards/chouette?since={since}&until={until}")
    assert r.status == 200, r.body
    sums: dict[str, int] = defaultdict(int)
    for (p, day), amount in want["daily"].items():
        if since <= day <= until:
            sums[by_id[p].username] += amount
    assert {p["username"]: p["amount"] for p in r.body["players"]} == dict(sums)
    assert [p["amount"] for p in r.body["players"]] == sorted(sums.values(), reverse=True)
    everything = await api.request(
        "GET", "/leaderboards/chouette?since=2020-01-01&until=2029-12-31"
    )
    assert sum(p["amount"] for p in everything.body["players"]) == 0  # a ledger sums to zero

    # A rebuild from the log equals the live read models.
    for factory in (ProfilesProjector, RatingsProjector):
        before = await snapshot(store.pool, factory.tables)
        await rebuild(owner_store, factory, batch_size=333)
        assert await snapshot(store.pool, factory.tables) == before


async def test_a_rated_match_shows_its_rating_change(api: Api) -> None:
    a, b = await api.register(), await api.register()
    r = await api.request(
        "POST",
        "/tables",
        user=a,
        json={"kind": "match", "options": {"match_length": 3, "rated": True}},
    )
    table_id = r.body["id"]
    await api.ok(a, table_id, "join")
    await api.ok(b, table_id, "join")
    before = await api.request("GET", f"/tables/{table_id}/ratings")
    assert before.body == {"table_id": table_id, "rated": True, "changes": []}
    await api.step(table_id, {a.account_id: a, b.account_id: b}, random.Random(1))
    left = await api.ok(b, table_id, "leave")  # b forfeits the match
    assert [ev["t"] for ev in left["events"]][-1] == "match_ended"
    assert api.app is not None
    await api.app[READ_MODELS].catch_up()
    after = await api.request("GET", f"/tables/{table_id}/ratings")
    # Both new (K = 5), equal ratings, 3 points: 4·5·√3·½ = 17.320508.
    changes = {ch["player"]: ch["change"] for ch in after.body["changes"]}
    assert changes == {a.account_id: 17.320508, b.account_id: -17.320508}
    profile = await api.request("GET", f"/players/{b.username}")
    assert profile.body["rating"] == {
        "rating": 1482.679492,
        "experience": 3,
        "matches": 1,
        "won": 0,
    }
    assert profile.body["rating_history"][0]["table_id"] == table_id
    assert profile.body["recent_tables"][0]["rating_change"] == -17.320508
    assert profile.body["stats"]["match"]["matches"] == 1


@pytest.mark.parametrize(
    "path",
    [
        "/players/%00abc",
        "/players/ab",
        "/players/" + "x" * 33,
        "/players/a%0Ab",
        "/players/user1?recent=0",
        "/players/user1?recent=101",
        "/players/user1?recent=1_0",
        "/players/user1?recent=%00",
        "/leaderboards/rating?limit=0",
        "/leaderboards/rating?limit=101",
        "/leaderboards/rating?offset=-1",
        "/leaderboards/rating?min_experience=99999999999999999999999",
        "/leaderboards/rating?min_experience=%00",
        "/leaderboards/chouette?since=2026-02-30",
        "/leaderboards/chouette?since=yesterday",
        "/leaderboards/chouette?since=%00",
        "/leaderboards/chouette?since=2026-01-10&until=2026-01-01",
        "/leaderboards/chouette?since=1900-01-01&until=2026-01-01",
        "/leaderboards/chouette?until=99999-01-01",
        "/leaderboards/chouette?since=2026-1-1",
        "/leaderboards/chouette?limit=abc",
    ],
)
async def test_hostile_input_on_the_social_routes(api: Api, path: str) -> None:
    r = await api.request("GET", path)
    r.problem(400)


async def test_unknown_players_and_tables(api: Api) -> None:
    (await api.request("GET", "/players/nobody_here")).problem(404)
    (await api.request("GET", f"/tables/{uuid.uuid4()}/ratings")).problem(404)
    (await api.request("GET", "/tables/not-a-uuid/ratings")).problem(404)
    bad = await api.request("GET", "/players/nobody", headers={"Authorization": "Bearer nope"})
    bad.problem(401)


async def test_a_stranger_sees_nothing_of_a_player_s_private_tables(
    api: Api, store: EventStore, owner_store: EventStore
) -> None:
    a, b, c_, d = [await api.register() for _ in range(4)]
    stranger = await api.register()
    rng = random.Random(27)
    tables: list[tuple[str, list[e.Event]]] = []
    private: set[str] = set()
    for hidden in (False, True, False, True):
        for kind in ("money", "match", "chouette"):
            table_id = str(uuid.uuid4())
            r = random.Random(rng.getrandbits(64))
            if kind == "chouette":
                sim: SimulatedTable = simulate_chouette(
                    table_id,
                    players=(a.account_id, b.account_id, c_.account_id, d.account_id),
                    games=2,
                    options=e.TableOptions(private=hidden),
                    rng=r,
                )
            else:
                pair = (a.account_id, b.account_id)
                options = e.TableOptions(
                    private=hidden,
                    **({"match_length": 3, "rated": True} if kind == "match" else {}),
                )
                sim = simulate_table(
                    table_id, kind=kind, options=options, games=2, rng=r, players=pair
                )
                if kind == "match" and not sim.state.match_winner:
                    sim.run(pair[1], c.Leave(), r)  # the match forfeited
            if hidden:  # as the server does, before the table is created (server/http/privacy.py)
                await store.pool.execute(
                    "INSERT INTO private_tables (table_id, created_by) VALUES ($1, $2)",
                    table_id,
                    a.account_id,
                )
            await store.append(
                table_stream(table_id),
                [new_event(ev) for ev in sim.events],
                expected_version=0,
                command_id=uuid.uuid4(),
            )
            tables.append((table_id, sim.events))
            if hidden:
                private.add(table_id)
    assert api.app is not None
    await api.app[READ_MODELS].catch_up()
    everything = _expected(tables)
    public = _expected([t for t in tables if t[0] not in private])

    def stats(want: dict[str, Any], player: str) -> dict[str, Any]:
        return {
            kind: {
                "games": st["games"],
                "games_won": st["games_won"],
                "matches": st["matches"],
                "matches_won": st["matches_won"],
                "gammons": st["gammons"],
                "ledger": st["ledger"],
                "seconds_played": st["ms_played"] // 1000,
            }
            for (p, kind), st in want["stats"].items()
            if p == player
        }

    def rated(player: str, only: set[str] | None = None) -> tuple[int, int, int]:
        """Experience, rated matches and those won, at ``only`` those tables."""
        length = matches = won = 0
        for table_id, events in tables:
            created = events[0]
            assert isinstance(created, e.TableCreated)
            if (only is not None and table_id not in only) or not created.options.rated:
                continue
            ended = [ev for ev in events if isinstance(ev, e.MatchEnded)]
            assert ended, table_id
            length += created.options.match_length
            matches += 1
            won += int(ended[0].winner == player)
        return length, matches, won

    shown = {t for t, _ in tables if t not in private}
    for user in (a, b):
        mine = await api.request("GET", f"/players/{user.username}?recent=100", user=user)
        assert mine.status == 200, mine.body
        assert mine.body["stats"] == stats(everything, user.account_id)
        assert {t["table_id"] for t in mine.body["recent_tables"]} == {t for t, _ in tables}
        r = mine.body["rating"]
        assert (r["experience"], r["matches"], r["won"]) == rated(user.account_id)
        assert {h["table_id"] for h in mine.body["rating_history"]} & private

        for viewer in (stranger, None):
            seen = await api.request("GET", f"/players/{user.username}?recent=100", user=viewer)
            assert seen.status == 200, seen.body
            # Every count as if the private tables had never been played.
            assert seen.body["stats"] == stats(public, user.account_id), user.username
            assert seen.body["stats"] != mine.body["stats"]
            assert {t["table_id"] for t in seen.body["recent_tables"]} == shown
            r = seen.body["rating"]
            assert (r["experience"], r["matches"], r["won"]) == rated(user.account_id, shown)
            assert r["rating"] == mine.body["rating"]["rating"]  # the one rating (a choice)
            assert not {h["table_id"] for h in seen.body["rating_history"]} & private

    # A rebuild from the log equals the live read model.
    before = await snapshot(store.pool, ProfilesProjector.tables)
    await rebuild(owner_store, ProfilesProjector, batch_size=7)
    assert await snapshot(store.pool, ProfilesProjector.tables) == before
