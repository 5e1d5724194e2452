"""The engine's error hierarchy.

Every error is a :class:`ValueError`, so callers that only care that an input was bad can catch
that; callers that care why catch the precise subclass. Messages are lowercase, name the offending
input with ``!r`` and, where there is one, the position by its GNU Backgammon Position ID.
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every error the engine raises."""


class InvalidPositionError(EngineError):
    """A position that cannot exist: too many checkers, both colours on a point, a bad ID."""


class InvalidIdError(InvalidPositionError):
    """A Position ID or Match ID that is not well formed."""


class InvalidDiceError(EngineError):
    """Dice outside 1..6, or not a pair."""


class InvalidPlayError(EngineError):
    """A play whose notation or move list is not well formed (syntax, not rules)."""


class IllegalPlayError(EngineError):
    """A well-formed play that the rules do not allow in this position with these dice."""


class IllegalActionError(EngineError):
    """An action the rules do not allow in the current state of a game, match or chouette."""


class NotYourTurnError(IllegalActionError):
    """An action by a player (or role) who may not act now."""


class CubeError(IllegalActionError):
    """A cube action that is not allowed now (double twice in a row, take with no double...)."""


class ResignationError(IllegalActionError):
    """A resignation offer or answer that is not allowed now."""


class GameOverError(IllegalActionError):
    """An action on a game (or match) that has already ended."""


class ChouetteError(IllegalActionError):
    """A chouette action that the line, the seating or the table's policy does not allow now
    (a player not at the table, throws for the line out of turn, advice where none is allowed)."""


class TournamentError(IllegalActionError):
    """A tournament fact or request the rules do not allow now (an entry after the first round,
    a result for a board that has none to take, a round paired before the last one ended)."""


class LedgerError(EngineError):
    """A night's balances that cannot be settled: not integers, or not summing to zero."""
