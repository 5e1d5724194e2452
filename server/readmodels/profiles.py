"""The profiles read model: per player, table kind and privacy (private tables apart, which
only the player's own profile counts), games, matches played and won, gammons, the ledger and
the time played; per player and table, the tables played at (the recent tables)
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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import asyncpg

from events.domain import types as e
from events.store.errors import translate_errors
from events.store.event_store import EventStore, RecordedEvent
from events.store.streams import decode_recorded
from server.readmodels.rebuild import ReadModel

__all__ = ["ProfilesProjector", "chouette_winnings", "player_profile"]

_EPOCH = dt.date(1970, 1, 1)


def day_of(at: int) -> dt.date:
    """The UTC day of a time in ms since the epoch."""
    return _EPOCH + dt.timedelta(days=at // 86_400_000)


@dataclass(slots=True)
class _Table:
    kind: str
    name: str
    private: bool
    created_at: int
    game_started_at: int = 0
    game_players: list[str] = field(default_factory=list)
    dirty: bool = False


@dataclass(slots=True)
class _Stats:
    games: int = 0
    games_won: int = 0
    matches: int = 0
    matches_won: int = 0
    gammons: int = 0
    ledger: int = 0
    ms_played: int = 0


@dataclass(slots=True)
class _Played:
    kind: str
    first_at: int
    last_at: int
    games: int = 0
    ledger: int = 0


@dataclass(slots=True)
class _Batch:
    """A batch's changes, gathered in memory and written in four statements: the tables'
    rows, and the sums (games, ledgers...) to add, which add up the same however the log is
    cut into batches."""

    tables: dict[str, _Table] = field(default_factory=dict)
    stats: dict[tuple[str, str, bool], _Stats] = field(default_factory=dict)
    played: dict[tuple[str, str], _Played] = field(default_factory=dict)
    daily: dict[tuple[str, dt.date], list[int]] = field(default_factory=dict)

    def stat(self, player: str, table: _Table) -> _Stats:
        """The sums to add for ``player`` at tables of this one's kind and privacy."""
        key = (player, table.kind, table.private)
        if key not in self.stats:
            self.stats[key] = _Stats()
        return self.stats[key]

    def play(self, player: str, table_id: str, kind: str, at: int) -> _Played:
        key = (player, table_id)
        p = self.played.get(key)
        if p is None:
            p = self.played[key] = _Played(kind, at, at)
        else:
            p.first_at, p.last_at = min(p.first_at, at), max(p.last_at, at)
        return p


