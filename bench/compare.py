"""Every ``--quick`` bench on a revision and on the working tree, alternating: one JSON object.

    bench/compare.sh REV [--rounds N] [--only NAME,...] [--all] [--args NAME=ARGS]...

``bench/compare.sh`` checks ``REV`` out into a temporary ``git worktree`` and calls this with both
trees. Each bench (``bench/NAME.py`` with a ``--quick`` option, in either tree) runs as
``python bench/NAME.py --quick`` in its own process, with the same interpreter, ``PYTHONPATH``
set to its tree and its tree as the working directory, in rounds of REV then ours (A B A B ...:
outside load on a shared machine falls on both alike). The long ones (``server``, ``bots``,
``bot_load``, ``browser``) run only with ``--all``. Every numeric value of a bench's JSON is a
metric (nested objects by dotted keys); each side's figure is its median over the rounds, and
``ratio`` is ours / REV, with ``better`` (``higher`` for a throughput, ``lower`` for a latency,
a time or a size, ``null`` where not known). A bench missing in one tree is reported for the
other alone (``missing_in``). A run that fails is tried again (``--retries``, 2; ``--pause`` 10 s
between: on a shared machine another run may hold every database connection), then listed in
``errors`` (exit status 1). A
progress line per run goes to stderr.

Which code each run imported is checked, not assumed: the project installs editable into the
venv (a finder that maps ``engine``, ``events`` and ``server`` to the main checkout), so each run
goes through ``--run``, which runs the bench as ``__main__`` and then fails if any module it
imported came from the other tree, or a project package from outside its own tree. (A process the
bench starts, such as bench/server.py's ``serve``, finds its tree through ``PYTHONPATH``.)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import runpy
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

LONG = ("server", "bots", "bot_load", "browser")
"""Benches that take minutes even with ``--quick``: only with ``--all``."""

PROJECT = ("engine", "events", "server", "bench")
"""The project's own top-level packages: a run must import each from its own tree."""

_SETTINGS = {"quick", "rounds", "seed", "repeat", "cpus", "tables", "games", "positions"}
_SETTINGS |= {"seconds_per_measurement", "replays"}

_UNITS_LOWER = {"ms", "us", "ns", "s", "seconds", "bytes", "kib", "mib", "kb", "mb"}
"""Units of a time or a size (a word of a metric's name): lower is better."""


def benches(tree: Path) -> set[str]:
    """The benches of ``tree``: ``bench/*.py`` that take ``--quick``."""
    found = set()
    for path in (tree / "bench").glob("*.py"):
        if path.stem != "compare" and '"--quick"' in path.read_text(encoding="utf-8"):
            found.add(path.stem)
    return found


def better(key: str) -> str | None:
    """Which way a metric is better, from its name (``None`` when it does not say)."""
    k = key.lower()
    last = k.rsplit(".", 1)[-1]
    if last in _SETTINGS or last.startswith("ratio") or "target" in k or "load_avg" in k:
        return None
    if "per_s" in k or "per_cpu_s" in k or "throughput" in k or last.endswith("_rate"):
        return "higher"
    if _UNITS_LOWER & set(last.split("_")):
        return "lower"
    if any(w in k for w in ("latency", "lag", "stall", "over_floor", "mismatch", "error")):
        return "lower"
    return None


def numeric(result: Any, prefix: str = "") -> dict[str, float]:
    """Every number in a bench's JSON, by dotted key (booleans and lists left out)."""
    out: dict[str, float] = {}
    if isinstance(result, dict):
        for key, value in result.items():
            out.update(numeric(value, f"{prefix}{key}."))
    elif isinstance(result, int | float) and not isinstance(result, bool) and math.isfinite(result):
        out[prefix[:-1]] = float(result)
    return out


def last_json(stdout: str) -> dict[str, Any]:
    """The bench's JSON object: the last line of its output that is one."""
    for line in reversed(stdout.splitlines()):
        if line.startswith("{"):
            value = json.loads(line)
            if isinstance(value, dict):
                return value
    raise ValueError("no JSON object in the bench's output")


