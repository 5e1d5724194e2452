"""Chouette: one player, the box, against a team led by a captain (RULES.md §8).

A :class:`Chouette` is the whole table: the players' **line** (box, captain, then the team in
order), the rules it was set up with (:class:`ChouetteOptions`), the **ledger**, and the game in
progress (:class:`ChouetteGame`). It is an immutable value; every action is a method that returns
a new chouette or raises a precise :class:`~engine.errors.IllegalActionError`. Players are
strings (account ids); dice are inputs, never drawn here.

The checker play between the box and the captain's side reuses the two-player machinery
(:func:`~engine.moves.play`, :func:`~engine.game.classify_win`, :class:`~engine.game.Result`,
:func:`~engine.game.opening_winner`); what the chouette adds is one game *per team member*
against the box (:class:`MemberGame`: that member's cube, pending double, resignation offer and
settlement). With a single team member it is an ordinary money game.

>>> ch = Chouette.new(["ann", "bob", "cat"])
>>> ch.ordering.to_throw                      # everyone throws one die for the line
('ann', 'bob', 'cat')
>>> ch = ch.order_throw({"ann": 6, "bob": 6, "cat": 2})
>>> ch.ordering.ties                          # only the tied players throw again
(('ann', 'bob'),)
>>> ch = ch.order_throw({"ann": 3, "bob": 5})
>>> ch.line                                   # box, captain, then the team
('bob', 'ann', 'cat')
>>> ch = ch.start_game().opening_throw(4, 2)  # the box threw 4, the captain 2
>>> ch.on_roll, ch.game.dice
('bob', (4, 2))
>>> ch = ch.move("bob", [(8, 4), (6, 4)])
>>> ch.turn, ch.on_roll
(<Side.TEAM: 1>, 'ann')
>>> ch = ch.double("cat")                     # cat doubles the box on cat's own cube
>>> sorted(ch.allowed("ann"))                 # the captain may still double, not roll
[<Action.DOUBLE: 'double'>, <Action.LEAVE: 'leave'>, <Action.RESIGN: 'resign'>]
>>> sorted(ch.allowed("cat"))
[<Action.ADVISE: 'advise'>, <Action.LEAVE: 'leave'>]
>>> ch.roll("ann", (3, 1))
Traceback (most recent call last):
...
engine.errors.CubeError: ann (captain) cannot roll: waiting for the box's answer on cat's cube
>>> ch = ch.drop("bob", "cat")                # cat wins 1 and is out of this game
>>> dict(ch.ledger)
{'ann': 0, 'bob': -1, 'cat': 1}
>>> ch.double("cat")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
engine.errors.NotYourTurnError: cat cannot double: cat has won on the box's drop and takes ...
>>> ch.double("ann", ["cat"])
Traceback (most recent call last):
...
engine.errors.CubeError: ann (captain) cannot double cat's cube: each member doubles only their own
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum

from engine.errors import (
    ChouetteError,
    CubeError,
    EngineError,
    GameOverError,
    IllegalActionError,
    InvalidDiceError,
    NotYourTurnError,
    ResignationError,
)
from engine.game import (
    Cube,
    PendingDouble,
    Phase,
    Resignation,
    Result,
    classify_win,
    opening_winner,
)
from engine.matchid import CENTRED, DROPPED, GAME_OVER, PLAYING, RESIGNED, MatchState
from engine.moves import Move, Play, can_move, check_dice, legal_plays, play
from engine.position import CHECKERS, OFF, Position
from engine.values import replace

# -- options and vocabulary -----------------------------------------------------------------


class Side(IntEnum):
    """The two sides of the board. In a member's :class:`~engine.game.Cube` and
    :class:`~engine.game.PendingDouble` these are the "players" 0 and 1: the box and that member
    (with a single cube, the team)."""

    BOX = 0
    TEAM = 1


class CubeMode(StrEnum):
    """How the team's cubes work (RULES.md §8)."""

    MULTIPLE = "multiple"
    """Every team member has a cube of their own against the box (the default)."""
    SINGLE = "single"
    """The team shares one cube; the captain decides the team's doubles."""


class Consultation(StrEnum):
    """Who on the team may advise the captain (RULES.md §8)."""

    FREE = "free"
    """Every member still in the game, throughout."""
    NONE = "none"
    """Nobody."""
    AFTER_CUBE = "after_cube"
    """A member whose own cube has been turned (offered and taken): "no cube, no talk"."""


class Action(StrEnum):
    """Everything a player can do at a chouette; :meth:`Chouette.allowed` answers which now."""

    JOIN = "join"
    LEAVE = "leave"
    ORDER_THROW = "order_throw"
    """Throw one die for the line (the dice are the server's)."""
    START_GAME = "start_game"
    OPENING_THROW = "opening_throw"
    """The box and the captain throw one die each (the dice are the server's)."""
    ROLL = "roll"
    MOVE = "move"
    DOUBLE = "double"
    TAKE = "take"
    DROP = "drop"
    BEAVER = "beaver"
    RESIGN = "resign"
    ACCEPT = "accept"
    DECLINE = "decline"
    ADVISE = "advise"
    """Advise the captain on the team's channel (nothing changes in the state)."""


TARGETED_ACTIONS = frozenset(
    {
        Action.DOUBLE,
        Action.TAKE,
        Action.DROP,
        Action.BEAVER,
        Action.RESIGN,
        Action.ACCEPT,
        Action.DECLINE,
    }
)
"""The actions on one member's cube: the box names the member (:meth:`Chouette.targets` says
which), a member acts on their own."""


class How(StrEnum):
    """Why a member's game against the box was settled."""

    DROP = "drop"
    """A double was dropped (by the member, or by the box)."""
    RESIGN = "resign"
    """A resignation was accepted."""
    BEAR_OFF = "bear_off"
    """A side bore off its last checker."""
    LEAVE = "leave"
    """The member (or the box) left the chouette in mid-game."""


@dataclass(frozen=True, slots=True)
class ChouetteOptions:
    """The rules a chouette is played under, chosen when it is set up (RULES.md §6, §8)."""

    cubes: CubeMode = CubeMode.MULTIPLE
    consultation: Consultation = Consultation.FREE
    """Choice: free consultation unless the table says otherwise; RULES.md names no default."""
    auto_doubles: int = 0
    """How many automatic doubles tied opening throws may make (0: off); every member's cube."""
    beavers: bool = False
    jacoby: bool = False
    """Gammons count single on a member's cube until that cube has been offered and taken."""
    box_must_take_half: bool = False
    """House rule: a box doubled on several initial cubes at once takes at least half or drops
    them all (see :meth:`Chouette.take`)."""

    def __post_init__(self) -> None:
        if not isinstance(self.cubes, CubeMode):
            raise ChouetteError(f"cube mode must be multiple or single: {self.cubes!r}")
        if not isinstance(self.consultation, Consultation):
            raise ChouetteError(
                f"consultation must be free, none or after_cube: {self.consultation!r}"
            )
        if (
            not isinstance(self.auto_doubles, int)
            or isinstance(self.auto_doubles, bool)
            or not 0 <= self.auto_doubles <= 6
        ):
            raise ChouetteError(f"automatic doubles limit must be 0 to 6: {self.auto_doubles!r}")

    @property
    def single(self) -> bool:
        return self.cubes is CubeMode.SINGLE


# -- the ledger -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Settlement:
    """One member's game against the box, settled: who paid whom, how much, and why."""

    member: str
    """The team member whose cube this was."""
    box: str
    winner: str
    """Who is paid: the member or the box."""
    loser: str
    """Who pays."""
    how: How
    result: Result
    """Single, gammon or backgammon as counted (after the Jacoby rule); a drop or a departure
    counts single."""
    cube: int
    """The cube value it is paid at (for a drop, the value before the double)."""

    @property
    def points(self) -> int:
        """What the loser pays the winner: result × cube."""
        return int(self.result) * self.cube

    def __str__(self) -> str:
        return f"{self.loser} pays {self.winner} {self.points} ({self.how}, {self.member}'s cube)"