class ProfilesProjector(ReadModel):
    model = "profiles"
    tables = ("profile_tables", "profile_stats", "profile_table_players", "chouette_daily")
    types = frozenset(
        {"table_created", "player_joined", "game_started", "game_ended", "match_ended"}
    )
    personal = frozenset({"table_created"})
    """What it keeps of what people typed: the tables' names."""

    async def handle(self, connection: asyncpg.Connection, events: Sequence[RecordedEvent]) -> None:
        decoded = [
            (table_id, decode_recorded(rec, self.keys))
            for table_id, rec in self.table_records(events)
        ]
        if not decoded:
            return
        batch = _Batch()
        rows = await connection.fetch(
            "SELECT table_id, kind, name, private, created_at, game_started_at, game_players"
            f" FROM {self.t('profile_tables')} WHERE table_id = ANY($1)",
            list({table_id for table_id, _ in decoded}),
        )
        for r in rows:
            batch.tables[r["table_id"]] = _Table(
                r["kind"],
                r["name"],
                r["private"],
                r["created_at"],
                r["game_started_at"],
                list(r["game_players"]),
            )
        for table_id, event in decoded:
            self._apply(batch, table_id, event)
        await self._write(connection, batch)

    def _apply(self, batch: _Batch, table_id: str, event: e.Event) -> None:
        if isinstance(event, e.TableCreated):
            if table_id not in batch.tables:
                o = event.options
                batch.tables[table_id] = _Table(
                    event.kind, event.name, o.private, event.at, dirty=True
                )
            return
        table = batch.tables.get(table_id)
        if table is None:
            return  # no table_created (or it was skipped): nothing to count it under
        match event:
            case e.PlayerJoined(player=player):
                batch.play(player, table_id, table.kind, event.at)
            case e.GameStarted(players=players):
                table.game_started_at, table.game_players = event.at, list(players)
                table.dirty = True
            case e.GameEnded():
                self._game_ended(batch, table_id, table, event)
            case e.MatchEnded(winner=winner):
                for p in table.game_players:
                    st = batch.stat(p, table)
                    st.matches += 1
                    st.matches_won += int(p == winner)

    @staticmethod
    def _game_ended(batch: _Batch, table_id: str, table: _Table, ev: e.GameEnded) -> None:
        if ev.how == "unplayed":
            return
        kind = table.kind
        amounts: dict[str, int] = {}
        for s in ev.settlements:
            amounts[s.player] = amounts.get(s.player, 0) + s.amount
        started = table.game_started_at
        ms = ev.at - started if started and ev.at >= started else 0
        gammons: dict[str, int] = {}
        if kind == "chouette":
            for m in ev.members:
                if m.result >= 2:
                    gammons[m.winner] = gammons.get(m.winner, 0) + 1
        elif ev.result >= 2 and ev.winner:
            gammons[ev.winner] = 1
        for p in dict.fromkeys([*table.game_players, *amounts]):
            amount = amounts.get(p, 0)
            st = batch.stat(p, table)
            st.games += 1
            st.games_won += int(amount > 0) if kind == "chouette" else int(p == ev.winner)
            st.gammons += gammons.get(p, 0)
            st.ledger += amount
            st.ms_played += ms
            played = batch.play(p, table_id, kind, ev.at)
            played.games += 1
            played.ledger += amount
            if kind == "chouette":
                day = batch.daily.setdefault((p, day_of(ev.at)), [0, 0])
                day[0] += amount
                day[1] += 1

    async def _write(self, conn: asyncpg.Connection, batch: _Batch) -> None:
        t = self.t
        dirty = [(k, v) for k, v in batch.tables.items() if v.dirty]
        if dirty:
            await conn.executemany(
                f"INSERT INTO {t('profile_tables')} (table_id, kind, name, private, created_at,"
                " game_started_at, game_players) VALUES ($1, $2, $3, $4, $5, $6, $7)"
                " ON CONFLICT (table_id) DO UPDATE SET game_started_at ="
                " excluded.game_started_at, game_players = excluded.game_players",
                [
                    (k, v.kind, v.name, v.private, v.created_at, v.game_started_at, v.game_players)
                    for k, v in dirty
                ],
            )
        stats = t("profile_stats")
        if batch.stats:
            await conn.executemany(
                f"INSERT INTO {stats} (player, kind, private, games, games_won, matches,"
                " matches_won, gammons, ledger, ms_played)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
                " ON CONFLICT (player, kind, private) DO UPDATE SET"
                f" games = {stats}.games + excluded.games,"
                f" games_won = {stats}.games_won + excluded.games_won,"
                f" matches = {stats}.matches + excluded.matches,"
                f" matches_won = {stats}.matches_won + excluded.matches_won,"
                f" gammons = {stats}.gammons + excluded.gammons,"
                f" ledger = {stats}.ledger + excluded.ledger,"
                f" ms_played = {stats}.ms_played + excluded.ms_played",
                [
                    (
                        p,
                        kind,
                        private,
                        s.games,
                        s.games_won,
                        s.matches,
                        s.matches_won,
                        s.gammons,
                        s.ledger,
                        s.ms_played,
                    )
                    for (p, kind, private), s in batch.stats.items()
                ],
            )
        tpp = t("profile_table_players")
        if batch.played:
            await conn.executemany(
                f"INSERT INTO {tpp} (player, table_id, kind, first_at, last_at, games, ledger)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (player, table_id) DO UPDATE"
                f" SET first_at = least({tpp}.first_at, excluded.first_at),"
                f" last_at = greatest({tpp}.last_at, excluded.last_at),"
                f" games = {tpp}.games + excluded.games, ledger = {tpp}.ledger + excluded.ledger",
                [
                    (p, table_id, v.kind, v.first_at, v.last_at, v.games, v.ledger)
                    for (p, table_id), v in batch.played.items()
                ],
            )
        daily = t("chouette_daily")
        if batch.daily:
            await conn.executemany(
                f"INSERT INTO {daily} (player, day, amount, games) VALUES ($1, $2, $3, $4)"
                f" ON CONFLICT (player, day) DO UPDATE SET amount = {daily}.amount"
                f" + excluded.amount, games = {daily}.games + excluded.games",
                [(p, day, v[0], v[1]) for (p, day), v in batch.daily.items()],
            )


async def player_profile(
    store: EventStore, account_id: str, *, show_private: bool, recent: int
) -> dict[str, Any]:
    """A player's statistics per table kind and their ``recent`` latest tables. Private tables
    count, and are listed, only when ``show_private`` (the player's own profile): to anyone
    else the player's statistics are as if those tables had never been played."""
    with translate_errors():
        async with store.pool.acquire() as conn:
            stats = await conn.fetch(
                "SELECT kind, sum(games)::bigint AS games, sum(games_won)::bigint AS games_won,"
                " sum(matches)::bigint AS matches, sum(matches_won)::bigint AS matches_won,"
                " sum(gammons)::bigint AS gammons, sum(ledger)::bigint AS ledger,"
                " sum(ms_played)::bigint AS ms_played FROM profile_stats"
                " WHERE player = $1 AND ($2 OR NOT private) GROUP BY kind ORDER BY kind",
                account_id,
                show_private,
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
