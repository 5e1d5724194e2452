"""GNU Backgammon's own analysis of a ``.mat`` record, and its text export read back.

GNU Backgammon analyses a match it has imported (``import mat``, ``analyse match``) and writes
the analysis as text (``export match text``: one file per game). Two ways to run it:

- :func:`analyse_with_module`: the ``gnubg`` Python module (the ``chouette[gnubg]`` extra), in
  this process. The module keeps one current match in global state, so a process runs one
  analysis at a time: the server calls it in a worker process (:mod:`server.http.analysis`).
- :func:`analyse_with_cli`: the ``gnubg`` program (Debian's package ``gnubg``), in a
  subprocess: for the tests and the benchmark that compare the two.

:func:`parse_export` reads the text export: for each move, who acted, what they did, the cube
analysis (cubeful equities of no double, double/take, double/pass and the proper action), the
luck of the roll and the ranked candidate plays with their equities and losses; and GNU
Backgammon's own per-game statistics (error and luck rates), which the tests compare with the
figures :mod:`events.records.analysis` derives.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "Block",
    "Candidate",
    "CubeAnalysis",
    "ExportedGame",
    "analyse_with_cli",
    "analyse_with_module",
    "cli_path",
    "module_data",
    "parse_export",
]

_THREADS = "set threads 1"
"""The module's analysis hangs with its default worker threads in a library build."""


def _rules(mat_text: str) -> list[str]:
    """The money rules the record's header states (``; [Jacoby "On"]``, ``; [Beaver "Off"]``),
    as commands: GNU Backgammon's ``import mat`` reads them from its own settings, which any
    earlier use of the module in the process may have changed."""
    said = dict(re.findall(r'^; \[(Jacoby|Beaver) "(On|Off)"\]', mat_text, re.MULTILINE))
    return [
        "set cube use on",
        "set automatic doubles 0",
        f"set jacoby {said.get('Jacoby', 'Off').lower()}",
        f"set beavers {said.get('Beaver', 'Off').lower()}",
    ]


def _commands(mat: Path, out: Path, ply: int) -> list[str]:
    return [
        _THREADS,
        "set confirm new off",
        *_rules(mat.read_text()),
        f"import mat {mat}",
        f"set analysis chequerplay evaluation plies {ply}",
        f"set analysis cubedecision evaluation plies {ply}",
        "set analysis luck on",
        "analyse match",
        f"export match text {out}",
    ]


def _read_export(out: Path) -> list[str]:
    """The text files of one export, in game order (``a.txt``, ``a_002.txt``, ...)."""
    files = [out, *sorted(out.parent.glob(f"{out.stem}_[0-9][0-9][0-9]{out.suffix}"))]
    return [f.read_text(errors="replace") for f in files if f.exists()]


def analyse_with_module(mat_text: str, ply: int = 0) -> list[str]:
    """GNU Backgammon's analysis of a ``.mat`` text at ``ply``, by its Python module in this
    process: the text export, one string per game.

    Called from a thread other than the main one, it runs in a process of its own: the module
    was seen to crash in a worker thread of a process that had used it on another thread."""
    if threading.current_thread() is not threading.main_thread():
        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
            return pool.submit(analyse_with_module, mat_text, ply).result()
    import gnubg

    with tempfile.TemporaryDirectory(prefix="chouette-analysis-") as tmp:
        mat, out = Path(tmp) / "record.mat", Path(tmp) / "analysis.txt"
        mat.write_text(mat_text)
        with _quiet():
            for command in _commands(mat, out, ply):
                gnubg.command(command)
        return _read_export(out)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """The module prints its commands' answers on the process's standard output (file
    descriptor 1, under Python's ``sys.stdout``): sent to /dev/null meanwhile, so that a
    command's own output (``chouette analyse --json``) stays clean."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def module_data() -> Path:
    """The directory of the module's neural nets and bearoff databases."""
    import gnubg

    return Path(gnubg.__file__).parent / "data"


def cli_path() -> str | None:
    """The ``gnubg`` program, if installed (Debian installs it in /usr/games)."""
    return shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")


def analyse_with_cli(
    mat_text: str, ply: int = 0, timeout: float = 600, data: Path | None = None
) -> list[str]:
    """The same analysis by the ``gnubg`` program (``gnubg -t -q``) in a subprocess;
    ``data``: the directory of the neural nets and bearoff databases it loads (``-P``; by
    default its own)."""
    program = cli_path()
    if program is None:
        raise FileNotFoundError("the gnubg program is not installed (apt-get install gnubg)")
    with tempfile.TemporaryDirectory(prefix="chouette-analysis-") as tmp:
        mat, out = Path(tmp) / "record.mat", Path(tmp) / "analysis.txt"
        mat.write_text(mat_text)
        script = "\n".join(_commands(mat, out, ply)) + "\n"
        subprocess.run(
            [program, "-t", "-q", "-r", *(["-P", str(data)] if data else [])],
            input=script,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        )
        return _read_export(out)


@dataclass(frozen=True, slots=True)
class Candidate:
    rank: int
    play: str
    equity: float
    loss: float
    chosen: bool


