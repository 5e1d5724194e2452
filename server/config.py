"""Server configuration: flags, then environment, then defaults.

The dice seam (``dice_factory``) is deliberately not reachable from flags or the environment:
only code that builds a :class:`Config` itself — the tests — can replace the fair dice.

Durations in the environment are seconds, or a number with a unit (``30s``, ``15m``, ``12h``,
``30d``); a rate is ``COUNT/DURATION`` (``20/1h``), or ``off``.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import msgspec

from events.domain.dice import decode_seed_key, encode_seed_key, new_seed_key
from events.domain.table import DiceSource
from events.domain.types import ClockOptions
from events.service import Decider
from events.store.heads import decode_signing_key, encode_key, new_signing_key

log = logging.getLogger("chouette.server")

_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")


def parse_duration(text: str) -> float:
    """Seconds from ``"90"``, ``"90s"``, ``"15m"``, ``"12h"`` or ``"30d"``.

    >>> parse_duration("15m"), parse_duration("2.5")
    (900.0, 2.5)
    """
    m = _DURATION.match(text)
    if m is None:
        raise ValueError(f"a duration is seconds or a number with s, m, h or d, not {text!r}")
    return float(m.group(1)) * _UNITS[m.group(2)]


@dataclass(frozen=True, slots=True)
class Rate:
    """At most ``count`` in any ``per`` seconds, as a token bucket: a burst of ``count``, then
    one more every ``per / count`` seconds (:mod:`server.access.ratelimit`)."""

    count: int
    per: float

    @classmethod
    def parse(cls, text: str) -> Rate | None:
        """``"20/1h"`` (or ``"20/3600"``); ``"off"`` is no limit (None).

        >>> Rate.parse("20/1h"), Rate.parse("off")
        (Rate(count=20, per=3600.0), None)
        """
        if text.strip().lower() in ("off", "none", "0"):
            return None
        count, slash, per = text.partition("/")
        if not slash or not count.strip().isdigit() or int(count) < 1:
            raise ValueError(f"a rate is COUNT/DURATION (e.g. 20/1h) or off, not {text!r}")
        seconds = parse_duration(per)
        if seconds <= 0:
            raise ValueError(f"a rate's duration must be positive, not {text!r}")
        return cls(int(count), seconds)

    def __str__(self) -> str:
        return f"{self.count}/{self.per:g}s"


def _flag(text: str) -> bool:
    return text.strip().lower() not in ("0", "false", "no", "off")


def _integer(text: str) -> int:
    """An integer setting: plain digits, with a sign if any (not ``int()``'s own words)."""
    if not re.fullmatch(r"\s*[-+]?[0-9]+\s*", text):
        raise ValueError(f"an integer is expected, not {text!r}")
    return int(text)


def _number(text: str) -> float:
    """A number setting (``2``, ``0.5``)."""
    if not re.fullmatch(r"\s*[0-9]+(?:\.[0-9]+)?\s*", text):
        raise ValueError(f"a number is expected, not {text!r}")
    return float(text)


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigError(ValueError):
    """A setting the server cannot run with. Its text is one line: the setting as the operator
    wrote it (``CHOUETTE_TABLE_CLOCK``, ``--port``), then why. ``serve`` and the other commands
    print it and exit with status 2 (server/cli/main.py), with no traceback."""

    def __init__(self, setting: str, reason: str, *, field: str = "") -> None:
        super().__init__(f"{setting}: {reason}")
        self.setting = setting
        """The variable or flag at fault."""
        self.reason = reason
        self.field = field
        """The :class:`Config` field it sets ('' if none)."""


def _variable(name: str) -> str:
    """The environment variable of a :class:`Config` field."""
    return f"CHOUETTE_{name.upper()}"


@dataclass(frozen=True, slots=True)
class Config:
    host: str = "127.0.0.1"
    """The address ``serve`` listens on (`CHOUETTE_HOST`, `--host`)."""
    port: int = 8080
    """The port ``serve`` listens on, 0 to 65535 (`CHOUETTE_PORT`, `--port`)."""
    database_url: str | None = None
    """PostgreSQL URL of the server's role (`DATABASE_URL`); None starts an embedded PostgreSQL
    in :attr:`data_dir`, migrated as its superuser and served as ``chouette_server``."""
    owner_database_url: str | None = None
    """PostgreSQL URL of the tables' owner, who runs the migrations
    (`CHOUETTE_OWNER_DATABASE_URL`); None: `chouette migrate` uses :attr:`database_url`, and
    `serve` only checks that the database is migrated (docs/store.md, "Roles")."""
    allow_superuser: bool = False
    """Serve even when :attr:`database_url` logs in as a superuser, who can switch the
    append-only protections off (`--allow-superuser`, `CHOUETTE_ALLOW_SUPERUSER=1`)."""
    data_dir: Path = Path(".pgdata")
    """The embedded PostgreSQL's data directory, used when :attr:`database_url` is None
    (`CHOUETTE_DATA_DIR`, or `CHOUETTE_PGDATA`; `--data-dir`); the key files are kept in it, or
    beside it with :attr:`database_url` (:func:`seed_key_path`)."""
    partitions: int = 1
    """Log partitions new table streams are spread over (docs/scaling.md)."""
    max_body: int = 64 * 1024
    """Largest request body accepted, in bytes (larger: 413)."""
    pool_size: int = 20
    """Database connections per process."""
    client_queue: int = 1000
    """Messages a stream client may fall behind before it is switched to catch-up."""
    ws_compress: bool = False
    """Offer WebSocket compression (permessage-deflate) to clients that ask for it, as every
    browser does (`CHOUETTE_WS_COMPRESS`). Off by default: each compressed socket keeps its own
    zlib streams (139 KiB of memory a socket measured, against 36 KiB without) and deflates
    every message it is sent (some 4 µs for a throw's 1.6 KB), for messages of a few hundred
    bytes to a few KB (docs/scaling.md)."""
    resync_window: int = 100_000
    """How far back (in versions) a resuming client may ask; further must resync."""
    poll_interval: float = 1.0
    """Fallback polling of the log when no notification arrives."""
    auditor_token: str | None = None
    """Bearer token that may read the global feed (`CHOUETTE_AUDITOR_TOKEN`)."""
    log_json: bool = True
    """Logs as JSON lines carrying the table and command ids (`CHOUETTE_LOG_JSON`); off
    (`--plain-logs`): lines for people."""
    log_level: str = "INFO"
    """The level logs start at: DEBUG, INFO, WARNING, ERROR or CRITICAL."""

    # -- sessions (docs/design.md, issue 11) ----------------------------------------------
    token_ttl: float = 30 * 86400
    """Seconds an account's token lasts (`CHOUETTE_TOKEN_TTL`); an expired token is a 401."""
    guest_token_ttl: float = 7 * 86400
    """Seconds a guest's token lasts (`CHOUETTE_GUEST_TOKEN_TTL`)."""
    ticket_ttl: float = 30.0
    """Seconds a stream ticket (`POST /tickets`) may wait to be used (`CHOUETTE_TICKET_TTL`)."""
    session_check: float = 2.0
    """Seconds between checks that the tokens of open sockets are still valid: a socket whose
    token was revoked or expired is closed within this (`CHOUETTE_SESSION_CHECK`)."""
    hash_workers: int = 2
    """Threads hashing passwords off the event loop (Argon2id takes 19 MiB and ~50 ms each),
    `CHOUETTE_HASH_WORKERS`."""
    behind_proxy: bool = False
    """Take the client's address from the last `X-Forwarded-For` entry (only behind a reverse
    proxy that sets it), for the per-address limits (`CHOUETTE_BEHIND_PROXY`)."""

    # -- rate limits (server/access/ratelimit.py): per process, generous enough that a real player,
    # or a club of them behind one address, never meets them. None: no limit. -----------
    rate_limits: bool = True
    """Every limit and cap below on or off at once (`CHOUETTE_RATE_LIMITS`)."""
    rate_guests: Rate | None = Rate(100, 3600)
    """Guest accounts created per address."""
    rate_accounts: Rate | None = Rate(50, 3600)
    """Accounts registered per address."""
    rate_logins_address: Rate | None = Rate(100, 3600)
    """Login attempts per address."""
    rate_logins_username: Rate | None = Rate(20, 3600)
    """Login attempts per username (password guessing)."""
    rate_tables: Rate | None = Rate(30, 3600)
    """Tables created per account."""
    rate_commands: Rate | None = Rate(600, 60)
    """Commands per account (HTTP and WebSocket together; chat counts here too)."""
    rate_chat: Rate | None = Rate(30, 60)
    """Chat messages per account."""
    rate_sockets_account: Rate | None = Rate(60, 60)
    """WebSocket/SSE connections per account (counted as tickets are issued, or at a connection
    made with the header)."""
    rate_sockets_address: Rate | None = Rate(300, 60)
    """WebSocket/SSE connections per address, anonymous ones included."""
    rate_audits: Rate | None = Rate(30, 60)
    """Table audits (``GET /tables/{id}/audit``) per address: the first audit of a table reads
    and checks all of it (later ones only what was appended since)."""
    rate_analyses: Rate | None = Rate(20, 60)
    """Game analyses (``GET /tables/{id}/analysis``) per address: one not kept yet runs GNU
    Backgammon over every finished game of the table."""
    rate_heads: Rate | None = Rate(30, 60)
    """Signed chain heads (``GET /log/heads``) per address: each reads the log's heads (and,
    for the auditor, every stream's) and signs the document."""
    rate_social: Rate | None = Rate(120, 60)
    """Profiles and leaderboards (``GET /players/...``, ``GET /leaderboards/...``) per
    address: each reads the social read models."""
    rate_invitations: Rate | None = Rate(30, 60)
    """Invitations created, revoked and redeemed per address (a code is unguessable; this keeps
    anyone from trying)."""
    rate_history: Rate | None = Rate(120, 60)
    """Pages of a chouette's finished games (``GET /tables/{id}/history``) per address: each
    reads back through the table's stream."""
    rate_open_tables: int | None = 20
    """Tables an account may have open at once: not finished and active in the last
    :attr:`open_table_idle` seconds. The lobby lists 500 tables, so one account cannot bury it."""
    rate_max_sockets_account: int | None = 20
    """WebSocket/SSE connections an account may hold open at once."""
    rate_max_sockets_address: int | None = 200
    """WebSocket/SSE connections an address may hold open at once."""
    open_table_idle: float = 86400.0
    """A table idle (no one joined, left or started a game) this long no longer counts as open
    for :attr:`rate_open_tables`, so abandoned tables do not lock a player out."""
    seed_key: bytes | None = field(default=None, repr=False)
    """The key that keeps the secret dice seeds encrypted at rest (`CHOUETTE_SEED_KEY`: base64
    of 32 random bytes). None: the key file in :attr:`data_dir`, generated on first start
    (:func:`load_seed_key`; docs/dice.md, "Where the seed is kept"). Set it with
    :attr:`database_url`, and back it up with the database."""
    signing_key: bytes | None = field(default=None, repr=False)
    """The Ed25519 private key that signs the published chain heads (`CHOUETTE_SIGNING_KEY`:
    base64 of its 32 bytes). None: the key file beside the seed key's, generated on first start
    (:func:`load_signing_key`; docs/heads.md). Keep it away from the database's backups."""
    table_cache: int = 10_000
    """Tables whose folded state and dice seeds a process keeps in memory, the least recently
    used dropped first (`CHOUETTE_TABLE_CACHE`)."""
    gc_freeze_every: float = 5.0
    """Seconds between freezes of what has lived that long out of the garbage collector's sight
    in a ``serve`` process (`CHOUETTE_GC_FREEZE_EVERY`; 0: only start-up's objects, and the
    collector's own full collections as usual). While freezing, the collector makes no full
    collection of its own: only the young generations are collected, and what survives them is
    frozen here (docs/scaling.md)."""
    gc_thaw_every: float = 3600.0
    """Seconds between thaws, when everything frozen is handed back to the collector, whose
    next full collection frees the cyclic garbage frozen meanwhile (`CHOUETTE_GC_THAW_EVERY`;
    0: never)."""
    projection_linger: float = 0.05
    """Seconds each live projector (the lobby, ratings, profiles) waits after applying a batch,
    so that the commands of that time come as one transaction rather than one each
    (`CHOUETTE_PROJECTION_LINGER`, 0 to 1): read models lag the log by up to this much more."""
    plays_cache: int = 4096
    """Positions and throws whose legal plays a ``serve`` process keeps computed, the least
    recently used dropped first (`CHOUETTE_PLAYS_CACHE`): a few KB each, kept as plain tuples
    that the garbage collector stops tracking. A throw's plays are asked for a few times within
    seconds (the stream's message, the play's check, a bot), so a few seconds of throws is
    enough."""
    table_clock: ClockOptions | Literal["off"] | None = None
    """The clocks of tables created without a ``clock`` option (`CHOUETTE_TABLE_CLOCK`: ``off``,
    or ``DELAY+RESERVE[+PER_POINT]`` in seconds, e.g. ``12+120+20``). None: each kind's
    default, :func:`default_clock`."""
    seed_window: int = 5
    """Seconds each game's players have to add a dice seed or waive before its first throw,
    for tables created without a ``seed_window`` option (`CHOUETTE_SEED_WINDOW`, 0 to 60; 0:
    no waiting). Recorded in each table's ``table_created``."""
    leaderboard_min_experience: int = 25
    """The experience (points of rated matches) a player needs to be on the rating leaderboard
    (`CHOUETTE_LEADERBOARD_MIN_EXPERIENCE`); a request may ask for more, never less."""
    bot_workers: int = 1
    """Processes computing the bots' decisions off the event loop (`CHOUETTE_BOT_WORKERS`;
    server/live/bots.py, docs/bots.md)."""
    bot_timeout: float = 10.0
    """Seconds a bot has to decide; a bot that takes longer leaves its seat
    (`CHOUETTE_BOT_TIMEOUT`)."""
    bot_pace: float = 1.0
    """Seconds at least between a bot's turn coming and its command (its decision's time
    included), so that a person at the board sees what it does, and a table of bots plays at
    a person's pace rather than as fast as the server goes (`CHOUETTE_BOT_PACE`, 0 to 30; 0:
    at once)."""
    analysis_workers: int = 1
    """Processes analysing games off the event loop (`CHOUETTE_ANALYSIS_WORKERS`;
    server/http/analysis.py, docs/analysis.md)."""
    analysis_timeout: float = 300.0
    """Seconds an analysis may take before its worker is killed and the request answered 503
    (`CHOUETTE_ANALYSIS_TIMEOUT`)."""
    gnubg_ply: int = 0
    """The ply of GNU Backgammon's evaluation for bots of the ``gnubg`` strength, 0 to 3
    (`CHOUETTE_GNUBG_PLY`)."""
    bot_decide: Callable[..., object] | None = field(default=None, repr=False)
    """Tests only: the bots' decision function instead of :func:`events.domain.bots.decide_for` (a
    module-level function: it runs in the bot workers). No variable or flag sets it."""
    dice_factory: Callable[[str], DiceSource] | None = field(default=None, repr=False)
    """Tests only: dice for a table id instead of the provably fair dice."""
    decider: Decider | None = field(default=None, repr=False)
    """Tests only: what decides a command instead of :func:`events.domain.decider.decide` (a wrong
    one shows that the check before append writes nothing). No variable or flag sets it."""
    clock: Callable[[], float] | None = field(default=None, repr=False)
    """Tests only: the time (seconds since the epoch) commands are decided at, instead of the
    system's clock. No variable or flag sets it."""

    def __post_init__(self) -> None:
        """Each setting in its range, or a :class:`ConfigError` naming it (by its variable:
        :meth:`from_env` names the flag instead when a flag set it)."""
        checks: tuple[tuple[str, bool, str], ...] = (
            ("port", 0 <= self.port <= 65535, f"a port is 0 to 65535, not {self.port}"),
            ("partitions", self.partitions >= 1, f"at least 1, not {self.partitions}"),
            ("max_body", self.max_body >= 1, f"at least 1 byte, not {self.max_body}"),
            ("pool_size", self.pool_size >= 1, f"at least 1, not {self.pool_size}"),
            ("hash_workers", self.hash_workers >= 1, f"at least 1, not {self.hash_workers}"),
            ("table_cache", self.table_cache >= 1, f"at least 1, not {self.table_cache}"),
            ("plays_cache", self.plays_cache >= 0, f"0 or more, not {self.plays_cache}"),
            (
                "log_level",
                self.log_level.upper() in LOG_LEVELS,
                f"a log level is {', '.join(LOG_LEVELS)}, not {self.log_level!r}",
            ),
            (
                "seed_window",
                0 <= self.seed_window <= 60,
                f"the seed window is 0 to 60 seconds, not {self.seed_window}",
            ),
            (
                "leaderboard_min_experience",
                0 <= self.leaderboard_min_experience <= 1_000_000,
                "the leaderboard's minimum experience is 0 to 1000000, not "
                f"{self.leaderboard_min_experience}",
            ),
            (
                "projection_linger",
                0 <= self.projection_linger <= 1,
                f"the projection linger is 0 to 1 s, not {self.projection_linger:g}",
            ),
            (
                "bot_pace",
                0 <= self.bot_pace <= 30,
                f"a bot's pace is 0 to 30 seconds, not {self.bot_pace:g}",
            ),
            (
                "bot_workers",
                1 <= self.bot_workers <= 64,
                f"the bot workers are 1 to 64, not {self.bot_workers}",
            ),
            (
                "analysis_workers",
                1 <= self.analysis_workers <= 64,
                f"the analysis workers are 1 to 64, not {self.analysis_workers}",
            ),
            (
                "gnubg_ply",
                0 <= self.gnubg_ply <= 3,
                f"GNU Backgammon's ply is 0 to 3, not {self.gnubg_ply}",
            ),
        )
        for name, ok, reason in checks:
            if not ok:
                raise ConfigError(_variable(name), reason, field=name)

    @classmethod
    def from_env(cls, **overrides: object) -> Config:
        """Defaults, overridden by ``CHOUETTE_*``/``DATABASE_URL`` variables, then by
        ``overrides`` whose value is not None (the command-line flags).

        :raises ConfigError: a setting that does not parse or is out of range, named as it was
            given (the variable, or the flag ``--name`` for an override).
        """
        env = os.environ
        values: dict[str, object] = {}
        for key, variable, conv in ENVIRONMENT:
            raw = env.get(variable)
            if raw:
                values[key] = _converted(variable, conv, raw)
            elif key == "data_dir" and env.get(PGDATA):
                # The name the embedded-database helper (and the tests) read.
                values["data_dir"] = Path(env[PGDATA])
        flags = {k for k, v in overrides.items() if v is not None}
        values.update({k: v for k, v in overrides.items() if v is not None})
        values.pop("dice_factory", None)
        values.pop("clock", None)
        values.pop("bot_decide", None)
        values.pop("decider", None)
        try:
            return cls(**values)  # type: ignore[arg-type]
        except ConfigError as exc:
            if exc.field not in flags:
                raise
            flag = "--" + exc.field.replace("_", "-")
            raise ConfigError(flag, exc.reason, field=exc.field) from None


def _converted(setting: str, convert: Callable[[str], object], raw: str) -> object:
    """``convert(raw)``, or a :class:`ConfigError` naming ``setting`` with the reason."""
    try:
        return convert(raw)
    except ValueError as exc:
        raise ConfigError(setting, " ".join(str(exc).split())) from None


def parse_clock(text: str) -> ClockOptions | Literal["off"]:
    """``off``, or ``DELAY+RESERVE[+PER_POINT]`` in seconds.

    >>> parse_clock("12+120+20")
    ClockOptions(delay=12, reserve=120, reserve_per_point=20, reserve_per_game=None)
    >>> parse_clock("off")
    'off'
    """
    if text.strip().lower() == "off":
        return "off"
    parts = text.split("+")
    if not 2 <= len(parts) <= 3 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"a clock is off or DELAY+RESERVE[+PER_POINT] in seconds, not {text!r}")
    values = [int(p) for p in parts]
    try:
        return msgspec.convert(
            dict(zip(("delay", "reserve", "reserve_per_point"), values, strict=False)),
            ClockOptions,
        )
    except msgspec.ValidationError as exc:
        # "Expected `int` <= 600 - at `$.delay`": which part, and its limit.
        raise ValueError(f"the clock {text!r} is out of range: {exc}") from None


