"""The application's typed keys (``web.AppKey``), in one place so modules share them."""

from __future__ import annotations

import weakref

import asyncpg
from aiohttp import web

from events.service import TableService
from events.store.subscription import LiveFeed
from server.config import Config
from server.live.presence import Presence
from server.live.timers import Timers
from server.metrics import Metrics
from server.readmodels.lobby import Lobby

CONFIG = web.AppKey("config", Config)
METRICS = web.AppKey("metrics", Metrics)
ACCOUNTS_POOL = web.AppKey("pool", asyncpg.Pool)
TABLES: web.AppKey[TableService] = web.AppKey("tables")
LIVE_FEED: web.AppKey[LiveFeed] = web.AppKey("live_feed")
LOBBY: web.AppKey[Lobby] = web.AppKey("lobby")
SOCKETS: web.AppKey[weakref.WeakSet[web.WebSocketResponse]] = web.AppKey("sockets")
TIMERS: web.AppKey[Timers] = web.AppKey("timers")
PRESENCE = web.AppKey("presence", Presence)
