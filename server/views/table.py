"""The table view: a table's state as one viewer sees it, the answer of ``GET /tables/{id}``.

One documented schema for every kind of table (:data:`TableView`, discriminated by ``kind``),
so a client draws any table with one piece of code and knows no rules: the board from the
viewer's side, whose turn it is and who the table waits for (by account id, and in a sentence
with names), every cube, the legal plays of the player to move with the single-die routes a
board needs to offer them (:func:`engine.routes.play_routes`), and the commands the viewer may
send now.

Every ``player``, ``member``, ``owner``, ``by`` and ``to_answer`` is an account id; display names
are in ``players``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

import msgspec

from engine.chouette import TARGETED_ACTIONS, Chouette, ChouetteGame, Side
from engine.errors import EngineError, InvalidIdError
from engine.game import Game, Phase
from engine.moves import Play, check_dice
from engine.notation import blot_points, format_moves
from engine.position import Position
from engine.routes import PlayTree, play_tree, routes_of
from events.domain import clocks
from events.domain.allowed import allowed, held_back, may_join
from events.domain.chat import team_can_read
from events.domain.narration import forfeits_text, leave_text
from events.domain.table import TableState, leave_cost, points_text
from events.domain.types import TableOptions

__all__ = [
    "ChouetteTableView",
    "CubeView",
    "GameView",
    "LeaveCostView",
    "LegalPlayView",
    "MatchTableView",
    "MoneyTableView",
    "PlayTreeView",
    "PlayerView",
    "SideView",
    "TableView",
    "TournamentLinkView",
    "game_view",
    "leave_cost_view",
    "legal_views",
    "play_tree_of",
    "role_of",
    "table_view",
    "targets_of",
    "viewer_turn",
]

Role = Literal["player", "box", "captain", "member", "waiting", "settled", "spectator", "anonymous"]
"""``player``: seated at a two-player table. In a chouette: ``box``, ``captain`` (the acting
captain), ``member`` (on the team, in this game), ``settled`` (on the team, their game against
the box already settled: dropped, resigned, or won by the box's drop), ``waiting`` (at the
table, not in this game: before the first game, or joined during one). ``spectator``: logged in,
not at the table; ``anonymous``: no token."""


class PlayerView(msgspec.Struct, kw_only=True):
    id: str
    """The account id."""
    name: str
    """The display name."""
    seat: int | None = None
    """0 or 1 at a two-player table; null in a chouette."""
    role: Role
    bot: bool = False
    """Sat down as a bot (docs/bots.md): one of the server's (``b_...``), which the table's
    creator may remove, or an account its owner marked as a bot, played by an outside
    program."""


class SideView(msgspec.Struct, kw_only=True):
    """One side of the board."""

    label: str
    """A seated player's name, or ``Box`` / ``Team``."""
    players: list[str]
    """Who plays this side: the seated player; the box; the team members still in the game."""
    board: list[int]
    """26 checker counts in this side's own numbering: 0 borne off, 1..24 the points (1..6 its
    home board), 25 the bar."""
    pips: int
    """This side's pip count."""
    off: int
    """Checkers borne off."""


class LegalPlayView(msgspec.Struct, kw_only=True):
    notation: str
    """The play in standard notation, as ``move`` takes it."""
    steps: list[list[tuple[int, int, bool]]]
    """Each way to make the play one checker and one die at a time: ``[from, to, hits]`` in the
    mover's numbering (25 the bar, 0 off). A non-double that moves one checker with both dice
    may have two routes; every other play has one."""


PlayTreeView = PlayTree
"""Every legal play as a tree of single-die steps (:data:`engine.routes.PlayTree`): a list of
nodes, node 0 the start of the turn; each node lists the steps a play may go on with, as
``[from, to, hits, next]`` in the mover's numbering (25 the bar, 0 off), ``next`` the node the
play goes on at, or 0 when the play is complete after this step. Each path from node 0 to a
step with ``next`` 0 is one route of a legal play (as a multiset of steps, each legal play's
routes are exactly its ``steps`` in ``legal_plays``); the steps along a path can be made in any
order a checker is there for. ``[[]]``: no legal play."""


