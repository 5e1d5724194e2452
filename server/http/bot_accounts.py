"""Bot accounts (docs/bots.md, "Outside bots"): ``POST /me/bot`` marks the caller's registered
account a bot account, for good, so that a program of its owner's plays it through the public
API (``chouette bot run``) and every table says so.

As lichess's "upgrade to bot account": only an account that has played no rated match, and
sits at no unfinished table, may be marked; the password is asked, as for erasing; and nothing
unmarks it (the database refuses to: sql/024_outside_bots.sql). From then on each of its joins
records ``player_joined.bot`` (:func:`server.http.handlers.run_command`), which the table view,
the lobby and the ratings read from the log; the account is an ordinary one for everything
else (limits, clocks, what its seat may see).
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from aiohttp import web
from msgspec import Meta

from events.domain.types import Name
from server.access import auth, ratelimit
from server.http.common import current_account, decode_body, json_response
from server.http.problems import unauthorized
from server.http.social import READ_MODELS
from server.keys import LOBBY
from server.views.schemas import Me

__all__ = ["MarkBot", "mark_bot", "me_of"]


class MarkBot(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """``POST /me/bot``: the account's password, to say its owner asks."""

    password: Annotated[
        Name, Meta(min_length=1, max_length=256, description="The account's password.")
    ]


def me_of(account: auth.Account) -> Me:
    """``GET /me``'s answer for ``account``."""
    return Me(
        account_id=account.account_id,
        username=account.username,
        display_name=account.display_name,
        guest=account.guest,
        bot=account.outside_bot,
    )


async def mark_bot(request: web.Request) -> web.Response:
    """``POST /me/bot``: mark the caller a bot account (see the module's docstring). Checked in
    this order, nothing written on any refusal: the token, the body, the rate limit of logging
    in (a password is tried), a guest (403), the password (401), then the account's rated
    matches and tables (409), as the log says them once the read models have caught up."""
    account = await current_account(request)
    assert account is not None
    body = await decode_body(request, MarkBot)
    limits = request.app[ratelimit.LIMITS]
    limits.hit("logins_address", limits.address(request))
    limits.hit("logins_username", account.username.lower())
    accounts = request.app[auth.ACCOUNTS]
    if account.guest:
        raise auth.not_registered()
    if not await accounts.check_password(account, body.password):
        raise unauthorized("wrong password")
    # What the log says so far: the account's last rated match, its last seat.
    await request.app[LOBBY].catch_up()
    await request.app[READ_MODELS].catch_up()
    marked = await accounts.mark_bot(account)
    return json_response(me_of(marked))
