"""The application's typed keys (``web.AppKey``), in one place so modules share them."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

import asyncpg
from aiohttp import web

from server.config import Config
from server.metrics import Metrics

if TYPE_CHECKING:
    pass

CONFIG = web.AppKey("config", Config)
METRICS = web.AppKey("metrics", Metrics)
ACCOUNTS_POOL = web.AppKey("pool", asyncpg.Pool)
TABLES = web.AppKey("tables", "TableService")
NOTIFIER = web.AppKey("notifier", "Notifier")
LOBBY = web.AppKey("lobby", "Lobby")
HUB = LOBBY  # readiness reports the lobby projector's lag
SOCKETS = web.AppKey("sockets", weakref.WeakSet)
