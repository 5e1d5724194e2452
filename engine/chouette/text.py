"""The chouette in words: the table as readable text, and the words its error messages use.

:func:`table_text` is what :meth:`Chouette.text <engine.chouette.table.Chouette.text>` and
``str(chouette)`` show: options, the line and its roles, the board, each member's cube and the
ledger.
"""

from __future__ import annotations

from engine.actions import Action
from engine.chouette.game import ChouetteGame, MemberGame
from engine.chouette.ledger import Ledger, SettledBy, Settlement
from engine.chouette.line import LineOrder
from engine.chouette.options import ChouetteOptions, CubeMode, Side
from engine.game import Phase

__all__ = ["CAPTAIN_DOES", "VERBS", "out_reason", "table_text"]

VERBS = {
    Action.OPENING_THROW: "throw the opening dice",
    Action.ROLL: "roll",
    Action.MOVE: "move",
    Action.DOUBLE: "double",
    Action.TAKE: "take",
    Action.DROP: "drop",
    Action.BEAVER: "beaver",
    Action.RESIGN: "offer to resign",
    Action.ACCEPT: "accept",
    Action.DECLINE: "decline",
    Action.ADVISE: "advise",
}
"""Each action on a game as a verb, for "ann cannot roll: ..."."""

CAPTAIN_DOES = {Action.ROLL: "rolls", Action.MOVE: "moves the checkers"}
"""What only the captain does for the team, for "only the captain (bob) rolls for the team"."""


def out_reason(s: Settlement) -> str:
    """Why a member is out of this game, from their side: "has dropped", "has won"..."""
    won = s.winner == s.member
    return {
        (SettledBy.DROP, False): "has dropped",
        (SettledBy.DROP, True): "has won on the box's drop",
        (SettledBy.RESIGN, False): "has resigned",
        (SettledBy.RESIGN, True): "has accepted the box's resignation",
        (SettledBy.FORFEIT, True): "has won when the box forfeited",
        (SettledBy.FORFEIT, False): "has forfeited",
        (SettledBy.BEAR_OFF, True): "has won",
        (SettledBy.BEAR_OFF, False): "has lost",
    }[(s.how, won)]


def table_text(
    options: ChouetteOptions,
    ordering: LineOrder | None,
    line: tuple[str, ...],
    game: ChouetteGame | None,
    ledger: Ledger,
) -> str:
    """A chouette's state as readable text: options, line and roles, the board, each cube,
    the ledger (the fields of :class:`~engine.chouette.table.Chouette`)."""
    o = options
    flags = [f"{o.cubes} cube{'s' if o.cubes is CubeMode.MULTIPLE else ''}"]
    flags.append(f"consultation {o.consultation.value.replace('_', ' ')}")
    if o.auto_doubles:
        flags.append(f"automatic doubles up to {o.auto_doubles}")
    flags += [name for name, on in (("beavers", o.beavers), ("jacoby", o.jacoby)) if on]
    if o.box_must_take_half:
        flags.append("box takes half")
    out = ["chouette: " + ", ".join(flags)]
    if ordering is not None:
        ranked = " > ".join("=".join(g) for g in ordering.groups)
        out.append(f"throwing for the line: {ranked}; {', '.join(ordering.to_throw)} to throw")
        if line:
            out.append(f"then: {', '.join(line)}")
    else:
        out.append("line: " + ", ".join(_line_label(p, line, game) for p in line))
    g = game
    if g is not None:
        out.append(f"game {g.number}: {_status(g)}")
        seen = "the box" if g.turn is Side.BOX else "the team"
        out.append(
            f"position {g.position.position_id()}"
            + (f" (seen by {seen})" if g.phase in (Phase.ROLL, Phase.MOVE) else "")
        )
        if g.members:
            out.append("cubes:")
        width = max((len(m.player) for m in g.members), default=0)
        out += [f"  {m.player:<{width}}  {_cube_text(g, m)}" for m in g.members]
    out.append("ledger: " + ", ".join(f"{p} {v:+d}" if v else f"{p} 0" for p, v in ledger.items()))
    return "\n".join(out)


def _line_label(p: str, line: tuple[str, ...], g: ChouetteGame | None) -> str:
    """``p`` in the settled line, with their role in the game in progress (or the next)."""
    if g is not None and not g.is_over:
        if p == g.box:
            return f"{p} (box)"
        m = g.member(p)
        if m is None:
            return f"{p} (next game)"
        if p == g.acting_captain:
            return f"{p} (captain)" if p == g.captain else f"{p} (acting captain)"
        if not m.in_game:
            return f"{p} (out)"
        return p
    # Between games the line says who is box and captain next.
    if p == line[0]:
        return f"{p} (box)"
    return f"{p} (captain)" if len(line) > 1 and p == line[1] else p


def _status(g: ChouetteGame) -> str:
    if g.phase is Phase.OPENING:
        return f"opening throw ({g.box} and {g.captain})"
    if g.phase is Phase.OVER and not g.settlements:
        return "over, not played (too few players were left before its first throw)"
    if g.phase is Phase.OVER:
        won = g.box_won()
        return f"over, the box {'beat' if won else 'lost to'} the captain"
    side = "box" if g.turn is Side.BOX else "team"
    if g.phase is Phase.MOVE:
        assert g.dice is not None
        return f"{side} on roll, {g.on_roll} to move {g.dice[0]}-{g.dice[1]}"
    waiting = g.waiting_for()
    if waiting:
        return f"{side} on roll, waiting for {', '.join(waiting)}"
    return f"{side} on roll, {g.on_roll} to roll"


def _cube_text(g: ChouetteGame, m: MemberGame) -> str:
    if m.settlement is not None:
        s = m.settlement
        return f"out: {s.how.value.replace('_', ' ')}, {s.loser} paid {s.winner} {s.points}"
    names = {Side.BOX: g.box, Side.TEAM: m.player}
    owner = "centred" if m.cube.owner is None else f"owned by {names[Side(m.cube.owner)]}"
    text = f"{m.cube.value} {owner}"
    if m.pending is not None:
        p = m.pending
        verb, by = ("beavered", p.owner_if_taken) if p.beavered else ("doubled", p.doubler)
        text += f"; {verb} to {p.value} by {names[Side(by)]}, "
        text += f"{names[Side(p.responder)]} to answer"
    if m.resignation is not None:
        r = m.resignation
        offerer, to = names[Side(r.by)], names[Side(1 - r.by)]
        text += f"; {offerer} offers a {r.level.name.lower()}, {to} to answer"
    return text
