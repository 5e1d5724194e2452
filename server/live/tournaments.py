"""The tournament runner (docs/tournaments.md, "Moving on by itself"): makes each tournament's
rounds happen, through the ordinary command paths only.

For a tournament, :meth:`TournamentRunner.reconcile` derives what still needs doing from the
logs — its stream, and the streams of its current round's match tables — and does it:

- a board to play whose match table does not exist yet: the table is created through the table
  service (a match of the tournament's length, clock and rated flag; private in a private
  tournament, its row written first) and both players are seated (``join`` as themselves, seat
  0 the higher seed), each command's id derived from the tournament, round, board and step
  (:func:`step_id`), so that a retry, a restart or a second process creates and seats once;
- a match table whose ``match_ended`` is in the log: the result is recorded in the tournament
  (``record_result`` as :data:`~events.domain.tournament.SERVER`), whose decider pairs the next
  round in the same batch once the round's last result is in, or ends the tournament;
- a match nobody has started (no opening throw) ``show_seconds`` after its round was paired:
  decided as a no-show of both (**Choice**, below), and both leave the table (which costs
  nothing before the first throw);
- a board decided because a player withdrew while its table was open: the withdrawn player
  leaves the table (a forfeit of the match there too, docs/rules.md §10).

**Choice: the no-show deadline.** The tables' own clocks (docs/rules.md §10) forfeit a player
who does not act once the match has started: a player who came throws the opening throw
(anyone seated may), and the absent one's clock then runs out. But no opening throw is thrown
by the table itself unless two players are connected, so a match neither player starts would
wait for ever. So a match with no opening throw ``show_seconds`` after its round was paired
(600 by default) is decided as a forfeit of both: nobody wins it, except in a knockout, where
the higher seed goes through (to forfeit the next match in turn if they do not come then
either: a knockout always has one winner), as a withdrawal of both is decided
(engine/tournament/state.py).

What starts it: every tournament not finished is reconciled when the runner starts (after a
restart nothing is lost: everything it does is derived from the logs), again when an event of
its stream or of one of its current match tables is in the log (the live feed, one
subscription per log partition from where the log was when the runner started), when this
process's tournament service appends to it, and at its no-show deadline. Reconciling is
idempotent, one at a time per tournament in a process; across processes the derived command
ids and expected versions make every step happen once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from typing import Final

import asyncpg
from aiohttp import web

from engine.game import Phase
from engine.tournament import Format
from events.domain import commands as c
from events.domain import types as e
from events.domain.clocks import with_reserve_rule
from events.domain.table import TableNotFoundError, TableState
from events.domain.tournament import SERVER, TournamentState
from events.service import TableService
from events.store.errors import StoreError
from events.store.event_store import RecordedEvent
from events.store.streams import parse_stream, tournament_of_stream
from events.store.subscription import LiveFeed
from events.tournament_service import TournamentService
from server.config import default_clock
from server.readmodels import invitations
from server.readmodels.accounts import is_outside_bot
from server.readmodels.tournaments import display_names

__all__ = ["RUNNER", "TournamentRunner", "step_id"]

log = logging.getLogger("chouette.tournaments")

_NAMESPACE: Final = uuid.uuid5(uuid.NAMESPACE_URL, "chouette:tournament-step")

RETRY_SECONDS: Final = 2.0
"""How long after a failed reconciliation (the database away, a table refusing) it is tried
again."""

WATCH_SECONDS: Final = 30.0
"""How often a round in play is looked at again besides what the live feed tells."""


RUNNER: web.AppKey[TournamentRunner] = web.AppKey("tournament_runner")


def step_id(tournament_id: str, round_: int, board: int, step: str) -> uuid.UUID:
    """The command id of one step the runner takes for a board (``create``, ``join:<player>``,
    ``result``, ``leave:<player>``): the same in every process and after a restart.

    >>> step_id("t", 1, 2, "create") == step_id("t", 1, 2, "create") != step_id("t", 1, 2, "result")
    True
    """
    return uuid.uuid5(_NAMESPACE, f"{tournament_id}/{round_}/{board}/{step}")


def _started(table: TableState) -> bool:
    """Whether the match was started: an opening throw thrown (or the match already over)."""
    if table.match_winner or table.game_no > 1:
        return True
    game = table.game
    return game is not None and game.phase is not Phase.OPENING


class TournamentRunner:
    """Moves the tournaments on (the module's docstring).

    :param background: run the feed and the deadlines (off with an injected clock: the tests
        call :meth:`reconcile` themselves).
    """

    def __init__(
        self,
        tournaments: TournamentService,
        tables: TableService,
        pool: asyncpg.Pool,
        *,
        seed_window: int,
        table_clock: e.ClockOptions | str | None,
        background: bool = True,
    ) -> None:
        self.tournaments = tournaments
        self.tables = tables
        self._pool = pool
        self._seed_window = seed_window
        self._table_clock = table_clock
        self._background = background
        self._by_table: dict[str, str] = {}
        """The current rounds' match tables: table id -> tournament id."""
        self._running: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._stopped = False

    # -- life -----------------------------------------------------------------------------------

    async def start(self, feed: LiveFeed) -> None:
        """Reconcile every tournament not finished, then follow the log from where it was."""
        heads = await self.tournaments.store.partition_heads()
        for tid in await self.tournaments.ids():
            self.kick(tid)
        if not self._background:
            return
        for partition in range(self.tournaments.store.partitions):
            self._tasks.append(
                asyncio.create_task(self._follow(feed, partition, heads.get(partition, 0)))
            )

    async def stop(self) -> None:
        """Stop: nothing more is started (the logs keep what is due for the next start)."""
        self._stopped = True
        for handle in self._timers.values():
            handle.cancel()
        tasks = [*self._tasks, *self._running.values()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def idle(self) -> None:
        """Wait until no reconciliation is running or due again (tests)."""
        while self._running:
            await asyncio.gather(*self._running.values(), return_exceptions=True)

    def told(self, state: TournamentState) -> None:
        """The tournament service appended to a tournament (``on_state``)."""
        self.kick(state.tournament_id)

    def kick(self, tournament_id: str) -> None:
        """Reconcile ``tournament_id`` soon (again after the one running, if one is)."""
        if self._stopped:
            return
        if tournament_id in self._running:
            self._again.add(tournament_id)
            return
        self._running[tournament_id] = asyncio.create_task(self._run(tournament_id))

    async def _run(self, tid: str) -> None:
        try:
            while True:
                self._again.discard(tid)
                try:
                    await self.reconcile(tid)
                except (StoreError, ValueError) as exc:
                    # The database away, or a step refused (a table another process was
                    # creating at that moment...): look again shortly.
                    log.warning(
                        "tournament %s: reconciling failed, again in %.0f s: %s",
                        tid,
                        RETRY_SECONDS,
                        exc,
                        extra={"tournament_id": tid},
                    )
                    self._at(tid, RETRY_SECONDS)
                except Exception:
                    # A bug: logged with its trace, and the tournament is not dropped.
                    log.exception(
                        "tournament %s: reconciling failed", tid, extra={"tournament_id": tid}
                    )
                    self._at(tid, RETRY_SECONDS)
                if tid not in self._again:
                    return
        finally:
            self._running.pop(tid, None)

    def _at(self, tid: str, seconds: float) -> None:
        if not self._background:
            return
        old = self._timers.pop(tid, None)
        if old is not None:
            old.cancel()
        loop = asyncio.get_running_loop()
        self._timers[tid] = loop.call_later(max(seconds, 0.0), self.kick, tid)

    async def _follow(self, feed: LiveFeed, partition: int, after: int) -> None:
        while True:
            try:
                sub = feed.subscribe(partition, after)
                async with sub:
                    async for batch in sub.batches():
                        for rec in batch:
                            self._seen(rec)
                        after = sub.position
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the feed closed or the database is away: follow again
                log.warning("the tournament runner lost the log: %s", exc)
                await asyncio.sleep(RETRY_SECONDS)

    def _seen(self, rec: RecordedEvent) -> None:
        tid = tournament_of_stream(rec.stream_id)
        if tid is not None:
            self.kick(tid)
            return
        if rec.type != "match_ended":
            return
        name = parse_stream(rec.stream_id)
        if name is not None and (tid := self._by_table.get(name.table_id)) is not None:
            self.kick(tid)

    # -- what is due ----------------------------------------------------------------------------

    async def reconcile(self, tid: str) -> None:
        """Do what the logs say is due for tournament ``tid`` (the module's docstring)."""
        for _ in range(100):  # each pass records at most one result; a round has ≤ 128 boards
            state = await self.tournaments.state(tid)
            if not await self._pass(state):
                return

    async def _pass(self, state: TournamentState) -> bool:
        """One look at the current round: True when a result was recorded (look again)."""
        t = state.t
        last = t.last_round
        if last is None:
            return False
        await self._tidy_all(state)
        if state.finished:
            return False
        assert state.options is not None
        now = self.tournaments.now()
        deadline = state.paired_at[last.number - 1] + state.options.show_seconds * 1000
        waiting = False
        for board in last.boards:
            found = state.tables.get((last.number, board.number))
            if found is None:
                continue
            table_id = found
            if board.decided:
                self._by_table.pop(table_id, None)
                continue
            self._by_table[table_id] = state.tournament_id
            table = await self._table(state, last.number, board.number, table_id)
            if table.match_winner:
                loser_forfeited = any(p != table.match_winner for p, _ in table.forfeits)
                await self._record(
                    state,
                    last.number,
                    board.number,
                    c.RecordResult(
                        round=last.number,
                        board=board.number,
                        winner=table.match_winner,
                        forfeit=loser_forfeited,
                    ),
                )
                return True
            if not _started(table):
                if now >= deadline:
                    winner = board.pairing.a if t.format is Format.KNOCKOUT else None
                    command = c.RecordResult(
                        round=last.number,
                        board=board.number,
                        winner=winner,
                        forfeit=True,
                        how="no_show",
                    )
                    await self._record(state, last.number, board.number, command)
                    return True
                waiting = True
        # A match's end is heard on the live feed; in case it was not (a feed reconnecting),
        # the round is looked at again now and then.
        again = (deadline - now) / 1000 + 0.05 if waiting else WATCH_SECONDS
        self._at(state.tournament_id, min(again, WATCH_SECONDS))
        return False

    async def _record(
        self, state: TournamentState, round_: int, board: int, command: c.RecordResult
    ) -> None:
        await self.tournaments.execute(
            state.tournament_id,
            SERVER,
            command,
            step_id(state.tournament_id, round_, board, "result"),
        )
        log.info(
            "tournament %s: round %d board %d decided (%s)",
            state.tournament_id,
            round_,
            board,
            command.how,
            extra={"tournament_id": state.tournament_id},
        )

    async def _table(
        self, state: TournamentState, round_: int, board: int, table_id: str
    ) -> TableState:
        """The board's match table, created and its two players seated if need be."""
        tid = state.tournament_id
        try:
            # Caught up with the store, not the cached fold: the match may have been played
            # through another process, whose appends this process's cache has not seen.
            table = await self.tables.state(table_id)
        except TableNotFoundError:
            table = await self._create(state, round_, board, table_id)
        seats = state.t.rounds[round_ - 1].boards[board - 1].pairing.players
        for seat, player in enumerate(seats):
            if table.seat_of(player) is not None:
                continue
            name = await self._display_name(player)
            # A bot account sits as a bot (docs/bots.md), as its own join would.
            bot = await is_outside_bot(self._pool, player)
            await self.tables.execute(
                table_id,
                player,
                c.Join(seat=seat, display_name=name, bot=bot),
                step_id(tid, round_, board, f"join:{player}"),
            )
            table = await self.tables.state(table_id)
        return table

    async def _create(
        self, state: TournamentState, round_: int, board: int, table_id: str
    ) -> TableState:
        o = state.options
        assert o is not None
        clock = o.clock or self._table_clock or default_clock("match")
        options = e.TableOptions(
            match_length=o.match_length,
            rated=o.rated,
            registered_only=o.rated,
            private=o.private,
            seed_window=self._seed_window,
            clock=clock,  # type: ignore[arg-type]
        )
        options = with_reserve_rule("match", options)
        if o.private:
            await invitations.record_private(self._pool, table_id, state.created_by)
        # No name: a table's name is sealed under its creator's key, and the director's may
        # be destroyed (an erasure) while the tournament goes on (the tournament names it).
        await self.tables.execute(
            table_id,
            state.created_by,
            c.CreateTable(kind="match", options=options),
            step_id(state.tournament_id, round_, board, "create"),
        )
        return await self.tables.state(table_id)

    async def _tidy_all(self, state: TournamentState) -> None:
        """Every board decided without its match (a withdrawal, a no-show) whose table was
        made: who is out of it leaves the table (in any round: the next may have been paired
        before this process looked)."""
        for r in state.t.rounds:
            for board in r.boards:
                key = (r.number, board.number)
                table_id = state.tables.get(key)
                how = state.how.get(key)
                if table_id is None or not board.decided or how not in (None, "no_show"):
                    continue
                await self._tidy(state, r.number, board.number, table_id)

    async def _tidy(self, state: TournamentState, round_: int, board: int, table_id: str) -> None:
        """A board decided while its table is open (a withdrawal, a no-show): who is out of
        the tournament leaves the table."""
        try:
            table = await self.tables.state(table_id)
        except TableNotFoundError:
            return
        if table.match_winner and not table.players:
            return
        how = state.how.get((round_, board))
        for player in table.players:
            if player in state.t.withdrawn or how == "no_show":
                with contextlib.suppress(ValueError):
                    await self.tables.execute(
                        table_id,
                        player,
                        c.Leave(),
                        step_id(state.tournament_id, round_, board, f"leave:{player}"),
                    )

    async def _display_name(self, account_id: str) -> str:
        names = await display_names(self._pool, [account_id])
        return names.get(account_id, "")[:64]
