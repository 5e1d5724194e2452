"""The social routes (issue 15; docs/social.md): profiles, rating changes, leaderboards and
invitations, and the read models behind them, followed live in the server's process.

- ``GET /players/{name}``: a player's profile by username;
- ``GET /tables/{id}/ratings``: a rated match's change for both players, once it is over;
- ``GET /leaderboards/rating`` and ``GET /leaderboards/chouette``;
- ``POST/GET /tables/{id}/invitations``, ``DELETE /tables/{id}/invitations/{invitation_id}``,
  ``POST /invitations`` and ``GET /me/tables`` (server/http/privacy.py).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import AsyncIterator
from functools import partial
from typing import Any

from aiohttp import web

from server.access import ratelimit
from server.http.common import current_account, json_response, query_int, table_id_of
from server.http.problems import bad_request, not_found
from server.keys import ACCOUNTS_POOL, CONFIG, LIVE_FEED, METRICS, TABLES
from server.readmodels import accounts
from server.readmodels.profiles import ProfilesProjector, chouette_winnings, player_profile
from server.readmodels.ratings import (
    RatingsProjector,
    match_ratings,
    player_rating,
    rating_history,
    top_ratings,
)
from server.readmodels.rebuild import ReadModels
from server.readmodels.tournaments import TournamentsProjector

__all__ = ["READ_MODELS", "read_models"]

READ_MODELS = web.AppKey("read_models", ReadModels)
"""The social read models' live projectors (set up with the database)."""

_USERNAME = re.compile(r"[A-Za-z0-9_.-]{3,32}")
_ACCOUNT_ID = re.compile(r"[ugb]_[0-9a-f]{8,32}")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_MAX_DAYS = 3660
FIRST_DAY = dt.date(1970, 1, 1)
"""The first day a leaderboard counts (the Unix epoch: no event of this server is older). A day
before it is a 400, and the default ``since`` is never before it, so that counting 29 days back
from ``until`` never leaves the calendar (``0001-01-01`` minus a day is an OverflowError)."""


async def read_models(app: web.Application) -> AsyncIterator[None]:
    """Start the ratings', profiles' and tournaments' list's projectors once the database is
    set up."""
    on_skip = app[METRICS].event_skipped  # counted in /metrics, as the lobby's
    models = ReadModels(
        app[TABLES].store,
        app[LIVE_FEED],
        [
            partial(RatingsProjector, on_skip=on_skip),
            partial(ProfilesProjector, on_skip=on_skip),
            partial(TournamentsProjector, on_skip=on_skip),
        ],
        linger=app[CONFIG].projection_linger,
    )
    await models.start()
    app[READ_MODELS] = models
    try:
        yield
    finally:
        await models.stop()


def _limit(request: web.Request) -> None:
    limits = request.app[ratelimit.LIMITS]
    limits.hit("social", limits.address(request))


async def player(request: web.Request) -> web.Response:
    """``GET /players/{name}``: a player's profile by username (or account id), with
    ``?recent=`` tables, 1 to 100."""
    _limit(request)
    name = request.match_info["name"]
    if not (_USERNAME.fullmatch(name) or _ACCOUNT_ID.fullmatch(name)):
        shown = name if len(name) <= 40 else name[:40] + "..."
        raise bad_request(
            f"a username is 3 to 32 letters, digits, '_', '.' or '-', not {shown!r}", field="name"
        )
    recent = query_int(request, "recent", 20, minimum=1, maximum=100)
    viewer = await current_account(request, required=False)
    row = await accounts.player(request.app[ACCOUNTS_POOL], name)
    if row is None:
        raise not_found(f"no player {name!r}")
    store = request.app[TABLES].store
    account_id = row.account_id
    own = viewer is not None and viewer.account_id == account_id
    body: dict[str, Any] = {
        "account_id": account_id,
        "username": row.username,
        "display_name": row.display_name,
        "joined": row.created_at,
        "guest": row.guest,
        "bot": row.bot or row.outside_bot,
        "outside_bot": row.outside_bot,
    }
    body.update(await player_profile(store, account_id, show_private=own, recent=recent))
    # The server's own bots are never rated; a bot account is, where a table says so.
    rated = not (row.guest or row.bot)
    # A private table is the player's own business: to anyone else, its rated matches are
    # neither counted nor listed.
    body["rating"] = await player_rating(store, account_id, show_private=own) if rated else None
    body["rating_history"] = (
        await rating_history(store, account_id, recent, show_private=own) if rated else []
    )
    return json_response(body)


