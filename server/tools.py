"""The audit tools of the ``chouette`` command: ``audit``, ``replay``, ``export`` and ``import``,
with a small progress bar for long runs, and :func:`simulate_table`, which plays random games
through the decider (for the benchmark, the tests and demonstrations).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from engine.game import Phase
from events import commands as c
from events import types as e
from events.decider import TableState, decide, evolve
from events.store import EventStore, NewEvent
from server.config import Config
from server.dice import FairDice
from server.tables import table_stream

# -- progress -----------------------------------------------------------------------------------


class Progress:
    """A one-line progress bar on a terminal's stderr; silent when stderr is not a terminal
    (a log file or a pipe gets no carriage-return noise).

    >>> import io
    >>> bar = Progress(100, "audit", stream=io.StringIO())
    >>> bar.advance(50); bar.done
    50
    """

    def __init__(
        self, total: int, label: str, *, stream: IO[str] | None = None, unit: str = "events"
    ) -> None:
        self.total = max(total, 0)
        self.label = label
        self.unit = unit
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self._started = time.perf_counter()
        self._drawn = 0.0

    def advance(self, n: int) -> None:
        self.done += n
        now = time.perf_counter()
        if self.enabled and (now - self._drawn >= 0.1 or self.done >= self.total):
            self._drawn = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        width = 30
        frac = min(self.done / self.total, 1.0) if self.total else 1.0
        filled = int(frac * width)
        rate = self.done / max(now - self._started, 1e-9)
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {frac:4.0%} "
            f"{self.done}/{self.total} {self.unit} {rate:,.0f}/s "
        )
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self._draw(time.perf_counter())
            self.stream.write("\n")
            self.stream.flush()


# -- simulated tables ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One command of a simulated table and the events the decider recorded for it."""

    actor: str
    command: c.Command
    events: tuple[e.Event, ...]


@dataclass(slots=True)
class SimulatedTable:
    """A table played through the decider with random (legal) choices and fair dice whose
    seeds are known."""

    table_id: str
    steps: list[Step] = field(default_factory=list)
    state: TableState = field(default_factory=TableState)
    seeds: dict[int, bytes] = field(default_factory=dict)
    """The secret seed of each game (revealed in its ``game_ended``)."""

    @property
    def events(self) -> list[e.Event]:
        return [ev for step in self.steps for ev in step.events]

    def run(self, actor: str, command: c.Command, rng: random.Random) -> None:
        """Decide ``command`` with fair dice (a new game's seed drawn from ``rng``) and fold
        its events."""
        s = self.state
        for g in (s.game_no, s.game_no + 1):
            if g and g not in self.seeds:
                self.seeds[g] = rng.randbytes(32)
        dice = FairDice(self.seeds, {s.game_no: list(s.client_seeds)})
        events = decide(s, actor, command, dice)
        for ev in events:
            s = evolve(s, ev)
        self.state = s
        self.steps.append(Step(actor, command, tuple(events)))