class PendingView(msgspec.Struct, kw_only=True):
    by: str
    to_answer: str
    value: int
    """The cube's value if the double (or beaver) is taken."""
    beavered: bool


class ResignationView(msgspec.Struct, kw_only=True):
    by: str
    to_answer: str
    level: int
    """1 single, 2 gammon, 3 backgammon."""


class SettlementView(msgspec.Struct, kw_only=True):
    winner: str
    loser: str
    result: int
    """1 single, 2 gammon, 3 backgammon, as counted (Jacoby applied)."""
    cube: int
    points: int
    how: str
    """bear_off, drop, resign or forfeit."""


class CubeView(msgspec.Struct, kw_only=True):
    """A doubling cube: the table's one cube, or in a chouette one member's own."""

    member: str | None
    """The member whose cube it is (chouette); null at a two-player table."""
    value: int
    owner: str | None
    """Who owns it; null while it is in the middle."""
    turned: bool
    """Chouette: a double on it was offered and taken this game (Jacoby, "no cube, no talk")."""
    in_game: bool
    """Whether the game on this cube goes on."""
    pending: PendingView | None = None
    resignation: ResignationView | None = None
    settlement: SettlementView | None = None
    match_id: str | None = None
    """GNU Backgammon's Match ID of the game on this cube (null when it does not fit one)."""


class ForfeitView(msgspec.Struct, kw_only=True):
    """A forfeit in the game: who, and how."""

    player: str
    how: Literal["time", "left"]
    """``time``: their clock ran out; ``left``: they left in mid-game."""
    walks_away: bool = False
    """Ran out of time while not connected: they leave the table when the game ends
    (docs/rules.md §10, "Walking away")."""


class GameView(msgspec.Struct, kw_only=True):
    number: int
    phase: Literal["opening", "roll", "move", "doubled", "resignation", "over"]
    """``opening``: the opening throw is due (``roll``); ``roll``: the player on roll may double,
    resign or roll; ``move``: the dice are thrown; ``doubled``/``resignation`` (two-player
    tables): an answer is due; in a chouette, answers are due on each member's cube."""
    sides: list[SideView]
    """``sides[0]`` is the viewer's side (their seat; the box or the team in a chouette; a
    spectator sees seat 0 or the team), ``sides[1]`` the other."""
    turn: int | None
    """The index in ``sides`` of the side on turn (null during the opening throw)."""
    on_roll: str | None
    """Who throws and moves for the side on turn."""
    to_act: list[str]
    """Everyone the table waits for now: the player to roll or move, or those who owe an answer
    (several members answer the box's double at once)."""
    status: str
    """What the table waits for, in a sentence with names."""
    dice: tuple[int, int] | None
    position_id: str
    """GNU Backgammon's Position ID, seen by the side on roll."""
    match_id: str | None
    dice_commitment: str
    """SHA-256 of this game's secret dice seed, revealed in ``game_ended``."""
    cubes: list[CubeView]
    """The table's cube, or every member's own cube in a chouette."""
    legal_plays: list[LegalPlayView]
    """The legal plays of ``on_roll`` once the dice are thrown (a turn with none passes at
    once, so this is never empty in the ``move`` phase)."""
    play_tree: PlayTreeView = ((),)
    """The same legal plays as a tree of single-die steps (:data:`PlayTreeView`), as a throw's
    stream message sends them: what the web page plays from."""
    result: SettlementView | None = None
    """Two-player tables, once the game is over."""
    forfeits: list[ForfeitView] = []
    """Who forfeited in this game, in order (docs/rules.md §10): who ran out of time, and who
    left in mid-game."""


