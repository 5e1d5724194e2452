"""A throw's message: what a throw (an ``opening_throw`` or ``dice_rolled``) leaves the table
waiting for, sent as the ``m`` of its stream message (:class:`ThrowView`) so that the player to
move never fetches the table view to play, and what each viewer's view says after it
(:class:`AfterThrow`). The legal plays are sent as a tree of single-die steps
(:func:`engine.routes.play_tree`, encoded once per position and throw: :func:`tree_json`), a
few kilobytes even for the throws with thousands of plays;
``tests/server/streams/test_stream_plays.py`` checks its routes are the table view's
:class:`~server.views.table.LegalPlayView` list's."""

from __future__ import annotations

from functools import lru_cache

import msgspec

from engine.game import Phase
from engine.moves import check_dice
from engine.position import Position
from events.domain.allowed import allowed, may_join
from events.domain.table import TableState
from server.views.table import (
    ClockView,
    LeaveCostView,
    PlayTreeView,
    clock_views,
    leave_cost_view,
    play_tree_of,
    targets_of,
    viewer_turn,
)

__all__ = [
    "AfterThrow",
    "ThrowView",
    "ThrowWire",
    "after_throw",
    "at_table",
    "throw_view",
    "tree_json",
]


class AfterThrow(msgspec.Struct, kw_only=True):
    """What one viewer's table view says after a throw, sent in the throw's ``m`` so that the
    client follows the throw without fetching the view and without rules of its own."""

    allowed: list[str]
    """The view's ``allowed`` after the throw."""
    targets: dict[str, list[str]]
    """The view's ``targets`` after the throw."""
    turn: int | None
    """The view's ``game.turn`` after the throw: the index, in that viewer's ``sides``, of the
    side on turn."""
    leave_cost: LeaveCostView | msgspec.UnsetType | None = msgspec.UNSET
    """The view's ``leave_cost`` after an opening throw, which starts the game and with it the
    cost of leaving; **absent after any other throw**, which changes nothing it depends on (the
    cubes, the score, who plays the game): the view's is unchanged."""


class ThrowView(msgspec.Struct, kw_only=True):
    """What a throw leaves the table waiting for, sent with the throw on the table's streams
    (the ``m`` of an ``opening_throw`` or ``dice_rolled`` message) so that the player to move
    never has to fetch the table view to play: the same for every recipient (it is public)."""

    player: str
    """Who moves: the thrower, or after an opening throw its winner."""
    dice: tuple[int, int]
    play_tree: PlayTreeView
    """The legal plays as a tree of single-die steps, as in the view's ``game.play_tree``;
    **``[[]]`` (no step at all): the player cannot move** and the turn has already passed (no
    ``move`` is expected)."""
    passed: bool = False
    """The thrower cannot move: the turn has passed at once (``play_tree`` is ``[[]]``), and
    ``status`` says so ("Bob cannot move 6-6."), which the table view no longer does (its dice
    are gone with the turn): a page shows it until the next event."""
    status: str
    """The view's ``game.status`` after the throw; when ``passed``, that the thrower cannot
    move, with the dice."""
    position_id: str
    """The view's ``game.position_id`` after the throw."""
    now: int
    """The server's time (ms since the epoch) the ``clocks`` are as of."""
    clocks: list[ClockView]
    """The view's ``clocks`` after the throw."""
    viewers: dict[str, AfterThrow]
    """Everyone at the table and its creator, by account id: what their view says after the
    throw (:class:`AfterThrow`)."""
    spectator: AfterThrow
    """What the view of any other signed-in viewer says after the throw."""
    anonymous: AfterThrow
    """What the view of a viewer who is not signed in says after the throw."""


class ThrowWire(ThrowView, kw_only=True):
    """A :class:`ThrowView` as :func:`throw_view` makes it: its ``play_tree`` encoded already
    (:func:`tree_json`), the same bytes once encoded."""

    play_tree: msgspec.Raw  # type: ignore[assignment]


