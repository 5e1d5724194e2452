"""One game between two players, as a pure state machine.

Players are ``0`` and ``1``. Every action is a method that returns a new :class:`Game` or raises a
precise :class:`~engine.errors.IllegalActionError`; the dice are always an input.

>>> g = Game.new()
>>> g = g.opening_throw(3, 1)           # player 0 threw 3, player 1 threw 1: player 0 plays 31
>>> g.turn, g.phase, g.dice
(0, <Phase.MOVE: 'move'>, (3, 1))
>>> g = g.move(0, [(8, 5), (6, 5)])
>>> g.turn, g.phase
(1, <Phase.ROLL: 'roll'>)
>>> g = g.double(1).take(0)
>>> g.cube
Cube(value=2, owner=0)
>>> g.double(1)
Traceback (most recent call last):
...
engine.errors.CubeError: player 1 cannot double: player 0 owns the cube
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum

from engine.actions import Action
from engine.errors import (
    CubeError,
    GameOverError,
    IllegalActionError,
    InvalidDiceError,
    NotYourTurnError,
    ResignationError,
)
from engine.frozen import replace
from engine.matchid import CENTRED, DROPPED, GAME_OVER, PLAYING, RESIGNED, MatchState
from engine.moves import Move, Play, can_move, check_dice, legal_plays, play
from engine.position import BAR, CHECKERS, OFF, Position


class Phase(StrEnum):
    """Where a game stands: who must do what next."""

    OPENING = "opening"
    """Both players throw one die; ties throw again."""
    ROLL = "roll"
    """The player on turn may double, offer to resign, or roll."""
    MOVE = "move"
    """The player on turn has rolled and must play."""
    DOUBLED = "doubled"
    """A double (or beaver) awaits the answer of the other player."""
    RESIGNATION = "resignation"
    """A resignation offer awaits the answer of the other player."""
    OVER = "over"
    """The game has ended; see :attr:`Game.result`."""


class Result(IntEnum):
    """How much a game is won by, before the cube."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


@dataclass(frozen=True, slots=True)
class GameOptions:
    """The rules a game is played under (docs/rules.md §5–7)."""

    cube: bool = True
    """Whether the cube may be turned at all (False in the Crawford game)."""
    auto_doubles: int = 0
    """How many automatic doubles tied opening throws may make (0: off)."""
    beavers: bool = False
    """Whether a doubled player may beaver."""
    jacoby: bool = False
    """Whether gammons count single until a double has been offered and taken."""

    def __post_init__(self) -> None:
        if not isinstance(self.auto_doubles, int) or not 0 <= self.auto_doubles <= 6:
            raise IllegalActionError(
                f"automatic doubles limit must be 0 to 6: {self.auto_doubles!r}"
            )


@dataclass(frozen=True, slots=True)
class Cube:
    """The doubling cube: its value and who owns it (None: centred)."""

    value: int = 1
    owner: int | None = None


@dataclass(frozen=True, slots=True)
class PendingDouble:
    """A double, or a beaver, waiting for an answer."""

    doubler: int
    """Who turned the cube first (the player on roll)."""
    responder: int
    """Who must answer now: the doubled player, or after a beaver the original doubler."""
    value: int
    """The cube value if the double (or beaver) is taken."""
    owner_if_taken: int
    """Who owns the cube if it is taken: the taker, or the beaverer."""
    drop_value: int
    """What a drop pays: the value before the double (or before the beaver)."""
    beavered: bool = False


