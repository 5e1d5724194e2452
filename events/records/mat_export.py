"""A table's record as files for analysis programs: GNU Backgammon ``.mat`` text and JSON.

- :func:`match_record` builds a :class:`~engine.matfile.MatMatch` from a money or match table's
  :func:`~events.records.gamelog.table_log` (:func:`export_mat` writes it), and :func:`export_json`
  one
  JSON document;
- a chouette is exported one ``.mat`` file per team member, that member's own games against the
  box (:func:`member_record`), plus :func:`chouette_json` for the whole table
  (:func:`export_chouette` makes them all).

Reading a ``.mat`` file back is :mod:`events.records.mat_import`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from engine.matfile import MatAction, MatGame, MatMatch, write_mat
from events.domain import types as e
from events.records.gamelog import SkippedEntry, TableLog, chouette_log, table_log

__all__ = [
    "chouette_json",
    "export_chouette",
    "export_json",
    "export_mat",
    "file_name",
    "json_text",
    "match_record",
    "member_record",
]


def match_record(events: Sequence[e.Event], log: TableLog | None = None) -> MatMatch:
    """The table's games as a :class:`~engine.matfile.MatMatch` (money play: a 0 point match);
    ``log``: the events' :func:`~events.records.gamelog.table_log`, if the caller has it already."""
    log = log if log is not None else table_log(events)
    games: list[MatGame] = []
    notes: list[tuple[str, str]] = [
        ("Site", "chouette"),
        ("Match ID", log.table_id),
    ]
    first = log.games[0] if log.games else None
    if first is not None:
        notes += [("Player 1", first.names[0]), ("Player 2", first.names[1])]
    o = log.options
    if log.kind == "money":
        notes.append(("Jacoby", "On" if o.jacoby else "Off"))
        notes.append(("Beaver", "On" if o.beavers else "Off"))
    else:
        notes.append(("Crawford", "On"))
    for g in log.games:
        actions: list[MatAction] = []
        for entry in g.entries:
            seat = entry.seat if entry.seat is not None else 0
            if entry.kind == "roll":
                assert entry.dice is not None
                actions.append(MatAction(seat, "roll", entry.dice, entry.moves))
            elif entry.kind in ("double", "beaver", "take", "drop"):
                actions.append(MatAction(seat, entry.kind, value=entry.value))
            elif entry.kind == "accept":
                assert entry.seat is not None
                actions.append(MatAction(entry.seat, "win", value=g.points))
        if g.how == "unplayed":
            continue  # a game left before its first throw: nothing to export
        if g.how == "forfeit" and g.winner is not None:
            # GNU Backgammon has no forfeit: it reads as the loser resigning at that level.
            actions.append(MatAction(g.winner, "win", value=g.points))
        if g.auto_doubles:
            # GNU Backgammon cannot start a game with the cube turned: say so in the header.
            notes.append(("Note", f"game {g.number} began with the cube at {2**g.auto_doubles}"))
        games.append(
            MatGame(
                g.number,
                g.score,
                tuple(actions),
                g.winner,
                g.points,
                names=g.names,
            )
        )
    players = first.names if first else ("player 1", "player 2")
    return MatMatch(log.match_length, players, tuple(games), tuple(notes))


def export_mat(events: Sequence[e.Event]) -> str:
    """The table's games as ``.mat`` text for GNU Backgammon (``import mat``)."""
    return write_mat(match_record(events))