def run_one(
    python: str, tree: Path, other: Path, name: str, extra: list[str]
) -> tuple[dict[str, Any], dict[str, Any], float]:
    """Run ``tree``'s bench ``name`` once: its JSON, what it imported, seconds taken."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tree), *filter(None, [env.get("PYTHONPATH")])])
    with tempfile.NamedTemporaryFile("r", suffix=".json") as imports:
        cmd = [python, __file__, "--run", str(tree), str(other), imports.name]
        cmd += [str(tree / "bench" / f"{name}.py"), "--quick", *extra]
        started = time.perf_counter()
        done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            tail = "\n".join(done.stderr.strip().splitlines()[-5:])
            raise RuntimeError(f"exit {done.returncode}: {tail}")
        checked = json.loads(imports.read() or "{}")
    return last_json(done.stdout), checked, seconds


def run_bench(tree: str, other: str, imports: str, bench: str, args: list[str]) -> None:
    """``--run``: run ``bench`` as ``__main__``, then check where its modules came from."""
    root, foreign = Path(tree).resolve(), Path(other).resolve()
    venv = Path(sys.prefix).resolve()
    sys.argv = [bench, *args]
    sys.path[0] = str(Path(bench).parent)
    try:
        runpy.run_path(bench, run_name="__main__")
    finally:
        own, wrong = 0, []
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None)
            if not file:
                continue
            path = Path(file).resolve()
            top = name.split(".", 1)[0]
            if name == "__main__" or path.is_relative_to(venv):
                continue  # this wrapper; the interpreter's own libraries (the venv)
            if path.is_relative_to(foreign) or (top in PROJECT and not path.is_relative_to(root)):
                wrong.append(f"{name}: {path}")
            elif path.is_relative_to(root):
                own += 1
        Path(imports).write_text(json.dumps({"own_modules": own, "foreign": wrong}))
    if wrong:
        sys.exit(f"compare: {bench} imported code from outside {root}: {wrong[:5]}")


def summary(rev: list[dict[str, float]], ours: list[dict[str, float]]) -> dict[str, Any]:
    """Each metric's medians, ratio and direction."""
    keys = list(dict.fromkeys([k for r in ours + rev for k in r]))
    metrics: dict[str, Any] = {}
    for key in keys:
        a = [r[key] for r in rev if key in r]
        b = [r[key] for r in ours if key in r]
        ma = statistics.median(a) if a else None
        mb = statistics.median(b) if b else None
        ratio = round(mb / ma, 3) if ma and mb is not None else None
        metrics[key] = {"rev": ma, "ours": mb, "ratio": ratio, "better": better(key)}
    return metrics


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", required=True, help="the revision, as given")
    ap.add_argument("--rev-tree", type=Path, required=True, help="its checked-out worktree")
    ap.add_argument("--ours-tree", type=Path, required=True, help="the working tree")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of REV then ours (2)")
    ap.add_argument("--only", help="these benches alone, comma-separated (store,audit)")
    ap.add_argument("--all", action="store_true", help="the long benches too: " + ", ".join(LONG))
    ap.add_argument(
        "--args", action="append", default=[], metavar="NAME=ARGS", help="more arguments"
    )
    ap.add_argument("--retries", type=int, default=2, help="attempts after a failed run (2)")
    ap.add_argument("--pause", type=float, default=10.0, help="seconds before one (10)")
    args = ap.parse_args()
    python = sys.executable
    rev_tree, ours_tree = args.rev_tree.resolve(), args.ours_tree.resolve()
    have = {"rev": benches(rev_tree), "ours": benches(ours_tree)}
    names = sorted(have["rev"] | have["ours"])
    if args.only:
        wanted = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in names]
        if unknown:
            ap.error(f"no such --quick bench in either tree: {', '.join(unknown)}")
        names = wanted
    elif not args.all:
        names = [n for n in names if n not in LONG]
    extra: dict[str, list[str]] = {}
    for item in args.args:
        name, _, rest = item.partition("=")
        extra[name] = shlex.split(rest)

    trees = {"rev": (rev_tree, ours_tree), "ours": (ours_tree, rev_tree)}
    results: dict[str, dict[str, list[dict[str, float]]]] = {
        n: {"rev": [], "ours": []} for n in names
    }
    seconds: dict[str, dict[str, list[float]]] = {n: {"rev": [], "ours": []} for n in names}
    imported: dict[str, dict[str, int]] = {n: {} for n in names}
    errors: list[str] = []
    load_start = os.getloadavg()[0]
    runs = sum(len([s for s in trees if n in have[s]]) for n in names) * args.rounds
    done = 0
    for r in range(1, args.rounds + 1):
        for name in names:
            for side, (tree, other) in trees.items():
                if name not in have[side]:
                    continue
                done += 1
                label = f"compare: [{done}/{runs}] round {r} {name} {side}"
                got = _attempts(python, tree, other, name, extra.get(name, []), args, label)
                if isinstance(got, str):
                    errors.append(f"{name} {side} round {r}: {got}")
                    continue
                out, checked, took = got
                results[name][side].append(numeric(out))
                seconds[name][side].append(round(took, 1))
                imported[name][side] = checked.get("own_modules", 0)
                print(
                    f"{label}: {took:.1f} s, {imported[name][side]} modules from {tree}",
                    file=sys.stderr,
                    flush=True,
                )

    report: dict[str, Any] = {
        "compare": {
            "rev": args.rev,
            "rev_commit": _head(rev_tree),
            "ours": f"the working tree {ours_tree} at {_head(ours_tree)}"
            + (" with uncommitted changes" if _dirty(ours_tree) else ""),
            "rounds": args.rounds,
            "order": "each round: every bench on REV, then on ours",
            "ratio": "ours / rev, of each side's median over the rounds",
            "python": python,
            "cpus": os.cpu_count(),
            "load_avg_1m": [round(load_start, 2), round(os.getloadavg()[0], 2)],
        },
        "benches": {},
        "errors": errors,
    }
    for name in names:
        entry: dict[str, Any] = {
            "seconds": seconds[name],
            "modules_imported_from_own_tree": imported[name],
        }
        missing = [side for side in trees if name not in have[side]]
        if missing:
            entry["missing_in"] = missing[0]
        entry["metrics"] = summary(results[name]["rev"], results[name]["ours"])
        report["benches"][name] = entry
    print(json.dumps(report))
    return 1 if errors else 0


def _attempts(
    python: str,
    tree: Path,
    other: Path,
    name: str,
    extra: list[str],
    args: argparse.Namespace,
    label: str,
) -> tuple[dict[str, Any], dict[str, Any], float] | str:
    """:func:`run_one`, tried again after a pause when it fails (on a shared machine a run can
    fail for reasons of its own: another run holding every database connection); the last
    failure's text when every attempt failed."""
    for attempt in range(args.retries + 1):
        try:
            return run_one(python, tree, other, name, extra)
        except (RuntimeError, ValueError) as exc:
            last = attempt == args.retries
            how = "failed" if last else "failed, once more"
            print(f"{label}: {how}: {exc}", file=sys.stderr, flush=True)
            if last:
                return str(exc)
            time.sleep(args.pause)
    raise AssertionError("unreachable")


def _head(tree: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def _dirty(tree: Path) -> bool:
    done = subprocess.run(
        ["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
        check=True,
    )
    return bool(done.stdout.strip())


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--run":
        run_bench(*sys.argv[2:6], sys.argv[6:])
    else:
        sys.exit(main())