class TournamentLinkView(msgspec.Struct, kw_only=True):
    """The tournament a match table was made for, and where in it (docs/tournaments.md)."""

    tournament_id: str
    round: int
    board: int


class SeedWindowView(msgspec.Struct, kw_only=True):
    """The open seed window before a game's first throw (docs/dice.md): no die is thrown
    before it closes, when everyone in ``waiting`` has added a seed or waived, or at
    ``deadline``."""

    game: int
    deadline: int
    """When it closes at the latest, in milliseconds since the Unix epoch (server time)."""
    now: int
    """The server's time when this view was made (ms since the epoch), to count down with."""
    waiting: list[str]
    """Who it still waits for: add a seed (``add_seed``) or waive (``waive_seed``)."""
    answered: list[str]
    """Who has added a seed or waived."""
    held: list[str] = []
    """The commands the window holds back from the viewer (``roll``): not in ``allowed``
    now, allowed from ``deadline`` on, or as soon as everyone has answered (a new view says
    so). A client offers them disabled and counts down; no event marks the deadline
    (:func:`events.domain.allowed.held_back`)."""


class ClockView(msgspec.Struct, kw_only=True):
    """A player's clock (docs/rules.md §10), or the table's own (``player`` ''): the delay of
    the decision at hand, then the reserve."""

    player: str
    """An account id, or '' for the table's clock (an overdue opening or line throw, which
    the server throws when it runs out)."""
    running: bool
    delay_ms: int
    """Delay left of the decision at hand (0 when the clock is not running)."""
    reserve_ms: int
    """Reserve left, as of the view's ``now``."""
    deadline: int | None
    """When a running clock runs out, in ms since the Unix epoch (server time); null when it is
    not running."""


class LeaveCostView(msgspec.Struct, kw_only=True):
    """What ``leave`` would cost the viewer now (docs/rules.md §8, §10): the forfeit the server
    applies if they leave, worked out by the same code (:func:`events.domain.table.leave_cost`)."""

    points: int
    """The change leaving makes to the viewer's ledger: negative (what they lose), or 0 when
    leaving forfeits only a match, between its games. In a chouette, for the box: the sum
    over the members still in the game, each on their own cube."""
    match: bool
    """Whether leaving forfeits the match (the opponent wins it, whatever the score)."""
    text: str
    """The cost in a sentence, for the viewer to confirm ("Leaving now forfeits this game: you
    lose 6 points (a backgammon at a cube of 2).")."""


class HistorySettlement(msgspec.Struct, kw_only=True):
    member: str
    winner: str
    points: int
    how: str


class HistoryGame(msgspec.Struct, kw_only=True):
    game: int
    box: str
    captain: str
    settlements: list[HistorySettlement]


