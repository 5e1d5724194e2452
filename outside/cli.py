"""``chouette bot run``: its arguments, checked before anything is reached, and its process:
logs with table ids on stderr, a clean stop on SIGINT and SIGTERM."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
import uuid
from urllib.parse import urlsplit

from client import ApiError, Client
from outside.engines import engine_for
from outside.runner import BotRunner

__all__ = ["add_parser", "check", "glued", "run"]

log = logging.getLogger("chouette.bot")

TOKEN_ENV = "CHOUETTE_BOT_TOKEN"
"""Where the token is read from when ``--token`` is not given (it then stays out of ``ps``)."""

VALUED = ("--token", "--invitation")
"""Options whose value is a code the server made: ``secrets.token_urlsafe`` starts one in 64
with ``-``, which argparse would take for an option (``expected one argument``)."""


def glued(argv: list[str]) -> list[str]:
    """``argv`` with each of ``VALUED``'s options joined to its value (``--token=-x...``), so
    that a token or code beginning with ``-`` is read as the value it is.

    >>> glued(["bot", "run", "--token", "-Ab3", "--invitation", "x", "--url", "u"])
    ['bot', 'run', '--token=-Ab3', '--invitation=x', '--url', 'u']
    >>> glued(["bot", "run", "--token"])
    ['bot', 'run', '--token']
    """
    out: list[str] = []
    rest = iter(argv)
    for arg in rest:
        if arg == "--":
            out.append(arg)
            out.extend(rest)
            break
        value = next(rest, None) if arg in VALUED else None
        out.append(arg if value is None else f"{arg}={value}")
    return out


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``bot run`` to the ``chouette`` command."""
    bot = sub.add_parser("bot", help="outside bots: play through the public protocol")
    bots = bot.add_subparsers(dest="bot_cmd", required=True)
    run = bots.add_parser(
        "run",
        help="sit at tables as the token's account and play them with an engine",
        description="Play as the token's account at the tables given (and, with"
        " --accept-invitations, at the private tables it is invited to), asking the engine"
        " at every decision: basic, gnubg (GNU Backgammon's Python module), or a command"
        ' speaking the line protocol of docs/bots.md ("Outside engines").',
    )
    run.add_argument("--url", required=True, help="the server, e.g. http://localhost:8080")
    run.add_argument("--token", help=f"the account's bearer token (default: ${TOKEN_ENV})")
    run.add_argument(
        "--engine",
        required=True,
        metavar="basic|gnubg|CMD",
        help="basic, gnubg, or a program to run (split as a shell would)",
    )
    run.add_argument(
        "--table", action="append", default=[], metavar="ID", help="a table id (repeatable)"
    )
    run.add_argument(
        "--invitation",
        action="append",
        default=[],
        metavar="CODE",
        help="an invitation code to redeem, and sit at its table (repeatable)",
    )
    run.add_argument(
        "--accept-invitations",
        action="store_true",
        help="also sit at each private table the account is invited to, as invitations come",
    )
    run.add_argument(
        "--seat", type=int, choices=(0, 1), help="at a two-player table, this seat (default any)"
    )
    run.add_argument(
        "--engine-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="how long a command engine has for each answer (default 10)",
    )
    run.add_argument("--log-level", default="INFO", help="DEBUG, INFO, WARNING...")


def check(args: argparse.Namespace) -> str | None:
    """What is wrong with the arguments, in a sentence; None when they are usable."""
    parts = urlsplit(args.url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"--url must be an http:// or https:// address, not {args.url!r}"
    token = args.token if args.token is not None else os.environ.get(TOKEN_ENV, "")
    if not token:
        return f"give the account's token: --token, or ${TOKEN_ENV}"
    if not token.isprintable() or " " in token or len(token) > 512:
        return "--token must be the token as the server gave it (printable, no spaces)"
    args.token = token
    if not args.engine.strip() or not args.engine.isprintable():
        return "--engine must be basic, gnubg or a command line"
    for table in args.table:
        try:
            uuid.UUID(table)
        except ValueError:
            return f"--table must be a table id (a UUID), not {table!r}"
    for code in args.invitation:
        if not code or not code.isprintable() or len(code) > 100:
            return f"--invitation must be an invitation code, not {code!r}"
    if not (args.table or args.invitation or args.accept_invitations):
        return "nothing to play: give --table ID, --invitation CODE or --accept-invitations"
    if not 0 < args.engine_timeout <= 3600:
        return "--engine-timeout must be between 0 and 3600 seconds"
    return None


def run(args: argparse.Namespace) -> int:
    """``chouette bot run``: the exit status (2 for bad arguments, 1 when the server or the
    engine refuses the bot, 0 when every table is done or the process was stopped)."""
    wrong = check(args)
    if wrong is not None:
        print(f"chouette bot run: {wrong}", file=sys.stderr)
        return 2
    level = getattr(logging, str(args.log_level).upper(), None)
    logging.basicConfig(
        level=level if isinstance(level, int) else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
        stream=sys.stderr,
    )
    return asyncio.run(_main(args))


async def _main(args: argparse.Namespace) -> int:
    engine = engine_for(args.engine, args.engine_timeout)
    async with Client(args.url, token=args.token) as client:
        runner = BotRunner(
            client, engine, seat=args.seat, accept_invitations=args.accept_invitations
        )
        task = asyncio.create_task(runner.run(args.table, args.invitation))
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, task.cancel)
        try:
            status = await task
        except asyncio.CancelledError:
            log.info("stopped by a signal: the seats are kept")
            return 0
        except ApiError as exc:
            print(f"chouette bot run: the server refused: {exc}", file=sys.stderr)
            return 1
        except OSError as exc:
            print(f"chouette bot run: cannot reach {args.url}: {exc}", file=sys.stderr)
            return 1
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(Exception):
                    loop.remove_signal_handler(sig)
        if runner.left:
            log.info("left %d table(s) when the engine failed", len(runner.left))
        return status
