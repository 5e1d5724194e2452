"""The API reference: ``/openapi.json`` is valid OpenAPI 3.1 and true to the running server
(every route, real statuses, examples the request types accept, answers the documented types
decode exactly), and ``/docs`` is Swagger UI served from this origin only."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import msgspec
from aiohttp.test_utils import TestClient
from openapi_spec_validator import validate

from server.keys import LOBBY
from server.openapi import document as openapi
from tests.server.conftest import PROBLEM, Api, Reply, connect

METHODS = ("get", "post", "put", "patch", "delete")

TYPES: dict[str, Any] = {t.__name__: t for t in openapi.BODIES} | openapi.NAMED
"""Every named schema of the document, by the type it was generated from."""


async def _doc(api: Api) -> dict[str, Any]:
    r = await api.request("GET", "/openapi.json")
    assert r.status == 200 and r.content_type == "application/json"
    return dict(r.body)


def _operations(doc: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {
        (method, path): op
        for path, item in doc["paths"].items()
        for method, op in item.items()
        if method in METHODS
    }


def _schema_type(media: dict[str, Any]) -> Any | None:
    ref = media.get("schema", {}).get("$ref")
    return TYPES[ref.rsplit("/", 1)[-1]] if ref else None


def conforms(doc: dict[str, Any], method: str, path: str, reply: Reply) -> Any:
    """Assert that an answer is one the document gives for the operation (status and content
    type), and that its body is exactly what the documented type encodes: decoded with it and
    turned back into JSON values, nothing is lost, added or changed."""
    op = doc["paths"][path][method]
    response = op["responses"].get(str(reply.status))
    assert response is not None, (method, path, reply.status, reply.body)
    content = response.get("content", {})
    assert reply.content_type in content or "*/*" in content, (path, reply.content_type)
    kind = _schema_type(content.get(reply.content_type, {}))
    if kind is None:
        return reply.body
    decoded = msgspec.convert(reply.body, type=kind)
    # Through JSON, not to_builtins: a tuple field (the dice, a step) is a list in JSON.
    assert msgspec.json.decode(msgspec.json.encode(decoded)) == reply.body, (path, reply.status)
    return decoded


# -- the document -----------------------------------------------------------------------------


async def test_the_document_is_valid_openapi_3_1(api: Api) -> None:
    doc = await _doc(api)
    assert doc["openapi"].startswith("3.1.")
    validate(doc)


async def test_every_route_is_documented_and_every_documented_path_is_routed(api: Api) -> None:
    doc = await _doc(api)
    assert api.app is not None
    routed = {
        (route.method.lower(), route.resource.canonical)  # type: ignore[union-attr]
        for route in api.app.router.routes()
        if route.method not in ("HEAD", "OPTIONS")
    }
    assert routed == set(_operations(doc))


async def test_each_operation_lists_the_statuses_it_really_answers(api: Api) -> None:
    ops = _operations(await _doc(api))
    statuses = {key: set(op["responses"]) for key, op in ops.items()}
    assert len({frozenset(s) for s in statuses.values()}) >= 10
    assert statuses["get", "/healthz"] == {"200"}
    assert statuses["get", "/readyz"] == {"200", "503"}
    assert statuses["post", "/tables/{table_id}/commands"] == {
        *("200", "201", "400", "401", "403", "404", "409", "413", "422", "429", "503")
    }
    assert statuses["post", "/tables"] == {"200", "201", "400", "401", "409", "413", "429", "503"}
    assert statuses["get", "/tables/{table_id}/ws"] >= {"101", "404"}
    for (method, path), op in ops.items():
        codes = statuses[method, path]
        # A token is asked for exactly where it can be refused (logging in refuses a password).
        assert ("401" in codes) == ("security" in op or path == "/sessions"), (method, path)
        # Only the operations with a body can meet a body too large.
        assert ("413" in codes) == ("requestBody" in op), (method, path)
        for status, response in op["responses"].items():
            assert response["description"], (method, path, status)
            if status >= "400" and (method, path) != ("get", "/readyz"):
                assert list(response["content"]) == [PROBLEM], (method, path, status)
                assert response["content"][PROBLEM]["schema"]["$ref"].endswith("/Problem")
        assert op["summary"] and op["description"] and op["tags"], (method, path)


async def test_security_and_parameters(api: Api) -> None:
    doc = await _doc(api)
    ops = _operations(doc)
    required = [{"bearer": []}]
    for key in (
        ("delete", "/sessions"),
        ("get", "/me"),
        ("post", "/tables"),
        ("post", "/tables/{table_id}/commands"),
        ("get", "/log"),
    ):
        assert ops[key]["security"] == required, key
    for key in (("get", "/tables/{table_id}"), ("get", "/tables/{table_id}/replay")):
        assert {} in ops[key]["security"] and {"bearer": []} in ops[key]["security"], key
    assert {"ticket": []} in ops["get", "/tables/{table_id}/ws"]["security"]
    assert "security" not in ops["get", "/healthz"] and "security" not in ops["get", "/tables"]
    schemes = doc["components"]["securitySchemes"]
    assert schemes["ticket"] == {**schemes["ticket"], "type": "apiKey", "in": "query"}
    assert "token" not in schemes  # a token is never accepted in a URL

    def param(key: tuple[str, str], name: str) -> dict[str, Any]:
        return next(p for p in ops[key].get("parameters", []) if p["name"] == name)

    assert param(("get", "/tables/{table_id}/replay"), "at")["schema"]["minimum"] == 1
    assert param(("get", "/tables/{table_id}/ws"), "after")["schema"]["minimum"] == 0
    assert param(("get", "/log"), "limit")["schema"]["minimum"] == 1
    assert param(("get", "/tables"), "kind")["schema"]["enum"] == ["money", "match", "chouette"]
    assert param(("get", "/tables/{table_id}"), "table_id")["schema"]["format"] == "uuid"


async def test_the_game_flow_and_account_ids_are_explained(api: Api) -> None:
    doc = await _doc(api)
    overview = doc["info"]["description"]
    for words in ("opening throw", "start_game", "box or the captain", "account ids", "`cubes`"):
        assert words in overview, words
    schemas = doc["components"]["schemas"]
    # The unions are named: the events a stream carries, the commands, the table view.
    assert {"Event", "Command", "TableView"} <= set(schemas)
    assert len(schemas["Event"]["anyOf"]) == len(TYPES["Event"].__args__)
    assert schemas["Event"]["discriminator"]["propertyName"] == "type"
    op = doc["paths"]["/tables/{table_id}"]["get"]
    assert op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/TableView"
    )


async def test_the_examples_decode_with_the_request_types_they_illustrate(api: Api) -> None:
    doc = await _doc(api)
    seen: dict[tuple[str, str], list[str]] = {}
    for key, op in _operations(doc).items():
        media = op.get("requestBody", {}).get("content", {}).get("application/json")
        if not media:
            continue
        kind = _schema_type(media)
        assert kind is not None, key
        for name, example in media.get("examples", {}).items():
            # As the server decodes a body: JSON in, the request type out (unknown fields fail).
            msgspec.json.decode(msgspec.json.encode(example["value"]), type=kind)
            seen.setdefault(key, []).append(name)
    commands = [
        op["requestBody"]["content"]["application/json"]["examples"][name]["value"]["command"]
        for (method, path), names in seen.items()
        if path == "/tables/{table_id}/commands"
        for name in names
        for op in [doc["paths"][path][method]]
    ]
    assert {"type": "move", "notation": "13/7 8/7"} in commands
    assert any(c["type"] == "double" and len(c.get("cubes", [])) == 2 for c in commands)
    assert any(c["type"] == "take" and c.get("cube") for c in commands)
    for command in ("join", "start_game", "roll", "resign", "chat"):
        assert any(c["type"] == command for c in commands), command
    assert set(seen) >= {("post", "/accounts"), ("post", "/guests"), ("post", "/tables")}
    # The server takes the table examples as they are.
    user = await api.register()
    examples = doc["paths"]["/tables"]["post"]["requestBody"]["content"]["application/json"]
    assert "chouette" in examples["examples"]
    for example in examples["examples"].values():
        reply = await api.request("POST", "/tables", user=user, json=example["value"])
        assert reply.status == 201, reply.body
        conforms(doc, "post", "/tables", reply)


# -- the answers are the documented types ---------------------------------------------------


async def test_real_answers_are_exactly_the_documented_types(api: Api, client: TestClient) -> None:
    doc = await _doc(api)
    user = await api.register()
    conforms(doc, "get", "/healthz", await api.request("GET", "/healthz"))
    conforms(doc, "get", "/readyz", await api.request("GET", "/readyz"))
    conforms(doc, "get", "/me", await api.request("GET", "/me", user=user))
    conforms(doc, "get", "/me", await api.request("GET", "/me"))  # 401, a problem
    guest = await api.request("POST", "/guests", json={"display_name": "Cat"})
    conforms(doc, "post", "/guests", guest)

    table, a, b = await api.seat_two("money")
    await api.ok(a, table, "roll")
    state = await api.state(table)
    conforms(doc, "get", "/tables/{table_id}", await api.request("GET", f"/tables/{table}"))
    assert state["game"]["phase"] == "move"
    mover = a if state["game"]["to_act"] == [a.account_id] else b
    played = await api.send(
        mover, table, {"type": "move", "notation": state["game"]["legal_plays"][0]["notation"]}
    )
    conforms(doc, "post", "/tables/{table_id}/commands", played)
    refused = await api.send(mover, table, {"type": "double"})
    assert conforms(doc, "post", "/tables/{table_id}/commands", refused).status in (403, 409)
    invalid = await api.send(mover, table, {"type": "move", "notation": 7})
    assert conforms(doc, "post", "/tables/{table_id}/commands", invalid).field == "command.notation"

    await api.app[LOBBY].catch_up()  # type: ignore[index]
    lobby = conforms(doc, "get", "/tables", await api.request("GET", "/tables"))
    assert [t.id for t in lobby.tables] == [table]

    version = (await api.versions(table))[0]
    for at in (1, version):
        path = f"/tables/{table}/replay?at={at}"
        replay = conforms(doc, "get", "/tables/{table_id}/replay", await api.request("GET", path))
        assert replay.at == at and replay.version == version
    conforms(doc, "get", "/tables/{table_id}/replay", await api.request("GET", path + "0"))
    audit = conforms(
        doc, "get", "/tables/{table_id}/audit", await api.request("GET", f"/tables/{table}/audit")
    )
    assert audit.status == "pending" and audit.first_failure is None

    ws = await connect(client, table, a)
    await ws.wait_version(version)
    for message in ws.messages:
        msgspec.convert(message, type=TYPES["EventMessage"])
        msgspec.convert(message["d"], type=TYPES["Event"])
    reply = await ws.command({"type": "chat", "text": "gg"})
    assert msgspec.convert(reply, type=TYPES["CommandReply"]).stream == "chat"
    reply = await ws.command({"type": "start_game"})
    refused_ws = msgspec.convert(reply, type=TYPES["CommandRefused"])
    assert msgspec.to_builtins(refused_ws) == reply
    await ws.close()
    ahead = await connect(client, table, a, after=version + 5)
    await ahead.wait_for(lambda c: bool(c.controls))
    resync = msgspec.convert(ahead.controls[0], type=TYPES["Resync"])
    assert msgspec.to_builtins(resync) == ahead.controls[0] and resync.stream == "table"
    await ahead.close()


async def test_the_global_feed_and_the_chouette_export_are_documented(make_api: Any) -> None:
    api = await make_api(auditor_token="let-me-audit")
    doc = await _doc(api)
    table, _, _ = await api.seat_two("money")
    auditor = {"Authorization": "Bearer let-me-audit"}
    feed = conforms(doc, "get", "/log", await api.request("GET", "/log", headers=auditor))
    assert {e.stream for e in feed.events} == {f"table-{table}"}
    conforms(doc, "get", "/log", await api.request("GET", "/log?limit=0", headers=auditor))
    conforms(
        doc, "get", "/log", await api.request("GET", "/log", headers={"Authorization": "Bearer no"})
    )
    user = await api.register()
    chouette = await api.create_table(user, "chouette")
    path = "/tables/{table_id}/export.mat"
    conforms(doc, "get", path, await api.request("GET", f"/tables/{chouette}/export.mat"))
    conforms(doc, "get", path, await api.request("GET", f"/tables/{table}/export.mat"))


# -- /docs --------------------------------------------------------------------------------------


class _Links(HTMLParser):
    """The URLs a page loads (``src`` and ``href``), and its inline scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.urls += [v for k, v in found.items() if k in ("src", "href") and v]
        self._in_script = tag == "script" and "src" not in found

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.inline.append(data)


