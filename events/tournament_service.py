"""The tournaments' command service: read a tournament's stream, fold, decide, append — the one
decide-then-append path of a tournament (docs/tournaments.md), as :class:`events.service.
TableService` is a table's.

:meth:`TournamentService.execute` folds the stream (from the cached state, caught up), asks
:func:`events.domain.tournament.decide` for the events that record the command, checks them by
folding them (the engine's rules refuse what does not apply, and every pairing is the rules'
own, so the audit pairs it again) and appends them with the version they were decided on and
the command id. The same actor sending the same command with its id again gets the first
outcome; anyone else, or another command under that id, a reused id. Commands for one
tournament run one at a time in this process; across processes the expected version guards,
and a conflict is met by catching up and deciding again.
"""

from __future__ import annotations

import hashlib
import logging
import struct
import time
import uuid
from collections.abc import Callable
from typing import Final

import msgspec

from engine.errors import TournamentError
from events.domain import commands as c
from events.domain import types as e
from events.domain.tournament import (
    TournamentNotFoundError,
    TournamentState,
    decide,
    fold,
)
from events.service import Outcome, _IdleLocks, append_decided, outcome_of, prior_outcome
from events.store.errors import ConcurrencyError
from events.store.event_store import AppendResult, EventStore
from events.store.lru import Lru
from events.store.streams import (
    TOURNAMENT_PREFIX,
    decode_recorded,
    tournament_stream,
    tournament_versions,
)

__all__ = ["TournamentService", "tournament_digest"]

log = logging.getLogger("chouette.tournaments")

DIGEST_LABEL: Final = b"chouette-tournament-command/v1\x00"
_json = msgspec.json.Encoder()


def tournament_digest(tournament_id: str, command: c.TournamentCommand) -> bytes:
    """SHA-256 of a tournament command's canonical bytes, recorded with its command id (as
    :func:`events.service.command_digest` for a table's).

    >>> tournament_digest("t", c.StartTournament()) == tournament_digest("u", c.StartTournament())
    False
    """
    tid = tournament_id.encode("utf-8")
    return hashlib.sha256(
        DIGEST_LABEL + struct.pack(">i", len(tid)) + tid + _json.encode(command)
    ).digest()


class TournamentService:
    """Runs commands against tournaments and keeps their folded states cached.

    :param store: where the events are.
    :param clock: seconds since the epoch (tests inject theirs).
    :param on_state: told of every state folded after an append of this process (the
        server's reactor creates the match tables of a round just paired with it). Called
        synchronously: it must only schedule work.
    """

    def __init__(
        self,
        store: EventStore,
        clock: Callable[[], float] = time.time,
        cache_size: int = 1000,
        on_state: Callable[[TournamentState], None] | None = None,
    ) -> None:
        self.store = store
        self._clock = clock
        self._states: Lru[TournamentState] = Lru(cache_size)
        self._locks = _IdleLocks()
        self.on_state = on_state

    def now(self) -> int:
        return int(self._clock() * 1000)

    async def state(self, tournament_id: str) -> TournamentState:
        """The tournament's state: the cached fold, caught up with the store.

        :raises TournamentNotFoundError: nothing was ever recorded for it."""
        s = self._states.get(tournament_id) or TournamentState(tournament_id)
        new = await self.store.read_stream(
            tournament_stream(tournament_id), after_version=s.version
        )
        if new:
            s = fold((decode_recorded(r, self.store.keys) for r in new), s)
            self._states.put(tournament_id, s)
        if not s.exists:
            raise TournamentNotFoundError(tournament_id)
        return s

    def forget_states(self) -> None:
        """Forget every folded state (an account was erased: its words are read again)."""
        self._states.clear()

    async def ids(self) -> list[str]:
        """Every tournament's id (from the store's ``streams`` rows)."""
        return list(await self.versions())

    async def versions(self) -> dict[str, int]:
        """Every tournament's id and its stream's version, in one query."""
        return await tournament_versions(self.store)

    async def execute(
        self,
        tournament_id: str,
        actor: str,
        command: c.TournamentCommand,
        command_id: uuid.UUID,
    ) -> Outcome:
        """Decide and append one command; the same actor retrying the same command with its
        id gets the first outcome.

        :raises TournamentNotFoundError, NotAllowedError, InvalidCommandError, TournamentError:
            refused (:mod:`events.domain.tournament`); nothing written.
        :raises CommandIdReusedError: the id was recorded for another actor or command.
        :raises StoreError: the store failed.
        """
        stream = tournament_stream(tournament_id)
        digest = tournament_digest(tournament_id, command)
        creating = isinstance(command, c.CreateTournament)
        async with self._locks.hold(TOURNAMENT_PREFIX + tournament_id):
            state: TournamentState | None = (
                TournamentState(tournament_id) if creating else self._states.get(tournament_id)
            )
            for _attempt in range(5):
                if state is None:
                    state = await self.state(tournament_id)
                try:
                    events = decide(state, actor, command, self.now())
                except Exception:
                    prior = await self._prior(command_id, stream, actor, digest)
                    if prior is not None:
                        return prior
                    if not creating:
                        fresh = await self.state(tournament_id)
                        if fresh.version != state.version:
                            state = fresh
                            continue
                    raise
                # Checked as the audit checks the stream: the events fold by the rules.
                after = fold(events, state)
                try:
                    result = await self._append(
                        stream, events, state.version, command_id, actor, digest
                    )
                except ConcurrencyError:
                    if creating:
                        prior = await self._prior(command_id, stream, actor, digest)
                        if prior is not None:
                            return prior
                        raise TournamentError("the tournament already exists") from None
                    state = None
                    continue
                if result.duplicate:
                    return outcome_of(command_id, result)
                self._states.put(tournament_id, after)
                log.info(
                    "tournament command %s",
                    type(command).__struct_config__.tag,
                    extra={"tournament_id": tournament_id, "actor": actor},
                )
                if self.on_state is not None:
                    self.on_state(after)
                return outcome_of(command_id, result)
            raise ConcurrencyError(stream, None, -1)

    async def _prior(
        self, command_id: uuid.UUID, stream: str, actor: str, digest: bytes
    ) -> Outcome | None:
        return await prior_outcome(self.store, command_id, stream, actor, digest)

    async def _append(
        self,
        stream: str,
        events: list[e.Event],
        expected_version: int,
        command_id: uuid.UUID,
        actor: str,
        digest: bytes,
    ) -> AppendResult:
        return await append_decided(
            self.store, stream, events, expected_version, command_id, actor, digest
        )
