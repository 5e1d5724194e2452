"""What the server sends, as msgspec Structs: the streams' messages (``/asyncapi.json``) and the
HTTP answers a client needs (``/openapi.json``). Self-contained: nothing of the server is
imported, so that a bot or a club's tool installs this package alone.

Unknown fields are ignored everywhere (a newer server may add some), and an event's payload
``d`` is left as JSON values: its schema is the server's ``Event`` union, by ``t``.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from client.plays import Edge, Play, legal_plays

__all__ = [
    "Account",
    "AfterThrow",
    "CommandRefused",
    "CommandReply",
    "CommandResult",
    "Control",
    "EventMessage",
    "Presence",
    "Problem",
    "Resync",
    "Resynced",
    "Throw",
]


class Account(msgspec.Struct, kw_only=True):
    """A token and the account it acts for (``POST /accounts``, ``/sessions``, ``/guests``)."""

    token: str
    account_id: str
    username: str
    display_name: str
    guest: bool
    expires_in: float | None = None


class Problem(msgspec.Struct, kw_only=True):
    """An RFC 9457 problem: every refusal, over HTTP or on the socket."""

    type: str
    title: str
    status: int
    detail: str
    field: str | None = None

    @property
    def slug(self) -> str:
        """The kind of problem: the last part of ``type`` (``not-your-turn``...)."""
        return self.type.rsplit("/", 1)[-1]


class AfterThrow(msgspec.Struct, kw_only=True):
    """What one viewer's table view says after a throw."""

    allowed: list[str]
    targets: dict[str, list[str]]
    turn: int | None
    leave_cost: Any = None


class Throw(msgspec.Struct, kw_only=True):
    """A throw's ``m``: who moves, the dice, and the legal plays as a tree of single-die steps
    (:func:`client.plays.legal_plays` lists them)."""

    player: str
    dice: tuple[int, int]
    play_tree: list[list[Edge]]
    passed: bool = False
    status: str = ""
    position_id: str = ""
    now: int = 0
    clocks: list[Any] = []
    viewers: dict[str, AfterThrow] = {}
    spectator: AfterThrow | None = None
    anonymous: AfterThrow | None = None

    def plays(self) -> list[Play]:
        """The legal plays (:func:`client.plays.legal_plays`): empty when the player cannot
        move."""
        return legal_plays(self.play_tree)


class EventMessage(msgspec.Struct, kw_only=True):
    """One event of a stream: ``v`` its version, ``s`` the stream (``table`` or ``chat``),
    ``t`` its type and ``d`` its payload (both absent when the recipient may not read it: a
    team-channel chat message), ``h`` its chain hash, ``m`` a throw's :class:`Throw`."""

    v: int
    s: Literal["table", "chat"]
    t: str | None = None
    d: Any = None
    h: str | None = None
    m: Throw | None = None

    @property
    def hidden(self) -> bool:
        """The recipient may not read it (its version still counts)."""
        return self.t is None


class Control(msgspec.Struct, kw_only=True, tag_field="ctl"):
    """A control message (``ctl``): not an event, no version."""


class Resync(Control, kw_only=True, tag="resync"):
    """The asked position cannot be resumed from: the stream is at ``version``."""

    stream: Literal["table", "chat"]
    asked: int
    version: int
    reason: str


class Presence(Control, kw_only=True, tag="presence"):
    """Who is connected to the table now."""

    connected: list[str]
    anonymous: int


class CommandReply(Control, kw_only=True, tag="result"):
    """A socket's command recorded (or a retry of one)."""

    command_id: str
    duplicate: bool
    stream: Literal["table", "chat"]
    first_version: int
    last_version: int
    events: list[EventMessage]


class CommandRefused(Control, kw_only=True, tag="error"):
    """A socket's command refused."""

    command_id: str | None
    problem: Problem


AnyControl = Resync | Presence | CommandReply | CommandRefused


class CommandResult(msgspec.Struct, kw_only=True):
    """A command recorded (``POST /tables/{id}/commands``); ``duplicate`` on a retry of one
    already recorded, whose first outcome it is."""

    command_id: str
    duplicate: bool
    stream: Literal["table", "chat"]
    first_version: int
    last_version: int
    events: list[EventMessage]


class Resynced(msgspec.Struct, kw_only=True):
    """What :meth:`client.Client.follow` yields when the server could not resume a stream
    (its ``resync``): the events between were skipped, and ``view`` is the table as it is
    now (``GET /tables/{id}``); the stream goes on after ``version``."""

    stream: Literal["table", "chat"]
    version: int
    view: dict[str, Any]
    reason: str