def default_clock(kind: str) -> ClockOptions:
    """The clock of a table of ``kind`` when neither the request nor the server says: 12 s a
    decision and 2 minutes in reserve (docs/rules.md §10), plus 20 s a point in a match."""
    return ClockOptions(reserve_per_point=20 if kind == "match" else 0)


RATES = (
    "rate_guests",
    "rate_accounts",
    "rate_logins_address",
    "rate_logins_username",
    "rate_tables",
    "rate_commands",
    "rate_chat",
    "rate_sockets_account",
    "rate_sockets_address",
    "rate_audits",
    "rate_analyses",
    "rate_heads",
    "rate_social",
    "rate_invitations",
    "rate_history",
)
"""The token-bucket limits, each set by ``CHOUETTE_<NAME>`` as ``COUNT/DURATION`` or ``off``."""

CAPS = ("rate_open_tables", "rate_max_sockets_account", "rate_max_sockets_address")
"""The caps, each set by ``CHOUETTE_<NAME>`` as a number or ``off``."""


def _cap(text: str) -> int | None:
    if text.strip().lower() in ("off", "none"):
        return None
    value = _integer(text)
    if value < 1:
        raise ValueError(f"a cap is a positive number or off, not {text!r}")
    return value


def _environment() -> tuple[tuple[str, str, Callable[[str], object]], ...]:
    fields: tuple[tuple[str, Callable[[str], object]], ...] = (
        ("host", str),
        ("port", _integer),
        ("data_dir", Path),
        ("partitions", _integer),
        ("max_body", _integer),
        ("pool_size", _integer),
        ("log_level", str),
        ("auditor_token", str),
        ("token_ttl", parse_duration),
        ("guest_token_ttl", parse_duration),
        ("ticket_ttl", parse_duration),
        ("session_check", parse_duration),
        ("hash_workers", _integer),
        ("behind_proxy", _flag),
        ("allow_superuser", _flag),
        ("ws_compress", _flag),
        ("rate_limits", _flag),
        *((name, Rate.parse) for name in RATES),
        *((name, _cap) for name in CAPS),
        ("open_table_idle", parse_duration),
        ("table_cache", _integer),
        ("plays_cache", _integer),
        ("projection_linger", parse_duration),
        ("gc_freeze_every", parse_duration),
        ("gc_thaw_every", parse_duration),
        ("seed_window", _integer),
        ("table_clock", parse_clock),
        ("leaderboard_min_experience", _integer),
        ("bot_workers", _integer),
        ("bot_timeout", parse_duration),
        ("bot_pace", _number),
        ("gnubg_ply", _integer),
        ("analysis_workers", _integer),
        ("analysis_timeout", parse_duration),
    )
    return (
        ("database_url", "DATABASE_URL", str),
        ("owner_database_url", "CHOUETTE_OWNER_DATABASE_URL", str),
        *((name, _variable(name), conv) for name, conv in fields),
        ("log_json", "CHOUETTE_LOG_JSON", _flag),
        ("seed_key", "CHOUETTE_SEED_KEY", decode_seed_key),
        ("signing_key", "CHOUETTE_SIGNING_KEY", decode_signing_key),
    )


