"""``chouette bot run``'s arguments, refused in one readable line before anything is reached;
the outside bot's pure parts: its reading of table views and its check of engines' answers."""

from __future__ import annotations

import asyncio
import doctest
import os
import random
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

import outside
from engine.matchid import CENTRED, MatchState
from engine.moves import legal_plays
from engine.notation import format_play
from engine.position import Position
from events.domain.bots import CubeContext
from events.gnubg.bot import GnubgBrain
from outside import cli as bot_cli
from outside import decide, engines
from outside.decide import Ask, EngineFailure, Question, Send, answer_of, next_step
from outside.engines import BasicEngine
from server.cli.main import main, parser

ROOT = Path(__file__).parents[3]
TABLE = str(uuid.uuid4())


def test_the_doctests() -> None:
    for module in (outside, decide, engines, bot_cli):
        failed, _ = doctest.testmod(module)
        assert failed == 0, module.__name__
    assert doctest.testmod(decide).attempted >= 4


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--url", "ftp://x", "--token", "t", "--engine", "basic", "--table", TABLE], "--url"),
        (["--url", "http://", "--token", "t", "--engine", "basic", "--table", TABLE], "--url"),
        (["--url", "http://h", "--engine", "basic", "--table", TABLE], "token"),
        (
            ["--url", "http://h", "--token", "a\x01b", "--engine", "basic", "--table", TABLE],
            "token",
        ),
        (["--url", "http://h", "--token", "t", "--engine", " ", "--table", TABLE], "--engine"),
        (["--url", "http://h", "--token", "t", "--engine", "basic", "--table", "nope"], "UUID"),
        (["--url", "http://h", "--token", "t", "--engine", "basic"], "nothing to play"),
        (
            ["--url", "http://h", "--token", "t", "--engine", "basic", "--invitation", "a\nb"],
            "--invitation",
        ),
        (
            [
                "--url",
                "http://h",
                "--token",
                "t",
                "--engine",
                "basic",
                "--table",
                TABLE,
                "--engine-timeout",
                "0",
            ],
            "--engine-timeout",
        ),
    ],
)
def test_bad_arguments_are_one_readable_line(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CHOUETTE_BOT_TOKEN", raising=False)
    assert main(["bot", "run", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("chouette bot run: ") and said in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_missing_arguments_are_argparses_usage_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "server", "bot", "run", "--token", "t"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "the following arguments are required: --url, --engine" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_server_that_is_not_there_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    # Port 9 (discard) on the loopback: nothing listens there.
    argv = ["bot", "run", "--url", "http://127.0.0.1:9", "--token", "t", "--engine", "basic"]
    assert main([*argv, "--table", TABLE]) == 1
    err = capsys.readouterr().err
    assert "chouette bot run: cannot reach http://127.0.0.1:9" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("token", ["-Ab3_x", "--Ab3", "-t"])
def test_a_token_that_begins_with_a_dash_is_the_tokens_value(token: str) -> None:
    # One token in 64 from secrets.token_urlsafe starts with "-": argparse took it for an
    # option ("--token: expected one argument") and the bot never started.
    argv = ["bot", "run", "--url", "http://h", "--token", token, "--engine", "basic"]
    args = parser().parse_args(bot_cli.glued([*argv, "--invitation", "-code"]))
    assert bot_cli.check(args) is None
    assert (args.token, args.invitation) == (token, ["-code"])


START = "4HPwATDgc/ABMA"
MONEY = "cAkAAAAAAAAA"


def test_a_view_waiting_for_nobody_is_nothing_to_do() -> None:
    assert next_step({"kind": "money", "in_game": False, "allowed": ["roll"]}, "me") is None
    view = {"kind": "match", "in_game": True, "match_winner": "x", "allowed": ["leave"]}
    assert next_step(view, "me") is None
    assert next_step({"kind": "money", "in_game": True, "allowed": ["waive_seed"]}, "me") == Send(
        {"type": "waive_seed"}
    )


def test_the_box_doubles_the_cubes_its_engine_picks() -> None:
    cubes = [
        {"member": "a", "match_id": "A" * 12},
        {"member": "b", "match_id": "B" * 12},
    ]
    view = {
        "kind": "chouette",
        "in_game": True,
        "box": "me",
        "allowed": ["double", "roll", "leave"],
        "targets": {"double": ["a", "b"]},
        "options": {"cube_mode": "per_member"},
        "game": {"phase": "roll", "on_roll": "me", "position_id": START, "cubes": cubes},
    }
    step = next_step(view, "me")
    assert isinstance(step, Ask)
    assert [q.line() for q in step.questions] == [
        f"cube {START} {'A' * 12}",
        f"cube {START} {'B' * 12}",
    ]
    assert step.finish(["roll", "double"]) == {"type": "double", "cubes": ["b"]}
    assert step.finish(["double", "double"]) == {"type": "double", "cubes": []}
    assert step.finish(["roll", "roll"]) == {"type": "roll"}


def test_a_member_answers_on_its_own_cube_and_the_box_names_the_member() -> None:
    cubes = [{"member": "me", "match_id": MONEY}, {"member": "other", "match_id": "C" * 12}]
    game = {"phase": "roll", "on_roll": "box", "position_id": START, "cubes": cubes}
    member = {"kind": "chouette", "in_game": True, "box": "box", "game": game}
    step = next_step({**member, "allowed": ["take", "drop", "beaver"]}, "me")
    assert isinstance(step, Ask) and step.questions[0].line() == f"take {START} {MONEY} beaver"
    assert step.finish(["drop"]) == {"type": "drop", "cube": ""}
    box = {**member, "box": "me", "allowed": ["take", "drop"], "targets": {"take": ["other"]}}
    step = next_step(box, "me")
    assert isinstance(step, Ask) and step.questions[0].match_id == "C" * 12
    assert step.finish(["take"]) == {"type": "take", "cube": "other"}


def test_answers_are_checked_before_anything_is_sent() -> None:
    move = Question("move", START, MONEY, (6, 5))
    assert answer_of(move, "24/13") == [[24, 18], [18, 13]]
    assert answer_of(move, "  24/18   18/13 ") == [[24, 18], [18, 13]]
    for bad in ("24/1", "", "pass", "13/7", "24/18 13/7 8/2", "\x00", "x" * 500):
        with pytest.raises(EngineFailure):
            answer_of(move, bad)
    assert answer_of(Question("cube", START, MONEY), "Double") == "double"
    with pytest.raises(EngineFailure):
        answer_of(Question("cube", START, MONEY), "take")
    assert answer_of(Question("take", START, MONEY, beaver=True), "beaver") == "beaver"
    with pytest.raises(EngineFailure):
        answer_of(Question("resign", START, MONEY, level=1), "maybe")


def test_the_basic_engine_answers_from_the_ids_alone() -> None:
    basic = BasicEngine()
    assert basic.decide(Question("move", START, MONEY, (3, 1))) == "8/5 6/5"
    assert basic.decide(Question("cube", START, MONEY)) == "roll"
    # A race won by miles for the player on roll (all home against checkers far back).
    won = Position.from_points({1: 8, 2: 7}, {19: 5, 13: 5, 12: 5})
    assert basic.decide(Question("cube", won.position_id(), MONEY)) == "double"
    # The doubler is on roll, the Match ID's turn the taker: this one drops.
    assert basic.decide(Question("take", won.position_id(), "MBkAAAAAAAAA")) == "drop"
    # Offered a single by the loser (on roll, MCkA...: the answerer to act), it declines: a
    # gammon is likelier; offered one by the player on roll who is winning, it accepts.
    offer = "MCkAAAAAAAAA"
    assert basic.decide(Question("resign", won.swap().position_id(), offer, level=1)) == "decline"
    assert basic.decide(Question("resign", won.position_id(), offer, level=1)) == "accept"


def test_a_view_cannot_slip_a_line_into_the_engines_protocol() -> None:
    """Whatever the server's view says is checked before it is written to an engine: a
    Position or Match ID with a newline (or anything but its characters) is refused."""
    game = {"phase": "move", "on_roll": "me", "dice": [3, 1], "legal_plays": [{"notation": "x"}]}
    view = {"kind": "money", "in_game": True, "allowed": ["move"], "game": game}
    for position_id, match_id in ((START + "\nquit", MONEY), (START, MONEY[:11] + "\n")):
        game.update(position_id=position_id, cubes=[{"member": None, "match_id": match_id}])
        with pytest.raises(ValueError, match="not a"):
            next_step(view, "me")
    with pytest.raises(ValueError, match="not dice"):
        Question("move", START, MONEY, (7, 1))


ADAPTER = ROOT / "scripts" / "gnubg-engine"


@pytest.mark.skipif(
    not Path("/usr/games/gnubg").exists() and not os.environ.get("CI"),
    reason="GNU Backgammon's program (/usr/games/gnubg) is not installed (CI installs it)",
)
def test_the_gnubg_adapter_speaks_the_line_protocol() -> None:
    questions = [
        "chouette 1",
        f"move {START} {MONEY} 3 1",
        f"move {START} {MONEY} 6 6",
        f"cube {START} {MONEY}",
        "take APg+8AH//gAAAA MBkAAAAAAAAA",
        "cube APg+8AH//gAAAA cAkAAAAAAAAA",
        f"resign {START} MCkAAAAAAAAA 3",
        "banana",
        f"move {START}\x7f {MONEY} 3 1",
        f"move {START} {MONEY} 9 1",
        "quit",
    ]
    done = subprocess.run(
        [sys.executable, str(ADAPTER)],
        input="\n".join(questions) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("chouette 1 gnubg-engine (GNU Backgammon")
    answers = lines[1:]
    assert answers[:2] == ["8/5 6/5", "24/18(2) 13/7(2)"]
    # Each answer passes the runner's own check.
    assert answer_of(Question("move", START, MONEY, (6, 6)), answers[1])
    assert answers[2] == "roll"
    # All home against checkers far back: the doubler is on roll, the taker passes; the
    # player on roll there doubles.
    assert answers[3:5] == ["drop", "double"]
    assert answers[5] == "accept"
    assert [a.split()[0] for a in answers[6:]] == ["error", "error", "error"]
    refused = subprocess.run(
        [sys.executable, str(ADAPTER)], input="hello\n", capture_output=True, text=True, timeout=60
    )
    assert refused.returncode == 2 and refused.stdout.startswith("error")


def _context(m: MatchState, player: int) -> CubeContext:
    """The decider's CubeContext for ``player`` of a Match ID (events/domain/bots.py)."""
    return CubeContext(
        value=m.cube,
        owner=None if m.owner == CENTRED else (0 if m.owner == player else 1),
        match_length=m.match_length,
        score=(m.score[player], m.score[1 - player]),
        crawford=m.crawford,
    )


def test_the_gnubg_engine_judges_as_the_in_server_gnubg_bots() -> None:
    """``--engine gnubg`` answers every question as the server's own ``gnubg`` bot would at
    the same position, cube and score (events.gnubg.bot.GnubgBrain with the decider's
    CubeContext): plays, money and match cubes, takes and resignations."""
    engine = engines.GnubgModuleEngine()
    asyncio.run(engine.start())
    brain = GnubgBrain(ply=0)
    rng = random.Random(7)
    won = Position.from_points({1: 8, 2: 7}, {19: 5, 13: 5, 12: 5})
    close = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 4, 24: 2, 20: 1})
    scores = [
        MatchState(),  # money, centred
        MatchState(cube=2, owner=0),  # money, the player on roll owns a 2
        MatchState(match_length=5, score=(2, 3)),
        MatchState(match_length=5, score=(3, 4), crawford=True),
        MatchState(match_length=5, score=(1, 4)),  # after the Crawford game: trailer on roll
        MatchState(match_length=7, score=(4, 1), cube=2, owner=1, move=1, turn=1),
    ]
    answers: set[str] = set()
    for position in (won, close, won.swap(), close.swap()):
        pid = position.position_id()
        for m in scores:
            context = _context(m, m.move)
            cube = engine.decide(Question("cube", pid, m.match_id()))
            assert cube == ("double" if brain.double(position, context) else "roll")
            take = engine.decide(Question("take", pid, m.match_id()))
            assert take == ("take" if brain.take(position, context) else "drop")
            # Offered by the player on roll; the Match ID's turn is the answerer.
            offer = m._replace(turn=1 - m.move)
            said = engine.decide(Question("resign", pid, offer.match_id(), level=1))
            assert said == ("accept" if brain.accept(position, 1, context) else "decline")
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            plays = legal_plays(position, dice).plays
            if plays:
                expected = format_play(position, brain.play(position, dice, plays).moves)
                assert engine.decide(Question("move", pid, m.match_id(), dice)) == expected
            answers |= {cube, take, said}
    # Not one answer everywhere: the questions tell the positions and scores apart.
    assert {"double", "roll", "take", "drop"} <= answers
