"""What the tournaments read beside their streams (docs/tournaments.md): the display names of
their entrants, from ``accounts`` (pseudonymised there when an account is erased), and their
list.

The tournaments' list (``GET /tournaments``) is kept by a projector of the log like the lobby
(docs/tournaments.md, "Reading it"), and rebuilt like the others (``chouette project rebuild
tournaments``).

A tournament's summary — its format, status, entrants, rounds and winner — is its stream's
fold (:func:`events.domain.tournament.fold`, the rules the command service decides by): for
each tournament a batch touches, the projector folds its stream up to the batch's last event of
it and writes the row. Who may see a private one (its director, the invited, its entrants) is
kept beside it (``tournament_members``), so that the list is one query whoever asks; and which
tournament, round and board each match table plays (``tournament_tables``), for the table's page
to link back (:func:`tournament_of_table`).

Its name is what the director typed, sealed under their key: it is written with the row the
creation makes, and never from a later batch (one that opened it again could outlive the key:
:attr:`~events.store.projection.Projector.personal`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Final, Literal

import asyncpg

from engine.errors import TournamentError
from events.domain import types as e
from events.domain.tournament import TournamentState, evolve
from events.store.errors import PoisonEventError, translate_errors
from events.store.event_store import EventStore, RecordedEvent
from events.store.streams import decode_recorded, tournament_of_stream, tournament_stream
from server.readmodels.rebuild import ReadModel, ReadModels

__all__ = [
    "NAME",
    "TableOfTournament",
    "TournamentRow",
    "TournamentsProjector",
    "caught_up",
    "display_names",
    "listed",
    "tournament_of_table",
]

NAME: Final = "tournaments"
"""The projector's name (its checkpoints and skipped events)."""

TYPES: Final = frozenset(
    {
        "tournament_created",
        "tournament_entered",
        "tournament_withdrew",
        "tournament_round_paired",
        "tournament_result",
        "tournament_result_adjusted",
        "tournament_finished",
    }
)


Status = Literal["entering", "playing", "finished"]


def status_of(s: TournamentState) -> Status:
    """``entering``, ``playing`` or ``finished``."""
    if s.finished:
        return "finished"
    return "playing" if s.t.has_started else "entering"


class TournamentsProjector(ReadModel):
    """The tournaments' list's projector (with a ``suffix``: a rebuild's copy)."""

    model: ClassVar[str] = NAME
    tables: ClassVar[tuple[str, ...]] = (
        "tournament_list",
        "tournament_members",
        "tournament_tables",
    )
    types: ClassVar[frozenset[str]] = TYPES
    personal: ClassVar[frozenset[str]] = frozenset({"tournament_created"})
    """The tournament's name, the director's words."""
    store: EventStore | None = None
    """The store whose log it follows (set as it is prepared)."""

    async def handle(self, connection: asyncpg.Connection, events: Sequence[RecordedEvent]) -> None:
        last: dict[str, int] = {}
        first: dict[str, int] = {}
        created: set[str] = set()
        for rec in events:
            tid = tournament_of_stream(rec.stream_id)
            if tid is None or rec.type not in TYPES:
                continue
            last[tid] = rec.version
            first.setdefault(tid, rec.version)
            if rec.type == "tournament_created":
                created.add(tid)
        if not last:
            return
        store = self.store
        assert store is not None
        for tid, upto in last.items():
            state, paired = await self._fold(store, tid, first[tid], upto)
            if not state.exists:
                continue  # (its creation was refused by the rules: nothing to list)
            await self._write(connection, state, tid in created, paired)

    async def _fold(
        self, store: EventStore, tid: str, first: int, upto: int
    ) -> tuple[TournamentState, set[int]]:
        """The tournament's state at version ``upto``, and the rounds paired in this batch
        (from ``first``); an event of the batch that the rules refuse is poison; one before it
        was skipped when it was new."""
        s = TournamentState(tid)
        paired: set[int] = set()
        for rec in await store.read_stream(tournament_stream(tid), 0, limit=upto):
            event = decode_recorded(rec, self.keys)
            try:
                s = evolve(s, event)
            except TournamentError as exc:
                if rec.version >= first:
                    raise PoisonEventError(rec.stream_id, rec.version, str(exc)) from exc
                continue
            if rec.version >= first and isinstance(event, e.TournamentRoundPaired):
                paired.add(event.round)
        return s, paired

    async def _write(
        self, conn: asyncpg.Connection, s: TournamentState, created: bool, paired: set[int]
    ) -> None:
        assert s.options is not None
        rows = self.t("tournament_list")
        await conn.execute(
            f"INSERT INTO {rows} (tournament_id, name, format, director, private, rated, status,"
            " entrants, rounds, winner, created_at, version) VALUES ($1, $2, $3, $4, $5, $6, $7,"
            " $8, $9, $10, $11, $12) ON CONFLICT (tournament_id) DO UPDATE SET"
            " status = excluded.status, entrants = excluded.entrants, rounds = excluded.rounds,"
            " winner = excluded.winner, version = excluded.version, updated_at = now()"
            f" WHERE {rows}.version < excluded.version",
            s.tournament_id,
            s.name if created else "",
            str(s.options.format),
            s.created_by,
            s.options.private,
            s.options.rated,
            status_of(s),
            len(s.t.field),
            len(s.t.rounds),
            s.winner,
            s.created_at,
            s.version,
        )
        # Only the rounds this batch paired: a batch of one result needs no table's row again.
        links = [
            (t, s.tournament_id, r, b) for (r, b), t in sorted(s.tables.items()) if r in paired
        ]
        if links:
            await conn.executemany(
                f"INSERT INTO {self.t('tournament_tables')} (table_id, tournament_id, round,"
                " board) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                links,
            )
        if s.options.private:
            members = {s.created_by, *s.options.invited, *(x.player for x in s.t.entrants)}
            await conn.executemany(
                f"INSERT INTO {self.t('tournament_members')} (tournament_id, account_id)"
                " VALUES ($1, $2) ON CONFLICT DO NOTHING",
                [(s.tournament_id, m) for m in sorted(members)],
            )

    async def prepare(self, store: EventStore) -> None:
        self.store = store  # (its batches read each touched tournament's stream)
        await super().prepare(store)

    async def apply(self, store: EventStore, events: Sequence[RecordedEvent]) -> int:
        self.store = store
        return await super().apply(store, events)


