"""``chouette analyse TABLE [--ply N] [--json]``: GNU Backgammon's analysis of a table's
finished games (:func:`events.records.analysis.analyse_table`) in the terminal, with a progress bar
(one step per record GNU Backgammon analyses: the match, or each chouette member's games)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from events.gnubg.bot import available
from events.records.analysis import analyse_table, units_of
from events.records.replay import decode_all
from events.store.event_store import EventStore
from events.store.streams import table_stream
from server.cli.progress import Progress
from server.http.analysis import finished_upto

__all__ = ["add_parser", "analyse", "summary_lines"]

MISSING = "chouette analyse: analysis needs GNU Backgammon: pip install 'chouette[gnubg]'"


def _ply(text: str) -> int:
    if text not in ("0", "1", "2"):
        raise argparse.ArgumentTypeError(f"the ply is 0, 1 or 2, not {text!r}")
    return int(text)


def add_parser(sub: argparse._SubParsersAction, db_flags: Any) -> None:
    p = sub.add_parser(
        "analyse",
        help="GNU Backgammon's analysis of a table's finished games: every decision's equity"
        " lost, each player's error rate and luck (needs the gnubg extra)",
    )
    p.add_argument("table", metavar="ID")
    p.add_argument("--ply", type=_ply, default=0, help="evaluation depth, 0 to 2 (default 0)")
    p.add_argument("--json", action="store_true", help="the analysis as one JSON document")
    p.add_argument(
        "--blunders", type=int, default=20, metavar="N", help="list at most N blunders (20)"
    )
    db_flags(p)


def summary_lines(doc: dict[str, Any], limit: int = 20) -> list[str]:
    """The analysis in words: a line per player, then the blunders."""
    games = doc["games"]
    lines = [
        f"Table {doc['table']} ({doc['kind']}): {len(games)} finished game(s), GNU Backgammon"
        f" at {doc['ply']}-ply",
        "",
        f"{'player':<24} {'decisions':>9} {'error rate':>14} {'blunders':>8} {'luck':>22}",
    ]
    names = {p: v["name"] for p, v in doc["players"].items()}
    for v in doc["players"].values():
        lines.append(
            f"{v['name'][:24]:<24} {v['decisions']:>9} {v['error_rate_memg']:>9.1f} mEMG"
            f" {v['blunders']:>8} {v['luck_total_emg']:>+9.3f} EMG"
            f" ({v['luck_rate_memg']:+.1f}/roll)"
        )
    blunders = [d for g in games for d in g["decisions"] if d["mark"] == "blunder"]
    if blunders:
        lines += ["", f"Blunders ({len(blunders)}, 0.08 EMG or more):"]
        for d in sorted(blunders, key=lambda d: -d["equity_lost"])[:limit]:
            cube = (
                f" on {names.get(d['cube'], d['cube'])}'s cube" if doc["kind"] == "chouette" else ""
            )
            dice = f" {d['dice'][0]}{d['dice'][1]}" if d.get("dice") else ""
            lines.append(
                f"  game {d['game']} move {d['move']} (version {d['version']}):"
                f" {names.get(d['player'], d['player'])}{cube}{dice} {d['action']}"
                f" — best {d['best']}, lost {d['equity_lost']:.3f}"
            )
    return lines


async def analyse(args: argparse.Namespace, store: EventStore) -> int:
    if not available():
        print(MISSING, file=sys.stderr)
        return 2
    records = await store.read_stream(table_stream(args.table))
    if not records:
        print(f"no table {args.table!r}", file=sys.stderr)
        return 1
    events = decode_all(records, store.keys)
    events = events[: max(finished_upto(events), 1)]
    bar = Progress(units_of(events), "analyse", unit="records")
    # GNU Backgammon's module works in this process (a command runs one analysis), in its main
    # thread (the loop has nothing else to do meanwhile).
    doc = analyse_table(events, args.ply, progress=bar.advance)
    bar.close()
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        print("\n".join(summary_lines(doc, args.blunders)))
    return 0
