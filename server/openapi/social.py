"""The social routes' bodies' types, for the OpenAPI document's schemas (the operations are the
route table's: :mod:`server.http.routes`). The answers are built as plain dicts by
server/http/social.py and server/http/privacy.py; these types say their shape (a test checks
real answers against them)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from server.http.privacy import RedeemRequest

__all__ = ["BODIES"]


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
    """A bot: one of the server's own, or a bot account (``outside_bot``)."""
    outside_bot: bool
    """Marked a bot account by its owner (``POST /me/bot``; docs/bots.md, "Outside bots"),
    played by a program of theirs."""
    stats: dict[str, KindStats]
    """By table kind: money, match, chouette."""
    recent_tables: list[RecentTable]
    rating: Rating | None
    """Registered players' rating (1500 before their first rated match); null for guests and
    the server's own bots, who are not rated. A bot account is rated only at tables that rate
    bots (``bots_rated``)."""
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