@dataclass(frozen=True, slots=True)
class TournamentRow:
    """A tournament as the list has it."""

    tournament_id: str
    name: str
    format: str
    director: str
    private: bool
    rated: bool
    status: Status
    entrants: int
    rounds: int
    winner: str | None
    created_at: int


async def listed(pool: asyncpg.Pool, account_id: str | None) -> list[TournamentRow]:
    """The public tournaments and the private ones ``account_id`` may see, newest first."""
    with translate_errors():
        rows = await pool.fetch(
            "SELECT tournament_id, name, format, director, private, rated, status, entrants,"
            " rounds, winner, created_at FROM tournament_list t WHERE NOT private OR EXISTS"
            " (SELECT FROM tournament_members m WHERE m.tournament_id = t.tournament_id"
            " AND m.account_id = $1) ORDER BY created_at DESC, tournament_id",
            account_id,
        )
    return [TournamentRow(**dict(r)) for r in rows]


@dataclass(frozen=True, slots=True)
class TableOfTournament:
    """A match table's place in its tournament."""

    tournament_id: str
    round: int
    board: int


async def tournament_of_table(pool: asyncpg.Pool, table_id: str) -> TableOfTournament | None:
    """The tournament, round and board ``table_id`` plays; None for a table of no tournament
    (or one whose pairing the list has not caught up with yet)."""
    with translate_errors():
        row = await pool.fetchrow(
            "SELECT tournament_id, round, board FROM tournament_tables WHERE table_id = $1",
            table_id,
        )
    return None if row is None else TableOfTournament(**dict(row))


async def caught_up(models: ReadModels) -> None:
    """Apply to the list everything the log holds so far (``GET /tournaments`` reads its own
    writes: a tournament just created is listed)."""
    for projector in models.projectors:
        if isinstance(projector, TournamentsProjector):
            await projector.catch_up(models.store)


async def display_names(pool: asyncpg.Pool, account_ids: Sequence[str]) -> dict[str, str]:
    """Each of ``account_ids``' display name (an unknown account is left out)."""
    if not account_ids:
        return {}
    with translate_errors():
        rows = await pool.fetch(
            "SELECT account_id, display_name FROM accounts WHERE account_id = ANY($1::text[])",
            list(account_ids),
        )
    return {r["account_id"]: r["display_name"] for r in rows}