class _Base(msgspec.Struct, kw_only=True, tag_field="kind"):
    id: str
    name: str
    options: TableOptions
    version: int
    """The table stream's version this view reflects."""
    chain_head: str | None = None
    """The stored chain hash of the table stream's event at ``version``, in hex: keep it, and a
    later rewrite of the table shows (docs/heads.md). Given by ``GET /tables/{id}``."""
    created_by: str
    players: list[PlayerView]
    """Everyone at the table: the seated players, or the chouette's members in join order."""
    role: Role
    """The viewer's role."""
    allowed: list[str]
    """The commands the viewer may send now (``roll`` throws the opening throw too): each is
    accepted from this state at ``now`` (with some argument, for those that take one), and
    nothing else is (:func:`events.domain.allowed.allowed`). A client that sends only these is never
    refused."""
    targets: dict[str, list[str]]
    """Chouette, the box: for ``double``, ``take``, ``drop``, ``beaver``, ``resign``,
    ``accept`` and ``decline``, the members whose cubes it may name in ``cubes``, ``cube`` or
    ``to``. Empty otherwise."""
    channels: list[Literal["table", "team"]]
    """The chat channels the viewer may post on now."""
    reads_team: bool
    """Whether the viewer may read the team's channel (never the box)."""
    ledger: dict[str, int]
    """Points won (positive) or lost per player over the table's life."""
    in_game: bool
    game: GameView | None = None
    seed_window: SeedWindowView | None = None
    """The current game's seed window while it is open: its first throw waits for it."""
    now: int = 0
    """The server's time when this view was made (ms since the epoch): clocks count from it."""
    clocks: list[ClockView] = []
    """Every player's clock (empty when the table has none), running ones first."""
    connected: list[str] = []
    """The accounts with a stream (WebSocket or SSE) open to the table, sorted: players and
    signed-in spectators (this server process's streams)."""
    anonymous: int = 0
    """Streams open to the table by watchers who are not signed in (counted, not named)."""
    leave_cost: LeaveCostView | None = None
    """What ``leave`` would cost the viewer now; null when leaving costs nothing (between
    games, before a game's first throw, a chouette member whose game is settled or who plays
    from the next, a spectator)."""
    tournament: TournamentLinkView | None = None
    """The tournament this match table plays a board of (``GET /tournaments/{id}``); null at
    any other table. Given by ``GET /tables/{id}``."""
    may_seat_bot: bool = False
    """Whether the viewer may seat a bot now (``POST /tables/{id}/bots``, docs/bots.md): the
    table's creator, while a newcomer may join it (a free seat at a two-player table whose
    match is not over, a chouette not yet full)."""


class _TwoPlayer(_Base, kw_only=True):
    seats: list[str | None]
    """Who sits in seats 0 and 1."""
    score: list[int] | None = None
    match_length: int = 0
    crawford: bool = False
    match_winner: str | None = None


class MoneyTableView(_TwoPlayer, kw_only=True, tag="money"):
    """A money table: two players, games settled at the cube's value."""


class MatchTableView(_TwoPlayer, kw_only=True, tag="match"):
    """A match to ``match_length`` points."""


class ChouetteTableView(_Base, kw_only=True, tag="chouette"):
    """A chouette: one box against a team led by a captain."""

    line: list[str]
    """The line: the box, the captain, then the others in order."""
    box: str | None
    captain: str | None
    acting_captain: str | None
    """Who plays the team's checkers now (the captain, or the next member in line once the
    captain's own game is over)."""
    history: list[HistoryGame]
    """The last few finished games (at most five), oldest first; every one, a page at a time,
    from ``GET /tables/{id}/history``."""
    text: str = ""
    """The table as text (GNU Backgammon style plus the line and cubes)."""


TableView = MoneyTableView | MatchTableView | ChouetteTableView


# -- shared pieces ------------------------------------------------------------------------


def _side(label: str, players: list[str], board: tuple[int, ...]) -> SideView:
    return SideView(
        label=label,
        players=players,
        board=list(board),
        pips=sum(i * n for i, n in enumerate(board) if i),
        off=board[0],
    )


_NO_TREE: PlayTree = ((),)


@lru_cache(maxsize=1024)
def _tree(me: tuple[int, ...], opp: tuple[int, ...], hi: int, lo: int) -> PlayTree:
    return play_tree(Position(me, opp), (hi, lo))


def play_tree_of(position: Position, dice: tuple[int, int] | None, moving: bool = True) -> PlayTree:
    """:func:`engine.routes.play_tree` of ``dice``, kept for the 1,024 positions and throws
    used last (the table view and a throw's message both send it); nobody moving (``moving``
    false, or no dice) is ``((),)``, as no legal play is."""
    if dice is None or not moving:
        return _NO_TREE
    d1, d2 = check_dice(dice)
    return _tree(position.me, position.opp, max(d1, d2), min(d1, d2))


