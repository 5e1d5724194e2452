"""The rules of backgammon: pure, synchronous, deterministic, standard library only.

``import engine`` is all a caller needs, the way ``import chess`` is for python-chess: positions
and their IDs, legal plays and their notation, a game between two players, a match or money
play, a chouette, the errors, the text board and the ``.mat`` format. Every value is immutable;
every action returns a new value or raises a precise :class:`EngineError`. Dice are always an
input (docs/design.md, engine/).

A position and its plays:

>>> import engine
>>> start = engine.Position.start()
>>> engine.format_play(start, engine.parse_play(start, (3, 1), '8/5 6/5'))
'8/5 6/5'
>>> len(engine.legal_plays(start, (6, 5)))
7

A game: the opening throw, a play, a double and a take.

>>> g = engine.Game.new().opening_throw(3, 1)
>>> g.turn, g.phase, g.dice
(0, <Phase.MOVE: 'move'>, (3, 1))
>>> g = g.play(0, engine.parse_play(g.position, g.dice, '8/5 6/5'))
>>> sorted(g.allowed(1))
[<Action.DOUBLE: 'double'>, <Action.RESIGN: 'resign'>, <Action.ROLL: 'roll'>]
>>> g = g.double(1).take(0)
>>> g.cube, g.position_id()
(Cube(value=2, owner=0), 'sGfwATDgc/ABMA')
>>> g.roll(1, (7, 1))
Traceback (most recent call last):
...
engine.errors.InvalidDiceError: dice must be two integers from 1 to 6, got (7, 1)

A match scores its games; a chouette seats a box against a team:

>>> m = engine.Match.to(3).act(lambda g: g.opening_throw(6, 1))
>>> m.match_id()
'MAFnAAAAAAAE'
>>> ch = engine.Chouette.from_line(["ann", "bob", "cat"]).start_game()
>>> ch.box, ch.captain, ch.game.in_game
('ann', 'bob', ('bob', 'cat'))
"""

from engine.actions import Action
from engine.chouette import (
    TARGETED_ACTIONS,
    Chouette,
    ChouetteGame,
    ChouetteOptions,
    Consultation,
    CubeMode,
    Ledger,
    LineOrder,
    MemberGame,
    SettledBy,
    Settlement,
    Side,
)
from engine.errors import (
    ChouetteError,
    CubeError,
    EngineError,
    GameOverError,
    IllegalActionError,
    IllegalPlayError,
    InvalidDiceError,
    InvalidIdError,
    InvalidPlayError,
    InvalidPositionError,
    NotYourTurnError,
    ResignationError,
)
from engine.game import (
    Cube,
    Game,
    GameOptions,
    GameResult,
    PendingDouble,
    Phase,
    Resignation,
    Result,
    classify_win,
    forfeit_result,
    opening_winner,
)
from engine.match import Match
from engine.matchid import MatchState
from engine.matfile import MatAction, MatFormatError, MatGame, MatMatch, parse_mat, write_mat
from engine.moves import (
    LegalPlays,
    Move,
    Play,
    apply_moves,
    can_move,
    check_dice,
    is_legal,
    legal_plays,
    play,
)
from engine.notation import format_play, notation, parse_play
from engine.position import BAR, CHECKERS, OFF, Position, board_text
from engine.routes import Step, play_routes

__all__ = [
    "BAR",
    "CHECKERS",
    "OFF",
    "TARGETED_ACTIONS",
    "Action",
    "Chouette",
    "ChouetteError",
    "ChouetteGame",
    "ChouetteOptions",
    "Consultation",
    "Cube",
    "CubeError",
    "CubeMode",
    "EngineError",
    "Game",
    "GameOptions",
    "GameOverError",
    "GameResult",
    "IllegalActionError",
    "IllegalPlayError",
    "InvalidDiceError",
    "InvalidIdError",
    "InvalidPlayError",
    "InvalidPositionError",
    "Ledger",
    "LegalPlays",
    "LineOrder",
    "MatAction",
    "MatFormatError",
    "MatGame",
    "MatMatch",
    "Match",
    "MatchState",
    "MemberGame",
    "Move",
    "NotYourTurnError",
    "PendingDouble",
    "Phase",
    "Play",
    "Position",
    "Resignation",
    "ResignationError",
    "Result",
    "SettledBy",
    "Settlement",
    "Side",
    "Step",
    "apply_moves",
    "board_text",
    "can_move",
    "check_dice",
    "classify_win",
    "forfeit_result",
    "format_play",
    "is_legal",
    "legal_plays",
    "notation",
    "opening_winner",
    "parse_mat",
    "parse_play",
    "play",
    "play_routes",
    "write_mat",
]
