"""Outside bots (``chouette bot run``, outside/): a separate process that plays a seat through the
public protocol only, against a real server on a real socket. GNU Backgammon's own program,
through scripts/gnubg-engine and the line protocol, plays a match to its end against the
in-server basic bot; a chouette seat is filled from outside by the basic engine through a whole
game; engines that answer garbage, an illegal play, crash or hang make the bot leave its seat
while the table goes on; a broken handshake is refused before any seat is taken; invitation codes
seat the bot at a private table; argument errors are one readable line."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from server.keys import SOCKETS
from tests.server.bots.test_bots import FAIR, audit_clean, person, seat, wait_until
from tests.server.conftest import Api, User, notations

ROOT = Path(__file__).parents[3]
GNUBG = Path("/usr/games/gnubg")
ADAPTER = ROOT / "scripts" / "gnubg-engine"

needs_gnubg = pytest.mark.skipif(
    not GNUBG.exists() and not os.environ.get("CI"),
    reason="GNU Backgammon's program (/usr/games/gnubg) is not installed (CI installs it)",
)


@pytest.fixture
async def fair(make_api: Callable[..., Awaitable[Api]]) -> Api:
    return await make_api(**FAIR)


def url(api: Api) -> str:
    return str(api.client.make_url("")).rstrip("/")


class BotProcess:
    """A ``chouette bot run`` process and its log."""

    def __init__(self, proc: asyncio.subprocess.Process, log: Path) -> None:
        self.proc = proc
        self.log_path = log

    @property
    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    async def wait(self, timeout: float = 120.0) -> int:
        async with asyncio.timeout(timeout):
            return await self.proc.wait()


@contextlib.asynccontextmanager
async def bot_run(
    api: Api, user: User, tmp_path: Path, engine: str, *args: str
) -> AsyncIterator[BotProcess]:
    """``python -m server bot run`` as ``user`` with ``engine``, stopped (SIGTERM) at the end
    if it is still running."""
    log = tmp_path / f"bot-{len(list(tmp_path.glob('bot-*.log')))}.log"
    with log.open("wb") as err:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "server",
            "bot",
            "run",
            "--url",
            url(api),
            "--token",
            user.token,
            "--engine",
            engine,
            "--log-level",
            "DEBUG",
            *args,
            cwd=ROOT,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=err,
        )
    bot = BotProcess(proc, log)
    try:
        yield bot
    except BaseException:
        # What the bot said, shown with the failure (pytest prints a failed test's stderr).
        print(
            f"--- {log.name}, its last lines:",
            *bot.log.splitlines()[-40:],
            sep="\n",
            file=sys.stderr,
        )
        raise
    finally:
        if proc.returncode is None:
            proc.terminate()
            try:
                await bot.wait(10)
            except TimeoutError:
                proc.kill()
                await proc.wait()


async def until(
    api: Api,
    table: str,
    done: Callable[[dict[str, Any]], bool],
    act: Callable[[dict[str, Any]], Awaitable[bool]] | None = None,
    *,
    user: User,
) -> dict[str, Any]:
    """:func:`wait_until` with the table seen as ``user`` (a private table's creator)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120
    while loop.time() < deadline:
        s = await api.state(table, user)
        if done(s):
            return s
        if act is None or not await act(s):
            await asyncio.sleep(0.02)
    raise AssertionError(f"the table did not get there: {s.get('game')}")


async def audited(api: Api, table: str, user: User) -> None:
    """:func:`audit_clean`, asked by ``user`` (a private table's creator)."""
    r = await api.request("GET", f"/tables/{table}/audit", user=user)
    assert r.status == 200, r.body
    assert r.body["status"] in ("ok", "pending") and not r.body.get("failures"), r.body


def seated(view: dict[str, Any], user: User) -> bool:
    return any(p["id"] == user.account_id for p in view["players"])


def adapter() -> str:
    return f"{sys.executable} {ADAPTER}"


@needs_gnubg
async def test_gnubgs_program_plays_a_match_to_the_end_against_the_basic_bot(
    fair: Api, tmp_path: Path
) -> None:
    api = fair
    ann, robot = await api.register(), await api.register()
    table = await api.create_table(ann, "match", match_length=3)
    async with bot_run(api, robot, tmp_path, adapter(), "--table", table) as bot:
        await wait_until(api, table, lambda s: seated(s, robot))
        inside = (await seat(api, ann, table))["bot_id"]
        end = await wait_until(api, table, lambda s: bool(s.get("match_winner")))
        # The match over, the runner has nothing left to do and exits by itself.
        assert await bot.wait() == 0, bot.log
    assert end["match_winner"] in (robot.account_id, inside)
    assert max(end["score"]) >= 3
    assert {p["id"] for p in end["players"]} == {robot.account_id, inside}
    await audit_clean(api, table)
    log = bot.log
    assert "gnubg-engine (GNU Backgammon" in log, log
    assert f"table={table} joined" in log
    assert f"table={table} the match is over" in log
    # GNU Backgammon's program was asked for plays (and its answers were sent as moves).
    assert f"table={table} move " in log and "'type': 'move'" in log
    assert "leaving" not in log and "Traceback" not in log


async def test_a_chouette_seat_filled_from_outside_through_a_whole_game(
    fair: Api, tmp_path: Path
) -> None:
    api = fair
    ann, robot = await api.register(), await api.register()
    table = await api.create_table(ann, "chouette")
    await api.ok(ann, table, "join")
    await seat(api, ann, table)
    async with bot_run(api, robot, tmp_path, "basic", "--table", table) as bot:
        await wait_until(api, table, lambda s: seated(s, robot))
        await api.ok(ann, table, "start_game")
        rng = random.Random(5)
        roles: set[str] = set()

        async def act(s: dict[str, Any]) -> bool:
            g = s.get("game")
            if g and g["phase"] != "over" and s["in_game"]:
                me = robot.account_id
                team = g["sides"][0]["players"] + g["sides"][1]["players"]
                roles.add("box" if s["box"] == me else "team" if me in team else "")
            return await chouette_person(api, ann, table, rng, s)

        # Whole games, until the outside bot has thrown and played (as the box or the captain).
        end = await until(
            api,
            table,
            lambda s: len(s["history"]) >= 2 and "'type': 'move'" in bot.log,
            act,
            user=ann,
        )
        assert bot.proc.returncode is None, bot.log
    for game in end["history"]:
        # It played every game: as the box, or a member with a settlement of its own.
        assert robot.account_id == game["box"] or robot.account_id in {
            x["member"] for x in game["settlements"]
        }, game
    assert roles - {""}, roles
    await audit_clean(api, table)
    log = bot.log
    assert f"table={table} joined" in log
    assert "'type': 'roll'" in log
    assert "leaving" not in log and "Traceback" not in log


async def test_the_bot_plays_on_through_dropped_connections(fair: Api, tmp_path: Path) -> None:
    """The server drops every socket, again and again, in mid-game: the bot's stream
    reconnects and resumes, and it goes on playing to the end of the game."""
    api = fair
    assert api.app is not None
    ann, robot = await api.register(), await api.register()
    table = await api.create_table(ann, "money")
    await api.ok(ann, table, "join")
    drops = 0

    async def dropper() -> None:
        nonlocal drops
        while True:
            await asyncio.sleep(0.4)
            for ws in list(api.app[SOCKETS]):
                await ws.close()
                drops += 1

    async with bot_run(api, robot, tmp_path, "basic", "--table", table) as bot:
        await wait_until(api, table, lambda s: seated(s, robot))
        task = asyncio.create_task(dropper())
        try:
            end = await wait_until(
                api, table, lambda s: not s["in_game"], person(api, ann, table, random.Random(9))
            )
        finally:
            task.cancel()
        assert bot.proc.returncode is None, bot.log
    assert drops >= 3
    assert seated(end, robot) and end["game"]["result"], end["game"]
    assert end["game"]["result"]["how"] != "forfeit"
    await audit_clean(api, table)
    log = bot.log
    assert log.count("'type': 'move'") >= 3
    assert "leaving" not in log and "Traceback" not in log


DOUBLER = (
    "import sys\n"
    "from outside.decide import Question\n"
    "from outside.engines import BasicEngine\n"
    "basic = BasicEngine()\n"
    "sys.stdin.readline()\n"
    "print('chouette 1 always doubles', flush=True)\n"
    "for line in sys.stdin:\n"
    "    w = line.split()\n"
    "    if w[0] == 'quit':\n"
    "        break\n"
    "    if w[0] == 'move':\n"
    "        q = Question('move', w[1], w[2], (int(w[3]), int(w[4])))\n"
    "        print(basic.decide(q), flush=True)\n"
    "    else:\n"
    "        print({'cube': 'double', 'take': 'take', 'resign': 'decline'}[w[0]], flush=True)\n"
)
"""An engine that plays the basic bot's plays and doubles whenever it may, takes every
double and declines every resignation."""


async def test_the_box_from_outside_doubles_every_members_cube(
    make_api: Callable[..., Awaitable[Api]], tmp_path: Path
) -> None:
    """An engine that says double at every chance: as the box (games are played until the
    line puts it there), the bot doubles every member's cube at once (named by none), each
    member answers on their own cube, and the game is played out."""
    api = await make_api(**FAIR)
    ann, robot = await api.register(), await api.register()
    table = await api.create_table(ann, "chouette")
    await api.ok(ann, table, "join")
    await seat(api, ann, table)
    script = tmp_path / "doubler.py"
    script.write_text(DOUBLER, encoding="utf-8")
    engine = f"{sys.executable} {script}"
    async with bot_run(api, robot, tmp_path, engine, "--table", table) as bot:
        await until(api, table, lambda s: seated(s, robot), user=ann)
        await api.ok(ann, table, "start_game")
        rng = random.Random(11)
        boxes: list[str] = []

        async def act(s: dict[str, Any]) -> bool:
            if s.get("box") and s["in_game"]:
                boxes.append(s["box"])
            return await chouette_person(api, ann, table, rng, s)

        every = "sent {'type': 'double', 'cubes': []}"
        mine = robot.account_id
        end = await until(
            api,
            table,
            lambda s: any(g["box"] == mine for g in s["history"]) and every in bot.log,
            act,
            user=ann,
        )
        assert bot.proc.returncode is None, bot.log
    assert robot.account_id in boxes
    games = [g for g in end["history"] if g["box"] == robot.account_id]
    assert games, end["history"]
    # The box played out a game on its doubled cubes: each member's settled on their own.
    assert {x["member"] for x in games[0]["settlements"]} == {
        p["id"] for p in end["players"] if p["id"] != robot.account_id
    }
    await audited(api, table, ann)
    log = bot.log
    assert "cube " in log and "-> 'double'" in log
    assert "leaving" not in log and "Traceback" not in log


async def chouette_person(
    api: Api, user: User, table: str, rng: random.Random, s: dict[str, Any]
) -> bool:
    """A person in a chouette: throws, plays a random legal play, takes every double,
    declines every resignation; acts only when the table waits for them."""
    g = s.get("game")
    me = user.account_id
    if not s["in_game"]:
        return False
    command: dict[str, Any] | None = None
    if "roll" in s["allowed"] and (g is None or g["phase"] in ("opening", "over")):
        command = {"type": "roll"}
    elif g and me in g["to_act"]:
        for cube in g["cubes"]:
            named = cube["member"] if me == s["box"] else ""
            if cube["in_game"] and cube["pending"] and cube["pending"]["to_answer"] == me:
                command = {"type": "take", "cube": named}
            if cube["in_game"] and cube["resignation"] and cube["resignation"]["to_answer"] == me:
                command = {"type": "decline", "cube": named}
        if command is None and g["on_roll"] == me:
            if g["phase"] in ("roll", "opening") and "roll" in s["allowed"]:
                command = {"type": "roll"}
            elif g["phase"] == "move":
                command = {"type": "move", "notation": rng.choice(notations(g))}
    if command is None:
        return False
    r = await api.send(user, table, command)
    return r.status == 201


HELLO = "import sys, time\nsys.stdin.readline()\nprint('chouette 1 a test engine', flush=True)\n"
"""The handshake, read and answered as the line protocol says."""

ENGINES = {
    # Nonsense to every question.
    "garbage": HELLO + "for line in sys.stdin:\n    print('banana', flush=True)\n",
    # Well-formed answers, but a play that is not legal.
    "illegal": HELLO
    + "for line in sys.stdin:\n"
    + "    w = line.split()\n"
    + "    answers = {'move': '24/1', 'cube': 'roll', 'take': 'take', 'resign': 'decline'}\n"
    + "    print(answers.get(w[0], 'error'), flush=True)\n",
    # A line far past the protocol's 1,000 bytes.
    "long": HELLO + "for line in sys.stdin:\n    print('8/5 ' * 2000, flush=True)\n",
    # Dies at its first question.
    "crash": HELLO + "sys.stdin.readline()\nsys.exit(3)\n",
    # Never answers (the runner's --engine-timeout is 1 s).
    "hang": HELLO + "time.sleep(3600)\n",
}


@pytest.mark.parametrize("kind", sorted(ENGINES))
async def test_an_engine_that_fails_makes_the_bot_leave_and_the_table_goes_on(
    fair: Api, tmp_path: Path, kind: str
) -> None:
    api = fair
    ann, robot = await api.register(), await api.register()
    script = tmp_path / f"{kind}.py"
    script.write_text(ENGINES[kind], encoding="utf-8")
    table = await api.create_table(ann, "money")
    await api.ok(ann, table, "join")
    engine = f"{sys.executable} {script}"
    async with bot_run(
        api, robot, tmp_path, engine, "--table", table, "--engine-timeout", "1"
    ) as bot:
        await wait_until(api, table, lambda s: seated(s, robot))
        end = await wait_until(
            api, table, lambda s: not seated(s, robot), person(api, ann, table, random.Random(7))
        )
        # Its only table left, the runner exits by itself.
        assert await bot.wait(30) == 0, bot.log
    log = bot.log
    assert f"table={table} leaving: the engine failed" in log, log
    why = {
        "garbage": "'banana'",
        "illegal": "play '24/1' is not legal",
        "crash": "exited (status 3)",
        "hang": "within 1 s",
        "long": "longer than 1000 bytes",
    }[kind]
    assert why in log, log
    assert "Traceback" not in log
    # It left in mid-game: a forfeit, as a person walking away (docs/rules.md §10).
    assert not end["in_game"]
    assert dict(end["ledger"]).get(ann.account_id, 0) > 0
    await audit_clean(api, table)
    # The table goes on: another player sits down, which starts the next game.
    again = await seat(api, ann, table)
    assert again["table"]["in_game"] and again["table"]["game"]["number"] == 2


async def test_a_broken_handshake_is_refused_before_any_seat_is_taken(
    api: Api, tmp_path: Path
) -> None:
    ann, robot = await api.register(), await api.register()
    table = await api.create_table(ann, "money")
    script = tmp_path / "rude.py"
    script.write_text("import sys\nsys.stdin.readline()\nprint('hello there', flush=True)\n")
    async with bot_run(api, robot, tmp_path, f"{sys.executable} {script}", "--table", table) as bot:
        assert await bot.wait(30) == 1
    assert "did not answer the handshake with 'chouette 1': 'hello there'" in bot.log
    assert not seated(await api.state(table), robot)


async def test_a_marked_bot_account_sits_as_a_bot(fair: Api, tmp_path: Path) -> None:
    """The account marked a bot account first (``POST /me/bot``, docs/bots.md "Outside
    bots"): its seat shows the badge, its join says so in the log, and the runner, reading
    the mark from ``GET /me``, does not warn."""
    api = fair
    ann, robot = await api.register(), await api.register()
    r = await api.request("POST", "/me/bot", user=robot, json={"password": "correct horse"})
    assert r.status == 200 and r.body["bot"] is True, r.body
    table = await api.create_table(ann, "match", match_length=1)
    async with bot_run(api, robot, tmp_path, "basic", "--table", table) as bot:
        view = await wait_until(api, table, lambda s: seated(s, robot))
        await seat(api, ann, table)
        await wait_until(api, table, lambda s: bool(s.get("match_winner")))
        assert await bot.wait() == 0, bot.log
    assert [p["bot"] for p in view["players"] if p["id"] == robot.account_id] == [True]
    assert "not marked as a bot account" not in bot.log
    await audit_clean(api, table)


async def test_sigint_stops_the_bot_cleanly_and_keeps_its_seat(api: Api, tmp_path: Path) -> None:
    ann, robot = await api.register(), await api.register()
    table = await api.create_table(ann, "money")
    async with bot_run(api, robot, tmp_path, "basic", "--table", table) as bot:
        await wait_until(api, table, lambda s: seated(s, robot))
        bot.proc.send_signal(signal.SIGINT)
        assert await bot.wait(30) == 0, bot.log
    assert "stopped by a signal: the seats are kept" in bot.log
    assert "Traceback" not in bot.log and "KeyboardInterrupt" not in bot.log
    # Its seat is kept, as a person's who closes the page.
    assert seated(await api.state(table), robot)


async def test_a_token_the_server_refuses_is_one_line_and_no_seat(api: Api, tmp_path: Path) -> None:
    ann, robot = await api.register(), await api.register()
    table = await api.create_table(ann, "money")
    wrong = User(token="not-a-token", account_id="", username="", display_name="")
    async with bot_run(api, wrong, tmp_path, "basic", "--table", table) as bot:
        assert await bot.wait(30) == 1
    assert "chouette bot run: the server refused: 401" in bot.log, bot.log
    assert "Traceback" not in bot.log
    assert not seated(await api.state(table), robot)
    assert (await api.state(table))["players"] == []


async def test_an_invitation_code_seats_the_bot_at_a_private_table(
    fair: Api, tmp_path: Path
) -> None:
    api = fair
    ann, robot = await api.register(), await api.register()
    table = await api.create_table(ann, "match", match_length=1, private=True)
    r = await api.request("POST", f"/tables/{table}/invitations", user=ann, json={})
    assert r.status == 201, r.body
    code = r.body["code"]
    # GNU Backgammon's Python module this time (the test extra installs it).
    async with bot_run(api, robot, tmp_path, "gnubg", "--invitation", code) as bot:
        await until(api, table, lambda s: seated(s, robot), user=ann)
        await seat(api, ann, table)
        end = await until(api, table, lambda s: bool(s.get("match_winner")), user=ann)
        assert await bot.wait() == 0, bot.log
    assert f"table={table} redeemed an invitation" in bot.log
    assert "'type': 'move'" in bot.log and "leaving" not in bot.log
    assert max(end["score"]) >= 1
    await audited(api, table, ann)


async def test_accept_invitations_sits_at_the_private_tables_it_is_invited_to(
    fair: Api, tmp_path: Path
) -> None:
    api = fair
    ann, robot = await api.register(), await api.register()
    table = await api.create_table(ann, "match", match_length=1, private=True)
    async with bot_run(api, robot, tmp_path, "basic", "--accept-invitations") as bot:
        r = await api.request("POST", f"/tables/{table}/invitations", user=ann, json={})
        assert r.status == 201, r.body
        # The account redeems the code (its owner opened the link as the bot, say).
        redeemed = await api.request(
            "POST", "/invitations", user=robot, json={"code": r.body["code"]}
        )
        assert redeemed.status == 200, redeemed.body
        await until(api, table, lambda s: seated(s, robot), user=ann)
        await seat(api, ann, table)
        await until(api, table, lambda s: bool(s.get("match_winner")), user=ann)
        # It goes on waiting for invitations, until stopped: a clean stop on SIGTERM.
        await asyncio.sleep(0.5)
        assert bot.proc.returncode is None
        bot.proc.terminate()
        assert await bot.wait(30) == 0, bot.log
    assert f"table={table} invited: sitting down" in bot.log
    assert "stopped by a signal" in bot.log
    await audited(api, table, ann)