@dataclass(frozen=True, slots=True)
class CubeAnalysis:
    no_double: float
    double_take: float
    double_pass: float
    proper: str
    """GNU Backgammon's words: ``No double, take``, ``Double, pass``, ``Too good to redouble,
    pass``..."""

    @property
    def should_double(self) -> bool:
        return self.proper.startswith(("Double", "Redouble"))

    @property
    def should_take(self) -> bool:
        return not self.proper.rstrip(" )%0123456789.(").endswith("pass")

    def close(self) -> bool:
        """GNU Backgammon's ``isCloseCubedecision``: doubling costs the doubler less than 0.16
        (the double's worth taken as the take, at most the pass's 1.0)."""
        return self.no_double - min(self.double_take, 1.0) < 0.16


@dataclass(slots=True)
class Block:
    """One move of the export: ``NAME to play 64``, ``NAME on roll, cube decision?``,
    ``NAME doubles to 2``..."""

    number: int
    header: str
    player: str = ""
    """Who acted (the ``* NAME verb`` line)."""
    verb: str = ""
    """``moves``, ``doubles``, ``accepts``, ``rejects``, ``beavers``, ``resigns``..."""
    rest: str = ""
    position_id: str = ""
    cube: CubeAnalysis | None = None
    dice: tuple[int, int] | None = None
    luck: float | None = None
    candidates: list[Candidate] = field(default_factory=list)

    @property
    def chosen(self) -> Candidate | None:
        return next((c for c in self.candidates if c.chosen), None)

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None


@dataclass(slots=True)
class ExportedGame:
    blocks: list[Block] = field(default_factory=list)
    stats: dict[str, dict[str, float]] = field(default_factory=dict)
    """GNU Backgammon's statistics: row name -> player name -> value (the first figure)."""


_MOVE = re.compile(r"^Move number (\d+):\s+(.*)$")
_ACT = re.compile(r"^\* (\S+) (\S+)\s*(.*)$")
_CUBEFUL = re.compile(
    r"^\d\. (No double|No redouble|Double, take|Double, pass|Redouble, take|"
    r"Redouble, pass|Double, beaver|Redouble, beaver)\s+([+-]?\d+\.\d+)"
)
_ROLLED = re.compile(r"^Rolled (\d)(\d) \(([+-]?\d+\.\d+)\):")
_CANDIDATE = re.compile(
    r"^(\*)?\s*(\d+)\.\s+\S+\s+\S+\s+(.+?)\s+Eq\.:\s*([+-]?\d+\.\d+)(?:\s*\(\s*([+-]?\d+\.\d+)\))?"
)
_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")


def _stats_row(line: str, players: list[str], stats: dict[str, dict[str, float]]) -> None:
    label, _, values = line.partition("  ")
    if not values.strip() or not players:
        return
    figures = _NUMBER.findall(re.sub(r"\([^()]*(?:\([^()]*\))?[^()]*\)", " ", values))
    if len(figures) >= len(players):
        stats[label.strip()] = {p: float(v) for p, v in zip(players, figures, strict=False)}


def parse_export(text: str) -> ExportedGame:
    """One game's text export read back."""
    game = ExportedGame()
    block: Block | None = None
    in_stats = False
    players: list[str] = []
    cubeful: dict[str, float] = {}
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.startswith("Game statistics"):
            in_stats, block = True, None
            continue
        if in_stats:
            if line.startswith("Player "):
                players = line.split()[1:]
            elif line and not line.startswith(" "):
                _stats_row(line, players, game.stats)
            continue
        found = _MOVE.match(line)
        if found:
            block = Block(int(found.group(1)), found.group(2))
            game.blocks.append(block)
            cubeful = {}
            continue
        if block is None:
            continue
        stripped = line.strip()
        if stripped.startswith("GNU Backgammon  Position ID:"):
            block.position_id = stripped.rsplit(" ", 1)[-1]
        elif found := _ACT.match(line):
            block.player, block.verb, block.rest = found.group(1), found.group(2), found.group(3)
        elif found := _CUBEFUL.match(stripped):
            cubeful[found.group(1).split(",")[-1].strip()] = float(found.group(2))
            if found.group(1).startswith("No"):
                cubeful["no"] = float(found.group(2))
        elif stripped.startswith("Proper cube action:") and cubeful:
            block.cube = CubeAnalysis(
                cubeful.get("no", 0.0),
                cubeful.get("take", cubeful.get("beaver", 0.0)),
                cubeful.get("pass", 1.0),
                stripped.split(":", 1)[1].strip(),
            )
        elif found := _ROLLED.match(stripped):
            block.dice = (int(found.group(1)), int(found.group(2)))
            block.luck = float(found.group(3))
        elif found := _CANDIDATE.match(line):
            block.candidates.append(
                Candidate(
                    int(found.group(2)),
                    found.group(3).strip(),
                    float(found.group(4)),
                    -float(found.group(5)) if found.group(5) else 0.0,
                    bool(found.group(1)),
                )
            )
    return game
