"""The ``chouette`` command: ``serve`` and ``migrate``, ``project rebuild`` (the read models:
server/cli/project.py), the record tools ``audit``, ``replay``, ``export``, ``import`` and
``analyse`` (:mod:`server.cli.analyse`; each reads or writes a table's stream in the store), and
``heads``
(the log's signed chain heads, to keep outside the database; ``audit --against`` checks them),
and ``bot run`` (an outside bot playing through the public protocol: :mod:`outside.cli`)."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
from aiohttp import web

from engine.matfile import MatFormatError, write_mat
from engine.moves import set_plays_cache
from events.domain import types as e
from events.records.audit import TableReport
from events.records.audit_scan import StoreAudit, audit_all, audit_tables
from events.records.mat_export import (
    chouette_json,
    export_chouette,
    export_json,
    export_mat,
    json_text,
    member_record,
)
from events.records.mat_import import import_mat
from events.records.record_text import record_lines, state_text
from events.records.replay import decode_all
from events.store.errors import ConcurrencyError, StoreError
from events.store.event_store import EventStore
from events.store.heads import (
    HeadsDocument,
    HeadsError,
    HeadsSigner,
    RunningHashes,
    check_heads,
    decode_public_key,
    make_heads,
    parse_heads,
    verify_heads,
)
from events.store.personal_keys import UNOPENED, PersonalKeys, master_key
from events.store.streams import append_steps, chat_stream, table_stream
from outside import cli as bot_cli
from server.app import create_app
from server.cli import analyse as cli_analyse
from server.cli.progress import Progress
from server.cli.project import add_project_command, run_project
from server.config import Config, ConfigError, existing_seed_key, load_signing_key, signing_key_path
from server.database import migrate_as_owner, server_database_url
from server.keys import CONFIG
from server.live.loop_watch import LOOP_WATCH
from server.logs import setup_logging

log = logging.getLogger("chouette")


def _db_flags(p: argparse.ArgumentParser, *, owner: bool = False) -> None:
    p.add_argument(
        "--database-url",
        help="PostgreSQL URL of the server's role (default: $DATABASE_URL, else embedded)",
    )
    if owner:
        p.add_argument(
            "--owner-database-url",
            help="PostgreSQL URL of the tables' owner, who applies the migrations "
            "(default: $CHOUETTE_OWNER_DATABASE_URL)",
        )
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
    serve.add_argument(
        "--allow-superuser",
        action="store_true",
        default=None,
        help="serve even if the database URL logs in as a superuser "
        "(default: $CHOUETTE_ALLOW_SUPERUSER)",
    )
    _db_flags(serve, owner=True)
    mig = sub.add_parser(
        "migrate",
        help="apply database migrations as the tables' owner and exit "
        "(--owner-database-url, else --database-url)",
    )
    _db_flags(mig, owner=True)
    _add_record_commands(sub)
    add_project_command(sub, _db_flags)
    bot_cli.add_parser(sub)
    return ap


def config_from(args: argparse.Namespace) -> Config:
    return Config.from_env(
        host=getattr(args, "host", None),
        port=getattr(args, "port", None),
        partitions=getattr(args, "partitions", None),
        log_level=getattr(args, "log_level", None),
        database_url=args.database_url,
        owner_database_url=getattr(args, "owner_database_url", None),
        allow_superuser=getattr(args, "allow_superuser", None),
        data_dir=args.data_dir,
        log_json=False if getattr(args, "plain_logs", False) else None,
    )


def _event_loop() -> asyncio.AbstractEventLoop:
    """uvloop where it is installed (Linux and macOS): the server spends most of its time in
    socket I/O, which uvloop does in C; the standard loop elsewhere."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


async def _freeze(app: web.Application) -> None:
    """Start-up is over (after the database's and the others' contexts): what it made lives as
    long as the process, out of the garbage collector's sight from now on; and from now on, what
    lives ``gc_freeze_every`` seconds too (docs/scaling.md)."""
    watch = app[LOOP_WATCH]
    watch.freeze()
    config = app[CONFIG]
    if config.gc_freeze_every:
        task = asyncio.create_task(watch.keep_frozen(config.gc_freeze_every, config.gc_thaw_every))
        app[_FREEZER] = task

        async def stop(app: web.Application) -> None:
            task.cancel()

        app.on_cleanup.append(stop)


