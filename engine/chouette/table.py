"""The chouette table: the line, the options, the ledger and the game in progress.

:class:`Chouette` is an immutable value; every action is a method that returns a new chouette or
raises a precise :class:`~engine.errors.IllegalActionError`. Players are strings (account ids);
dice are inputs, never drawn here. Who may act is decided in :mod:`engine.chouette.permissions`,
one game's state and steps live in :mod:`engine.chouette.game`, the line's order and rotation in
:mod:`engine.chouette.line`, the money in :mod:`engine.chouette.ledger`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.actions import Action
from engine.chouette import permissions
from engine.chouette.game import ChouetteGame, MemberGame
from engine.chouette.ledger import Ledger, SettledBy
from engine.chouette.line import LineOrder, pass_captaincy, player_ids, rotate
from engine.chouette.options import ChouetteOptions, Side
from engine.chouette.text import table_text
from engine.errors import ChouetteError, CubeError, IllegalActionError, ResignationError
from engine.frozen import replace
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
from engine.moves import Move, Play, can_move, check_dice, play
from engine.position import CHECKERS, OFF, Position

__all__ = ["Chouette"]

_last: tuple[object, dict[str, frozenset[Action]]] = (None, {})
"""The chouette last asked what its players may do (:meth:`Chouette.allowed`), and its answers
by player: a table view, or a throw's message, asks it for every viewer and then asks
:meth:`Chouette.targets` for each action on a cube, which is empty for every action
:meth:`Chouette.allowed` left out. A chouette never changes, and the one held is the very
object asked again (not an equal one): the answers stand."""


def _asked(table: Chouette) -> dict[str, frozenset[Action]]:
    """What :meth:`Chouette.allowed` answered for ``table`` so far, by player (see ``_last``)."""
    global _last
    last = _last
    if last[0] is not table:
        last = _last = (table, {})
    return last[1]


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
        players = player_ids(players)
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
        line = player_ids(line)
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

    def has_game_in_play(self, player: str) -> bool:
        """Whether ``player`` has a game in play: a game is under way (its first throw made)
        and they are its box or a team member still in it. Leaving or running out of time now
        forfeits (:meth:`forfeit`); otherwise leaving costs nothing (docs/rules.md §10)."""
        g = self.game
        if g is None or not g.is_in_play or self.ordering is not None:
            return False
        if player == g.box:
            return True
        m = g.member(player)
        return m is not None and m.in_game

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
            state = {
                SettledBy.DROP: DROPPED,
                SettledBy.RESIGN: RESIGNED,
                SettledBy.FORFEIT: RESIGNED,
            }.get(s.how, GAME_OVER)
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
        """Whether ``player`` may advise the captain now (docs/rules.md §8, Consultation).

        Never the box, the (acting) captain, a member whose game is settled or a newcomer
        waiting for the next game; otherwise as the chouette's consultation policy says.
        """
        return permissions.permits(self, player, Action.ADVISE, None)

    def check_advice(self, player: str) -> None:
        """Like :meth:`may_advise`, but raise the reason why not.

        :raises ChouetteError: the policy forbids it, or ``player`` is the captain or the box.
        :raises NotYourTurnError: ``player`` is out of this game or waiting for the next.
        """
        permissions.check(self, player, Action.ADVISE, None)

    def allowed(self, player: str) -> frozenset[Action]:
        """The actions ``player`` may take now. Each action not in it raises if tried; for
        the actions on a cube, :meth:`targets` says which members' cubes."""
        known = _asked(self)
        acts = known.get(player)
        if acts is None:
            acts = known[player] = permissions.allowed(self, player)
        return acts

    def targets(self, player: str, action: Action) -> frozenset[str]:
        """The members whose cubes ``player`` may apply ``action`` (double, take, drop, beaver,
        resign, accept, decline) to now: for a member, themselves or nobody; for the box, each
        member it may double, answer or offer to."""
        acts = _asked(self).get(player)
        if acts is not None and action not in acts:
            # permissions.allowed lists an action on a cube exactly when it has targets.
            return frozenset()
        return permissions.targets(self, player, action)

    # -- seating ---------------------------------------------------------------------------

    def join(self, player: str) -> Chouette:
        """``player`` sits down at the bottom of the line and plays from the next game (while
        the line is being thrown for, after it is settled). A player who left may come back
        the same way, even during the game they left (they are out of that game).

        :raises ChouetteError: a bad id, or already at the table.
        """
        permissions.check(self, player, Action.JOIN, None)
        return replace(self, line=(*self.line, player), ledger=self.ledger.with_player(player))

    def leave(self, player: str) -> Chouette:
        """``player`` leaves the chouette and the line at once; their ledger entry stays.

        In mid-game (docs/rules.md §10) the box, or a team member still in the game, forfeits
        first (:meth:`forfeit`); a member whose game is already settled, or who joined during
        it, just leaves. Before the game's first throw leaving costs nothing. Choice: that
        throw is the opening throw (for the first game, the throws for the line come before
        it: leaving while they are thrown is free too). The game not yet begun is set up
        again from the line without them, as :meth:`start_game` would (so a newcomer seated
        since plays in it); with fewer than two players left it ends unplayed, with no
        settlement and no rotation.

        :raises ChouetteError: ``player`` is not at the table.
        """
        permissions.check(self, player, Action.LEAVE, None)
        line = tuple(p for p in self.line if p != player)
        if self.ordering is not None:
            order = self.ordering.without(player)
            if order.is_settled:
                return replace(self, ordering=None, line=order.line + line)
            return replace(self, ordering=order, line=line)
        g = self.game
        if not self.in_progress or g is None:
            return replace(self, line=line)
        if not g.is_in_play:
            return self._set_up_again(g, line)
        if self.has_game_in_play(player):
            g = g.forfeit(player)
        return self._with_game(g, line)

    def forfeit(self, player: str) -> Chouette:
        """``player`` forfeits in mid-game: they ran out of time, or left (:meth:`leave`
        forfeits, then takes them out of the line; a forfeit alone leaves them in it).

        docs/rules.md §10, judged cube by cube: a team member forfeits their own game against
        the box, at the worst result still possible for the team's side of the board; the box
        forfeits to every member still in the game, each on their own cube, at the worst
        result still possible for the box's side, and the game ends. Each is that result ×
        the cube's value as it stands (a double not yet answered does not count; any offer
        pending on the cube lapses), single under the Jacoby rule while that cube is unturned.
        A captain who forfeits hands over the captaincy as after a drop. Allowed in any phase
        once the first throw is made, whoever is on turn.

        :raises ChouetteError: ``player`` is not at the table.
        :raises IllegalActionError: no game in play: none started, over, or before its first
            throw (leaving then costs nothing).
        :raises NotYourTurnError: ``player`` is not in this game, or their game is settled.
        """
        g = permissions.current(self, "forfeit", player)
        if not g.is_in_play:
            raise IllegalActionError(
                f"{player} cannot forfeit: game {g.number} has not had its first throw; "
                f"leaving now costs nothing"
            )
        return self._with_game(g.forfeit(player))

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
        error = permissions.start_error(self)
        if error is not None:
            raise error
        number = self.game.number + 1 if self.game else 1
        return replace(self, game=self._new_game(number, self.line))

    def opening_throw(self, box_die: int, captain_die: int) -> Chouette:
        """The box and the captain throw one die each; the higher plays both numbers. A tie
        throws again, and with automatic doubles turns every member's centred cube up one
        step, up to the limit.

        :raises IllegalActionError: not the moment for the opening throw.
        :raises InvalidDiceError: dice outside 1..6.
        """
        g = permissions.current(self, "throw the opening dice")
        if g.phase is not Phase.OPENING:
            raise IllegalActionError("cannot throw the opening dice: the opening throw is made")
        first = opening_winner(box_die, captain_die)
        if first is None:
            if g.auto_doubles < self.options.auto_doubles:
                g = g.with_members(
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
        permissions.check(self, player, Action.ROLL, None)
        g = permissions.current(self, "roll")
        d = check_dice(dice)
        g = replace(g, phase=Phase.MOVE, dice=d)
        if not can_move(g.position, d):
            g = g.pass_turn(Play((), g.position))
        return replace(self, game=g)

    def move(self, player: str, moves: Sequence[Move]) -> Chouette:
        """The box, or the (acting) captain for the team, plays ``moves`` (``(from, to)``
        pairs in the mover's numbering). Only the captain moves the team's checkers: advice
        is only advice. Bearing off the last checker settles every member still in the game.

        :raises NotYourTurnError: not this player's move.
        :raises IllegalActionError: the dice are not thrown.
        :raises IllegalPlayError: the play is not legal, with the reason.
        """
        permissions.check(self, player, Action.MOVE, None)
        g = permissions.current(self, "move")
        assert g.dice is not None
        p = play(g.position, g.dice, moves)
        if p.result.me[OFF] < CHECKERS:
            return replace(self, game=g.pass_turn(p))
        won = classify_win(p.result)
        g = replace(g, position=p.result, dice=None, last_play=p)
        for m in g.members:
            if m.in_game:
                g = g.settle(m.player, g.turn, g.counted(m, won), m.cube.value, SettledBy.BEAR_OFF)
        return self._with_game(replace(g, phase=Phase.OVER))

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
        g, names, side = permissions.offer_targets(self, player, Action.DOUBLE, members)
        if side is Side.BOX and self.options.single and set(names) != set(g.in_game):
            raise CubeError(
                f"{permissions.who(self, player)} cannot double only {', '.join(names)}: "
                f"with a single cube the box doubles the whole team"
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
        return replace(self, game=g.with_members(*offers))

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
        g, names = permissions.answer_targets(self, player, Action.TAKE, member)
        taken = []
        for name in names:
            m = g.member(name)
            assert m is not None and m.pending is not None
            p = m.pending
            taken.append(
                replace(m, cube=Cube(p.value, p.owner_if_taken), pending=None, turned=True)
            )
        batch = permissions.batch_after(self.options, g, player, names, True)
        return self._with_game(replace(g.with_members(*taken), batch=batch))

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
        g, names = permissions.answer_targets(self, player, Action.DROP, member)
        g = replace(g, batch=permissions.batch_after(self.options, g, player, names, False))
        for name in names:
            m = g.member(name)
            assert m is not None and m.pending is not None
            p = m.pending
            # The side that did not drop wins: the doubler, or after a beaver the beaverer.
            g = g.settle(name, Side(1 - p.responder), Result.SINGLE, p.drop_value, SettledBy.DROP)
        return self._with_game(g)

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
        g, names = permissions.answer_targets(self, player, Action.BEAVER, member)
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
        batch = permissions.batch_after(self.options, g, player, names, True)
        return self._with_game(replace(g.with_members(*beavered), batch=batch))

    def resign(self, player: str, level: int, members: Iterable[str] | None = None) -> Chouette:
        """Offer to resign a single (1), gammon (2) or backgammon (3), before the roll.

        Choice (docs/rules.md §8): a resignation is between the box and one member, on that
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
        g, names, side = permissions.offer_targets(self, player, Action.RESIGN, members)
        offers = []
        for name in names:
            m = g.member(name)
            assert m is not None
            offers.append(replace(m, resignation=Resignation(side, Result(level))))
        return replace(self, game=g.with_members(*offers))

    def accept(self, player: str, member: str | None = None) -> Chouette:
        """Accept a resignation offer: a member accepts the box's offer to them, or the box
        accepts ``member``'s (omitted when only one waits). That member's game is settled at
        the level offered × their cube (Jacoby per cube) and they leave the game as after a
        drop (a captain who resigns hands over the captaincy as after a drop).

        :raises ResignationError: no offer waits for this player's answer.
        :raises NotYourTurnError: the offer is this player's own.
        """
        g, names = permissions.answer_targets(self, player, Action.ACCEPT, member)
        for name in names:
            m = g.member(name)
            assert m is not None and m.resignation is not None
            r = m.resignation
            winner = Side(1 - r.by)
            g = g.settle(name, winner, g.counted(m, r.level), m.cube.value, SettledBy.RESIGN)
        return self._with_game(g)

    def decline(self, player: str, member: str | None = None) -> Chouette:
        """Decline a resignation offer (as for :meth:`accept`): play goes on.

        :raises ResignationError: no offer waits for this player's answer.
        :raises NotYourTurnError: the offer is this player's own.
        """
        g, names = permissions.answer_targets(self, player, Action.DECLINE, member)
        declined = []
        for name in names:
            m = g.member(name)
            assert m is not None
            declined.append(replace(m, resignation=None))
        return self._with_game(g.with_members(*declined))

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
        return table_text(self.options, self.ordering, self.line, self.game, self.ledger)

    def __str__(self) -> str:
        return self.text()

    # -- internals -------------------------------------------------------------------------

    def _any_game(self) -> ChouetteGame:
        if self.game is None:
            raise IllegalActionError("no game has started")
        return self.game

    def _set_up_again(self, g: ChouetteGame, line: tuple[str, ...]) -> Chouette:
        """Game ``g`` had no throw yet when a player left: it is set up again from ``line``
        (same number), or, with fewer than two players, ends unplayed: over, with nobody on
        its team and no settlement."""
        if len(line) < 2:
            return replace(self, game=replace(g, phase=Phase.OVER, members=()), line=line)
        return replace(self, game=self._new_game(g.number, line), line=line)

    def _new_game(self, number: int, line: tuple[str, ...]) -> ChouetteGame:
        """Game ``number`` set up from ``line``: box, captain, then the team."""
        return ChouetteGame(
            number=number,
            box=line[0],
            captain=line[1],
            members=tuple(MemberGame(p) for p in line[1:]),
            options=self.options,
        )

    def _with_game(self, g: ChouetteGame, line: tuple[str, ...] | None = None) -> Chouette:
        """The chouette with ``g`` (after an action) as its game, and what follows from it: the
        new settlements booked, the captaincy handed over (single cube), the game ended once no
        member remains in it, and the line rotated when it is over."""
        line = self.line if line is None else line
        ledger = self.ledger
        before = self.game.settlements if self.game is not None else ()
        for s in g.settlements[len(before) :]:
            ledger = ledger.credit(s)
        if self.options.single:
            g, line = pass_captaincy(g, line)
        history = self.history
        if not g.is_over and not g.in_game:
            g = replace(g, phase=Phase.OVER, dice=None)
        if g.is_over:
            line = rotate(g, line)
            history = (*history, g)
        return replace(self, game=g, line=line, ledger=ledger, history=history)
