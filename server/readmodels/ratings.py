"""The ratings read model: FIBS ratings (events/domain/ratings.py) of registered players, from the
results of rated matches, with each match's change kept for the history.

A match is rated when its table was created with ``rated`` (matches only), and both its players
are registered accounts (not guests, not the server's bots), neither of whom sat down as a bot
(``player_joined.bot``: a bot account, docs/bots.md) unless the table rates bots too
(``bots_rated``); a forfeit (leaving, or time) is a loss like any
other, since ``match_ended`` names the winner either way. Matches are rated in the order of
the log: with one partition (the default) a rebuild gives exactly the live ratings; with
several, matches ending at the same moment in different partitions may be rated in another
order (docs/social.md).
"""

from __future__ import annotations

from typing import Any

import asyncpg

from events.domain import types as e
from events.domain.ratings import START_RATING, is_rateable, rate_match
from events.store.errors import translate_errors
from events.store.event_store import EventStore, RecordedEvent
from events.store.lru import Lru
from events.store.streams import decode_recorded, parse_stream
from server.readmodels.rebuild import ReadModel

__all__ = ["RatingsProjector", "match_ratings", "player_rating", "rating_history", "top_ratings"]


class RatingsProjector(ReadModel):
    model = "ratings"
    tables = ("rating_tables", "ratings", "rating_history")
    types = frozenset({"table_created", "player_joined", "game_started", "match_ended"})

    UNRATED_KEPT = 50_000
    """How many tables seen created unrated :attr:`_unrated` keeps."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._unrated: Lru[bool] = Lru(self.UNRATED_KEPT)
        """Tables whose creation this projector has seen, unrated (the ones used last): their
        later events are not sent to the database, which keeps no row for them (a table not in
        it, created before the process started, is updated as ever: no row, nothing changes)."""

    async def apply_event(self, conn: asyncpg.Connection, rec: RecordedEvent) -> None:
        name = parse_stream(rec.stream_id)
        if name is None or name.kind != "table":
            return
        table_id = name.table_id
        if table_id in self._unrated:
            return
        event = decode_recorded(rec, self.keys)
        match event:
            case e.TableCreated(kind=kind, options=o):
                if not (kind == "match" and o.rated and o.match_length > 0):
                    self._unrated.put(table_id, True)
                    return
                await conn.execute(
                    f"INSERT INTO {self.t('rating_tables')} (table_id, rated, length, bots_rated)"
                    " VALUES ($1, true, $2, $3) ON CONFLICT (table_id) DO NOTHING",
                    table_id,
                    o.match_length,
                    o.bots_rated,
                )
            case e.PlayerJoined(player=player, seat=seat, bot=bot) if seat in (0, 1):
                assert seat is not None
                # Who sat down as a bot, as their last join says.
                await conn.execute(
                    f"UPDATE {self.t('rating_tables')} SET players[$2] = $3,"
                    " bots = array_remove(bots, $3) || CASE WHEN $4 THEN ARRAY[$3]"
                    " ELSE '{}'::text[] END WHERE table_id = $1 AND rated",
                    table_id,
                    seat + 1,
                    player,
                    bot,
                )
            case e.GameStarted(players=players) if len(players) == 2:
                await conn.execute(
                    f"UPDATE {self.t('rating_tables')} SET players = $2"
                    " WHERE table_id = $1 AND rated",
                    table_id,
                    players,
                )
            case e.MatchEnded(winner=winner):
                await self._rate(conn, table_id, winner, event.at)

    async def _rate(self, conn: asyncpg.Connection, table_id: str, winner: str, at: int) -> None:
        row = await conn.fetchrow(
            f"SELECT length, players, bots, bots_rated FROM {self.t('rating_tables')}"
            " WHERE table_id = $1 AND rated",
            table_id,
        )
        if row is None:
            return
        players: list[str] = list(row["players"])
        if winner not in players or len(players) != 2:
            return
        loser = players[1 - players.index(winner)]
        if not (is_rateable(winner) and is_rateable(loser)) or winner == loser:
            return
        if not row["bots_rated"] and set(players) & set(row["bots"]):
            return  # a bot account is rated only where the table says so (docs/bots.md)
        length: int = row["length"]
        ratings = self.t("ratings")
        known = {
            r["player"]: (r["rating"], r["experience"])
            for r in await conn.fetch(
                f"SELECT player, rating, experience FROM {ratings} WHERE player = ANY($1)",
                [winner, loser],
            )
        }
        w_rating, w_exp = known.get(winner, (START_RATING, 0))
        l_rating, l_exp = known.get(loser, (START_RATING, 0))
        outcome = rate_match(w_rating, l_rating, length, w_exp, l_exp)
        inserted = await conn.fetchval(
            f"INSERT INTO {self.t('rating_history')} (table_id, player, opponent, length, won,"
            " rating_before, rating_after, experience_before, at) VALUES"
            " ($1, $2, $3, $4, true, $5, $6, $7, $10), ($1, $3, $2, $4, false, $8, $9, $11, $10)"
            " ON CONFLICT (table_id, player) DO NOTHING RETURNING 1",
            *(table_id, winner, loser, length),
            *(w_rating, outcome.winner_after, w_exp),
            *(l_rating, outcome.loser_after, at, l_exp),
        )
        if inserted is None:
            return  # (a match ends once: never rated twice)
        await conn.executemany(
            f"INSERT INTO {ratings} (player, rating, experience, matches, won, updated_at)"
            " VALUES ($1, $2, $3, 1, $4, $5) ON CONFLICT (player) DO UPDATE SET"
            " rating = excluded.rating, experience = excluded.experience,"
            f" matches = {ratings}.matches + 1, won = {ratings}.won + excluded.won,"
            " updated_at = excluded.updated_at",
            [
                (winner, outcome.winner_after, w_exp + length, 1, at),
                (loser, outcome.loser_after, l_exp + length, 0, at),
            ],
        )


def _change(r: asyncpg.Record) -> dict[str, Any]:
    return {
        "table_id": r["table_id"],
        "player": r["player"],
        "opponent": r["opponent"],
        "length": r["length"],
        "won": r["won"],
        "rating_before": r["rating_before"],
        "rating_after": r["rating_after"],
        "change": round(r["rating_after"] - r["rating_before"], 6),
        "experience_before": r["experience_before"],
        "at": r["at"],
    }


_HISTORY = (
    "SELECT table_id, player, opponent, length, won, rating_before, rating_after,"
    " experience_before, at FROM rating_history"
)


async def match_ratings(store: EventStore, table_id: str) -> list[dict[str, Any]]:
    """A rated match's change for both players (empty if not rated, or not over)."""
    with translate_errors():
        rows = await store.pool.fetch(_HISTORY + " WHERE table_id = $1 ORDER BY won DESC", table_id)
    return [_change(r) for r in rows]


