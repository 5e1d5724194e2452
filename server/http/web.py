"""The web client's files: ``GET /`` (the page) and ``GET /static/{path}`` (its modules, style
and images), served from the package's ``server/static`` folder with no build step.

Every answer carries a strict Content-Security-Policy: scripts, styles and fetches only from this
origin (no inline script, no CDN), the table's WebSocket on the same host, images from here or
``data:`` URLs. Paths are checked segment by segment before the file system is touched, so no
``..``, hidden file or symlink out of the folder is served. Files are revalidated on each load
(``no-cache`` with an ETag): the modules are not fingerprinted, so a new release must never be
hidden behind a stale cache.

The text files (HTML, JavaScript, CSS, SVG) are read and gzip-compressed once, kept in memory
until the file's modification time or size changes, and sent compressed to a client whose
``Accept-Encoding`` takes gzip (``Vary: Accept-Encoding``; identity to any other), with an ETag of
their content. The page announces every module it will import, transitively, as a
``<link rel="modulepreload">``: read from the modules' own ``import ... from "./x.js"`` lines when
the page is served, so the browser fetches them all at once instead of import by import, and the
list cannot go stale.
"""

from __future__ import annotations

import gzip
import hashlib
import posixpath
import re
from dataclasses import dataclass
from datetime import UTC, datetime
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

_TEXT = frozenset({".html", ".js", ".mjs", ".css", ".svg"})
"""The kinds sent gzip-compressed to a client that takes it (the others are compressed already)."""

_IMPORT = re.compile(
    r"""^[ \t]*(?:import|export)[ \t]+(?:[^;"'`]*?[\s}*]from[ \t]*)?["'](\.{1,2}/[^"'\s]+)["']""",
    re.M,
)
"""A module's static import (or re-export) of another by a relative path: ``import { a } from
"./x.js"``, ``import * as g from "../y.js"``, ``import "./z.js"``, at the start of a line."""

_MODULE_SCRIPT = re.compile(r'<script type="module" src="/static/([^"]+)"></script>')
"""The page's entry modules, as ``index.html`` writes them."""

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


@dataclass(frozen=True, slots=True)
class _Text:
    """A text file as it is sent: its bytes, gzip-compressed once, and what names this version."""

    stamp: tuple[object, ...]
    """The modification times and sizes it was made from: another stamp, and it is made again."""
    body: bytes
    gzipped: bytes
    tag: str
    """The ETag's opaque part, from the content (the compressed body's is this with ``-gz``)."""
    modified: datetime
    imports: tuple[str, ...] = ()
    """A module's relative imports, as paths under ``STATIC`` (``lib/dom.js``)."""

    @classmethod
    def of(
        cls, stamp: tuple[object, ...], body: bytes, modified: datetime, imports: tuple[str, ...]
    ) -> _Text:
        """Compressed here, once for each version of the file."""
        return cls(
            stamp=stamp,
            body=body,
            gzipped=gzip.compress(body, compresslevel=9, mtime=0),
            tag=hashlib.sha256(body).hexdigest()[:20],
            modified=modified,
            imports=imports,
        )


_texts: dict[Path, _Text] = {}
"""Each text file served, as last read (a few hundred KB for the whole page)."""
_pages: dict[tuple[object, ...], _Text] = {}
"""The page with its preload links, by the stamps of ``index.html`` and of every module in it."""


