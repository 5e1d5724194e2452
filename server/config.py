"""Server configuration: flags, then environment, then defaults.

The dice seam (``dice_factory``) is deliberately not reachable from flags or the environment:
only code that builds a :class:`Config` itself — the tests — can replace the fair dice.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from events.table import DiceSource


@dataclass(frozen=True, slots=True)
class Config:
    host: str = "127.0.0.1"
    port: int = 8080
    database_url: str | None = None
    """PostgreSQL URL; None starts an embedded PostgreSQL in :attr:`data_dir`."""
    data_dir: Path = Path(".pgdata")
    partitions: int = 1
    """Log partitions new table streams are spread over."""
    max_body: int = 64 * 1024
    """Largest request body accepted, in bytes (larger: 413)."""
    pool_size: int = 20
    client_queue: int = 1000
    """Messages a stream client may fall behind before it is switched to catch-up."""
    resync_window: int = 100_000
    """How far back (in versions) a resuming client may ask; further must resync."""
    poll_interval: float = 1.0
    """Fallback polling of the log when no notification arrives."""
    auditor_token: str | None = None
    """Bearer token that may read the global feed (`CHOUETTE_AUDITOR_TOKEN`)."""
    log_json: bool = True
    log_level: str = "INFO"
    dice_factory: Callable[[str], DiceSource] | None = field(default=None, repr=False)
    """Tests only: dice for a table id instead of the provably fair dice."""

    @classmethod
    def from_env(cls, **overrides: object) -> Config:
        """Defaults, overridden by ``CHOUETTE_*``/``DATABASE_URL`` variables, then by
        ``overrides`` whose value is not None (the command-line flags)."""
        env = os.environ
        values: dict[str, object] = {}
        if env.get("DATABASE_URL"):
            values["database_url"] = env["DATABASE_URL"]
        for key, conv in (
            ("host", str),
            ("port", int),
            ("data_dir", Path),
            ("partitions", int),
            ("max_body", int),
            ("pool_size", int),
            ("log_level", str),
            ("auditor_token", str),
        ):
            raw = env.get(f"CHOUETTE_{key.upper()}")
            if raw:
                values[key] = conv(raw)
        if "data_dir" not in values and env.get("CHOUETTE_PGDATA"):
            # The name the embedded-database helper (and the tests) read.
            values["data_dir"] = Path(env["CHOUETTE_PGDATA"])
        if env.get("CHOUETTE_LOG_JSON"):
            values["log_json"] = env["CHOUETTE_LOG_JSON"].lower() not in ("0", "false", "no")
        values.update({k: v for k, v in overrides.items() if v is not None})
        values.pop("dice_factory", None)
        return cls(**values)  # type: ignore[arg-type]
