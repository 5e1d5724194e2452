"""Provably fair dice (``events/domain/dice.py``, ``docs/dice.md``).

- The worked example of ``docs/dice.md`` and its Python snippet agree with the server.
- The derivation is uniform: a chi-square test over a million derived dice (the real
  :func:`events.domain.dice.derive_die`, one HMAC each), and over pairs.
- Games played through the table service with its production dice (:class:`FairDice`, seeds in
  the ``dice_seeds`` table) can be re-derived from their revealed seeds, throw by throw, and the
  audit verifies them; a throw that does not match is caught.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import random
import re
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine.game import Phase
from events.domain import commands as c
from events.domain import dice
from events.domain import types as e
from events.domain.dice import SeedCipher
from events.records.audit import audit_records
from events.records.audit_scan import audit_table
from events.records.simulate import simulate_chouette, simulate_table
from events.service import TableService
from events.store.event_store import EventStore
from events.store.seed_store import SeedStore
from events.store.streams import table_stream
from server.metrics import Metrics
from tests.records import recorded

DOC = Path(__file__).resolve().parents[3] / "docs" / "dice.md"
CIPHER = SeedCipher(bytes(range(32)))
"""The key the tests' seed stores seal seeds with."""


def _section(title: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else None]


def _example() -> dict[str, str]:
    block = re.search(r"```text\n(.*?)```", _section("A worked example"), re.S)
    assert block is not None
    rows: dict[str, str] = {}
    for line in block.group(1).splitlines():
        label, _, value = line.partition("  ")
        rows[label.strip()] = value.strip()
    return rows


# -- the documented derivation --------------------------------------------------------------------


def test_the_worked_example_in_the_docs_is_what_the_server_derives() -> None:
    ex = _example()
    seed = bytes.fromhex(ex["seed"])
    clients = [ex["client seed 1"], ex["client seed 2"]]
    assert dice.commitment(seed) == ex["commitment"]
    assert dice.verify(ex["seed"], ex["commitment"])
    key = dice.game_key(seed, clients)
    assert key.hex() == ex["key"]
    assert dice.game_key(seed).hex() == ex["key, no seeds"]
    expected = [int(d) for d in ex["dice 0-19"].split()]
    assert dice.derive_dice(seed, clients, 20) == expected
    for label in ("block(0,0)", "block(1,0)", "block(2,0)", "block(35,0)"):
        n = int(label[6:].split(",")[0])
        digest = hmac.new(key, f"chouette-dice/v1/{n}/0".encode(), hashlib.sha256).digest()
        prefix, _, rest = ex[label].partition("...")
        assert digest.hex().startswith(prefix)
        first = int(re.search(r"first byte (\d+)", rest).group(1))  # type: ignore[union-attr]
        assert digest[0] == first
        answer = int(rest.rsplit("=", 1)[1])
        if first >= 252:  # the documented rejection: the next byte decides
            assert "rejected" in rest
            assert digest[1] % 6 + 1 == answer
        else:
            assert first % 6 + 1 == answer
        assert dice.derive_die(key, n) == answer


def test_the_python_snippet_in_the_docs_checks_a_game() -> None:
    code = re.search(r"```python\n(.*?)```", _section("Check it yourself"), re.S)
    assert code is not None
    ex = _example()
    namespace = {
        "SEED": ex["seed"],
        "COMMITMENT": ex["commitment"],
        "CLIENT_SEEDS": [ex["client seed 1"], ex["client seed 2"]],
    }
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code.group(1), namespace)
    assert out.getvalue().strip() == f"True {[int(d) for d in ex['dice 0-19'].split()]}"
    snippet = namespace["dice"]
    rng = random.Random(1)
    for _ in range(50):
        seed = rng.randbytes(32)
        clients = [f"s{rng.getrandbits(40)}" for _ in range(rng.randrange(3))]
        assert snippet(seed.hex(), clients, 12) == dice.derive_dice(seed, clients, 12)  # type: ignore[operator]


