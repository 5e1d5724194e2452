"""The rules of backgammon: pure, synchronous, deterministic, standard library only.

>>> import engine
>>> start = engine.Position.start()
>>> engine.format_play(start, engine.parse_play(start, (3, 1), '8/5 6/5'))
'8/5 6/5'
>>> len(engine.legal_plays(start, (6, 5)))
7
"""

from engine.errors import (
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
from engine.moves import LegalPlays, Move, Play, apply_moves, is_legal, legal_plays, play
from engine.notation import format_play, notation, parse_play
from engine.position import Position
from engine.text import board_text

# Games, matches and chouettes export their API below.

__all__ = [
    "CubeError",
    "EngineError",
    "GameOverError",
    "IllegalActionError",
    "IllegalPlayError",
    "InvalidDiceError",
    "InvalidIdError",
    "InvalidPlayError",
    "InvalidPositionError",
    "LegalPlays",
    "Move",
    "NotYourTurnError",
    "Play",
    "Position",
    "ResignationError",
    "apply_moves",
    "board_text",
    "format_play",
    "is_legal",
    "legal_plays",
    "notation",
    "parse_play",
    "play",
]