def simulate_table(
    table_id: str,
    *,
    games: int = 1,
    kind: str = "money",
    options: e.TableOptions | None = None,
    rng: random.Random | None = None,
    players: tuple[str, str] = ("alice", "bob"),
    double_rate: float = 0.04,
    drop_rate: float = 0.25,
    resign_rate: float = 0.003,
    seed_rate: float = 0.2,
    finish: bool = True,
) -> SimulatedTable:
    """Play ``games`` random games at a new money or match table through the decider.

    Every throw comes from :class:`~server.dice.FairDice` with seeds drawn from ``rng``; every
    play is a random legal play; cubes are offered, taken, dropped and beavered, resignations
    offered, accepted and declined, and players add seeds of their own, at the given rates.
    A match ends when it is won, whatever ``games`` says. With ``finish=False`` the last game is
    left in play (for pending dice).
    """
    rng = rng or random.Random(0)
    if options is None:
        options = e.TableOptions(match_length=5 if kind == "match" else 0)
    table = SimulatedTable(table_id, state=TableState(table_id=table_id))

    def run(actor: str, command: c.Command) -> None:
        table.run(actor, command, rng)

    run(players[0], c.CreateTable(kind=kind, options=options))  # type: ignore[arg-type]
    run(players[0], c.Join(display_name=players[0].title()))
    run(players[1], c.Join(display_name=players[1].title()))
    played = 0
    while table.state.in_game:
        s = table.state
        game = s.game
        assert game is not None
        if game.is_over:  # pragma: no cover - the decider starts the next game at once
            break
        if not finish and played == games - 1 and s.dice_counter > 20 and rng.random() < 0.05:
            break
        number = s.game_no
        if game.phase is Phase.OPENING:
            for p in players:
                if s.dice_counter == 0 and rng.random() < seed_rate:
                    run(p, c.AddSeed(seed=f"{p}-{rng.getrandbits(64):x}"))
            run(rng.choice(players), c.Roll())
        elif game.phase is Phase.ROLL:
            me = players[game.turn]
            # In a match nobody sane turns the cube past what the match needs.
            sane = s.kind != "match" or game.cube.value * 2 <= s.options.match_length
            if game.can_double(game.turn) and sane and rng.random() < double_rate:
                run(me, c.Double())
            elif rng.random() < resign_rate:
                run(me, c.Resign(level=rng.choice((1, 1, 2, 3))))
            else:
                run(me, c.Roll())
        elif game.phase is Phase.MOVE:
            plays = game.legal_plays()
            moves = rng.choice(plays).moves if plays else ()
            run(players[game.turn], c.Move(moves=[(a, b) for a, b in moves]))
        elif game.phase is Phase.DOUBLED:
            assert game.pending is not None
            who = players[game.pending.responder]
            r = rng.random()
            if r < drop_rate:
                run(who, c.Drop())
            elif s.options.beavers and not game.pending.beavered and r < drop_rate + 0.1:
                run(who, c.Beaver())
            else:
                run(who, c.Take())
        elif game.phase is Phase.RESIGNATION:
            assert game.resignation is not None
            who = players[1 - game.resignation.by]
            run(who, c.Accept() if rng.random() < 0.6 else c.Decline())
        if table.state.game_no != number or not table.state.in_game:
            played += 1
            if played >= games:
                break
    return table


def simulate_chouette(
    table_id: str,
    *,
    players: Sequence[str] = ("ann", "bob", "cat", "dan"),
    games: int = 1,
    options: e.TableOptions | None = None,
    rng: random.Random | None = None,
    double_rate: float = 0.05,
    drop_rate: float = 0.3,
    resign_rate: float = 0.003,
    leave_rate: float = 0.0,
    finish: bool = True,
) -> SimulatedTable:
    """Play ``games`` random games of a chouette through the decider, like
    :func:`simulate_table`: the box doubles some or all cubes, members double their own, each
    answers on their own; resignations between the box and a member; with ``leave_rate`` a
    member now and then leaves in mid-game (and comes back for the next)."""
    from engine.chouette import Action

    rng = rng or random.Random(0)
    table = SimulatedTable(table_id, state=TableState(table_id=table_id))
    options = options or e.TableOptions()

    def run(actor: str, command: c.Command) -> None:
        table.run(actor, command, rng)

    run(players[0], c.CreateTable(kind="chouette", options=options))
    for p in players:
        run(p, c.Join(display_name=p.title()))
    run(players[0], c.StartGame())
    played = 0
    away: list[str] = []
    while table.state.in_game:
        st = table.state
        ch = st.chouette
        assert ch is not None and ch.game is not None
        g = ch.game
        number = st.game_no
        if not finish and played == games - 1 and st.dice_counter > 20 and rng.random() < 0.05:
            break
        waiting = ch.waiting_for()
        if g.phase is Phase.OPENING:
            if not st.dice_counter and number > 1 and rng.random() < 0.3:
                run(g.captain, c.AddSeed(seed=f"{g.captain}-{rng.getrandbits(32):x}"))
            run(g.box, c.Roll())
        elif waiting:
            who = rng.choice(waiting)
            allowed = ch.allowed(who)
            answers = [a for a in (Action.TAKE, Action.DROP, Action.BEAVER) if a in allowed]
            if not answers:
                answer = Action.ACCEPT if Action.ACCEPT in allowed else Action.DECLINE
                target = sorted(ch.targets(who, answer))[0] if who == g.box else ""
                run(who, c.Accept(cube=target) if rng.random() < 0.6 else c.Decline(cube=target))
            else:
                r = rng.random()
                action = (
                    Action.DROP
                    if r < drop_rate and Action.DROP in answers
                    else Action.BEAVER
                    if r < drop_rate + 0.1 and Action.BEAVER in answers
                    else Action.TAKE
                )
                if action not in answers:
                    action = answers[0]
                target = sorted(ch.targets(who, action))[0] if who == g.box else ""
                command = {Action.TAKE: c.Take, Action.DROP: c.Drop, Action.BEAVER: c.Beaver}
                run(who, command[action](cube=target))
        elif g.phase is Phase.ROLL:
            roller = ch.on_roll
            assert roller is not None
            doublers = [p for p in (g.box, *g.in_game) if Action.DOUBLE in ch.allowed(p)]
            resigners = [p for p in (g.box, *g.in_game) if Action.RESIGN in ch.allowed(p)]
            leavers = [m for m in g.in_game if m != roller]
            if doublers and rng.random() < double_rate:
                who = rng.choice(doublers)
                if who == g.box:
                    targets = sorted(ch.targets(who, Action.DOUBLE))
                    some = rng.sample(targets, rng.randint(1, len(targets)))
                    if options.cube_mode == "single" or len(some) == len(targets):
                        some = []  # every cube it may turn (with a single cube, the team's)
                    run(who, c.Double(cubes=some))
                else:
                    run(who, c.Double())
            elif resigners and rng.random() < resign_rate:
                who = rng.choice(resigners)
                to = sorted(ch.targets(who, Action.RESIGN))[:1] if who == g.box else []
                run(who, c.Resign(level=rng.choice((1, 1, 2)), to=to))
            elif leavers and rng.random() < leave_rate:
                who = rng.choice(leavers)
                run(who, c.Leave())
                away.append(who)
            else:
                run(roller, c.Roll())
        elif g.phase is Phase.MOVE:
            plays = g.legal_plays()
            moves = rng.choice(plays).moves if plays else ()
            on_roll = ch.on_roll
            assert on_roll is not None
            run(on_roll, c.Move(moves=[(a, b) for a, b in moves]))
        else:  # pragma: no cover - the decider starts the next game at once
            break
        if table.state.game_no != number or not table.state.in_game:
            played += 1
            for p in away:
                run(p, c.Join(display_name=p.title()))
            away.clear()
            if played >= games:
                break
    return table


