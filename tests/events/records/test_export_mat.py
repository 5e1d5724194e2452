"""Export to GNU Backgammon's ``.mat`` format, checked by GNU Backgammon itself.

Random tables are played through the decider (:func:`events.records.simulate.simulate_table`),
exported
with :func:`events.records.mat_export.export_mat`, and imported into GNU Backgammon (the ``gnubg``
package,
a test-only oracle) with ``import mat``. Every play must read back with the same dice, from the
same position (Position ID) to the same position, and every cube action by the same player, in
the same order; each game's winner and points too.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import gnubg
import pytest

from engine.matfile import MatAction, MatGame, MatMatch, parse_mat, write_mat
from engine.moves import apply_moves
from engine.position import Position
from events.domain import types as e
from events.records.gamelog import GameLog, chouette_log, table_log
from events.records.mat_export import export_chouette, export_mat, member_record
from events.records.mat_import import import_mat
from events.records.simulate import SimulatedTable, simulate_chouette, simulate_table
from tests.engine_corpus import gnubg_quiet

PLAYER = {"X": 0, "O": 1}


def gnubg_import(text: str, path: Path, *, jacoby: bool = False) -> dict[str, Any]:
    path.write_text(text, encoding="utf-8")
    with gnubg_quiet():
        gnubg.command(f"set jacoby {'on' if jacoby else 'off'}")
        gnubg.command(f"import mat {path}")
    match = gnubg.match()
    assert match is not None, f"GNU Backgammon could not import {path}:\n{text[:2000]}"
    return match


def _expected(game: GameLog) -> list[tuple[Any, ...]]:
    """Our game as GNU Backgammon should read it: plays ``(move, player, dice, position before,
    position after)`` and cube actions ``(action, player)``; a beaver is GNU Backgammon's
    redouble by the doubled player. Nothing after the game's end (a drop, an accepted
    resignation) is listed."""
    out: list[tuple[Any, ...]] = []
    for x in game.entries:
        if x.kind == "roll":
            assert x.dice is not None and x.seat is not None
            before = Position.from_id(x.position_id)
            after = apply_moves(before, x.dice, x.moves)
            out.append(("move", x.seat, tuple(x.dice), x.position_id, after))
        elif x.kind in ("double", "beaver", "take", "drop"):
            out.append(("double" if x.kind == "beaver" else x.kind, x.seat))
        elif x.kind == "accept":
            assert x.seat is not None
            out.append(("resign", 1 - x.seat))
    return out


def _read_back(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """GNU Backgammon's records in the same shape, up to the end of the game."""
    out: list[tuple[Any, ...]] = []
    for r in records:
        player = PLAYER[r["player"]]
        if r["action"] == "move":
            after = _apply_in_some_order(Position.from_id(r["board"]), r["dice"], r["move"])
            out.append(("move", player, tuple(r["dice"]), r["board"], after))
        else:
            out.append((r["action"], player))
        if r["action"] in ("drop", "resign"):
            break  # in money play GNU Backgammon lists a stray double after a drop
    return out


