"""The social routes: profiles, ratings, leaderboards, invitations and the caller's tables.
Part of the one route table (:mod:`server.http.routes`)."""

from __future__ import annotations

from server.http import nights, privacy, social
from server.http.nights import Night
from server.http.privacy import RedeemRequest
from server.http.routes.route import Route
from server.openapi.operation import (
    BAD_BODY,
    BAD_TOKEN,
    BEARER,
    DAY,
    NO_TOKEN,
    OPTIONAL_BEARER,
    PAGE_PARAMS,
    PRIVATE_NO_TABLE,
    SOCIAL_CREATOR,
    SOCIAL_TABLE,
    SOCIAL_UNAVAILABLE,
    answer,
    json_body,
    op,
    param,
    problem,
    too_many,
)
from server.openapi.social import (
    ChouetteLeaderboard,
    Invitation,
    Invitations,
    MyTables,
    Profile,
    RatingLeaderboard,
    Redeemed,
    TableRatings,
)

__all__ = ["ROUTES"]

ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/players/{name}",
        social.player,
        op(
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
                200: answer("The profile", Profile),
                400: problem(
                    "The name is not a username, or `recent` out of range (`bad-request`)"
                ),
                401: problem(BAD_TOKEN),
                404: problem("No player has this username (`not-found`)"),
                429: too_many(),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            parameters=[
                param(
                    "name",
                    "path",
                    {"type": "string", "pattern": "^[A-Za-z0-9_.-]{3,34}$"},
                    "The player's username, or account id (as the events name players).",
                ),
                param(
                    "recent",
                    "query",
                    {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
                    "How many recent tables and rated matches.",
                ),
            ],
            security=OPTIONAL_BEARER,
        ),
    ),
    Route(
        "GET",
        "/tables/{table_id}/ratings",
        social.table_ratings,
        op(
            "Social",
            "A match's rating change",
            "For a rated match that is over, both players' ratings before and after it;"
            " `changes` is empty before the end and for unrated tables.",
            {
                200: answer("The changes", TableRatings),
                401: problem(BAD_TOKEN),
                404: problem(PRIVATE_NO_TABLE),
                429: too_many(),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            parameters=[SOCIAL_TABLE],
            security=OPTIONAL_BEARER,
        ),
    ),
    Route(
        "GET",
        "/leaderboards/rating",
        social.rating_leaderboard,
        op(
            "Social",
            "The rating leaderboard",
            "Registered players by rating, best first, with at least the server's minimum"
            " experience (`CHOUETTE_LEADERBOARD_MIN_EXPERIENCE`); `min_experience` may ask"
            " for more, never less.",
            {
                200: answer("The leaderboard", RatingLeaderboard),
                400: problem("A parameter out of range (`bad-request`)"),
                429: too_many(),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            parameters=[
                param(
                    "min_experience",
                    "query",
                    {"type": "integer", "minimum": 0, "maximum": 1000000},
                    "Points of rated matches a player needs.",
                ),
                *PAGE_PARAMS,
            ],
        ),
    ),
    Route(
        "GET",
        "/leaderboards/chouette",
        social.chouette_leaderboard,
        op(
            "Social",
            "The chouette leaderboard",
            "Chouette winnings (points) over a period of UTC days, inclusive, best first;"
            " by default the last 30 days. A period is at most 3660 days, from 1970-01-01.",
            {
                200: answer("The leaderboard", ChouetteLeaderboard),
                400: problem(
                    "A date that is not YYYY-MM-DD or is before 1970-01-01, `since` after `until`, a period too long, or a parameter out of range (`bad-request`)"
                ),
                429: too_many(),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            parameters=[
                param(
                    "since",
                    "query",
                    DAY,
                    "The first day, from 1970-01-01 (default: 29 days before `until`, or"
                    " 1970-01-01 if that is later).",
                ),
                param("until", "query", DAY, "The last day, from 1970-01-01 (default: today)."),
                *PAGE_PARAMS,
            ],
        ),
    ),
    Route(
        "POST",
        "/tables/{table_id}/invitations",
        privacy.create_invitation,
        op(
            "Social",
            "Invite to a private table",
            f"A new invitation code, shown this once (the server keeps its hash). {SOCIAL_CREATOR}"
            " Limited per address (`CHOUETTE_RATE_INVITATIONS`).",
            {
                201: answer("The invitation", Invitation),
                401: problem(NO_TOKEN),
                403: problem("The caller did not create the table (`forbidden`)"),
                404: problem(PRIVATE_NO_TABLE),
                409: problem("The table is not private (`not-private`)"),
                429: too_many(),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            parameters=[SOCIAL_TABLE],
            security=BEARER,
        ),
    ),
    Route(
        "GET",
        "/tables/{table_id}/invitations",
        privacy.list_invitations,
        op(
            "Social",
            "A private table's invitations",
            f"Each invitation (never its code), revoked or not, and how many redeemed it. {SOCIAL_CREATOR}",
            {
                200: answer("The invitations", Invitations),
                401: problem(NO_TOKEN),
                403: problem("The caller did not create the table (`forbidden`)"),
                404: problem(PRIVATE_NO_TABLE),
                409: problem("The table is not private (`not-private`)"),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            parameters=[SOCIAL_TABLE],
            security=BEARER,
        ),
    ),
    Route(
        "DELETE",
        "/tables/{table_id}/invitations/{invitation_id}",
        privacy.revoke_invitation,
        op(
            "Social",
            "Revoke an invitation",
            "The code stops working at once, and so does the access it gave to those who"
            " have not joined the table (unless another live invitation they redeemed gives"
            " it): their open WebSocket and SSE connections close within the session-check"
            f" interval. {SOCIAL_CREATOR}",
            {
                204: answer("Revoked"),
                401: problem(NO_TOKEN),
                403: problem("The caller did not create the table (`forbidden`)"),
                404: problem(f"{PRIVATE_NO_TABLE}, or no such invitation"),
                409: problem("The table is not private (`not-private`)"),
                429: too_many(),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            parameters=[
                SOCIAL_TABLE,
                param(
                    "invitation_id",
                    "path",
                    {"type": "string", "pattern": "^[0-9a-f]{32}$"},
                    "The invitation's id (from its creation or the list).",
                ),
            ],
            security=BEARER,
        ),
    ),
    Route(
        "POST",
        "/invitations",
        privacy.redeem_invitation,
        op(
            "Social",
            "Redeem an invitation",
            "The caller's account may then see, watch and join the private table, while"
            " the invitation is not revoked. Limited per address.",
            {
                200: answer("The table", Redeemed),
                400: problem(BAD_BODY),
                401: problem(NO_TOKEN),
                404: problem("The code is unknown or revoked (`not-found`)"),
                413: problem("The body is larger than the server's limit (`too-large`)"),
                429: too_many(),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            body=json_body(RedeemRequest),
            security=BEARER,
        ),
    ),
    Route(
        "GET",
        "/me/tables",
        privacy.my_tables,
        op(
            "Social",
            "My private tables",
            "The private tables the caller created, was invited to or played at, newest"
            " first; `name` keeps those whose name contains each of its words, in any order"
            " and however spaced (case aside): how a club"
            " finds its standing chouette.",
            {
                200: answer("The tables", MyTables),
                400: problem("`name` too long or with control characters (`bad-request`)"),
                401: problem(NO_TOKEN),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            parameters=[
                param(
                    "name",
                    "query",
                    {"type": "string", "maxLength": 100},
                    "Part of the table's name.",
                ),
            ],
            security=BEARER,
        ),
    ),
    Route(
        "GET",
        "/nights",
        nights.night,
        op(
            "Social",
            "A chouette night's ledger and settlement",
            "A club's evening over one or more chouettes (or money tables): every game that"
            " ended at the `tables` between `since` and `until` (the server's time of each"
            " game's end), summed into one ledger — who is up, who is down — and settled in the"
            " fewest payments (exactly, up to 18 players with a balance after the obvious pairs;"
            " `fewest` says so). Read from the log, nothing stored: the same log gives the same"
            " night. Each table must be one the caller may see (a private one answers as an"
            " unknown table does). At most 20 tables and 48 hours."
            " Limited per address (`CHOUETTE_RATE_SOCIAL`).",
            {
                200: answer("The night", Night),
                400: problem(
                    "`tables` missing, empty or over 20; `since` missing; a time that is not"
                    " ISO 8601 with its zone; `since` not before `until`; over 48 hours"
                    " (`bad-request`)"
                ),
                401: problem(NO_TOKEN),
                404: problem(PRIVATE_NO_TABLE),
                409: problem("A match table among them (`match-table`)"),
                429: too_many(),
                503: problem(SOCIAL_UNAVAILABLE),
            },
            parameters=[
                param(
                    "tables",
                    "query",
                    {"type": "string", "maxLength": 800},
                    "The tables' ids, separated by commas (1 to 20).",
                    required=True,
                ),
                param(
                    "since",
                    "query",
                    {"type": "string", "format": "date-time"},
                    "The night's start: ISO 8601 with its zone (`2026-12-03T19:00:00Z`).",
                    required=True,
                ),
                param(
                    "until",
                    "query",
                    {"type": "string", "format": "date-time"},
                    "The night's end (by default now); at most 48 hours after `since`.",
                ),
            ],
            security=BEARER,
        ),
    ),
)