class Ledger(Mapping[str, int]):
    """Points won (+) and lost (−) by each player over the whole chouette, in order of
    arrival. Every settlement moves points from one player to another, so it sums to zero.

    >>> Ledger({"ann": 0, "bob": 0}).credit(
    ...     Settlement("ann", "bob", "bob", "ann", How.DROP, Result.SINGLE, 2))
    Ledger({'ann': -2, 'bob': 2})
    """

    __slots__ = ("_points",)

    def __init__(self, points: Mapping[str, int] | Iterable[tuple[str, int]] = ()) -> None:
        self._points: dict[str, int] = dict(points)

    def __getitem__(self, player: str) -> int:
        return self._points[player]

    def __iter__(self) -> Iterator[str]:
        return iter(self._points)

    def __len__(self) -> int:
        return len(self._points)

    def __hash__(self) -> int:
        return hash(tuple(self._points.items()))

    def __repr__(self) -> str:
        return f"Ledger({self._points!r})"

    def total(self) -> int:
        """The sum of every balance: always 0."""
        return sum(self._points.values())

    def with_player(self, player: str) -> Ledger:
        """The ledger with an entry (at 0) for ``player`` if they have none yet."""
        if player in self._points:
            return self
        return Ledger({**self._points, player: 0})

    def credit(self, settlement: Settlement) -> Ledger:
        """The ledger after ``settlement``: the loser pays the winner."""
        points = dict(self._points)
        points[settlement.winner] = points.get(settlement.winner, 0) + settlement.points
        points[settlement.loser] = points.get(settlement.loser, 0) - settlement.points
        return Ledger(points)


# -- throwing for the line ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LineOrder:
    """Everyone throws one die for the line; ties throw again among the tied players only.

    ``groups`` ranks the players, highest first; a group of more than one is a tie still to
    be thrown off. Within a group players keep the order in which they sat down.

    >>> o = LineOrder.start(["a", "b", "c", "d"]).throw({"a": 2, "b": 5, "c": 2, "d": 5})
    >>> o.ties
    (('b', 'd'), ('a', 'c'))
    >>> o = o.throw({"b": 1, "d": 4, "a": 6, "c": 3})
    >>> o.is_settled, o.line
    (True, ('d', 'b', 'a', 'c'))
    """

    groups: tuple[tuple[str, ...], ...] = ()

    @classmethod
    def start(cls, players: Iterable[str]) -> LineOrder:
        """Nobody has thrown yet: all of ``players`` are tied."""
        players = tuple(players)
        return cls((players,) if players else ())

    @property
    def ties(self) -> tuple[tuple[str, ...], ...]:
        """The groups still tied, highest first."""
        return tuple(g for g in self.groups if len(g) > 1)

    @property
    def to_throw(self) -> tuple[str, ...]:
        """Who throws in the next round: every tied player."""
        return tuple(p for g in self.ties for p in g)

    @property
    def is_settled(self) -> bool:
        return not self.ties

    @property
    def line(self) -> tuple[str, ...]:
        """The players in order, highest throw first (final once :attr:`is_settled`)."""
        return tuple(p for g in self.groups for p in g)

    def throw(self, throws: Mapping[str, int]) -> LineOrder:
        """One round: a die for each tied player (exactly those). Each tied group splits by
        its own throws; players who threw the same again stay tied.

        :raises ChouetteError: a throw missing, or from a player who is not tied.
        :raises InvalidDiceError: a die outside 1..6.
        """
        due = self.to_throw
        if not due:
            raise ChouetteError("the line is settled: nobody throws for it")
        extra = [p for p in throws if p not in due]
        if extra:
            raise ChouetteError(
                f"only the tied players throw again ({', '.join(due)}), not {', '.join(extra)}"
            )
        missing = [p for p in due if p not in throws]
        if missing:
            raise ChouetteError(f"waiting for the throw of {', '.join(missing)}")
        for p, die in throws.items():
            if not isinstance(die, int) or isinstance(die, bool) or not 1 <= die <= 6:
                raise InvalidDiceError(f"{p}'s die must be an integer from 1 to 6, got {die!r}")
        groups: list[tuple[str, ...]] = []
        for group in self.groups:
            if len(group) == 1:
                groups.append(group)
                continue
            for die in sorted({throws[p] for p in group}, reverse=True):
                groups.append(tuple(p for p in group if throws[p] == die))
        return LineOrder(tuple(groups))

    def without(self, player: str) -> LineOrder:
        """The order with ``player`` gone (they left before it was settled)."""
        groups = (tuple(p for p in g if p != player) for g in self.groups)
        return LineOrder(tuple(g for g in groups if g))


# -- one game -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MemberGame:
    """One team member's own game against the box: their cube and what is pending on it."""

    player: str
    cube: Cube = Cube()
    """Value and owner: :attr:`Side.BOX`, :attr:`Side.TEAM` (this member) or None (centred)."""
    pending: PendingDouble | None = None
    """A double (or beaver) on this cube waiting for an answer; sides as in :class:`Side`."""
    resignation: Resignation | None = None
    """A resignation offer waiting for an answer; ``by`` is a :class:`Side`."""
    turned: bool = False
    """Whether a double on this cube has been offered and taken (for Jacoby and
    "no cube, no talk"). Choice: automatic doubles do not turn it, as in RULES.md §6."""
    settlement: Settlement | None = None
    """How this member's game ended; None while they are still in the game."""

    @property
    def in_game(self) -> bool:
        return self.settlement is None

    @property
    def is_free(self) -> bool:
        """In the game with nothing waiting for an answer on this cube."""
        return self.in_game and self.pending is None and self.resignation is None


