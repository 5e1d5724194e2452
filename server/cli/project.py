"""``chouette project rebuild [NAME]``: rebuild a read model (or every one) from the log, with
a progress bar, swapping the new tables in atomically while a running server goes on serving
the old ones (server/readmodels/rebuild.py). Runs as the tables' owner."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable

from events.store.errors import StoreError
from events.store.event_store import EventStore
from events.store.personal_keys import PersonalKeys, master_key
from server.cli.progress import Progress
from server.config import Config, load_seed_key
from server.database import owner_database_url
from server.readmodels.lobby import LobbyProjector
from server.readmodels.profiles import ProfilesProjector
from server.readmodels.ratings import RatingsProjector
from server.readmodels.rebuild import ReadModel, rebuild
from server.readmodels.tournaments import TournamentsProjector

__all__ = ["MODELS", "add_project_command", "run_project"]

MODELS: dict[str, Callable[..., ReadModel]] = {
    "lobby": LobbyProjector,
    "ratings": RatingsProjector,
    "profiles": ProfilesProjector,
    "tournaments": TournamentsProjector,
}
"""Every read model ``chouette project rebuild`` knows, by name."""


def add_project_command(sub: argparse._SubParsersAction, db_flags: Callable[..., None]) -> None:
    project = sub.add_parser("project", help="the read models (projections of the log)")
    actions = project.add_subparsers(dest="action", required=True)
    rb = actions.add_parser(
        "rebuild",
        help="rebuild read models from the log and swap them in atomically (as the owner)",
    )
    rb.add_argument(
        "name", nargs="?", choices=sorted(MODELS), help="the read model (default: every one)"
    )
    rb.add_argument(
        "--partitions", type=int, help="log partitions (default: the server's configuration)"
    )
    rb.add_argument("--batch-size", type=int, default=5000, help="events per transaction")
    db_flags(rb, owner=True)


async def _rebuild_all(config: Config, names: list[str], batch_size: int) -> int:
    url = await owner_database_url(config)
    # Three connections: the rebuild's lock, the swap's transaction and its reads of the log.
    store = await EventStore.connect(url, partitions=config.partitions, min_size=1, max_size=3)
    # The read models name players as the events do, opened with the server's own keys.
    seed_key = await asyncio.to_thread(load_seed_key, config)
    store.keys = PersonalKeys(store.pool, master_key(seed_key))
    try:
        for name in names:
            total = sum((await store.partition_heads()).values())
            bar = Progress(total, f"rebuild {name}")
            started = time.perf_counter()

            def progress(done: int, total: int, bar: Progress = bar) -> None:
                bar.total = total
                bar.advance(done - bar.done)

            read = await rebuild(store, MODELS[name], batch_size=batch_size, progress=progress)
            bar.close()
            seconds = time.perf_counter() - started
            print(
                f"{name}: rebuilt from {read} events in {seconds:.1f} s"
                f" ({read / max(seconds, 1e-9):,.0f} events/s), swapped in"
            )
    finally:
        await store.close()
    return 0


def run_project(args: argparse.Namespace, config: Config) -> int:
    names = [args.name] if args.name else list(MODELS)
    if not 1 <= args.batch_size <= 100_000:
        print("chouette project: --batch-size is 1 to 100000", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_rebuild_all(config, names, args.batch_size))
    except StoreError as exc:
        print(f"chouette project: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
