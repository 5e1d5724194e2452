"""A move's message: what the table view says after a ``checkers_moved`` that leaves the game
going on, sent as the ``m`` of its stream message (:class:`MoveView`) so that no page fetches
the table view after a play, the opponent's and the spectators' included.

The view after a move differs from the one before it in its ``game`` (the board, whose turn,
the status, the cubes' Match IDs), the clocks, and for each viewer what they may send and what
leaving would cost them (a forfeit is scored by the position: docs/rules.md §10). The message
sends the ``game`` once, as a spectator sees it, and for each viewer whether their ``sides`` are
the other way round (``flip``: the seat-1 player, the box), with their ``allowed``,
``targets``, ``turn`` and ``leave_cost``; the page puts them together without rules of its own
(``server/static/table/table_feed.js``, ``followMove``).
``tests/server/streams/test_stream_moves.py`` checks, at every move of random games, that what
the page makes of it is every viewer's table view."""

from __future__ import annotations

import msgspec

from engine.game import Phase
from events.domain.allowed import allowed, may_join
from events.domain.table import TableState
from server.views.table import (
    ClockView,
    GameView,
    LeaveCostView,
    clock_views,
    game_view,
    leave_cost_view,
    targets_of,
    viewer_turn,
)
from server.views.throw import at_table

__all__ = ["AfterMove", "MoveView", "move_view"]


class AfterMove(msgspec.Struct, kw_only=True):
    """What one viewer's table view says after a move, beside the message's ``game``."""

    allowed: list[str]
    """The view's ``allowed`` after the move."""
    targets: dict[str, list[str]]
    """The view's ``targets`` after the move."""
    turn: int | None
    """The view's ``game.turn`` after the move."""
    leave_cost: LeaveCostView | None
    """The view's ``leave_cost`` after the move (a forfeit is scored by the position)."""
    flip: bool = False
    """The viewer's ``game.sides`` are the message's ``game.sides`` the other way round: their
    own side first (the seat-1 player; the box)."""


class MoveView(msgspec.Struct, kw_only=True):
    """What a move leaves the table waiting for (the ``m`` of a ``checkers_moved`` message when
    the game goes on): the same for every recipient (it is public)."""

    game: GameView
    """The view's ``game`` after the move as a spectator sees it (``sides[0]`` seat 0, or the
    team)."""
    text: str | msgspec.UnsetType = msgspec.UNSET
    """A chouette view's ``text`` after the move (absent at a two-player table)."""
    now: int
    """The server's time (ms since the epoch) the ``clocks`` are as of."""
    clocks: list[ClockView]
    """The view's ``clocks`` after the move."""
    viewers: dict[str, AfterMove]
    """Everyone at the table and its creator, by account id (:class:`AfterMove`)."""
    spectator: AfterMove
    """What the view of any other signed-in viewer says after the move."""
    anonymous: AfterMove
    """What the view of a viewer who is not signed in says after the move."""


def move_view(state: TableState, now: int) -> MoveView | None:
    """What the move that made ``state`` (its last event a ``checkers_moved``) leaves the
    table waiting for; None unless the game goes on with a throw (the move ended the game, or
    the match is over), when the page fetches the view instead."""
    game = None if state.match_winner else game_view(state, None)
    if game is None or game.phase != Phase.ROLL.value:
        return None
    # A viewer whose sides are the other way round sees the other side on turn: the turn tells.
    turn = game.turn
    viewers = {}
    for p in at_table(state):
        theirs = viewer_turn(state, p)
        viewers[p] = AfterMove(
            allowed=sorted(allowed(state, p, now)),
            targets=targets_of(state, p),
            turn=theirs,
            leave_cost=leave_cost_view(state, p),
            flip=theirs != turn,
        )
    ch = state.chouette
    return MoveView(
        game=game,
        text=ch.text() if ch is not None else msgspec.UNSET,
        now=now,
        clocks=clock_views(state, now),
        viewers=viewers,
        spectator=AfterMove(
            allowed=["join"] if may_join(state) else [], targets={}, turn=turn, leave_cost=None
        ),
        anonymous=AfterMove(allowed=[], targets={}, turn=turn, leave_cost=None),
    )