_AT_PRIVATE = "EXISTS (SELECT 1 FROM private_tables p WHERE p.table_id = h.table_id)"
"""Whether the rated match ``h`` was at a private table (its row written before the table was
created, server/http/privacy.py: never missing, however far the read models have got)."""


async def rating_history(
    store: EventStore, player: str, limit: int, *, show_private: bool = True
) -> list[dict[str, Any]]:
    """A player's latest rated matches, newest first; those at private tables only when
    ``show_private`` (the player's own profile)."""
    with translate_errors():
        rows = await store.pool.fetch(
            _HISTORY + f" h WHERE player = $1 AND ($3 OR NOT {_AT_PRIVATE})"
            " ORDER BY at DESC, table_id LIMIT $2",
            player,
            limit,
            show_private,
        )
    return [_change(r) for r in rows]


async def player_rating(
    store: EventStore, player: str, *, show_private: bool = True
) -> dict[str, Any]:
    """A player's rating and experience (1500 and 0 before their first rated match). Unless
    ``show_private``, the experience, matches and wins leave out the rated matches at private
    tables; the rating is the player's one rating, the leaderboard's, whatever it came from."""
    with translate_errors():
        row = await store.pool.fetchrow(
            "SELECT r.rating, r.experience - x.length AS experience, r.matches - x.matches"
            " AS matches, r.won - x.won AS won FROM ratings r, LATERAL (SELECT"
            " coalesce(sum(h.length), 0)::integer AS length, count(*)::integer AS matches,"
            " (count(*) FILTER (WHERE h.won))::integer AS won FROM rating_history h"
            f" WHERE h.player = r.player AND NOT $2 AND {_AT_PRIVATE}) x WHERE r.player = $1",
            player,
            show_private,
        )
    if row is None:
        return {"rating": START_RATING, "experience": 0, "matches": 0, "won": 0}
    return {k: row[k] for k in ("rating", "experience", "matches", "won")}


async def top_ratings(
    store: EventStore, min_experience: int, limit: int, offset: int
) -> list[asyncpg.Record]:
    """The rating leaderboard's rows: players with at least ``min_experience``, best first."""
    with translate_errors():
        return await store.pool.fetch(
            "SELECT r.player, a.username, a.display_name, r.rating, r.experience, r.matches,"
            " r.won FROM ratings r JOIN accounts a ON a.account_id = r.player"
            " WHERE r.experience >= $1 ORDER BY r.rating DESC, r.player LIMIT $2 OFFSET $3",
            min_experience,
            limit,
            offset,
        )