ENVIRONMENT = _environment()
"""Every :class:`Config` field the environment sets: (field, variable, how its text is read),
in the order :meth:`Config.from_env` reads them (an empty variable is unset). The fields not
listed (the test seams, the stream tuning) are set by code only. docs/config.md is generated
from these, the fields' defaults and docstrings, and ``serve``'s flags
(``python -m server.cli.config_doc``)."""

PGDATA = "CHOUETTE_PGDATA"
"""Another name for `CHOUETTE_DATA_DIR`, read when that is unset (the embedded-database helper
and the tests use it)."""


SEED_KEY_FILE = "chouette-seed.key"
"""The seed key's file in the data directory, when ``CHOUETTE_SEED_KEY`` is not set."""

SIGNING_KEY_FILE = "chouette-signing.key"
"""The heads' signing key's file, beside the seed key's, when ``CHOUETTE_SIGNING_KEY`` is not
set."""


def _key_dir(config: Config) -> Path:
    if config.database_url is None:
        return config.data_dir
    return config.data_dir.with_name(config.data_dir.name + "-keys")


def seed_key_path(config: Config) -> Path:
    """Where the seed key is kept when it is not configured: in the embedded database's data
    directory; with ``DATABASE_URL``, beside that directory (``.pgdata-keys/``), so that the
    directory stays empty for an embedded database started later (PostgreSQL initialises only
    an empty directory)."""
    return _key_dir(config) / SEED_KEY_FILE


