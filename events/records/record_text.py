"""A table's record as text for the terminal: ``chouette replay`` prints :func:`record_lines`
(the games, move by move) or :func:`state_text` (the table at one version).

Both fold the stored events with :func:`~events.domain.decider.evolve_stored`: an event that does
not
apply is skipped, and the record names it (its version, type and why) rather than failing."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from engine.position import board_text
from events.domain import types as e
from events.domain.decider import evolve_stored
from events.domain.narration import RESULT_WORDS, event_text, how_note
from events.domain.table import TableState, points_text
from events.records.gamelog import (
    ChouetteGameLog,
    ChouetteLog,
    MemberRecord,
    SkippedEntry,
    chouette_log,
    fold_states,
    table_log,
)

__all__ = ["record_lines", "state_text"]


def record_lines(events: Sequence[e.Event], *, boards: bool = False) -> Iterator[str]:
    """The game record as lines of text, game by game and move by move."""
    if events and isinstance(events[0], e.TableCreated) and events[0].kind == "chouette":
        yield from _chouette_lines(events, boards)
        return
    log = table_log(events)
    states = list(fold_states(events)) if boards else []
    o = log.options
    rules = [k for k in ("beavers", "jacoby") if getattr(o, k)]
    if o.auto_doubles:
        rules.append(f"automatic doubles ≤ {o.auto_doubles}")
    what = f"match to {log.match_length}" if log.kind == "match" else "money play"
    yield f"Table {log.table_id}: {what}{' (' + ', '.join(rules) + ')' if rules else ''}"
    for g in log.games:
        yield ""
        score = f"{g.names[0]} {g.score[0]}, {g.names[1]} {g.score[1]}"
        crawford = " (Crawford game)" if g.crawford else ""
        yield f"Game {g.number}: {score}{crawford}"
        yield f"  dice commitment {g.commitment}"
        turn = 0
        for entry in g.entries:
            who = g.names[entry.seat] if entry.seat is not None else ""
            if entry.kind == "opening":
                d0, d1 = entry.dice or (0, 0)
                tie = "  tie" if d0 == d1 else ""
                yield f"  opening  {g.names[0]} {d0}, {g.names[1]} {d1}{tie}"
            elif entry.kind == "roll":
                turn += 1
                dice = f"{entry.dice[0]}{entry.dice[1]}" if entry.dice else "??"
                play = entry.notation or "(no legal move)"
                yield f"  {turn:3d}. {who:<12} {dice}: {play}"
                if boards:
                    yield from _board_lines(states[entry.version - 1])
            elif entry.kind in ("double", "beaver"):
                verb = "doubles" if entry.kind == "double" else "beavers"
                yield f"       {who:<12} {verb} to {entry.value}"
            elif entry.kind == "resign":
                yield f"       {who:<12} offers to resign {RESULT_WORDS.get(entry.value, '?')}"
            elif entry.kind == "seed":
                yield f"       {who:<12} adds a dice seed"
            else:
                verb = {"take": "takes", "drop": "drops", "accept": "accepts"}.get(
                    entry.kind, "declines"
                )
                yield f"       {who:<12} {verb}"
        if g.winner is not None:
            level = RESULT_WORDS.get(g.result, "?")
            pts = g.points
            yield (
                f"  {g.names[g.winner]} wins {level} × cube {g.cube} = {points_text(pts)}"
                + how_note(g.how, g.forfeits)
            )
            yield f"  dice seed {g.seed}"
        elif g.how == "unplayed":
            yield "  ends unplayed (before its first throw): nobody wins, nothing is paid"
            yield f"  dice seed {g.seed}"
        elif log.match_winner:
            # Left open by a server before issue 27 when the match was forfeited.
            yield "  (never played: the match ended before its first throw; seed never revealed)"
        else:
            yield "  (in play: the dice seed is still secret)"
    if log.match_winner:
        yield ""
        yield (
            f"{log.names.get(log.match_winner, log.match_winner)} wins the match "
            f"{log.final_score[0]}-{log.final_score[1]}"
        )
    yield from _skipped_lines(log.skipped)


def _skipped_lines(skipped: Sequence[SkippedEntry]) -> Iterator[str]:
    """The stored events that did not apply, each named (none: nothing)."""
    if not skipped:
        return
    yield ""
    count = len(skipped)
    yield f"{count} stored event{'s' * (count != 1)} did not apply and changed nothing:"
    for x in skipped:
        yield f"  version {x.version}: {x.type} skipped ({x.reason})"


def _board_lines(state: TableState) -> Iterator[str]:
    game = state.game
    if game is None:
        return
    for line in board_text(game.position).splitlines():
        yield "        " + line


def state_text(events: Sequence[e.Event], at: int) -> str:
    """The table at version ``at``, for ``chouette replay --at``: the event in words, the IDs
    and the board."""
    before = TableState()
    for ev in events[: at - 1]:
        before = evolve_stored(before, ev)
    event = events[at - 1]
    after = evolve_stored(before, event)
    lines = [f"version {at} of {len(events)}: {event_text(before, event, after)}"]
    game = after.game
    if game is not None and after.match is not None:
        lines.append(f"Position ID {game.position_id()}   Match ID {after.match.match_id()}")
        score = after.match.score
        names = [after.display_name(p) if p else "?" for p in after.seats]
        lines.append(
            f"{names[0]} {score[0]}, {names[1]} {score[1]}; {game.phase.value}, "
            f"cube {game.cube.value}"
        )
        lines.append(board_text(game.position))
    return "\n".join(lines)


def _chouette_lines(events: Sequence[e.Event], boards: bool) -> Iterator[str]:
    log = chouette_log(events)
    states = list(fold_states(events)) if boards else []
    o = log.options
    rules = [f"{o.cube_mode} cube{'s' if o.cube_mode == 'multiple' else ''}"]
    rules += [k for k in ("beavers", "jacoby") if getattr(o, k)]
    yield f"Table {log.table_id}: chouette ({', '.join(rules)})"
    for g in log.games:
        yield ""
        names = [log.names.get(p, p) for p in g.line]
        roles = [f"{names[0]} (box)"] + (
            [f"{names[1]} (captain)", *names[2:]] if len(names) > 1 else []
        )
        yield f"Game {g.number}: {', '.join(roles)}"
        yield f"  dice commitment {g.commitment}"
        turn = 0
        for x in g.entries:
            if x["type"] in ("game_started", "line_rotated"):
                continue
            if "dice" in x:
                turn += 1
                who = log.names.get(x.get("player", ""), x.get("player", ""))
                dice = "".join(map(str, x["dice"]))
                play = x.get("notation") or "(no legal move)"
                yield f"  {turn:3d}. {who:<12} {x['side']:<4} {dice}: {play}"
                if boards:
                    yield from _board_lines_chouette(states[x["v"] - 1])
            elif x["type"] not in ("checkers_moved", "dice_rolled"):
                yield f"       {x['text']}"
        for name, r in g.members.items():
            if r.winner is not None:
                winner = log.names.get(g.box, g.box) if r.winner == 0 else log.names.get(name)
                yield (
                    f"  {log.names.get(name, name)}'s game: {winner} wins "
                    f"{points_text(r.points)} ({_member_how(log, g, name, r)})"
                )
        yield f"  dice seed {g.seed}" if g.seed else "  (in play: the dice seed is still secret)"
    yield ""
    yield "ledger: " + ", ".join(f"{log.names.get(p, p)} {v:+d}" for p, v in log.ledger.items())
    yield from _skipped_lines(log.skipped)


def _member_how(log: ChouetteLog, g: ChouetteGameLog, member: str, r: MemberRecord) -> str:
    """How a member's game against the box ended, in words; a forfeit names who forfeited
    (the loser: the member when the box won, else the box) and how."""
    how = r.how.replace("_", " ")
    loser = member if r.winner == 0 else g.box
    why = g.forfeits.get(loser)
    if r.how != "forfeit" or why is None:
        return how
    said = "left" if why == "left" else "ran out of time"
    return f"forfeit: {log.names.get(loser, loser)} {said}"


def _board_lines_chouette(state: TableState) -> Iterator[str]:
    ch = state.chouette
    if ch is None or ch.game is None:
        return
    for line in board_text(ch.game.position).splitlines():
        yield "        " + line