@dataclass(frozen=True, slots=True)
class ChouetteGame:
    """One game of a chouette: the board between the box and the team, and each member's game.

    Use it through :class:`Chouette`; it holds the data and answers the per-game queries.
    """

    number: int
    box: str
    captain: str
    """The captain for the rotation. Multiple cubes: the player who was captain when the
    game began (never changes). Single cube: the current captain (it passes for good)."""
    members: tuple[MemberGame, ...]
    """The team, in line order at the start of the game (the captain first)."""
    options: ChouetteOptions = ChouetteOptions()
    position: Position = Position.start()
    """The board seen by the side :attr:`turn`."""
    turn: Side = Side.BOX
    """The side on roll (meaningless during the opening throw)."""
    phase: Phase = Phase.OPENING
    """OPENING, ROLL (before the roll: cube actions and offers), MOVE or OVER. Pending doubles
    and offers live on each member's cube, so the DOUBLED and RESIGNATION phases of a
    two-player game are not used."""
    dice: tuple[int, int] | None = None
    auto_doubles: int = 0
    """Automatic doubles made by tied opening throws so far."""
    batch: tuple[tuple[str, bool | None], ...] = ()
    """The take-half house rule: the initial doubles the box is answering together, each
    with the box's answer so far (True: taken or beavered, False: dropped, None: not yet)."""
    settlements: tuple[Settlement, ...] = ()
    """Every member's game settled so far, in order: the per-game record."""
    last_play: Play | None = None

    # -- queries ---------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def member(self, player: str) -> MemberGame | None:
        """``player``'s game against the box, or None if they are not on this game's team."""
        for m in self.members:
            if m.player == player:
                return m
        return None

    @property
    def in_game(self) -> tuple[str, ...]:
        """Team members still in the game, in line order."""
        return tuple(m.player for m in self.members if m.in_game)

    @property
    def acting_captain(self) -> str | None:
        """Who plays the team's checkers: the captain while in the game, else the first
        remaining member in line order; None when no member remains."""
        m = self.member(self.captain)
        if m is not None and m.in_game:
            return self.captain
        remaining = self.in_game
        return remaining[0] if remaining else None

    @property
    def on_roll(self) -> str | None:
        """The player who rolls and moves for the side on turn (None in the opening or after)."""
        if self.phase not in (Phase.ROLL, Phase.MOVE):
            return None
        return self.box if self.turn is Side.BOX else self.acting_captain

    def position_for(self, side: Side) -> Position:
        """The board seen by the box or by the team."""
        return self.position if side == self.turn else self.position.swap()

    def legal_plays(self) -> tuple[Play, ...]:
        """The legal plays once the dice are thrown (else empty)."""
        if self.phase is not Phase.MOVE or self.dice is None:
            return ()
        return legal_plays(self.position, self.dice).plays

    def waiting_for(self) -> tuple[str, ...]:
        """Who owes an answer to a double or a resignation offer, in line order."""
        out: list[str] = []
        for m in self.members:
            if not m.in_game:
                continue
            if m.pending is not None:
                out.append(self.box if m.pending.responder == Side.BOX else m.player)
            elif m.resignation is not None:
                out.append(m.player if m.resignation.by == Side.BOX else self.box)
        return tuple(dict.fromkeys(out))

    def box_won(self) -> bool | None:
        """Once the game is over: whether the box "beat the captain" for the rotation.

        Multiple cubes: the box won the game of the captain who began it (a captain who
        dropped, resigned or left has lost to the box). Single cube: the box won the game.
        Choice: with a single cube "the game" is the last member's game to be settled (the
        bear-off, the team's last drop or resignation, the box's drop of the team's double).
        """
        if not self.is_over or not self.settlements:
            return None
        if self.options.single:
            return self.settlements[-1].winner == self.box
        m = self.member(self.captain)
        assert m is not None and m.settlement is not None
        return m.settlement.winner == self.box

    # -- internals -------------------------------------------------------------------------

    def _with(self, *changed: MemberGame) -> ChouetteGame:
        by_name = {m.player: m for m in changed}
        return replace(self, members=tuple(by_name.get(m.player, m) for m in self.members))

    def _counted(self, m: MemberGame, result: Result) -> Result:
        if self.options.jacoby and not m.turned:
            return Result.SINGLE
        return result

    def _settle(
        self, member: str, winner: Side, result: Result, cube: int, how: How
    ) -> ChouetteGame:
        m = self.member(member)
        assert m is not None and m.in_game
        s = Settlement(
            member=member,
            box=self.box,
            winner=self.box if winner is Side.BOX else member,
            loser=member if winner is Side.BOX else self.box,
            how=how,
            result=result,
            cube=cube,
        )
        done = replace(m, pending=None, resignation=None, settlement=s)
        # A member gone before the box answered their initial double leaves the batch.
        batch = tuple((p, a) for p, a in self.batch if p != member or a is not None)
        if all(a is not None for _, a in batch):
            batch = ()
        return replace(self._with(done), settlements=(*self.settlements, s), batch=batch)

    def _pass_turn(self, p: Play) -> ChouetteGame:
        return replace(
            self,
            position=p.result.swap(),
            turn=Side(1 - self.turn),
            phase=Phase.ROLL,
            dice=None,
            last_play=p,
        )


