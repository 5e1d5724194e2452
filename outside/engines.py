"""The engines an outside bot asks (``chouette bot run --engine basic|gnubg|CMD``): each takes a
:class:`~outside.decide.Question` and answers in the words of the line protocol
(docs/bots.md, "Outside engines"), so that every engine's answer goes through the same check
(:func:`outside.decide.answer_of`) before a command is sent.

- :class:`BasicEngine`: the ``basic`` bot's judgement (:mod:`engine.bots.basic`) in the runner's
  own process.
- :class:`GnubgModuleEngine`: GNU Backgammon's Python module (``gnubg``, when importable), judged
  as the in-server bots of that strength judge (:class:`events.gnubg.bot.GnubgBrain`, the bridge
  to the module, which knows only the engine): ``findbestmove`` at 0-ply for plays, its cubeless
  chances through Janowski's take point for money cubes and GNU Backgammon's match equity table
  in a match. For GNU Backgammon's own cubeful judgement, run its program as an outside engine
  (``--engine scripts/gnubg-engine``).
- :class:`CommandEngine`: any program, spoken to over its stdin and stdout: a handshake, then
  one line per question and one line back, each within a time limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
from dataclasses import dataclass
from typing import Protocol

from engine.bots import basic
from engine.matchid import CENTRED, MatchState
from engine.moves import legal_plays
from engine.notation import format_play
from engine.position import Position
from events.gnubg.bot import GnubgBrain
from events.gnubg.bot import available as gnubg_available
from outside.decide import UNKNOWN_MATCH, EngineFailure, Question

__all__ = [
    "PROTOCOL",
    "BasicEngine",
    "CommandEngine",
    "Engine",
    "GnubgModuleEngine",
    "engine_for",
]

log = logging.getLogger("chouette.bot")

PROTOCOL = 1
"""The line protocol's version: the runner writes ``chouette 1``, the engine answers it back."""

MAX_LINE = 1000
"""The longest line an engine may answer (in bytes, its newline aside)."""


class Engine(Protocol):
    """Something that answers questions."""

    name: str

    async def start(self) -> None:
        """Get ready (start a program, load a module). :raises EngineFailure: it cannot."""
        ...

    async def answer(self, question: Question) -> str:
        """The answer, as the line protocol words it. :raises EngineFailure: none usable."""
        ...

    async def fail(self) -> None:
        """Its last answer was not usable: start afresh for the next question."""
        ...

    async def close(self) -> None:
        """Stop, quickly and quietly."""
        ...


def _match(match_id: str) -> MatchState:
    """The Match ID's state (money with a centred cube when it is unknown)."""
    if match_id == UNKNOWN_MATCH:
        return MatchState()
    return MatchState.from_id(match_id)


def _aways(m: MatchState, player: int) -> tuple[int | None, int | None]:
    """How many points ``player`` and the other need (None in money play)."""
    if not m.match_length:
        return None, None
    return m.match_length - m.score[player], m.match_length - m.score[1 - player]


class BasicEngine:
    """The ``basic`` bot (:mod:`engine.bots.basic`): as the in-server bots of that strength
    judge (events/domain/bots.py's ``BasicBrain``), from the IDs alone."""

    name = "basic"

    async def start(self) -> None:
        return None

    async def fail(self) -> None:
        return None

    async def close(self) -> None:
        return None

    async def answer(self, question: Question) -> str:
        return self.decide(question)

    def decide(self, q: Question) -> str:
        position = Position.from_id(q.position_id)
        m = _match(q.match_id)
        if q.kind == "move":
            assert q.dice is not None
            return self.play(position, q.dice)
        if q.kind == "cube":
            away, other = _aways(m, m.move)
            if m.match_length and m.crawford:
                return "roll"
            doubles = basic.should_double(
                position,
                centred=m.owner == CENTRED,
                match_away=away,
                cube=m.cube,
                opponent_away=other,
            )
            return "double" if doubles else "roll"
        if q.kind == "take":
            # The position is the doubler's (on roll); their and the taker's aways.
            away, other = _aways(m, m.move)
            takes = basic.should_take(position, match_away=away, cube=m.cube, taker_away=other)
            return "take" if takes else "drop"
        # A resignation: seen by the offerer; the Match ID's ``turn`` is the answerer.
        offerer = position if m.move != m.turn else position.swap()
        return "accept" if basic.accepts_resignation(offerer, q.level) else "decline"

    def play(self, position: Position, dice: tuple[int, int]) -> str:
        plays = legal_plays(position, dice).plays
        return format_play(position, basic.choose_play(plays).moves)


@dataclass(frozen=True, slots=True)
class _Cube:
    """The cube and the score as :class:`~events.gnubg.bot.GnubgBrain` is asked of them (the
    fields of the in-server bots' ``CubeContext``), for one player of a Match ID."""

    value: int
    owner: int | None
    """0: this player owns the cube; 1: the other; None: centred."""
    match_length: int
    score: tuple[int, int]
    """(this player's, the other's)."""
    crawford: bool


def _cube_of(m: MatchState, player: int) -> _Cube:
    owner = None if m.owner == CENTRED else (0 if m.owner == player else 1)
    return _Cube(m.cube, owner, m.match_length, (m.score[player], m.score[1 - player]), m.crawford)