def legal_views(
    position: Position, dice: tuple[int, int] | None, plays: tuple[Play, ...]
) -> list[LegalPlayView]:
    if dice is None:
        return []
    d1, d2 = check_dice(dice)
    blots = blot_points(position.opp)
    return [
        LegalPlayView(
            notation=format_moves(blots, p.moves),
            steps=[list(route) for route in routes_of(position, d1, d2, p)],
        )
        for p in plays
    ]


def viewer_turn(state: TableState, viewer: str | None) -> int | None:
    """The view's ``game.turn`` for ``viewer``: the index in their ``sides`` of the side on
    turn (``sides[0]`` is the viewer's seat, or seat 0; the box or else the team); None with
    no game, during the opening throw and once the game is over."""
    if state.kind == "chouette":
        ch = state.chouette
        g = ch.game if ch is not None else None
        if g is None or g.phase is Phase.OPENING or g.is_over:
            return None
        mine = Side.BOX if viewer == g.box else Side.TEAM
        return 0 if g.turn == mine else 1
    series = state.match
    game = series.game if series is not None else None
    if game is None or game.phase is Phase.OPENING or game.is_over:
        return None
    seat = state.seat_of(viewer) if viewer else None
    return 0 if game.turn == (seat if seat is not None else 0) else 1


def leave_cost_view(state: TableState, viewer: str | None) -> LeaveCostView | None:
    """The view's ``leave_cost``: what ``viewer`` leaving now would cost them, or None."""
    cost = leave_cost(state, viewer)
    if cost is None or viewer is None:
        return None
    return LeaveCostView(points=cost.points, match=cost.match, text=leave_text(state, viewer, cost))


def role_of(state: TableState, viewer: str | None) -> Role:
    """The viewer's role at the table (see :data:`Role`)."""
    if viewer is None:
        return "anonymous"
    if state.kind != "chouette":
        return "player" if state.seat_of(viewer) is not None else "spectator"
    if viewer not in state.members:
        return "spectator"
    ch = state.chouette
    if ch is None:
        return "waiting"
    match ch.role(viewer):
        case "box" | "captain" | "member" | "waiting" as role:
            return role
        case "out":
            return "settled"
    return "waiting"


def clock_views(state: TableState, now: int) -> list[ClockView]:
    """The table's clocks as of ``now``: the running ones, then every other player's."""
    if clocks.clock_of(state) is None:
        return []
    running = [p for p, _ in state.clock_running]
    out = []
    for player in [*running, *(p for p in state.players if p not in running)]:
        delay, reserve = clocks.remaining(state, player, now)
        out.append(
            ClockView(
                player=player,
                running=player in running,
                delay_ms=delay,
                reserve_ms=reserve,
                deadline=clocks.deadline_of(state, player),
            )
        )
    return out


def seed_window_view(
    state: TableState, now: int, viewer: str | None = None
) -> SeedWindowView | None:
    """The open seed window as ``viewer`` sees it at ``now`` (ms since the epoch); none on a
    finished match, nor once its game has ended (a chouette whose players left before the
    first throw ends the game with its window open)."""
    if not state.window_open or state.match_winner or not state.in_game:
        return None
    return SeedWindowView(
        game=state.game_no,
        deadline=state.seed_deadline,
        now=now,
        waiting=list(state.seed_waiting),
        answered=list(state.seed_answered),
        held=sorted(held_back(state, viewer, now)),
    )


def _channels(state: TableState, viewer: str | None) -> list[Literal["table", "team"]]:
    if viewer is None or (viewer not in state.players and viewer != state.created_by):
        return []
    channels: list[Literal["table", "team"]] = ["table"]
    ch = state.chouette
    if ch is not None and (ch.may_advise(viewer) or viewer == ch.acting_captain):
        channels.append("team")
    return channels


def _players(state: TableState) -> list[PlayerView]:
    return [
        PlayerView(
            id=p,
            name=state.display_name(p),
            seat=state.seat_of(p) if state.kind != "chouette" else None,
            role=role_of(state, p),
            bot=state.is_bot(p),
        )
        for p in state.players
    ]


