"""Presence (docs/rules.md §10): who is connected to a table, shown to everyone at it.

Each WebSocket and Server-Sent Events stream of a table registers here while it is open. When
an account's first stream of a table opens or its last closes, or an anonymous watcher comes or
goes, every other stream of the table is told who is connected now: ``{"ctl": "presence",
"connected": [account ids], "anonymous": n}`` (an SSE ``event: presence``). The message is
ephemeral: it is not an event, not stored, and has no version. A stream that has just opened
is not sent one: the table view carries the same ``connected`` and ``anonymous``.

Anonymous watchers are counted, never named. A disconnection changes nothing in a game in play (a
player's clock keeps running whether or not they are connected), but who is connected is what the
timers act on (docs/rules.md §10, "Walking away"): a player who runs out of time while not
connected leaves the table when the game ends, and the table throws nothing by itself with fewer
than two of its players connected (:class:`server.live.timers.Timers` asks :meth:`Presence.is_here`,
and is told of each account that arrives, :attr:`Presence.on_arrival`).

**Choice:** presence is this process's: with several server processes each knows only the
streams it serves (as the lobby's spectator count). Clients of one table are normally served by
one process; sharing it through PostgreSQL's LISTEN/NOTIFY is left for later.

Each stream holds a :class:`Watcher`; a change sets its ``changed`` flag, and the stream's own
task sends the newest state when it gets to it, so a burst of arrivals costs each stream one
message, never a queue.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

__all__ = ["Presence", "Watcher"]


class Watcher:
    """One open stream of a table: ``changed`` is set when who is connected changes."""

    __slots__ = ("changed",)

    def __init__(self) -> None:
        self.changed = asyncio.Event()


@dataclass
class _Table:
    accounts: dict[str, int] = field(default_factory=dict)
    """Open streams per account."""
    anonymous: int = 0
    watchers: set[Watcher] = field(default_factory=set)


class Presence:
    """The streams open to each table in this process, by account."""

    def __init__(self) -> None:
        self._tables: dict[str, _Table] = {}
        self.on_arrival: Callable[[str], None] | None = None
        """Told the table's id when an account opens its first stream of a table (the timers:
        a table that waited for its players may go on)."""

    def is_here(self, table_id: str, account: str) -> bool:
        """Whether ``account`` has a stream open to ``table_id`` in this process."""
        table = self._tables.get(table_id)
        return table is not None and account in table.accounts

    def at(self, table_id: str) -> tuple[list[str], int]:
        """Who is connected to ``table_id``: the account ids (sorted) and how many anonymous
        watchers."""
        table = self._tables.get(table_id)
        if table is None:
            return [], 0
        return sorted(table.accounts), table.anonymous

    def message(self, table_id: str) -> dict[str, object]:
        """The control message that tells a stream who is connected."""
        connected, anonymous = self.at(table_id)
        return {"ctl": "presence", "connected": connected, "anonymous": anonymous}

    @contextlib.contextmanager
    def connected(self, table_id: str, account: str | None) -> Iterator[Watcher]:
        """While in the block, ``account`` (None: anonymous) has a stream open to the table.
        The other streams are told if this one changes who is connected; this one's
        ``changed`` is set on every later change (what it finds on arrival is in the table
        view)."""
        table = self._tables.setdefault(table_id, _Table())
        watcher = Watcher()
        if self._arrive(table, account):
            self._tell(table)
            if account is not None and self.on_arrival is not None:
                self.on_arrival(table_id)
        table.watchers.add(watcher)
        try:
            yield watcher
        finally:
            table.watchers.discard(watcher)
            if self._leave(table, account):
                self._tell(table)
            if not table.watchers and not table.accounts and not table.anonymous:
                self._tables.pop(table_id, None)

    @staticmethod
    def _arrive(table: _Table, account: str | None) -> bool:
        if account is None:
            table.anonymous += 1
            return True
        n = table.accounts.get(account, 0)
        table.accounts[account] = n + 1
        return n == 0

    @staticmethod
    def _leave(table: _Table, account: str | None) -> bool:
        if account is None:
            table.anonymous -= 1
            return True
        n = table.accounts.get(account, 1) - 1
        if n:
            table.accounts[account] = n
            return False
        table.accounts.pop(account, None)
        return True

    @staticmethod
    def _tell(table: _Table) -> None:
        for watcher in table.watchers:
            watcher.changed.set()