_FREEZER = web.AppKey("gc_freezer", asyncio.Task)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["bot"]:
        argv = bot_cli.glued(argv)
    args = parser().parse_args(argv)
    if args.cmd == "bot":
        # A client of some server, maybe another machine's: no database, no configuration.
        return bot_cli.run(args)
    try:
        config = config_from(args)
    except ConfigError as exc:
        # A bad setting (CHOUETTE_TABLE_CLOCK=fast, --port 70000): one line naming it.
        return _refuse(args.cmd, exc)
    setup_logging(config.log_level, config.log_json and args.cmd == "serve")
    if args.cmd == "serve":
        if config.database_url is None:
            print(
                f"starting embedded PostgreSQL in {config.data_dir.resolve()} ...", file=sys.stderr
            )
        app = create_app(config)
        set_plays_cache(config.plays_cache)
        app.on_startup.append(_freeze)

        def started(_: object) -> None:
            url = f"http://{config.host}:{config.port}"
            print(f"chouette listening on {url} (open it in a browser to play)", flush=True)

        try:
            web.run_app(
                app,
                host=config.host,
                port=config.port,
                print=started,
                access_log=None,
                loop=_event_loop(),
            )
        except StoreError as exc:
            # Refused at start-up (a superuser's URL, a database not migrated, none reachable):
            # one line, not a traceback.
            return _refuse(args.cmd, exc)
        return 0
    if args.cmd == "migrate":
        try:
            applied = asyncio.run(migrate_as_owner(config))
        except StoreError as exc:
            return _refuse(args.cmd, exc)
        print(f"applied {len(applied)} migration(s): {', '.join(applied) or 'none needed'}")
        return 0
    if args.cmd == "project":
        return run_project(args, config)
    return _run_record_command(args, config)


# -- the record tools ---------------------------------------------------------------------------


def _add_record_commands(sub: argparse._SubParsersAction) -> None:
    """Add ``audit``, ``replay``, ``export`` and ``import`` to the ``chouette`` command."""
    audit = sub.add_parser(
        "audit",
        help="check tables: hash chain, versions, every event against the rules, every throw "
        "against the revealed seed",
    )
    which = audit.add_mutually_exclusive_group(required=True)
    which.add_argument("--table", action="append", metavar="ID", help="a table id (repeatable)")
    which.add_argument("--all", action="store_true", help="every table, and the log")
    which.add_argument(
        "--against",
        type=Path,
        metavar="HEADS.json",
        help="check the database against heads saved earlier (chouette heads, GET /log/heads)",
    )
    audit.add_argument(
        "--public-key",
        type=Path,
        metavar="FILE",
        help="with --against: the signing key's public key (base64, or the JSON of"
        " /.well-known/chouette-signing-key); default: the configured signing key's",
    )
    audit.add_argument("--json", action="store_true", help="one JSON document on stdout")
    _db_flags(audit)

    heads = sub.add_parser(
        "heads",
        help="print the log's chain heads, signed, as JSON (keep it: audit --against checks it)",
    )
    _db_flags(heads)

    replay = sub.add_parser("replay", help="print a table's games, move by move")
    replay.add_argument("table", metavar="ID")
    replay.add_argument("--at", type=int, metavar="VERSION", help="show the table at a version")
    replay.add_argument("--boards", action="store_true", help="draw the board after each play")
    _db_flags(replay)

    export = sub.add_parser("export", help="export a table's games for analysis programs")
    export.add_argument("table", metavar="ID")
    export.add_argument("--format", choices=("mat", "json"), default="mat")
    export.add_argument(
        "-o",
        "--output",
        type=Path,
        help="file to write (default stdout); for a chouette, a directory for its files",
    )
    export.add_argument("--member", help="chouette: only this team member's .mat file")
    _db_flags(export)

    cli_analyse.add_parser(sub, _db_flags)

    imp = sub.add_parser("import", help="import a .mat match file as a new table")
    imp.add_argument("file", type=Path)
    imp.add_argument("--table", metavar="ID", help="the new table's id (default: a new uuid)")
    _db_flags(imp)


