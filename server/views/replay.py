"""The JSON answer of a replay: the table at a version as a viewer sees it, and its event.

The fold itself is :class:`events.records.replay.Replayer`; the route is in
:mod:`server.http.records`.
"""

from __future__ import annotations

from typing import Any

import msgspec

from events.domain import types as e
from events.domain.narration import event_text, notation_of
from events.domain.table import TableState
from server.views.table import table_view

__all__ = ["replay_view"]


def replay_view(
    before: TableState, event: e.Event, after: TableState, viewer: str | None
) -> dict[str, Any]:
    """The JSON answer of a replay: the table after ``event`` as ``viewer`` sees it (Position
    ID, Match ID and all, from :func:`server.views.table.table_view`), and the event itself."""
    described: dict[str, Any] = {
        "v": after.version,
        "type": e.tag(event),
        "data": msgspec.to_builtins(event),
        "text": event_text(before, event, after),
    }
    if after.last_skipped:
        # A stored event that did not apply (issue 27): the table is as it was before it.
        described["skipped"] = True
    if isinstance(event, e.CheckersMoved):
        described["notation"] = notation_of(before, event)
        if before.game is not None:
            described["position_id_before"] = before.game.position_id()
    # The table as it was when the event was recorded (its seed window counted down from then).
    table = table_view(after, viewer, event.at)
    return {"at": after.version, "event": described, "table": table}
