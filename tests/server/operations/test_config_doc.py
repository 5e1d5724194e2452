"""docs/config.md is what the settings' definitions say (server/cli/config_doc.py), and those
definitions are what the server reads: each variable the page lists sets its field through
:meth:`Config.from_env`, each flag through ``chouette serve``'s own parser, and each default is
the field's. None of this reaches a database."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from events.domain.dice import decode_seed_key, encode_seed_key, new_seed_key
from events.store.heads import encode_key, new_signing_key
from server.cli import config_doc
from server.cli.main import config_from, parser
from server.config import (
    ENVIRONMENT,
    PGDATA,
    Config,
    Rate,
    parse_clock,
    parse_duration,
)

DEFAULTS = {f.name: f.default for f in dataclasses.fields(Config)}


def _sample(name: str, read: Callable[[str], object]) -> str:
    """A valid value for the field ``name`` that is not its default, as text."""
    default = DEFAULTS[name]
    if name == "log_level":
        return "DEBUG"
    if read is parse_duration:
        return "0.5s"
    if read == Rate.parse:  # a bound method: a new object at each look-up
        return "7/1m"
    if read is parse_clock:
        return "off"
    if read is decode_seed_key:
        return encode_seed_key(new_seed_key())
    if name == "signing_key":
        return encode_key(new_signing_key())
    if name == "data_dir":
        return "/tmp/chouette-config-doc"
    if isinstance(default, bool):
        return "0" if default else "1"
    if isinstance(default, int | float):
        return str(int(default) + 1)
    return f"postgresql://sample-{name}"


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No CHOUETTE_* nor DATABASE_URL variable from the test run itself."""
    for variable in [*(v for _, v, _ in ENVIRONMENT), PGDATA]:
        monkeypatch.delenv(variable, raising=False)
    return monkeypatch


def test_the_page_is_what_the_definitions_say() -> None:
    page = Path(config_doc.PAGE).read_text(encoding="utf-8")
    assert page == config_doc.markdown(), (
        "docs/config.md is out of date: python -m server.cli.config_doc --write"
    )


def test_every_setting_is_on_the_page_with_its_default() -> None:
    page = config_doc.markdown()
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    assert len(rows) == len(ENVIRONMENT)
    assert "| `CHOUETTE_PORT` | `--port` | `8080` |" in page
    assert "| `CHOUETTE_TOKEN_TTL` |  | `30d` |" in page
    assert "| `CHOUETTE_RATE_COMMANDS` |  | `600/1m` |" in page
    assert "| `CHOUETTE_LOG_JSON` | `--plain-logs` | `on` |" in page
    assert "(or `CHOUETTE_PGDATA`)" in page
    # reST is Markdown on the page: no role is left, and a field is named by its variable.
    assert ":attr:" not in page and ":func:" not in page and "``" not in page
    assert "in `CHOUETTE_DATA_DIR`, migrated as its superuser" in page


@pytest.mark.parametrize(
    ("name", "variable", "read"), ENVIRONMENT, ids=[v for _, v, _ in ENVIRONMENT]
)
def test_each_variable_sets_its_field(
    clean_env: pytest.MonkeyPatch, name: str, variable: str, read: Callable[[str], object]
) -> None:
    raw = _sample(name, read)
    clean_env.setenv(variable, raw)
    value = getattr(Config.from_env(), name)
    assert value == read(raw)
    assert value != DEFAULTS[name]


def test_the_other_name_of_the_data_directory(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv(PGDATA, "/tmp/elsewhere")
    assert Config.from_env().data_dir == Path("/tmp/elsewhere")
    clean_env.setenv("CHOUETTE_DATA_DIR", "/tmp/first")
    assert Config.from_env().data_dir == Path("/tmp/first")


def _serve_actions() -> dict[str, argparse.Action]:
    commands = next(
        a for a in parser()._actions if isinstance(a, argparse._SubParsersAction)
    ).choices
    return {o: a for a in commands["serve"]._actions for o in a.option_strings}


@pytest.mark.parametrize(("name", "flag"), sorted(config_doc.serve_flags().items()))
def test_each_flag_sets_its_field(clean_env: pytest.MonkeyPatch, name: str, flag: str) -> None:
    read = {n: r for n, _, r in ENVIRONMENT}[name]
    action = _serve_actions()[flag]
    argv = ["serve", flag] if action.nargs == 0 else ["serve", flag, _sample(name, read)]
    value = getattr(config_from(parser().parse_args(argv)), name)
    assert value != DEFAULTS[name]
    if action.nargs != 0:
        assert value == read(argv[-1])


def test_every_flag_of_serve_is_on_the_page() -> None:
    flags = {o for o in _serve_actions() if o.startswith("--") and o != "--help"}
    assert flags == set(config_doc.serve_flags().values())
    page = config_doc.markdown()
    assert all(f"`{flag}`" in page for flag in flags)


def test_check_fails_on_a_page_that_drifted(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "config.md"
    monkeypatch.setattr(config_doc, "PAGE", page)
    assert config_doc.main(["--check"]) == 1
    page.write_text(config_doc.markdown().replace("`8080`", "`8081`"), encoding="utf-8")
    assert config_doc.main(["--check"]) == 1
    assert "out of date" in capsys.readouterr().err
    assert config_doc.main(["--write"]) == 0
    assert config_doc.main(["--check"]) == 0
    assert page.read_text(encoding="utf-8") == config_doc.markdown()
