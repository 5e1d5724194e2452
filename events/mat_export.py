"""A table's events read back as games: in words, as records, and as files for analysis.

Pure functions of the events (folded with :func:`~events.decider.evolve`), used by the replay
and export tools (``server/replay.py``, ``server/tools.py``):

- :func:`event_text`: one event in words, a play in standard notation;
- :func:`table_log`: the games of a money or match table, entry by entry (throws, plays, cube
  actions, resignations, results), from which :func:`match_record` builds a
  :class:`~engine.matfile.MatMatch` (:func:`export_mat`) and :func:`export_json` one JSON
  document;
- :func:`chouette_log`: a chouette's games, and each team member's own game against the box (the
  shared checker play with that member's cube), exported one ``.mat`` file per member
  (:func:`member_record`) plus :func:`chouette_json` for the whole table;
- :func:`import_mat`: a ``.mat`` file as the events of a new table, every action run through the
  decider with the file's dice.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from engine.errors import EngineError
from engine.game import Phase
from engine.matfile import MatAction, MatFormatError, MatGame, MatMatch, parse_mat, write_mat
from engine.notation import format_play
from events import commands as c
from events import types as e
from events.decider import TableState, decide, evolve

__all__ = [
    "RESULT_WORDS",
    "ChouetteLog",
    "GameLog",
    "MemberRecord",
    "TableLog",
    "chouette_json",
    "chouette_log",
    "event_text",
    "export_chouette",
    "export_json",
    "export_mat",
    "file_name",
    "fold_states",
    "import_mat",
    "json_text",
    "match_record",
    "member_record",
    "notation_of",
    "table_log",
]


RESULT_WORDS = {1: "a single game", 2: "a gammon", 3: "a backgammon"}
"""How a game is won, in words, by result."""


def _name(state: TableState, player: str | None) -> str:
    return state.display_name(player) if player else "?"


def event_text(before: TableState, event: e.Event, after: TableState) -> str:
    """One event in words, with a play in standard notation.

    ``before`` and ``after`` are the states on either side of it (the dice of a play and the
    value of a double come from them).
    """
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
        case e.PlayerLeft():
            return f"{who} leaves"
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
            return (
                f"game {event.game} ends: {', '.join(paid) or 'nobody pays'}"
                f"; its dice seed was {event.seed[:16]}…"
            )
        case e.GameEnded():
            points = event.result * event.cube
            how = {"drop": " (double dropped)", "resign": " (resignation)"}.get(event.how, "")
            return (
                f"{_name(before, event.winner)} wins {RESULT_WORDS.get(event.result, '?')}{how}: "
                f"{event.result} × cube {event.cube} = {points} point{'s' * (points != 1)}"
                f"; game {event.game}'s dice seed was {event.seed[:16]}…"
            )
        case e.MatchEnded():
            return f"{_name(before, event.winner)} wins the match {'-'.join(map(str, event.score))}"
        case e.LineThrow():
            throws = ", ".join(f"{_name(before, p)} {d}" for p, d in event.throws.items())
            return f"throws for the line: {throws}"
        case e.LineRotated():
            return "the line is now " + ", ".join(_name(before, p) for p in event.line)
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


def table_log(events: Sequence[e.Event]) -> TableLog:
    """The games of a money or match table, entry by entry.

    :raises ValueError: a chouette (its record is per member; see the chouette export).
    """
    state = TableState()
    log: TableLog | None = None
    game: GameLog | None = None
    for ev in events:
        before = state
        state = evolve(state, ev)
        if isinstance(ev, e.TableCreated):
            if ev.kind == "chouette":
                raise ValueError("a chouette's record is per team member")
            log = TableLog(ev.table_id, ev.kind, ev.options, ev.options.match_length)
            continue
        assert log is not None, "the first event of a table is table_created"
        log.names.update(dict(state.names))
        if isinstance(ev, e.GameStarted):
            session = state.session
            assert session is not None
            p0, p1 = (state.seats[0] or "?"), (state.seats[1] or "?")
            game = GameLog(
                ev.game,
                (p0, p1),
                (state.display_name(p0), state.display_name(p1)),
                session.score,
                session.crawford,
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
            (g_before.position_id(), before.session.match_id())
            if g_before is not None and before.session is not None
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
            game.seed, game.ended_at = ev.seed, state.version
    if log is None:
        raise ValueError("no table_created event")
    if state.session is not None:
        log.final_score = state.session.score
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


def match_record(events: Sequence[e.Event]) -> MatMatch:
    """The table's games as a :class:`~engine.matfile.MatMatch` (money play: a 0 point match)."""
    log = table_log(events)
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


