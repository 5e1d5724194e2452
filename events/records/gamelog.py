"""A table's events read back as games, entry by entry: the logs the exports and the terminal
record are written from.

- :func:`table_log`: the games of a money or match table (throws, plays, cube actions,
  resignations, results);
- :func:`chouette_log`: a chouette's games, and each team member's own game against the box (the
  shared checker play with that member's cube, as :class:`MemberRecord`);
- :func:`fold_states`: the state after each event.

Pure functions of the events, folded with :func:`~events.domain.decider.evolve_stored`: the events
are
read back from the store, so one that does not apply (issue 27: an opening throw written after
the match was forfeited) makes no entry; the log lists it in ``skipped`` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from engine.chouette import Side
from engine.game import Phase
from engine.matfile import MatAction
from events.domain import types as e
from events.domain.decider import evolve_stored
from events.domain.narration import event_text, forfeits_text, notation_of
from events.domain.table import TableState

__all__ = [
    "ChouetteGameLog",
    "ChouetteLog",
    "Entry",
    "GameLog",
    "MemberRecord",
    "SkippedEntry",
    "TableLog",
    "chouette_log",
    "fold_states",
    "table_log",
]


@dataclass(frozen=True, slots=True)
class Entry:
    """One thing that happened in a game."""

    version: int
    kind: str
    """``opening`` (a throw of one die each), ``roll`` (a throw and its play), ``double``,
    ``beaver``, ``take``, ``drop``, ``resign``, ``accept``, ``decline``, ``seed``."""
    seat: int | None = None
    """Who acted (0 or 1); None for an opening throw."""
    dice: tuple[int, int] | None = None
    moves: tuple[tuple[int, int], ...] = ()
    notation: str = ""
    value: int = 0
    """The cube value offered (double, beaver) or the resignation level."""
    position_id: str = ""
    """The position before the entry, seen by the player on roll (or to act)."""
    match_id: str = ""
    """The Match ID before the entry."""
    text: str = ""
    """The entry in words."""


@dataclass(frozen=True, slots=True)
class SkippedEntry:
    """A stored event that did not apply to the table as it stood, and changed nothing."""

    version: int
    type: str
    reason: str
    """Why it does not apply, as the rules say (``the match is over``)."""


def _noting(skipped: list[SkippedEntry]) -> Callable[[int, e.Event, str], None]:
    """An ``on_skip`` for :func:`~events.domain.decider.evolve_stored` that lists what it skips."""
    return lambda version, ev, reason: skipped.append(SkippedEntry(version, e.tag(ev), reason))


@dataclass(slots=True)
class GameLog:
    number: int
    players: tuple[str, str]
    """The seated players' ids."""
    names: tuple[str, str]
    score: tuple[int, int]
    """Before the game: match score, or points won so far in money play."""
    crawford: bool
    commitment: str
    started_at: int
    entries: list[Entry] = field(default_factory=list)
    client_seeds: list[str] = field(default_factory=list)
    auto_doubles: int = 0
    winner: int | None = None
    result: int = 0
    cube: int = 0
    how: str = ""
    seed: str = ""
    ended_at: int = 0
    forfeits: str = ""
    """Who forfeited the game, in words ("Ann ran out of time"), if it was a forfeit."""

    @property
    def points(self) -> int:
        return self.result * self.cube


@dataclass(slots=True)
class TableLog:
    table_id: str
    kind: str
    options: e.TableOptions
    match_length: int
    games: list[GameLog] = field(default_factory=list)
    match_winner: str = ""
    final_score: tuple[int, int] = (0, 0)
    names: dict[str, str] = field(default_factory=dict)
    skipped: list[SkippedEntry] = field(default_factory=list)
    """Stored events that did not apply and were skipped, in order."""


