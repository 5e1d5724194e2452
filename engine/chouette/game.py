"""One game of a chouette: the board between the box and the team, and each member's own game.

The checker play between the box and the captain's side reuses the two-player machinery
(:func:`~engine.moves.legal_plays`, :class:`~engine.game.Result`, :class:`~engine.game.Cube`);
what the chouette adds is one game *per team member* against the box (:class:`MemberGame`: that
member's cube, pending double, resignation offer and settlement). The table
(:class:`~engine.chouette.table.Chouette`) checks who may act and calls the steps here.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.chouette.ledger import SettledBy, Settlement
from engine.chouette.options import ChouetteOptions, Side
from engine.frozen import replace
from engine.game import Cube, PendingDouble, Phase, Resignation, Result, forfeit_result
from engine.moves import Play, legal_plays
from engine.position import Position

__all__ = ["ChouetteGame", "MemberGame"]


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
    "no cube, no talk"). Choice: automatic doubles do not turn it, as in docs/rules.md §6."""
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

    @property
    def is_in_play(self) -> bool:
        """Whether the game is under way: its opening throw made (or a tie that turned the
        cubes up) and not over. Leaving now forfeits; before, it costs nothing (docs/rules.md
        §10), as :attr:`Game.is_in_play <engine.game.Game.is_in_play>`."""
        if self.phase is Phase.OVER:
            return False
        return self.phase is not Phase.OPENING or self.auto_doubles > 0

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

    # -- steps (the table calls them once it has checked the action) -------------------------

    def with_members(self, *changed: MemberGame) -> ChouetteGame:
        """The game with these members' games replaced (matched by player)."""
        by_name = {m.player: m for m in changed}
        return replace(self, members=tuple(by_name.get(m.player, m) for m in self.members))

    def counted(self, m: MemberGame, result: Result) -> Result:
        """``result`` as it counts on ``m``'s cube: single under the Jacoby rule until that
        cube has been turned."""
        if self.options.jacoby and not m.turned:
            return Result.SINGLE
        return result

    def settle(
        self, member: str, winner: Side, result: Result, cube: int, how: SettledBy
    ) -> ChouetteGame:
        """``member``'s game ends: ``winner``'s side is paid ``result`` × ``cube``, anything
        pending on that cube lapses, and the member leaves any take-half batch."""
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
        return replace(self.with_members(done), settlements=(*self.settlements, s), batch=batch)

    def forfeit(self, player: str) -> ChouetteGame:
        """``player``, the box or a member still in the game, forfeits (docs/rules.md §10):
        each cube concerned is settled at the worst result still possible for the side that
        forfeits (:func:`~engine.game.forfeit_result`, on the board as that side sees it) ×
        that cube's value (a pending double lapses), single under the Jacoby rule while the
        cube is unturned, as for a resignation. A member forfeits their own game against the
        box; the box forfeits to every member still in the game, each on their own cube."""
        if player == self.box:
            worst = forfeit_result(self.position_for(Side.BOX))
            g = self
            for m in self.members:
                if m.in_game:
                    g = g.settle(
                        m.player, Side.TEAM, g.counted(m, worst), m.cube.value, SettledBy.FORFEIT
                    )
            return g
        mine = self.member(player)
        assert mine is not None and mine.in_game
        worst = forfeit_result(self.position_for(Side.TEAM))
        return self.settle(
            player, Side.BOX, self.counted(mine, worst), mine.cube.value, SettledBy.FORFEIT
        )

    def pass_turn(self, p: Play) -> ChouetteGame:
        """After play ``p``: the other side is on roll, seeing the board from its side."""
        return replace(
            self,
            position=p.result.swap(),
            turn=Side.TEAM if self.turn is Side.BOX else Side.BOX,  # not Side(...): slow
            phase=Phase.ROLL,
            dice=None,
            last_play=p,
        )
