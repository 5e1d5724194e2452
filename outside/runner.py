"""``chouette bot run``: an outside bot at its tables, through the public protocol only.

One :class:`BotRunner` is one account (its token) and one engine. For each table it is told
to sit at (``--table``; an invitation code it redeems; with ``--accept-invitations``, each
private table it was invited to that has a seat for it) it joins if it is not there, and then
follows the table's stream (:meth:`client.Client.follow`, which reconnects and resumes after a
drop). Each event wakes the table's loop, which reads the table view and, when the seat must
act (:func:`outside.decide.next_step`), asks the engine and sends the command with a command
id derived from the table, the view's version and the account: a retry is answered, never
recorded twice, and two decisions of one state are one command.

**Choice:** an engine that fails (it crashes, does not answer within its time, or answers
something that is not an answer: garbage, an illegal play) makes the bot **leave** the table
at once, through ``leave`` as a person who walks away does (docs/rules.md §10: a forfeit in
mid-game, free between games), logged with the table id and why. Waiting for the clock instead
would hang a table that has none. A command the server refuses is decided again on a fresh
view; refused twice at one version, the bot leaves too (it would otherwise wait forever).

Shutting down (SIGINT, SIGTERM) stops following and closes the engine; the seats are kept, as
a person's are when they close the page (the clock, where the table has one, runs on).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from client import ApiError, Client, ProtocolError
from outside.decide import Ask, EngineFailure, Send, answer_of, next_step, seated
from outside.engines import Engine

__all__ = ["BotRunner", "Decision", "Turn"]

log = logging.getLogger("chouette.bot")

COMMAND_NAMESPACE = uuid.UUID("5c3f3b52-8f3e-4b43-9b7c-0b6f7f2c1e61")
"""The namespace of the bot's command ids (``uuid5(namespace, "table:version:account")``)."""

POLL = 5.0
"""Seconds between two looks at the private tables (``--accept-invitations``)."""


@dataclass(slots=True)
class Decision:
    """One decision the engine was asked for: how long it took (``bench/bots.py``)."""

    table: str
    kind: str
    seconds: float


@dataclass(slots=True)
class Turn:
    """One command the bot sent: from the event that woke it (its arrival on the stream) to
    the command recorded, the view read, the engine asked and the answer checked between."""

    table: str
    command: str
    seconds: float


@dataclass(slots=True)
class _Table:
    table_id: str
    version: int = -1
    """The view's version last decided at (a wake for it again is nothing new)."""
    refused_at: int = -1
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    woke_at: float = 0.0
    """When the last event arrived (``perf_counter``)."""
    lost: str = ""
    """Why the stream cannot be followed any more (its socket refused), or ''."""