# -- the table ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Chouette:
    """A chouette: the line, the options, the ledger and the game in progress.

    Build one with :meth:`new` (players then throw for the line) or :meth:`from_line`.
    """

    options: ChouetteOptions = ChouetteOptions()
    line: tuple[str, ...] = ()
    """Box, captain, then the team in order, then newcomers waiting for the next game. While
    the line is still being thrown for, only the players who joined after the throws began."""
    ordering: LineOrder | None = None
    """The throws for the line while they are unresolved; None once the line is settled."""
    ledger: Ledger = Ledger()
    game: ChouetteGame | None = None
    """The game in progress, or the last one played (then over); None before the first."""
    history: tuple[ChouetteGame, ...] = ()
    """Every finished game, in order (each with its settlements)."""

    @classmethod
    def new(cls, players: Iterable[str], options: ChouetteOptions | None = None) -> Chouette:
        """A chouette whose ``players`` (in the order they sat down) now throw for the line.

        :raises ChouetteError: a player id that is not a non-empty string, or seated twice.
        """
        players = _players(players)
        order = LineOrder.start(players)
        ch = cls(options=options or ChouetteOptions(), ledger=Ledger((p, 0) for p in players))
        if order.is_settled:
            return replace(ch, line=order.line)
        return replace(ch, ordering=order)

    @classmethod
    def from_line(cls, line: Iterable[str], options: ChouetteOptions | None = None) -> Chouette:
        """A chouette whose line is already known (box first, then captain, then the team).

        :raises ChouetteError: a player id that is not a non-empty string, or seated twice.
        """
        line = _players(line)
        return cls(
            options=options or ChouetteOptions(), line=line, ledger=Ledger((p, 0) for p in line)
        )

    # -- queries ---------------------------------------------------------------------------

    @property
    def players(self) -> tuple[str, ...]:
        """Everyone at the table: the line (with players still throwing for it first)."""
        return (*(self.ordering.line if self.ordering else ()), *self.line)

    @property
    def in_progress(self) -> bool:
        """Whether a game is being played."""
        return self.game is not None and not self.game.is_over

    @property
    def box(self) -> str | None:
        """The box of the game in progress, else of the next game (None before the line)."""
        if self.in_progress:
            assert self.game is not None
            return self.game.box
        return self.line[0] if self.ordering is None and self.line else None

    @property
    def captain(self) -> str | None:
        """The captain of the game in progress (multiple cubes: the one who began it; single
        cube: the current one), else of the next game."""
        if self.in_progress:
            assert self.game is not None
            return self.game.captain
        return self.line[1] if self.ordering is None and len(self.line) > 1 else None

    @property
    def acting_captain(self) -> str | None:
        """Who plays the team's checkers now (None when no game is in progress)."""
        return self.game.acting_captain if self.in_progress and self.game else None

    @property
    def members_in_game(self) -> tuple[str, ...]:
        """Team members still in the game in progress, in line order."""
        return self.game.in_game if self.in_progress and self.game else ()

    @property
    def turn(self) -> Side | None:
        """The side on roll, once the opening throw is made (None otherwise)."""
        g = self.game
        return g.turn if g and g.phase in (Phase.ROLL, Phase.MOVE) else None

    @property
    def on_roll(self) -> str | None:
        """The player who rolls and moves now: the box, or the (acting) captain."""
        return self.game.on_roll if self.game else None

    def waiting_for(self) -> tuple[str, ...]:
        """Who owes an answer to a double or a resignation offer now."""
        return self.game.waiting_for() if self.in_progress and self.game else ()

    def role(self, player: str) -> str:
        """``"box"``, ``"captain"`` (acting), ``"member"`` (in the game), ``"out"`` (their game
        is settled), ``"waiting"`` (in the line, not in this game) or ``"absent"``."""
        if player not in self.players:
            return "absent"
        g = self.game
        if not self.in_progress or g is None:
            return "waiting"
        if player == g.box:
            return "box"
        m = g.member(player)
        if m is None:
            return "waiting"
        if not m.in_game:
            return "out"
        return "captain" if player == g.acting_captain else "member"

    def position_for(self, player: str) -> Position:
        """The board as ``player`` sees it: the box from its side, everyone else from the
        team's.

        :raises IllegalActionError: no game has started.
        """
        g = self._any_game()
        return g.position_for(Side.BOX if player == g.box else Side.TEAM)

    def position_id(self) -> str:
        """The GNU Backgammon Position ID, seen by the side on roll.

        :raises IllegalActionError: no game has started.
        """
        return self._any_game().position.position_id()

    def match_id(self, member: str) -> str:
        """The GNU Backgammon Match ID of ``member``'s money game against the box (the box is
        player 0, the member player 1).

        :raises ChouetteError: ``member`` is not on the team of the current game.
        """
        g = self._any_game()
        m = g.member(member)
        if m is None:
            raise ChouetteError(f"{member!r} is not on the team in game {g.number}")
        cube, owner = m.cube.value, m.cube.owner
        move = turn = int(g.turn)
        doubled, resigned, state = False, 0, PLAYING
        if m.pending is not None:
            doubled, turn = True, m.pending.responder
            if m.pending.beavered:
                cube, owner = m.pending.drop_value, m.pending.owner_if_taken
        elif m.resignation is not None:
            resigned, turn = int(m.resignation.level), 1 - m.resignation.by
        if m.settlement is not None:
            s = m.settlement
            state = {How.DROP: DROPPED, How.RESIGN: RESIGNED, How.LEAVE: DROPPED}.get(
                s.how, GAME_OVER
            )
        return MatchState(
            cube=cube,
            owner=CENTRED if owner is None else owner,
            move=move,
            game_state=state,
            turn=turn,
            doubled=doubled,
            resigned=resigned,
            dice=g.dice if g.dice and g.phase is Phase.MOVE else (0, 0),
            jacoby=self.options.jacoby,
        ).match_id()

    def legal_plays(self) -> tuple[Play, ...]:
        """The legal plays for the side on roll once the dice are thrown (else empty)."""
        return self.game.legal_plays() if self.in_progress and self.game else ()

    def may_advise(self, player: str) -> bool:
        """Whether ``player`` may advise the captain now (RULES.md §8, Consultation).

        Never the box, the (acting) captain, a member whose game is settled or a newcomer
        waiting for the next game; otherwise as the chouette's consultation policy says.
        """
        return self._ok(player, Action.ADVISE, None)

    def check_advice(self, player: str) -> None:
        """Like :meth:`may_advise`, but raise the reason why not.

        :raises ChouetteError: the policy forbids it, or ``player`` is the captain or the box.
        :raises NotYourTurnError: ``player`` is out of this game or waiting for the next.
        """
        self._check(player, Action.ADVISE, None)

    def allowed(self, player: str) -> frozenset[Action]:
        """The actions ``player`` may take now. Each action not in it raises if tried; for
        the actions on a cube, :meth:`targets` says which members' cubes."""
        if player not in self.players:
            ok = isinstance(player, str) and bool(player)
            return frozenset({Action.JOIN}) if ok else frozenset()
        acts = {Action.LEAVE}
        for action in (
            Action.ORDER_THROW,
            Action.START_GAME,
            Action.OPENING_THROW,
            Action.ROLL,
            Action.MOVE,
            Action.ADVISE,
        ):
            if self._ok(player, action, None):
                acts.add(action)
        acts.update(a for a in TARGETED_ACTIONS if self.targets(player, a))
        return frozenset(acts)

    def targets(self, player: str, action: Action) -> frozenset[str]:
        """The members whose cubes ``player`` may apply ``action`` (double, take, drop, beaver,
        resign, accept, decline) to now: for a member, themselves or nobody; for the box, each
        member it may double, answer or offer to."""
        g = self.game
        if action not in TARGETED_ACTIONS or not self.in_progress or g is None:
            return frozenset()
        if player == g.box:
            return frozenset(m for m in g.in_game if self._ok(player, action, m))
        return frozenset({player}) if self._ok(player, action, None) else frozenset()

    # -- seating ---------------------------------------------------------------------------

    def join(self, player: str) -> Chouette:
        """``player`` sits down at the bottom of the line and plays from the next game (while
        the line is being thrown for, after it is settled). A player who left may come back
        the same way, even during the game they left (they are out of that game).

        :raises ChouetteError: a bad id, or already at the table.
        """
        self._check(player, Action.JOIN, None)
        return replace(self, line=(*self.line, player), ledger=self.ledger.with_player(player))

    def leave(self, player: str) -> Chouette:
        """``player`` leaves the chouette; their ledger entry stays.

        Choice (RULES.md §8): a team member leaving in mid-game drops at that moment, paying
        their current stake: their cube's value (any double or offer pending on it lapses).
        The box leaving in mid-game resigns a single game to every remaining member at their
        current stakes, and the game ends. Either way they leave the line at once.

        :raises ChouetteError: ``player`` is not at the table.
        """
        self._check(player, Action.LEAVE, None)
        line = tuple(p for p in self.line if p != player)
        if self.ordering is not None:
            order = self.ordering.without(player)
            if order.is_settled:
                return replace(self, ordering=None, line=order.line + line)
            return replace(self, ordering=order, line=line)
        g = self.game
        if not self.in_progress or g is None:
            return replace(self, line=line)
        if player == g.box:
            for stake in g.members:
                if stake.in_game:
                    g = g._settle(
                        stake.player, Side.TEAM, Result.SINGLE, stake.cube.value, How.LEAVE
                    )
            return self._after(g, line)
        mine = g.member(player)
        if mine is not None and mine.in_game:
            g = g._settle(player, Side.BOX, Result.SINGLE, mine.cube.value, How.LEAVE)
        return self._after(g, line)

    def order_throw(self, throws: Mapping[str, int]) -> Chouette:
        """A round of throws for the line: one die for each player still tied (see
        :class:`LineOrder`). Once nobody is tied, the line is settled.

        :raises ChouetteError: the line is settled, or the throws are not those of exactly the
            tied players.
        :raises InvalidDiceError: a die outside 1..6.
        """
        if self.ordering is None:
            raise ChouetteError("the line is settled: nobody throws for it")
        order = self.ordering.throw(throws)
        if order.is_settled:
            return replace(self, ordering=None, line=order.line + self.line)
        return replace(self, ordering=order)

    # -- a game ----------------------------------------------------------------------------

    def start_game(self) -> Chouette:
        """Start the next game: the first in line is the box, the second the captain, and
        everyone else in the line is on the team.

        :raises ChouetteError: the line is not settled, or fewer than two players.
        :raises IllegalActionError: a game is in progress.
        """
        error = self._start_error()
        if error is not None:
            raise error
        number = self.game.number + 1 if self.game else 1
        game = ChouetteGame(
            number=number,
            box=self.line[0],
            captain=self.line[1],
            members=tuple(MemberGame(p) for p in self.line[1:]),
            options=self.options,
        )
        return replace(self, game=game)

    def _start_error(self) -> IllegalActionError | None:
        if self.ordering is not None:
            return ChouetteError(
                f"cannot start a game: the line is still being thrown for "
                f"({', '.join(self.ordering.to_throw)} to throw)"
            )
        if self.in_progress:
            assert self.game is not None
            return IllegalActionError(
                f"cannot start a game: game {self.game.number} is in progress"
            )
        if len(self.line) < 2:
            return ChouetteError(
                f"cannot start a game: it takes two players, the line is {self.line!r}"
            )
        return None

    def opening_throw(self, box_die: int, captain_die: int) -> Chouette:
        """The box and the captain throw one die each; the higher plays both numbers. A tie
        throws again, and with automatic doubles turns every member's centred cube up one
        step, up to the limit.

        :raises IllegalActionError: not the moment for the opening throw.
        :raises InvalidDiceError: dice outside 1..6.
        """
        g = self._current("throw the opening dice")
        if g.phase is not Phase.OPENING:
            raise IllegalActionError("cannot throw the opening dice: the opening throw is made")
        first = opening_winner(box_die, captain_die)
        if first is None:
            if g.auto_doubles < self.options.auto_doubles:
                g = g._with(
                    *(replace(m, cube=Cube(m.cube.value * 2, None)) for m in g.members if m.in_game)
                )
                g = replace(g, auto_doubles=g.auto_doubles + 1)
            return replace(self, game=g)
        dice = (box_die, captain_die) if first == 0 else (captain_die, box_die)
        return replace(self, game=replace(g, turn=Side(first), phase=Phase.MOVE, dice=dice))

    def roll(self, player: str, dice: Sequence[int]) -> Chouette:
        """The box, or the (acting) captain for the team, rolls. Every double and offer must
        be answered first. With no legal play the turn passes at once.

        Choice: the team's "start of the turn" ends when the captain rolls; members double
        their own cubes before that, never after.

        :raises NotYourTurnError: not this player's turn to roll.
        :raises CubeError: a double waits for an answer.
        :raises ResignationError: a resignation offer waits for an answer.
        :raises IllegalActionError: not the moment to roll.
        """
        self._check(player, Action.ROLL, None)
        g = self._current("roll")
        d = check_dice(dice)
        g = replace(g, phase=Phase.MOVE, dice=d)
        if not can_move(g.position, d):
            g = g._pass_turn(Play((), g.position))
        return replace(self, game=g)

    def move(self, player: str, moves: Sequence[Move]) -> Chouette:
        """The box, or the (acting) captain for the team, plays ``moves`` (``(from, to)``
        pairs in the mover's numbering). Only the captain moves the team's checkers: advice
        is only advice. Bearing off the last checker settles every member still in the game.

        :raises NotYourTurnError: not this player's move.
        :raises IllegalActionError: the dice are not thrown.
        :raises IllegalPlayError: the play is not legal, with the reason.
        """
        self._check(player, Action.MOVE, None)
        g = self._current("move")
        assert g.dice is not None
        p = play(g.position, g.dice, moves)
        if p.result.me[OFF] < CHECKERS:
            return replace(self, game=g._pass_turn(p))
        won = classify_win(p.result)
        g = replace(g, position=p.result, dice=None, last_play=p)
        for m in g.members:
            if m.in_game:
                g = g._settle(m.player, g.turn, g._counted(m, won), m.cube.value, How.BEAR_OFF)
        return self._after(replace(g, phase=Phase.OVER))

    def play(self, player: str, chosen: Play) -> Chouette:
        """Like :meth:`move` with a :class:`~engine.moves.Play` from :meth:`legal_plays`."""
        return self.move(player, chosen.moves)

    def double(self, player: str, members: Iterable[str] | None = None) -> Chouette:
        """Offer a double, before the roll.

        The box, on its turn, doubles ``members`` (default: every member whose cube it may
        turn: centred or owned by the box). Multiple cubes: any of them; single cube: the
        whole team. A member, on the team's turn before the captain rolls, doubles their own
        cube (``members`` omitted or just themselves); with a single cube only the captain
        doubles, for the whole team.

        Choice: the box may double in several calls before it rolls (say one member, then,
        after the answer, another); each cube can still be turned only once a turn, since a
        taken cube belongs to the taker. Choice: a cube with a resignation offer waiting
        cannot be doubled (nor a doubled cube offered a resignation) until it is answered;
        with a single cube the team's double waits until no member's cube has anything
        pending.

        :raises NotYourTurnError: the other side is on roll, or ``player`` is out of the game.
        :raises CubeError: after the roll; someone else's cube; a cube the other side owns; a
            double already pending; single cube and not the captain, or not the whole team.
        :raises ResignationError: a resignation offer on that cube waits for an answer.
        """
        g, names, side = self._offering(player, Action.DOUBLE, members)
        if side is Side.BOX and self.options.single and set(names) != set(g.in_game):
            raise CubeError(
                f"{self._who(player)} cannot double only {', '.join(names)}: with a single "
                f"cube the box doubles the whole team"
            )
        offers = []
        for name in names:
            m = g.member(name)
            assert m is not None
            pending = PendingDouble(
                doubler=side,
                responder=1 - side,
                value=m.cube.value * 2,
                owner_if_taken=1 - side,
                drop_value=m.cube.value,
            )
            offers.append(replace(m, pending=pending))
        return replace(self, game=g._with(*offers))

    def take(self, player: str, member: str | None = None) -> Chouette:
        """Take a double: a member on their own cube (``member`` omitted), or the box on
        ``member``'s cube (which may be omitted when only one double waits for the box; with
        a single cube the box's answer is for the whole team). After a beaver, the original
        doubler takes or drops the same way.

        House rule ``box_must_take_half`` (multiple cubes). Choice: "doubled at once" means
        the initial doubles (on centred cubes: value 1, or the automatic-doubles value) that
        wait for the box's answer when it gives its first answer among them; they form a
        batch, and the box must take (or beaver) at least half of the batch, or drop all of
        it. Each answer is checked as it comes, so the box can never paint itself into a
        corner. Doubles made after the batch formed are answered freely.

        :raises CubeError: no double waits for this player's answer on that cube, or the
            house rule forbids this answer.
        :raises NotYourTurnError: the answer is the other side's.
        """
        g, names = self._answering(player, Action.TAKE, member)
        taken = []
        for name in names:
            m = g.member(name)
            assert m is not None and m.pending is not None
            p = m.pending
            taken.append(
                replace(m, cube=Cube(p.value, p.owner_if_taken), pending=None, turned=True)
            )
        batch = self._batch_after(g, player, names, True)
        return self._after(replace(g._with(*taken), batch=batch))

    def drop(self, player: str, member: str | None = None) -> Chouette:
        """Drop a double (``member`` as for :meth:`take`): the doubler wins the value before
        the double (after a beaver: before the beaver) on that cube, and the member's game is
        over; they take no further part, not even as an adviser.

        If the captain's own game ends this way, the first remaining member in line order
        plays on as acting captain. Single cube: captaincy passes for good to the first
        member in line order who took, and the former captain goes to the bottom of the line.
        Choice: that happens once every member has answered the box's double (the members
        answer in any order, and the outcome must not depend on it), and only if someone
        took: if the whole team drops, the game is simply over and the box beat the captain.

        :raises CubeError: no double waits for this player's answer on that cube, or the
            house rule forbids this answer.
        :raises NotYourTurnError: the answer is the other side's.
        """
        g, names = self._answering(player, Action.DROP, member)
        g = replace(g, batch=self._batch_after(g, player, names, False))
        for name in names:
            m = g.member(name)
            assert m is not None and m.pending is not None
            p = m.pending
            # The side that did not drop wins: the doubler, or after a beaver the beaverer.
            g = g._settle(name, Side(1 - p.responder), Result.SINGLE, p.drop_value, How.DROP)
        return self._after(g)

    def beaver(self, player: str, member: str | None = None) -> Chouette:
        """Beaver a double (``member`` as for :meth:`take`): take and redouble at once,
        keeping the cube; the doubler then takes or drops the beaver.

        Choice: with a single cube only the box beavers (the team's double). The team's
        members answer the box's double each alone, so no one of them can redouble the cube
        they share.

        :raises CubeError: beavers are off, already beavered, single cube and a member, or no
            double waits for this player's answer on that cube.
        :raises NotYourTurnError: the answer is the other side's.
        """
        g, names = self._answering(player, Action.BEAVER, member)
        beavered = []
        for name in names:
            m = g.member(name)
            assert m is not None and m.pending is not None
            p = m.pending
            beavered.append(
                replace(
                    m,
                    pending=PendingDouble(
                        doubler=p.doubler,
                        responder=p.doubler,
                        value=p.value * 2,
                        owner_if_taken=p.responder,
                        drop_value=p.value,
                        beavered=True,
                    ),
                )
            )
        batch = self._batch_after(g, player, names, True)
        return self._after(replace(g._with(*beavered), batch=batch))

    def resign(self, player: str, level: int, members: Iterable[str] | None = None) -> Chouette:
        """Offer to resign a single (1), gammon (2) or backgammon (3), before the roll.

        Choice (RULES.md §8): a resignation is between the box and one member, on that
        member's cube. A member offers the box on the team's turn (``members`` omitted: the
        captain cannot resign for the others); the box offers on its own turn, to
        ``members`` (default: every remaining member whose cube is free), each answering
        on their own.

        :raises ResignationError: a bad level, someone else's game, after the roll, or
            something already waiting for an answer on that cube.
        :raises NotYourTurnError: the other side is on roll.
        """
        if level not in (1, 2, 3) or isinstance(level, bool):
            raise ResignationError(f"resignation level must be 1, 2 or 3: {level!r}")
        g, names, side = self._offering(player, Action.RESIGN, members)
        offers = []
        for name in names:
            m = g.member(name)
            assert m is not None
            offers.append(replace(m, resignation=Resignation(side, Result(level))))
        return replace(self, game=g._with(*offers))

    def accept(self, player: str, member: str | None = None) -> Chouette:
        """Accept a resignation offer: a member accepts the box's offer to them, or the box
        accepts ``member``'s (omitted when only one waits). That member's game is settled at
        the level offered × their cube (Jacoby per cube) and they leave the game as after a
        drop (a captain who resigns hands over the captaincy as after a drop).

        :raises ResignationError: no offer waits for this player's answer.
        :raises NotYourTurnError: the offer is this player's own.
        """
        g, names = self._answering(player, Action.ACCEPT, member)
        for name in names:
            m = g.member(name)
            assert m is not None and m.resignation is not None
            r = m.resignation
            winner = Side(1 - r.by)
            g = g._settle(name, winner, g._counted(m, r.level), m.cube.value, How.RESIGN)
        return self._after(g)

    def decline(self, player: str, member: str | None = None) -> Chouette:
        """Decline a resignation offer (as for :meth:`accept`): play goes on.

        :raises ResignationError: no offer waits for this player's answer.
        :raises NotYourTurnError: the offer is this player's own.
        """
        g, names = self._answering(player, Action.DECLINE, member)
        declined = []
        for name in names:
            m = g.member(name)
            assert m is not None
            declined.append(replace(m, resignation=None))
        return self._after(g._with(*declined))

    # -- text ------------------------------------------------------------------------------

    def text(self) -> str:
        """A readable summary: options, line and roles, the board, each cube, the ledger.

        >>> print(Chouette.from_line(["ann", "bob", "cat"]).start_game().text())
        chouette: multiple cubes, consultation free
        line: ann (box), bob (captain), cat
        game 1: opening throw (ann and bob)
        position 4HPwATDgc/ABMA
        cubes:
          bob  1 centred
          cat  1 centred
        ledger: ann 0, bob 0, cat 0
        """
        o = self.options
        flags = [f"{o.cubes} cube{'s' if o.cubes is CubeMode.MULTIPLE else ''}"]
        flags.append(f"consultation {o.consultation.value.replace('_', ' ')}")
        if o.auto_doubles:
            flags.append(f"automatic doubles up to {o.auto_doubles}")
        flags += [name for name, on in (("beavers", o.beavers), ("jacoby", o.jacoby)) if on]
        if o.box_must_take_half:
            flags.append("box takes half")
        out = ["chouette: " + ", ".join(flags)]
        if self.ordering is not None:
            ranked = " > ".join("=".join(g) for g in self.ordering.groups)
            out.append(
                f"throwing for the line: {ranked}; {', '.join(self.ordering.to_throw)} to throw"
            )
            if self.line:
                out.append(f"then: {', '.join(self.line)}")
        else:
            out.append("line: " + ", ".join(self._line_label(p) for p in self.line))
        g = self.game
        if g is not None:
            out.append(f"game {g.number}: {self._status(g)}")
            seen = "the box" if g.turn is Side.BOX else "the team"
            out.append(
                f"position {g.position.position_id()}"
                + (f" (seen by {seen})" if g.phase in (Phase.ROLL, Phase.MOVE) else "")
            )
            out.append("cubes:")
            width = max(len(m.player) for m in g.members)
            out += [f"  {m.player:<{width}}  {self._cube_text(g, m)}" for m in g.members]
        out.append(
            "ledger: " + ", ".join(f"{p} {v:+d}" if v else f"{p} 0" for p, v in self.ledger.items())
        )
        return "\n".join(out)

    def __str__(self) -> str:
        return self.text()

    def _line_label(self, p: str) -> str:
        g = self.game
        if self.in_progress and g is not None:
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
        if p == self.box:
            return f"{p} (box)"
        return f"{p} (captain)" if p == self.captain else p

    def _status(self, g: ChouetteGame) -> str:
        if g.phase is Phase.OPENING:
            return f"opening throw ({g.box} and {g.captain})"
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

    def _cube_text(self, g: ChouetteGame, m: MemberGame) -> str:
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

    # -- internals: checks -----------------------------------------------------------------

    def _who(self, player: str) -> str:
        g = self.game
        if self.in_progress and g is not None:
            if player == g.box:
                return f"{player} (box)"
            if player == g.acting_captain:
                return f"{player} (captain)"
        return player

    def _any_game(self) -> ChouetteGame:
        if self.game is None:
            raise IllegalActionError("no game has started")
        return self.game

    def _current(self, what: str, player: str | None = None) -> ChouetteGame:
        """The game in progress, with ``player`` (if given) the box or a member still in it."""
        if player is not None and player not in self.players:
            raise ChouetteError(f"{player!r} cannot {what}: not at this chouette")
        who = f"{player} cannot {what}" if player is not None else f"cannot {what}"
        if self.ordering is not None:
            raise IllegalActionError(f"{who}: the line is still being thrown for")
        g = self.game
        if g is None:
            raise IllegalActionError(f"{who}: no game has started")
        if g.is_over:
            raise GameOverError(f"{who}: game {g.number} is over")
        if player is None or player == g.box:
            return g
        m = g.member(player)
        if m is None:
            raise NotYourTurnError(
                f"{who}: {player} joined during game {g.number} and plays from the next"
            )
        if m.settlement is not None:
            raise NotYourTurnError(
                f"{who}: {player} {_out_reason(m.settlement)} and takes no further part in "
                f"this game"
            )
        return g

    def _ok(self, player: str, action: Action, target: str | None) -> bool:
        try:
            self._check(player, action, target)
        except EngineError:
            return False
        return True

    def _check(self, player: str, action: Action, target: str | None) -> None:
        """Raise the precise reason why ``player`` may not take ``action`` now (on
        ``target``'s cube, for the box's cube actions; None for a member's own cube or for
        the general checks). The single source of truth for :meth:`allowed` and the actions."""
        if action is Action.JOIN:
            if not isinstance(player, str) or not player:
                raise ChouetteError(f"a player id must be a non-empty string: {player!r}")
            if player in self.players:
                raise ChouetteError(f"{player} cannot join: already at this chouette")
            return
        if player not in self.players:
            raise ChouetteError(f"{player!r} cannot {action.value}: not at this chouette")
        if action is Action.LEAVE:
            return
        if action is Action.ORDER_THROW:
            if self.ordering is None or player not in self.ordering.to_throw:
                raise ChouetteError(f"{player} does not throw for the line now")
            return
        if action is Action.START_GAME:
            error = self._start_error()
            if error is not None:
                raise error
            return
        verb = _VERBS[action]
        g = self._current(verb, player)
        who = f"{self._who(player)} cannot {verb}"
        is_box = player == g.box
        if action is Action.OPENING_THROW:
            if g.phase is not Phase.OPENING:
                raise IllegalActionError(f"{who}: the opening throw is made")
            if player not in (g.box, g.acting_captain):
                raise NotYourTurnError(f"{who}: only the box and the captain throw")
            return
        if action is Action.ADVISE:
            if is_box:
                raise ChouetteError(f"{who}: the box never hears the team's counsel")
            if player == g.acting_captain:
                raise ChouetteError(f"{who}: the captain decides, advice is for the others")
            policy = self.options.consultation
            if policy is Consultation.NONE:
                raise ChouetteError(f"{who}: no consultation at this chouette")
            m = g.member(player)
            assert m is not None
            if policy is Consultation.AFTER_CUBE and not m.turned:
                raise ChouetteError(f"{who}: no cube, no talk ({player}'s cube is not turned)")
            return
        if action in (Action.ROLL, Action.MOVE):
            self._check_checkers(g, player, action, who)
            return
        if g.phase is Phase.OPENING:
            raise IllegalActionError(f"{who}: the opening throw is not made")
        if action is Action.DOUBLE or action is Action.RESIGN:
            self._check_offer(g, player, action, target, who)
        else:
            self._check_answer(g, player, action, target, who)

    def _check_checkers(self, g: ChouetteGame, player: str, action: Action, who: str) -> None:
        if action is Action.ROLL and g.phase is Phase.MOVE:
            raise IllegalActionError(f"{who}: the dice are already rolled")
        if action is Action.MOVE and g.phase is not Phase.MOVE:
            raise IllegalActionError(f"{who}: the dice are not rolled")
        if player != g.on_roll:
            if g.turn is Side.BOX:
                raise NotYourTurnError(f"{who}: the box is on roll")
            if player == g.box:
                raise NotYourTurnError(f"{who}: the team is on roll")
            raise NotYourTurnError(
                f"{who}: only the captain ({g.acting_captain}) {_CAPTAIN_DOES[action]} for the team"
            )
        if action is Action.ROLL:
            for m in g.members:
                if m.in_game and m.pending is not None:
                    to = "the box's" if m.pending.responder == Side.BOX else f"{m.player}'s"
                    raise CubeError(f"{who}: waiting for {to} answer on {m.player}'s cube")
            for m in g.members:
                if m.in_game and m.resignation is not None:
                    to = f"{m.player}'s" if m.resignation.by == Side.BOX else "the box's"
                    raise ResignationError(
                        f"{who}: waiting for {to} answer to the resignation on {m.player}'s cube"
                    )

    def _check_offer(
        self, g: ChouetteGame, player: str, action: Action, target: str | None, who: str
    ) -> None:
        """A double or a resignation offer, made before the roll by the side on turn."""
        error: type[IllegalActionError] = CubeError if action is Action.DOUBLE else ResignationError
        when = "doubles" if action is Action.DOUBLE else "offers"
        is_box = player == g.box
        if g.phase is Phase.MOVE:
            raise error(f"{who}: the dice are already rolled; {when} come before the roll")
        if is_box and g.turn is Side.TEAM:
            raise NotYourTurnError(
                f"{who}: the team is on roll; the box {when[:-1]}s at the start of its own turn"
            )
        if not is_box and g.turn is Side.BOX:
            raise NotYourTurnError(
                f"{who}: the box is on roll; members {when[:-1]} at the start of the team's turn"
            )
        if not is_box:
            if target is not None and target != player:
                if action is Action.DOUBLE:
                    raise CubeError(f"{who} {target}'s cube: each member doubles only their own")
                raise ResignationError(
                    f"{who} for {target}: each member resigns only their own game"
                )
            if action is Action.DOUBLE and self.options.single and player != g.acting_captain:
                raise CubeError(
                    f"{who}: with a single cube the captain ({g.acting_captain}) decides the "
                    f"team's doubles"
                )
            target = player
        if target is None:
            return
        m = g.member(target)
        if m is None or not m.in_game:
            raise error(f"{who} {target!r}: not in this game")
        whose = "the team's" if self.options.single else f"{player}'s"
        if action is Action.DOUBLE and m.cube.owner == (Side.TEAM if is_box else Side.BOX):
            if not is_box:
                raise CubeError(f"{who}: the box owns {whose} cube")
            if self.options.single:
                raise CubeError(f"{who}: the team owns the cube")
            raise CubeError(f"{who} {target}: {target} owns their cube")
        # With a single cube a double turns every member's cube: all must be free.
        concerned = (
            [x for x in g.members if x.in_game]
            if action is Action.DOUBLE and self.options.single
            else [m]
        )
        for x in concerned:
            if x.pending is not None:
                raise CubeError(f"{who}: a double on {x.player}'s cube waits for an answer")
            if x.resignation is not None:
                raise ResignationError(
                    f"{who}: a resignation offer on {x.player}'s cube waits for an answer"
                )

    def _check_answer(
        self, g: ChouetteGame, player: str, action: Action, target: str | None, who: str
    ) -> None:
        """Take, drop, beaver (a pending double) or accept, decline (a resignation offer)."""
        is_box = player == g.box
        cube_action = action in (Action.TAKE, Action.DROP, Action.BEAVER)
        error: type[IllegalActionError] = CubeError if cube_action else ResignationError
        if not is_box:
            if target is not None and target != player:
                raise error(f"{who} for {target}: each member answers only for their own cube")
            target = player
        if target is None:
            return
        m = g.member(target)
        if m is None or not m.in_game:
            raise error(f"{who} {target!r}: not in this game")
        me = Side.BOX if is_box else Side.TEAM
        if cube_action:
            p = m.pending
            if p is None:
                raise CubeError(f"{who}: no double is waiting on {target}'s cube")
            if p.responder != me:
                to = g.box if p.responder == Side.BOX else target
                raise NotYourTurnError(f"{who}: the answer on {target}'s cube is {to}'s")
            if action is Action.BEAVER:
                if not self.options.beavers:
                    raise CubeError(f"{who}: beavers are not allowed at this chouette")
                if p.beavered:
                    raise CubeError(f"{who}: the double on {target}'s cube is already beavered")
                if self.options.single and not is_box:
                    raise CubeError(
                        f"{who}: with a single cube the team does not beaver (each member "
                        f"answers the box alone)"
                    )
            if is_box:
                self._check_half(g, target, action is not Action.DROP, who)
            return
        r = m.resignation
        if r is None:
            raise ResignationError(f"{who}: no resignation is offered on {target}'s cube")
        if r.by == me:
            to = target if is_box else g.box
            raise NotYourTurnError(f"{who}: the offer on {target}'s cube is {to}'s to answer")

    def _half_batch(self, g: ChouetteGame, target: str) -> tuple[tuple[str, bool | None], ...]:
        """The take-half batch ``target`` belongs to, forming it if this is the box's first
        answer among several initial doubles; empty if the rule does not apply."""
        if not self.options.box_must_take_half or self.options.single:
            return ()
        if any(p == target and a is None for p, a in g.batch):
            return g.batch
        if g.batch:
            return ()
        initial = tuple(
            (m.player, None)
            for m in g.members
            if m.in_game
            and m.pending is not None
            and m.pending.responder == Side.BOX
            and not m.pending.beavered
            and m.cube.owner is None
        )
        if len(initial) < 2 or all(p != target for p, _ in initial):
            return ()
        return initial

    def _check_half(self, g: ChouetteGame, target: str, took: bool, who: str) -> None:
        batch = self._half_batch(g, target)
        if not batch:
            return
        n = len(batch)
        need = (n + 1) // 2
        takes = sum(1 for _, a in batch if a)
        left = sum(1 for _, a in batch if a is None)  # including this one
        ok = takes + left >= need if took else takes == 0 or takes + left - 1 >= need
        if not ok:
            raise CubeError(
                f"{who}: doubled on {n} initial cubes at once, the box must take at least "
                f"{need} of them or drop them all ({takes} taken so far)"
            )

    def _batch_after(
        self, g: ChouetteGame, player: str, names: Sequence[str], took: bool
    ) -> tuple[tuple[str, bool | None], ...]:
        """The take-half batch once the box has answered ``names`` (before the answer is
        applied to the cubes)."""
        batch = g.batch
        if player != g.box:
            return batch
        for name in names:
            formed = self._half_batch(replace(g, batch=batch), name)
            if formed:
                batch = tuple((p, took if p == name else a) for p, a in formed)
                if all(a is not None for _, a in batch):
                    batch = ()
        return batch

    def _offering(
        self, player: str, action: Action, members: Iterable[str] | None
    ) -> tuple[ChouetteGame, tuple[str, ...], Side]:
        """Check a double or a resignation offer; say on whose cubes it is made, and by which
        side. A member offers on their own cube (with a single cube, the captain doubles every
        member's); the box on ``members`` or, by default, on every cube it may."""
        verb = _VERBS[action]
        g = self._current(verb, player)
        if player != g.box:
            others = [m for m in members or () if m != player]
            self._check(player, action, others[0] if others else None)
            team_double = action is Action.DOUBLE and self.options.single
            return g, g.in_game if team_double else (player,), Side.TEAM
        self._check(player, action, None)
        error: type[IllegalActionError] = CubeError if action is Action.DOUBLE else ResignationError
        if members is None:
            names = tuple(m for m in g.in_game if self._ok(player, action, m))
            if not names:
                why = (
                    "every member's cube is owned by its member or waiting for an answer"
                    if action is Action.DOUBLE
                    else "every member's cube is waiting for an answer"
                )
                raise error(f"{self._who(player)} cannot {verb}: {why}")
            return g, names, Side.BOX
        names = _players(members, "member")
        if not names:
            raise error(f"{self._who(player)} cannot {verb}: name the members")
        for name in names:
            self._check(player, action, name)
        return g, names, Side.BOX

    def _answering(
        self, player: str, action: Action, member: str | None
    ) -> tuple[ChouetteGame, tuple[str, ...]]:
        """Check an answer and say on whose cubes it applies."""
        verb = _VERBS[action]
        g = self._current(verb, player)
        if player != g.box:
            self._check(player, action, member)
            return g, (player,)
        self._check(player, action, None)
        cube_action = action in (Action.TAKE, Action.DROP, Action.BEAVER)
        mine = tuple(
            m.player
            for m in g.members
            if m.in_game
            and (
                m.pending is not None and m.pending.responder == Side.BOX
                if cube_action
                else m.resignation is not None and m.resignation.by == Side.TEAM
            )
        )
        if member is not None:
            self._check(player, action, member)
        if cube_action and self.options.single:
            # The team doubled (or the box's beaver is answered) as one: the box's answer is
            # for the whole team.
            if not mine:
                raise CubeError(f"{self._who(player)} cannot {verb}: no double is waiting")
            for name in mine:
                self._check(player, action, name)
            return g, mine
        if member is not None:
            return g, (member,)
        error: type[IllegalActionError] = CubeError if cube_action else ResignationError
        what = "double" if cube_action else "resignation offer"
        if not mine:
            raise error(f"{self._who(player)} cannot {verb}: no {what} is waiting for the box")
        if len(mine) > 1:
            raise error(
                f"{self._who(player)} cannot {verb}: name the member ({', '.join(mine)} are "
                f"waiting)"
            )
        self._check(player, action, mine[0])
        return g, mine

    # -- internals: after a member's game is settled ---------------------------------------

    def _after(self, g: ChouetteGame, line: tuple[str, ...] | None = None) -> Chouette:
        """Book new settlements, hand over the captaincy, end the game and rotate."""
        line = self.line if line is None else line
        ledger = self.ledger
        before = self.game.settlements if self.game is not None else ()
        for s in g.settlements[len(before) :]:
            ledger = ledger.credit(s)
        if self.options.single:
            g, line = _pass_captaincy(g, line)
        history = self.history
        if not g.is_over and not g.in_game:
            g = replace(g, phase=Phase.OVER, dice=None)
        if g.is_over:
            line = _rotate(g, line)
            history = (*history, g)
        return replace(self, game=g, line=line, ledger=ledger, history=history)


