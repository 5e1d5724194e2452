"""The import graph of the three packages: one direction, no circles, nothing hidden.

``docs/design.md`` fixes the layering ``engine ← events ← server``: the rules know nothing of the
store, the store and the decider know nothing of HTTP. This test reads every module of the three
packages with :mod:`ast` (it imports none of them, so a circle cannot hide behind import order or
a half-initialised module) and checks that:

- no module reaches itself through imports, inside a package or across them;
- ``engine`` imports neither ``events`` nor ``server``, and ``events`` does not import ``server``;
- no project module is imported inside a function body, where it would hide an edge of the graph
  (the only exception is an optional dependency, named in :data:`INSIDE_FUNCTION_ALLOWED`).

Imports under ``if TYPE_CHECKING:`` count as edges. They create no circle at run time, but a
circle the type checker needs is still a circle a reader must untangle, and the issue that
introduced this test asks for none "anywhere". ``engine`` importing only the standard library is
checked by ``tests/engine/test_purity.py``.

An edge goes to the module an import names, not to the packages above it: ``from
events.store.event_store
import EventStore`` is an edge to ``events.store.event_store``, although Python also runs
``events/__init__.py`` first. A package's ``__init__`` that re-exports its modules (its "face")
is therefore not a circle with every module of the package; a module that imports from its own
package's face (``from events import X`` inside ``events/``) is an edge to ``events`` and shows
up as the circle it is.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).parents[1]
PACKAGES = ("engine", "events", "server", "client", "outside")

#: Which package may import which: ``docs/design.md``, "Dependencies point one way".
MAY_IMPORT = {
    "engine": {"engine"},
    "events": {"engine", "events"},
    # The CLI wires ``chouette bot run`` (outside/cli.py).
    "server": {"engine", "events", "server", "outside"},
    # The Python client speaks the public protocol only: nothing of the server, the store or
    # the rules (a bot installs it alone).
    "client": {"client"},
    # Outside bots play through the client and judge with the rules (GNU Backgammon's IDs,
    # notation, the basic bot) and GNU Backgammon's bridge (events.gnubg, which knows only the
    # engine: ROOMS_MAY_IMPORT): never the server's, the store's or the decider's internals.
    "outside": {"client", "engine", "events", "outside"},
}

#: Which room of ``events/`` may import which (``docs/design.md``, "The rooms"): the domain never
#: imports the store or the records; the store keeps the domain's events, not what is made of
#: them; GNU Backgammon's bridge knows only the engine. ``events.service`` (the seam) and
#: ``server`` may import any of them.
ROOMS_MAY_IMPORT = {
    "events.domain": {"engine", "events.domain", "events.gnubg"},
    "events.gnubg": {"engine", "events.gnubg"},
    "outside": {"client", "engine", "events.gnubg", "outside"},
    "events.store": {"engine", "events.domain", "events.store"},
    "events.records": {"engine", "events.domain", "events.store", "events.records", "events.gnubg"},
}


def room(module: str) -> str:
    """The room of ``events/`` a module lives in (``events.domain``...), else its package."""
    parts = module.split(".")
    if parts[0] == "events" and len(parts) > 2:
        return ".".join(parts[:2])
    return parts[0] if parts[0] != "events" else module


#: Imports of project modules allowed inside a function, as ``"file:module" -> why``. Only a real
#: optional dependency belongs here; today there is none.
INSIDE_FUNCTION_ALLOWED: dict[str, str] = {}


@dataclass(frozen=True, slots=True)
class Edge:
    """One import of a project module by another."""

    source: str  #: the importing module, dotted
    target: str  #: the imported module, dotted
    path: str  #: the importing file, relative to the repository
    line: int
    in_function: bool  #: inside a ``def``/``lambda`` body
    type_checking: bool  #: under ``if TYPE_CHECKING:``

    def where(self) -> str:
        """``file:line``, with a note when the import is not a plain top-level one."""
        notes = [
            note
            for note, on in (
                ("in a function", self.in_function),
                ("TYPE_CHECKING", self.type_checking),
            )
            if on
        ]
        return f"{self.path}:{self.line}" + (f" ({', '.join(notes)})" if notes else "")


def modules(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Every module of ``packages`` under ``root`` by dotted name; a package is its ``__init__``."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    match test:
        case ast.Name(id="TYPE_CHECKING") | ast.Attribute(attr="TYPE_CHECKING"):
            return True
    return False


def _walk(
    node: ast.AST, in_function: bool, type_checking: bool
) -> Iterator[tuple[ast.AST, bool, bool]]:
    """Every node under ``node``, with whether it sits in a function and under TYPE_CHECKING."""
    for child in ast.iter_child_nodes(node):
        yield child, in_function, type_checking
        match child:
            case ast.FunctionDef() | ast.AsyncFunctionDef() | ast.Lambda():
                yield from _walk(child, True, type_checking)
            case ast.If(test=test) if _is_type_checking(test):
                for stmt in child.body:
                    yield stmt, in_function, True
                    yield from _walk(stmt, in_function, True)
                for stmt in child.orelse:
                    yield stmt, in_function, type_checking
                    yield from _walk(stmt, in_function, type_checking)
            case _:
                yield from _walk(child, in_function, type_checking)


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The deepest project module ``name`` or one of its prefixes names, if any."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return None


def _base(module: str, path: Path, level: int, name: str | None) -> str:
    """The absolute module a relative ``from`` import of ``level`` dots names."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    if level - 1 > len(package):
        raise AssertionError(f"{path}: relative import beyond the top-level package")
    package = package[: len(package) - (level - 1)]
    return ".".join(package + ([name] if name else []))