def _answered(seq: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Without the doubles nobody answered. GNU Backgammon's ``match()`` lists a stray
    ``double`` next to some game ends (after a drop, before a resignation that follows a take);
    a real double is always answered by a take, a drop or a redouble (a beaver) — unless the
    record stops while it is pending, which this drops on both sides alike."""
    out = []
    for i, item in enumerate(seq):
        nxt = seq[i + 1] if i + 1 < len(seq) else None
        if item[0] == "double" and not (
            nxt is not None
            and (nxt[0] in ("take", "drop") or (nxt[0] == "double" and nxt[1] != item[1]))
        ):
            continue
        out.append(item)
    return out


def _apply_in_some_order(
    before: Position, dice: tuple[int, int], moves: tuple[tuple[int, int], ...]
) -> Position | None:
    """GNU Backgammon lists a play's moves highest point first, which is not always an order
    they can be made in (``5/4 6/5``): the position after them, in an order that works."""
    for order in dict.fromkeys(itertools.permutations(moves)):
        try:
            return apply_moves(before, dice, order)
        except ValueError:
            continue
    return None


def assert_round_trip(table: SimulatedTable, tmp_path: Path) -> int:
    """Export, import into GNU Backgammon, compare; the number of plays compared."""
    text = export_mat(table.events)
    options = table.state.options
    match = gnubg_import(text, tmp_path / "table.mat", jacoby=options.jacoby)
    log = table_log(table.events)
    theirs = match["games"]
    assert len(theirs) == len(log.games), text
    plays = 0
    for ours, them in zip(log.games, theirs, strict=True):
        expected = _answered(_expected(ours))
        got = _answered(_read_back(list(them["game"])))
        assert got == expected, f"game {ours.number} differs:\n{text}"
        plays += sum(1 for x in expected if x[0] == "move")
        info = them["info"]
        if ours.winner is None:
            assert info.get("winner") is None
        else:
            assert PLAYER[info["winner"]] == ours.winner, f"game {ours.number}"
            assert info["points-won"] == ours.points, f"game {ours.number}"
            score = (info["score-X"], info["score-O"])
            assert score == ours.score, f"game {ours.number}"
    assert match["match-info"]["match-length"] == log.match_length
    return plays


def test_fifty_money_games_read_back_in_gnubg(tmp_path: Path) -> None:
    table = simulate_table("money-50", games=50, rng=random.Random(50), resign_rate=0.01)
    games = table_log(table.events).games
    assert sum(g.winner is not None for g in games) == 50
    kinds = {x.kind for g in games for x in g.entries}
    assert {"roll", "double", "take", "drop", "accept"} <= kinds
    assert {g.how for g in games} >= {"bear_off", "drop", "resign"}
    assert assert_round_trip(table, tmp_path) > 50 * 20


def test_money_games_with_beavers_and_jacoby_read_back(tmp_path: Path) -> None:
    options = e.TableOptions(beavers=True, jacoby=True)
    table = simulate_table(
        "money-bj", games=30, options=options, rng=random.Random(7), double_rate=0.08
    )
    kinds = [x.kind for g in table_log(table.events).games for x in g.entries]
    assert "beaver" in kinds
    assert assert_round_trip(table, tmp_path) > 0


def test_matches_read_back_in_gnubg(tmp_path: Path) -> None:
    crawford = post_crawford_doubles = 0
    for seed in (1, 2, 3, 6):  # seed 6 has a Crawford game and a double after it
        options = e.TableOptions(match_length=5)
        table = simulate_table(
            f"match-{seed}",
            games=99,
            kind="match",
            options=options,
            rng=random.Random(seed),
            double_rate=0.03,
        )
        assert table.state.match_winner
        log = table_log(table.events)
        crawford += sum(g.crawford for g in log.games)
        after = [g for i, g in enumerate(log.games) if i and log.games[i - 1].crawford]
        post_crawford_doubles += sum(x.kind == "double" for g in after for x in g.entries)
        assert assert_round_trip(table, tmp_path) > 0
    assert crawford and post_crawford_doubles


def test_a_game_in_play_exports_as_far_as_it_went(tmp_path: Path) -> None:
    table = simulate_table("open", games=2, rng=random.Random(11), finish=False)
    log = table_log(table.events)
    assert log.games[-1].winner is None
    assert assert_round_trip(table, tmp_path) > 0


# -- the .mat reader and writer -------------------------------------------------------------------


def test_write_then_parse_keeps_every_action() -> None:
    table = simulate_table("rw", games=5, rng=random.Random(3), resign_rate=0.01)
    text = export_mat(table.events)
    back = parse_mat(text)
    log = table_log(table.events)
    assert back.length == 0
    assert len(back.games) == len(log.games)
    for mat, ours in zip(back.games, log.games, strict=True):
        assert mat.score == ours.score
        assert (mat.winner, mat.points) == (ours.winner, ours.points)
        rolls = [a for a in mat.actions if a.kind == "roll"]
        assert [r.dice for r in rolls] == [x.dice for x in ours.entries if x.kind == "roll"]


def test_import_round_trips_events(tmp_path: Path) -> None:
    """A .mat file imported as a table exports to the same file."""
    table = simulate_table("imp", games=8, rng=random.Random(8), resign_rate=0.01)
    text = export_mat(table.events)
    steps = import_mat(text, "imported")
    events = [ev for step in steps for ev in step]
    again = export_mat(events)
    assert _games_part(again) == _games_part(text)


def _games_part(text: str) -> str:
    """The text from the ``point match`` line on, with player ids' prefixes ignored."""
    return text[text.index("point match") :]


def test_import_refuses_an_illegal_play_with_its_place() -> None:
    text = " 1 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/4 6/5\n"
    with pytest.raises(ValueError, match=r"game 1, entry 1 .*8/4"):
        import_mat(text, "bad")


def test_import_reads_gnubg_joined_notation() -> None:
    """Files from other programs join a checker's moves (``24/13``); the importer reads them."""
    text = (
        " 3 point match\n\n Game 1\n alice : 0                  bob : 0\n"
        "  1) 65: 24/13                    52: 13/11 13/8\n"
        "  2)  Doubles => 2                 Drops\n"
        "                                    Wins 1 point\n"
    )
    steps = import_mat(text, "joined")
    moved = [ev for step in steps for ev in step if isinstance(ev, e.CheckersMoved)]
    assert [m.moves for m in moved] == [[(24, 18), (18, 13)], [(13, 11), (13, 8)]]
    ended = [ev for step in steps for ev in step if isinstance(ev, e.GameEnded)]
    assert (ended[0].winner, ended[0].result * ended[0].cube) == ("mat:alice", 1)


def test_names_that_would_break_the_format_are_cleaned() -> None:
    game = MatGame(1, (0, 0), (MatAction(0, "roll", (3, 1), ((8, 5), (6, 5))),))
    text = write_mat(MatMatch(1, ("Game master: 1", "b"), (game,)))
    back = parse_mat(text)
    assert len(back.games) == 1
    assert back.games[0].actions[0].text == "8/5 6/5"
    assert ":" not in back.games[0].names[0]  # type: ignore[index]


# -- chouettes ------------------------------------------------------------------------------------


def _expected_member(game: MatGame) -> list[tuple[Any, ...]]:
    """A member's game as GNU Backgammon should read it, positions replayed from the start."""
    out: list[tuple[Any, ...]] = []
    position = Position.start()  # seen by player 0, the box
    for a in game.actions:
        if a.kind == "roll":
            assert a.dice is not None
            seen = position if a.player == 0 else position.swap()
            after = apply_moves(seen, a.dice, a.moves)
            out.append(("move", a.player, tuple(a.dice), seen.position_id(), after))
            position = after if a.player == 0 else after.swap()
        elif a.kind in ("double", "beaver", "take", "drop"):
            out.append(("double" if a.kind == "beaver" else a.kind, a.player))
        elif a.kind == "win":
            out.append(("resign", 1 - a.player))
    return out


def test_chouette_member_files_read_back_in_gnubg(tmp_path: Path) -> None:
    """Each team member's file is the shared checker play with that member's own cube: every
    play and every action on that member's cube reads back in GNU Backgammon."""
    options = e.TableOptions(beavers=True)
    table = simulate_chouette(
        "ch", games=8, options=options, rng=random.Random(4), double_rate=0.08, resign_rate=0.01
    )
    files = export_chouette(table.events)
    assert set(files) == {"ann.mat", "bob.mat", "cat.mat", "dan.mat", "chouette.json"}
    log = chouette_log(table.events)
    kinds: set[str] = set()
    for name in ("ann", "bob", "cat", "dan"):
        record = member_record(table.events, name)
        on_team = [g for g in log.games if name in g.members]
        assert len(record.games) == len(on_team)
        match = gnubg_import(files[f"{name}.mat"], tmp_path / f"{name}.mat")
        theirs = match["games"]
        assert len(theirs) == len(record.games)
        for ours, them, g in zip(record.games, theirs, on_team, strict=True):
            got = _answered(_read_back(list(them["game"])))
            assert got == _answered(_expected_member(ours)), (name, g.number)
            kinds |= {a.kind for a in ours.actions}
            result = g.members[name]
            if result.winner is not None:
                assert PLAYER[them["info"]["winner"]] == result.winner
                assert them["info"]["points-won"] == result.points
    assert {"roll", "double", "take", "drop", "beaver"} <= kinds


def test_the_chouette_json_document() -> None:
    table = simulate_chouette("doc", games=3, rng=random.Random(2), double_rate=0.1)
    doc = json.loads(export_chouette(table.events)["chouette.json"])
    assert doc["kind"] == "chouette" and len(doc["games"]) == 4
    first = doc["games"][0]
    assert first["box"] == first["line"][0] and first["captain"] == first["line"][1]
    assert first["dice_seed"] and first["dice_commitment"]
    assert sum(s["amount"] for g in doc["games"] for s in g["settlements"]) == 0
    assert sum(doc["ledger"].values()) == 0
    plays = [x for x in first["events"] if x["type"] == "checkers_moved"]
    assert plays and all(x["notation"] == x["text"].split(": ", 1)[1] for x in plays)
    assert all(m["result"] for m in first["members"].values())


def test_import_reads_a_beaver_taken_by_the_next_roll() -> None:
    """XG and Jellyfish write ``Beavers => n`` and let the doubler's next roll take it."""
    text = (
        '\ufeff; [Site "elsewhere"]\n; [Beaver "On"]\n\n 0 point match\n\n Game 1\n'
        " alice : 0                  bob : 0\n"
        "  1) 31: 8/5 6/5                   Doubles => 2\n"
        "  2)  Beavers => 4                 64: 24/18 13/9\n"
        "  3) 52: 13/11 13/8\n"
    )
    steps = import_mat(text, "beaver")
    kinds = [e.tag(ev) for step in steps for ev in step]
    assert kinds[kinds.index("cube_offered") :][:4] == [
        "cube_offered",
        "cube_beavered",
        "cube_taken",
        "dice_rolled",
    ]


def test_cannot_move_and_question_marks_read_as_no_play() -> None:
    text = (
        " 1 point match\n\n Game 1\n a : 0                   b : 0\n"
        "  1) 31: Cannot Move               52: ????\n"
    )
    actions = parse_mat(text).games[0].actions
    assert [(a.player, a.dice, a.text) for a in actions] == [(0, (3, 1), ""), (1, (5, 2), "")]
