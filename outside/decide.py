"""What an outside bot's seat must do now, read from its table view (``GET /tables/{id}``), pure.

The view says everything a player needs and no rules are guessed: ``allowed`` (the commands
the viewer may send now, exactly), ``targets`` (the box's members' cubes), the game's phase,
who is on roll, the dice, GNU Backgammon's Position ID (seen by the side on roll) and each
cube's Match ID. :func:`next_step` turns that into a :class:`Send` (a command that needs no
judgement: a seed waived, an opening throw, a roll when doubling is not possible) or an
:class:`Ask`: the questions for the engine (:class:`Question`, one per cube the decision is
about) and how their answers become the command. :func:`answer_of` checks an engine's answer
before anything is sent: a play that is not legal, or a word that is not one of the answers
the question allows, is the engine failing (:class:`EngineFailure`), never a command.

The seat acts as the in-server bots do (docs/bots.md, "What a bot does"): it waives its seed,
throws when a throw is due from it, doubles when its engine says so (as the box, on each
member's cube its engine picks), plays, takes or drops (beavers when the table allows it and
the engine says so), accepts or declines a resignation; it never resigns, never starts a
game (a money table's next game starts when a person throws for it) and never joins or
leaves on its own account.

>>> view = {"kind": "money", "in_game": True, "allowed": ["leave", "roll"],
...         "game": {"phase": "opening"}}
>>> next_step(view, "u_bot")
Send(command={'type': 'roll'})
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.errors import EngineError
from engine.notation import parse_play
from engine.position import Position

__all__ = [
    "UNKNOWN_MATCH",
    "Ask",
    "EngineFailure",
    "Question",
    "Send",
    "Step",
    "answer_of",
    "next_step",
]

Kind = Literal["move", "cube", "take", "resign"]

UNKNOWN_MATCH = "-"
"""The Match ID written when the state fits none (a cube past 2**15): a Match ID's fields are
bounded, the cube is not."""

ANSWERS: dict[str, frozenset[str]] = {
    "cube": frozenset({"double", "roll"}),
    "take": frozenset({"take", "drop"}),
    "resign": frozenset({"accept", "decline"}),
}
"""The words an engine may answer, by question (``beaver`` too for a take, when offered)."""


_POSITION_ID = re.compile(r"[A-Za-z0-9+/]{14}")
_MATCH_ID = re.compile(r"[A-Za-z0-9+/]{12}")


class EngineFailure(Exception):
    """The engine did not give a usable answer: it crashed, took too long, or answered
    something that is not an answer to the question (garbage, an illegal play)."""


@dataclass(frozen=True, slots=True)
class Question:
    """One decision asked of the engine, in GNU Backgammon's terms: the Position ID from the
    side on roll, the Match ID (who is on roll, who must act, the cube, the score)."""

    kind: Kind
    position_id: str
    match_id: str
    dice: tuple[int, int] | None = None
    """``move``: the dice to play."""
    level: int = 0
    """``resign``: 1 single, 2 gammon, 3 backgammon."""
    beaver: bool = False
    """``take``: the table allows a beaver now."""

    def __post_init__(self) -> None:
        # What the server's view gave is written to the engine as it is: one line of known
        # words, never a newline or anything else a view could slip in.
        if not _POSITION_ID.fullmatch(self.position_id):
            raise ValueError(f"not a Position ID: {self.position_id[:40]!r}")
        if self.match_id != UNKNOWN_MATCH and not _MATCH_ID.fullmatch(self.match_id):
            raise ValueError(f"not a Match ID: {self.match_id[:40]!r}")
        if self.dice is not None and not all(1 <= d <= 6 for d in self.dice):
            raise ValueError(f"not dice: {self.dice!r}")
        if self.kind == "move" and self.dice is None:
            raise ValueError("a move question needs the dice")
        if not 0 <= self.level <= 3:
            raise ValueError(f"not a resignation level: {self.level!r}")

    def line(self) -> str:
        """The question as the line protocol writes it (docs/bots.md, "Outside engines")."""
        head = f"{self.kind} {self.position_id} {self.match_id}"
        if self.kind == "move":
            assert self.dice is not None
            return f"{head} {self.dice[0]} {self.dice[1]}"
        if self.kind == "resign":
            return f"{head} {self.level}"
        if self.kind == "take" and self.beaver:
            return f"{head} beaver"
        return head


@dataclass(frozen=True, slots=True)
class Send:
    """A command to send as it is: nothing to judge."""

    command: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Ask:
    """Questions for the engine; ``finish`` makes the command from their checked answers
    (None: nothing to send, a member who does not double while the captain rolls)."""

    questions: tuple[Question, ...]
    finish: Callable[[list[Any]], dict[str, Any] | None]


Step = Send | Ask


def answer_of(question: Question, text: str) -> Any:
    """The engine's answer ``text`` to ``question``, checked: for a move, the play's single-die
    moves as ``[from, to]`` pairs (a legal play of the dice in that position); else the word.

    >>> q = Question("move", "4HPwATDgc/ABMA", "cAkAAAAAAAAA", (3, 1))
    >>> answer_of(q, "8/5 6/5")
    [[8, 5], [6, 5]]
    >>> answer_of(q, "24/21 24/23 8/5")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    outside.decide.EngineFailure: the engine's play '24/21 24/23 8/5' is not legal: ...
    >>> answer_of(Question("take", "4HPwATDgc/ABMA", "cAkAAAAAAAAA"), "beaver")
    Traceback (most recent call last):
    ...
    outside.decide.EngineFailure: the engine answered 'beaver' to take: take or drop expected

    :raises EngineFailure: not an answer to the question.
    """
    words = " ".join(text.split())
    if question.kind == "move":
        assert question.dice is not None
        try:
            play = parse_play(Position.from_id(question.position_id), question.dice, words)
        except (EngineError, ValueError) as exc:
            reason = " ".join(str(exc).split())
            raise EngineFailure(f"the engine's play {words!r} is not legal: {reason}") from None
        if not play.moves:
            raise EngineFailure(f"the engine's play {words!r} moves nothing")
        return [[a, b] for a, b in play.moves]
    expected = set(ANSWERS[question.kind])
    if question.kind == "take" and question.beaver:
        expected.add("beaver")
    word = words.lower()
    if word not in expected:
        said = " or ".join(sorted(expected, key=lambda w: (w not in ("take", "double"), w)))
        raise EngineFailure(
            f"the engine answered {words[:80]!r} to {question.kind}: {said} expected"
        )
    return word


def _cube_of(game: dict[str, Any], member: str | None) -> dict[str, Any]:
    """The cube a decision is on: a chouette member's own, else the table's one cube."""
    cubes: list[dict[str, Any]] = game.get("cubes") or []
    for cube in cubes:
        if cube.get("member") == member:
            return cube
    return cubes[0] if cubes else {}


def _match_id(cube: dict[str, Any]) -> str:
    return str(cube.get("match_id") or UNKNOWN_MATCH)


def _answer(view: dict[str, Any], game: dict[str, Any], me: str, kind: Kind) -> Step | None:
    """A take or a resignation's answer owed by ``me``: on the table's cube, the box's first
    member's cube it owes one on (one at a time: each answer is a new view), or a member's
    own."""
    is_box = view.get("box") == me
    action = "take" if kind == "take" else "accept"
    member: str | None = None
    if view["kind"] == "chouette":
        if is_box:
            owed = (view.get("targets") or {}).get(action) or []
            if not owed:
                return None
            member = owed[0]
        else:
            member = me
    cube = _cube_of(game, member)
    named = member if is_box and member else ""
    allowed = set(view.get("allowed") or ())
    if kind == "take":
        question = Question(
            "take", game["position_id"], _match_id(cube), beaver="beaver" in allowed
        )
        return Ask((question,), lambda a: {"type": a[0], "cube": named})
    offer = cube.get("resignation") or {}
    level = int(offer.get("level") or 1)
    question = Question("resign", game["position_id"], _match_id(cube), level=level)
    return Ask((question,), lambda a: {"type": a[0], "cube": named})


def _box_double(view: dict[str, Any], game: dict[str, Any], me: str, rolls: bool) -> Ask | None:
    """The box on roll: a question per member's cube it may turn; it doubles those the engine
    says to (every one: named by none, as a single cube is), else rolls."""
    members: list[str] = (view.get("targets") or {}).get("double") or []
    if not members:
        return None
    single = (view.get("options") or {}).get("cube_mode") == "single"
    questions = tuple(
        Question("cube", game["position_id"], _match_id(_cube_of(game, m))) for m in members
    )

    def finish(answers: list[Any]) -> dict[str, Any] | None:
        chosen = [m for m, a in zip(members, answers, strict=True) if a == "double"]
        if chosen:
            every = single or len(chosen) == len(members)
            return {"type": "double", "cubes": [] if every else chosen}
        return {"type": "roll"} if rolls else None

    return Ask(questions, finish)


def _roll_phase(view: dict[str, Any], game: dict[str, Any], me: str) -> Step | None:
    allowed = set(view.get("allowed") or ())
    rolls = "roll" in allowed and game.get("on_roll") == me
    if "double" in allowed:
        if view["kind"] == "chouette" and view.get("box") == me:
            return _box_double(view, game, me, rolls)
        member = me if view["kind"] == "chouette" else None
        question = Question("cube", game["position_id"], _match_id(_cube_of(game, member)))

        def finish(answers: list[Any]) -> dict[str, Any] | None:
            if answers[0] == "double":
                return {"type": "double"}
            return {"type": "roll"} if rolls else None

        return Ask((question,), finish)
    return Send({"type": "roll"}) if rolls else None


def _move(view: dict[str, Any], game: dict[str, Any], me: str) -> Ask | None:
    dice = game.get("dice")
    if not dice or not game.get("legal_plays"):
        return None
    member = me if view["kind"] == "chouette" else None
    cube = _cube_of(game, member)
    d1, d2 = int(dice[0]), int(dice[1])
    question = Question("move", game["position_id"], _match_id(cube), dice=(d1, d2))
    return Ask((question,), lambda a: {"type": "move", "moves": a[0]})


def next_step(view: dict[str, Any], me: str) -> Step | None:
    """What ``me`` (an account id) does now at the table ``view`` shows it, or None when the
    table does not wait for it."""
    allowed = set(view.get("allowed") or ())
    if not view.get("in_game") or view.get("match_winner"):
        return None
    if "waive_seed" in allowed:
        return Send({"type": "waive_seed"})
    game = view.get("game")
    phase = game.get("phase") if game else None
    if game is None or phase in ("opening", "over"):
        # The opening throw, or a chouette's throws for the line (no game yet, or the last
        # one over): a roll whenever one is due from the seat.
        opening = phase == "opening" or view["kind"] == "chouette"
        return Send({"type": "roll"}) if opening and "roll" in allowed else None
    if "take" in allowed:
        return _answer(view, game, me, "take")
    if "accept" in allowed:
        return _answer(view, game, me, "resign")
    if phase == "roll":
        return _roll_phase(view, game, me)
    if phase == "move" and "move" in allowed and game.get("on_roll") == me:
        return _move(view, game, me)
    return None


def seated(view: dict[str, Any], me: str) -> bool:
    """Whether ``me`` is at the table (a seat, or a chouette's line)."""
    players: Sequence[dict[str, Any]] = view.get("players") or []
    return any(p.get("id") == me for p in players)