def edges(root: Path, known: dict[str, Path]) -> list[Edge]:
    """Every import of a project module in ``known``, read from the source with :mod:`ast`."""
    found = []
    for module, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        rel = path.relative_to(root).as_posix()
        for node, in_function, type_checking in _walk(tree, False, False):
            targets: list[str | None] = []
            match node:
                case ast.Import(names=names):
                    targets = [_resolve(alias.name, known) for alias in names]
                case ast.ImportFrom(module=name, level=level, names=names):
                    base = _base(module, path, level, name) if level else (name or "")
                    # ``from p import m`` names the submodule p.m when there is one, else p.
                    targets = [
                        f"{base}.{alias.name}"
                        if f"{base}.{alias.name}" in known
                        else _resolve(base, known)
                        for alias in names
                    ]
                case _:
                    continue
            for target in dict.fromkeys(targets):
                if target is not None and target != module:
                    found.append(Edge(module, target, rel, node.lineno, in_function, type_checking))
    return found


def _graph(found: Iterable[Edge]) -> dict[str, dict[str, Edge]]:
    graph: dict[str, dict[str, Edge]] = {}
    for edge in found:
        graph.setdefault(edge.source, {}).setdefault(edge.target, edge)
    return graph


def strongly_connected(graph: dict[str, dict[str, Edge]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    nodes = sorted(set(graph) | {t for targets in graph.values() for t in targets})
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, {}))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, {})))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
    return sorted(components)


def a_cycle(graph: dict[str, dict[str, Edge]], component: list[str]) -> list[Edge]:
    """One shortest circle through the first module of a strongly connected component."""
    members = set(component)
    start = component[0]
    paths: dict[str, list[Edge]] = {start: []}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target, edge in sorted(graph.get(node, {}).items()):
                if target == start:
                    return [*paths[node], edge]
                if target in members and target not in paths:
                    paths[target] = [*paths[node], edge]
                    following.append(target)
        frontier = following
    raise AssertionError(f"no circle through {start} in {component}")  # pragma: no cover


def describe_cycles(found: Iterable[Edge]) -> list[str]:
    """Each circle, readable: the modules in it and one concrete loop with file:line per edge."""
    graph = _graph(found)
    reports = []
    for component in strongly_connected(graph):
        loop = a_cycle(graph, component)
        steps = "\n".join(f"      {e.source} -> {e.target}   [{e.where()}]" for e in loop)
        reports.append(
            f"  circle among {len(component)} modules: {', '.join(component)}\n"
            f"    for example:\n{steps}"
        )
    return reports


def against_the_layers(found: Iterable[Edge]) -> list[str]:
    """Each import against ``engine ← events ← server``, readable."""
    return [
        f"  {e.source} imports {e.target}   [{e.where()}]"
        for e in found
        if e.target.split(".")[0] not in MAY_IMPORT[e.source.split(".")[0]]
    ]


def across_the_rooms(found: Iterable[Edge]) -> list[str]:
    """Each import of one room of ``events/`` against :data:`ROOMS_MAY_IMPORT`, readable."""
    wrong = []
    for e in found:
        source = room(e.source)
        if source not in ROOMS_MAY_IMPORT:
            continue
        target = room(e.target)
        if target.split(".")[0] == "engine":
            target = "engine"
        if target not in ROOMS_MAY_IMPORT[source]:
            wrong.append(f"  {e.source} imports {e.target}   [{e.where()}]")
    return wrong


