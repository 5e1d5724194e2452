"""One route of the route table (:class:`Route`): its method, path, handler and what the API
reference says of it."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

from server.openapi.operation import Operation

__all__ = ["Handler", "Route"]

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

_PATTERN = re.compile(r"\{(\w+):[^}]*\}")


@dataclass(frozen=True)
class Route:
    """One route: ``method`` on ``path`` (aiohttp's template, ``{name}`` or ``{name:regex}``)
    is answered by ``handler``; ``operation`` is what the API reference says of it."""

    method: str
    path: str
    handler: Handler
    operation: Operation

    @property
    def template(self) -> str:
        """The path as OpenAPI writes it: ``{name}`` for aiohttp's ``{name:regex}``."""
        return _PATTERN.sub(r"{\1}", self.path)

    @property
    def operation_id(self) -> str:
        """The document's ``operationId``: the handler's name (``handle_`` left off)."""
        return self.handler.__name__.removeprefix("handle_")
