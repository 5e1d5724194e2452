"""Audit, replay and export commands (filled in by the audit issue)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from server.config import Config


def add_commands(
    sub: argparse._SubParsersAction, db_flags: Callable[[argparse.ArgumentParser], None]
) -> None:  # type: ignore[type-arg]
    return None


def run(args: argparse.Namespace, config: Config) -> int:
    raise SystemExit(f"unknown command {args.cmd!r}")
