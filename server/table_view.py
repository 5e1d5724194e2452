"""What clients see: a table's state as JSON, for one viewer.

``GET /tables/{id}`` answers with :func:`table_view`: the Position ID and Match ID, whose turn it
is and what the viewer may do, the legal plays of the player on roll in notation, every cube,
the line and the ledger.
"""

from __future__ import annotations

from typing import Any

from engine.actions import Action
from engine.errors import InvalidIdError
from engine.game import Game, Phase
from engine.notation import format_play
from events.table import TableState
from server.chouette_table_view import chouette_role, chouette_view


def _game_view(state: TableState, game: Game, viewer: str | None) -> dict[str, Any]:
    series = state.match
    assert series is not None
    seats = state.seats

    def who(i: int | None) -> str | None:
        return None if i is None else seats[i]

    seat = state.seat_of(viewer) if viewer else None
    view: dict[str, Any] = {
        "number": state.game_no,
        "phase": game.phase.value,
        "turn": who(game.turn) if game.phase is not Phase.OPENING else None,
        "to_act": who(game.to_act),
        "dice": list(game.dice) if game.dice else None,
        "position_id": game.position_id(),
        "match_id": _match_id(game, series.length, series.score, series.crawford),
        "board": _board(game),
        "cube": {"value": game.cube.value, "owner": who(game.cube.owner)},
        "pending_double": None,
        "resignation": None,
        "legal_plays": [format_play(game.position, p.moves) for p in game.legal_plays()],
        "dice_commitment": state.commitment,
        "allowed": sorted(_command(a) for a in game.allowed(seat)) if seat is not None else [],
    }
    if game.pending is not None:
        view["pending_double"] = {
            "by": who(game.pending.doubler),
            "to_answer": who(game.pending.responder),
            "value": game.pending.value,
            "beavered": game.pending.beavered,
        }
    if game.resignation is not None:
        view["resignation"] = {"by": who(game.resignation.by), "level": int(game.resignation.level)}
    if game.result is not None:
        view["result"] = {
            "winner": who(game.result.winner),
            "result": int(game.result.result),
            "cube": game.result.cube,
            "points": game.result.points,
            "how": game.result.how,
        }
    return view


def _command(action: Action) -> str:
    """The command that takes an engine action: ``allowed`` names commands a client can send,
    and the opening throw is sent as ``roll``."""
    return "roll" if action is Action.OPENING_THROW else action.value


def _match_id(game: Game, length: int, score: tuple[int, int], crawford: bool) -> str | None:
    """The Match ID, or None when the state does not fit one (a cube past 2**15, a money score
    past 32767: the cube has no upper limit, the ID's fields do)."""
    try:
        return game.match_id(length, score, crawford)
    except InvalidIdError:
        return None


def _board(game: Game) -> dict[str, Any]:
    """Both sides in their own numbering: index 0 off, 1..24 points, 25 bar."""
    return {"on_roll": list(game.position.me), "other": list(game.position.opp)}


def table_view(state: TableState, viewer: str | None) -> dict[str, Any]:
    """The table as ``viewer`` (an account id, or None for an anonymous spectator) sees it."""
    view: dict[str, Any] = {
        "id": state.table_id,
        "kind": state.kind,
        "name": state.name,
        "options": {f: getattr(state.options, f) for f in state.options.__struct_fields__},
        "version": state.version,
        "created_by": state.created_by,
        "players": [{"id": p, "name": state.display_name(p)} for p in state.players],
        "ledger": dict(state.ledger),
        "in_game": state.in_game,
        "role": role_of(state, viewer),
    }
    if state.kind == "chouette":
        view.update(chouette_view(state, viewer))
        return view
    view["seats"] = list(state.seats)
    series = state.match
    if series is not None:
        view["score"] = list(series.score)
        view["match_length"] = series.length
        view["crawford"] = series.crawford
        view["match_winner"] = state.match_winner or None
        if series.game is not None:
            view["game"] = _game_view(state, series.game, viewer)
    allowed = set(view.get("game", {}).get("allowed", []))
    if viewer and state.seat_of(viewer) is not None:
        if not state.in_game:
            allowed.add("leave")
            if None not in state.seats and not state.match_winner:
                allowed.add("start_game")
        elif not state.dice_counter:
            allowed.add("add_seed")
        allowed.add("chat")
    elif viewer and None in state.seats and not state.match_winner:
        allowed.add("join")
    view["allowed"] = sorted(allowed)
    return view


def role_of(state: TableState, viewer: str | None) -> str:
    """The viewer's role: player, box, captain, member, dropped, spectator or anonymous."""
    if viewer is None:
        return "anonymous"
    if state.kind == "chouette" and state.chouette is not None:
        return chouette_role(state, viewer)
    return "player" if state.seat_of(viewer) is not None else "spectator"