def signing_key_path(config: Config) -> Path:
    """Where the signing key is kept when it is not configured: beside the seed key."""
    return _key_dir(config) / SIGNING_KEY_FILE


def load_seed_key(config: Config) -> bytes:
    """The key that seals the dice seeds: ``CHOUETTE_SEED_KEY`` if set, else the key file in
    the data directory, generated there (mode 0600) the first time. Blocking (file I/O).

    The embedded database's data directory is the natural home of its key: a copy of the
    database alone then does not open the seeds, a copy of the directory does (back it up
    with the database). With ``DATABASE_URL`` the database is elsewhere, so the key should be
    configured; until it is, a key file beside the data directory is used, and the log says
    so.

    :raises ValueError: the key file does not hold a key.
    """
    if config.seed_key is not None:
        return config.seed_key
    path = seed_key_path(config)
    try:
        key, created = _read_key(path, _SEED), False
    except FileNotFoundError:
        key, created = _create_key(path, _SEED)
    where = str(path.resolve())
    if config.database_url is None:
        log.info("dice seed key %s %s", "generated in" if created else "read from", where)
    else:
        log.warning(
            "CHOUETTE_SEED_KEY is not set: the dice seeds are sealed with the key %s %s;"
            " keep it with the database's backups, or set CHOUETTE_SEED_KEY to its content",
            "generated in" if created else "read from",
            where,
        )
    return key