_VERBS = {
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


_CAPTAIN_DOES = {Action.ROLL: "rolls", Action.MOVE: "moves the checkers"}


def _out_reason(s: Settlement) -> str:
    won = s.winner == s.member
    return {
        (How.DROP, False): "has dropped",
        (How.DROP, True): "has won on the box's drop",
        (How.RESIGN, False): "has resigned",
        (How.RESIGN, True): "has accepted the box's resignation",
        (How.LEAVE, True): "has won when the box left",
        (How.LEAVE, False): "has left",
        (How.BEAR_OFF, True): "has won",
        (How.BEAR_OFF, False): "has lost",
    }[(s.how, won)]


def _players(players: Iterable[str], what: str = "player") -> tuple[str, ...]:
    if isinstance(players, str):
        raise ChouetteError(f"{what}s must be a collection of ids, not one string: {players!r}")
    out = tuple(players)
    for p in out:
        if not isinstance(p, str) or not p:
            raise ChouetteError(f"a {what} id must be a non-empty string: {p!r}")
    dup = sorted({p for p in out if out.count(p) > 1})
    if dup:
        raise ChouetteError(f"{what}s named twice: {', '.join(dup)}")
    return out


def _pass_captaincy(g: ChouetteGame, line: tuple[str, ...]) -> tuple[ChouetteGame, tuple[str, ...]]:
    """Single cube: once the captain's game has ended while others play on (and every member
    has answered the box's double), the first remaining member in line order is captain for
    good and the former captain goes to the bottom of the line."""
    captain = g.member(g.captain)
    assert captain is not None
    remaining = g.in_game
    if g.is_over or captain.in_game or not remaining:
        return g, line
    if any(
        m.in_game and m.pending is not None and m.pending.responder == Side.TEAM for m in g.members
    ):
        return g, line
    new = remaining[0]
    rest = [p for p in line[1:] if p not in (g.captain, new)]
    tail = [g.captain] if g.captain in line else []
    return replace(g, captain=new), (line[0], new, *rest, *tail)


def _rotate(g: ChouetteGame, line: tuple[str, ...]) -> tuple[str, ...]:
    """RULES.md §8, rotation: if the box beat the captain it stays and the captain goes to the
    bottom of the line; otherwise the captain becomes the box and the old box goes to the
    bottom. Players who left are already out of ``line``; newcomers are in it, above the one
    sent to the bottom (Choice: the player rotated out goes below newcomers who joined during
    the game, as they go to the bottom at the end of it)."""
    box, captain = g.box, g.captain
    others = [p for p in line if p not in (box, captain)]
    order = [box, *others, captain] if g.box_won() else [captain, *others, box]
    return tuple(p for p in order if p in line)


__all__ = [
    "TARGETED_ACTIONS",
    "Action",
    "Chouette",
    "ChouetteGame",
    "ChouetteOptions",
    "Consultation",
    "CubeMode",
    "How",
    "Ledger",
    "LineOrder",
    "MemberGame",
    "Settlement",
    "Side",
]
