"""A typed Python client for a chouette server: what a bot author or a club's tooling needs,
speaking only the public protocol (``/openapi.json`` and ``/asyncapi.json``), with nothing of
the server imported.

>>> from client import Client, legal_plays
>>> Client("http://localhost:8080/").url
'http://localhost:8080'

:class:`Client` logs in (or plays as a guest), creates and joins tables, sends commands with
command ids and retries them safely, and follows a table's stream with resume
(:meth:`Client.follow`); a throw's message carries the legal plays (:meth:`Throw.plays`,
:func:`legal_plays`).
"""

from client.api import ApiError, Client, ProtocolError
from client.messages import (
    Account,
    AfterThrow,
    CommandRefused,
    CommandReply,
    CommandResult,
    EventMessage,
    Presence,
    Problem,
    Resync,
    Resynced,
    Throw,
)
from client.plays import Play, legal_plays, routes

__all__ = [
    "Account",
    "AfterThrow",
    "ApiError",
    "Client",
    "CommandRefused",
    "CommandReply",
    "CommandResult",
    "EventMessage",
    "Play",
    "Presence",
    "Problem",
    "ProtocolError",
    "Resync",
    "Resynced",
    "Throw",
    "legal_plays",
    "routes",
]