def load_signing_key(config: Config, *, create: bool = True) -> bytes | None:
    """The Ed25519 key that signs the published chain heads: ``CHOUETTE_SIGNING_KEY`` if set,
    else its key file beside the seed key's, generated there (mode 0600) the first time when
    ``create`` (else None when there is none). Blocking (file I/O).

    Kept outside the database for the same reason as the seed key: whoever can rewrite the
    database must not be able to sign heads that agree with the rewrite.

    :raises ValueError: the key file does not hold a key.
    """
    if config.signing_key is not None:
        return config.signing_key
    path = signing_key_path(config)
    try:
        key, created = _read_key(path, _SIGNING), False
    except FileNotFoundError:
        if not create:
            return None
        key, created = _create_key(path, _SIGNING)
    log.info(
        "chain heads signing key %s %s",
        "generated in" if created else "read from",
        path.resolve(),
    )
    return key


@dataclass(frozen=True, slots=True)
class _KeyKind:
    what: str
    decode: Callable[[str], bytes]
    encode: Callable[[bytes], str]
    new: Callable[[], bytes]


_SEED = _KeyKind("dice seed key", decode_seed_key, encode_seed_key, new_seed_key)
_SIGNING = _KeyKind("signing key", decode_signing_key, encode_key, new_signing_key)


def existing_seed_key(config: Config) -> bytes | None:
    """The seed key if it is configured or its key file exists (:func:`load_seed_key`), else
    None: never generated, nothing logged (the command-line tools, which open what a person
    typed with the server's key when there is one: docs/privacy.md). Blocking (file I/O)."""
    if config.seed_key is not None:
        return config.seed_key
    try:
        return _read_key(seed_key_path(config), _SEED)
    except FileNotFoundError:
        return None


def _read_key(path: Path, kind: _KeyKind) -> bytes:
    text = path.read_text(encoding="ascii", errors="replace")
    if path.stat().st_mode & 0o077:
        log.warning("the %s file %s is readable by others: chmod 600 it", kind.what, path)
    try:
        return kind.decode(text)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def _create_key(path: Path, kind: _KeyKind) -> tuple[bytes, bool]:
    """A new key written to ``path`` (0600), or the one another process wrote there first:
    the key is written to a private temporary file, then linked into place, which fails if
    the file exists, so nobody ever reads a half-written key."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    key = kind.new()
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(kind.encode(key) + "\n")
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(temporary, path)
        except FileExistsError:
            return _read_key(path, kind), False
        return key, True
    finally:
        temporary.unlink(missing_ok=True)