def export_json(events: Sequence[e.Event]) -> dict[str, Any]:
    """The whole table as one JSON document: options, players, and every game with its dice
    commitment, client seeds, revealed seed, entries and result."""
    log = table_log(events)
    return {
        "table": log.table_id,
        "kind": log.kind,
        "options": msgspec.to_builtins(log.options),
        "players": log.names,
        "match_winner": log.match_winner or None,
        "score": list(log.final_score),
        "skipped": _skipped_json(log.skipped),
        "games": [
            {
                "number": g.number,
                "players": list(g.players),
                "score": list(g.score),
                "crawford": g.crawford,
                "dice_commitment": g.commitment,
                "client_seeds": g.client_seeds,
                "dice_seed": g.seed or None,
                "entries": [
                    {
                        k: v
                        for k, v in {
                            "v": x.version,
                            "kind": x.kind,
                            "player": g.players[x.seat] if x.seat is not None else None,
                            "dice": list(x.dice) if x.dice else None,
                            "moves": [list(m) for m in x.moves] if x.kind == "roll" else None,
                            "notation": x.notation if x.kind == "roll" else None,
                            "value": x.value or None,
                            "position_id": x.position_id,
                            "match_id": x.match_id,
                        }.items()
                        if v is not None
                    }
                    for x in g.entries
                ],
                "result": (
                    {
                        "winner": g.players[g.winner],
                        "result": g.result,
                        "cube": g.cube,
                        "points": g.points,
                        "how": g.how,
                    }
                    if g.winner is not None
                    else None
                ),
            }
            for g in log.games
        ],
    }


def member_record(events: Sequence[e.Event], member: str) -> MatMatch:
    """One member's games against the box as a ``.mat`` money session (box on the left)."""
    log = chouette_log(events)
    games: list[MatGame] = []
    score = [0, 0]
    for g in log.games:
        record = g.members.get(member)
        if record is None:
            continue
        names = (log.names.get(g.box, g.box), log.names.get(member, member))
        games.append(
            MatGame(
                len(games) + 1,
                (score[0], score[1]),
                tuple(record.actions),
                record.winner,
                record.points,
                names=names,
            )
        )
        if record.winner is not None:
            score[record.winner] += record.points
    header = [
        ("Site", "chouette"),
        ("Match ID", f"{log.table_id} {member}"),
        ("Note", f"chouette: {log.names.get(member, member)}'s own games against the box"),
    ]
    return MatMatch(0, ("box", log.names.get(member, member)), tuple(games), tuple(header))


def chouette_json(events: Sequence[e.Event]) -> dict[str, Any]:
    """The whole chouette as one JSON document: every game with its line, dice commitment and
    seeds, every event in words (plays in notation), each member's cube story and result, the
    settlements, and the ledger."""
    log = chouette_log(events)
    return {
        "table": log.table_id,
        "kind": "chouette",
        "options": msgspec.to_builtins(log.options),
        "players": log.names,
        "ledger": log.ledger,
        "skipped": _skipped_json(log.skipped),
        "games": [
            {
                "number": g.number,
                "line": list(g.line),
                "box": g.box,
                "captain": g.captain,
                "dice_commitment": g.commitment,
                "client_seeds": g.client_seeds,
                "dice_seed": g.seed or None,
                "events": g.entries,
                "members": {
                    name: {
                        "cube_actions": [
                            {
                                "by": "box" if a.player == 0 else name,
                                "action": a.kind,
                                "value": a.value,
                            }
                            for a in r.actions
                            if a.kind != "roll"
                        ],
                        "result": (
                            {
                                "winner": g.box if r.winner == 0 else name,
                                "points": r.points,
                                "how": r.how,
                            }
                            if r.winner is not None
                            else None
                        ),
                    }
                    for name, r in g.members.items()
                },
                "settlements": g.settlements,
            }
            for g in log.games
        ],
    }


def export_chouette(events: Sequence[e.Event]) -> dict[str, str]:
    """A chouette's export: one ``.mat`` file per player who was ever on the team, named after
    the player id, and ``chouette.json`` for the whole table."""
    log = chouette_log(events)
    members = dict.fromkeys(m for g in log.games for m in g.members)
    files = {f"{file_name(m)}.mat": write_mat(member_record(events, m)) for m in members}
    files["chouette.json"] = json_text(chouette_json(events))
    return files


def _skipped_json(skipped: Sequence[SkippedEntry]) -> list[dict[str, Any]]:
    """The stored events that did not apply and changed nothing (issue 27), for the JSON."""
    return [{"v": x.version, "type": x.type, "reason": x.reason} for x in skipped]


def json_text(doc: Any) -> str:
    return msgspec.json.format(msgspec.json.encode(doc), indent=2).decode() + "\n"


def file_name(player: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in player)
    return safe.strip(".") or "player"