async def test_the_docs_page_loads_only_its_own_assets(api: Api) -> None:
    r = await api.request("GET", "/docs")
    assert r.status == 200 and r.content_type == "text/html"
    page = r.body
    assert page.startswith("<!DOCTYPE html>")
    links = _Links()
    links.feed(page)
    assert len(links.urls) >= 4
    types = {".js": "text/javascript", ".css": "text/css", ".png": "image/png"}
    for url in links.urls:
        assert url.startswith("/docs/static/") and "//" not in url, url
        asset = await api.request("GET", url)
        assert asset.status == 200, url
        assert asset.content_type == types[url[url.rindex(".") :]], (url, asset.content_type)
        assert asset.headers["X-Content-Type-Options"] == "nosniff"
    assert any(u.endswith("swagger-ui-bundle.js") for u in links.urls)
    # The one inline script starts Swagger UI on this server's document, with nothing fetched
    # from elsewhere (the online validator's badge is off).
    [script] = links.inline
    assert 'url: "/openapi.json"' in script and "validatorUrl: null" in script
    assert not re.search(r"https?://", page)
    policy = r.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "'unsafe-inline'" not in policy.split(";")[1]


async def test_docs_assets_are_only_the_pages_files(api: Api) -> None:
    url = "/docs/static/swagger-ui.css"
    first = await api.request("GET", url)
    again = await api.request("GET", url, headers={"If-None-Match": first.headers["ETag"]})
    assert again.status == 304
    # Files of the package the page does not load, and anything else, are not served.
    for name in ("swagger-editor.js", "LICENSE", "oauth2-redirect.html", "..%2Fcore.py", "nope"):
        (await api.request("GET", f"/docs/static/{name}")).problem(404, "not-found")
