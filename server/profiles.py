"""The profiles read model: per player and table kind, games, matches played and won, gammons,
the ledger and the time played; per player and table, the tables played at (the recent tables)
and each one's ledger; and per player and day, chouette winnings (the leaderboard over a
period). Kept by a projector of the log; times are the events' own, so a rebuild writes the
same rows.

- A game counts for everyone who started it (``game_started``'s players: the seats, or the
  chouette's line), once it ended; a game that ended unplayed does not count. Its time (from
  its start to its end) counts for each of them.
- A game is won by its winner at a money or match table, and at a chouette by each player who
  came out of it ahead; gammons are the games (a chouette's: each member's game against the
  box) a player won with a gammon or backgammon.
- The ledger is the sum of a player's settlements (money and chouette points; a match's games
  are scored in its match, and their points are kept as played).
- A match counts, played, for both its players and, won, for its winner, forfeits included.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import asyncpg

from events import types as e
from events.errors import translate_errors
from events.store import EventStore, RecordedEvent
from events.streams import decode_recorded, parse_stream
from server.readmodels import ReadModel

__all__ = ["ProfilesProjector", "chouette_winnings", "player_profile"]

_EPOCH = dt.date(1970, 1, 1)


def day_of(at: int) -> dt.date:
    """The UTC day of a time in ms since the epoch."""
    return _EPOCH + dt.timedelta(days=at // 86_400_000)


class ProfilesProjector(ReadModel):
    model = "profiles"
    tables = ("profile_tables", "profile_stats", "profile_table_players", "chouette_daily")
    types = frozenset(
        {"table_created", "player_joined", "game_started", "game_ended", "match_ended"}
    )

    async def apply_event(self, conn: asyncpg.Connection, rec: RecordedEvent) -> None:
        name = parse_stream(rec.stream_id)
        if name is None or name.kind != "table":
            return
        table_id = name.table_id
        event = decode_recorded(rec)
        match event:
            case e.TableCreated(kind=kind, options=o, name=table_name):
                await conn.execute(
                    f"INSERT INTO {self.t('profile_tables')} (table_id, kind, name, private,"
                    " created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (table_id) DO NOTHING",
                    *(table_id, kind, table_name, o.private, event.at),
                )
            case e.PlayerJoined(player=player):
                tpp = self.t("profile_table_players")
                await conn.execute(
                    f"INSERT INTO {tpp} (player, table_id, kind, first_at, last_at)"
                    f" SELECT $1, table_id, kind, $3, $3 FROM {self.t('profile_tables')}"
                    " WHERE table_id = $2 ON CONFLICT (player, table_id) DO UPDATE"
                    f" SET last_at = greatest({tpp}.last_at, excluded.last_at)",
                    *(player, table_id, event.at),
                )
            case e.GameStarted(players=players):
                await conn.execute(
                    f"UPDATE {self.t('profile_tables')} SET game_started_at = $2,"
                    " game_players = $3 WHERE table_id = $1",
                    *(table_id, event.at, players),
                )
            case e.GameEnded():
                await self._game_ended(conn, table_id, event)
            case e.MatchEnded(winner=winner):
                row = await conn.fetchrow(
                    f"SELECT kind, game_players FROM {self.t('profile_tables')}"
                    " WHERE table_id = $1",
                    table_id,
                )
                if row is None:
                    return
                await conn.executemany(
                    f"INSERT INTO {self.t('profile_stats')} (player, kind, matches, matches_won)"
                    " VALUES ($1, $2, 1, $3) ON CONFLICT (player, kind) DO UPDATE SET"
                    f" matches = {self.t('profile_stats')}.matches + 1,"
                    f" matches_won = {self.t('profile_stats')}.matches_won + excluded.matches_won",
                    [(p, row["kind"], int(p == winner)) for p in row["game_players"]],
                )

    async def _game_ended(self, conn: asyncpg.Connection, table_id: str, ev: e.GameEnded) -> None:
        if ev.how == "unplayed":
            return
        row = await conn.fetchrow(
            f"SELECT kind, game_started_at, game_players FROM {self.t('profile_tables')}"
            " WHERE table_id = $1",
            table_id,
        )
        if row is None:
            return
        kind: str = row["kind"]
        amounts: dict[str, int] = {}
        for s in ev.settlements:
            amounts[s.player] = amounts.get(s.player, 0) + s.amount
        players = list(dict.fromkeys([*row["game_players"], *amounts]))
        started: int = row["game_started_at"]
        ms = ev.at - started if started and ev.at >= started else 0
        gammons: dict[str, int] = {}
        if kind == "chouette":
            for m in ev.members:
                if m.result >= 2:
                    gammons[m.winner] = gammons.get(m.winner, 0) + 1
        elif ev.result >= 2 and ev.winner:
            gammons[ev.winner] = 1

        def won(p: str) -> int:
            return int(amounts.get(p, 0) > 0) if kind == "chouette" else int(p == ev.winner)

        stats = self.t("profile_stats")
        await conn.executemany(
            f"INSERT INTO {stats} (player, kind, games, games_won, gammons, ledger, ms_played)"
            " VALUES ($1, $2, 1, $3, $4, $5, $6) ON CONFLICT (player, kind) DO UPDATE SET"
            f" games = {stats}.games + 1, games_won = {stats}.games_won + excluded.games_won,"
            f" gammons = {stats}.gammons + excluded.gammons,"
            f" ledger = {stats}.ledger + excluded.ledger,"
            f" ms_played = {stats}.ms_played + excluded.ms_played",
            [(p, kind, won(p), gammons.get(p, 0), amounts.get(p, 0), ms) for p in players],
        )
        tpp = self.t("profile_table_players")
        await conn.executemany(
            f"INSERT INTO {tpp} (player, table_id, kind, first_at, last_at, games, ledger)"
            " VALUES ($1, $2, $3, $4, $4, 1, $5) ON CONFLICT (player, table_id) DO UPDATE SET"
            f" last_at = greatest({tpp}.last_at, excluded.last_at), games = {tpp}.games + 1,"
            f" ledger = {tpp}.ledger + excluded.ledger",
            [(p, table_id, kind, ev.at, amounts.get(p, 0)) for p in players],
        )
        if kind == "chouette":
            daily = self.t("chouette_daily")
            await conn.executemany(
                f"INSERT INTO {daily} (player, day, amount, games) VALUES ($1, $2, $3, 1)"
                f" ON CONFLICT (player, day) DO UPDATE SET amount = {daily}.amount"
                f" + excluded.amount, games = {daily}.games + 1",
                [(p, day_of(ev.at), amounts.get(p, 0)) for p in players],
            )


async def player_profile(
    store: EventStore, account_id: str, *, show_private: bool, recent: int
) -> dict[str, Any]:
    """A player's statistics per table kind and their ``recent`` latest tables (a private
    table only when ``show_private``: the player's own profile)."""
    with translate_errors():
        async with store.pool.acquire() as conn:
            stats = await conn.fetch(
                "SELECT kind, games, games_won, matches, matches_won, gammons, ledger, ms_played"
                " FROM profile_stats WHERE player = $1 ORDER BY kind",
                account_id,
            )
            tables = await conn.fetch(
                "SELECT p.table_id, p.kind, t.name, t.private, p.first_at, p.last_at, p.games,"
                " p.ledger, h.rating_before, h.rating_after, h.won"
                " FROM profile_table_players p JOIN profile_tables t USING (table_id)"
                " LEFT JOIN rating_history h ON h.table_id = p.table_id AND h.player = p.player"
                " WHERE p.player = $1 AND ($2 OR NOT t.private)"
                " ORDER BY p.last_at DESC, p.table_id LIMIT $3",
                account_id,
                show_private,
                recent,
            )
    return {
        "stats": {
            r["kind"]: {
                "games": r["games"],
                "games_won": r["games_won"],
                "matches": r["matches"],
                "matches_won": r["matches_won"],
                "gammons": r["gammons"],
                "ledger": r["ledger"],
                "seconds_played": r["ms_played"] // 1000,
            }
            for r in stats
        },
        "recent_tables": [
            {
                "table_id": r["table_id"],
                "kind": r["kind"],
                "name": r["name"],
                "private": r["private"],
                "first_at": r["first_at"],
                "last_at": r["last_at"],
                "games": r["games"],
                "ledger": r["ledger"],
                "replay": f"/tables/{r['table_id']}/replay",
                "page": f"/#/replay/{r['table_id']}",
                "rating_change": (
                    None
                    if r["rating_before"] is None
                    else round(r["rating_after"] - r["rating_before"], 6)
                ),
            }
            for r in tables
        ],
    }


async def chouette_winnings(
    store: EventStore, since: dt.date, until: dt.date, limit: int, offset: int
) -> list[asyncpg.Record]:
    """The chouette leaderboard's rows: winnings from ``since`` to ``until`` (UTC days,
    inclusive), best first; registered and guest players (bots too: they play for points)."""
    with translate_errors():
        return await store.pool.fetch(
            "SELECT d.player, a.username, a.display_name, sum(d.amount)::bigint AS amount,"
            " sum(d.games)::bigint AS games FROM chouette_daily d"
            " JOIN accounts a ON a.account_id = d.player WHERE d.day BETWEEN $1 AND $2"
            " GROUP BY d.player, a.username, a.display_name"
            " ORDER BY amount DESC, d.player LIMIT $3 OFFSET $4",
            since,
            until,
            limit,
            offset,
        )
