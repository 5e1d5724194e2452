"""The tournaments' command service (:class:`events.tournament_service.TournamentService`) over a
real store, without HTTP, and the audit of a tournament's stream (docs/tournaments.md).

- A Swiss tournament of five created, entered, started and decided to its end through the
  service: each round is paired in the batch of the result that completed the last one, and the
  last result's batch ends the tournament with the standings' leader.
- Command ids: a retry gets the first outcome (nothing written); another actor or another
  command under the id is refused.
- Refusals write nothing: a second entry, a non-director starting, a result sent by a player.
- ``audit --all`` passes the stream, and flags a stream whose round was paired otherwise
  (appended past the service, as a forger would), and a result said to be a match's whose
  table recorded no such end.
"""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from engine.errors import TournamentError
from events.domain import commands as c
from events.domain import types as e
from events.domain.table import CommandIdReusedError, NotAllowedError
from events.domain.tournament import SERVER, TournamentNotFoundError, match_table_id
from events.store.event_store import EventStore
from events.store.streams import append_events, decode_recorded, tournament_stream
from events.tournament_service import TournamentService
from server.cli.main import main

T0 = 1_764_000_000.0


def _service(store: EventStore) -> TournamentService:
    return TournamentService(store, clock=lambda: T0)


async def _swiss(svc: TournamentService, players: list[str]) -> str:
    tid = str(uuid.uuid4())
    options = e.TournamentOptions(format="swiss", rounds=3, match_length=1)
    await svc.execute(tid, "u_dir", c.CreateTournament(options=options, name="Club"), uuid.uuid4())
    for i, p in enumerate(players):
        await svc.execute(tid, p, c.EnterTournament(rating=1600 - 10 * i), uuid.uuid4())
    return tid


async def test_a_swiss_tournament_is_decided_to_its_end(store: EventStore) -> None:
    svc = _service(store)
    players = [f"u_{n}" for n in "abcde"]
    tid = await _swiss(svc, players)
    started = await svc.execute(tid, "u_dir", c.StartTournament(), uuid.uuid4())
    assert [r.type for r in started.events] == ["tournament_round_paired"]
    state = await svc.state(tid)
    assert state.t.rounds[0].boards[-1].is_bye  # five players: one bye, to the lowest
    assert state.tables[(1, 1)] == match_table_id(tid, 1, 1)
    for number in (1, 2, 3):
        state = await svc.state(tid)
        boards = [b for b in state.t.rounds[number - 1].boards if not b.decided]
        assert len(boards) == 2
        for i, board in enumerate(boards):
            outcome = await svc.execute(
                tid,
                SERVER,
                c.RecordResult(round=number, board=board.number, winner=board.pairing.a),
                uuid.uuid4(),
            )
            types = [r.type for r in outcome.events]
            if i == 0:
                assert types == ["tournament_result"]
            elif number < 3:
                assert types == ["tournament_result", "tournament_round_paired"]
            else:
                assert types == ["tournament_result", "tournament_finished"]
    state = await svc.state(tid)
    assert state.finished and state.winner == "u_a"
    # A fresh service folds the same state from the store.
    again = await _service(store).state(tid)
    assert (again.version, again.winner, again.t.rounds) == (state.version, "u_a", state.t.rounds)
    first = decode_recorded((await store.read_stream(tournament_stream(tid)))[0])
    assert isinstance(first, e.TournamentCreated) and first.name == "Club"


async def test_retries_and_refusals_write_nothing(store: EventStore) -> None:
    svc = _service(store)
    tid = await _swiss(svc, ["u_a", "u_b", "u_c"])
    version = await store.stream_version(tournament_stream(tid))
    cid = uuid.uuid4()
    first = await svc.execute(tid, "u_d", c.EnterTournament(), cid)
    again = await svc.execute(tid, "u_d", c.EnterTournament(), cid)
    assert again.duplicate and again.first_version == first.first_version == version + 1
    with pytest.raises(CommandIdReusedError):
        await svc.execute(tid, "u_e", c.EnterTournament(), cid)
    with pytest.raises(CommandIdReusedError):
        await svc.execute(tid, "u_d", c.WithdrawTournament(), cid)
    with pytest.raises(TournamentError, match="already entered"):
        await svc.execute(tid, "u_d", c.EnterTournament(), uuid.uuid4())
    with pytest.raises(NotAllowedError, match="director"):
        await svc.execute(tid, "u_a", c.StartTournament(), uuid.uuid4())
    await svc.execute(tid, "u_dir", c.StartTournament(), uuid.uuid4())
    with pytest.raises(NotAllowedError, match="server"):
        await svc.execute(tid, "u_a", c.RecordResult(round=1, board=1, winner="u_a"), uuid.uuid4())
    with pytest.raises(TournamentError, match="closed"):
        await svc.execute(tid, "u_f", c.EnterTournament(), uuid.uuid4())
    with pytest.raises(TournamentNotFoundError):
        await svc.execute(str(uuid.uuid4()), "u_a", c.EnterTournament(), uuid.uuid4())
    assert await store.stream_version(tournament_stream(tid)) == version + 2


async def test_the_audit_repairs_every_round_and_flags_a_forged_one(
    store: EventStore, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    svc = _service(store)
    good = await _swiss(svc, ["u_a", "u_b", "u_c", "u_d"])
    await svc.execute(good, "u_dir", c.StartTournament(), uuid.uuid4())
    no_show = c.RecordResult(round=1, board=1, winner=None, forfeit=True, how="no_show")
    await svc.execute(good, SERVER, no_show, uuid.uuid4())
    # A result said to come from a match whose table recorded no match_ended.
    unmatched = await _swiss(svc, ["u_a", "u_b"])
    await svc.execute(unmatched, "u_dir", c.StartTournament(), uuid.uuid4())
    await svc.execute(
        unmatched, SERVER, c.RecordResult(round=1, board=1, winner="u_a"), uuid.uuid4()
    )
    forged = await _swiss(svc, ["u_a", "u_b", "u_c", "u_d"])
    version = await store.stream_version(tournament_stream(forged))
    # The top seeds paired together: the fold takes it, the rules would not have paired it.
    wrong = e.TournamentRoundPaired(
        round=1,
        boards=[e.PairedBoard(a="u_a", b="u_b"), e.PairedBoard(a="u_c", b="u_d")],
    )
    await append_events(
        store,
        tournament_stream(forged),
        [wrong],
        expected_version=version,
        command_id=uuid.uuid4(),
    )
    status = await asyncio.to_thread(main, ["audit", "--all", "--json", "--database-url", db_url])
    doc = json.loads(capsys.readouterr().out)
    assert status == 1
    flagged = [f for f in doc["store"] if f["stream"].startswith("tournament-")]
    assert sorted(flagged, key=lambda f: f["stream"] == tournament_stream(forged)) == [
        {
            "stream": tournament_stream(unmatched),
            "round": 1,
            "board": 1,
            "reason": "round 1 board 1's result is not its match table's (no match_ended)",
        },
        {
            "stream": tournament_stream(forged),
            "round": 1,
            "reason": "round 1's pairing is not what the rules pair",
        },
    ]
