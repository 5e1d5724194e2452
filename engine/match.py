"""Sessions of games: a match to N points (with the Crawford rule) or money play.

A :class:`Session` holds the score and the current game. Actions on the game go through
:meth:`Session.act`, which scores the game when it ends and prepares the rules of the next.

>>> s = Session.match(3)
>>> s = s.act(lambda g: g.opening_throw(6, 1))
>>> s.game.turn
0
>>> s.match_id()
'MAFnAAAAAAAE'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.errors import GameOverError, IllegalActionError
from engine.game import Game, GameOptions, GameResult
from engine.values import replace


@dataclass(frozen=True, slots=True)
class Session:
    """A match (``length`` > 0) or a money session (``length`` == 0) between players 0 and 1."""

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

    @classmethod
    def match(cls, length: int) -> Session:
        """A match to ``length`` points, its first game started.

        :raises IllegalActionError: a length that is not a positive integer.
        """
        if not isinstance(length, int) or isinstance(length, bool) or not 1 <= length <= 255:
            raise IllegalActionError(f"match length must be 1 to 255 points: {length!r}")
        return cls(length=length).next_game()

    @classmethod
    def money(cls, options: GameOptions | None = None) -> Session:
        """Money play under ``options``, its first game started."""
        opts = options or GameOptions()
        return cls(length=0, money_options=replace(opts, cube=True)).next_game()

    # -- queries ------------------------------------------------------------------------------

    @property
    def is_match(self) -> bool:
        return self.length > 0

    @property
    def winner(self) -> int | None:
        """The winner of the match, once someone has reached the length."""
        if not self.length:
            return None
        for player in (0, 1):
            if self.score[player] >= self.length:
                return player
        return None

    @property
    def is_over(self) -> bool:
        return self.winner is not None

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

    def next_game(self) -> Session:
        """Start the next game.

        :raises GameOverError: the match is over.
        :raises IllegalActionError: the current game has not ended.
        """
        if self.is_over:
            raise GameOverError("the match is over")
        if self.game is not None and not self.game.is_over:
            raise IllegalActionError("the current game has not ended")
        return replace(self, game=Game.new(self.game_options()))

    def act(self, action: Callable[[Game], Game]) -> Session:
        """Apply ``action`` to the current game; score it if it ends."""
        if self.game is None:
            raise IllegalActionError("no game in progress")
        if self.game.is_over:
            raise GameOverError("the game is over; start the next one")
        game = action(self.game)
        if not game.is_over:
            return replace(self, game=game)
        assert game.result is not None
        return self._scored(game, game.result)

    def _scored(self, game: Game, result: GameResult) -> Session:
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
