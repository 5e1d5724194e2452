"""Helpers for the social read models' tests: matches written straight to the log as the
service would record them (their events, not their games), and read models compared whole."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import asyncpg

from events.domain import types as e
from events.store.event_store import EventStore
from events.store.streams import append_events, table_stream


@dataclass(frozen=True)
class MatchSpec:
    """A match between ``a`` and ``b`` of ``length`` points that ``winner`` wins; ``how`` it
    ends: ``play`` (the last game), ``leave`` (the loser leaves: a forfeit) or ``time`` (the
    loser's clock runs out)."""

    a: str
    b: str
    length: int
    winner: str
    how: str = "play"
    rated: bool = True


def match_steps(spec: MatchSpec, table_id: str, at: int) -> list[list[e.Event]]:
    loser = spec.b if spec.winner == spec.a else spec.a
    options = e.TableOptions(match_length=spec.length, rated=spec.rated)
    steps: list[list[e.Event]] = [
        [
            e.TableCreated(
                table_id=table_id, kind="match", options=options, created_by=spec.a, at=at
            )
        ],
        [e.PlayerJoined(player=spec.a, display_name=spec.a, seat=0, at=at + 1)],
        [e.PlayerJoined(player=spec.b, display_name=spec.b, seat=1, at=at + 2)],
        [e.GameStarted(game=1, players=[spec.a, spec.b], at=at + 3)],
    ]
    score = [spec.length if p == spec.winner else 0 for p in (spec.a, spec.b)]
    ended = e.GameEnded(
        game=1,
        winner=spec.winner,
        result=1,
        cube=spec.length,
        how="bear_off" if spec.how == "play" else "forfeit",
        settlements=[
            e.Settlement(player=spec.winner, amount=spec.length),
            e.Settlement(player=loser, amount=-spec.length),
        ],
        at=at + 60_000,
    )
    first: list[e.Event] = []
    if spec.how == "leave":
        first = [e.PlayerLeft(player=loser, at=at + 60_000)]
    elif spec.how == "time":
        first = [e.TimeExpired(player=loser, at=at + 60_000)]
    steps.append([*first, ended, e.MatchEnded(winner=spec.winner, score=score, at=at + 60_000)])
    return steps


async def append_match(store: EventStore, spec: MatchSpec, at: int) -> str:
    """Write a match's steps to a new table's stream. They are a match's events without its
    games (no throw, no play), which the rules would never give: so they are appended with the
    store's own append, step by step, not with :func:`events.store.streams.append_steps`, which
    checks every step against the rules as the service does (and would refuse these)."""
    table_id = str(uuid.uuid4())
    version = 0
    for step in match_steps(spec, table_id, at):
        result = await append_events(
            store,
            table_stream(table_id),
            step,
            expected_version=version,
            command_id=uuid.uuid4(),
        )
        version = result.last_version
    return table_id


async def snapshot(pool: asyncpg.Pool, tables: tuple[str, ...]) -> dict[str, list[tuple]]:
    """Every row of each table, sorted: two read models are equal when these are."""
    out: dict[str, list[tuple]] = {}
    async with pool.acquire() as conn:
        for table in tables:
            rows = await conn.fetch(f"SELECT * FROM {table}")
            out[table] = sorted(tuple(r.values()) for r in rows)
    return out
