"""The aiohttp application: ``create_app(config)`` wires things and nothing more.

The database pool, the store, the notifier (one LISTEN connection per process) and the lobby
projector live in a cleanup context; sockets are kept in a weak set and closed with GOING_AWAY
on shutdown, after in-flight commands have finished.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import AsyncIterator

from aiohttp import WSCloseCode, web

from events.domain.decider import decide
from events.domain.dice import SeedCipher
from events.records.audit_scan import AuditCache
from events.service import TableService
from events.store.event_store import EventStore
from events.store.heads import HeadsSigner
from events.store.personal_keys import KEYS_CHANNEL, PersonalKeys, master_key
from events.store.seed_store import SeedStore
from events.store.subscription import LiveFeed
from events.tournament_service import TournamentService
from server.access import ratelimit
from server.access.auth import ACCOUNTS, Accounts
from server.config import Config, load_seed_key, load_signing_key
from server.database import server_database_url
from server.http import analysis, heads, privacy, routes, streams
from server.http import records as record_handlers
from server.http import social as social_handlers
from server.http import tournaments as tournament_handlers
from server.http.erasure import forget_personal
from server.http.problems import error_middleware
from server.keys import (
    ACCOUNTS_POOL,
    CONFIG,
    LIVE_FEED,
    LOBBY,
    METRICS,
    PRESENCE,
    SOCKETS,
    TABLES,
    TIMERS,
)
from server.live import loop_watch
from server.live.bots import BOTS, BotRunner, is_bot
from server.live.presence import Presence
from server.live.timers import Timers
from server.live.tournaments import RUNNER, TournamentRunner
from server.metrics import Metrics
from server.openapi import document as openapi
from server.readmodels.accounts import ACCOUNTS_CHANNEL
from server.readmodels.lobby import Lobby

log = logging.getLogger("chouette.server")


def create_app(config: Config | None = None) -> web.Application:
    config = config or Config.from_env()
    app = web.Application(
        client_max_size=config.max_body, middlewares=[error_middleware, privacy.privacy_middleware]
    )
    app[CONFIG] = config
    app[METRICS] = Metrics()
    app[SOCKETS] = weakref.WeakSet()
    app[PRESENCE] = Presence()
    app[streams.EVENT_STREAMS] = streams.EventStreams()
    app[streams.THROW_MESSAGES] = streams.ThrowMessages()
    app[ratelimit.LIMITS] = ratelimit.Limits(config)
    app.cleanup_ctx.append(_database)
    app.cleanup_ctx.append(heads.warm_heads)
    app.cleanup_ctx.append(social_handlers.read_models)
    app.cleanup_ctx.append(streams.watch_sessions)
    app.cleanup_ctx.append(loop_watch.watch_loop)
    app.on_shutdown.append(_close_sockets)
    routes.add_routes(app)
    openapi.register_extras(app)
    return app


async def _database(app: web.Application) -> AsyncIterator[None]:
    config = app[CONFIG]
    # Migrated as the owner (where one is known), served as the server's role.
    url = await server_database_url(config)
    store = await EventStore.connect(
        url,
        partitions=config.partitions,
        min_size=2,
        max_size=config.pool_size,
        reset=_keep_session,
    )
    notifier = LiveFeed(
        store,
        poll_interval=config.poll_interval,
        queue_events=config.client_queue,
        on_hole=app[METRICS].holes_changed,
    )
    # What a person typed is sealed in the events under their data key (docs/privacy.md);
    # the keys a process holds are trusted only while it hears their destructions.
    keys = PersonalKeys(store.pool, master_key(await asyncio.to_thread(load_seed_key, config)))
    keys.trusted = lambda: notifier.listening
    store.keys = keys

    def key_destroyed(account_id: str) -> None:
        keys.forget(account_id)
        forget_personal(app)

    def keys_unheard() -> None:
        keys.clear()
        forget_personal(app)

    notifier.listen(KEYS_CHANNEL, key_destroyed, keys_unheard)
    accounts = Accounts.from_config(store.pool, config)
    # The sessions a process remembers are forgotten as revocations and account changes are
    # notified (server/access/auth.py), and only remembered while those are heard.
    notifier.listen(ACCOUNTS_CHANNEL, accounts.sessions.forget, accounts.sessions.clear)
    accounts.sessions.enabled = lambda: notifier.listening
    await notifier.start()
    lobby = Lobby(store, notifier, app[METRICS], linger=config.projection_linger)
    await lobby.start()
    app[ACCOUNTS_POOL] = store.pool
    app[ACCOUNTS] = accounts
    app[TABLES] = TableService(
        store,
        app[METRICS],
        config.dice_factory,
        await _seeds(config, store),
        config.table_cache,
        clock=config.clock or time.time,
        decider=config.decider or decide,
    )
    # The timer service: the command service tells it every state it folds; with an injected
    # clock (tests) nothing runs in the background and the test fires what is due. Who is at a
    # table is the presence's (or a bot: it plays through the runner, never a stream), and
    # each account arriving at a table tells the timers (docs/rules.md §10, "Walking away").
    presence = app[PRESENCE]
    timers = Timers(
        app[TABLES],
        app[METRICS],
        background=config.clock is None,
        is_here=lambda table_id, player: is_bot(player) or presence.is_here(table_id, player),
    )
    presence.on_arrival = timers.arrived
    app[TABLES].on_state = timers.schedule
    app[TIMERS] = timers
    timers.start(lobby.playing)
    app[LIVE_FEED] = notifier
    bots = BotRunner(
        app[TABLES],
        workers=config.bot_workers,
        timeout=config.bot_timeout,
        pace=config.bot_pace,
        ply=config.gnubg_ply,
        decide=config.bot_decide,  # type: ignore[arg-type]
        feed=notifier,
        retry=config.poll_interval,
    )
    await bots.start(store.pool)
    app[BOTS] = bots
    # Tournaments (docs/tournaments.md): their service, and the runner that creates each
    # round's tables and records their results, from the logs (nothing lost in a restart).
    tournaments = TournamentService(store, clock=config.clock or time.time)
    runner = TournamentRunner(
        tournaments,
        app[TABLES],
        store.pool,
        seed_window=config.seed_window,
        table_clock=config.table_clock,
        background=config.clock is None,
    )
    tournaments.on_state = runner.told
    app[tournament_handlers.TOURNAMENTS] = tournaments
    app[RUNNER] = runner
    await runner.start(notifier)
    app[record_handlers.AUDITS] = AuditCache(store)
    app[analysis.ANALYSES] = analysis.Analyses(
        store, config.analysis_workers, config.analysis_timeout
    )
    signing = await asyncio.to_thread(load_signing_key, config)
    assert signing is not None  # created when missing
    app[heads.HEADS] = heads.Heads(store, HeadsSigner(signing))
    app[LOBBY] = lobby
    log.info("database ready", extra={"status": "ready"})
    try:
        yield
    finally:
        await runner.stop()
        await timers.stop()
        await bots.stop()
        app[analysis.ANALYSES].close()
        app[ACCOUNTS].close()
        await lobby.stop()
        await notifier.close()
        await store.close()


async def _seeds(config: Config, store: EventStore) -> SeedStore | None:
    """The dice seeds' store, sealed with the configured key (none with the tests' dice). The
    key is read (or first generated) after the embedded database has its data directory; seeds
    still kept in the clear from before are sealed now (docs/dice.md)."""
    if config.dice_factory is not None:
        return None
    seeds = SeedStore(store.pool, SeedCipher(await asyncio.to_thread(load_seed_key, config)))
    sealed = await seeds.seal_legacy()
    if sealed:
        log.info("sealed %d dice seeds kept in the clear", sealed)
    return seeds


async def _keep_session(connection: object) -> None:
    """Released connections are not reset (asyncpg's default costs a round trip per release):
    the server keeps no session state on pooled connections — advisory locks are
    transaction-scoped and LISTEN has its own connection."""


async def _close_sockets(app: web.Application) -> None:
    """Graceful shutdown: end the Server-Sent Events streams (they send no commands), wait for
    in-flight commands, then close sockets with GOING_AWAY."""
    app[streams.EVENT_STREAMS].close_all()
    tables = app.get(TABLES)
    if tables is not None:
        await tables.drain(timeout=10)
    sockets: weakref.WeakSet[web.WebSocketResponse] = app[SOCKETS]
    for ws in list(sockets):
        await ws.close(code=WSCloseCode.GOING_AWAY, message=b"server shutdown")
    await asyncio.sleep(0)