class _FileDice:
    """The dice of an imported file, thrown in order. An imported game's dice were never
    committed to: its ``game_started`` carries no commitment and its ``game_ended`` no seed,
    which the audit reports as uncommitted (legal, but not provably fair)."""

    def __init__(self) -> None:
        self.queue: list[int] = []

    def commitment(self, game: int) -> str:
        return ""

    def reveal(self, game: int) -> str:
        return ""

    def die(self, game: int, counter: int) -> int:
        if not self.queue:
            raise MatFormatError(f"game {game}: the file has no throw here")
        return self.queue.pop(0)


def _player_ids(names: tuple[str, str]) -> tuple[str, str]:
    ids = [("mat:" + (" ".join(n.split()) or f"player {i + 1}"))[:64] for i, n in enumerate(names)]
    if ids[0] == ids[1]:
        ids[1] = ids[1][:62] + "-2"
    return ids[0], ids[1]


def import_mat(text: str, table_id: str) -> list[list[e.Event]]:
    """The events of a new table that replays a ``.mat`` file, one list per command.

    Every action goes through the decider, so an illegal play or cube action in the file is
    refused with the engine's reason and the game and entry it is in. A game's opening throw is
    rebuilt from its first roll (the mover has the higher die); a resignation (``Wins`` before
    the game is over) must come when the resigning player may offer it here: on their turn,
    before rolling.

    :raises MatFormatError: a file that cannot be read or replayed.
    """
    match = parse_mat(text)
    if not match.games:
        raise MatFormatError("the file has no games")
    headers = {k.lower(): v.lower() for k, v in match.header}
    kind = "match" if match.length else "money"
    options = e.TableOptions(
        match_length=match.length,
        jacoby=kind == "money" and headers.get("jacoby", "off") in ("on", "true", "1", "yes"),
        beavers=kind == "money" and headers.get("beaver", "off") in ("on", "true", "1", "yes"),
    )
    ids = _player_ids(match.games[0].names or match.players)
    names = match.games[0].names or match.players
    dice = _FileDice()
    state = TableState(table_id=table_id)
    steps: list[list[e.Event]] = []

    def run(actor: str, command: c.Command, where: str) -> None:
        nonlocal state
        try:
            events = decide(state, actor, command, dice)
        except EngineError as exc:
            raise MatFormatError(f"{where}: {exc}") from exc
        for ev in events:
            state = evolve(state, ev)
        steps.append(events)

    run(ids[0], c.CreateTable(kind=kind, options=options), "creating the table")  # type: ignore[arg-type]
    run(ids[0], c.Join(seat=0, display_name=names[0][:64]), "seating player 1")
    run(ids[1], c.Join(seat=1, display_name=names[1][:64]), "seating player 2")
    for mg in match.games:
        if not state.in_game:
            raise MatFormatError(f"game {mg.number}: the match is already over")
        if mg.number != state.game_no:
            raise MatFormatError(f"game {mg.number} is game {state.game_no} of the replay")
        pending_beaver = False
        for n, a in enumerate(mg.actions, 1):
            where = f"game {mg.number}, entry {n} ({a.kind} by player {a.player + 1})"
            game = state.game
            if game is None or state.game_no != mg.number:
                if a.kind == "win":
                    continue  # the result line of a game that has ended
                raise MatFormatError(f"{where}: the game is already over")
            me = ids[a.player]
            if game.is_over:
                continue
            if a.kind == "roll":
                assert a.dice is not None
                if pending_beaver and game.phase is Phase.DOUBLED:
                    run(me, c.Take(), where)
                    game = state.game
                    assert game is not None
                pending_beaver = False
                hi, lo = max(a.dice), min(a.dice)
                if game.phase is Phase.OPENING:
                    if hi == lo:
                        raise MatFormatError(f"{where}: a game cannot open with a double")
                    dice.queue = [hi, lo] if a.player == 0 else [lo, hi]
                else:
                    dice.queue = list(a.dice)
                run(me, c.Roll(), where)
                game = state.game
                assert game is not None
                if game.phase is Phase.MOVE and game.turn == a.player:
                    run(me, c.Move(notation=a.text), where)
                elif a.text.strip():
                    raise MatFormatError(f"{where}: {a.text!r} written where no move is legal")
            elif a.kind == "double" and game.phase is Phase.DOUBLED:
                run(me, c.Beaver(), where)  # the doubled player redoubles at once: a beaver
            elif a.kind == "double":
                run(me, c.Double(), where)
            elif a.kind == "beaver":
                run(me, c.Beaver(), where)
                pending_beaver = True
            elif a.kind == "take":
                pending_beaver = False
                if game.phase is Phase.DOUBLED:
                    run(me, c.Take(), where)
            elif a.kind == "drop":
                run(me, c.Drop(), where)
            elif a.kind == "win":
                loser = ids[1 - a.player]
                cube = game.cube.value
                level = 1 if a.value <= cube else 2 if a.value <= 2 * cube else 3
                run(loser, c.Resign(level=level), where)
                run(me, c.Accept(), where)
    return steps


