"""The live protocol's reference: the AsyncAPI 3.0 document at ``/asyncapi.json``, generated from
the same msgspec types as the OpenAPI document (:mod:`server.openapi.document`).

It describes the streams of :mod:`server.http.streams` as this server sees them (``send``: the
server sends, ``receive``: the server receives): each table's WebSocket, which carries two
streams told apart by ``s`` (the table stream and the chat stream, one channel each) and takes
commands, and the same messages as Server-Sent Events. Every event type of
:data:`events.domain.types.AnyEvent` is a message of its own, named by its tag, whose payload is
the stream's envelope (:class:`server.http.wire.EventMessage`) with ``t`` that tag and ``d`` that
event; a throw's carries ``m`` (:class:`server.views.throw.ThrowView`). Every control message
(``ctl``: :class:`server.views.schemas.Control`'s kinds) and the client's command
(:class:`server.http.common.CommandEnvelope`) are messages too. The schemas come from
``msgspec.json.schema_components`` and are kept in ``components.schemas``; the only change made
to them is mechanical: JSON Schema 2020-12's ``prefixItems`` (a tuple) is written as draft 07's
``items`` list, and an OpenAPI ``discriminator`` object as AsyncAPI's ``discriminator`` string,
since an AsyncAPI schema is a superset of draft 07.

What the types cannot say — what each event means (:data:`EVENT_SUMMARIES`, which
``tests/server/operations/test_asyncapi.py`` holds to the event union), the ticket flow, resume,
ordering and exactly-once — is written here. The test validates the document against the
published AsyncAPI 3.0.0 JSON schema.
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec
from aiohttp import web

from events.domain.types import EVENT_TYPES, AnyEvent
from server.http.common import CommandEnvelope
from server.http.wire import EventMessage
from server.views import schemas as s
from server.views.move import MoveView
from server.views.throw import ThrowView

__all__ = [
    "CONTROLS",
    "EVENT_SUMMARIES",
    "MOVES",
    "THROWS",
    "asyncapi_spec",
    "build_asyncapi",
    "register",
]

EVENT_SUMMARIES: dict[str, str] = {
    "table_created": "The table is created, with its kind and options: its first event.",
    "player_joined": "A player takes a seat (money, match) or joins the chouette's line;"
    " `bot`: as a bot (a bot account or the server's own), as the server says.",
    "player_left": "A player leaves the table (in mid-game: a forfeit).",
    "line_throw": "Chouette: one die each for the players still tied, to order the line.",
    "game_started": "A game starts, with the commitment to its secret dice seed.",
    "client_seed_added": "A player mixes a seed of their own into the game's dice.",
    "client_seed_waived": "A player adds no seed to the game's dice.",
    "seed_window_closed": "The seed window closed: the game's dice may be thrown.",
    "time_expired": "A player's clock ran out: they forfeit.",
    "opening_throw": "The opening throw: one die each, the higher moves first (carries `m`).",
    "dice_rolled": "The player on roll threw the dice (carries `m`: the legal plays).",
    "checkers_moved": "The player on roll played their checkers (carries `m` when the game"
    " goes on: every viewer's view after it).",
    "cube_offered": "A double (in a chouette, naming the cubes it turns).",
    "cube_taken": "A double is taken.",
    "cube_dropped": "A double is dropped.",
    "cube_beavered": "A double is beavered (taken and turned at once).",
    "resignation_offered": "A resignation is offered (single, gammon or backgammon).",
    "resignation_accepted": "A resignation is accepted: the game (or that member's) ends.",
    "resignation_declined": "A resignation is declined: play goes on.",
    "game_ended": "The game is over: who won what; the dice seed is revealed.",
    "line_rotated": "Chouette: the line after a game (box first, then the captain...).",
    "match_ended": "The match is over.",
    "chat_posted": "A chat message (on the chat stream only).",
    "account_erased": "An account was erased (docs/privacy.md): on no table's stream, only in"
    " the account's own stream of the log (GET /log, for auditors).",
    "tournament_created": "A tournament is created with its rules (docs/tournaments.md): the"
    " first event of its own stream, on no table's.",
    "tournament_entered": "A player entered a tournament, seeded by their rating.",
    "tournament_withdrew": "A player withdrew from a tournament.",
    "tournament_round_paired": "A tournament's round was paired: its boards and match tables.",
    "tournament_result": "A tournament board was decided (its match, a no-show, a withdrawal).",
    "tournament_result_adjusted": "A tournament's director changed a result, for a reason.",
    "tournament_finished": "A tournament is over: its winner.",
}
"""What each event type means, by its tag: one line each, for the document's messages. Every tag
of the event union must be here (the test fails on an event type added without one)."""

THROWS = ("opening_throw", "dice_rolled")
"""The events whose stream message carries ``m``, a :class:`ThrowView`
(:data:`server.http.streams.THROWS`)."""
MOVES = ("checkers_moved",)
"""The events whose stream message carries ``m``, a :class:`MoveView`, when the game goes on
(:data:`server.http.streams.MOVES`)."""

CONTROLS: dict[str, type[s.Control]] = {
    str(cls.__struct_config__.tag): cls
    for cls in (s.Resync, s.Presence, s.CommandReply, s.CommandRefused)
}
"""Every control message a stream sends, by its ``ctl``."""

_COMPONENT = s.COMPONENT


def _ref(name: str) -> dict[str, str]:
    return {"$ref": _COMPONENT.format(name=name)}


def _draft07(value: Any) -> Any:
    """A msgspec schema as an AsyncAPI schema (a superset of JSON Schema draft 07): a tuple's
    ``prefixItems`` as an ``items`` list (``additionalItems: false`` where no more may follow),
    and a ``discriminator`` object as the name of its property."""
    if isinstance(value, list):
        return [_draft07(v) for v in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, v in value.items():
        if key in ("properties", "patternProperties", "mapping"):
            out[key] = {name: _draft07(sub) for name, sub in v.items()}
        elif key == "discriminator" and isinstance(v, dict):
            out[key] = v["propertyName"]
        elif key == "prefixItems":
            out["items"] = _draft07(v)
            if value.get("items") is False:
                out["additionalItems"] = False
        elif key == "items" and "prefixItems" in value:
            continue
        else:
            out[key] = _draft07(v)
    return out


def _schemas() -> dict[str, Any]:
    """Every schema the messages name, generated from their types, by name."""
    _, components = msgspec.json.schema_components(
        [AnyEvent, EventMessage, ThrowView, MoveView, *CONTROLS.values(), CommandEnvelope],
        ref_template=_COMPONENT,
    )
    # As JSON has them: a default written as a tuple (a play tree's ``((),)``) is an array.
    plain = msgspec.json.decode(msgspec.json.encode(dict(sorted(components.items()))))
    return {name: _draft07(schema) for name, schema in plain.items()}


def _envelope(schemas: dict[str, Any], stream: str, tag: str) -> dict[str, Any]:
    """The stream's envelope (``EventMessage``'s schema) of one event type: ``t`` its tag, ``d``
    its payload, and ``m`` on a throw or a move only."""
    payload = copy.deepcopy(schemas["EventMessage"])
    props = payload["properties"]
    props["s"] = {**props["s"], "enum": [stream]}
    props["t"] = {"type": "string", "enum": [tag], "description": "The event's type."}
    props["d"] = {**_ref(EVENT_TYPES[tag].__name__), "description": "The event."}
    if tag in THROWS:
        props["m"] = {
            **_ref("ThrowView"),
            "description": "What the throw leaves the player to move: the legal plays as a tree"
            " of single-die steps. Absent when the table had moved on before the throw was"
            " first streamed.",
        }
    elif tag in MOVES:
        props["m"] = {
            **_ref("MoveView"),
            "description": "What every viewer's table view says after the move, for a page to"
            " follow it without fetching the view. Absent when the move ended the game, or"
            " when the table had moved on before the move was first streamed.",
        }
    else:
        del props["m"]
    payload["required"] = ["v", "s", "t", "d"]
    payload["title"] = f"EventMessage of {tag}"
    payload["additionalProperties"] = False
    return payload


def _hidden(schemas: dict[str, Any]) -> dict[str, Any]:
    """A chat message the recipient may not read: its version and stream only."""
    props = schemas["EventMessage"]["properties"]
    return {
        "title": "A hidden chat message",
        "type": "object",
        "properties": {"v": props["v"], "s": {**props["s"], "enum": ["chat"]}},
        "required": ["v", "s"],
        "additionalProperties": False,
    }


def _messages(schemas: dict[str, Any]) -> dict[str, Any]:
    messages: dict[str, Any] = {}
    for tag, cls in EVENT_TYPES.items():
        stream = (
            "chat" if tag == "chat_posted" else TOURNAMENT if tag in TOURNAMENT_EVENTS else "table"
        )
        message: dict[str, Any] = {
            "name": tag,
            "title": cls.__name__,
            "payload": _envelope(schemas, stream, tag),
        }
        if tag in EVENT_SUMMARIES:
            message["summary"] = EVENT_SUMMARIES[tag]
        if cls.__doc__:
            message["description"] = cls.__doc__
        messages[tag] = message
    messages["hidden_chat"] = {
        "name": "hidden_chat",
        "title": "A chat message the recipient may not read",
        "summary": "A team-channel message, for the box and spectators: `{v, s}` only, so"
        " versions never skip.",
        "payload": _hidden(schemas),
    }
    for ctl, control in CONTROLS.items():
        messages[ctl] = {
            "name": ctl,
            "title": control.__name__,
            "summary": f"Control message `ctl: {ctl}` (not an event: no version).",
            "description": control.__doc__ or "",
            "payload": _ref(control.__name__),
        }
    messages["command"] = {
        "name": "command",
        "title": "CommandEnvelope",
        "summary": "A command, with the client's id for it (retry-safe).",
        "description": CommandEnvelope.__doc__ or "",
        "payload": _ref("CommandEnvelope"),
    }
    return messages


def _channel_messages(names: list[str]) -> dict[str, Any]:
    return {n: {"$ref": f"#/components/messages/{n}"} for n in names}


def _op_messages(channel: str, names: list[str]) -> list[dict[str, str]]:
    return [{"$ref": f"#/channels/{channel}/messages/{n}"} for n in names]


TABLE_ID = {
    "description": "The table id (a UUID).",
    "examples": ["0d6e6c1a-5b2b-5e0a-9d34-8f1c2a7b9e10"],
}

_QUERY = {
    "type": "object",
    "properties": {
        "ticket": {
            "type": "string",
            "description": "A ticket from `POST /tickets` (single use, good for seconds): the"
            " connection acts as its account. Without it (or the `Authorization` header) the"
            " client is an anonymous spectator and may not send commands.",
        },
        "after": {
            "type": "integer",
            "minimum": 0,
            "maximum": 2**63 - 1,
            "default": 0,
            "description": "Resume after this table-stream version (the last `v` seen with"
            " `s: table`).",
        },
        "chat_after": {
            "type": "integer",
            "minimum": 0,
            "maximum": 2**63 - 1,
            "default": 0,
            "description": "Resume after this chat-stream version.",
        },
        "views": {
            "type": "integer",
            "minimum": 0,
            "maximum": 1,
            "default": 0,
            "description": "1: a move's message carries `m`, a `MoveView` (every viewer's"
            " table view after the move), while this socket is open: for a client that shows"
            " the view, as the web page does, and would otherwise fetch it after every move.",
        },
    },
    "additionalProperties": False,
}

_HEADERS = {
    "type": "object",
    "properties": {
        "Authorization": {
            "type": "string",
            "pattern": "^Bearer .+$",
            "description": "`Bearer <token>`, instead of a ticket, for clients that can send"
            " headers on the upgrade (never a token in the URL).",
        }
    },
}

TABLE_EVENTS = [
    t
    for t in EVENT_TYPES
    if t not in ("chat_posted", "account_erased") and not t.startswith("tournament_")
]
TOURNAMENT_EVENTS = [t for t in EVENT_TYPES if t.startswith("tournament_")]
"""The events of a tournament's stream (``s: tournament``), on channels of their own."""
TOURNAMENT = "tournament"

