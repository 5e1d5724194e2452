"""The social routes' part of the OpenAPI document (server/openapi/document.py adds it): the bodies'
types, for the schemas, and the operations. The answers are built as plain dicts by
server/http/social.py and server/http/privacy.py; these types say their shape (a test checks
real answers against them)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from server.http.privacy import RedeemRequest

__all__ = ["BODIES", "paths"]


class KindStats(msgspec.Struct, kw_only=True):
    games: int
    games_won: int
    matches: int
    matches_won: int
    gammons: int
    ledger: int
    """Points won (positive) or lost over all tables of the kind."""
    seconds_played: int


class RecentTable(msgspec.Struct, kw_only=True):
    table_id: str
    kind: str
    name: str
    private: bool
    first_at: int
    last_at: int
    games: int
    ledger: int
    replay: str
    """The replay's API path."""
    page: str
    """The replay's page in the web client."""
    rating_change: float | None
    """A rated match's change for this player; null otherwise."""


class RatingChange(msgspec.Struct, kw_only=True):
    table_id: str
    player: str
    opponent: str
    length: int
    won: bool
    rating_before: float
    rating_after: float
    change: float
    experience_before: int
    at: int


class Rating(msgspec.Struct, kw_only=True):
    rating: float
    experience: int
    matches: int
    won: int


class Profile(msgspec.Struct, kw_only=True):
    account_id: str
    username: str
    display_name: str
    joined: datetime
    guest: bool
    bot: bool
    stats: dict[str, KindStats]
    """By table kind: money, match, chouette."""
    recent_tables: list[RecentTable]
    rating: Rating | None
    """Registered players' rating (1500 before their first rated match); null for guests and
    bots, who are not rated."""
    rating_history: list[RatingChange]


class TableRatings(msgspec.Struct, kw_only=True):
    table_id: str
    rated: bool
    changes: list[RatingChange]


class RatedPlayer(msgspec.Struct, kw_only=True):
    rank: int
    username: str
    display_name: str
    rating: float
    experience: int
    matches: int
    won: int


class RatingLeaderboard(msgspec.Struct, kw_only=True):
    min_experience: int
    players: list[RatedPlayer]


class ChouettePlayer(msgspec.Struct, kw_only=True):
    rank: int
    username: str
    display_name: str
    amount: int
    games: int


class ChouetteLeaderboard(msgspec.Struct, kw_only=True):
    since: str
    until: str
    players: list[ChouettePlayer]


class Invitation(msgspec.Struct, kw_only=True):
    invitation_id: str
    table_id: str
    code: str
    """The code, shown this once: the server keeps only its hash."""
    link: str
    created_at: datetime


class InvitationInfo(msgspec.Struct, kw_only=True):
    invitation_id: str
    created_at: datetime
    revoked_at: datetime | None
    redeemed_by: int


class Invitations(msgspec.Struct, kw_only=True):
    invitations: list[InvitationInfo]


class Redeemed(msgspec.Struct, kw_only=True):
    table_id: str
    kind: str
    name: str
    page: str


class MyTable(msgspec.Struct, kw_only=True):
    table_id: str
    kind: str
    name: str
    mine: bool
    page: str


class MyTables(msgspec.Struct, kw_only=True):
    tables: list[MyTable]


BODIES: list[Any] = [
    Profile,
    TableRatings,
    RatingLeaderboard,
    ChouetteLeaderboard,
    Invitation,
    Invitations,
    RedeemRequest,
    Redeemed,
    MyTables,
]

_NO_TABLE = (
    "No table has this id, or it is private and the caller may not see it: the same answer"
    " (`not-found`)"
)
_DOWN = "The database is unavailable (`unavailable`, `store-error`); retry later"
_DAY = {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}


