"""The web client's files (:mod:`server.http.web`): the page and its modules are served from the
package with their content types, a strict Content-Security-Policy and revalidation, and no path
reaches outside ``server/static``."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

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
