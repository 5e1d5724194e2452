"""A chouette's finished games, paged from the store: ``GET /tables/{id}/history``.

The folded state keeps only the last :data:`events.domain.chouette_table.HISTORY_HELD` games (the
table view's ``history``), so that a table costs the same memory at game 1,000 as at game 10;
older games are read back from the table's stream here, a page at a time: each game's
``game_started`` (the line as it started: the box, then the captain) and ``game_ended`` (every
member's game against the box, as it was settled).
"""

from __future__ import annotations

import msgspec
from aiohttp import web

from events.domain import types as e
from events.store.streams import decode_recorded, table_stream
from server.access import ratelimit
from server.http.common import json_response, query_int, table_id_of
from server.keys import TABLES
from server.views.table import HistoryGame, HistorySettlement

__all__ = ["MAX_PAGE", "HistoryPage", "handle_history", "history_page"]

MAX_PAGE = 50
"""The most games one page holds."""

_BATCH = 200
"""Events read from the store per round trip while walking back through a table's games."""


class HistoryPage(msgspec.Struct, kw_only=True):
    """A page of a chouette's finished games, oldest first."""

    games: list[HistoryGame]
    """Each game: its number, its box and captain as it started, and every member's game
    against the box as it was settled."""
    next_before: int | None
    """Ask with ``before`` this for the page before this one; null: there is none."""


async def history_page(
    app: web.Application, table_id: str, before: int | None, limit: int
) -> HistoryPage:
    """Up to ``limit`` finished games of a table numbered below ``before`` (None: all)."""
    store = app[TABLES].store
    stream = table_stream(table_id)
    cursor = await store.stream_version(stream) + 1
    ended: dict[int, e.GameEnded] = {}
    games: list[HistoryGame] = []
    more = False
    while cursor > 1 and not more:
        page = await store.read_types_before(stream, cursor, ("game_started", "game_ended"), _BATCH)
        if not page:
            break
        for rec in page:  # newest first
            cursor = rec.version
            event = decode_recorded(rec, store.keys)
            if isinstance(event, e.GameEnded):
                if before is None or event.game < before:
                    ended[event.game] = event
            elif isinstance(event, e.GameStarted) and event.game in ended:
                if len(games) == limit:
                    more = True
                    break
                done = ended.pop(event.game)
                line = list(event.players)
                games.append(
                    HistoryGame(
                        game=event.game,
                        box=line[0] if line else "",
                        captain=line[1] if len(line) > 1 else "",
                        settlements=[
                            HistorySettlement(
                                member=m.member, winner=m.winner, points=m.points, how=m.how
                            )
                            for m in done.members
                        ],
                    )
                )
        if len(page) < _BATCH:
            break
    games.reverse()
    return HistoryPage(games=games, next_before=games[0].game if more and games else None)


async def handle_history(request: web.Request) -> web.Response:
    """``GET /tables/{id}/history?before=G&limit=N``: a page of the table's finished games."""
    table_id = table_id_of(request)
    limits = request.app[ratelimit.LIMITS]
    limits.hit("history", limits.address(request))
    before = query_int(request, "before", 0, minimum=1) if "before" in request.query else None
    limit = query_int(request, "limit", 20, minimum=1, maximum=MAX_PAGE)
    state = await request.app[TABLES].state(table_id)  # 404 for an unknown table
    if state.kind != "chouette":
        return json_response(HistoryPage(games=[], next_before=None))
    return json_response(await history_page(request.app, table_id, before, limit))