async def table_ratings(request: web.Request) -> web.Response:
    """``GET /tables/{id}/ratings``: a rated match's rating change for both players (none
    before the match is over, or for a table that is not rated)."""
    _limit(request)
    await current_account(request, required=False)  # a token, if sent, must be good
    table_id = table_id_of(request)
    tables = request.app[TABLES]
    state = tables.cached(table_id) or await tables.state(table_id)
    changes = await match_ratings(tables.store, table_id)
    return json_response({"table_id": table_id, "rated": state.options.rated, "changes": changes})


async def rating_leaderboard(request: web.Request) -> web.Response:
    """``GET /leaderboards/rating``: registered players by rating, with at least the configured
    experience (``?min_experience=`` may ask for more); ``limit`` 1-100, ``offset``."""
    _limit(request)
    floor = request.app[CONFIG].leaderboard_min_experience
    minimum = query_int(request, "min_experience", floor, minimum=0, maximum=1_000_000)
    minimum = max(minimum, floor)
    limit = query_int(request, "limit", 50, minimum=1, maximum=100)
    offset = query_int(request, "offset", 0, minimum=0, maximum=100_000)
    rows = await top_ratings(request.app[TABLES].store, minimum, limit, offset)
    return json_response(
        {
            "min_experience": minimum,
            "players": [
                {
                    "rank": offset + i + 1,
                    "username": r["username"],
                    "display_name": r["display_name"],
                    "rating": r["rating"],
                    "experience": r["experience"],
                    "matches": r["matches"],
                    "won": r["won"],
                }
                for i, r in enumerate(rows)
            ],
        }
    )


def _date(request: web.Request, name: str, default: dt.date) -> dt.date:
    raw = request.query.get(name)
    if raw is None:
        return default
    shown = raw if len(raw) <= 40 else raw[:40] + "..."
    if not _DATE.fullmatch(raw):
        raise bad_request(f"{name} must be a date as YYYY-MM-DD, not {shown!r}", field=name)
    try:
        day = dt.date.fromisoformat(raw)
    except ValueError:
        raise bad_request(f"{name} is not a day of the calendar: {shown!r}", field=name) from None
    if day < FIRST_DAY:
        raise bad_request(
            f"{name} must be a day from {FIRST_DAY} to {dt.date.max}, not {raw}", field=name
        )
    return day


async def chouette_leaderboard(request: web.Request) -> web.Response:
    """``GET /leaderboards/chouette?since=YYYY-MM-DD&until=YYYY-MM-DD``: chouette winnings
    (points) over those UTC days, inclusive (default: the last 30 days), each from
    :data:`FIRST_DAY`; ``limit``, ``offset``."""
    _limit(request)
    today = dt.datetime.now(dt.UTC).date()
    until = _date(request, "until", today)
    since = _date(request, "since", max(FIRST_DAY, until - dt.timedelta(days=29)))
    if since > until:
        raise bad_request("since must be on or before until", field="since")
    if (until - since).days >= _MAX_DAYS:
        raise bad_request(f"a period is at most {_MAX_DAYS} days", field="since")
    limit = query_int(request, "limit", 50, minimum=1, maximum=100)
    offset = query_int(request, "offset", 0, minimum=0, maximum=100_000)
    rows = await chouette_winnings(request.app[TABLES].store, since, until, limit, offset)
    return json_response(
        {
            "since": since.isoformat(),
            "until": until.isoformat(),
            "players": [
                {
                    "rank": offset + i + 1,
                    "username": r["username"],
                    "display_name": r["display_name"],
                    "amount": r["amount"],
                    "games": r["games"],
                }
                for i, r in enumerate(rows)
            ],
        }
    )
