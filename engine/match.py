"""A series of games between two players: a match to N points (with the Crawford rule) or money
play (docs/rules.md §6, §7).

A :class:`Match` holds the score and the current game. Actions on the game go through
:meth:`Match.act`, which scores the game when it ends and prepares the rules of the next. Money
play is a match with no length (:meth:`Match.money`): the same scoring, no end, no Crawford game.
A player who leaves or runs out of time in mid-match forfeits the match (:meth:`Match.forfeit`);
in money play, only the game in play.

>>> m = Match.to(3)
>>> m = m.act(lambda g: g.opening_throw(6, 1))
>>> m.game.turn
0
>>> m.match_id()
'MAFnAAAAAAAE'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.errors import GameOverError, IllegalActionError
from engine.frozen import replace
from engine.game import Game, GameOptions, GameResult, other


@dataclass(frozen=True, slots=True)
class Match:
    """A match (``length`` > 0) or money play (``length`` == 0) between players 0 and 1."""

    length: int = 0
    """Points to win the match; 0 for money play."""
    money_options: GameOptions = GameOptions()
    """Automatic doubles, beavers and Jacoby for money play (never used in a match)."""
    score: tuple[int, int] = (0, 0)
    """Points won so far by players 0 and 1."""
    crawford: bool = False
    """Whether the current game is the Crawford game."""
    post_crawford: bool = False
    """Whether the Crawford game has been played."""
    game: Game | None = None
    """The game in progress or just ended; None before the first."""
    results: tuple[GameResult, ...] = ()
    """Every finished game's result, in order."""
    forfeited_by: int | None = None
    """The player who forfeited the match (left or ran out of time in mid-match), if any."""

    @classmethod
    def to(cls, length: int) -> Match:
        """A match to ``length`` points, its first game started.

        :raises IllegalActionError: a length that is not a positive integer.
        """
        if not isinstance(length, int) or isinstance(length, bool) or not 1 <= length <= 255:
            raise IllegalActionError(f"match length must be 1 to 255 points: {length!r}")
        return cls(length=length).next_game()

    @classmethod
    def money(cls, options: GameOptions | None = None) -> Match:
        """Money play under ``options``, its first game started."""
        opts = options or GameOptions()
        return cls(length=0, money_options=replace(opts, cube=True)).next_game()

    # -- queries ------------------------------------------------------------------------------

    @property
    def is_match(self) -> bool:
        return self.length > 0

    @property
    def winner(self) -> int | None:
        """The winner of the match, once someone has reached the length or the other player
        has forfeited it."""
        if not self.length:
            return None
        if self.forfeited_by is not None:
            return other(self.forfeited_by)
        for player in (0, 1):
            if self.score[player] >= self.length:
                return player
        return None

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    @property
    def in_play(self) -> bool:
        """Whether leaving now forfeits (docs/rules.md §10): money play while a game is in play;
        a match while it is in progress. Choice: "mid-match" runs from the match's first throw
        until it is over, between its games too; before the first throw leaving costs
        nothing."""
        game_in_play = self.game is not None and self.game.is_in_play
        if not self.length:
            return game_in_play
        return not self.is_over and (bool(self.results) or game_in_play)

    def game_options(self) -> GameOptions:
        """The rules of the current game: money options in money play; in a match none of
        them, and no cube in the Crawford game."""
        if self.length:
            return GameOptions(cube=not self.crawford)
        return self.money_options

    def match_id(self) -> str:
        """The GNU Backgammon Match ID of the current game and score."""
        game = self.game or Game.new(self.game_options())
        return game.match_id(self.length, self.score, self.crawford)

    # -- actions ------------------------------------------------------------------------------

    def next_game(self) -> Match:
        """Start the next game.

        :raises GameOverError: the match is over.
        :raises IllegalActionError: the current game has not ended.
        """
        if self.is_over:
            raise GameOverError("the match is over")
        if self.game is not None and not self.game.is_over:
            raise IllegalActionError("the current game has not ended")
        return replace(self, game=Game.new(self.game_options()))

    def act(self, action: Callable[[Game], Game]) -> Match:
        """Apply ``action`` to the current game; score it if it ends."""
        if self.is_over:
            raise GameOverError("the match is over")
        if self.game is None:
            raise IllegalActionError("no game in progress")
        if self.game.is_over:
            raise GameOverError("the game is over; start the next one")
        game = action(self.game)
        if not game.is_over:
            return replace(self, game=game)
        assert game.result is not None
        return self._scored(game, game.result)

    def forfeit(self, player: int) -> Match:
        """``player`` leaves or runs out of time (docs/rules.md §10). The game in play ends at
        the worst result still possible for them (:meth:`Game.forfeit
        <engine.game.Game.forfeit>`) and is scored. In a match, ``player`` forfeits the
        match too: the opponent wins it, whatever the score.

        >>> m = Match.to(5).act(lambda g: g.opening_throw(3, 1))
        >>> m = m.forfeit(0)
        >>> m.winner, m.score, m.results[-1].how
        (1, (0, 3), 'forfeit')

        :raises GameOverError: the match is over.
        :raises IllegalActionError: not player 0 or 1, or nothing to forfeit: no game is in
            play (money play) or the match has not begun; leaving then costs nothing.
        """
        if self.is_over:
            raise GameOverError("cannot forfeit: the match is over")
        if player not in (0, 1) or isinstance(player, bool):
            raise IllegalActionError(f"no such player: {player!r}")
        if not self.in_play:
            what = "the match has not begun" if self.length else "no game is in play"
            raise IllegalActionError(
                f"player {player} cannot forfeit: {what}; leaving now costs nothing"
            )
        m = self
        if self.game is not None and self.game.is_in_play:
            game = self.game.forfeit(player)
            assert game.result is not None
            m = self._scored(game, game.result)
        if self.length:
            # The match ends here: no Crawford game follows, whatever the score.
            m = replace(m, forfeited_by=player, crawford=False)
        return m

    def _scored(self, game: Game, result: GameResult) -> Match:
        score = list(self.score)
        score[result.winner] += result.points
        crawford, post = False, self.post_crawford
        if self.length:
            if self.crawford:
                post = True
            elif not post and max(score) < self.length and self.length - 1 in score:
                # The first time a player comes within one point: the next game is Crawford.
                crawford = True
        return replace(
            self,
            game=game,
            score=(score[0], score[1]),
            crawford=crawford,
            post_crawford=post,
            results=(*self.results, result),
        )