def _text(path: Path) -> _Text:
    """``path`` (resolved, inside ``STATIC``) as it is sent, read again only when it changed."""
    st = path.stat()
    stamp: tuple[object, ...] = (st.st_mtime_ns, st.st_size)
    known = _texts.get(path)
    if known is not None and known.stamp == stamp:
        return known
    body = path.read_bytes()
    imports: tuple[str, ...] = ()
    if path.suffix in (".js", ".mjs"):
        here = posixpath.dirname(path.relative_to(STATIC).as_posix())
        found = (
            posixpath.normpath(posixpath.join(here, spec))
            for spec in _IMPORT.findall(body.decode("utf-8", "replace"))
        )
        imports = tuple(dict.fromkeys(f for f in found if not f.startswith("../")))
    modified = datetime.fromtimestamp(st.st_mtime_ns // 1_000_000_000, UTC)
    made = _Text.of(stamp, body, modified, imports)
    _texts[path] = made
    return made


def _module(name: str) -> _Text | None:
    """The module at ``name`` (a path under ``STATIC``), or None if there is no such file."""
    path = STATIC / name
    if path.suffix not in (".js", ".mjs") or not path.is_file():
        return None
    return _text(path)


def _modules(entries: list[str]) -> list[str]:
    """Every module ``entries`` import, transitively, nearest first, the entries left out."""
    seen = dict.fromkeys(entries)
    queue = list(entries)
    while queue:
        module = _module(queue.pop(0))
        for name in module.imports if module is not None else ():
            if name not in seen:
                seen[name] = None
                queue.append(name)
    return [name for name in seen if name not in entries and _module(name) is not None]


def _page() -> _Text:
    """``index.html`` with a ``modulepreload`` link for each module its entries import."""
    raw = _text(STATIC / "index.html")
    html = raw.body.decode("utf-8")
    entries = _MODULE_SCRIPT.findall(html)
    preload = _modules(entries)
    stamp = (raw.stamp, *((name, _texts[STATIC / name].stamp) for name in preload))
    known = _pages.get(stamp)
    if known is not None:
        return known
    links = "".join(f'  <link rel="modulepreload" href="/static/{name}">\n' for name in preload)
    body = html.replace("</head>", links + "</head>", 1).encode("utf-8")
    newest = max([raw.modified, *(_texts[STATIC / name].modified for name in preload)])
    _pages.clear()  # only the current page is worth keeping
    made = _Text.of(stamp, body, newest, ())
    _pages[stamp] = made
    return made


def _takes_gzip(request: web.Request) -> bool:
    """Whether ``Accept-Encoding`` takes gzip: named (or ``*``) with a q-value above 0. A
    value that cannot be read takes nothing but identity."""
    header = request.headers.get("Accept-Encoding", "")
    weights: dict[str, float] = {}
    for item in header.split(","):
        coding, _, params = item.partition(";")
        q = 1.0
        for param in params.split(";") if params else ():
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value.strip())
                except ValueError:
                    q = 0.0
                if not 0.0 <= q <= 1.0:
                    q = 0.0
        weights[coding.strip().lower()] = q
    q = weights.get("gzip", weights.get("x-gzip", weights.get("*", 0.0)))
    return q > 0.0


def _send(request: web.Request, text: _Text, content_type: str) -> web.Response:
    """``text`` with the page's headers, compressed if the client takes gzip; 304 for an
    ``If-None-Match`` naming either encoding's ETag, or (without one) an ``If-Modified-Since``
    no older than the file."""
    gz = _takes_gzip(request)
    headers = _headers(request, content_type)
    headers["Vary"] = "Accept-Encoding"
    headers["ETag"] = f'"{text.tag}-gz"' if gz else f'"{text.tag}"'
    headers["Last-Modified"] = text.modified.strftime("%a, %d %b %Y %H:%M:%S GMT")
    tags = request.if_none_match
    if tags is not None:
        fresh = any(t.value in ("*", text.tag, f"{text.tag}-gz") for t in tags)
    else:
        since = request.if_modified_since
        fresh = since is not None and text.modified <= since
    if fresh:
        del headers["Content-Type"]
        return web.Response(status=304, headers=headers)
    if gz:
        headers["Content-Encoding"] = "gzip"
        return web.Response(body=text.gzipped, headers=headers)
    return web.Response(body=text.body, headers=headers)


def _file(request: web.Request, path: Path) -> web.StreamResponse:
    """A file with the page's headers: a text file from memory (:func:`_send`), any other by
    aiohttp, which answers ``If-None-Match`` and ``If-Modified-Since`` with 304 from the file's
    ETag and modification time."""
    if path.suffix in _TEXT:
        return _send(request, _text(path), _TYPES[path.suffix])
    return web.FileResponse(path, headers=_headers(request, _TYPES[path.suffix]))


async def index(request: web.Request) -> web.StreamResponse:
    """``GET /``: the page. Routing inside it is by ``location.hash``, so this one URL serves
    the lobby, every table and every replay."""
    return _send(request, _page(), _TYPES[".html"])


async def static(request: web.Request) -> web.StreamResponse:
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
