"""The secret dice seeds of tables' games, kept in ``dice_seeds`` outside the public streams
and sealed at rest (docs/dice.md, "Where the seed is kept"), apart from the event store proper
(:mod:`events.store.event_store`): a game's seed is in no event until the game ends.
"""

from __future__ import annotations

import asyncpg

from events.domain.dice import SeedCipher
from events.store.errors import StoreError, translate_errors

__all__ = ["SeedKeyError", "SeedMismatchError", "SeedStore"]


class SeedKeyError(StoreError):
    """A kept dice seed that does not open with the configured key (``CHOUETTE_SEED_KEY`` or
    the data directory's key file): the key was changed or lost, or the row was tampered with."""

    def __init__(self, table_id: str, game: int) -> None:
        super().__init__(
            f"the dice seed of game {game} at table {table_id} does not open with the configured"
            " seed key (CHOUETTE_SEED_KEY or the data directory's key file)"
        )
        self.table_id = table_id
        self.game = game


class SeedMismatchError(StoreError):
    """A kept dice seed that is not the one the game committed to: deciding with it would throw
    dice the published commitment does not cover, so the game is not decided at all."""

    def __init__(self, table_id: str, game: int) -> None:
        super().__init__(
            f"the kept dice seed of game {game} at table {table_id} does not match the game's"
            " published commitment; nothing was decided"
        )
        self.table_id = table_id
        self.game = game


class SeedStore:
    """The secret dice seeds of tables' games (``dice_seeds``), outside the public streams,
    encrypted at rest (docs/dice.md, "Where the seed is kept").

    A seed must survive a restart without being in any event until its game ends, and two
    processes deciding the same table must agree on it: :meth:`keep` inserts a new seed or
    returns the one already kept, never replacing it. Each seed is stored sealed by ``cipher``
    (AES-256-GCM, bound to its table and game), so a copy of the database does not tell anyone
    the dice of the games in play; the key lives outside the database. Rows written before
    seeds were encrypted hold the clear seed: they are read as such and sealed when met
    (:meth:`seal_legacy` seals them all).
    """

    def __init__(self, pool: asyncpg.Pool, cipher: SeedCipher) -> None:
        self._pool = pool
        self._cipher = cipher

    def _open(self, table_id: str, game: int, stored: bytes, sealed: bool) -> bytes:
        if not sealed:
            return stored
        try:
            return self._cipher.open(table_id, game, stored)
        except ValueError:
            raise SeedKeyError(table_id, game) from None

    async def load(self, table_id: str, since_game: int = 0) -> dict[int, bytes]:
        """The seeds kept for a table's games from ``since_game`` on, by game number (the
        clear-text rows among them sealed on the way).

        :raises SeedKeyError: a seed does not open with the key.
        """
        with translate_errors():
            rows = await self._pool.fetch(
                "SELECT game, seed, sealed FROM dice_seeds WHERE table_id = $1 AND game >= $2",
                table_id,
                since_game,
            )
        seeds = {
            r["game"]: self._open(table_id, r["game"], bytes(r["seed"]), r["sealed"]) for r in rows
        }
        if not all(r["sealed"] for r in rows):
            await self._seal(
                table_id, {r["game"]: seeds[r["game"]] for r in rows if not r["sealed"]}
            )
        return seeds

    async def keep(self, table_id: str, game: int, seed: bytes) -> bytes:
        """Keep ``seed`` for a table's game, or return the seed already kept for it (another
        process got there first): the seed the game's commitment must be made with.

        :raises SeedKeyError: the seed already kept does not open with the key.
        """
        with translate_errors():
            row = await self._pool.fetchrow(
                # A function of the owner's: the server's role may not write dice_seeds itself
                # (sql/016_server_role_and_chain_v2.sql), so no kept seed is ever replaced.
                "SELECT seed, sealed FROM keep_dice_seed($1, $2, $3)",
                table_id,
                game,
                self._cipher.seal(table_id, game, seed),
            )
        assert row is not None
        return self._open(table_id, game, bytes(row["seed"]), row["sealed"])

    async def seal_legacy(self) -> int:
        """Seal every seed still kept in the clear (written before seeds were encrypted);
        returns how many. The server does this when it starts."""
        with translate_errors():
            rows = await self._pool.fetch(
                "SELECT table_id, game, seed FROM dice_seeds WHERE NOT sealed"
            )
        tables: dict[str, dict[int, bytes]] = {}
        for r in rows:
            tables.setdefault(r["table_id"], {})[r["game"]] = bytes(r["seed"])
        for table_id, seeds in tables.items():
            await self._seal(table_id, seeds)
        return len(rows)

    async def _seal(self, table_id: str, seeds: dict[int, bytes]) -> None:
        # Only rows still in the clear: a row another process sealed meanwhile stays as it is.
        # Through the owner's function, which changes rows still in the clear only.
        games = list(seeds)
        with translate_errors():
            await self._pool.execute(
                "SELECT seal_dice_seeds($1, $2, $3)",
                [table_id] * len(games),
                games,
                [self._cipher.seal(table_id, game, seeds[game]) for game in games],
            )
