"""The analysis of a table's finished games, computed off the event loop and kept.

``GET /tables/{id}/analysis?ply=N`` (and ``chouette analyse``) read :func:`events.records.analysis.
analyse_table`'s document. :class:`Analyses` computes it in a **process pool** of
``CHOUETTE_ANALYSIS_WORKERS`` processes (GNU Backgammon's module keeps one current match per
process, and its analysis would hold the event loop for seconds), within
``CHOUETTE_ANALYSIS_TIMEOUT`` seconds (a worker that takes longer is killed: 503), one request
per table and ply at a time (a second asking meanwhile waits for the first's result), and keeps
it in the table ``analyses`` (migration 018, :mod:`server.readmodels.analyses`) for the table's
log up to its last game end: until another game ends, the analysis is read from there. The
table's log is only read.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
from collections.abc import Sequence

import msgspec
from aiohttp import web

from events.domain import types as e
from events.gnubg.bot import available as gnubg_available
from events.records.analysis import analyse_table
from events.records.replay import decode_all
from events.store.event_store import EventStore
from events.store.personal_keys import PersonalKeys, owners_of
from events.store.streams import table_stream
from server.access import ratelimit
from server.http.common import current_account, query_int, table_id_of
from server.http.problems import Problem, not_found
from server.live.bots import kill_pool
from server.readmodels.analyses import cached_analysis, keep_analysis

__all__ = [
    "ANALYSES",
    "Analyses",
    "analyse_worker",
    "finished_upto",
    "handle_analysis",
    "no_finished_game",
    "unavailable",
]


def unavailable() -> Problem:
    """The 501 of a server without GNU Backgammon's module."""
    return Problem(
        501,
        "analysis-unavailable",
        "Analysis needs GNU Backgammon",
        "this server cannot analyse games: install the extra, pip install 'chouette[gnubg]'",
    )


def no_finished_game(table_id: str) -> Problem:
    """The 409 of a table that has finished no game: its analysis would be of nothing."""
    return Problem(
        409,
        "no-finished-game",
        "No finished game",
        f"no finished game yet at table {table_id}: the analysis covers finished games only",
    )


def finished_upto(events: Sequence[e.Event]) -> int:
    """How many of the events the analysis covers: up to the last game end (0: none ended)."""
    ends = [i for i, ev in enumerate(events) if isinstance(ev, e.GameEnded)]
    return ends[-1] + 1 if ends else 0


def analyse_worker(events: Sequence[e.Event], ply: int) -> bytes:
    """What a worker process runs: the analysis as JSON."""
    return msgspec.json.encode(analyse_table(events, ply))


_NAMED = frozenset({"table_created", "player_joined"})
"""The events whose personal values an analysis names (the table, the players)."""


class Analyses:
    """The analyses of one server process's requests: computed in its pool, kept in the
    database."""

    def __init__(self, store: EventStore, workers: int = 1, timeout: float = 300.0) -> None:
        self.store = store
        self.workers = workers
        self.timeout = timeout
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._running: dict[tuple[str, int], asyncio.Future[bytes]] = {}

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn")
            )
        return self._pool

    async def get(self, table_id: str, ply: int) -> bytes:
        """The analysis document (JSON) of a table's finished games at ``ply``.

        :raises Problem: 404 for no such table; 409 for a table with no finished game.
        """
        key = (table_id, ply)
        running = self._running.get(key)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._running[key] = future
        try:
            doc = await self._get(table_id, ply)
            future.set_result(doc)
            return doc
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: a lone request does not warn of it
            raise
        finally:
            del self._running[key]

    async def _get(self, table_id: str, ply: int) -> bytes:
        while True:
            doc = await self._compute(table_id, ply)
            if isinstance(doc, bytes):
                return doc
            # A player's key destroyed while it was computed: again, under the pseudonym.
            keys = self.store.keys
            assert isinstance(keys, PersonalKeys)
            for owner in doc:
                keys.forget(owner)

    async def _compute(self, table_id: str, ply: int) -> bytes | set[str]:
        """The analysis, or the players whose keys were destroyed while it was computed (it
        names them, and is neither kept nor sent)."""
        records = await self.store.read_stream(table_stream(table_id))
        if not records:
            raise not_found(f"no table {table_id!r}")
        keys = self.store.keys
        owners = owners_of(records, _NAMED) if isinstance(keys, PersonalKeys) else set()
        erased = {o for o in owners if keys is not None and keys.is_erased(o)}
        events = await asyncio.to_thread(decode_all, records, keys)
        upto = finished_upto(events)
        if not upto:
            # Not an analysis of nothing: the client is told there is nothing yet to analyse.
            raise no_finished_game(table_id)
        version = records[upto - 1].version
        pool = self.store.pool
        kept = await cached_analysis(pool, table_id, ply, version)
        if kept is not None:
            return kept.encode()
        loop = asyncio.get_running_loop()
        try:
            future = loop.run_in_executor(self._executor(), analyse_worker, events[:upto], ply)
            async with asyncio.timeout(self.timeout):
                doc = await future
        except (TimeoutError, concurrent.futures.process.BrokenProcessPool) as exc:
            # A hung or dead worker: killed, and the next request starts a fresh pool.
            self._reset()
            why = (
                f"took longer than {self.timeout:g} s"
                if isinstance(exc, TimeoutError)
                else "stopped"
            )
            raise Problem(
                503, "analysis-failed", "Analysis failed", f"the analysis {why}: try again later"
            ) from None
        late = await keep_analysis(pool, table_id, ply, version, doc.decode(), owners - erased)
        return late or doc

    def _reset(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            kill_pool(pool)

    def close(self) -> None:
        self._reset()


ANALYSES = web.AppKey("analyses", Analyses)


async def handle_analysis(request: web.Request) -> web.Response:
    """``GET /tables/{id}/analysis?ply=N``: the analysis of the table's finished games (anyone
    who may see the table may read it, as its view; 501 without GNU Backgammon's module)."""
    await current_account(request, required=False)  # a token, if sent, must be good
    table_id = table_id_of(request)
    ply = query_int(request, "ply", 0, maximum=2)
    if not gnubg_available():
        raise unavailable()
    limits = request.app[ratelimit.LIMITS]
    limits.hit("analyses", limits.address(request))
    doc = await request.app[ANALYSES].get(table_id, ply)
    return web.Response(body=doc, content_type="application/json")
