"""A chouette night (docs/tournaments.md, "A chouette night"): a club's evening over one or more
of its chouettes (a standing chouette, or several tables played at once), its one session
ledger — who is up and who is down over every game that ended in the window — and the
settlement in the fewest payments (:func:`engine.tournament.settle`).

Nothing is stored for a night: it is read from the log, each table's ``game_ended`` events in
the window (their ``at``, the time the server decided them), so anyone who may see the tables
gets the same answer from the same log, and a replay or the audit of each table vouches for
every point in it. The players are named as their tables name them (an erased player by the
pseudonym).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from typing import Final

import msgspec
from aiohttp import web

from engine.tournament import night_balances, settle
from events.domain import types as e
from events.domain.table import TableNotFoundError
from events.store.streams import decode_recorded, table_stream
from server.access import ratelimit
from server.http.common import current_account, json_response
from server.http.privacy import may_see, no_table
from server.http.problems import Problem, bad_request
from server.keys import TABLES

__all__ = [
    "MAX_NIGHT_HOURS",
    "MAX_NIGHT_TABLES",
    "Night",
    "NightLine",
    "NightPayment",
    "NightTable",
    "night",
]

MAX_NIGHT_TABLES: Final = 20
"""The most tables one night spans."""
MAX_NIGHT_HOURS: Final = 48
"""The longest window a night covers."""
_PAGE: Final = 500
"""Games read at a time, from a table's last back to the window's start."""


class NightTable(msgspec.Struct, kw_only=True):
    table_id: str
    kind: str
    name: str
    games: int
    """The games that ended there in the window."""
    page: str


class NightLine(msgspec.Struct, kw_only=True):
    player: str
    name: str
    amount: int
    """Points won (positive) or lost over the night, every table's games summed."""
    games: int
    """The games of the night the player had a part in."""


class NightPayment(msgspec.Struct, kw_only=True):
    payer: str
    payer_name: str
    payee: str
    payee_name: str
    amount: int


class Night(msgspec.Struct, kw_only=True):
    """A night's ledger and how it settles (``GET /nights``)."""

    since: str
    until: str
    tables: list[NightTable]
    ledger: list[NightLine]
    """Every player with a game in the window, biggest winner first (then by id)."""
    payments: list[NightPayment]
    """Who pays whom to settle the ledger, by payer then payee."""
    fewest: bool
    """The payments are the fewest possible (false only beyond 18 players with a balance
    after the obvious pairs, when they are found greedily)."""


def _instant(request: web.Request, name: str, default: dt.datetime | None) -> dt.datetime:
    raw = request.query.get(name)
    if raw is None:
        if default is None:
            raise bad_request(f"{name} is required: an ISO 8601 time with its zone", field=name)
        return default
    if len(raw) > 40 or not raw.isprintable():
        raise bad_request(f"{name} is an ISO 8601 time with its zone", field=name)
    try:
        at = dt.datetime.fromisoformat(raw)
    except ValueError:
        raise bad_request(
            f"{name} is an ISO 8601 time with its zone, like 2026-12-03T19:00:00Z", field=name
        ) from None
    if at.tzinfo is None:
        raise bad_request(f"{name} needs its zone (Z, or an offset like +01:00)", field=name)
    return at.astimezone(dt.UTC)


def _table_ids(request: web.Request) -> list[str]:
    raw = request.query.get("tables", "")
    parts = [p for p in raw.split(",") if p] if len(raw) <= 40 * MAX_NIGHT_TABLES else None
    if not parts or len(parts) > MAX_NIGHT_TABLES:
        raise bad_request(
            f"tables lists 1 to {MAX_NIGHT_TABLES} table ids, separated by commas", field="tables"
        )
    ids: list[str] = []
    for part in parts:
        try:
            canonical = str(uuid.UUID(part))
        except ValueError:
            raise no_table(part[:40]) from None  # (quoted as repr: no control character)
        if canonical not in ids:
            ids.append(canonical)
    return ids


