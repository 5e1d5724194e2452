"""bench/compare.sh: every ``--quick`` bench on a revision and on the working tree, one JSON.

Shape and bookkeeping only (no timing is asserted): HEAD against the working tree through the
real script and a real ``git worktree``, and bench/compare.py over two small trees of its own
(a bench missing in one, a run that imports the other tree's code)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def _git(*args: str, cwd: Path = ROOT) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


def _worktrees() -> set[str]:
    return {
        line.split(" ", 1)[1]
        for line in _git("worktree", "list", "--porcelain").splitlines()
        if line.startswith("worktree ")
    }


def test_head_against_the_working_tree() -> None:
    before = _worktrees()
    done = subprocess.run(
        [
            str(ROOT / "bench" / "compare.sh"),
            "HEAD",
            "--only",
            "engine",
            "--args",
            "engine=--positions 4 --repeat 1",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    assert report["compare"]["rev"] == "HEAD"
    assert report["compare"]["rev_commit"] == _git("rev-parse", "HEAD").strip()
    assert report["compare"]["rounds"] == 2
    assert report["errors"] == []
    assert list(report["benches"]) == ["engine"]
    engine = report["benches"]["engine"]
    assert "missing_in" not in engine
    assert [len(engine["seconds"][side]) for side in ("rev", "ours")] == [2, 2]
    assert engine["modules_imported_from_own_tree"]["rev"] > 0
    assert engine["modules_imported_from_own_tree"]["ours"] > 0
    metrics = engine["metrics"]
    # The corpus is the same on both sides: its counts are equal, the timings positive.
    for key in ("positions", "calls", "plays", "count_mismatches"):
        assert metrics[key]["rev"] == metrics[key]["ours"], key
    assert metrics["calls"]["ratio"] == 1.0 and metrics["calls"]["better"] is None
    assert metrics["count_mismatches"]["ratio"] is None  # 0 on both sides: no ratio
    timed = metrics["legal_plays_us_mean"]
    assert timed["better"] == "lower" and timed["rev"] > 0 and timed["ours"] > 0
    for key, m in metrics.items():
        assert set(m) == {"rev", "ours", "ratio", "better"}, key
        if m["ratio"] is not None:
            assert math.isfinite(m["ratio"]) and m["ratio"] > 0, key
    progress = [line for line in done.stderr.splitlines() if line.startswith("compare: [")]
    assert len(progress) == 4
    assert [p.split("] ", 1)[1].split(":")[0] for p in progress] == [
        "round 1 engine rev",
        "round 1 engine ours",
        "round 2 engine rev",
        "round 2 engine ours",
    ]
    assert _worktrees() == before  # the temporary worktree is gone


def test_a_revision_that_does_not_exist() -> None:
    done = subprocess.run(
        [str(ROOT / "bench" / "compare.sh"), "no-such-revision-here"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "no such revision" in done.stderr and done.stdout == ""


def _tree(path: Path, benches: dict[str, str]) -> Path:
    (path / "bench").mkdir(parents=True)
    for name, body in benches.items():
        (path / "bench" / f"{name}.py").write_text(textwrap.dedent(body), encoding="utf-8")
    _git("init", "--quiet", cwd=path)
    _git("add", ".", cwd=path)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "t", cwd=path)
    return path


_TINY = """
    import argparse, json
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rate", type=float, default={rate})
    args = ap.parse_args()
    print("a line that is not the result")
    print(json.dumps({{"quick": args.quick, "events_per_s": args.rate,
                      "p99": {{"latency_ms": 4}}, "ok": True, "names": [1, 2]}}))
"""

_OURS_ONLY = """
    import json
    assert "--quick" in __import__("sys").argv
    print(json.dumps({"bytes_sent": 100}))
"""


def _compare(rev: Path, ours: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    script = str(ROOT / "bench" / "compare.py")
    trees = ["--rev-tree", str(rev), "--ours-tree", str(ours)]
    done = subprocess.run(
        [sys.executable, script, "--rev", "r", *trees, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, json.loads(done.stdout), done.stderr


def test_medians_ratios_and_a_bench_missing_in_the_revision(tmp_path: Path) -> None:
    rev = _tree(tmp_path / "rev", {"tiny": _TINY.format(rate=100.0), "helper": "X = 1\n"})
    ours = _tree(tmp_path / "ours", {"tiny": _TINY.format(rate=150.0), "extra": _OURS_ONLY})
    code, report, err = _compare(rev, ours, "--rounds", "3")
    assert code == 0, err
    assert sorted(report["benches"]) == ["extra", "tiny"]  # helper takes no --quick
    tiny = report["benches"]["tiny"]["metrics"]
    assert tiny["events_per_s"] == {"rev": 100.0, "ours": 150.0, "ratio": 1.5, "better": "higher"}
    assert tiny["p99.latency_ms"] == {"rev": 4.0, "ours": 4.0, "ratio": 1.0, "better": "lower"}
    assert "ok" not in tiny and "names" not in tiny and "quick" not in tiny
    extra = report["benches"]["extra"]
    assert extra["missing_in"] == "rev"
    assert extra["metrics"]["bytes_sent"] == {
        "rev": None,
        "ours": 100.0,
        "ratio": None,
        "better": "lower",
    }
    assert len(extra["seconds"]["ours"]) == 3 and extra["seconds"]["rev"] == []
    assert err.count("compare: [") == 9  # 3 rounds of tiny on both, extra on ours alone
    # --args reaches the bench, --only picks it
    code, report, _ = _compare(rev, ours, "--only", "tiny", "--args", "tiny=--rate 50")
    assert code == 0 and list(report["benches"]) == ["tiny"]
    assert report["benches"]["tiny"]["metrics"]["events_per_s"]["ratio"] == 1.0


def test_a_run_that_imports_the_other_trees_code_fails(tmp_path: Path) -> None:
    """Which code a run imported is checked: here the revision's bench reaches into ours."""
    ours = _tree(tmp_path / "ours", {"tiny": _TINY.format(rate=1.0), "shared_bits": "X = 2\n"})
    leaky = f"""
        import sys
        sys.path.insert(0, {str(ours / "bench")!r})
        import shared_bits
        print('{{"events_per_s": 1}}')
        # "--quick"
    """
    rev = _tree(tmp_path / "rev", {"tiny": leaky})
    code, report, err = _compare(rev, ours, "--only", "tiny", "--rounds", "1", "--pause", "0")
    assert code == 1
    assert err.count("failed, once more") == 2 and err.count("tiny rev: failed:") == 1
    assert len(report["errors"]) == 1 and "tiny rev round 1" in report["errors"][0]
    assert "shared_bits" in report["errors"][0] and "outside" in report["errors"][0]
    assert report["benches"]["tiny"]["metrics"]["events_per_s"]["rev"] is None
    assert report["benches"]["tiny"]["metrics"]["events_per_s"]["ours"] == 1.0
