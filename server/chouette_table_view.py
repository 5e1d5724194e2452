"""A chouette table as one viewer sees it: the line and roles, each member's cube, the board
from the viewer's side, what the viewer may do, and the ledger."""

from __future__ import annotations

from typing import Any

from engine.actions import Action
from engine.chouette import TARGETED_ACTIONS, Chouette, Side
from engine.errors import EngineError
from engine.game import Phase
from engine.notation import format_play
from events.table import TableState


def chouette_role(state: TableState, viewer: str) -> str:
    """box, captain, member, dropped (out of this game), waiting, or spectator."""
    ch = state.chouette
    if viewer not in state.members:
        return "spectator"
    if ch is None:
        return "waiting"
    role = ch.role(viewer)
    return {"out": "dropped", "absent": "spectator"}.get(role, role)


def _side(ch: Chouette, side: Side | None) -> str | None:
    if side is None:
        return None
    return "box" if side == Side.BOX else "team"


def _cube_view(ch: Chouette, viewer: str | None) -> list[dict[str, Any]]:
    g = ch.game
    assert g is not None
    cubes = []
    for m in g.members:
        entry: dict[str, Any] = {
            "member": m.player,
            "value": m.cube.value,
            "owner": None
            if m.cube.owner is None
            else ("box" if m.cube.owner == Side.BOX else m.player),
            "turned": m.turned,
            "in_game": m.in_game,
            "pending": None,
            "resignation": None,
            "settlement": None,
        }
        if m.pending is not None:
            entry["pending"] = {
                "by": "box" if m.pending.doubler == Side.BOX else m.player,
                "to_answer": "box" if m.pending.responder == Side.BOX else m.player,
                "value": m.pending.value,
                "beavered": m.pending.beavered,
            }
        if m.resignation is not None:
            entry["resignation"] = {
                "by": "box" if m.resignation.by == Side.BOX else m.player,
                "level": int(m.resignation.level),
            }
        if m.settlement is not None:
            s = m.settlement
            entry["settlement"] = {
                "winner": s.winner,
                "loser": s.loser,
                "points": s.points,
                "how": s.how.value,
            }
        try:
            entry["match_id"] = ch.match_id(m.player)
        except EngineError:
            entry["match_id"] = None
        cubes.append(entry)
    return cubes


def chouette_view(state: TableState, viewer: str | None) -> dict[str, Any]:
    ch = state.chouette
    view: dict[str, Any] = {"members": list(state.members)}
    allowed: set[str] = set()
    if viewer is not None and viewer not in state.members:
        allowed.add("join")
    if ch is None:
        view.update(line=[], box=None, captain=None, ledger={p: 0 for p in state.members})
        if viewer in state.members:
            allowed |= {"leave", "chat"}
            if len(state.members) >= 2:
                allowed.add("start_game")
        view["allowed"] = sorted(allowed)
        return view
    view.update(
        line=list(ch.line),
        box=ch.box,
        captain=ch.captain,
        acting_captain=ch.acting_captain,
        ledger=dict(ch.ledger),
        options={
            "cube_mode": ch.options.cubes.value,
            "consultation": ch.options.consultation.value,
        }
        | {f: getattr(state.options, f) for f in state.options.__struct_fields__},
        history=[
            {
                "game": g.number,
                "box": g.box,
                "captain": g.captain,
                "settlements": [
                    {"member": s.member, "winner": s.winner, "points": s.points, "how": s.how.value}
                    for s in g.settlements
                ],
            }
            for g in ch.history
        ],
        text=ch.text(),
    )
    g = ch.game
    if g is not None:
        side = Side.BOX if viewer == g.box else Side.TEAM
        board = g.position_for(side) if g.phase is not Phase.OPENING else g.position
        view["game"] = {
            "number": state.game_no,
            "phase": g.phase.value,
            "turn": _side(ch, ch.turn),
            "on_roll": ch.on_roll,
            "dice": list(g.dice) if g.dice else None,
            "position_id": g.position.position_id(),
            "board": {"viewer_side": list(board.me), "other_side": list(board.opp)},
            "cubes": _cube_view(ch, viewer),
            "waiting_for": list(ch.waiting_for()),
            "legal_plays": [format_play(g.position, p.moves) for p in ch.legal_plays()],
            "dice_commitment": state.commitment,
        }
    if viewer is not None and viewer in state.members:
        acts = ch.allowed(viewer)
        for a in acts:
            if a in (Action.ORDER_THROW,):
                continue
            if a is Action.OPENING_THROW:
                allowed.add("roll")
            elif a is Action.ADVISE:
                allowed.add("chat_team")
            else:
                allowed.add(a.value)
        allowed.add("chat")
        if state.in_game and not state.dice_counter:
            allowed.add("add_seed")
        view["targets"] = {
            a.value: sorted(ch.targets(viewer, a))
            for a in sorted(TARGETED_ACTIONS)
            if ch.targets(viewer, a)
        }
        if viewer == ch.acting_captain:
            allowed.add("chat_team")
    view["allowed"] = sorted(allowed)
    return view
