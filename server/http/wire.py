"""The streams' wire format: what a client receives over a table's WebSocket or Server-Sent
Events stream, and in a command's result.

- an event is an :class:`EventMessage`, ``{"v": version, "s": stream, "t": type, "d": data,
  "h": chain hash, "m": what a throw leaves to move}`` (only ``v`` and ``s`` when the recipient
  may not see it), made by :func:`message`;
- a control message is a JSON object with ``ctl``: :func:`resync` (the position cannot be
  resumed from), :func:`result` and :func:`error` (a socket's command answered), and the
  presence (``ctl: presence``, made by :mod:`server.live.presence`).

The encoders are generic (:func:`encode` writes any msgspec-encodable value): what a message
holds is its maker's, not this module's.
"""

from __future__ import annotations

from typing import Any

import msgspec

from events.store.event_store import RecordedEvent, RecordKeys

__all__ = ["EventMessage", "encode", "error", "message", "result", "resync"]

_encoder = msgspec.json.Encoder()


def encode(value: object) -> bytes:
    """``value`` as JSON bytes (a :class:`msgspec.Raw` is written as it is)."""
    return _encoder.encode(value)


class EventMessage(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One event as clients receive it: ``{"v": version, "t": type, "d": data, "s": stream}``.
    An event the recipient may not see carries only ``v`` and ``s``.

    ``s`` has no default on purpose: with ``omit_defaults`` a default of ``"table"`` left it out
    of every table-stream message, and clients could not tell the two streams apart."""

    v: int
    s: str
    t: str | None = None
    d: Any = None
    h: str | None = None
    """The event's stored chain hash in hex: its stream's chain head at ``v``, for a client to
    keep and later hold the server to (docs/heads.md). Absent when the recipient may not see the
    event, and in a command's result."""
    m: Any = None
    """Streams only, on an ``opening_throw`` or ``dice_rolled``: what the throw leaves the
    player to move (:class:`server.views.throw.ThrowView`: the legal plays, or none when they
    cannot move); on a ``checkers_moved`` after which the game goes on, every viewer's view
    after it (:class:`server.views.move.MoveView`). Absent when the table had moved on before
    the event was first streamed."""


def message(
    rec: RecordedEvent,
    stream: str,
    visible: bool = True,
    *,
    chain: bool = False,
    keys: RecordKeys | None = None,
) -> EventMessage:
    """An event for a client; with its chain hash when ``chain`` (the streams). A command's
    result goes without: its first answer is not read back, and a retry's must be the same.
    What a person typed is sent opened with ``keys`` (the store's: docs/privacy.md), or as the
    pseudonym once its key is destroyed; the hash is the stored bytes' (``GET /log`` has those,
    for auditors)."""
    if not visible:
        # Not even the hash: with the previous one, it would let a short hidden message be
        # guessed.
        return EventMessage(v=rec.version, s=stream)
    return EventMessage(
        v=rec.version,
        s=stream,
        t=rec.type,
        d=msgspec.Raw(rec.data if keys is None else keys.plain(rec)),
        h=rec.hash.hex() if chain and rec.hash is not None else None,
    )


def resync(stream: str, asked: int, version: int, reason: str) -> dict[str, object]:
    """``{"ctl": "resync"}``: the position ``asked`` of ``stream`` cannot be resumed from (the
    stream is at ``version``); the client fetches the table and reconnects from its version."""
    return {"ctl": "resync", "stream": stream, "asked": asked, "version": version, "reason": reason}


def result(body: msgspec.Struct) -> dict[str, object]:
    """``{"ctl": "result", ...}``: a socket's command done, with the fields of its result as
    they are (not ``to_builtins``, which cannot take the events' :class:`msgspec.Raw`
    payloads): the encoder writes them exactly as over HTTP."""
    return {"ctl": "result", **{f: getattr(body, f) for f in body.__struct_fields__}}


def error(command_id: str | None, problem: dict[str, Any]) -> dict[str, object]:
    """``{"ctl": "error"}``: a socket's command refused (``problem``: the RFC 9457 body), naming
    its ``command_id`` when it could be read."""
    return {"ctl": "error", "command_id": command_id, "problem": problem}
