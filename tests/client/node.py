"""Run the web client's Node tests (``node --test``) from inside the pytest run, so that
``./scripts/test`` runs them. A helper module rather than a ``conftest.py``: a conftest here would
be imported (as ``conftest``) before ``tests/conftest.py`` is collected, which pytest refuses.

Node is required, never optional: without it the tests fail with a message saying how to get it
(a skipped test would hide a client nobody tested).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE_MAJOR = 18
"""The oldest Node.js the tests run on (its test runner, ``--test-reporter`` and Web Crypto as
``node:crypto``'s ``webcrypto``): Debian 12's ``nodejs`` is enough."""


@functools.cache
def node() -> str:
    """The ``node`` executable; fails the test (never skips it) when it is missing or too old."""
    path = shutil.which("node")
    if path is None:
        pytest.fail(
            "Node.js is needed to test the web client's modules (tests/client): install Node "
            f"{NODE_MAJOR} or newer (Debian: apt-get install nodejs) and put `node` on PATH",
            pytrace=False,
        )
    version = subprocess.run(
        [path, "--version"], capture_output=True, text=True, timeout=30, check=True
    ).stdout.strip()
    match = re.match(r"v(\d+)\.", version)
    if match is None or int(match.group(1)) < NODE_MAJOR:
        pytest.fail(f"Node.js {NODE_MAJOR} or newer is needed, found {version!r}", pytrace=False)
    return path


def run_node(
    *files: Path, env: Mapping[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``node --test`` on some files, from the repository's root; fails with Node's report
    unless every test passed (and at least one ran)."""
    assert files, "no test files given"
    result = subprocess.run(
        [node(), "--test", "--test-reporter=tap", *(str(f) for f in files)],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    report = (result.stdout[-20000:] + "\n" + result.stderr[-5000:]).strip()
    assert result.returncode == 0, f"node --test failed:\n{report}"
    assert re.search(r"^# pass [1-9]", result.stdout, re.M), f"no test ran:\n{report}"
    assert re.search(r"^# fail 0$", result.stdout, re.M), report
    return result