def table_log(events: Sequence[e.Event]) -> TableLog:
    """The games of a money or match table, entry by entry.

    :raises ValueError: a chouette (its record is per member; see the chouette export).
    """
    state = TableState()
    log: TableLog | None = None
    game: GameLog | None = None
    skipped: list[SkippedEntry] = []
    on_skip = _noting(skipped)
    for ev in events:
        before = state
        state = evolve_stored(state, ev, on_skip)
        if isinstance(ev, e.TableCreated):
            if ev.kind == "chouette":
                raise ValueError("a chouette's record is per team member")
            log = TableLog(ev.table_id, ev.kind, ev.options, ev.options.match_length)
            log.skipped = skipped
            continue
        assert log is not None, "the first event of a table is table_created"
        if state.last_skipped:
            continue  # it changed nothing: no entry (it is in log.skipped)
        log.names.update(dict(state.names))
        if isinstance(ev, e.GameStarted):
            series = state.match
            assert series is not None
            p0, p1 = (state.seats[0] or "?"), (state.seats[1] or "?")
            game = GameLog(
                ev.game,
                (p0, p1),
                (state.display_name(p0), state.display_name(p1)),
                series.score,
                series.crawford,
                ev.dice_commitment,
                state.version,
            )
            log.games.append(game)
            continue
        if isinstance(ev, e.MatchEnded):
            log.match_winner = ev.winner
            continue
        if game is None or isinstance(ev, (e.PlayerJoined, e.PlayerLeft, e.ChatPosted)):
            continue
        seat = before.seat_of(getattr(ev, "player", "")) if hasattr(ev, "player") else None
        g_before = before.game
        ids = (
            (g_before.position_id(), before.match.match_id())
            if g_before is not None and before.match is not None
            else ("", "")
        )
        found = _entry_of(ev, before, state, seat)
        if found is not None:
            kind, fields = found
            game.entries.append(
                Entry(
                    state.version,
                    kind,
                    position_id=ids[0],
                    match_id=ids[1],
                    text=event_text(before, ev, state),
                    **fields,
                )
            )
        if isinstance(ev, e.ClientSeedAdded):
            game.client_seeds.append(ev.seed)
        elif isinstance(ev, e.OpeningThrow) and state.game is not None:
            game.auto_doubles = state.game.auto_doubles
        elif isinstance(ev, e.GameEnded):
            game.winner = before.seat_of(ev.winner)
            game.result, game.cube, game.how = ev.result, ev.cube, ev.how
            game.forfeits = forfeits_text(before)
            game.seed, game.ended_at = ev.seed, state.version
    if log is None:
        raise ValueError("no table_created event")
    if state.match is not None:
        log.final_score = state.match.score
    return log


def _entry_of(
    ev: e.Event, before: TableState, after: TableState, seat: int | None
) -> tuple[str, dict[str, Any]] | None:
    """The kind and fields of the entry an event makes, if it makes one."""
    match ev:
        case e.ClientSeedAdded():
            return "seed", {"seat": seat}
        case e.OpeningThrow():
            return "opening", {"dice": ev.dice}
        case e.DiceRolled():
            game = after.game
            if game is not None and game.phase is not Phase.MOVE and not game.is_over:
                return "roll", {"seat": seat, "dice": ev.dice}  # no legal move: turn passed
            return None
        case e.CheckersMoved():
            played = before.game
            assert played is not None and played.dice is not None
            return "roll", {
                "seat": seat,
                "dice": played.dice,
                "moves": tuple((a, b) for a, b in ev.moves),
                "notation": notation_of(before, ev),
            }
        case e.CubeOffered() | e.CubeBeavered():
            pending = after.game.pending if after.game else None
            kind = "double" if isinstance(ev, e.CubeOffered) else "beaver"
            return kind, {"seat": seat, "value": pending.value if pending else 0}
        case e.CubeTaken():
            return "take", {"seat": seat}
        case e.CubeDropped():
            return "drop", {"seat": seat}
        case e.ResignationOffered():
            return "resign", {"seat": seat, "value": ev.level}
        case e.ResignationAccepted():
            return "accept", {"seat": seat}
        case e.ResignationDeclined():
            return "decline", {"seat": seat}
    return None


@dataclass(slots=True)
class MemberRecord:
    """One team member's game against the box: the shared checker play with that member's own
    cube actions, as long as the member was in the game."""

    member: str
    actions: list[MatAction] = field(default_factory=list)
    """Player 0 is the box, player 1 the member (the team's plays are theirs)."""
    versions: list[int] = field(default_factory=list)
    """The version of the event each action was recorded from (the analysis's jump points)."""
    winner: int | None = None
    points: int = 0
    how: str = ""


@dataclass(slots=True)
class ChouetteGameLog:
    number: int
    line: tuple[str, ...]
    """The line at the start: box, captain, then the team."""
    commitment: str
    started_at: int
    box: str = ""
    captain: str = ""
    members: dict[str, MemberRecord] = field(default_factory=dict)
    entries: list[dict[str, Any]] = field(default_factory=list)
    client_seeds: list[str] = field(default_factory=list)
    settlements: list[dict[str, Any]] = field(default_factory=list)
    seed: str = ""
    ended_at: int = 0
    auto_doubles: int = 0
    forfeits: dict[str, str] = field(default_factory=dict)
    """Who forfeited in the game and how: ``time`` or ``away`` (ran out of time, connected or
    not), or ``left``."""


@dataclass(slots=True)
class ChouetteLog:
    table_id: str
    options: e.TableOptions
    names: dict[str, str] = field(default_factory=dict)
    games: list[ChouetteGameLog] = field(default_factory=list)
    ledger: dict[str, int] = field(default_factory=dict)
    skipped: list[SkippedEntry] = field(default_factory=list)
    """Stored events that did not apply and were skipped, in order."""