def _run_record_command(args: argparse.Namespace, config: Config) -> int:
    """Run one of the record tools; the exit status."""
    commands: dict[str, Callable[[argparse.Namespace, EventStore], Any]] = {
        "audit": _audit,
        "replay": _replay,
        "export": _export,
        "import": _import,
        "heads": _heads,
        "analyse": cli_analyse.analyse,
    }
    command = commands.get(args.cmd)
    if command is None:
        raise SystemExit(f"unknown command {args.cmd!r}")
    if args.cmd == "import":
        args.table_id = args.table or str(uuid.uuid4())
        try:
            args.steps = _read_mat(args.file, args.table_id)
        except ImportFileError as exc:
            return _refuse_import(args.file, str(exc))
    if args.cmd == "audit" and args.public_key is not None and args.against is None:
        print("chouette audit: --public-key goes with --against", file=sys.stderr)
        return 2
    if args.cmd == "audit" and args.against is not None:
        command = _audit_against
        try:
            args.heads = _read_heads(args.against, args.public_key, config)
        except HeadsError as exc:
            print(f"chouette audit: {' '.join(str(exc).split())}", file=sys.stderr)
            return 2
    if args.cmd == "heads":
        try:
            key = load_signing_key(config, create=False)
        except (OSError, ValueError) as exc:
            print(f"chouette heads: {' '.join(str(exc).split())}", file=sys.stderr)
            return 2
        if key is None:
            print(
                "chouette heads: no signing key: set CHOUETTE_SIGNING_KEY, or run where the"
                f" server keeps its key file ({signing_key_path(config)})",
                file=sys.stderr,
            )
            return 2
        args.signer = HeadsSigner(key)
    try:
        return asyncio.run(_with_store(config, command, args))
    except StoreError as exc:
        # The database is away or refuses: one line, as for a wrong file, not a traceback.
        return _refuse(args.cmd, exc)


def _refuse(command: str, exc: StoreError | ConfigError) -> int:
    """One line on stderr and exit status 2."""
    print(f"chouette {command}: {' '.join(str(exc).split())}", file=sys.stderr)
    return 2


async def _with_store(
    config: Config, command: Callable[[argparse.Namespace, EventStore], Any], args: Any
) -> int:
    # As the server's role, like the server: the record tools read and append, nothing more.
    url = await server_database_url(config, refuse_superuser=False)
    store = await EventStore.connect(url, min_size=1, max_size=4)
    # What a person typed opens with the server's keys (docs/privacy.md); the tools hold no
    # key long enough to miss a destruction.
    seed_key = await asyncio.to_thread(existing_seed_key, config)
    store.keys = UNOPENED if seed_key is None else PersonalKeys(store.pool, master_key(seed_key))
    try:
        status: int = await command(args, store)
        return status
    finally:
        await store.close()


async def _audit(args: argparse.Namespace, store: EventStore) -> int:
    started = time.perf_counter()
    if args.all:
        # The total is the log's word; the tables are found from the events themselves.
        total = sum((await store.partition_heads()).values())
        bar = Progress(int(total), "audit")
        result = await audit_all(store, bar.advance)
    else:
        versions = await store.stream_versions(
            [s for t in args.table for s in (table_stream(t), chat_stream(t))]
        )
        bar = Progress(sum(versions.values()), "audit")
        result = StoreAudit(await audit_tables(store, args.table, bar.advance))
    bar.close()
    seconds = time.perf_counter() - started
    reports = result.tables
    failed = [r for r in reports if r.status == "failed"]
    if args.json:
        doc = {
            "status": "failed" if result.failed else "ok",
            "tables": len(reports),
            "events": sum(r.events for r in reports),
            "seconds": round(seconds, 3),
            "failed": len(failed),
            "pending": sum(r.status == "pending" for r in reports),
            "log": result.log,
            "store": result.store,
            "reports": [r.as_dict() for r in reports],
        }
        print(json.dumps(doc, indent=2))
    else:
        for r in reports:
            print(_report_line(r))
        for problem in result.log:
            print(f"log partition {problem['partition']}: FAILED {problem['reason']}")
        for problem in result.store:
            print(f"stream {problem['stream']}: FAILED {problem['reason']}")
        events = sum(r.events for r in reports)
        print(
            f"{len(reports)} table(s), {events} events in {seconds:.2f} s: "
            f"{len(failed)} failed, {sum(r.status == 'pending' for r in reports)} pending"
        )
    return 1 if result.failed else 0


