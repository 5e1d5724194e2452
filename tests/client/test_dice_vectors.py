"""The browser's dice check (``server/static/fair/dice.js``) agrees with the server's
(``events/domain/dice.py``): vectors computed here with the Python code, checked by
``tests/client/check_dice_vectors.mjs``, under Node's Web Crypto and again without it (as a
browser on a page served over plain HTTP by a host name, where ``dice.js`` computes with its own
``sha256.js``).

The vectors are plain derivations (seeds, client seeds, keys, dice, a rejected byte) and whole
simulated tables played through the decider with fair dice: a money table whose games have
client seeds and a tied opening throw, and a chouette whose first game throws for the line with
ties (``line_throw``, counters 0..n-1 before the opening throw) and whose later games have client
seeds. Each table's events go to Node as the stream sends them (``{v, s, t, d}``), with what each
game's dice must be; the script also tampers with throws and seeds and expects the failures.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from events.domain import dice as fair
from events.domain import types as e
from events.records.simulate import SimulatedTable, simulate_chouette, simulate_table
from tests.client.node import run_node

CHECK = Path(__file__).resolve().parent / "check_dice_vectors.mjs"


def _thrown(event: e.Event) -> list[int]:
    """The dice an event records, in the order they were thrown."""
    match event:
        case e.OpeningThrow() | e.DiceRolled():
            return list(event.dice)
        case e.LineThrow():
            return list(event.throws.values())
        case _:
            return []


def _messages(events: Iterable[e.Event]) -> list[dict[str, Any]]:
    return [
        {"v": v, "s": "table", "t": e.tag(ev), "d": msgspec.to_builtins(ev)}
        for v, ev in enumerate(events, 1)
    ]


def _games(table: SimulatedTable) -> list[dict[str, Any]]:
    """What each game's dice record is, read from the events, and checked here against the
    Python derivation first (so the vectors hold what the server really does)."""
    games: dict[int, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    for ev in table.events:
        match ev:
            case e.GameStarted():
                current = games[ev.game] = {
                    "game": ev.game,
                    "commitment": ev.dice_commitment,
                    "client_seeds": [],
                    "dice": [],
                    "throws": 0,
                    "line_throws": 0,
                    "seed": "",
                }
            case e.ClientSeedAdded():
                games[ev.game]["client_seeds"].append(ev.seed)
            case e.GameEnded():
                games[ev.game]["seed"] = ev.seed
            case _ if _thrown(ev):
                assert current is not None
                current["dice"].extend(_thrown(ev))
                current["throws"] += 1
                current["line_throws"] += isinstance(ev, e.LineThrow)
    for g in games.values():
        seed = table.seeds[g["game"]]
        assert g["commitment"] == fair.commitment(seed)
        if g["seed"]:
            assert g["seed"] == seed.hex()
        derived = fair.derive_dice(seed, g["client_seeds"], len(g["dice"]))
        assert derived == g["dice"], g["game"]
    return list(games.values())


def _find(
    make: Callable[[random.Random], SimulatedTable],
    wanted: Callable[[list[dict[str, Any]]], bool],
) -> tuple[SimulatedTable, list[dict[str, Any]]]:
    """The first simulated table (rng seeds 0, 1, ...) whose games show what is wanted."""
    for n in range(400):
        table = make(random.Random(n))
        games = _games(table)
        if wanted(games):
            return table, games
    raise AssertionError("no simulated table shows the wanted dice")


def _derivations() -> list[dict[str, Any]]:
    rng = random.Random(20261130)
    client_lists: list[list[str]] = [
        [],
        ["alice-7f3a"],
        ["alice-7f3a", "bob likes sixes"],
        ["ab", "c"],
        ["a", "bc"],
        ["é🎲 ünïcödé", "x" * 128],
    ]
    out = []
    for clients in client_lists:
        seed = rng.randbytes(32)
        out.append(
            {
                "seed": seed.hex(),
                "client_seeds": clients,
                "commitment": fair.commitment(seed),
                "key": fair.game_key(seed, clients).hex(),
                "dice": fair.derive_dice(seed, clients, 60),
            }
        )
    return out


def _rejections() -> list[dict[str, Any]]:
    """Counters whose first block starts with a rejected byte (252..255)."""
    seed = bytes(range(32))
    key = fair.game_key(seed, ["alice-7f3a", "bob likes sixes"])
    out = []
    for n in range(2000):
        digest = hmac.new(key, fair.DOMAIN + f"{n}/0".encode(), hashlib.sha256).digest()
        if digest[0] >= 252:
            out.append({"key": key.hex(), "counter": n, "die": fair.derive_die(key, n)})
        if len(out) == 3:
            break
    assert out
    return out


def _vectors() -> dict[str, Any]:
    money, money_games = _find(
        lambda rng: simulate_table("money", games=3, rng=rng, seed_rate=0.5),
        lambda games: (
            len(games) >= 3
            and any(g["client_seeds"] for g in games)
            and any(len(g["dice"]) > 2 and g["dice"][0] == g["dice"][1] for g in games)
        ),
    )
    chouette, chouette_games = _find(
        lambda rng: simulate_chouette("chouette", games=3, rng=rng),
        lambda games: (
            len(games) >= 3
            and games[0]["line_throws"] >= 2
            and any(g["client_seeds"] for g in games[1:])
        ),
    )
    assert chouette_games[0]["client_seeds"] == []
    return {
        "derivations": _derivations(),
        "rejections": _rejections(),
        "tables": [
            {"name": "money", "events": _messages(money.events), "games": money_games},
            {"name": "chouette", "events": _messages(chouette.events), "games": chouette_games},
        ],
    }


@pytest.mark.parametrize("web_crypto", ["on", "off"])
def test_the_browser_derives_the_servers_dice(tmp_path: Path, web_crypto: str) -> None:
    path = tmp_path / "dice-vectors.json"
    path.write_bytes(msgspec.json.encode(_vectors()))
    run_node(CHECK, env={"CHOUETTE_DICE_VECTORS": str(path), "CHOUETTE_WEB_CRYPTO": web_crypto})
