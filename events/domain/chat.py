"""A table's chat: who may post on which channel, and who may read the team's advice.

Chat is decided apart from play (:func:`decide_chat`) and recorded in the table's own chat
stream (:func:`events.store.streams.chat_stream`), so talking never races with playing for a
version.
The table channel is for everyone at the table and its creator; the team channel is for the
chouette team's advice (docs/rules.md §8), and who may read a team message is fixed when it is
posted (its ``audience``), so a member who later becomes the box cannot read back.
"""

from __future__ import annotations

from events.domain import commands as c
from events.domain import types as e
from events.domain.table import ChatNotAllowedError, CommandError, TableState

__all__ = ["decide_chat", "team_can_read"]


def decide_chat(state: TableState, actor: str, command: c.Chat) -> e.ChatPosted:
    """The chat event that records ``command`` by ``actor``. Pure.

    :raises CommandError: the team channel at a table that is not a chouette.
    :raises ChatNotAllowedError: the actor may not post on this channel now.
    """
    audience: list[str] = []
    if command.channel == "team":
        ch = state.chouette
        if state.kind != "chouette" or ch is None:
            raise CommandError("the team channel exists only in a chouette")
        if not ch.may_advise(actor) and actor != ch.acting_captain:
            raise ChatNotAllowedError(f"{actor!r} may not talk on the team channel now")
        audience = [p for p in state.members if team_can_read(state, p)]
    elif actor not in state.players and actor != state.created_by:
        raise ChatNotAllowedError(f"{actor!r} is not at this table")
    return e.ChatPosted(
        player=actor,
        channel=command.channel,
        text=command.text,
        game=state.game_no if state.in_game else 0,
        audience=audience,
    )


def team_can_read(state: TableState, viewer: str | None) -> bool:
    """Whether ``viewer`` may read the team channel: a member of the team still in the game
    (the captain included); never the box, a spectator, or a member whose game is settled.
    Between games, everyone in the line but the next box."""
    ch = state.chouette
    if viewer is None or ch is None:
        return False
    if ch.in_progress and ch.game is not None:
        return viewer in ch.game.in_game
    return viewer in ch.line[1:]