HEADS_MAX_BYTES = 1024 * 1024 * 1024
"""The largest heads file ``audit --against`` reads."""


def _read_heads(path: Path, public_key: Path | None, config: Config) -> HeadsDocument:
    """The heads saved in ``path``, their signature checked, before the database is reached.

    :raises HeadsError: the file cannot be read, is not a heads document, or its signature
        does not verify (the message is one line, naming the file).
    """
    try:
        if path.stat().st_size > HEADS_MAX_BYTES:
            raise HeadsError(f"{path}: larger than {HEADS_MAX_BYTES // 2**20} MB")
        data = path.read_bytes()
    except OSError as exc:
        raise HeadsError(f"{path}: cannot read it: {exc.strerror or exc}") from exc
    try:
        document, raw = parse_heads(data)
    except HeadsError as exc:
        raise HeadsError(f"{path}: {exc}") from None
    try:
        if public_key is not None:
            key = decode_public_key(public_key.read_text(encoding="utf-8", errors="replace"))
        else:
            private = load_signing_key(config, create=False)
            if private is None:
                raise HeadsError(
                    "no public key: give --public-key, or set CHOUETTE_SIGNING_KEY, or run where"
                    f" the server keeps its key file ({signing_key_path(config)})"
                )
            key = HeadsSigner(private).public_key
    except OSError as exc:
        raise HeadsError(f"{public_key}: cannot read it: {exc.strerror or exc}") from exc
    except ValueError as exc:
        if isinstance(exc, HeadsError):
            raise
        raise HeadsError(str(exc)) from None
    try:
        verify_heads(raw, key)
    except HeadsError as exc:
        raise HeadsError(f"{path}: {exc}") from None
    return document


async def _audit_against(args: argparse.Namespace, store: EventStore) -> int:
    heads: HeadsDocument = args.heads
    streams = heads.streams or []
    bar = Progress(len(streams) + sum(p.position for p in heads.partitions), "audit")
    found = await check_heads(store, heads, bar.advance)
    bar.close()
    if args.json:
        doc = {
            "status": "failed" if found else "ok",
            "heads": str(args.against),
            "made_at": heads.made_at,
            "streams": len(streams),
            "partitions": len(heads.partitions),
            "divergences": [msgspec.to_builtins(d) for d in found],
        }
        print(json.dumps(doc, indent=2))
        return 1 if found else 0
    for d in found:
        where = f"partition {d.partition} position {d.position}"
        if d.stream is not None:
            where = f"stream {d.stream} version {d.version} ({where})"
        print(f"{where}: DIVERGES {d.reason}")
    first = found[0] if found else None
    summary = f"{len(streams)} stream(s), {len(heads.partitions)} partition(s) against heads"
    summary += f" made at {heads.made_at}: "
    if first is None:
        print(summary + "all hold")
        return 0
    name = first.stream or f"log partition {first.partition}"
    print(summary + f"{len(found)} diverge, the first {name}")
    return 1


async def _heads(args: argparse.Namespace, store: EventStore) -> int:
    total = sum((await store.partition_heads()).values())
    bar = Progress(int(total), "heads")
    document = await make_heads(store, RunningHashes(), streams=True, progress=bar.advance)
    bar.close()
    print(json.dumps(args.signer.sign(document), indent=2, ensure_ascii=False))
    return 0