def inside_functions(found: Iterable[Edge], allowed: dict[str, str]) -> list[str]:
    """Each project import inside a function body that the allowlist does not name."""
    return [
        f"  {e.path}:{e.line}: {e.source} imports {e.target} inside a function"
        for e in found
        if e.in_function and f"{e.path}:{e.target}" not in allowed
    ]


KNOWN = modules(ROOT, PACKAGES)
EDGES = edges(ROOT, KNOWN)


def test_the_graph_is_read() -> None:
    """A reader that found nothing would pass every check below: make sure it finds the graph."""
    assert {"engine", "events", "server", "client"} <= set(KNOWN)
    assert {e.target.split(".")[0] for e in EDGES} == set(PACKAGES)


def test_no_import_circles() -> None:
    cycles = describe_cycles(EDGES)
    assert not cycles, "import circles (TYPE_CHECKING imports count):\n" + "\n".join(cycles)


def test_dependencies_point_one_way() -> None:
    wrong = against_the_layers(EDGES)
    assert not wrong, "imports against engine ← events ← server (docs/design.md):\n" + "\n".join(
        wrong
    )


def test_the_rooms_of_events_point_one_way() -> None:
    rooms = {r for r in ROOMS_MAY_IMPORT if r.startswith("events.")}
    assert {room(m) for m in KNOWN if m.startswith("events.")} >= rooms
    wrong = across_the_rooms(EDGES)
    assert not wrong, "imports across the rooms of events/ (docs/design.md):\n" + "\n".join(wrong)


def test_the_rooms_check_catches_a_domain_importing_the_store() -> None:
    edge = Edge("events.domain.decider", "events.store.event_store", "x.py", 1, False, False)
    ok = Edge("events.store.streams", "events.domain.types", "y.py", 2, False, False)
    assert across_the_rooms([edge, ok]) == [
        "  events.domain.decider imports events.store.event_store   [x.py:1]"
    ]


def test_no_project_imports_inside_functions() -> None:
    hidden = inside_functions(EDGES, INSIDE_FUNCTION_ALLOWED)
    assert not hidden, (
        "project modules imported inside functions hide the graph; import them at the top "
        "(or, for a real optional dependency, add it to INSIDE_FUNCTION_ALLOWED):\n"
        + "\n".join(hidden)
    )


def test_the_allowlist_is_current() -> None:
    """An allowance for an import that is gone should go too."""
    used = {f"{e.path}:{e.target}" for e in EDGES if e.in_function}
    assert set(INSIDE_FUNCTION_ALLOWED) <= used, set(INSIDE_FUNCTION_ALLOWED) - used


def test_the_checks_catch_what_they_should(tmp_path: Path) -> None:
    """The reader on a made-up tree: relative imports, submodules, functions, TYPE_CHECKING."""
    files = {
        "engine/__init__.py": "from engine.a import A\n",
        "engine/a.py": "A = 1\n",
        "events/__init__.py": "",
        "events/b.py": "import typing\nif typing.TYPE_CHECKING:\n    from .c import C\n",
        "events/c.py": "from . import b\ndef f():\n    import server.d\n",
        "events/sub/__init__.py": "from .. import c\nfrom ..b import x\n",
        "server/__init__.py": "",
        "server/d.py": "import engine.a as a\nfrom engine import A\n",
        "server/e.py": "from events import sub\nfrom server.d import *\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    known = modules(tmp_path, PACKAGES)
    found = edges(tmp_path, known)
    pairs = {(e.source, e.target, e.in_function, e.type_checking) for e in found}
    assert pairs == {
        ("engine", "engine.a", False, False),
        ("events.b", "events.c", False, True),
        ("events.c", "events.b", False, False),
        ("events.c", "server.d", True, False),
        ("events.sub", "events.c", False, False),
        ("events.sub", "events.b", False, False),
        ("server.e", "events.sub", False, False),
        ("server.e", "server.d", False, False),
        ("server.d", "engine.a", False, False),
        ("server.d", "engine", False, False),
    }
    graph = _graph(found)
    assert strongly_connected(graph) == [["events.b", "events.c"]]
    (report,) = describe_cycles(found)
    assert "events.b -> events.c   [events/b.py:3 (TYPE_CHECKING)]" in report
    assert "events.c -> events.b   [events/c.py:1]" in report
    assert against_the_layers(found) == [
        "  events.c imports server.d   [events/c.py:3 (in a function)]"
    ]
    assert inside_functions(found, {}) == [
        "  events/c.py:3: events.c imports server.d inside a function"
    ]
    assert inside_functions(found, {"events/c.py:server.d": "optional"}) == []