def paths(o: Any) -> dict[str, Any]:
    """The social operations, by path, built with server/openapi/document.py's helpers (``o``)."""
    creator = "Private tables' creator only."
    table = o._param("table_id", "path", {"type": "string", "format": "uuid"}, "The table id.")
    page = [
        o._param(
            "limit",
            "query",
            {"type": "integer", "minimum": 1, "maximum": 100, "default": 50},
            "Rows to answer.",
        ),
        o._param(
            "offset",
            "query",
            {"type": "integer", "minimum": 0, "maximum": 100000, "default": 0},
            "Rows to pass over first.",
        ),
    ]
    return {
        "/players/{name}": {
            "get": o._op(
                "Social",
                "A player's profile",
                "Display name, when they joined, statistics per table kind (games, matches"
                " played and won, gammons, the ledger, time played), their recent tables with"
                " links to the replays, their rating and its history. To anyone but the player,"
                " private tables are neither listed nor counted (statistics, and the rating's"
                " experience, matches and wins). Read models of the log: a moment behind the"
                " tables."
                " Limited per address (`CHOUETTE_RATE_SOCIAL`).",
                {
                    200: o._answer("The profile", "Profile"),
                    400: o._problem(
                        "The name is not a username, or `recent` out of range (`bad-request`)"
                    ),
                    401: o._problem(o.BAD_TOKEN),
                    404: o._problem("No player has this username (`not-found`)"),
                    429: o._too_many(),
                    503: o._problem(_DOWN),
                },
                parameters=[
                    o._param(
                        "name",
                        "path",
                        {"type": "string", "pattern": "^[A-Za-z0-9_.-]{3,34}$"},
                        "The player's username, or account id (as the events name players).",
                    ),
                    o._param(
                        "recent",
                        "query",
                        {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
                        "How many recent tables and rated matches.",
                    ),
                ],
                security=o.OPTIONAL_BEARER,
            )
        },
        "/tables/{table_id}/ratings": {
            "get": o._op(
                "Social",
                "A match's rating change",
                "For a rated match that is over, both players' ratings before and after it;"
                " `changes` is empty before the end and for unrated tables.",
                {
                    200: o._answer("The changes", "TableRatings"),
                    401: o._problem(o.BAD_TOKEN),
                    404: o._problem(_NO_TABLE),
                    429: o._too_many(),
                    503: o._problem(_DOWN),
                },
                parameters=[table],
                security=o.OPTIONAL_BEARER,
            )
        },
        "/leaderboards/rating": {
            "get": o._op(
                "Social",
                "The rating leaderboard",
                "Registered players by rating, best first, with at least the server's minimum"
                " experience (`CHOUETTE_LEADERBOARD_MIN_EXPERIENCE`); `min_experience` may ask"
                " for more, never less.",
                {
                    200: o._answer("The leaderboard", "RatingLeaderboard"),
                    400: o._problem("A parameter out of range (`bad-request`)"),
                    429: o._too_many(),
                    503: o._problem(_DOWN),
                },
                parameters=[
                    o._param(
                        "min_experience",
                        "query",
                        {"type": "integer", "minimum": 0, "maximum": 1000000},
                        "Points of rated matches a player needs.",
                    ),
                    *page,
                ],
            )
        },
        "/leaderboards/chouette": {
            "get": o._op(
                "Social",
                "The chouette leaderboard",
                "Chouette winnings (points) over a period of UTC days, inclusive, best first;"
                " by default the last 30 days. A period is at most 3660 days, from 1970-01-01.",
                {
                    200: o._answer("The leaderboard", "ChouetteLeaderboard"),
                    400: o._problem(
                        "A date that is not YYYY-MM-DD or is before 1970-01-01, `since` after `until`, a period too long, or a parameter out of range (`bad-request`)"
                    ),
                    429: o._too_many(),
                    503: o._problem(_DOWN),
                },
                parameters=[
                    o._param(
                        "since",
                        "query",
                        _DAY,
                        "The first day, from 1970-01-01 (default: 29 days before `until`, or"
                        " 1970-01-01 if that is later).",
                    ),
                    o._param(
                        "until", "query", _DAY, "The last day, from 1970-01-01 (default: today)."
                    ),
                    *page,
                ],
            )
        },
        "/tables/{table_id}/invitations": {
            "post": o._op(
                "Social",
                "Invite to a private table",
                f"A new invitation code, shown this once (the server keeps its hash). {creator}"
                " Limited per address (`CHOUETTE_RATE_INVITATIONS`).",
                {
                    201: o._answer("The invitation", "Invitation"),
                    401: o._problem(o.NO_TOKEN),
                    403: o._problem("The caller did not create the table (`forbidden`)"),
                    404: o._problem(_NO_TABLE),
                    409: o._problem("The table is not private (`not-private`)"),
                    429: o._too_many(),
                    503: o._problem(_DOWN),
                },
                parameters=[table],
                security=o.BEARER,
            ),
            "get": o._op(
                "Social",
                "A private table's invitations",
                f"Each invitation (never its code), revoked or not, and how many redeemed it. {creator}",
                {
                    200: o._answer("The invitations", "Invitations"),
                    401: o._problem(o.NO_TOKEN),
                    403: o._problem("The caller did not create the table (`forbidden`)"),
                    404: o._problem(_NO_TABLE),
                    409: o._problem("The table is not private (`not-private`)"),
                    503: o._problem(_DOWN),
                },
                parameters=[table],
                security=o.BEARER,
            ),
        },
        "/tables/{table_id}/invitations/{invitation_id}": {
            "delete": o._op(
                "Social",
                "Revoke an invitation",
                "The code stops working at once, and so does the access it gave to those who"
                " have not joined the table (unless another live invitation they redeemed gives"
                " it): their open WebSocket and SSE connections close within the session-check"
                f" interval. {creator}",
                {
                    204: o._answer("Revoked"),
                    401: o._problem(o.NO_TOKEN),
                    403: o._problem("The caller did not create the table (`forbidden`)"),
                    404: o._problem(f"{_NO_TABLE}, or no such invitation"),
                    409: o._problem("The table is not private (`not-private`)"),
                    429: o._too_many(),
                    503: o._problem(_DOWN),
                },
                parameters=[
                    table,
                    o._param(
                        "invitation_id",
                        "path",
                        {"type": "string", "pattern": "^[0-9a-f]{32}$"},
                        "The invitation's id (from its creation or the list).",
                    ),
                ],
                security=o.BEARER,
            )
        },
        "/invitations": {
            "post": o._op(
                "Social",
                "Redeem an invitation",
                "The caller's account may then see, watch and join the private table, while"
                " the invitation is not revoked. Limited per address.",
                {
                    200: o._answer("The table", "Redeemed"),
                    400: o._problem(o.BAD_BODY),
                    401: o._problem(o.NO_TOKEN),
                    404: o._problem("The code is unknown or revoked (`not-found`)"),
                    413: o._problem("The body is larger than the server's limit (`too-large`)"),
                    429: o._too_many(),
                    503: o._problem(_DOWN),
                },
                body=o._json_body("RedeemRequest"),
                security=o.BEARER,
            )
        },
        "/me/tables": {
            "get": o._op(
                "Social",
                "My private tables",
                "The private tables the caller created, was invited to or played at, newest"
                " first; `name` keeps those whose name contains each of its words, in any order"
                " and however spaced (case aside): how a club"
                " finds its standing chouette.",
                {
                    200: o._answer("The tables", "MyTables"),
                    400: o._problem("`name` too long or with control characters (`bad-request`)"),
                    401: o._problem(o.NO_TOKEN),
                    503: o._problem(_DOWN),
                },
                parameters=[
                    o._param(
                        "name",
                        "query",
                        {"type": "string", "maxLength": 100},
                        "Part of the table's name.",
                    ),
                ],
                security=o.BEARER,
            )
        },
    }