class BotRunner:
    """An outside bot: ``client`` (signed in with the bot's token) playing with ``engine``."""

    def __init__(
        self,
        client: Client,
        engine: Engine,
        *,
        seat: int | None = None,
        accept_invitations: bool = False,
        poll: float = POLL,
    ) -> None:
        self.client = client
        self.engine = engine
        self.seat = seat
        self.accept_invitations = accept_invitations
        self.poll = poll
        self.me = ""
        self.decisions: list[Decision] = []
        """Every engine decision so far, in order (a bench reads them)."""
        self.turns: list[Turn] = []
        """Every command sent after an event woke the bot, in order."""
        self.left: dict[str, str] = {}
        """The tables the bot left because its engine failed, and why."""
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._seen: set[str] = set()

    async def whoami(self) -> str:
        """The bot's account id (``GET /me``). A hook for bot accounts (issue 33): where the
        server says whether the account is marked as a bot, an unmarked one is warned about."""
        _, me = await self.client.request("GET", "/me")
        self.me = str(me["account_id"])
        if me.get("bot") is False:
            log.warning(
                "account %s is not marked as a bot account; mark it (POST /me/bot) so that"
                " people see the badge and the rating rules apply",
                self.me,
            )
        return self.me

    async def run(self, tables: Iterable[str] = (), invitations: Iterable[str] = ()) -> int:
        """Play at ``tables`` and at the tables of the invitation ``codes``, and with
        ``accept_invitations`` at each private table the account is invited to, until every
        table is done (a finished match, a seat left) and nothing more may come, or until
        cancelled. Exit status: 0, or 1 when the engine could not start."""
        if not self.me:
            await self.whoami()
        try:
            await self.engine.start()
        except EngineFailure as exc:
            log.error("the engine cannot start: %s", exc)
            return 1
        try:
            for code in invitations:
                _, redeemed = await self.client.request("POST", "/invitations", {"code": code})
                log.info("table=%s redeemed an invitation", redeemed["table_id"])
                self.add(str(redeemed["table_id"]))
            for table in tables:
                self.add(table)
            watcher = asyncio.create_task(self._invitations()) if self.accept_invitations else None
            try:
                while self._tasks or watcher is not None:
                    pending = [*self._tasks.values()] + ([watcher] if watcher else [])
                    done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                    for task in done:
                        if task is watcher:
                            watcher = None
                        task.result()
                    self._tasks = {t: k for t, k in self._tasks.items() if not k.done()}
            finally:
                if watcher is not None:
                    watcher.cancel()
            return 0
        finally:
            for task in self._tasks.values():
                task.cancel()
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)
            await self.engine.close()

    def add(self, table_id: str) -> None:
        """Sit at (and play) ``table_id``, once."""
        if table_id in self._seen:
            return
        self._seen.add(table_id)
        self._tasks[table_id] = asyncio.create_task(self._play(_Table(table_id)))

    async def _invitations(self) -> None:
        """Every ``poll`` seconds, the private tables the account may see that it has not
        played at in this run: it joins each one with a seat free for it."""
        while True:
            try:
                await self._look_for_invitations()
            except (ApiError, aiohttp.ClientError, OSError) as exc:
                log.warning("cannot list the private tables: %s", exc)
            await asyncio.sleep(self.poll)

    async def _look_for_invitations(self) -> None:
        _, mine = await self.client.request("GET", "/me/tables")
        for row in mine.get("tables") or []:
            table_id = str(row["table_id"])
            if row.get("mine") or table_id in self._seen:
                continue
            try:
                view = await self.client.table(table_id)
            except ApiError as exc:
                log.info("table=%s listed but not open to the bot: %s", table_id, exc)
                continue
            if "join" in view["allowed"] or seated(view, self.me):
                log.info("table=%s invited: sitting down", table_id)
                self.add(table_id)

    async def _play(self, table: _Table) -> None:
        t = table.table_id
        try:
            view = await self.client.table(t)
            if not seated(view, self.me):
                if "join" not in view["allowed"]:
                    log.warning("table=%s no seat for the bot: not playing there", t)
                    return
                await self.client.join(t, self.seat)
                log.info("table=%s joined", t)
                view = await self.client.table(t)
            follower = asyncio.create_task(self._follow(table, int(view["version"])))
            try:
                while await self._step(table):
                    await table.wake.wait()
                    table.wake.clear()
                    if table.lost:
                        log.error("table=%s the stream cannot be followed: %s", t, table.lost)
                        break
            finally:
                follower.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await follower
        except ApiError as exc:
            log.error("table=%s refused: %s", t, exc)
        except (aiohttp.ClientError, OSError) as exc:
            log.error("table=%s the server cannot be reached: %s", t, exc)

    async def _follow(self, table: _Table, after: int) -> None:
        """Wake the table's loop at every event of its table stream (or a resync)."""
        try:
            async for msg in self.client.follow(table.table_id, after=after):
                if getattr(msg, "s", None) == "chat":
                    continue
                table.woke_at = time.perf_counter()
                table.wake.set()
        except (ApiError, ProtocolError) as exc:
            # Refused for good (access gone) or a broken promise: the table's loop stops.
            table.lost = str(exc)
            table.wake.set()

    async def _step(self, table: _Table) -> bool:
        """Look at the table and act if the seat must: whether to go on following it."""
        t = table.table_id
        while True:
            view = await self.client.table(t)
            if not seated(view, self.me):
                log.info("table=%s the bot is no longer at the table", t)
                return False
            if view.get("match_winner"):
                log.info("table=%s the match is over (won by %s)", t, view["match_winner"])
                return False
            version = int(view["version"])
            if version == table.version:
                return True
            table.version = version
            try:
                step = next_step(view, self.me)
            except (ValueError, KeyError, TypeError) as exc:
                # A view the protocol does not describe: nothing safe to send from it.
                await self._leave(t, f"the table view cannot be read: {exc!r}")
                return False
            if step is None:
                return True
            try:
                command = await self._decide(t, step)
            except EngineFailure as exc:
                await self._leave(t, f"the engine failed: {exc}")
                return False
            if command is None:
                return True
            command_id = str(uuid.uuid5(COMMAND_NAMESPACE, f"{t}:{version}:{self.me}"))
            try:
                await self.client.send(t, command, command_id)
            except ApiError as exc:
                if exc.problem.status >= 500 or table.refused_at == version:
                    await self._leave(t, f"the server refused {command['type']} twice: {exc}")
                    return False
                log.info("table=%s %s refused (%s): deciding again", t, command["type"], exc)
                table.refused_at, table.version = version, -1
                continue
            log.debug("table=%s v%d sent %s", t, version, command)
            if table.woke_at:
                turn = time.perf_counter() - table.woke_at
                self.turns.append(Turn(t, str(command["type"]), turn))
            return True

    async def _decide(self, table_id: str, step: Send | Ask) -> dict[str, Any] | None:
        if isinstance(step, Send):
            return step.command
        answers = []
        for question in step.questions:
            started = time.perf_counter()
            try:
                text = await self.engine.answer(question)
                answers.append(answer_of(question, text))
            except EngineFailure as exc:
                await self.engine.fail()
                raise EngineFailure(f"{exc} (asked: {question.line()})") from None
            seconds = time.perf_counter() - started
            self.decisions.append(Decision(table_id, question.kind, seconds))
            log.debug("table=%s %s -> %r (%.1f ms)", table_id, question.line(), text, seconds * 1e3)
        return step.finish(answers)

    async def _leave(self, table_id: str, why: str) -> None:
        """Leave the table (docs/rules.md §10), saying why in the log."""
        self.left[table_id] = why
        log.error("table=%s leaving: %s", table_id, why)
        try:
            await self.client.send(table_id, {"type": "leave"})
        except ApiError as exc:
            log.error("table=%s could not leave: %s", table_id, exc)
