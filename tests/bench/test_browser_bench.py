"""bench/browser.py (what a player feels) runs end to end in a tiny mode: a ``serve`` process with
a few human-pace tables of background load, two Chromium pages playing a money game through the
page, one first load; its one JSON object has every figure it promises. No timing is asserted:
only that each measurement was made (and that what one page's clock says is causal)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


async def test_the_browser_bench_measures_rolls_confirms_and_a_first_load(owner_url: str) -> None:
    found = os.environ.get("CHOUETTE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not os.access(found, os.X_OK) and not CI:
        pytest.skip("no Chromium (never skipped in CI)")
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "bench/browser.py",
        *("--tables", "4", "--samples", "3", "--loads", "1", "--unloaded", "2"),
        *("--processes", "1"),
        *("--database", owner_url),
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(proc.communicate(), 240)
    assert proc.returncode == 0, stderr.decode()[-3000:]
    out = json.loads(stdout)

    for kind in ("roll", "confirm"):
        figures = out[kind]
        assert figures["n"] >= 3, figures
        assert set(figures) >= {"p50_ms", "p95_ms", "max_ms", "to_dom_change"}
        assert figures["p50_ms"] <= figures["p95_ms"] <= figures["max_ms"]
        assert figures["to_dom_change"]["n"] == figures["n"]
    # On the roller's own page the click comes before the dice it draws.
    assert out["roll"]["p50_ms"] > 0

    load = out["first_load"]
    assert load["n"] == len(load["loads"]) == 1
    first = load["loads"][0]
    assert first["ms"] > first["ttfb_ms"] > 0
    # The document and the page's scripts and style came over the network (a fresh context).
    assert load["bytes"] == first["bytes"] > 10_000
    assert first["requests"] >= 3
    assert first["bytes_after_1s"] >= first["bytes"]

    targets = {"roll_p95_ms": 100.0, "confirm_p95_ms": 100.0, "first_load_ms": 1000.0}
    assert out["targets"] == targets
    assert set(out["pass"]) == {"roll_p95", "confirm_p95", "first_load"}
    assert all(isinstance(v, bool) for v in out["pass"].values())

    background = out["background"]
    assert background["tables"] == 4
    assert background["offered_per_s"] > 0 and background["served_per_s"] >= 0
    assert background["errors"] == 0, background["error_samples"]
    assert out["server"]["server_commands"] > 0  # the browser players' commands at least

    cores = out["cores"]
    assert set(cores["cores_used"]) >= {"server", "generator", "browser", "postgres"}
    assert cores["cores_used"]["browser"] > 0 and cores["cores_used"]["server"] > 0
    assert cores["generator_over_server"] >= 0
    assert out["clock"]["bound_ms"] >= 0
    assert out["page_errors"] == []
    # Then the same game without the background load.
    base = out["without_background"]
    assert base["roll"]["n"] >= 2 and base["confirm"]["n"] >= 2
    assert base["cores"]["cores_used"]["generator"] == 0