@dataclass(frozen=True, slots=True)
class Resignation:
    """An offer to resign, waiting for an answer."""

    by: int
    level: Result


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a game ended."""

    winner: int
    result: Result
    """Single, gammon or backgammon, as counted (after the Jacoby rule)."""
    cube: int
    """The cube value it is paid at."""
    how: str
    """``"bear_off"``, ``"drop"``, ``"resign"`` or ``"forfeit"`` (docs/rules.md §10)."""

    @property
    def points(self) -> int:
        """The value of the game: result × cube."""
        return int(self.result) * self.cube


def other(player: int) -> int:
    """The opponent of player 0 or 1."""
    return 1 - player


def classify_win(position: Position) -> Result:
    """Single, gammon or backgammon for the side that just bore off its last checker.

    ``position`` is seen by the winner (``me`` has 15 off); the loser is ``opp``.
    """
    loser = position.opp
    if loser[OFF]:
        return Result.SINGLE
    # The winner's home board is the loser's points 19..24.
    if loser[BAR] or any(loser[19:25]):
        return Result.BACKGAMMON
    return Result.GAMMON


def forfeit_result(position: Position) -> Result:
    """The worst result still possible for the side ``me`` of ``position``: what it pays if it
    forfeits now (docs/rules.md §10).

    Choice: a backgammon if it has borne off no checker and has one on the bar or in the
    opponent's home board (its points 19..24), otherwise a gammon if it has borne off none,
    otherwise a single game, so that leaving never pays.

    >>> forfeit_result(Position.start())   # back checkers still in the opponent's home board
    <Result.BACKGAMMON: 3>
    >>> forfeit_result(Position.from_points({6: 10, 13: 5}, {1: 1}))
    <Result.GAMMON: 2>
    >>> forfeit_result(Position.from_points({6: 1, 22: 1}, {1: 1}))
    <Result.SINGLE: 1>
    """
    me = position.me
    if me[OFF]:
        return Result.SINGLE
    if me[BAR] or any(me[19:25]):
        return Result.BACKGAMMON
    return Result.GAMMON


def opening_winner(die0: int, die1: int) -> int | None:
    """Who moves first after an opening throw (None on a tie)."""
    check_dice((die0, die1))
    if die0 == die1:
        return None
    return 0 if die0 > die1 else 1


@dataclass(frozen=True, slots=True)
class Game:
    """An immutable game state. Build one with :meth:`new`, then call the action methods."""

    options: GameOptions = GameOptions()
    position: Position = Position.start()
    """The board, seen by the player :attr:`turn`."""
    turn: int = 0
    """The player on roll (meaningless during the opening throw)."""
    phase: Phase = Phase.OPENING
    cube: Cube = Cube()
    dice: tuple[int, int] | None = None
    pending: PendingDouble | None = None
    resignation: Resignation | None = None
    cube_taken: bool = False
    """Whether a double has been offered and taken (lifts the Jacoby rule)."""
    auto_doubles: int = 0
    """Automatic doubles made by tied opening throws so far."""
    result: GameResult | None = None
    last_play: Play | None = None
    """The last checker play made, for notation and replays."""

    @classmethod
    def new(cls, options: GameOptions | None = None) -> Game:
        """A game waiting for its opening throw."""
        return cls(options=options or GameOptions())

    # -- queries ------------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def is_in_play(self) -> bool:
        """Whether the game is under way: its first throw made and not over. Leaving now
        forfeits (:meth:`forfeit`); before the first throw it costs nothing (docs/rules.md §10).

        Choice: a tied opening throw that turned the cube up (automatic doubles) has started
        the game; a tie that changed nothing leaves it as before the first throw.
        """
        if self.phase is Phase.OVER:
            return False
        return self.phase is not Phase.OPENING or self.auto_doubles > 0

    @property
    def to_act(self) -> int | None:
        """The player who must act now (None during the opening throw or after the game)."""
        if self.phase in (Phase.ROLL, Phase.MOVE):
            return self.turn
        if self.phase is Phase.DOUBLED:
            assert self.pending is not None
            return self.pending.responder
        if self.phase is Phase.RESIGNATION:
            assert self.resignation is not None
            return other(self.resignation.by)
        return None

    def position_for(self, player: int) -> Position:
        """The board seen by ``player``."""
        return self.position if player == self.turn else self.position.swap()

    def can_double(self, player: int) -> bool:
        """Whether ``player`` may offer a double now."""
        return (
            self.phase is Phase.ROLL
            and player == self.turn
            and self.options.cube
            and self.cube.owner in (None, player)
        )

    def allowed(self, player: int) -> frozenset[Action]:
        """The actions ``player`` may take now: the game's subset of :class:`Action` (the opening
        throw, the roll, the move, the cube and resignation actions)."""
        acts: set[Action] = set()
        if self.phase is Phase.OPENING:
            acts.add(Action.OPENING_THROW)
        elif self.phase is Phase.ROLL and player == self.turn:
            acts |= {Action.ROLL, Action.RESIGN}
            if self.can_double(player):
                acts.add(Action.DOUBLE)
        elif self.phase is Phase.MOVE and player == self.turn:
            acts.add(Action.MOVE)
        elif self.phase is Phase.DOUBLED and player == self.to_act:
            acts |= {Action.TAKE, Action.DROP}
            assert self.pending is not None
            if self.options.beavers and not self.pending.beavered:
                acts.add(Action.BEAVER)
        elif self.phase is Phase.RESIGNATION and player == self.to_act:
            acts |= {Action.ACCEPT, Action.DECLINE}
        return frozenset(acts)

    def legal_plays(self) -> tuple[Play, ...]:
        """The legal plays for the player on roll once the dice are thrown (else empty)."""
        if self.phase is not Phase.MOVE or self.dice is None:
            return ()
        return legal_plays(self.position, self.dice).plays

    def match_state(
        self, match_length: int = 0, score: tuple[int, int] = (0, 0), crawford: bool = False
    ) -> MatchState:
        """The GNU Backgammon match state of this game (for :meth:`match_id`)."""
        cube, owner = self.cube.value, self.cube.owner
        move = turn = self.turn
        doubled = False
        resigned = 0
        state = PLAYING
        if self.phase is Phase.OPENING:
            state = PLAYING
        elif self.phase is Phase.DOUBLED:
            assert self.pending is not None
            doubled = True
            turn = self.pending.responder
            if self.pending.beavered:
                # GNU shows a pending beaver as the taken double, owned by the beaverer.
                cube, owner = self.pending.drop_value, self.pending.owner_if_taken
        elif self.phase is Phase.RESIGNATION:
            assert self.resignation is not None
            resigned = int(self.resignation.level)
            turn = other(self.resignation.by)
        elif self.phase is Phase.OVER:
            # As GNU Backgammon records the end: after a drop the dropper is to act; after an
            # accepted resignation the winner, with the resignation still shown (as counted: a
            # gammon resigned under the Jacoby rule shows as the single it is paid as); after
            # the last checker is borne off the turn has passed to the loser. GNU Backgammon
            # has no forfeit: one is shown as the resignation of what it is paid as.
            assert self.result is not None
            winner, how = self.result.winner, self.result.how
            resigns = how in ("resign", "forfeit")
            state = DROPPED if how == "drop" else RESIGNED if resigns else GAME_OVER
            turn = winner if resigns else other(winner)
            if how == "bear_off":
                move = turn
            if resigns:
                resigned = int(self.result.result)
        return MatchState(
            cube=cube,
            owner=CENTRED if owner is None else owner,
            move=move,
            crawford=crawford,
            game_state=state,
            turn=turn,
            doubled=doubled,
            resigned=resigned,
            dice=self.dice if self.dice and self.phase is Phase.MOVE else (0, 0),
            match_length=match_length,
            score=score,
            jacoby=self.options.jacoby and not match_length,
        )

    def match_id(
        self, match_length: int = 0, score: tuple[int, int] = (0, 0), crawford: bool = False
    ) -> str:
        """The GNU Backgammon Match ID of this game."""
        return self.match_state(match_length, score, crawford).match_id()

    def position_id(self) -> str:
        """The GNU Backgammon Position ID (seen by the player on roll)."""
        return self.position.position_id()

    # -- actions ------------------------------------------------------------------------------

    def opening_throw(self, die0: int, die1: int) -> Game:
        """Each player throws one die. A tie throws again (and with automatic doubles turns
        the centred cube up, up to the limit); otherwise the higher die plays both numbers.

        :raises IllegalActionError: not in the opening.
        :raises InvalidDiceError: dice outside 1..6.
        """
        self._require(Phase.OPENING, "throw the opening dice")
        first = opening_winner(die0, die1)
        if first is None:
            if self.auto_doubles < self.options.auto_doubles and self.options.cube:
                return replace(
                    self,
                    cube=Cube(self.cube.value * 2, None),
                    auto_doubles=self.auto_doubles + 1,
                )
            return self
        dice = (die0, die1) if first == 0 else (die1, die0)
        return replace(self, turn=first, phase=Phase.MOVE, dice=dice)

    def roll(self, player: int, dice: Sequence[int]) -> Game:
        """The player on turn rolls. With no legal play the turn passes at once.

        :raises NotYourTurnError: not this player's turn to roll.
        :raises IllegalActionError: not the moment to roll (a double or offer is pending...).
        """
        self._require(Phase.ROLL, "roll", player)
        d = check_dice(dice)
        game = replace(self, phase=Phase.MOVE, dice=d)
        if not can_move(self.position, d):
            return game._pass_turn(Play((), self.position))
        return game

    def move(self, player: int, moves: Sequence[Move]) -> Game:
        """The player on turn plays ``moves`` (``(from, to)`` pairs).

        :raises NotYourTurnError: not this player's turn.
        :raises IllegalActionError: the dice are not thrown yet.
        :raises IllegalPlayError: the play is not legal, with the reason.
        """
        self._require(Phase.MOVE, "move", player)
        assert self.dice is not None
        p = play(self.position, self.dice, moves)
        return self._after_play(p)

    def play(self, player: int, chosen: Play) -> Game:
        """Like :meth:`move` with a :class:`Play` from :meth:`legal_plays`."""
        return self.move(player, chosen.moves)

    def double(self, player: int) -> Game:
        """The player on turn offers a double before rolling.

        :raises CubeError: not before rolling (dice thrown, a double or offer pending), no cube
            in this game (Crawford), or the other player owns it.
        :raises NotYourTurnError: not this player's turn.
        """
        self._require(Phase.ROLL, "double", player, CubeError)
        if not self.options.cube:
            raise CubeError("no doubling in this game (the Crawford game)")
        if self.cube.owner not in (None, player):
            raise CubeError(
                f"player {player} cannot double: player {self.cube.owner} owns the cube"
            )
        opp = other(player)
        pending = PendingDouble(
            doubler=player,
            responder=opp,
            value=self.cube.value * 2,
            owner_if_taken=opp,
            drop_value=self.cube.value,
        )
        return replace(self, phase=Phase.DOUBLED, pending=pending)

    def take(self, player: int) -> Game:
        """The doubled player takes (after a beaver: the original doubler takes).

        :raises CubeError: no double pending for this player.
        """
        pending = self._pending(player, "take")
        return replace(
            self,
            phase=Phase.ROLL,
            pending=None,
            cube=Cube(pending.value, pending.owner_if_taken),
            cube_taken=True,
        )

    def drop(self, player: int) -> Game:
        """The doubled player drops: the game ends, paying the value before the double.

        :raises CubeError: no double pending for this player.
        """
        pending = self._pending(player, "drop")
        cube = self.cube
        if pending.beavered:
            # The beaverer took the double (and turned the cube again): the game ends with them
            # holding it at the value before the beaver, as GNU Backgammon records it.
            cube = Cube(pending.drop_value, pending.owner_if_taken)
        return replace(
            self,
            phase=Phase.OVER,
            pending=None,
            cube=cube,
            result=GameResult(other(player), Result.SINGLE, pending.drop_value, "drop"),
        )

    def beaver(self, player: int) -> Game:
        """The doubled player redoubles at once, keeping the cube.

        :raises CubeError: beavers are off, already beavered, or no double pending.
        """
        pending = self._pending(player, "beaver")
        if not self.options.beavers:
            raise CubeError("beavers are not allowed at this table")
        if pending.beavered:
            raise CubeError("the double has already been beavered")
        return replace(
            self,
            pending=PendingDouble(
                doubler=pending.doubler,
                responder=pending.doubler,
                value=pending.value * 2,
                owner_if_taken=player,
                drop_value=pending.value,
                beavered=True,
            ),
        )

    def resign(self, player: int, level: int) -> Game:
        """The player on turn, before rolling, offers to resign a single, gammon or backgammon.

        :raises ResignationError: not before rolling, or a bad level.
        :raises NotYourTurnError: not this player's turn.
        """
        self._require(Phase.ROLL, "offer to resign", player, ResignationError)
        if level not in (1, 2, 3) or isinstance(level, bool):
            raise ResignationError(f"resignation level must be 1, 2 or 3: {level!r}")
        return replace(
            self, phase=Phase.RESIGNATION, resignation=Resignation(player, Result(level))
        )

    def accept(self, player: int) -> Game:
        """The opponent accepts the resignation: the game ends at that value × cube."""
        offer = self._offer(player, "accept")
        return replace(
            self,
            phase=Phase.OVER,
            resignation=None,
            result=GameResult(player, self._counted(offer.level), self.cube.value, "resign"),
        )

    def decline(self, player: int) -> Game:
        """The opponent declines the resignation: play goes on."""
        self._offer(player, "decline")
        return replace(self, phase=Phase.ROLL, resignation=None)

    def forfeit(self, player: int) -> Game:
        """``player`` forfeits: they left in mid-game or ran out of time (docs/rules.md §10).
        Either player may forfeit, in any phase, whoever is on turn; a double or resignation
        offer waiting for an answer lapses (a double not yet taken does not count).

        The game ends at the worst result still possible for ``player``
        (:func:`forfeit_result`) × the cube as it stands, counted single under the Jacoby rule
        while no double has been taken, as for an accepted resignation (:meth:`_counted`).

        >>> g = Game.new().opening_throw(3, 1).move(0, [(8, 5), (6, 5)]).double(1)
        >>> g.forfeit(0).result
        GameResult(winner=1, result=<Result.BACKGAMMON: 3>, cube=1, how='forfeit')

        :raises GameOverError: the game is over.
        :raises IllegalActionError: not player 0 or 1.
        """
        if self.phase is Phase.OVER:
            raise GameOverError("cannot forfeit: the game is over")
        if player not in (0, 1) or isinstance(player, bool):
            raise IllegalActionError(f"no such player: {player!r}")
        worst = forfeit_result(self.position_for(player))
        return replace(
            self,
            phase=Phase.OVER,
            pending=None,
            resignation=None,
            result=GameResult(other(player), self._counted(worst), self.cube.value, "forfeit"),
        )

    # -- internals ----------------------------------------------------------------------------

    def _after_play(self, p: Play) -> Game:
        if p.result.me[OFF] == CHECKERS:
            won = classify_win(p.result)
            return replace(
                self,
                position=p.result,
                phase=Phase.OVER,
                last_play=p,
                result=GameResult(self.turn, self._counted(won), self.cube.value, "bear_off"),
            )
        return self._pass_turn(p)

    def _pass_turn(self, p: Play) -> Game:
        return replace(
            self,
            position=p.result.swap(),
            turn=other(self.turn),
            phase=Phase.ROLL,
            dice=None,
            last_play=p,
        )

    def _counted(self, result: Result) -> Result:
        # Choice: under the Jacoby rule a resigned (or forfeited, §10) gammon or backgammon on
        # a cube never turned counts single too (docs/rules.md §6 says gammons and backgammons
        # count single; GNU Backgammon pays an accepted resignation in full).
        if self.options.jacoby and not self.cube_taken:
            return Result.SINGLE
        return result

    def _require(
        self,
        phase: Phase,
        what: str,
        player: int | None = None,
        error: type[IllegalActionError] = IllegalActionError,
    ) -> None:
        """Check that ``player`` may act in ``phase`` now; ``error`` is raised (with the reason)
        when the game is in another phase, so a cube or resignation action out of turn order
        raises :class:`CubeError` or :class:`ResignationError`."""
        if self.phase is Phase.OVER:
            raise GameOverError(f"cannot {what}: the game is over")
        if player is not None and player not in (0, 1):
            raise IllegalActionError(f"no such player: {player!r}")
        if self.phase is not phase:
            reason = {
                Phase.OPENING: "the opening throw has not been made",
                Phase.ROLL: (
                    "the dice have not been rolled"
                    if phase is Phase.MOVE
                    else "the opening throw has been made"
                ),
                Phase.MOVE: "the dice are already rolled",
                Phase.DOUBLED: "a double is waiting for an answer",
                Phase.RESIGNATION: "a resignation offer is waiting for an answer",
            }[self.phase]
            raise error(f"cannot {what}: {reason}")
        if player is not None and player != self.turn:
            raise NotYourTurnError(f"cannot {what}: it is player {self.turn}'s turn")

    def _pending(self, player: int, what: str) -> PendingDouble:
        if self.phase is Phase.OVER:
            raise GameOverError(f"cannot {what}: the game is over")
        if self.phase is not Phase.DOUBLED or self.pending is None:
            raise CubeError(f"cannot {what}: no double is pending")
        if player != self.pending.responder:
            raise NotYourTurnError(
                f"cannot {what}: the answer is player {self.pending.responder}'s"
            )
        return self.pending

    def _offer(self, player: int, what: str) -> Resignation:
        if self.phase is Phase.OVER:
            raise GameOverError(f"cannot {what}: the game is over")
        if self.phase is not Phase.RESIGNATION or self.resignation is None:
            raise ResignationError(f"cannot {what}: no resignation is offered")
        if player != other(self.resignation.by):
            raise NotYourTurnError(f"cannot {what}: the offer is player {player}'s own")
        return self.resignation


__all__ = [
    "Cube",
    "Game",
    "GameOptions",
    "GameResult",
    "InvalidDiceError",
    "PendingDouble",
    "Phase",
    "Resignation",
    "Result",
    "classify_win",
    "forfeit_result",
    "opening_winner",
    "other",
]