@lru_cache(maxsize=1024)
def _tree_json(me: tuple[int, ...], opp: tuple[int, ...], hi: int, lo: int) -> msgspec.Raw:
    return msgspec.Raw(msgspec.json.encode(play_tree_of(Position(me, opp), (hi, lo))))


def tree_json(position: Position, dice: tuple[int, int]) -> msgspec.Raw:
    """:func:`~server.views.table.play_tree_of` ``dice`` encoded as JSON, kept encoded for the
    1,024 positions and throws used last: every socket of the table gets it (the player's
    table view sends the same tree, ``game.play_tree``)."""
    d1, d2 = check_dice(dice)
    return _tree_json(position.me, position.opp, max(d1, d2), min(d1, d2))


def at_table(state: TableState) -> list[str]:
    """Everyone at the table and its creator, in that order: whom a throw's or a move's
    message speaks to by account id (anyone else is a spectator or anonymous)."""
    at = list(state.players)
    if state.created_by not in at:
        at.append(state.created_by)
    return at


def after_throw(
    state: TableState, now: int, opening: bool
) -> tuple[dict[str, AfterThrow], AfterThrow, AfterThrow]:
    """What every viewer's table view says at ``state`` and ``now`` (:class:`ThrowView`'s
    ``viewers``, ``spectator`` and ``anonymous``) after a throw, an ``opening`` one or not: by
    account id for everyone at the table and its creator, then for any other signed-in viewer,
    and for one not signed in."""
    viewers = {
        p: AfterThrow(
            allowed=sorted(allowed(state, p, now)),
            targets=targets_of(state, p),
            turn=viewer_turn(state, p),
            leave_cost=leave_cost_view(state, p) if opening else msgspec.UNSET,
        )
        for p in at_table(state)
    }
    turn = viewer_turn(state, None)
    free = None if opening else msgspec.UNSET  # leaving costs nobody else anything
    # Someone not at the table may join it, or send nothing (events.domain.allowed).
    spectator = AfterThrow(
        allowed=["join"] if may_join(state) else [], targets={}, turn=turn, leave_cost=free
    )
    return viewers, spectator, AfterThrow(allowed=[], targets={}, turn=turn, leave_cost=free)


_NO_PLAYS = msgspec.Raw(b"[[]]")


def throw_view(
    state: TableState, kind: str, thrower: str, dice: tuple[int, int], now: int
) -> ThrowWire | None:
    """What the throw that made ``state`` (its last event, of type ``kind``, by ``thrower``
    with ``dice``; an opening throw has no thrower: '') leaves the player to move. None when
    nobody moves after it (a tied opening throw)."""
    moving = False  # whether the plays are listed (a chouette between its games lists none)
    if state.kind == "chouette":
        ch = state.chouette
        g = ch.game if ch is not None else None
        if ch is None or g is None:
            return None
        phase, mover, position = g.phase, ch.on_roll, g.position
        if phase is Phase.MOVE and g.dice is not None:
            dice, moving = g.dice, ch.in_progress
    else:
        game = state.game
        if game is None:
            return None
        phase, position = game.phase, game.position
        mover = state.seats[game.turn] if phase in (Phase.ROLL, Phase.MOVE) else None
        if phase is Phase.MOVE and game.dice is not None:
            dice, moving = game.dice, True
    viewers, spectator, anonymous = after_throw(state, now, kind == "opening_throw")
    if phase is Phase.MOVE and mover is not None:
        player, tree, passed = mover, tree_json(position, dice) if moving else _NO_PLAYS, False
        status = f"Waiting for {state.display_name(mover)} to move {dice[0]}-{dice[1]}."
    elif kind == "dice_rolled" and thrower:
        # No legal play: the turn passed at once.
        player, tree, passed = thrower, _NO_PLAYS, True
        status = f"{state.display_name(thrower)} cannot move {dice[0]}-{dice[1]}."
    else:
        return None
    return ThrowWire(
        player=player,
        dice=dice,
        play_tree=tree,
        passed=passed,
        status=status,
        position_id=position.position_id(),
        now=now,
        clocks=clock_views(state, now),
        viewers=viewers,
        spectator=spectator,
        anonymous=anonymous,
    )
