"""Chouette: one player, the box, against a team led by a captain (docs/rules.md §8).

A :class:`Chouette` is the whole table: the players' **line** (box, captain, then the team in
order), the rules it was set up with (:class:`ChouetteOptions`), the **ledger**, and the game in
progress (:class:`ChouetteGame`). It is an immutable value; every action is a method that returns
a new chouette or raises a precise :class:`~engine.errors.IllegalActionError`. Players are
strings (account ids); dice are inputs, never drawn here.

The checker play between the box and the captain's side reuses the two-player machinery
(:func:`~engine.moves.play`, :func:`~engine.game.classify_win`, :class:`~engine.game.Result`,
:func:`~engine.game.opening_winner`); what the chouette adds is one game *per team member*
against the box (:class:`MemberGame`: that member's cube, pending double, resignation offer and
settlement). With a single team member it is an ordinary money game.

The package, one concept a module: :mod:`~engine.chouette.options` (the rules a table is set up
with, and its vocabulary), :mod:`~engine.chouette.ledger` (settlements and the ledger),
:mod:`~engine.chouette.line` (throwing for the line, rotation, passing the captaincy),
:mod:`~engine.chouette.game` (one game: the board and each member's game),
:mod:`~engine.chouette.permissions` (who may do what now), :mod:`~engine.chouette.text` (the
table in words) and :mod:`~engine.chouette.table` (:class:`Chouette`, the table itself). The
actions are the engine's one :class:`~engine.actions.Action`.

>>> ch = Chouette.new(["ann", "bob", "cat"])
>>> ch.ordering.to_throw                      # everyone throws one die for the line
('ann', 'bob', 'cat')
>>> ch = ch.order_throw({"ann": 6, "bob": 6, "cat": 2})
>>> ch.ordering.ties                          # only the tied players throw again
(('ann', 'bob'),)
>>> ch = ch.order_throw({"ann": 3, "bob": 5})
>>> ch.line                                   # box, captain, then the team
('bob', 'ann', 'cat')
>>> ch = ch.start_game().opening_throw(4, 2)  # the box threw 4, the captain 2
>>> ch.on_roll, ch.game.dice
('bob', (4, 2))
>>> ch = ch.move("bob", [(8, 4), (6, 4)])
>>> ch.turn, ch.on_roll
(<Side.TEAM: 1>, 'ann')
>>> ch = ch.double("cat")                     # cat doubles the box on cat's own cube
>>> sorted(ch.allowed("ann"))                 # the captain may still double, not roll
[<Action.DOUBLE: 'double'>, <Action.LEAVE: 'leave'>, <Action.RESIGN: 'resign'>]
>>> sorted(ch.allowed("cat"))
[<Action.ADVISE: 'advise'>, <Action.LEAVE: 'leave'>]
>>> ch.roll("ann", (3, 1))
Traceback (most recent call last):
...
engine.errors.CubeError: ann (captain) cannot roll: waiting for the box's answer on cat's cube
>>> ch = ch.drop("bob", "cat")                # cat wins 1 and is out of this game
>>> dict(ch.ledger)
{'ann': 0, 'bob': -1, 'cat': 1}
>>> ch.double("cat")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
engine.errors.NotYourTurnError: cat cannot double: cat has won on the box's drop and takes ...
>>> ch.double("ann", ["cat"])
Traceback (most recent call last):
...
engine.errors.CubeError: ann (captain) cannot double cat's cube: each member doubles only their own
"""

from engine.chouette.game import ChouetteGame, MemberGame
from engine.chouette.ledger import Ledger, SettledBy, Settlement
from engine.chouette.line import LineOrder
from engine.chouette.options import TARGETED_ACTIONS, ChouetteOptions, Consultation, CubeMode, Side
from engine.chouette.table import Chouette

__all__ = [
    "TARGETED_ACTIONS",
    "Chouette",
    "ChouetteGame",
    "ChouetteOptions",
    "Consultation",
    "CubeMode",
    "Ledger",
    "LineOrder",
    "MemberGame",
    "SettledBy",
    "Settlement",
    "Side",
]
