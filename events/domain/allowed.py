"""What a player may send now: the commands :func:`events.domain.decider.decide` accepts from them
at
a table's state and time, by name (the table view's ``allowed``, docs/design.md: the client
knows no rules, the server says what is legal).

"May send now" is exact, both ways: a command listed is accepted from that state (for the
commands that take an argument, some argument is: one of the legal plays for ``move``, a
member's cube for the box's ``take``, a seat for ``join``), and a command not listed is
refused whatever its argument. So a client that sends only what is listed is never refused.
``tests/events/domain/test_allowed_properties.py`` checks this against the decider over random games
of every kind of table, seed windows included.

Time is an input, as for the decider: while a game's seed window is open and still waits for
someone, no die is thrown (``roll`` is refused, docs/dice.md) until its time has run out; from
then on the first ``roll`` closes it and throws. :func:`held_back` says which commands the
window holds back, so that a client can offer them, disabled, and count down to its deadline
(no event marks that moment, and nothing changes in the state).

``chat`` is listed for whoever may post on the table's channel
(:func:`events.domain.chat.decide_chat`:
the players and the table's creator), although chat goes to the chat stream, not the decider.
``expire`` is never listed: it is the server's timer's, accepted only once something has truly
run out. ``advise`` is the team channel's (the table view's ``channels``).
"""

from __future__ import annotations

from engine.actions import Action
from events.domain.table import TableState

__all__ = ["allowed", "held_back", "may_join", "throws_wait"]

_NOT_COMMANDS = frozenset({Action.ORDER_THROW, Action.ADVISE, Action.JOIN})
"""Engine actions that are no command of their own: the line is thrown by a ``roll`` (the
server's dice), advice is chat on the team channel, and joining is decided by the table."""


def _command(action: Action) -> str:
    """The command that takes an engine action (the opening throw is sent as ``roll``)."""
    return "roll" if action is Action.OPENING_THROW else action.value


def throws_wait(state: TableState, now: int) -> bool:
    """Whether the current game's seed window holds its next throw back at ``now``: open,
    still waiting for someone, and its time not run out (:func:`events.domain.table.open_for_throw`
    refuses the throw then)."""
    return state.window_open and bool(state.seed_waiting) and now < state.seed_deadline


def allowed(state: TableState, player: str | None, now: int) -> frozenset[str]:
    """The commands (by their ``type``) that ``player`` may send now at ``state``: accepted by
    the decider at time ``now`` (ms since the epoch). None for an anonymous viewer, who may
    send nothing."""
    acts = _unheld(state, player)
    if throws_wait(state, now):
        acts.discard("roll")
    return frozenset(acts)


def may_join(state: TableState) -> bool:
    """Whether someone not at the table may join it now (``join`` is in their ``allowed``): a
    free seat at a two-player table whose match is not over, a chouette not yet full. The
    table view's ``may_seat_bot`` asks it for the bot its creator would seat."""
    if not state.version:
        return False
    if state.kind == "chouette":
        return len(state.members) < state.max_players
    return None in state.seats and not state.match_winner


def held_back(state: TableState, player: str | None, now: int) -> frozenset[str]:
    """The commands the seed window holds back from ``player`` at ``now``: not allowed now,
    allowed from its deadline (``roll``, the throw it waits for), or as soon as everyone has
    answered."""
    if not throws_wait(state, now):
        return frozenset()
    return frozenset(_unheld(state, player) & {"roll"})


def _unheld(state: TableState, player: str | None) -> set[str]:
    """What ``player`` may send, the seed window's hold aside."""
    if player is None or not state.version:
        return set()
    acts = _chouette(state, player) if state.kind == "chouette" else _two_player(state, player)
    if player in state.players or player == state.created_by:
        acts.add("chat")  # the table's channel (events.domain.chat.decide_chat)
    return acts


def _seeds(state: TableState, player: str) -> set[str]:
    """``add_seed`` and ``waive_seed`` while the seed window waits for ``player``; with no
    window at the table, ``add_seed`` for anyone playing the game before its first throw."""
    if state.window_open:
        return {"add_seed", "waive_seed"} if player in state.seed_waiting else set()
    if state.in_game and not state.options.seed_window and not state.dice_counter:
        return {"add_seed"}
    return set()


def _two_player(state: TableState, player: str) -> set[str]:
    """A money or match table (events/domain/duel_table.py)."""
    seat = state.seat_of(player)
    over = bool(state.match_winner)
    if seat is None:
        # A free seat, unless the match is over.
        return {"join"} if may_join(state) else set()
    acts = {"leave"}
    if over:
        # A finished match is finished (docs/rules.md §10): leaving is all that is left, even
        # where a server before issue 27 left a game open in it.
        return acts
    game = state.game
    if state.in_game and game is not None:
        acts |= {_command(a) for a in game.allowed(seat)}
        acts |= _seeds(state, player)
    elif None not in state.seats:
        acts.add("start_game")
        if state.kind == "money":
            acts.add("roll")  # a money table's next game starts when a player throws for it
    return acts


def _chouette(state: TableState, player: str) -> set[str]:
    """A chouette (events/domain/chouette_table.py): the engine's own rules for the game
    (:meth:`engine.chouette.Chouette.allowed`), the table's for joining, starting and seeds."""
    if player not in state.members:
        return {"join"} if may_join(state) else set()
    acts = {"leave"}
    ch = state.chouette
    if ch is None:
        if len(state.members) >= 2:
            acts.add("start_game")
        return acts
    acts |= {_command(a) for a in ch.allowed(player) - _NOT_COMMANDS}
    if state.in_game:
        acts |= _seeds(state, player)
        if ch.ordering is not None:
            acts.add("roll")  # the first game's line is thrown by anyone's roll
    return acts
