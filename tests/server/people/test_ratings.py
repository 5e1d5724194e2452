"""Ratings (issue 15): the FIBS formula worked by hand, the projector over the log, and a fresh
rebuild equal to the live read model after any sequence of matches, forfeits included."""

from __future__ import annotations

import itertools
import uuid

import asyncpg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from events.domain.ratings import START_RATING, k_factor, p_upset, rate_match
from events.store.event_store import EventStore
from server.readmodels.ratings import RatingsProjector
from server.readmodels.rebuild import rebuild
from tests.server.people.social_events import MatchSpec, append_match, snapshot

# -- the formula, by hand ---------------------------------------------------------------------
#
# Worked with 50-digit decimals: P_upset = 1 / (10^(D·√n/2000) + 1); the winner gains and the
# loser loses 4·K·√n·P, P = 1 - P_upset for an upset and P_upset otherwise; six decimals kept.


def test_equal_ratings_newcomers() -> None:
    # D = 0: P_upset = 1/2 whoever wins; K = 5 for both: 4·5·1·0.5 = 10.
    r = rate_match(1500.0, 1500.0, 1, 0, 0)
    assert (r.gain, r.loss) == (10.0, 10.0)
    assert (r.winner_after, r.loser_after) == (1510.0, 1490.0)


def test_equal_ratings_veterans_five_points() -> None:
    # K = 1 (experience 400 and more): 4·1·√5·0.5 = 2√5 = 4.472135954...
    r = rate_match(1600.0, 1600.0, 5, 400, 2000)
    assert (r.gain, r.loss) == (4.472136, 4.472136)
    assert (r.winner_after, r.loser_after) == (1604.472136, 1595.527864)


@pytest.mark.parametrize(
    ("length", "upset", "expected"),
    [
        # 4·√n·(1 - P_upset): the underdog (1300) beats the favourite (1700), K = 1.
        (1, True, 2.452547),  # 2.45254728061257214...
        (5, True, 6.590738),  # 6.59073803184198694...
        (11, True, 10.900022),  # 10.9000215571133351...
        # 4·√n·P_upset: the favourite wins.
        (1, False, 1.547453),  # 1.54745271938742785...
        (5, False, 2.353534),  # 2.35353387815717183...
        (11, False, 2.366478),  # 2.36647760430826425...
    ],
)
def test_a_400_point_gap(length: int, upset: bool, expected: float) -> None:
    low, high = 1300.0, 1700.0
    r = (
        rate_match(low, high, length, 500, 500)
        if upset
        else rate_match(high, low, length, 500, 500)
    )
    assert r.gain == r.loss == expected
    if upset:
        assert (r.winner_after, r.loser_after) == (
            round(low + expected, 6),
            round(high - expected, 6),
        )
    else:
        assert (r.winner_after, r.loser_after) == (
            round(high + expected, 6),
            round(low - expected, 6),
        )


def test_newcomer_and_veteran_move_by_their_own_k() -> None:
    # Equal ratings, 5 points: 4·√5·0.5 = 4.47213595...; the newcomer's K is 5, the
    # veteran's 1: 22.36068 and 4.472136.
    newcomer_wins = rate_match(1500.0, 1500.0, 5, 0, 1000)
    assert (newcomer_wins.gain, newcomer_wins.loss) == (22.36068, 4.472136)
    veteran_wins = rate_match(1500.0, 1500.0, 5, 1000, 0)
    assert (veteran_wins.gain, veteran_wins.loss) == (4.472136, 22.36068)
    # Experience 250: K = 5 - 2.5 = 2.5 -> 11.18034 (11.1803398874989...).
    half = rate_match(1500.0, 1500.0, 5, 250, 0)
    assert (half.gain, half.loss) == (11.18034, 22.36068)


def test_k_and_p_upset() -> None:
    assert [k_factor(x) for x in (0, 1, 100, 399, 400, 10_000)] == [5, 4.99, 4, 1.01, 1, 1]
    assert p_upset(0, 7) == 0.5
    assert p_upset(400, 1) == pytest.approx(0.38686318, abs=1e-8)  # 1 - 2.4525472806/4
    with pytest.raises(ValueError, match="length"):
        rate_match(1500.0, 1500.0, 0, 0, 0)


# -- the projector ----------------------------------------------------------------------------


