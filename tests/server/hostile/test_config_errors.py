"""A bad setting stops ``serve`` at once with one line that names it and exit status 2, never a
traceback (issue 27, part 5): whatever the setting, whether it came from the environment or a
flag. Run as the process an operator runs; none of these gets as far as a database."""

from __future__ import annotations

import asyncio
import os
import subprocess

import pytest

from server.config import Config, ConfigError
from tests.server.conftest import PYTHON, ROOT, free_port


def _serve(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("CHOUETTE_")}
    environ.pop("DATABASE_URL", None)
    environ["PYTHONPATH"] = str(ROOT)
    environ.update(env)
    return subprocess.run(
        [PYTHON, "-m", "server", "serve", "--port", str(free_port()), *args],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("env", "args", "setting", "words"),
    [
        ({"CHOUETTE_TABLE_CLOCK": "fast"}, (), "CHOUETTE_TABLE_CLOCK", "DELAY+RESERVE"),
        ({"CHOUETTE_TABLE_CLOCK": "900+120"}, (), "CHOUETTE_TABLE_CLOCK", "600"),
        ({"CHOUETTE_SEED_WINDOW": "99"}, (), "CHOUETTE_SEED_WINDOW", "0 to 60"),
        ({"CHOUETTE_SEED_WINDOW": "five"}, (), "CHOUETTE_SEED_WINDOW", "'five'"),
        ({"CHOUETTE_BOT_PACE": "slow"}, (), "CHOUETTE_BOT_PACE", "'slow'"),
        ({"CHOUETTE_RATE_TABLES": "lots"}, (), "CHOUETTE_RATE_TABLES", "COUNT/DURATION"),
        ({"CHOUETTE_TOKEN_TTL": "a week"}, (), "CHOUETTE_TOKEN_TTL", "'a week'"),
        ({"CHOUETTE_SEED_KEY": "short"}, (), "CHOUETTE_SEED_KEY", "key"),
        ({"CHOUETTE_PORT": "http"}, (), "CHOUETTE_PORT", "'http'"),
        ({"CHOUETTE_LOG_LEVEL": "LOUD"}, (), "CHOUETTE_LOG_LEVEL", "'LOUD'"),
        ({}, ("--log-level", "LOUD"), "--log-level", "'LOUD'"),
        ({}, ("--port", "70000"), "--port", "70000"),
        ({"CHOUETTE_PARTITIONS": "0"}, (), "CHOUETTE_PARTITIONS", "0"),
    ],
)
async def test_a_bad_setting_stops_serve_in_one_line_naming_it(
    env: dict[str, str], args: tuple[str, ...], setting: str, words: str
) -> None:
    done = await asyncio.to_thread(_serve, *args, env=env)
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"chouette serve: {setting}: "), lines[0]
    assert words in lines[0], lines[0]
    assert "Traceback" not in done.stderr and "listening" not in done.stdout


def test_the_error_names_the_setting_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHOUETTE_TABLE_CLOCK", "12+")
    with pytest.raises(ConfigError) as raised:
        Config.from_env()
    assert raised.value.setting == "CHOUETTE_TABLE_CLOCK"
    monkeypatch.delenv("CHOUETTE_TABLE_CLOCK")
    with pytest.raises(ConfigError, match=r"^--port: ") as raised:
        Config.from_env(port=-1)
    assert raised.value.setting == "--port"
