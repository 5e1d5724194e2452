"""Every route of the server, in one table (:data:`ROUTES`), and the one function that registers
them on the app (:func:`add_routes`, which :func:`server.app.create_app` calls): nothing else
adds a route.

The table is kept by area, one module each — :mod:`~server.http.routes.accounts`,
:mod:`~server.http.routes.tables` (with the live streams), :mod:`~server.http.routes.records`,
:mod:`~server.http.routes.social`, :mod:`~server.http.routes.tournaments` and
:mod:`~server.http.routes.operations` (with the API reference and
the page) — and :data:`ROUTES` is them in that order. Each :class:`~server.http.routes.route.Route` is
its method, its path (aiohttp's template), its handler and what the API reference says of it
(:class:`~server.openapi.operation.Operation`): its tag, summary and description, the statuses
it answers with and the types of their bodies, the problems it can answer, its request body's
type and examples, its parameters and who may call it. The OpenAPI document
(:mod:`server.openapi.document`) is generated from this table, so a route added here is in the
document; ``tests/server/operations/test_api_reference.py`` checks that every route the app has is.
"""

from __future__ import annotations

from aiohttp import web

from server.http.routes import accounts, operations, records, social, tables, tournaments
from server.http.routes.route import Handler, Route

__all__ = ["ROUTES", "Handler", "Route", "add_routes"]

ROUTES: tuple[Route, ...] = (
    accounts.ROUTES
    + tables.ROUTES
    + records.ROUTES
    + social.ROUTES
    + tournaments.ROUTES
    + operations.ROUTES
)


def add_routes(app: web.Application) -> None:
    """Register every route of :data:`ROUTES` on ``app``, in the table's order. A ``GET`` also
    answers ``HEAD`` (aiohttp's ``add_get``), as it always has."""
    for route in ROUTES:
        if route.method == "GET":
            app.router.add_get(route.path, route.handler)
        else:
            app.router.add_route(route.method, route.path, route.handler)
