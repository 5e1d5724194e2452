"""Helpers for the chouette engine's tests: play a turn, set the board."""

from __future__ import annotations

import dataclasses

from engine.chouette import Chouette, Side
from engine.game import Phase
from engine.position import Position


def turn(ch: Chouette, dice: tuple[int, int] = (2, 1)) -> Chouette:
    """The side on roll rolls ``dice`` and makes the first legal play."""
    who = ch.on_roll
    ch = ch.roll(who, dice)
    if ch.game.phase is Phase.MOVE:
        ch = ch.play(who, ch.legal_plays()[0])
    return ch


def race(ch: Chouette, team: dict[int | str, int], box: dict[int | str, int]) -> Chouette:
    """Set the board (tests only): ``team`` and ``box`` in their own numbering, the side on
    roll unchanged; checkers not placed are borne off."""
    g = ch.game
    pos = Position.from_points(team, box)
    if g.turn is Side.BOX:
        pos = pos.swap()
    return dataclasses.replace(ch, game=dataclasses.replace(g, position=pos))
