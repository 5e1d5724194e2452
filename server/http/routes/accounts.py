"""The accounts' routes: registering, logging in and out, a guest's seat (and keeping a guest
as an account), stream tickets and ``GET /me``. Part of the one route table (:mod:`server.http.routes`)."""

from __future__ import annotations

from server.http import bot_accounts, erasure
from server.http import handlers as h
from server.http.common import (
    GuestRequest,
    KeepGuest,
    Login,
    Register,
    TicketResponse,
    TokenResponse,
)
from server.http.routes.route import Route
from server.openapi import examples as x
from server.openapi.operation import (
    BAD_BODY,
    BEARER,
    NO_TOKEN,
    TOO_LARGE,
    UNAVAILABLE,
    answer,
    json_body,
    op,
    param,
    problem,
    too_many,
)
from server.views.schemas import (
    Me,
)

__all__ = ["ROUTES"]

ROUTES: tuple[Route, ...] = (
    Route(
        "POST",
        "/accounts",
        h.register,
        op(
            "Accounts",
            "Register an account",
            "Creates an account with a password and answers with a first token.",
            {
                201: answer("The account and a token", TokenResponse),
                400: problem(BAD_BODY),
                409: problem("The username is taken (`username-taken`)"),
                413: problem(TOO_LARGE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            body=json_body(Register, x.ACCOUNT_EXAMPLES),
        ),
    ),
    Route(
        "POST",
        "/sessions",
        h.login,
        op(
            "Accounts",
            "Log in",
            "Checks a password and answers with a fresh token.",
            {
                200: answer("A fresh token", TokenResponse),
                400: problem(BAD_BODY),
                401: problem("Wrong username or password (`unauthorized`)"),
                413: problem(TOO_LARGE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            body=json_body(Login, x.LOGIN_EXAMPLES),
        ),
    ),
    Route(
        "DELETE",
        "/sessions",
        h.logout,
        op(
            "Accounts",
            "Log out",
            "Revokes the token the request carries; with `everywhere=true`, every token of"
            " the account (log out everywhere). A WebSocket or SSE connection made with a"
            " revoked token refuses its commands and closes within seconds.",
            {
                204: answer("Revoked"),
                400: problem("`everywhere` is not `true` or `false` (`bad-request`)"),
                401: problem(NO_TOKEN),
                503: problem(UNAVAILABLE),
            },
            parameters=[
                param(
                    "everywhere",
                    "query",
                    {"type": "boolean", "default": False},
                    "Revoke every token of the account, not only this one.",
                )
            ],
            security=BEARER,
        ),
    ),
    Route(
        "POST",
        "/tickets",
        h.ticket,
        op(
            "Accounts",
            "A ticket for a stream",
            "A browser's WebSocket and EventSource cannot send the `Authorization` header,"
            " and a token must never be in a URL: this answers with a ticket to pass as"
            " `?ticket=` to `GET /tables/{table_id}/ws` or `/events` instead. A ticket opens"
            " one connection, within `expires_in` seconds, as the account of the token that"
            " asked for it; the connection stops when that token is revoked or expires.",
            {
                201: answer("The ticket", TicketResponse),
                401: problem(NO_TOKEN),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            security=BEARER,
        ),
    ),
    Route(
        "POST",
        "/guests",
        h.guest,
        op(
            "Accounts",
            "Play as a guest",
            "Creates a guest account (no password) and answers with its token. The body is"
            " optional.",
            {
                201: answer("The guest account and a token", TokenResponse),
                400: problem(BAD_BODY),
                413: problem(TOO_LARGE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            body={"required": False, **json_body(GuestRequest, x.GUEST_EXAMPLES)},
        ),
    ),
    Route(
        "POST",
        "/me/account",
        h.keep_guest,
        op(
            "Accounts",
            "Keep a guest as an account",
            "Turns the calling guest into a registered account with this username and"
            " password, under the rules of `POST /accounts` (the display name stays). The"
            " account id does not change, so the guest's seats, history, ledgers, chouette"
            " ledgers and profile stay its own; the guest's username is gone, and from now on"
            " the account logs in with `POST /sessions` and may join tables for registered"
            " accounts (and rated matches, which rate it from then on). Every token the guest"
            " had is revoked (its open streams stop within seconds) and the answer carries a"
            " fresh one, of a registered account's lifetime (`token_ttl`, not"
            " `guest_token_ttl`). Rate-limited as registering is, per address. On any error"
            " nothing changes.",
            {
                201: answer("The account, registered now, and a fresh token", TokenResponse),
                400: problem(BAD_BODY),
                401: problem(NO_TOKEN),
                409: problem(
                    "The username is taken (`username-taken`), or the caller is not a guest"
                    " (`not-a-guest`)"
                ),
                413: problem(TOO_LARGE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            body=json_body(KeepGuest, x.KEEP_GUEST_EXAMPLES),
            security=BEARER,
        ),
    ),
    Route(
        "GET",
        "/me",
        h.me,
        op(
            "Accounts",
            "The caller's account",
            "The account the token belongs to.",
            {
                200: answer("The account", Me),
                401: problem(NO_TOKEN),
                503: problem(UNAVAILABLE),
            },
            security=BEARER,
        ),
    ),
    Route(
        "POST",
        "/me/bot",
        bot_accounts.mark_bot,
        op(
            "Accounts",
            "Make the caller a bot account",
            "Marks the caller's registered account a bot account (docs/bots.md, 'Outside"
            " bots'), as lichess's upgrade to a bot account: a program of the owner's plays it"
            " through this API (`chouette bot run --token`). **For good**: nothing unmarks it."
            " From then on every table it joins records that it sat down as a bot"
            " (`player_joined.bot`), which the table view (`players[].bot`), the lobby (`bots`)"
            " and its profile show, and a rated match where it sits is rated only when the"
            " table says so (`options.bots_rated`). Otherwise it is an ordinary account: the"
            " same limits, clocks and seats, and it sees only what its seat may. Only an"
            " account that has played no rated match, and sits at no unfinished table, may be"
            " marked; the password is asked. Rate-limited as logging in is. Marked already:"
            " answered as it is. On any refusal nothing changes.",
            {
                200: answer("The account, a bot account now", Me),
                400: problem(BAD_BODY),
                401: problem(f"{NO_TOKEN}, or a wrong password (`unauthorized`)"),
                403: problem("A guest (`not-registered`): keep it as an account first"),
                409: problem(
                    "The account has played a rated match (`rated-matches-played`), or sits"
                    " at an unfinished table (`seated`, with the tables' ids in `tables`)"
                ),
                413: problem(TOO_LARGE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            body=json_body(bot_accounts.MarkBot, x.MARK_BOT_EXAMPLES),
            security=BEARER,
        ),
    ),
    Route(
        "DELETE",
        "/me",
        erasure.erase_me,
        op(
            "Accounts",
            "Erase the caller's account",
            "Erases the account for good (docs/privacy.md): a registered account sends its"
            " password; a guest, who has none, a token issued in the last 15 minutes (else"
            " `fresh-login-required`: keep the guest with `POST /me/account`, then erase it with"
            " the password). Every token of the account is revoked and its streams stop; it"
            " leaves every unfinished table as `leave` does (in mid-game a forfeit, docs/rules.md"
            " §10); its data key is destroyed, so that its display name, its chat and the names"
            " of its tables, sealed under that key in the events, read from now on as its"
            " pseudonym (`former player 7f3a`), `[erased]` and no name, everywhere and in every"
            " server; an `account_erased` event (no personal data in it) records the erasure;"
            " the lobby, profiles, leaderboards and invitations name it by the pseudonym. The"
            " log is not changed: the audit, the chain heads, the replays and the ratings stay"
            " as they were. Rate-limited as logging in is.",
            {
                204: answer("Erased"),
                400: problem(BAD_BODY),
                401: problem(f"{NO_TOKEN}, or a wrong password (`unauthorized`)"),
                403: problem("A guest's token older than 15 minutes (`fresh-login-required`)"),
                413: problem(TOO_LARGE),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            body={"required": False, **json_body(erasure.EraseRequest, x.ERASE_EXAMPLES)},
            security=BEARER,
        ),
    ),
    Route(
        "GET",
        "/me/export",
        erasure.export_me,
        op(
            "Accounts",
            "Everything the server keeps of the caller",
            "One JSON document of the caller's own data, decrypted (docs/privacy.md): the"
            " account, the profile and rating, every table they created or played at (as the"
            " lobby has it), their games' results, and every chat message they wrote, on either"
            " channel.",
            {
                200: answer("The caller's data", erasure.PersonalExport),
                401: problem(NO_TOKEN),
                429: too_many(),
                503: problem(UNAVAILABLE),
            },
            security=BEARER,
        ),
    ),
)
