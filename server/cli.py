"""The ``chouette`` command: ``serve``, ``migrate`` (and the audit tools)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

from aiohttp import web

from events.embedded import DatabaseConfig, database_url
from events.migrations import migrate
from server.config import Config
from server.logs import setup_logging

log = logging.getLogger("chouette")


def _db_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--database-url", help="PostgreSQL URL (default: $DATABASE_URL, else embedded)")
    p.add_argument(
        "--data-dir", type=Path, help="embedded PostgreSQL data directory (default .pgdata)"
    )


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="chouette", description="A backgammon server for chouettes, matches and money play."
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    serve = sub.add_parser("serve", help="run the server")
    serve.add_argument("--host", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default 8080)")
    serve.add_argument("--partitions", type=int, help="log partitions for new tables")
    serve.add_argument("--log-level", help="DEBUG, INFO, WARNING...")
    serve.add_argument(
        "--plain-logs", action="store_true", help="human-readable logs instead of JSON"
    )
    _db_flags(serve)
    mig = sub.add_parser("migrate", help="apply database migrations and exit")
    _db_flags(mig)
    from server import tools

    tools.add_commands(sub, _db_flags)
    return ap


def config_from(args: argparse.Namespace) -> Config:
    return Config.from_env(
        host=getattr(args, "host", None),
        port=getattr(args, "port", None),
        partitions=getattr(args, "partitions", None),
        log_level=getattr(args, "log_level", None),
        database_url=args.database_url,
        data_dir=args.data_dir,
        log_json=False if getattr(args, "plain_logs", False) else None,
    )


async def _migrate(config: Config) -> list[str]:
    import asyncpg

    url = await database_url(DatabaseConfig(url=config.database_url, data_dir=config.data_dir))
    conn = await asyncpg.connect(url)
    try:
        return await migrate(conn)
    finally:
        await conn.close()


def _event_loop() -> asyncio.AbstractEventLoop:
    """uvloop where it is installed (Linux and macOS): the server spends most of its time in
    socket I/O, which uvloop does in C; the standard loop elsewhere."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    config = config_from(args)
    setup_logging(config.log_level, config.log_json and args.cmd == "serve")
    if args.cmd == "serve":
        from server.app import create_app

        if config.database_url is None:
            print(
                f"starting embedded PostgreSQL in {config.data_dir.resolve()} ...", file=sys.stderr
            )
        app = create_app(config)

        def started(_: object) -> None:
            print(f"chouette listening on http://{config.host}:{config.port}", flush=True)

        web.run_app(
            app,
            host=config.host,
            port=config.port,
            print=started,
            access_log=None,
            loop=_event_loop(),
        )
        return 0
    if args.cmd == "migrate":
        applied = asyncio.run(_migrate(config))
        print(f"applied {len(applied)} migration(s): {', '.join(applied) or 'none needed'}")
        return 0
    from server import tools

    return tools.run(args, config)