# -- money and match ----------------------------------------------------------------------


def _duel_game(state: TableState, game: Game, viewer: str | None) -> GameView:
    series = state.match
    assert series is not None
    seats = state.seats

    def who(i: int | None) -> str | None:
        return None if i is None else seats[i]

    def name(i: int | None) -> str:
        p = who(i)
        return state.display_name(p) if p else "nobody"

    mine = state.seat_of(viewer) if viewer else None
    me = mine if mine is not None else 0
    sides = [
        _side(name(k), [p] if (p := seats[k]) else [], game.position_for(k).me)
        for k in (me, 1 - me)
    ]
    opening = game.phase is Phase.OPENING
    acting = who(game.to_act)
    to_act = [p for p in seats if p] if opening else [acting] if acting else []
    if state.match_winner:
        to_act = []  # a finished match waits for nobody (docs/rules.md §10)
    cube = CubeView(
        member=None,
        value=game.cube.value,
        owner=who(game.cube.owner),
        turned=False,
        in_game=not game.is_over,
        match_id=_match_id(game, series.length, series.score, series.crawford),
    )
    if game.pending is not None:
        cube.pending = PendingView(
            by=who(game.pending.doubler) or "",
            to_answer=who(game.pending.responder) or "",
            value=game.pending.value,
            beavered=game.pending.beavered,
        )
    if game.resignation is not None:
        cube.resignation = ResignationView(
            by=who(game.resignation.by) or "",
            to_answer=who(1 - game.resignation.by) or "",
            level=int(game.resignation.level),
        )
    result = None
    if game.result is not None:
        r = game.result
        result = SettlementView(
            winner=who(r.winner) or "",
            loser=who(1 - r.winner) or "",
            result=int(r.result),
            cube=r.cube,
            points=r.points,
            how=r.how,
        )
        cube.settlement = result
    match game.phase:
        case Phase.OPENING:
            status = f"Waiting for the opening throw: {name(0)} or {name(1)} throws."
        case Phase.ROLL:
            may = " or double" if game.can_double(game.turn) else ""
            status = f"Waiting for {name(game.turn)} to roll{may}."
        case Phase.MOVE:
            assert game.dice is not None
            status = f"Waiting for {name(game.turn)} to move {game.dice[0]}-{game.dice[1]}."
        case Phase.DOUBLED:
            status = f"Waiting for {name(game.to_act)} to take or drop the double."
        case Phase.RESIGNATION:
            status = f"Waiting for {name(game.to_act)} to accept or decline the resignation."
        case _:
            assert result is not None
            status = f"{state.display_name(result.winner)} won {points_text(result.points)}"
            status += f": {forfeits_text(state)}." if state.forfeits else "."
    return GameView(
        number=state.game_no,
        phase=game.phase.value,
        sides=sides,
        turn=viewer_turn(state, viewer),
        on_roll=None if opening or game.is_over else who(game.turn),
        to_act=to_act,
        status=status,
        dice=game.dice,
        position_id=game.position_id(),
        match_id=cube.match_id,
        dice_commitment=state.commitment,
        cubes=[cube],
        legal_plays=legal_views(game.position, game.dice, game.legal_plays()),
        play_tree=play_tree_of(game.position, game.dice, bool(game.legal_plays())),
        result=result,
        forfeits=_forfeits(state),
    )


def _forfeits(state: TableState) -> list[ForfeitView]:
    """The game's forfeits, as the view lists them."""
    return [
        ForfeitView(
            player=player,
            how="left" if how == "left" else "time",
            walks_away=how == "away",
        )
        for player, how in state.forfeits
    ]


def _match_id(game: Game, length: int, score: tuple[int, int], crawford: bool) -> str | None:
    """The Match ID, or None when the state does not fit one (a cube past 2**15, a money score
    past 32767: the cube has no upper limit, the ID's fields do)."""
    try:
        return game.match_id(length, score, crawford)
    except InvalidIdError:
        return None