def test_the_key_is_not_the_published_commitment() -> None:
    """Regression: the key was once SHA-256(seed), i.e. the commitment itself, so anyone could
    derive every throw of a game without client seeds from its first event."""
    seed = bytes(range(32))
    public = bytes.fromhex(dice.commitment(seed))
    assert dice.game_key(seed) != public
    key = dice.game_key(seed)
    guessed = [dice.derive_die(public, n) for n in range(64)]
    assert guessed != [dice.derive_die(key, n) for n in range(64)]


def test_client_seeds_are_mixed_in_unambiguously() -> None:
    seed = bytes(32)
    keys = {
        dice.game_key(seed, s).hex()
        for s in ([], ["ab", "c"], ["a", "bc"], ["abc"], ["c", "ab"], [""] * 1)
    }
    assert len(keys) == 6


# -- uniformity -----------------------------------------------------------------------------------

CHI2_5_DOF_P001 = 20.515
"""The chi-square value a fair die exceeds with probability 0.001 (5 degrees of freedom)."""
CHI2_35_DOF_P001 = 66.619
"""The same for ordered pairs of dice (35 degrees of freedom)."""


def test_a_million_derived_dice_are_uniform() -> None:
    key = dice.game_key(bytes.fromhex("5a" * 32), ["chi-square"])
    n = 1_000_000
    started = time.perf_counter()
    derive = dice.derive_die
    throws = [derive(key, i) for i in range(n)]
    seconds = time.perf_counter() - started
    faces = Counter(throws)
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    chi2 = sum((faces[f] - n / 6) ** 2 / (n / 6) for f in range(1, 7))
    assert chi2 < CHI2_5_DOF_P001, (chi2, faces)
    pairs = Counter(zip(throws[::2], throws[1::2], strict=True))
    m = n // 2
    chi2_pairs = sum(
        (pairs[(a, b)] - m / 36) ** 2 / (m / 36) for a in range(1, 7) for b in range(1, 7)
    )
    assert chi2_pairs < CHI2_35_DOF_P001, chi2_pairs
    assert seconds < 30, f"a million dice took {seconds:.1f} s"


def test_the_rejection_rule_is_what_makes_it_uniform() -> None:
    """Without rejecting bytes 252..255, faces 1 to 4 would come up 43 times in 256 and 5, 6
    only 42: the derivation must skip them (and does, see the worked example's block 35)."""
    accepted = Counter(b % 6 + 1 for b in range(252))
    assert set(accepted.values()) == {42}
    biased = Counter(b % 6 + 1 for b in range(256))
    assert sorted(biased.values()) == [42, 42, 43, 43, 43, 43]


# -- games through the table service --------------------------------------------------------------


async def _play(service: TableService, table_id: str, rng: random.Random, games: int) -> None:
    """Two players play random legal games through the service (production dice)."""
    players = ("p-alice", "p-bob")

    async def run(actor: str, command: c.Command) -> None:
        await service.execute(table_id, actor, command, uuid.uuid4())

    await run(players[0], c.CreateTable(kind="money"))
    await run(players[0], c.Join())
    await run(players[1], c.Join())
    finished = 0
    while finished < games:
        state = await service.state(table_id)
        if not state.in_game:
            await run(players[0], c.StartGame())  # a money table waits for the next game
            continue
        game = state.game
        assert game is not None
        number = state.game_no
        if game.phase is Phase.OPENING:
            if not state.dice_counter and not state.client_seeds:
                await run(players[0], c.AddSeed(seed=f"lucky {rng.getrandbits(32)}"))
            await run(players[1], c.Roll())
        elif game.phase is Phase.ROLL:
            me = players[game.turn]
            if game.can_double(game.turn) and rng.random() < 0.03:
                await run(me, c.Double())
            else:
                await run(me, c.Roll())
        elif game.phase is Phase.MOVE:
            plays = game.legal_plays()
            moves = rng.choice(plays).moves if plays else ()
            await run(players[game.turn], c.Move(moves=[(a, b) for a, b in moves]))
        elif game.phase is Phase.DOUBLED:
            assert game.pending is not None
            await run(players[game.pending.responder], c.Take() if rng.random() < 0.7 else c.Drop())
        after = await service.state(table_id)
        if after.game_no != number or not after.in_game:
            finished += 1
    await run(players[0], c.StartGame())  # the next game starts (its seed stays secret)


