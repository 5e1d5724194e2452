"""The HTTP routes of a table's record: its audit, its replay at any version and its ``.mat``
export (``GET /tables/{id}/audit``, ``/replay`` and ``/export.mat``).

Each reads the table's stream and hands it to the pure code in ``events/``
(:mod:`events.records.audit_scan`, :class:`events.records.replay.Replayer`,
:mod:`events.records.mat_export`); folding a
whole table runs in a worker thread, off the event loop. The audits are kept
(:class:`events.records.audit_scan.AuditCache`): a table audited again costs the check of what was
appended since, and audits are limited per address (``Config.rate_audits``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from aiohttp import web

from engine.matfile import write_mat
from events.records.audit_scan import AuditCache
from events.records.gamelog import chouette_log
from events.records.mat_export import export_mat, file_name, member_record
from events.records.replay import decode_all, replayer_for
from events.store.event_store import RecordedEvent, RecordKeys
from events.store.streams import table_stream
from server.access import ratelimit
from server.http.common import current_account, json_response, query_int, table_id_of
from server.http.problems import Problem, not_found
from server.keys import TABLES
from server.views.replay import replay_view

__all__ = ["AUDITS", "handle_audit", "handle_export_mat", "handle_replay"]

AUDITS = web.AppKey("audits", AuditCache)
"""The app's kept audits (set up with the database)."""


async def handle_audit(request: web.Request) -> web.Response:
    """``GET /tables/{id}/audit``: the table's audit report (200 whatever it finds)."""
    table_id = table_id_of(request)
    limits = request.app[ratelimit.LIMITS]
    limits.hit("audits", limits.address(request))
    report = await request.app[AUDITS].audit(table_id)
    if report is None:
        raise not_found(f"no table {table_id!r}")
    return json_response(report.as_dict())


async def handle_replay(request: web.Request) -> web.Response:
    """``GET /tables/{id}/replay?at=VERSION``: the table after that version (default: the
    latest), with the event at it in words and notation."""
    account = await current_account(request, required=False)
    table_id = table_id_of(request)
    tables = request.app[TABLES]
    state = await tables.state(table_id)  # 404 for an unknown table
    # A version number is 0 or more and fits a bigint (a 400 otherwise); one the table does
    # not have (0, or one it has not reached) is a 404.
    at = query_int(request, "at", state.version)
    if not 1 <= at <= state.version:
        if at > state.version:
            # A version appended since the cached state was read is still fine.
            state = await tables.state(table_id)
        if not 1 <= at <= state.version:
            raise not_found(f"table {table_id} has versions 1 to {state.version}, not {at}")
    before, event, after = await replayer_for(tables.store).at(table_id, at)
    body = replay_view(before, event, after, account.account_id if account else None)
    body["version"] = state.version
    return json_response(body)


async def handle_export_mat(request: web.Request) -> web.Response:
    """``GET /tables/{id}/export.mat``: the table's games as a GNU Backgammon ``.mat`` file; for
    a chouette, ``?member=ID`` names the team member whose games against the box to export."""
    table_id = table_id_of(request)
    store = request.app[TABLES].store
    records = await store.read_stream(table_stream(table_id))
    if not records:
        raise not_found(f"no table {table_id!r}")
    text, name = await asyncio.to_thread(
        _export_text, records, table_id, request.query.get("member"), store.keys
    )
    return web.Response(
        text=text,
        content_type="text/plain",
        charset="utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}.mat"'},
    )


def _export_text(
    records: Sequence[RecordedEvent],
    table_id: str,
    member: str | None,
    keys: RecordKeys | None = None,
) -> tuple[str, str]:
    """The ``.mat`` text and file name (off the event loop: it folds the whole table)."""
    events = decode_all(records, keys)
    name = table_stream(table_id)
    if events[0].kind == "chouette":  # type: ignore[attr-defined]
        members = list(dict.fromkeys(m for g in chouette_log(events).games for m in g.members))
        if member not in members:
            raise Problem(
                404 if member else 400,
                "no-such-member" if member else "member-required",
                "Which member?",
                "a chouette exports one file per team member: add ?member= one of "
                + ", ".join(members),
                field="member",
            )
        text = write_mat(member_record(events, member))
        name += f"-{file_name(member)}"
    else:
        text = export_mat(events)
    return text, name
