"""A table's events in words: what the replay, the game logs and the terminal record say.

:func:`event_text` tells one event (a play in standard notation, :mod:`engine.notation`), from
the states on either side of it (folded with :func:`~events.domain.decider.evolve`).
"""

from __future__ import annotations

from engine.errors import EngineError
from engine.game import Phase
from engine.notation import format_play
from events.domain import types as e
from events.domain.table import Forfeited, LeaveCost, TableState, points_text

__all__ = [
    "RESULT_WORDS",
    "SKIPPED_NOTE",
    "event_text",
    "forfeits_text",
    "how_note",
    "leave_text",
    "notation_of",
]


RESULT_WORDS = {1: "a single game", 2: "a gammon", 3: "a backgammon"}
"""How a game is won, in words, by result."""


def _name(state: TableState, player: str | None) -> str:
    return state.display_name(player) if player else "?"


SKIPPED_NOTE = " (skipped: the rules do not allow it here, so it changed nothing)"
"""What follows an event that did not apply when the table was loaded (issue 27)."""


def event_text(before: TableState, event: e.Event, after: TableState) -> str:
    """One event in words, with a play in standard notation.

    ``before`` and ``after`` are the states on either side of it (the dice of a play and the
    value of a double come from them). A stored event that did not apply and was skipped
    (:func:`events.domain.decider.evolve_stored`) says so.
    """
    text = _told(before, event, after)
    return text + SKIPPED_NOTE if after.last_skipped else text


def _told(before: TableState, event: e.Event, after: TableState) -> str:
    who = _name(before, getattr(event, "player", None))
    match event:
        case e.TableCreated():
            extras = [k for k in ("beavers", "jacoby") if getattr(event.options, k)]
            if event.options.auto_doubles:
                extras.append(f"automatic doubles up to {event.options.auto_doubles}")
            what = (
                f"a match to {event.options.match_length}"
                if event.kind == "match"
                else f"a {event.kind} table"
            )
            more = f" ({', '.join(extras)})" if extras else ""
            return f"{_name(after, event.created_by)} creates {what}{more}"
        case e.PlayerJoined():
            seat = f" in seat {event.seat}" if event.seat is not None else ""
            return f"{_name(after, event.player)} sits down{seat}"
        case e.PlayerLeft() if event.player in before.walking_away:
            return f"{who} leaves the table: ran out of time while not connected"
        case e.PlayerLeft():
            return f"{who} leaves"
        case e.TimeExpired():
            away = " while not connected: leaves the table when the game ends"
            return f"{who} runs out of time and forfeits" + (away if event.absent else "")
        case e.GameStarted():
            return f"game {event.game} starts (dice commitment {event.dice_commitment[:16]}…)"
        case e.ClientSeedAdded():
            return f"{who} adds a dice seed of their own: {event.seed!r}"
        case e.OpeningThrow():
            ch = before.chouette
            if ch is not None and ch.game is not None:
                names = [_name(before, ch.game.box), _name(before, ch.game.captain)]
            else:
                names = [_name(before, p) for p in before.seats]
            d0, d1 = event.dice
            tie = " — a tie, throw again" if d0 == d1 else ""
            return f"opening throw: {names[0]} {d0}, {names[1]} {d1}{tie}"
        case e.DiceRolled():
            game = after.game or (after.chouette.game if after.chouette else None)
            passed = game is not None and game.phase is not Phase.MOVE and not game.is_over
            tail = ": no legal move" if passed else ""
            return f"{who} rolls {event.dice[0]}-{event.dice[1]}{tail}"
        case e.CheckersMoved():
            game = before.game or (before.chouette.game if before.chouette else None)
            dice = game.dice if game else None
            roll = f"{dice[0]}{dice[1]}: " if dice else ""
            return f"{who} plays {roll}{notation_of(before, event) or '(no move)'}"
        case e.CubeOffered():
            if after.kind == "chouette":
                cubes = ", ".join(_name(before, m) for m in event.cubes) or "every cube it may"
                return f"{who} doubles" + (
                    f" ({cubes})" if event.cubes or _is_box(before, event.player) else ""
                )
            value = after.game.pending.value if after.game and after.game.pending else 0
            return f"{who} doubles to {value}" if value else f"{who} doubles"
        case e.CubeTaken():
            return f"{who} takes{_on_cube(before, event.cube)}"
        case e.CubeBeavered():
            value = after.game.pending.value if after.game and after.game.pending else 0
            to = f" to {value}" if value else ""
            return f"{who} beavers{to}{_on_cube(before, event.cube)}"
        case e.CubeDropped():
            return f"{who} drops{_on_cube(before, event.cube)}"
        case e.ResignationOffered():
            return f"{who} offers to resign {RESULT_WORDS.get(event.level, event.level)}"
        case e.ResignationAccepted():
            return f"{who} accepts the resignation{_on_cube(before, event.cube)}"
        case e.ResignationDeclined():
            return f"{who} declines the resignation{_on_cube(before, event.cube)}"
        case e.GameEnded() if after.kind == "chouette":
            paid = [
                f"{_name(before, st.player)} {st.amount:+d}"
                for st in event.settlements
                if st.amount
            ]
            forfeits = forfeits_text(before)
            return (
                f"game {event.game} ends: {', '.join(paid) or 'nobody pays'}"
                + (f" ({forfeits})" if forfeits else "")
                + f"; its dice seed was {event.seed[:16]}…"
            )
        case e.GameEnded(how="unplayed"):
            return (
                f"game {event.game} ends unplayed (a player left before its first throw)"
                f"; its dice seed was {event.seed[:16]}…"
            )
        case e.GameEnded():
            points = event.result * event.cube
            how = how_note(event.how, forfeits_text(before))
            return (
                f"{_name(before, event.winner)} wins {RESULT_WORDS.get(event.result, '?')}{how}: "
                f"{event.result} × cube {event.cube} = {points_text(points)}"
                f"; game {event.game}'s dice seed was {event.seed[:16]}…"
            )
        case e.MatchEnded():
            return f"{_name(before, event.winner)} wins the match {'-'.join(map(str, event.score))}"
        case e.LineThrow():
            throws = ", ".join(f"{_name(before, p)} {d}" for p, d in event.throws.items())
            return f"throws for the line: {throws}"
        case e.LineRotated():
            text = "the line is now " + ", ".join(_name(before, p) for p in event.line)
            if not event.absent:
                return text
            away = before.names_text(event.absent)
            waits = len(event.line) - len(event.absent) < 2
            tail = "; the next game waits until two of them are connected" if waits else ""
            return f"{text} ({away} not connected{tail})"
        case e.ChatPosted():
            return f"{who}: {event.text}"
    return e.tag(event).replace("_", " ")


