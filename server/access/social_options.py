"""A new table's social options, checked when it is created (docs/social.md): ``rated`` (matches
only, by registered accounts, and then for registered accounts only; ``bots_rated`` only with
it, docs/bots.md) and ``private`` (its row
in ``private_tables`` written before the table is created, so that it is never visible, even
for a moment, to someone without access: server/http/privacy.py)."""

from __future__ import annotations

import msgspec
from aiohttp import web

from events.domain.types import TableOptions
from events.store.streams import table_stream
from server.access import auth
from server.http.problems import bad_request, forbidden
from server.keys import ACCOUNTS_POOL, TABLES
from server.readmodels import invitations

__all__ = ["prepare_create"]


async def prepare_create(
    app: web.Application, account: auth.Account, kind: str, options: TableOptions, table_id: str
) -> TableOptions:
    """Check a new table's social options and record a private table's row (before the table
    is created); returns the options to record. A rated table is for registered accounts."""
    if options.rated:
        if kind != "match" or options.match_length < 1:
            raise bad_request(
                "only matches are rated (money and chouettes have their ledgers)",
                field="options.rated",
            )
        if account.guest:
            raise forbidden("a guest cannot create a rated match; register first")
        options = msgspec.structs.replace(options, registered_only=True)
    elif options.bots_rated:
        raise bad_request(
            "bots_rated says whether a rated match rates bot accounts: only with rated",
            field="options.bots_rated",
        )
    if options.private:
        tables = app[TABLES]
        if tables.cached(table_id) is not None or await tables.store.stream_version(
            table_stream(table_id)
        ):
            return options  # a retried create: the table exists, as it was created
        await invitations.record_private(app[ACCOUNTS_POOL], table_id, account.account_id)
    return options