TOURNAMENT_ID = {
    "description": "The tournament id (a UUID).",
    "examples": ["5b0f3e6a-2c1d-5f4e-8a9b-0c1d2e3f4a5b"],
}

_TOURNAMENT_QUERY = {
    "type": "object",
    "properties": {
        "ticket": _QUERY["properties"]["ticket"],  # type: ignore[index]
        "after": {
            "type": "integer",
            "minimum": 0,
            "maximum": 2**63 - 1,
            "default": 0,
            "description": "Resume after this version of the tournament's stream (the last"
            " `v` seen).",
        },
    },
    "additionalProperties": False,
}

SOCKET_CONTROLS = ["resync", "presence"]
REPLIES = ["result", "error"]

OVERVIEW = """The live protocol of a chouette server: a table's events, its chat and who is \
connected, pushed over a WebSocket (which also takes commands) or as Server-Sent Events. The HTTP \
API is in `/openapi.json`. This document describes the server: `send` is what it sends, \
`receive` what it takes.

**Messages.** Each event comes as `{"v": version, "s": stream, "t": type, "d": event, "h": \
chain hash}`: one message per event type below, named by its `t`. `s` is `table` (the game's \
events) or `chat` (`chat_posted`); a throw (`opening_throw`, `dice_rolled`) also carries `m`, a \
`ThrowView`: who moves, the dice, and the legal plays as a tree of single-die steps \
(`play_tree`: node 0 is the start of the turn, each step `[from, to, hits, next]`, `next` 0 ends \
a play; `[[]]`: the thrower cannot move). A control message carries `ctl` and never `v`: \
`resync`, `presence`, and on the WebSocket `result` and `error` (a command's answer).

**Getting in: tickets.** `POST /accounts`, `POST /sessions` or `POST /guests` answer with a \
token. A browser's WebSocket or EventSource cannot send the `Authorization` header, so the \
client asks `POST /tickets` (with the header) for a ticket: single use, good for one connection \
within seconds, and passes it as `?ticket=`. Other clients may send `Authorization: Bearer \
<token>` on the upgrade instead. A token is never accepted in a URL. Without either the client \
watches as an anonymous spectator. A connection whose token is revoked or expires is closed \
(`1008`) within the server's session check interval; a command on it is refused first.

**Ordering and exactly-once.** Each stream's versions are contiguous from 1: every event is \
delivered once, in the order it was recorded, with `v` one more than the last of its stream. \
An event the recipient may not read (the team channel, for the box and spectators) still comes, \
as `{"v", "s"}` only (`hidden_chat`), so versions never skip. The two streams are ordered each \
on its own, not with each other. A client keeps the last `v` of each stream and drops nothing.

**Resume.** Reconnect with `?after=<table version>&chat_after=<chat version>` (SSE: the \
`Last-Event-ID` header `<table>.<chat>`, which each SSE message's `id` sets): the stream goes on \
with exactly the next event of each, no gap and no repeat. A position the stream cannot resume \
from — ahead of the stream, or further back than the server's resync window (100,000 events by \
default) — gets a `resync` message instead (and the WebSocket closes, `1008`): fetch `GET \
/tables/{table_id}` (its `version`) and reconnect from there. A socket that stops delivering \
closes (`1011`): reconnect and resume.

**Commands** are sent on the WebSocket as a `CommandEnvelope` `{"command_id": UUID, "command": \
{...}}`, answered on the same socket by `result` or `error` (the problem an HTTP request would \
get), naming the `command_id`. Command ids are idempotent: sending the same envelope again, on \
the socket or over HTTP, answers with the first outcome (`duplicate: true`) and records nothing \
new; the same id for another command is refused (`command-id-reused`). After a dropped \
connection or a `503`, resend with the same id. The events a command records come on the streams \
too, in their place.

**Tournaments.** A tournament's stream (`/tournaments/{tournament_id}/ws`, and as Server-Sent \
Events `/tournaments/{tournament_id}/events`) carries its events with `s: tournament`: its \
creation, entries and withdrawals, each round paired (every board with its match table's id, \
whose own stream is the table's channels), the results and the director's adjustments, its end. \
The same tickets, versions, resume (`?after=`, SSE `Last-Event-ID: <version>`) and `resync`; \
no presence, and its socket takes no commands (anything sent is answered with `error` and the \
socket closes). A private tournament's stream is, to whoever may not see the tournament, what \
an unknown tournament's is: the upgrade refused with a `404`."""