async def _games(app: web.Application, table_id: str, since: int, until: int) -> list[e.GameEnded]:
    """The games that ended at the table in ``[since, until)`` (milliseconds), oldest first,
    read back from the table's end a page at a time."""
    store = app[TABLES].store
    stream = table_stream(table_id)
    before = await store.stream_version(stream) + 1
    found: list[e.GameEnded] = []
    while True:
        page = await store.read_types_before(stream, before, ["game_ended"], _PAGE)
        for rec in page:
            ended = decode_recorded(rec, store.keys)
            assert isinstance(ended, e.GameEnded)
            if ended.at < since:
                return found[::-1]
            if ended.at < until:
                found.append(ended)
        if len(page) < _PAGE:
            return found[::-1]
        before = page[-1].version


async def night(request: web.Request) -> web.Response:
    """``GET /nights?tables=&since=&until=``: the night's ledger and settlement (the module's
    docstring). Every table must be one the caller may see, a private one answering as an
    unknown table does; match tables are refused (their games score the match, not points
    to settle)."""
    account = await current_account(request)
    assert account is not None
    limits = request.app[ratelimit.LIMITS]
    limits.hit("social", limits.address(request))
    table_ids = _table_ids(request)
    now = dt.datetime.now(dt.UTC)
    since = _instant(request, "since", None)
    until = _instant(request, "until", now)
    if not since < until:
        raise bad_request("since must come before until", field="since")
    if until - since > dt.timedelta(hours=MAX_NIGHT_HOURS):
        raise bad_request(f"a night covers at most {MAX_NIGHT_HOURS} hours", field="until")
    app = request.app
    tables = app[TABLES]
    states = []
    for table_id in table_ids:  # authorised before anything of the table is read
        if not await may_see(app, table_id, account.account_id):
            raise no_table(table_id)
        try:
            state = await tables.state(table_id)
        except TableNotFoundError:
            raise no_table(table_id) from None
        if state.kind == "match":
            raise Problem(
                409,
                "match-table",
                "A match is not a night's table",
                f"table {table_id!r} plays a match: its games score the match, not points"
                " to settle",
            )
        states.append(state)
    start, end = int(since.timestamp() * 1000), int(until.timestamp() * 1000)
    names: dict[str, str] = {}
    ledgers: list[dict[str, int]] = []
    games_of: dict[str, int] = {}
    shown: list[NightTable] = []
    for table_id, state in zip(table_ids, states, strict=True):
        names.update((p, n) for p, n in state.names if p not in names)
        games = await _games(app, table_id, start, end)
        for ended in games:
            ledger: dict[str, int] = {}
            for s in ended.settlements:
                ledger[s.player] = ledger.get(s.player, 0) + s.amount
            for player in ledger:
                games_of[player] = games_of.get(player, 0) + 1
            ledgers.append(ledger)
        shown.append(
            NightTable(
                table_id=table_id,
                kind=state.kind,
                name=state.name,
                games=len(games),
                page=f"/#/table/{table_id}",
            )
        )
    balances = night_balances(ledgers)
    # Up to 2^18 subsets for the fewest payments: off the event loop.
    plan = await asyncio.to_thread(settle, balances)

    def name(player: str) -> str:
        return names.get(player) or player

    out = Night(
        since=since.isoformat().replace("+00:00", "Z"),
        until=until.isoformat().replace("+00:00", "Z"),
        tables=shown,
        ledger=[
            NightLine(player=p, name=name(p), amount=v, games=games_of.get(p, 0))
            for p, v in sorted(balances.items(), key=lambda pv: (-pv[1], pv[0]))
        ],
        payments=[
            NightPayment(
                payer=p.payer,
                payer_name=name(p.payer),
                payee=p.payee,
                payee_name=name(p.payee),
                amount=p.amount,
            )
            for p in plan.payments
        ],
        fewest=plan.exact,
    )
    return json_response(out)
