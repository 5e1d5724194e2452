"""The engine imports only the standard library and itself (docs/design.md: server → events →
engine)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).parents[2] / "engine"
FORBIDDEN = {"asyncio", "aiohttp", "asyncpg", "msgspec", "events", "server"}
OURS = {"engine", "__future__"}


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                names.add("engine")  # a relative import stays inside the package
            elif node.module:
                names.add(node.module.split(".")[0])
    return names


def test_engine_modules_exist() -> None:
    assert {"position.py", "moves.py", "notation.py", "chouette/table.py"} <= {
        p.relative_to(ENGINE).as_posix() for p in ENGINE.rglob("*.py")
    }


def test_engine_imports_only_the_standard_library() -> None:
    bad = {}
    for path in sorted(ENGINE.rglob("*.py")):
        names = _imports(path)
        wrong = (names & FORBIDDEN) | {
            n
            for n in names
            if n not in sys.stdlib_module_names and n not in {"engine", "__future__"}
        }
        if wrong:
            bad[path.relative_to(ENGINE).as_posix()] = sorted(wrong)
    assert bad == {}


def test_the_check_would_catch_a_bad_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import asyncio\nfrom msgspec import Struct\nfrom . import moves\n")
    assert _imports(bad) == {"asyncio", "msgspec", "engine"}
    assert "asyncio" in sys.stdlib_module_names  # so FORBIDDEN must name it explicitly
