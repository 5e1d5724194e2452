"""The analysis read model (with the extra): GNU Backgammon's analysis of a table's export read
back onto its players and events; its figures are GNU Backgammon's own statistics."""

from __future__ import annotations

import pytest

from events.domain import types as e
from events.domain.bots import BasicBrain, Brain
from events.gnubg.analysis import analyse_with_module, parse_export
from events.records.analysis import analyse_table, units_of
from tests.events.bots.bot_play import play_table

pytest.importorskip("gnubg")


def _events(kind: str, names: tuple[str, ...], seed: int, **kw: object) -> list[e.Event]:
    brains: dict[str, Brain] = {n: BasicBrain() for n in names}
    table = play_table(kind, brains, seed=seed, **kw)  # type: ignore[arg-type]
    return [ev for step in table.steps for ev in step.events]


def _overall(stats: dict[str, dict[str, float]], prefix: str) -> dict[str, float]:
    # The statistics list checker, cube and overall rows under the same label: the last wins,
    # the overall one.
    return next(v for k, v in reversed(stats.items()) if k.startswith(prefix))


@pytest.mark.parametrize(("kind", "options"), [("match", {"match_length": 3}), ("money", {})])
def test_a_tables_figures_are_gnubgs_own_statistics(kind: str, options: dict[str, int]) -> None:
    events = _events(kind, ("ann", "bob"), 8, games=2, options=e.TableOptions(**options))
    texts: list[str] = []

    def run(mat: str, ply: int) -> list[str]:
        texts.extend(analyse_with_module(mat, ply))
        return texts

    doc = analyse_table(events, 0, run=run)
    assert doc["kind"] == kind and doc["ply"] == 0 and texts
    assert 0 < len(doc["games"]) <= len(texts)  # the finished games (the last may not be)
    names = {"Zero": 0, "One": 1}
    compared = 0
    for game, text in zip(doc["games"], texts, strict=False):
        if game["unmatched"]:
            continue  # GNU Backgammon's statistics count a move the game does not have
        compared += 1
        stats = parse_export(text).stats
        rate = _overall(stats, "Error rate mEMG")
        luck = _overall(stats, "Luck total EMG")
        seats = [d["player"] for d in game["decisions"]]
        assert set(seats) <= {"ann", "bob"}
        for name, seat in names.items():
            player = ("ann", "bob")[seat]
            mine = game["players"].get(player)
            if mine is None:
                continue
            # Each equity in the export is rounded to 0.001: a rate per decision is then known
            # to 0.5 mEMG (plus its own rounding), a total to 0.0005 per roll.
            assert mine["error_rate_memg"] == pytest.approx(-rate[name], abs=0.55), (name, text)
            tolerance = 0.0005 * (mine["checker_plays"] + 2) + 0.0005
            assert mine["luck_total_emg"] == pytest.approx(luck[name], abs=tolerance)
    assert compared
    decisions = [d for g in doc["games"] for d in g["decisions"]]
    plays = [d for d in decisions if d["kind"] == "play"]
    assert plays and all(d["version"] for d in decisions)
    for d in decisions:
        assert d["equity_lost"] >= 0
        assert d["mark"] == (
            "blunder" if d["equity_lost"] >= 0.08 else "error" if d["equity_lost"] >= 0.04 else ""
        )
        if d["equity_lost"] == 0 and d["kind"] == "play":
            assert d["action"] == d["best"]
    # The versions are the events the decisions were made at, in order.
    versions = [d["version"] for d in plays]
    assert versions == sorted(versions) and len(set(versions)) == len(versions)
    total = sum(p["decisions"] for p in doc["players"].values())
    assert total == sum(len(g["decisions"]) for g in doc["games"])


def test_a_chouettes_cubes_are_each_members_and_its_plays_the_acting_captains() -> None:
    events = _events("chouette", ("ann", "bob", "cat"), 3, games=2)
    calls: list[int] = []
    doc = analyse_table(events, 0, progress=calls.append)
    assert units_of(events) >= 2 and calls == [1] * units_of(events)  # one per member
    captains: dict[int, str] = {}
    state = None
    from events.domain.decider import evolve
    from events.domain.table import TableState

    state = TableState()
    boxes: dict[int, str] = {}
    for ev in events:
        before = state
        state = evolve(state, ev)
        ch = before.chouette
        if ch is not None and ch.game is not None:
            captains[state.version] = ch.game.captain
            boxes[ch.game.number] = ch.game.box
    cube_players: set[tuple[str, str]] = set()
    for game in doc["games"]:
        box = boxes[game["number"]]
        plays = [d for d in game["decisions"] if d["kind"] == "play"]
        assert plays
        # Each play once, credited to the box or to whoever was captain when it was made.
        assert len({d["version"] for d in plays}) == len(plays)
        for d in plays:
            assert d["player"] in (box, captains[d["version"]])
            assert d["cube"] == captains[d["version"]]
        for d in game["decisions"]:
            if d["kind"] != "play":
                # A cube decision is the box's or the cube's owner's own.
                assert d["player"] in (box, d["cube"])
                cube_players.add((d["player"], d["cube"]))
    assert any(p == c for p, c in cube_players)  # members' own cube decisions
    assert any(p != c for p, c in cube_players)  # the box's, per cube


def test_the_ply_is_checked() -> None:
    events = _events("match", ("ann", "bob"), 8, options=e.TableOptions(match_length=1))
    with pytest.raises(ValueError, match="ply"):
        analyse_table(events, 3)


def test_beavers_keep_the_decisions_on_their_events() -> None:
    """A beaver reaches GNU Backgammon as the doubled player's own double: the decisions after
    it stay on their own events (each double or answer on a cube event of that player)."""
    import random

    from events.records.gamelog import table_log
    from events.records.simulate import simulate_table

    table = simulate_table(
        "b",
        rng=random.Random(0),
        games=3,
        options=e.TableOptions(beavers=True),
        double_rate=0.3,
        drop_rate=0.1,
    )
    log = table_log(table.events)
    assert any(en.kind == "beaver" for g in log.games for en in g.entries)
    kinds = {en.version: en.kind for g in log.games for en in g.entries}
    doc = analyse_table(table.events[: max(v for v in kinds) + 1], 0)
    cube = [d for g in doc["games"] for d in g["decisions"] if d["kind"] != "play"]
    assert cube
    for d in cube:
        if d["kind"] == "take":
            assert kinds[d["version"]] in ("take", "drop"), d
        elif d["action"] in ("double", "redouble"):
            assert kinds[d["version"]] in ("double", "beaver"), d
    plays = [d for g in doc["games"] for d in g["decisions"] if d["kind"] == "play"]
    assert all(kinds[d["version"]] == "roll" for d in plays)