def game_view(state: TableState, viewer: str | None) -> GameView | None:
    """The view's ``game`` for ``viewer`` (None with no game): what :func:`table_view` puts
    there, and what a move's stream message sends (:mod:`server.views.move`)."""
    if state.kind == "chouette":
        ch = state.chouette
        g = ch.game if ch is not None else None
        return _chouette_game(state, ch, g, viewer) if ch is not None and g is not None else None
    series = state.match
    game = series.game if series is not None else None
    return _duel_game(state, game, viewer) if game is not None else None


def _two_player(state: TableState, viewer: str | None, **base: object) -> TableView:
    series = state.match
    cls = MatchTableView if state.kind == "match" else MoneyTableView
    return cls(
        **base,  # type: ignore[arg-type]
        targets={},
        game=game_view(state, viewer),
        seats=list(state.seats),
        score=list(series.score) if series is not None else None,
        match_length=series.length if series is not None else state.options.match_length,
        crawford=series.crawford if series is not None else False,
        match_winner=state.match_winner or None,
    )


# -- chouette -----------------------------------------------------------------------------


def _member_cubes(state: TableState, ch: Chouette, g: ChouetteGame) -> list[CubeView]:
    cubes = []
    for m in g.members:

        def side(s: int, member: str = m.player) -> str:
            return g.box if s == Side.BOX else member

        cube = CubeView(
            member=m.player,
            value=m.cube.value,
            owner=None if m.cube.owner is None else side(m.cube.owner),
            turned=m.turned,
            in_game=m.in_game,
        )
        if m.pending is not None:
            cube.pending = PendingView(
                by=side(m.pending.doubler),
                to_answer=side(m.pending.responder),
                value=m.pending.value,
                beavered=m.pending.beavered,
            )
        if m.resignation is not None:
            cube.resignation = ResignationView(
                by=side(m.resignation.by),
                to_answer=side(Side(1 - m.resignation.by)),
                level=int(m.resignation.level),
            )
        if m.settlement is not None:
            s = m.settlement
            cube.settlement = SettlementView(
                winner=s.winner,
                loser=s.loser,
                result=int(s.result),
                cube=s.cube,
                points=s.points,
                how=s.how.value,
            )
        try:
            cube.match_id = ch.match_id(m.player)
        except EngineError:
            cube.match_id = None
        cubes.append(cube)
    return cubes


def _chouette_game(
    state: TableState, ch: Chouette, g: ChouetteGame, viewer: str | None
) -> GameView:
    mine = Side.BOX if viewer == g.box else Side.TEAM
    opening = g.phase is Phase.OPENING

    def side_view(s: Side) -> SideView:
        if s == Side.BOX:
            return _side("Box", [g.box], g.position_for(Side.BOX).me)
        return _side("Team", list(g.in_game), g.position_for(Side.TEAM).me)

    waiting = list(ch.waiting_for())
    if opening:
        to_act = [g.box, g.captain]
        box, captain = state.display_name(g.box), state.display_name(g.captain)
        status = (
            f"Waiting for the opening throw: {box} (the box) or {captain} (the captain) throws."
        )
    elif waiting:
        to_act = waiting
        status = f"Waiting for {state.names_text(waiting)} to answer."
    elif g.is_over:
        to_act = []
        status = (
            f"The game is over: {forfeits_text(state)}." if state.forfeits else "The game is over."
        )
    else:
        roller = ch.on_roll
        to_act = [roller] if roller else []
        who = state.display_name(roller) if roller else "nobody"
        if g.phase is Phase.MOVE and g.dice is not None:
            status = f"Waiting for {who} to move {g.dice[0]}-{g.dice[1]}."
        else:
            status = f"Waiting for {who} to roll or double."
    return GameView(
        number=state.game_no,
        phase=g.phase.value,
        sides=[side_view(mine), side_view(Side(1 - mine))],
        turn=viewer_turn(state, viewer),
        on_roll=ch.on_roll,
        to_act=to_act,
        status=status,
        dice=g.dice,
        position_id=g.position.position_id(),
        match_id=None,
        dice_commitment=state.commitment,
        cubes=_member_cubes(state, ch, g),
        legal_plays=legal_views(g.position, g.dice, ch.legal_plays()),
        play_tree=play_tree_of(g.position, g.dice, bool(ch.legal_plays())),
        forfeits=_forfeits(state),
    )


