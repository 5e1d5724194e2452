"""Bots' decision functions that fail, for tests/server/bots/test_bots.py. They run in the bot
workers (other processes), so they live in a module those can import."""

from __future__ import annotations

import time

from events.domain import commands as c
from events.domain.bots import decide_for
from events.domain.table import TableState


def raising(state: TableState, bot: str, strength: str, ply: int = 0) -> c.Command | None:
    """Plays like the basic bot until the game is under way, then raises."""
    if state.dice_counter > 2:
        raise RuntimeError("a broken brain")
    return decide_for(state, bot, strength, ply)


def hanging(state: TableState, bot: str, strength: str, ply: int = 0) -> c.Command | None:
    """Plays like the basic bot until the game is under way, then never answers."""
    if state.dice_counter > 2:
        time.sleep(3600)
    return decide_for(state, bot, strength, ply)