async def test_throws_rederived_from_revealed_seeds_equal_the_recorded_ones(
    store: EventStore,
) -> None:
    service = TableService(store, Metrics(), seeds=SeedStore(store.pool, CIPHER))
    table_id = str(uuid.uuid4())
    await _play(service, table_id, random.Random(3), games=3)
    records = await store.read_stream(table_stream(table_id))
    events = [e.decode(r.type, r.schema_version, r.data) for r in records]
    checked = 0
    game: dict[str, object] = {}
    for ev in events:
        if isinstance(ev, e.GameStarted):
            game = {"commitment": ev.dice_commitment, "clients": [], "dice": []}
        elif isinstance(ev, e.ClientSeedAdded):
            game["clients"].append(ev.seed)  # type: ignore[attr-defined]
        elif isinstance(ev, (e.OpeningThrow, e.DiceRolled)):
            game["dice"].extend(ev.dice)  # type: ignore[attr-defined]
        elif isinstance(ev, e.GameEnded):
            assert dice.verify(ev.seed, game["commitment"])  # type: ignore[arg-type]
            thrown: list[int] = game["dice"]  # type: ignore[assignment]
            clients: list[str] = game["clients"]  # type: ignore[assignment]
            assert clients, "each game had a client seed"
            assert dice.derive_dice(bytes.fromhex(ev.seed), clients, len(thrown)) == thrown
            # ...and without the players' seeds the same seed gives other dice.
            assert dice.derive_dice(bytes.fromhex(ev.seed), (), len(thrown)) != thrown
            checked += 1
    assert checked == 3
    # The seed of the game in play is secret: it is in dice_seeds, not in any event.
    secret = await store.pool.fetchval(
        "SELECT seed FROM dice_seeds WHERE table_id = $1 AND game = 4", table_id
    )
    assert secret is not None and secret.hex() not in b"".join(r.data for r in records).decode()
    report = await audit_table(store, table_id)
    assert report is not None
    (play,) = report.streams
    assert play.failures == [] and play.dice_verified == [1, 2, 3] and play.pending == [4]


def test_a_throw_that_does_not_match_the_seed_is_caught() -> None:
    table = simulate_table("t", games=2, rng=random.Random(21))
    steps = [list(s.events) for s in table.steps]
    at = next(
        i
        for i, step in enumerate(steps)
        if isinstance(step[0], e.DiceRolled) and i > len(steps) // 4
    )
    roll = steps[at][0]
    assert isinstance(roll, e.DiceRolled)
    steps[at][0] = e.DiceRolled(player=roll.player, dice=(roll.dice[1], roll.dice[0] % 6 + 1))
    records = recorded("t", steps)
    report = audit_records(table_stream("t"), records)
    failure = report.first_failure
    assert failure is not None
    version = sum(len(s) for s in steps[:at]) + 1
    assert (failure.check, failure.version) == ("dice", version), failure


@pytest.mark.parametrize("count", [0, 1, 3])
def test_fair_dice_source_matches_the_derivation(count: int) -> None:
    seeds = {1: bytes(range(32))}
    clients = [f"c{i}" for i in range(count)]
    source = dice.FairDice(seeds)
    assert source.commitment(1) == dice.commitment(seeds[1])
    assert [source.die(1, n, clients) for n in range(30)] == dice.derive_dice(seeds[1], clients, 30)
    assert source.reveal(1) == seeds[1].hex()


def test_fair_dice_never_draw_a_seed_of_their_own() -> None:
    """The service draws a new game's seed before deciding and hands it in; a seed it did not
    hand in is a bug, not a silent new seed whose commitment nobody published."""
    source = dice.FairDice({1: bytes(32)})
    with pytest.raises(LookupError, match="game 2"):
        source.commitment(2)
    with pytest.raises(LookupError):
        source.die(2, 0)
    assert len(dice.draw_seed()) == 32 and dice.draw_seed() != dice.draw_seed()