def targets_of(state: TableState, viewer: str | None) -> dict[str, list[str]]:
    """The view's ``targets``: in a chouette, the members whose cubes ``viewer`` may name for
    each targeted action; empty otherwise."""
    ch = state.chouette
    targets: dict[str, list[str]] = {}
    if viewer is not None and viewer in state.members and ch is not None:
        for a in sorted(TARGETED_ACTIONS):
            names = ch.targets(viewer, a)
            if names:
                targets[a.value] = sorted(names)
    return targets


def _chouette(state: TableState, viewer: str | None, **base: object) -> ChouetteTableView:
    ch = state.chouette
    targets = targets_of(state, viewer)
    if ch is None:
        return ChouetteTableView(
            **base,  # type: ignore[arg-type]
            targets=targets,
            line=[],
            box=None,
            captain=None,
            acting_captain=None,
            history=[],
        )
    return ChouetteTableView(
        **base,  # type: ignore[arg-type]
        targets=targets,
        game=game_view(state, viewer),
        line=list(ch.line),
        box=ch.box,
        captain=ch.captain,
        acting_captain=ch.acting_captain,
        history=[
            HistoryGame(
                game=h.number,
                box=h.box,
                captain=h.captain,
                settlements=[
                    HistorySettlement(
                        member=s.member, winner=s.winner, points=s.points, how=s.how.value
                    )
                    for s in h.settlements
                ],
            )
            for h in ch.history
        ],
        text=ch.text(),
    )


def table_view(
    state: TableState,
    viewer: str | None,
    now: int = 0,
    chain_head: str | None = None,
    presence: tuple[list[str], int] = ([], 0),
    tournament: TournamentLinkView | None = None,
) -> TableView:
    """The table as ``viewer`` (an account id, or None for an anonymous spectator) sees it at
    ``now`` (ms since the epoch: the time its seed window counts down from), with the table
    stream's ``chain_head`` at its version when the caller read it, and who is connected
    (``presence``: account ids and the anonymous count, :mod:`server.live.presence`), and the
    ``tournament`` it plays a board of, if any."""
    ledger = dict(state.ledger)
    if state.kind == "chouette":
        ledger = dict(state.chouette.ledger) if state.chouette else {p: 0 for p in state.members}
    base = {
        "id": state.table_id,
        "name": state.name,
        "options": state.options,
        "version": state.version,
        "chain_head": chain_head,
        "created_by": state.created_by,
        "players": _players(state),
        "role": role_of(state, viewer),
        # What the viewer may send now: the domain's own answer (events/domain/allowed.py).
        "allowed": sorted(allowed(state, viewer, now)),
        "channels": _channels(state, viewer),
        "reads_team": team_can_read(state, viewer),
        "ledger": ledger,
        # Nothing is in play at a finished match, even in a game an old server left open.
        "in_game": state.in_game and not state.match_winner,
        "seed_window": seed_window_view(state, now, viewer),
        "now": now,
        "clocks": clock_views(state, now),
        "connected": presence[0],
        "anonymous": presence[1],
        "may_seat_bot": viewer is not None and viewer == state.created_by and may_join(state),
        "leave_cost": leave_cost_view(state, viewer),
        "tournament": tournament,
    }
    if state.kind == "chouette":
        return _chouette(state, viewer, **base)
    return _two_player(state, viewer, **base)