@dataclass(slots=True)
class MemberRecord:
    """One team member's game against the box: the shared checker play with that member's own
    cube actions, as long as the member was in the game."""

    member: str
    actions: list[MatAction] = field(default_factory=list)
    """Player 0 is the box, player 1 the member (the team's plays are theirs)."""
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


@dataclass(slots=True)
class ChouetteLog:
    table_id: str
    options: e.TableOptions
    names: dict[str, str] = field(default_factory=dict)
    games: list[ChouetteGameLog] = field(default_factory=list)
    ledger: dict[str, int] = field(default_factory=dict)


def chouette_log(events: Sequence[e.Event]) -> ChouetteLog:
    """A chouette's games: every event in words, and each member's own game against the box
    (the shared checker play and that member's cube actions, found by comparing each member's
    cube before and after every event)."""
    from engine.chouette import Side

    state = TableState()
    log: ChouetteLog | None = None
    game: ChouetteGameLog | None = None
    for ev in events:
        before = state
        state = evolve(state, ev)
        if isinstance(ev, e.TableCreated):
            log = ChouetteLog(ev.table_id, ev.options)
            continue
        assert log is not None, "the first event of a table is table_created"
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
            game.settlements = [msgspec.to_builtins(s) for s in ev.settlements]
        if g0 is not None and g is not None and g0.number == game.number:
            entry.update(_chouette_moves(g0, g, ev, game, Side))
        game.entries.append(entry)
    if log is None:
        raise ValueError("no table_created event")
    if state.chouette is not None:
        log.ledger = dict(state.chouette.ledger)
    return log


def _chouette_moves(
    g0: Any, g: Any, ev: e.Event, game: ChouetteGameLog, side: Any
) -> dict[str, Any]:
    """Record the event in each member's own game; the event's play fields for the JSON."""
    fields: dict[str, Any] = {}
    mover = 0 if g0.turn == side.BOX else 1
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
            elif s.how.value in ("resign", "leave"):
                acts.append(MatAction(winner, "win", value=s.points))
    return fields


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


def json_text(doc: Any) -> str:
    return msgspec.json.format(msgspec.json.encode(doc), indent=2).decode() + "\n"


def file_name(player: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in player)
    return safe.strip(".") or "player"


def fold_states(events: Sequence[e.Event], state: TableState | None = None) -> Iterator[TableState]:
    """The state after each event, in order."""
    s = state or TableState()
    for ev in events:
        s = evolve(s, ev)
        yield s
