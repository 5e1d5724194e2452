"""SQL is spoken in two rooms only: ``events/store`` (the event store and its own tables) and
``server/readmodels`` (the read models, and the stores of accounts, invitations, limits and
analyses). Every other module of ``events/`` and ``server/`` calls their typed functions.

The test reads every module with :mod:`ast` (it imports none) and lists the string literals
that start with a SQL statement's verb (``SELECT``, ``INSERT INTO``, ``UPDATE ... SET``,
``DELETE FROM``, ``WITH ... AS (``, DDL...), in capitals as this codebase writes SQL; implicitly
concatenated literals are one literal to :mod:`ast`, and an f-string is read piece by piece.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).parents[1]

#: Where SQL may be written, as ``(package, the room of it that may)``.
ROOMS = {"events": "events/store", "server": "server/readmodels"}

SQL_START = re.compile(
    r"\s*(SELECT\b|INSERT\s+INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b"
    r"|WITH\s+(RECURSIVE\s+)?\w+(\s*\([^)]*\))?\s+AS\s*\("
    r"|(CREATE|ALTER|DROP)\s+(TABLE|INDEX|ROLE|FUNCTION|TRIGGER|VIEW|SCHEMA)\b"
    r"|TRUNCATE\b|LISTEN\b|NOTIFY\b|COPY\b)"
)


def sql_literals(source: str) -> list[tuple[int, str]]:
    """The ``(line, text)`` of each string literal of ``source`` that starts a SQL statement."""
    return sorted(
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and SQL_START.match(node.value)
    )


def misplaced() -> list[str]:
    """Each SQL literal outside its package's room, as ``path:line: text``."""
    found = []
    for package, allowed in ROOMS.items():
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative.startswith(allowed + "/"):
                continue
            for line, text in sql_literals(path.read_text(encoding="utf-8")):
                found.append(f"{relative}:{line}: {' '.join(text.split())[:60]}")
    return found


def test_sql_only_in_the_stores_and_read_models() -> None:
    assert misplaced() == []


def test_the_rooms_do_speak_sql() -> None:
    """The rooms are where the SQL went: a pattern that matched nothing would pass anything."""
    for room in ROOMS.values():
        assert any(sql_literals(p.read_text(encoding="utf-8")) for p in (ROOT / room).glob("*.py"))


def test_what_counts_as_sql() -> None:
    source = '''
"""SELECT in a docstring's first word is SQL too, so nobody writes one."""
a = "SELECT 1"
b = ("INSERT INTO t (x)" " VALUES ($1)")
c = f"UPDATE tokens SET revoked_at = now() WHERE x = {y}"
d = """
    DELETE FROM stream_tickets"""
e = "WITH used AS (DELETE FROM t RETURNING x) SELECT x FROM used"
f = f"ALTER ROLE {name} LOGIN"
g = "WITH RECURSIVE ids AS (SELECT 1)"
ok = ["select nothing", "Update the lobby", "the SELECT of a message", "DELETE /tables/{id}"]
'''
    assert [line for line, _ in sql_literals(source)] == [2, 3, 4, 5, 6, 8, 9, 10]
