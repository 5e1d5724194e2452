"""The web client's files (:mod:`server.http.web`): the page and its modules are served from the
package with their content types, a strict Content-Security-Policy and revalidation, and no path
reaches outside ``server/static``."""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from yarl import URL

from server.http import web as page
from server.http.problems import error_middleware

Client = TestClient[web.Request, web.Application]


@pytest.fixture
async def client(aiohttp_client: Callable[[web.Application], Awaitable[Client]]) -> Client:
    # Only the two routes: serving files needs no database.
    app = web.Application(middlewares=[error_middleware])
    app.router.add_get("/", page.index)
    app.router.add_get("/static/{path:.+}", page.static)
    return await aiohttp_client(app)


async def test_the_page_and_its_policy(client: Client) -> None:
    resp = await client.get("/")
    assert resp.status == 200
    assert resp.headers["Content-Type"].startswith("text/html")
    assert '<script type="module" src="/static/app.js">' in await resp.text()
    csp = resp.headers["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'self'"
    assert directives["script-src"] == "'self'"  # no inline script, no eval, no CDN
    assert directives["img-src"] == "'self' data:"
    host = resp.request_info.url.host
    assert f"ws://{host}:" in directives["connect-src"]
    assert directives["connect-src"].startswith("'self'")
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    assert resp.headers["Cache-Control"] == "no-cache"


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("app.js", "text/javascript"),
        ("style.css", "text/css"),
        ("favicon.svg", "image/svg+xml"),
    ],
)
async def test_static_files_have_their_types(client: Client, path: str, kind: str) -> None:
    resp = await client.get(f"/static/{path}")
    assert resp.status == 200
    assert resp.headers["Content-Type"].startswith(kind)
    assert "Content-Security-Policy" in resp.headers
    # Revalidated, not re-sent: the modules are not fingerprinted.
    again = await client.get(f"/static/{path}", headers={"If-None-Match": resp.headers["ETag"]})
    assert again.status == 304


@pytest.mark.parametrize(
    "path",
    [
        "/static/../web.py",
        "/static/..%2fweb.py",
        "/static/%2e%2e/web.py",
        "/static/a/../../web.py",
        "/static/.hidden.js",
        "/static/nothing.js",
        "/static/package.json",  # the Node test runner's marker, not part of the page
        "/static//etc/passwd",
    ],
)
async def test_nothing_outside_the_page_is_served(client: Client, path: str) -> None:
    # As written: the client must not normalise the dots away before the server sees them.
    resp = await client.get(URL(path, encoded=True), allow_redirects=False)
    assert resp.status == 404
    assert resp.headers["Content-Type"].startswith("application/problem+json")


def test_every_module_the_page_imports_is_there() -> None:
    """Each ``import ... from "./x.js"`` of a served module names a file in the folder."""
    for module in page.STATIC.glob("*.js"):
        for name in re.findall(r'from\s+"\./([^"]+)"', module.read_text()):
            assert (page.STATIC / name).is_file(), (module.name, name)


@pytest.fixture
async def raw(aiohttp_client: Callable[[web.Application], Awaitable[Client]]) -> Client:
    """The same two routes, with a client that leaves the body as it was sent."""
    app = web.Application(middlewares=[error_middleware])
    app.router.add_get("/", page.index)
    app.router.add_get("/static/{path:.+}", page.static)
    return await aiohttp_client(app, auto_decompress=False)  # type: ignore[call-arg]


TEXT_FILES = ["app.js", "style.css", "favicon.svg", "lib/dom.js", "table/table.js"]


@pytest.mark.parametrize("path", TEXT_FILES)
@pytest.mark.parametrize("accept", ["gzip", "gzip, deflate, br, zstd", "br;q=1, GZIP;q=0.5", "*"])
async def test_text_files_are_gzipped_for_who_takes_it(raw: Client, path: str, accept: str) -> None:
    resp = await raw.get(f"/static/{path}", headers={"Accept-Encoding": accept})
    assert resp.status == 200
    assert resp.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in resp.headers["Vary"]
    body = await resp.read()
    assert int(resp.headers["Content-Length"]) == len(body)
    original = (page.STATIC / path).read_bytes()
    assert gzip.decompress(body) == original
    assert len(body) < len(original)
    assert resp.headers["Cache-Control"] == "no-cache"
    assert "Content-Security-Policy" in resp.headers


@pytest.mark.parametrize("path", TEXT_FILES)
@pytest.mark.parametrize(
    "accept", [None, "identity", "gzip;q=0", "br, deflate", "gzip;q=2", "gzip;q=x", "*, gzip;q=0"]
)
async def test_identity_for_who_does_not(raw: Client, path: str, accept: str | None) -> None:
    if accept is None:  # no Accept-Encoding at all
        resp = await raw.get(f"/static/{path}", skip_auto_headers=["Accept-Encoding"])
    else:
        resp = await raw.get(f"/static/{path}", headers={"Accept-Encoding": accept})
    assert resp.status == 200
    assert "Content-Encoding" not in resp.headers
    assert "Accept-Encoding" in resp.headers["Vary"]
    assert await resp.read() == (page.STATIC / path).read_bytes()


