"""``/docs``: the interactive API reference, Swagger UI as the ``swagger-ui-py`` package ships
it — its page template and its bundled scripts and styles, served from the installed package
under ``/docs/static/`` (no CDN, so the reference works offline), pointed at ``/openapi.json``
(:mod:`server.openapi.document`).

The package's own aiohttp integration is not used: it points the page at a document under its
own prefix (serving a copy of ours there, with a Swagger 2 ``host`` key added), and registers a
``/docs/`` alias and a static route for every file of the package (the editor's too), none of
which an operation in the document describes.
"""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web
from swagger_ui.core import ApplicationDocument

from server.http.problems import not_found

__all__ = ["DOCS_PREFIX", "DocsPage", "docs", "docs_asset", "docs_page", "register", "spec"]

DOCS_PREFIX = "/docs"


class _Reference(ApplicationDocument):
    """swagger-ui-py's page, pointed at ``/openapi.json`` (the package would otherwise point it
    at a copy of the document under its own prefix)."""

    @property
    def swagger_json_uri_absolute(self) -> str:
        return "/openapi.json"


def _reference() -> _Reference:
    return _Reference(
        None,
        url_prefix=DOCS_PREFIX,
        title="chouette API reference",
        config_rel_url="/openapi.json",
        parameters={
            # Swagger UI's options, as JavaScript expressions.
            "layout": '"BaseLayout"',  # no top bar to load another document
            "validatorUrl": "null",  # no badge fetched from the online validator
            "filter": "true",
            "defaultModelsExpandDepth": "1",
            "docExpansion": '"list"',
        },
    )


_ASSET_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".png": "image/png",
}
"""The kinds of file the page loads (a name of another kind is never served)."""

_ASSET = re.compile(re.escape(DOCS_PREFIX) + r"/static/([A-Za-z0-9_][A-Za-z0-9_.-]*)")


@dataclass(frozen=True, slots=True)
class DocsPage:
    """The rendered page, the package's files it loads by name (the only ones served), and its
    headers."""

    html: str
    assets: dict[str, Path]
    headers: dict[str, str]


def docs_page() -> DocsPage:
    """Render swagger-ui-py's page template, and find the assets it names in its folder."""
    reference = _reference()
    # The template opens with a comment; the page starts with its doctype.
    html = reference.doc_html[reference.doc_html.index("<!DOCTYPE") :]
    folder = Path(reference.static_dir)
    assets = {
        name: folder / name
        for name in _ASSET.findall(html)
        if Path(name).suffix in _ASSET_TYPES and (folder / name).is_file()
    }
    headers = {
        "Content-Security-Policy": _csp(html),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }
    return DocsPage(html, assets, headers)


_DOCS_KEY = web.AppKey("openapi_docs", DocsPage)
_SPEC_KEY = web.AppKey("openapi", bytes)


def _csp(html: str) -> str:
    """The page's policy: everything from this origin, and the template's inline script by
    its hash (the page is rendered once, so the hash is fixed)."""
    scripts = re.findall(r"<script>(.*?)</script>", html, flags=re.DOTALL)
    hashes = "".join(
        " 'sha256-" + base64.b64encode(hashlib.sha256(js.encode()).digest()).decode() + "'"
        for js in scripts
    )
    return (
        f"default-src 'self'; script-src 'self'{hashes}; style-src 'self' 'unsafe-inline';"
        " img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none';"
        " frame-ancestors 'none'"
    )


def register(app: web.Application, document: bytes) -> None:
    """Render the page once, and keep the OpenAPI ``document`` it shows (both depend on the
    code only: :func:`server.openapi.document.register_extras`)."""
    app[_DOCS_KEY] = docs_page()
    app[_SPEC_KEY] = document


async def spec(request: web.Request) -> web.Response:
    """``GET /openapi.json``: the document, as :func:`register` was given it."""
    return web.Response(body=request.app[_SPEC_KEY], content_type="application/json")


async def docs(request: web.Request) -> web.Response:
    """``GET /docs``: Swagger UI's page, which loads ``/openapi.json``."""
    page = request.app[_DOCS_KEY]
    return web.Response(text=page.html, content_type="text/html", headers=page.headers)


async def docs_asset(request: web.Request) -> web.FileResponse:
    """``GET /docs/static/{asset}``: one of the files the page loads, from the package; aiohttp
    answers conditional requests with 304 from the file's ETag and modification time."""
    name = request.match_info["asset"]
    path = request.app[_DOCS_KEY].assets.get(name)
    if path is None:
        raise not_found(f"no asset {name!r}")
    return web.FileResponse(
        path,
        headers={
            "Content-Type": _ASSET_TYPES[path.suffix],
            "Cache-Control": "no-cache",
            "X-Content-Type-Options": "nosniff",
        },
    )
