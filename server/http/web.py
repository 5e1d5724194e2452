"""The web client's files: ``GET /`` (the page) and ``GET /static/{path}`` (its modules, style
and images), served from the package's ``server/static`` folder with no build step.

Every answer carries a strict Content-Security-Policy: scripts, styles and fetches only from this
origin (no inline script, no CDN), the table's WebSocket on the same host, images from here or
``data:`` URLs. Paths are checked segment by segment before the file system is touched, so no
``..``, hidden file or symlink out of the folder is served. Files are revalidated on each load
(``no-cache`` with an ETag): the modules are not fingerprinted, so a new release must never be
hidden behind a stale cache.
"""

from __future__ import annotations

import re
from pathlib import Path

from aiohttp import web

from server.http.problems import not_found

__all__ = ["STATIC", "content_security_policy", "index", "static"]

STATIC = Path(__file__).resolve().parents[1] / "static"
"""The folder of the page's files, inside the installed package."""

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
}
"""The file kinds served, by suffix; anything else is a 404 (the folder may hold tests)."""

_SEGMENT = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
"""One path segment: no leading dot (no ``..``, no hidden files), no separators."""

_HOST = re.compile(r"[A-Za-z0-9.\-]+(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")
"""A Host header that may be written into the policy (anything else falls back to 'self')."""


def content_security_policy(host: str | None) -> str:
    """The page's policy. ``connect-src`` names the WebSocket schemes of the request's host
    explicitly, since browsers before CSP Level 3 do not count ``ws:`` as 'self'."""
    connect = "'self'"
    if host and _HOST.fullmatch(host):
        connect += f" ws://{host} wss://{host}"
    return "; ".join(
        (
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            f"connect-src {connect}",
            "font-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        )
    )


def _headers(request: web.Request, content_type: str) -> dict[str, str]:
    return {
        "Content-Type": content_type,
        "Content-Security-Policy": content_security_policy(request.host),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-cache",
    }


def _file(request: web.Request, path: Path) -> web.FileResponse:
    """A file with the page's headers; aiohttp answers ``If-None-Match`` and
    ``If-Modified-Since`` with 304 from the file's ETag and modification time."""
    return web.FileResponse(path, headers=_headers(request, _TYPES[path.suffix]))


async def index(request: web.Request) -> web.FileResponse:
    """``GET /``: the page. Routing inside it is by ``location.hash``, so this one URL serves
    the lobby, every table and every replay."""
    return _file(request, STATIC / "index.html")


async def static(request: web.Request) -> web.FileResponse:
    """``GET /static/{path}``: one of the page's files, or 404."""
    raw = request.match_info["path"]
    segments = raw.split("/")
    if not all(_SEGMENT.fullmatch(s) for s in segments):
        raise not_found(f"no file {raw!r}")
    path = STATIC.joinpath(*segments)
    if path.suffix not in _TYPES:
        raise not_found(f"no file {raw!r}")
    try:
        resolved = path.resolve(strict=True)
    except (FileNotFoundError, RuntimeError):
        raise not_found(f"no file {raw!r}") from None
    if not resolved.is_relative_to(STATIC) or not resolved.is_file():
        raise not_found(f"no file {raw!r}")
    return _file(request, resolved)
