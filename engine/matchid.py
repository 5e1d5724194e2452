"""GNU Backgammon Match ID: the match and cube state in 12 base64 characters.

The 66 bits, least significant first (GNU Backgammon manual, "Match ID"):

====== ======= ===============================================================
bits   field   meaning
====== ======= ===============================================================
1-4    cube    log2 of the cube value
5-6    owner   0 or 1, or 3 for a centred cube
7      move    the player on roll (whose dice these are)
8      crawf.  1 in the Crawford game
9-11   state   0 no game, 1 playing, 2 over, 3 resigned, 4 ended by a drop
12     turn    the player who must act now (the doubled or resigned-to player)
13     doubled a double (or beaver) is pending
14-15  resign  0 none, 1 single, 2 gammon, 3 backgammon offered
16-21  dice    two 3-bit dice, larger first (0, 0 before the roll)
22-36  length  match length, 0 for money play
37-66  score   two 15-bit scores
67     jacoby  1 when the Jacoby rule is *not* in use (GNU Backgammon stores
               ``!fJacoby``; IDs from before it was added carry 0)
====== ======= ===============================================================

>>> m = MatchState.from_id('QYkqASAAIAAA')
>>> m.cube, m.owner, m.move, m.dice, m.match_length, m.score
(2, 0, 1, (5, 2), 9, (2, 4))
>>> MatchState.from_id('QYkqASAAIAAA').match_id()
'QYkqASAAIAAA'
"""

from __future__ import annotations

import base64
import binascii
from typing import NamedTuple

from engine.errors import InvalidIdError

CENTRED = 3
"""The owner value of a centred cube."""

NO_GAME, PLAYING, GAME_OVER, RESIGNED, DROPPED = range(5)
"""The game states a Match ID can carry."""

_FIELDS = (  # (name, width) in bit order
    ("cube", 4),
    ("owner", 2),
    ("move", 1),
    ("crawford", 1),
    ("game_state", 3),
    ("turn", 1),
    ("doubled", 1),
    ("resigned", 2),
    ("die1", 3),
    ("die2", 3),
    ("match_length", 15),
    ("score0", 15),
    ("score1", 15),
    ("no_jacoby", 1),
)


class MatchState(NamedTuple):
    """The decoded contents of a Match ID. Players are 0 and 1, as in GNU Backgammon."""

    cube: int = 1
    """The cube value (a power of two, 1 to 2**15)."""
    owner: int = CENTRED
    """0 or 1, or :data:`CENTRED`."""
    move: int = 0
    """The player on roll."""
    crawford: bool = False
    """Whether this is the Crawford game."""
    game_state: int = PLAYING
    """One of NO_GAME, PLAYING, GAME_OVER, RESIGNED, DROPPED."""
    turn: int = 0
    """The player who must act now."""
    doubled: bool = False
    """Whether a double (or a beaver) awaits an answer."""
    resigned: int = 0
    """The resignation on offer: 0 none, 1 single, 2 gammon, 3 backgammon."""
    dice: tuple[int, int] = (0, 0)
    """The dice, larger first; (0, 0) before the roll."""
    match_length: int = 0
    """The match length; 0 for money play."""
    score: tuple[int, int] = (0, 0)
    """The scores of players 0 and 1."""
    jacoby: bool = True
    """Whether the Jacoby rule is in use (money play); False in match play."""

    def match_id(self) -> str:
        """Encode as a 12-character Match ID.

        :raises InvalidIdError: a field that does not fit its bits.
        """
        if self.cube < 1 or self.cube & (self.cube - 1) or self.cube > 1 << 15:
            raise InvalidIdError(f"cube value must be a power of two up to 32768: {self.cube!r}")
        d1, d2 = sorted(self.dice, reverse=True)
        values = {
            "cube": self.cube.bit_length() - 1,
            "owner": self.owner,
            "move": self.move,
            "crawford": int(self.crawford),
            "game_state": self.game_state,
            "turn": self.turn,
            "doubled": int(self.doubled),
            "resigned": self.resigned,
            "die1": d1,
            "die2": d2,
            "match_length": self.match_length,
            "score0": self.score[0],
            "score1": self.score[1],
            "no_jacoby": int(not self.jacoby),
        }
        bits, shift = 0, 0
        for name, width in _FIELDS:
            value = values[name]
            if not 0 <= value < 1 << width:
                raise InvalidIdError(f"match id field {name} out of range: {value!r}")
            bits |= value << shift
            shift += width
        # Never write an ID that from_id would refuse.
        _check_fields(values, repr(self))
        return base64.b64encode(bits.to_bytes(9, "little")).decode("ascii")

    @classmethod
    def from_id(cls, match_id: str) -> MatchState:
        """Decode a Match ID.

        :raises InvalidIdError: not 12 base64 characters, or fields that make no sense.
        """
        if not isinstance(match_id, str) or len(match_id) != 12:
            raise InvalidIdError(f"match id must be 12 characters: {match_id!r}")
        try:
            raw = base64.b64decode(match_id, validate=True)
        except (binascii.Error, ValueError) as e:
            raise InvalidIdError(f"match id is not base64: {match_id!r}") from e
        if len(raw) != 9:
            # Twelve characters with '=' padding decode to fewer than the 9 bytes of an ID.
            raise InvalidIdError(f"match id must encode 9 bytes, not {len(raw)}: {match_id!r}")
        bits = int.from_bytes(raw, "little")
        v: dict[str, int] = {}
        shift = 0
        for name, width in _FIELDS:
            v[name] = bits >> shift & ((1 << width) - 1)
            shift += width
        if bits >> shift:
            raise InvalidIdError(f"match id has bits past the Jacoby flag: {match_id!r}")
        _check_fields(v, repr(match_id))
        return cls(
            cube=1 << v["cube"],
            owner=v["owner"],
            move=v["move"],
            crawford=bool(v["crawford"]),
            game_state=v["game_state"],
            turn=v["turn"],
            doubled=bool(v["doubled"]),
            resigned=v["resigned"],
            dice=(v["die1"], v["die2"]),
            match_length=v["match_length"],
            score=(v["score0"], v["score1"]),
            jacoby=not v["no_jacoby"],
        )


def _check_fields(v: dict[str, int], what: str) -> None:
    """Refuse field values that fit their bits but mean nothing.

    :raises InvalidIdError: cube owner 2, a game state past DROPPED, a die of 7, or one die
        zero and not the other.
    """
    if v["owner"] == 2:
        raise InvalidIdError(f"match id has cube owner 2: {what}")
    if v["game_state"] > DROPPED:
        raise InvalidIdError(f"match id has game state {v['game_state']}: {what}")
    if v["die1"] > 6 or v["die2"] > 6 or (v["die1"] == 0) != (v["die2"] == 0):
        raise InvalidIdError(f"match id has impossible dice: {what}")