class GnubgModuleEngine:
    """GNU Backgammon's Python module, as the in-server ``gnubg`` bots judge (the module's
    docstring)."""

    name = "gnubg"

    def __init__(self) -> None:
        self.brain: GnubgBrain | None = None

    async def start(self) -> None:
        if not gnubg_available():
            raise EngineFailure(
                "GNU Backgammon's Python module is not installed (pip install"
                " 'chouette[gnubg]'); or run its program: --engine scripts/gnubg-engine"
            )
        self.brain = GnubgBrain(ply=0)

    async def fail(self) -> None:
        return None

    async def close(self) -> None:
        return None

    async def answer(self, question: Question) -> str:
        return self.decide(question)

    def decide(self, q: Question) -> str:
        brain = self.brain
        assert brain is not None, "start() first"
        position = Position.from_id(q.position_id)
        m = _match(q.match_id)
        if q.kind == "move":
            assert q.dice is not None
            chosen = brain.play(position, q.dice, legal_plays(position, q.dice).plays)
            return format_play(position, chosen.moves)
        if q.kind == "cube":
            return "double" if brain.double(position, _cube_of(m, m.move)) else "roll"
        if q.kind == "take":
            # The position and the cube are the doubler's (on roll), as the brain asks.
            return "take" if brain.take(position, _cube_of(m, m.move)) else "drop"
        # A resignation: the Match ID's ``turn`` is the answerer; the brain is given the
        # offerer's position and cube.
        offerer = 1 - m.turn
        seen = position if m.move == offerer else position.swap()
        return "accept" if brain.accept(seen, q.level, _cube_of(m, offerer)) else "decline"


class CommandEngine:
    """A program spoken to over stdin/stdout in the line protocol (docs/bots.md, "Outside
    engines"): started with ``command`` (split as a shell would, not run by one), greeted with
    ``chouette 1``, then asked one line per question, each answered within ``timeout``
    seconds. Its stderr is the runner's. A program that dies, hangs, or answers a line that is
    not an answer has failed: it is stopped, and started afresh for the next question."""

    def __init__(self, command: str, timeout: float = 10.0, start_timeout: float = 30.0) -> None:
        self.command = command
        self.argv = shlex.split(command)
        self.name = command
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.proc: asyncio.subprocess.Process | None = None
        self.greeting = ""
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        async with self._lock:
            await self._start()

    async def _start(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            return
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                limit=MAX_LINE + 2,
                env=os.environ.copy(),
            )
        except OSError as exc:
            raise EngineFailure(f"cannot start {self.command!r}: {exc.strerror or exc}") from None
        reply = await self._exchange(f"chouette {PROTOCOL}", self.start_timeout)
        words = reply.split()
        if words[:2] != ["chouette", str(PROTOCOL)]:
            await self._stop()
            raise EngineFailure(
                f"{self.command!r} did not answer the handshake with 'chouette {PROTOCOL}':"
                f" {reply[:80]!r}"
            )
        self.greeting = " ".join(words[2:])
        log.info("engine %r started (%s)", self.command, self.greeting or "no name given")

    async def answer(self, question: Question) -> str:
        async with self._lock:
            await self._start()
            try:
                reply = await self._exchange(question.line(), self.timeout)
                if reply.split()[:1] == ["error"]:
                    raise EngineFailure(f"the engine could not answer: {reply[:200]!r}")
            except EngineFailure:
                await self._stop()
                raise
            return reply

    async def _exchange(self, line: str, timeout: float) -> str:
        """Write ``line``, read one line back within ``timeout``. :raises EngineFailure: the
        program died, stayed silent, or wrote a line too long or not text (it is stopped)."""
        proc = self.proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(line.encode("ascii") + b"\n")
            await proc.stdin.drain()
            async with asyncio.timeout(timeout):
                raw = await proc.stdout.readline()
        except TimeoutError:
            await self._stop()
            raise EngineFailure(f"no answer to {line!r} within {timeout:g} s") from None
        except ValueError:
            await self._stop()
            raise EngineFailure(f"an answer longer than {MAX_LINE} bytes to {line!r}") from None
        except (ConnectionError, BrokenPipeError):
            raw = b""
        if not raw.endswith(b"\n"):
            code = await self._stop()
            raise EngineFailure(f"the engine exited (status {code}) before answering {line!r}")
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            await self._stop()
            raise EngineFailure(f"an answer to {line!r} that is not UTF-8 text") from None
        if any(ord(ch) < 32 for ch in text):
            raise EngineFailure(f"an answer to {line!r} with control characters")
        if not text:
            raise EngineFailure(f"an empty answer to {line!r}")
        return text

    async def _stop(self) -> int | None:
        """Stop the program (``quit``, then a kill after 2 s); its exit status."""
        proc, self.proc = self.proc, None
        if proc is None:
            return None
        if proc.returncode is None and proc.stdin is not None:
            with contextlib.suppress(ConnectionError, RuntimeError):
                proc.stdin.write(b"quit\n")
                proc.stdin.close()
        try:
            async with asyncio.timeout(2.0):
                code = await proc.wait()
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            code = await proc.wait()
        # Read what it left in the pipe to its end, so that the pipe closes now, not when
        # the loop is gone.
        if proc.stdout is not None:
            with contextlib.suppress(TimeoutError, ConnectionError, ValueError):
                async with asyncio.timeout(1.0):
                    await proc.stdout.read()
        return code

    async def fail(self) -> None:
        """Stop the program after it failed (it is started afresh when next asked)."""
        async with self._lock:
            await self._stop()

    async def close(self) -> None:
        await self.fail()


def engine_for(spec: str, timeout: float = 10.0) -> Engine:
    """The engine ``--engine`` names: ``basic``, ``gnubg``, or a command line."""
    if spec == "basic":
        return BasicEngine()
    if spec == "gnubg":
        return GnubgModuleEngine()
    return CommandEngine(spec, timeout)
