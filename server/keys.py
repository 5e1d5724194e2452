"""The application's typed keys (``web.AppKey``), in one place so modules share them."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

import asyncpg
from aiohttp import web

from server.config import Config
from server.metrics import Metrics

if TYPE_CHECKING:
    from events.subscription import Notifier
    from server.lobby import Lobby
    from server.tables import TableService

CONFIG = web.AppKey("config", Config)
METRICS = web.AppKey("metrics", Metrics)
ACCOUNTS_POOL = web.AppKey("pool", asyncpg.Pool)
TABLES: web.AppKey[TableService] = web.AppKey("tables")
NOTIFIER: web.AppKey[Notifier] = web.AppKey("notifier")
LOBBY: web.AppKey[Lobby] = web.AppKey("lobby")
SOCKETS: web.AppKey[weakref.WeakSet[web.WebSocketResponse]] = web.AppKey("sockets")