def build_asyncapi() -> dict[str, Any]:
    """The AsyncAPI 3.0 document of the live streams."""
    schemas = _schemas()
    messages = _messages(schemas)
    socket_servers = [{"$ref": "#/servers/ws"}, {"$ref": "#/servers/wss"}]
    sse_servers = [{"$ref": "#/servers/http"}, {"$ref": "#/servers/https"}]
    host = {"default": "localhost:8080", "description": "The server's host and port."}
    security = [{"$ref": "#/components/securitySchemes/ticket"}]
    socket_binding = {
        "ws": {
            "method": "GET",
            "query": _QUERY,
            "headers": _HEADERS,
            "bindingVersion": "0.1.0",
        }
    }
    return {
        "asyncapi": "3.0.0",
        "id": "urn:chouette:streams",
        "info": {
            "title": "chouette live streams",
            "version": "0.1.0",
            "description": OVERVIEW,
            "license": {"name": "AGPL-3.0-or-later"},
        },
        "defaultContentType": "application/json",
        "servers": {
            name: {
                "host": "{host}",
                "protocol": name,
                "description": what,
                "variables": {"host": host},
                "security": [
                    {"$ref": "#/components/securitySchemes/ticket"},
                    {"$ref": "#/components/securitySchemes/bearer"},
                ],
            }
            for name, what in (
                ("ws", "The WebSocket streams, plain (development)."),
                ("wss", "The WebSocket streams over TLS."),
                ("http", "The Server-Sent Events streams, plain (development)."),
                ("https", "The Server-Sent Events streams over TLS."),
            )
        },
        "channels": {
            "tableStream": {
                "address": "/tables/{table_id}/ws",
                "title": "A table's stream, on its WebSocket",
                "description": "The table's events (`s: table`), its control messages, and the"
                " commands the client sends. The same socket carries the chat stream"
                " (`chatStream`): messages are told apart by `s` (events) or `ctl`.",
                "servers": socket_servers,
                "parameters": {"table_id": TABLE_ID},
                "messages": _channel_messages(
                    [*TABLE_EVENTS, *SOCKET_CONTROLS, *REPLIES, "command"]
                ),
                "bindings": socket_binding,
            },
            "chatStream": {
                "address": "/tables/{table_id}/ws",
                "title": "A table's chat stream, on its WebSocket",
                "description": "The table's chat (`s: chat`), with versions of its own: the"
                " same socket as `tableStream`, resumed by `chat_after`.",
                "servers": socket_servers,
                "parameters": {"table_id": TABLE_ID},
                "messages": _channel_messages(["chat_posted", "hidden_chat"]),
                "bindings": socket_binding,
            },
            "tableEvents": {
                "address": "/tables/{table_id}/events",
                "title": "A table's streams as Server-Sent Events",
                "description": "The same messages as the WebSocket (both streams), one per"
                " `data:` line, each with `id: <table version>.<chat version>`, so the"
                " `Last-Event-ID` header (or `?after=` and `chat_after`) resumes both. A"
                " `resync` is the `resync` event, `presence` the `presence` event (no `id`);"
                " a comment line `: keep-alive` every 15 s when idle. Read-only: commands go"
                " to `POST /tables/{table_id}/commands`.",
                "servers": sse_servers,
                "parameters": {"table_id": TABLE_ID},
                "messages": _channel_messages(
                    [*TABLE_EVENTS, "chat_posted", "hidden_chat", *SOCKET_CONTROLS]
                ),
            },
            "tournamentStream": {
                "address": "/tournaments/{tournament_id}/ws",
                "title": "A tournament's stream, on its WebSocket",
                "description": "The tournament's events (`s: tournament`), and `resync` when"
                " the version asked cannot be resumed from. Read-only: a message sent is"
                " answered with `error` and the socket closes (`1008`).",
                "servers": socket_servers,
                "parameters": {"tournament_id": TOURNAMENT_ID},
                "messages": _channel_messages([*TOURNAMENT_EVENTS, "resync", "error"]),
                "bindings": {
                    "ws": {
                        "method": "GET",
                        "query": _TOURNAMENT_QUERY,
                        "headers": _HEADERS,
                        "bindingVersion": "0.1.0",
                    }
                },
            },
            "tournamentEvents": {
                "address": "/tournaments/{tournament_id}/events",
                "title": "A tournament's stream as Server-Sent Events",
                "description": "The same messages as its WebSocket, one per `data:` line,"
                " each with `id: <version>`, so the `Last-Event-ID` header (or `?after=`)"
                " resumes. A `resync` is the `resync` event; a comment line `: keep-alive`"
                " every 15 s when idle.",
                "servers": sse_servers,
                "parameters": {"tournament_id": TOURNAMENT_ID},
                "messages": _channel_messages([*TOURNAMENT_EVENTS, "resync"]),
            },
        },
        "operations": {
            "sendTableEvents": {
                "action": "send",
                "channel": {"$ref": "#/channels/tableStream"},
                "title": "The table's events, live",
                "summary": "Every event of the table stream after `after`, in order, then as"
                " recorded; and who is connected as it changes.",
                "security": security,
                "messages": _op_messages("tableStream", [*TABLE_EVENTS, *SOCKET_CONTROLS]),
            },
            "sendChat": {
                "action": "send",
                "channel": {"$ref": "#/channels/chatStream"},
                "title": "The table's chat, live",
                "summary": "Every chat message after `chat_after`, in order; hidden ones as"
                " `{v, s}`.",
                "security": security,
                "messages": _op_messages("chatStream", ["chat_posted", "hidden_chat"]),
            },
            "receiveCommand": {
                "action": "receive",
                "channel": {"$ref": "#/channels/tableStream"},
                "title": "A command on the socket",
                "summary": "Decided against the table; answered with `result` or `error`.",
                "description": "Needs a ticket (or the header). Idempotent by `command_id`.",
                "security": security,
                "messages": _op_messages("tableStream", ["command"]),
                "reply": {
                    "channel": {"$ref": "#/channels/tableStream"},
                    "messages": _op_messages("tableStream", REPLIES),
                },
            },
            "sendServerSentEvents": {
                "action": "send",
                "channel": {"$ref": "#/channels/tableEvents"},
                "title": "The table's streams as Server-Sent Events",
                "security": security,
                "messages": _op_messages(
                    "tableEvents", [*TABLE_EVENTS, "chat_posted", "hidden_chat", *SOCKET_CONTROLS]
                ),
                "bindings": {"http": {"method": "GET", "bindingVersion": "0.3.0"}},
            },
            "sendTournamentEvents": {
                "action": "send",
                "channel": {"$ref": "#/channels/tournamentStream"},
                "title": "A tournament's events, live",
                "summary": "Every event of the tournament's stream after `after`, in order,"
                " then as recorded.",
                "security": security,
                "messages": _op_messages("tournamentStream", [*TOURNAMENT_EVENTS, "resync"]),
            },
            "refuseTournamentMessage": {
                "action": "send",
                "channel": {"$ref": "#/channels/tournamentStream"},
                "title": "A message sent on a tournament's socket refused",
                "summary": "`error` (a 400 problem): the socket takes no commands, and closes.",
                "security": security,
                "messages": _op_messages("tournamentStream", ["error"]),
            },
            "sendTournamentServerSentEvents": {
                "action": "send",
                "channel": {"$ref": "#/channels/tournamentEvents"},
                "title": "A tournament's stream as Server-Sent Events",
                "security": security,
                "messages": _op_messages("tournamentEvents", [*TOURNAMENT_EVENTS, "resync"]),
                "bindings": {"http": {"method": "GET", "bindingVersion": "0.3.0"}},
            },
        },
        "components": {
            "schemas": schemas,
            "messages": messages,
            "securitySchemes": {
                "ticket": {
                    "type": "httpApiKey",
                    "name": "ticket",
                    "in": "query",
                    "description": "A single-use ticket from `POST /tickets` (asked with the"
                    " bearer token), good for one connection within seconds: browsers cannot"
                    " send headers on a WebSocket or an EventSource.",
                },
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A token from `POST /accounts`, `POST /sessions` or"
                    " `POST /guests`, in the `Authorization` header of the upgrade request.",
                },
            },
        },
    }


_ASYNCAPI_KEY = web.AppKey("asyncapi", bytes)


def register(app: web.Application) -> None:
    """Build the document once (it depends on the code only)."""
    app[_ASYNCAPI_KEY] = msgspec.json.encode(build_asyncapi())


async def asyncapi_spec(request: web.Request) -> web.Response:
    """``GET /asyncapi.json``: the AsyncAPI 3.0 document of the live streams."""
    return web.Response(body=request.app[_ASYNCAPI_KEY], content_type="application/json")