def reference(specs: list[MatchSpec]) -> dict[str, tuple[float, int]]:
    """The ratings by the formula alone, folded in order: (rating, experience)."""
    ratings: dict[str, tuple[float, int]] = {}
    for s in specs:
        # Any account but a bot's: a rated table seats registered accounts only, and a guest
        # kept as an account (POST /me/account) keeps its g_ id.
        if not s.rated or s.a.startswith("b_") or s.b.startswith("b_"):
            continue
        loser = s.b if s.winner == s.a else s.a
        w, le = ratings.get(s.winner, (START_RATING, 0)), ratings.get(loser, (START_RATING, 0))
        r = rate_match(w[0], le[0], s.length, w[1], le[1])
        ratings[s.winner] = (r.winner_after, w[1] + s.length)
        ratings[loser] = (r.loser_after, le[1] + s.length)
    return ratings


async def test_rated_matches_forfeits_and_who_is_rated(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    projector = RatingsProjector()
    specs = [
        MatchSpec("u_ann", "u_bob", 5, "u_ann"),
        MatchSpec("u_bob", "u_cat", 3, "u_cat", how="leave"),  # bob leaves: his loss
        MatchSpec("u_ann", "u_cat", 7, "u_ann", how="time"),  # cat's time runs out
        # A guest kept as an account (its g_ id kept) at a rated table: rated like anyone.
        MatchSpec("g_kept", "u_cat", 1, "g_kept"),
        MatchSpec("u_ann", "b_bot", 5, "b_bot"),  # a bot: not rated
        MatchSpec("u_ann", "u_bob", 5, "u_bob", rated=False),  # not a rated table
    ]
    tables = [
        await append_match(store, s, 1_764_000_000_000 + i * 100_000) for i, s in enumerate(specs)
    ]
    await projector.catch_up(store)
    rows = {r["player"]: r for r in await pool.fetch("SELECT * FROM ratings")}
    assert set(rows) == {"u_ann", "u_bob", "u_cat", "g_kept"}
    expected = reference(specs)
    assert {p: (r["rating"], r["experience"]) for p, r in rows.items()} == expected
    # By hand: ann beats bob (5 points, both new): ±22.36068.
    first = await pool.fetch(
        "SELECT player, rating_after FROM rating_history WHERE table_id = $1", tables[0]
    )
    assert dict((r["player"], r["rating_after"]) for r in first) == {
        "u_ann": 1522.36068,
        "u_bob": 1477.63932,
    }
    assert rows["u_ann"]["matches"] == 2 and rows["u_ann"]["won"] == 2
    assert rows["u_bob"]["matches"] == 2 and rows["u_bob"]["won"] == 0
    assert rows["u_cat"]["experience"] == 11
    assert rows["g_kept"]["matches"] == 1 and rows["g_kept"]["won"] == 1
    for unrated in tables[4:]:
        assert (
            await pool.fetchval("SELECT count(*) FROM rating_history WHERE table_id = $1", unrated)
            == 0
        )


players = st.sampled_from(["u_ann", "u_bob", "u_cat", "u_dan", "g_gus", "b_bot"])
specs_strategy = st.lists(
    st.builds(
        lambda pair, length, first_wins, how, rated: MatchSpec(
            pair[0], pair[1], length, pair[0] if first_wins else pair[1], how, rated
        ),
        st.lists(players, min_size=2, max_size=2, unique=True),
        st.integers(min_value=1, max_value=25),
        st.booleans(),
        st.sampled_from(["play", "play", "leave", "time"]),
        st.booleans() | st.just(True),
    ),
    min_size=1,
    max_size=12,
)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(specs=specs_strategy, batch=st.integers(min_value=1, max_value=50))
async def test_a_rebuild_equals_the_live_ratings(
    store: EventStore,
    owner_store: EventStore,
    pool: asyncpg.Pool,
    specs: list[MatchSpec],
    batch: int,
) -> None:
    # The fixtures live across examples: each example's players are its own.
    tag = f"{uuid.uuid4().hex[:10]}_"
    specs = [
        MatchSpec(
            s.a.replace("_", "_" + tag, 1),
            s.b.replace("_", "_" + tag, 1),
            s.length,
            s.winner.replace("_", "_" + tag, 1),
            s.how,
            s.rated,
        )
        for s in specs
    ]
    live = RatingsProjector()
    at = itertools.count(1_764_000_000_000, 100_000)
    for spec in specs:  # live: caught up after each match, in batches of any size
        await append_match(store, spec, next(at))
        await live.catch_up(store, batch_size=batch)
    before = await snapshot(pool, RatingsProjector.tables)
    ours = {
        r["player"]: (r["rating"], r["experience"])
        for r in await pool.fetch(
            "SELECT player, rating, experience FROM ratings WHERE player LIKE $1", f"__{tag}%"
        )
    }
    assert ours == reference(specs)
    await rebuild(owner_store, RatingsProjector, batch_size=batch * 7)
    assert await snapshot(pool, RatingsProjector.tables) == before