async def test_the_page_itself_is_gzipped(raw: Client) -> None:
    plain = await raw.get("/", headers={"Accept-Encoding": "identity"})
    packed = await raw.get("/", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in plain.headers
    assert packed.headers["Content-Encoding"] == "gzip"
    assert packed.headers["Vary"] == plain.headers["Vary"] == "Accept-Encoding"
    assert gzip.decompress(await packed.read()) == await plain.read()
    # The two encodings are two representations: each its own ETag.
    assert packed.headers["ETag"] != plain.headers["ETag"]


async def test_revalidation_of_either_encoding(raw: Client) -> None:
    first = await raw.get("/static/app.js", headers={"Accept-Encoding": "gzip"})
    tag, modified = first.headers["ETag"], first.headers["Last-Modified"]
    for accept in ("gzip", "identity"):
        again = await raw.get(
            "/static/app.js", headers={"Accept-Encoding": accept, "If-None-Match": tag}
        )
        assert again.status == 304
        assert await again.read() == b""
        assert again.headers["Vary"] == "Accept-Encoding"
        assert "Content-Encoding" not in again.headers
    since = await raw.get("/static/app.js", headers={"If-Modified-Since": modified})
    assert since.status == 304
    other = await raw.get(
        "/static/app.js", headers={"If-None-Match": '"elsewhere"', "If-Modified-Since": modified}
    )
    assert other.status == 200  # a tag that does not match outweighs the date
    head = await raw.head("/static/app.js", headers={"Accept-Encoding": "gzip"})
    assert head.status == 200
    assert head.headers["Content-Length"] == first.headers["Content-Length"]
    assert await head.read() == b""


def _closure(entry: str) -> set[str]:
    """The modules ``entry`` imports, transitively, read here line by line (not as the server
    reads them): every line that begins with ``import``, its last quoted relative path."""
    found: set[str] = set()
    todo = [entry]
    while todo:
        module = todo.pop()
        for line in (page.STATIC / module).read_text().splitlines():
            if not line.startswith("import"):
                continue
            quoted = re.findall(r'"([^"]+)"', line)
            assert quoted, (module, line)
            spec = quoted[-1]
            assert spec.startswith("./") or spec.startswith("../"), (module, spec)
            name = os.path.normpath(os.path.join(os.path.dirname(module), spec))
            assert (page.STATIC / name).is_file(), (module, spec)
            if name not in found:
                found.add(name)
                todo.append(name)
    return found


async def test_the_page_preloads_every_module_it_imports(client: Client) -> None:
    html = await (await client.get("/")).text()
    preloaded = re.findall(r'<link rel="modulepreload" href="/static/([^"]+)">', html)
    expected = _closure("app.js")
    assert len(expected) > 20  # the lobby, the table, the replay and what they use
    assert {"table/table.js", "board/geometry.js", "fair/sha256.js"} <= expected
    assert sorted(preloaded) == sorted(expected)  # each once, the entry not among them
    assert html.index("modulepreload") < html.index("</head>")
    for name in preloaded:  # each link names a module that is served
        assert (await client.get(f"/static/{name}")).status == 200


async def test_files_are_compressed_once_for_each_version(
    raw: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a folder of its own: the page and a module, each compressed once however often it is
    asked for, again when it changes; and the page's preload list follows the modules."""
    folder = tmp_path.resolve()
    (folder / "lib").mkdir()
    (folder / "index.html").write_text(
        '<head>\n  <script type="module" src="/static/app.js"></script>\n</head>\n'
    )
    (folder / "app.js").write_text('import { a } from "./lib/a.js";\n')
    (folder / "lib" / "a.js").write_text("export const a = 1;\n")
    (folder / "lib" / "b.js").write_text("export const b = 2;\n")
    monkeypatch.setattr(page, "STATIC", folder)
    compressed: list[bytes] = []
    compress = gzip.compress

    def counting(data: bytes, compresslevel: int = 9, *, mtime: float | None = None) -> bytes:
        compressed.append(data)
        return compress(data, compresslevel, mtime=mtime)

    monkeypatch.setattr(gzip, "compress", counting)
    gz = {"Accept-Encoding": "gzip"}
    for _ in range(3):
        assert (await raw.get("/static/lib/a.js", headers=gz)).status == 200
        assert (await raw.get("/static/lib/a.js")).status == 200
    assert compressed.count(b"export const a = 1;\n") == 1

    async def preloads() -> list[str]:
        resp = await raw.get("/", headers={"Accept-Encoding": "identity"})
        html = (await resp.read()).decode()
        return re.findall(r'rel="modulepreload" href="/static/([^"]+)"', html)

    assert await preloads() == ["lib/a.js"]
    assert await preloads() == ["lib/a.js"]
    assert sum(b"modulepreload" in c for c in compressed) == 1

    # A new import: the page lists it at once (the sizes differ, so no clock tick is needed).
    (folder / "lib" / "a.js").write_text('import { b } from "./b.js";\nexport const a = b;\n')
    assert await preloads() == ["lib/a.js", "lib/b.js"]
    resp = await raw.get("/static/lib/a.js", headers=gz)
    assert gzip.decompress(await resp.read()).startswith(b'import { b } from "./b.js"')
    assert sum(b"modulepreload" in c for c in compressed) == 2