def chouette_log(events: Sequence[e.Event]) -> ChouetteLog:
    """A chouette's games: every event in words, and each member's own game against the box
    (the shared checker play and that member's cube actions, found by comparing each member's
    cube before and after every event)."""
    state = TableState()
    log: ChouetteLog | None = None
    game: ChouetteGameLog | None = None
    skipped: list[SkippedEntry] = []
    on_skip = _noting(skipped)
    for ev in events:
        before = state
        state = evolve_stored(state, ev, on_skip)
        if isinstance(ev, e.TableCreated):
            log = ChouetteLog(ev.table_id, ev.options)
            log.skipped = skipped
            continue
        assert log is not None, "the first event of a table is table_created"
        if state.last_skipped:
            continue  # it changed nothing: no entry (it is in log.skipped)
        log.names.update(dict(state.names))
        ch, ch0 = state.chouette, before.chouette
        if isinstance(ev, e.GameStarted):
            game = ChouetteGameLog(ev.game, tuple(ev.players), ev.dice_commitment, state.version)
            log.games.append(game)
        if game is None:
            continue
        g, g0 = (ch.game if ch else None), (ch0.game if ch0 else None)
        if g is not None and g.number == game.number and not game.box:
            game.box, game.captain = g.box, g.captain
            game.line = (g.box, *(m.player for m in g.members))
            game.members = {m.player: MemberRecord(m.player) for m in g.members}
        entry: dict[str, Any] = {
            "v": state.version,
            "type": e.tag(ev),
            "text": event_text(before, ev, state),
        }
        player = getattr(ev, "player", None)
        if player:
            entry["player"] = player
        if isinstance(ev, e.ClientSeedAdded):
            game.client_seeds.append(ev.seed)
        elif isinstance(ev, e.OpeningThrow) and g is not None:
            game.auto_doubles = g.auto_doubles
        elif isinstance(ev, e.GameEnded):
            game.seed, game.ended_at = ev.seed, state.version
            game.forfeits = dict(before.forfeits)
            game.settlements = [msgspec.to_builtins(s) for s in ev.settlements]
        if g0 is not None and g is not None and g0.number == game.number:
            entry.update(_chouette_moves(g0, g, ev, game))
            for record in game.members.values():
                record.versions += [state.version] * (len(record.actions) - len(record.versions))
        game.entries.append(entry)
    if log is None:
        raise ValueError("no table_created event")
    if state.chouette is not None:
        log.ledger = dict(state.chouette.ledger)
    return log


def _chouette_moves(g0: Any, g: Any, ev: e.Event, game: ChouetteGameLog) -> dict[str, Any]:
    """Record the event in each member's own game; the event's play fields for the JSON."""
    fields: dict[str, Any] = {}
    mover = 0 if g0.turn == Side.BOX else 1
    played = isinstance(ev, e.CheckersMoved) or (
        isinstance(ev, e.DiceRolled) and g.phase is not Phase.MOVE and not g.is_over
    )
    if played:
        dice = g0.dice if isinstance(ev, e.CheckersMoved) else ev.dice  # type: ignore[attr-defined]
        moves = tuple((a, b) for a, b in getattr(ev, "moves", ()))
        fields = {
            "side": "box" if mover == 0 else "team",
            "dice": list(dice),
            "moves": [list(m) for m in moves],
            "notation": getattr(ev, "notation", ""),
            "position_id": g0.position.position_id(),
        }
    for m0 in g0.members:
        if not m0.in_game:
            continue
        m = g.member(m0.player)
        record = game.members.get(m0.player)
        if m is None or record is None:
            continue
        acts = record.actions
        if played:
            acts.append(MatAction(mover, "roll", tuple(dice), moves))
        p0, p1 = m0.pending, m.pending
        if p0 is None and p1 is not None:
            acts.append(MatAction(int(p1.doubler), "double", value=p1.value))
        elif p0 is not None and p1 is not None and p1.beavered and not p0.beavered:
            acts.append(MatAction(int(p0.responder), "beaver", value=p1.value))
        elif p0 is not None and p1 is None and m.settlement is None:
            acts.append(MatAction(int(p0.responder), "take"))
        s = m.settlement
        if s is not None:
            winner = 0 if s.winner == g.box else 1
            record.winner, record.points, record.how = winner, s.points, s.how.value
            if s.how.value == "drop" and p0 is not None:
                acts.append(MatAction(int(p0.responder), "drop"))
            elif s.how.value in ("resign", "forfeit"):
                acts.append(MatAction(winner, "win", value=s.points))
    return fields


def fold_states(events: Sequence[e.Event], state: TableState | None = None) -> Iterator[TableState]:
    """The state after each event, in order."""
    s = state or TableState()
    for ev in events:
        s = evolve_stored(s, ev)
        yield s