def _is_box(state: TableState, player: str) -> bool:
    ch = state.chouette
    return ch is not None and ch.game is not None and ch.game.box == player


def _on_cube(state: TableState, member: str) -> str:
    return f" on {_name(state, member)}'s cube" if member else ""


def notation_of(before: TableState, event: e.CheckersMoved) -> str:
    if event.notation:
        return event.notation
    game = before.game
    if game is None:
        return ""
    try:
        return format_play(game.position, [(a, b) for a, b in event.moves])
    except EngineError:
        return " ".join(f"{a}/{b}" for a, b in event.moves)


def forfeits_text(state: TableState) -> str:
    """Who forfeited in the current (or just ended) game, in words: "Ann ran out of time",
    "Ann ran out of time and Bob left"; '' if nobody did."""
    said = [
        f"{_name(state, player)} {'left' if how == 'left' else 'ran out of time'}"
        for player, how in state.forfeits
    ]
    if len(said) <= 2:
        return " and ".join(said)
    return ", ".join(said[:-1]) + " and " + said[-1]


def how_note(how: str, forfeits: str = "") -> str:
    """How a game ended, as a note after its result: for a forfeit, who forfeited and how
    (``forfeits``, :func:`forfeits_text`), when known."""
    if how == "forfeit" and forfeits:
        return f" (forfeit: {forfeits})"
    return HOW_WORDS.get(how, "")


HOW_WORDS = {
    "drop": " (double dropped)",
    "resign": " (resignation)",
    "forfeit": " (forfeit: a player left or ran out of time)",
}
"""How a game ended, as a note after its result (bearing off needs none)."""


def _worth(g: Forfeited, cube: str) -> str:
    """A forfeited game's worth: "a gammon on your cube of 2"."""
    return f"{RESULT_WORDS.get(g.result, '?')} {cube} {g.cube}"


def leave_text(state: TableState, player: str, cost: LeaveCost) -> str:
    """What leaving now costs ``player`` (:func:`events.domain.table.leave_cost`), in a sentence
    the page asks them to confirm: "Leaving now forfeits this game: you lose 6 points (a
    backgammon at a cube of 2)."; in a chouette, their own game against the box, or the box's
    against every member still in the game (the sum, then each member's)."""
    lose = points_text(-cost.points)
    if state.kind == "chouette":
        box = state.chouette.box if state.chouette else None
        if player != box or len(cost.games) == 1:
            g = cost.games[0]
            if player != box:
                what, cube = "your game against the box", "on your cube of"
            else:
                who = _name(state, g.winner)
                what, cube = f"the box's game against {who}", f"on {who}'s cube of"
            return f"Leaving now forfeits {what}: you lose {lose} ({_worth(g, cube)})."
        each = "; ".join(
            f"{_name(state, g.winner)} {points_text(g.points)}: {_worth(g, 'on a cube of')}"
            for g in cost.games
        )
        return (
            f"Leaving now forfeits the box's game against each of the {len(cost.games)} "
            f"members still in it, on their own cubes: you lose {lose} in all ({each})."
        )
    opponent = next((p for p in state.seats if p is not None and p != player), None)
    wins = f"{_name(state, opponent)} wins it" if opponent else "your opponent wins it"
    if not cost.games:
        return f"Leaving now forfeits the match: {wins}, whatever the score."
    game = f"this game: you lose {lose} ({_worth(cost.games[0], 'at a cube of')})"
    if cost.match:
        return f"Leaving now forfeits the match ({wins}) and {game}."
    return f"Leaving now forfeits {game}."