def _report_line(report: TableReport) -> str:
    first = report.first_failure
    if first is not None:
        stream, f = first
        event = f" ({f.event})" if f.event else ""
        return f"{report.table_id}: FAILED {stream} v{f.version}{event} [{f.check}] {f.reason}"
    games = sum(s.games for s in report.streams)
    verified = sum(len(s.dice_verified) for s in report.streams)
    pending = [g for s in report.streams for g in s.pending]
    uncommitted = [g for s in report.streams for g in s.uncommitted]
    text = f"{report.table_id}: {report.status} ({report.events} events, {games} games, "
    text += f"dice of {verified} verified"
    if pending:
        text += f", game {', '.join(map(str, pending))} in play: dice pending"
    if uncommitted:
        text += f", {len(uncommitted)} with dice never committed to (imported)"
    return text + ")"


async def _replay(args: argparse.Namespace, store: EventStore) -> int:
    records = await store.read_stream(table_stream(args.table))
    if not records:
        print(f"no table {args.table!r}", file=sys.stderr)
        return 1
    events = decode_all(records, store.keys)
    if args.at is not None:
        if not 1 <= args.at <= len(events):
            print(f"--at must be 1 to {len(events)}", file=sys.stderr)
            return 1
        print(state_text(events, args.at))
        return 0
    for line in record_lines(events, boards=args.boards):
        print(line)
    return 0


async def _export(args: argparse.Namespace, store: EventStore) -> int:
    records = await store.read_stream(table_stream(args.table))
    if not records:
        print(f"no table {args.table!r}", file=sys.stderr)
        return 1
    events = decode_all(records, store.keys)
    chouette = isinstance(events[0], e.TableCreated) and events[0].kind == "chouette"
    if chouette and args.format == "mat" and not args.member:
        if not args.output:
            print(
                "a chouette exports a file per member: give -o DIRECTORY or --member",
                file=sys.stderr,
            )
            return 2
        args.output.mkdir(parents=True, exist_ok=True)
        for name, content in export_chouette(events).items():
            (args.output / name).write_text(content, encoding="utf-8")
            print(f"wrote {args.output / name}", file=sys.stderr)
        return 0
    if chouette and args.format == "mat":
        text = write_mat(member_record(events, args.member))
    elif chouette:
        text = json_text(chouette_json(events))
    elif args.format == "mat":
        text = export_mat(events)
    else:
        text = json_text(export_json(events))
    if args.output:
        args.output.write_text(text, encoding="utf-8")
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


MAT_MAX_BYTES = 64 * 1024 * 1024
"""The largest file ``chouette import`` reads (a long money session is a few megabytes)."""


class ImportFileError(Exception):
    """A file ``chouette import`` cannot import; the message is one line for stderr."""


def _read_mat(path: Path, table_id: str) -> list[list[e.Event]]:
    """The events of a ``.mat`` file as a new table's, or :class:`ImportFileError` saying why
    not. Read before the database is reached, so that a wrong file costs nothing."""
    try:
        if path.stat().st_size > MAT_MAX_BYTES:
            raise ImportFileError(f"larger than {MAT_MAX_BYTES // 2**20} MB: not a .mat file")
        data = path.read_bytes()
    except OSError as exc:
        raise ImportFileError(f"cannot read it: {exc.strerror or exc}") from exc
    if b"\0" in data:
        raise ImportFileError("not a .mat file: it is binary")
    try:
        return import_mat(data.decode("utf-8", errors="replace"), table_id)
    except MatFormatError as exc:
        raise ImportFileError(str(exc)) from exc


async def _import(args: argparse.Namespace, store: EventStore) -> int:
    table_id, steps = args.table_id, args.steps
    bar = Progress(sum(len(s) for s in steps), "import")
    try:
        version = await append_steps(store, table_id, steps, progress=bar.advance)
    except ConcurrencyError:
        bar.close()
        return _refuse_import(args.file, f"table {table_id} already exists")
    bar.close()
    print(table_id)
    print(f"imported {args.file} as table {table_id} ({version} events)", file=sys.stderr)
    return 0


def _refuse_import(path: Path, reason: str) -> int:
    """One line on stderr (no traceback) and exit status 2."""
    print(f"chouette import: {path}: {' '.join(reason.split())}", file=sys.stderr)
    return 2