async def append_steps(
    store: EventStore,
    table_id: str,
    steps: Sequence[Sequence[e.Event]],
    *,
    after: int = 0,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Append each command's events as one append (with its own command id), as the table
    service does; returns the stream's version."""
    stream = table_stream(table_id)
    version = after
    for events in steps:
        if not events:
            continue
        new = [
            NewEvent(type=e.tag(ev), data=e.encode(ev), schema_version=ev.schema_version)
            for ev in events
        ]
        result = await store.append(stream, new, expected_version=version, command_id=uuid.uuid4())
        version = result.last_version
        if progress is not None:
            progress(len(events))
    return version


# -- the command line ---------------------------------------------------------------------------


def add_commands(
    sub: argparse._SubParsersAction,
    db_flags: Callable[[argparse.ArgumentParser], None],
) -> None:
    """Add ``audit``, ``replay``, ``export`` and ``import`` to the ``chouette`` command."""
    audit = sub.add_parser(
        "audit",
        help="check tables: hash chain, versions, every event against the rules, every throw "
        "against the revealed seed",
    )
    which = audit.add_mutually_exclusive_group(required=True)
    which.add_argument("--table", action="append", metavar="ID", help="a table id (repeatable)")
    which.add_argument("--all", action="store_true", help="every table, and the log")
    audit.add_argument("--json", action="store_true", help="one JSON document on stdout")
    db_flags(audit)

    replay = sub.add_parser("replay", help="print a table's games, move by move")
    replay.add_argument("table", metavar="ID")
    replay.add_argument("--at", type=int, metavar="VERSION", help="show the table at a version")
    replay.add_argument("--boards", action="store_true", help="draw the board after each play")
    db_flags(replay)

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
    db_flags(export)

    imp = sub.add_parser("import", help="import a .mat match file as a new table")
    imp.add_argument("file", type=Path)
    imp.add_argument("--table", metavar="ID", help="the new table's id (default: a new uuid)")
    db_flags(imp)


def run(args: argparse.Namespace, config: Config) -> int:
    """Run one of the tools; the exit status."""
    commands: dict[str, Callable[[argparse.Namespace, EventStore], Any]] = {
        "audit": _audit,
        "replay": _replay,
        "export": _export,
        "import": _import,
    }
    command = commands.get(args.cmd)
    if command is None:
        raise SystemExit(f"unknown command {args.cmd!r}")
    return asyncio.run(_with_store(config, command, args))


async def _with_store(
    config: Config, command: Callable[[argparse.Namespace, EventStore], Any], args: Any
) -> int:
    from events.embedded import DatabaseConfig, database_url
    from events.migrations import migrate

    url = await database_url(DatabaseConfig(url=config.database_url, data_dir=config.data_dir))
    store = await EventStore.connect(url, min_size=1, max_size=4)
    try:
        await migrate(store.pool)
        status: int = await command(args, store)
        return status
    finally:
        await store.close()


async def _audit(args: argparse.Namespace, store: EventStore) -> int:
    from server.audit import audit_tables, check_log, table_ids

    known = dict(await table_ids(store))
    ids = sorted(known) if args.all else list(args.table)
    bar = Progress(sum(known.get(t, 0) for t in ids), "audit")
    started = time.perf_counter()
    reports = await audit_tables(store, ids, bar.advance)
    bar.close()
    log = await check_log(store) if args.all else []
    seconds = time.perf_counter() - started
    failed = [r for r in reports if r.status == "failed"]
    if args.json:
        doc = {
            "status": "failed" if failed or log else "ok",
            "tables": len(reports),
            "events": sum(r.events for r in reports),
            "seconds": round(seconds, 3),
            "failed": len(failed),
            "pending": sum(r.status == "pending" for r in reports),
            "log": log,
            "reports": [r.as_dict() for r in reports],
        }
        print(json.dumps(doc, indent=2))
    else:
        for r in reports:
            print(_report_line(r))
        for problem in log:
            print(f"log partition {problem['partition']}: FAILED {problem['reason']}")
        events = sum(r.events for r in reports)
        print(
            f"{len(reports)} table(s), {events} events in {seconds:.2f} s: "
            f"{len(failed)} failed, {sum(r.status == 'pending' for r in reports)} pending"
        )
    return 1 if failed or log else 0


def _report_line(report: Any) -> str:
    if report.status == "failed":
        stream, f = report.first_failure
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
    from server import replay

    records = await store.read_stream(table_stream(args.table))
    if not records:
        print(f"no table {args.table!r}", file=sys.stderr)
        return 1
    events = replay.decode_all(records)
    if args.at is not None:
        if not 1 <= args.at <= len(events):
            print(f"--at must be 1 to {len(events)}", file=sys.stderr)
            return 1
        print(replay.state_text(events, args.at))
        return 0
    for line in replay.record_lines(events, boards=args.boards):
        print(line)
    return 0


async def _export(args: argparse.Namespace, store: EventStore) -> int:
    from engine.matfile import write_mat
    from events import export
    from server import replay

    records = await store.read_stream(table_stream(args.table))
    if not records:
        print(f"no table {args.table!r}", file=sys.stderr)
        return 1
    events = replay.decode_all(records)
    chouette = isinstance(events[0], e.TableCreated) and events[0].kind == "chouette"
    if chouette and args.format == "mat" and not args.member:
        if not args.output:
            print(
                "a chouette exports a file per member: give -o DIRECTORY or --member",
                file=sys.stderr,
            )
            return 2
        args.output.mkdir(parents=True, exist_ok=True)
        for name, content in export.export_chouette(events).items():
            (args.output / name).write_text(content, encoding="utf-8")
            print(f"wrote {args.output / name}", file=sys.stderr)
        return 0
    if chouette and args.format == "mat":
        text = write_mat(export.member_record(events, args.member))
    elif chouette:
        text = export.json_text(export.chouette_json(events))
    elif args.format == "mat":
        text = export.export_mat(events)
    else:
        text = export.json_text(export.export_json(events))
    if args.output:
        args.output.write_text(text, encoding="utf-8")
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


async def _import(args: argparse.Namespace, store: EventStore) -> int:
    from events.export import import_mat

    text = args.file.read_text(encoding="utf-8", errors="replace")
    table_id = args.table or str(uuid.uuid4())
    steps = import_mat(text, table_id)
    bar = Progress(sum(len(s) for s in steps), "import")
    version = await append_steps(store, table_id, steps, progress=bar.advance)
    bar.close()
    print(table_id)
    print(f"imported {args.file} as table {table_id} ({version} events)", file=sys.stderr)
    return 0


def recorded(table_id: str, steps: Sequence[Sequence[e.Event]]) -> list[Any]:
    """The events of ``steps`` as the store would record them (one command id per step), for
    auditing without a database."""
    from datetime import UTC, datetime

    from events.store import RecordedEvent

    stream = table_stream(table_id)
    now = datetime.now(UTC)
    out: list[RecordedEvent] = []
    for events in steps:
        command = uuid.uuid4()
        for ev in events:
            n = len(out) + 1
            out.append(
                RecordedEvent(
                    stream, n, 0, n, e.tag(ev), ev.schema_version, e.encode(ev), command, now
                )
            )
    return out