async def _kept(store: EventStore, table_id: str) -> dict[int, bytes]:
    return await SeedStore(store.pool, CIPHER).load(table_id)


async def test_the_service_keeps_the_seed_of_each_game_it_starts_and_no_other(
    store: EventStore,
) -> None:
    service = TableService(store, Metrics(), seeds=SeedStore(store.pool, CIPHER))
    table_id = str(uuid.uuid4())

    async def run(actor: str, command: c.Command) -> None:
        await service.execute(table_id, actor, command, uuid.uuid4())

    await run("p-ann", c.CreateTable(kind="money"))
    await run("p-ann", c.Join())
    assert await _kept(store, table_id) == {}  # no game started: nothing kept
    await run("p-bob", c.Join())
    state = await service.state(table_id)
    kept = await _kept(store, table_id)
    assert list(kept) == [1] and state.commitment == dice.commitment(kept[1])
    await run("p-ann", c.Roll())
    await run("p-bob", c.Chat(text="good luck"))
    assert await _kept(store, table_id) == kept


async def test_two_processes_drawing_seeds_for_one_game_agree_on_the_first_kept(
    store: EventStore,
) -> None:
    """Another process kept its seed for the game first (and has not appended yet): this one
    decides again with that seed, so the commitment is to the seed that is kept."""
    service = TableService(store, Metrics(), seeds=SeedStore(store.pool, CIPHER))
    table_id = str(uuid.uuid4())
    await service.execute(table_id, "p-ann", c.CreateTable(kind="money"), uuid.uuid4())
    await service.execute(table_id, "p-ann", c.Join(), uuid.uuid4())
    theirs = bytes(range(32))
    seeds = SeedStore(store.pool, CIPHER)
    assert await seeds.keep(table_id, 1, theirs) == theirs
    assert await seeds.keep(table_id, 1, bytes(32)) == theirs  # never replaced
    await service.execute(table_id, "p-bob", c.Join(), uuid.uuid4())
    state = await service.state(table_id)
    assert state.commitment == dice.commitment(theirs)
    assert await _kept(store, table_id) == {1: theirs}


@pytest.mark.parametrize("window", [0, 5])
def test_every_throw_of_a_chouette_derives_from_the_document_alone(window: int) -> None:
    """The recipe of "Check it yourself", followed word for word over every game of a chouette
    (its first game's line throws included, players' seeds added in the window or not), gives
    every die the server threw."""
    code = re.search(r"```python\n(.*?)```", _section("Check it yourself"), re.S)
    assert code is not None
    namespace: dict[str, object] = {"SEED": "00", "COMMITMENT": "", "CLIENT_SEEDS": []}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(code.group(1), namespace)
    snippet = namespace["dice"]
    table = simulate_chouette(
        "doc", games=4, rng=random.Random(window + 3), options=e.TableOptions(seed_window=window)
    )
    games: dict[int, dict[str, Any]] = {}
    current = 0
    for ev in table.events:
        if isinstance(ev, e.GameStarted):
            current = ev.game
            games[current] = {"commitment": ev.dice_commitment, "clients": [], "dice": []}
        elif isinstance(ev, e.ClientSeedAdded):
            games[ev.game]["clients"].append(ev.seed)
        elif isinstance(ev, e.LineThrow):
            games[current]["dice"].extend(ev.throws.values())
        elif isinstance(ev, (e.OpeningThrow, e.DiceRolled)):
            games[current]["dice"].extend(ev.dice)
        elif isinstance(ev, e.GameEnded):
            games[ev.game]["seed"] = ev.seed
    finished = [g for g in games.values() if "seed" in g]
    assert len(finished) >= 4 and any(g["clients"] for g in finished)
    for g in finished:
        assert hashlib.sha256(bytes.fromhex(g["seed"])).hexdigest() == g["commitment"]
        assert snippet(g["seed"], g["clients"], len(g["dice"])) == g["dice"]  # type: ignore[operator]
