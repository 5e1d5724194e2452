"""What a person does on the page, as the browser tests say it: get in, create or join a table,
roll, move, answer the cube; and what they read there (the status, the ledger, the board).

Every helper drives the real page (clicks, typing, keys) and waits on what the page shows, never
on time. The page's Content-Security-Policy forbids ``eval``, so waits are Playwright locator
expectations (``expect(...)``), not ``wait_for_function`` strings. ``Player`` ties one page (one
browser context) to the account it signed in as, so a test can also ask the API what that person
sees (``GET /tables/{id}``) and compare it with the page.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Locator, Page, expect

from tests.e2e.harness import LiveServer
from tests.server.conftest import User

__all__ = [
    "Player",
    "board_counts",
    "click_point",
    "create_table",
    "enter",
    "expect_ledger",
    "find_in_lobby",
    "keep_session",
    "seated_table",
    "sign_in",
    "table_id_of",
]


@dataclass
class Player:
    """One person: their page (own browser context) and their account."""

    page: Page
    name: str
    account_id: str
    token: str

    @property
    def user(self) -> User:
        """The account as the API tests' helpers take it."""
        return User(self.token, self.account_id, self.name, self.name)

    def view(self, server: LiveServer, table_id: str) -> dict[str, Any]:
        """``GET /tables/{id}`` as this person."""
        return server.run(server.api.state(table_id, self.user))

    def test_id(self, test_id: str) -> Locator:
        return self.page.get_by_test_id(test_id)

    def open_table(self, table_id: str) -> None:
        """Go to the table's page (a hash route of the one page: no reload once loaded)."""
        self.page.goto(f"/#/table/{table_id}")
        expect(self.test_id("table-title")).to_be_visible()
        expect(self.test_id("status")).not_to_be_empty()

    def click(self, test_id: str) -> None:
        """Click a control once it is offered and enabled."""
        control = self.test_id(test_id)
        expect(control).to_be_enabled()
        control.click()

    def expect_status(self, text: str | re.Pattern[str]) -> None:
        """The status line says this (a plain string: contains it; a pattern: matches)."""
        status = expect(self.test_id("status"))
        if isinstance(text, str):
            status.to_contain_text(text)
        else:
            status.to_have_text(text)

    def type_play(self, notation: str) -> None:
        """Type a play in the notation box and press Enter."""
        box = self.test_id("move-input")
        box.fill(notation)
        box.press("Enter")


def sign_in(page: Page, name: str) -> Player:
    """Open the page and play as a guest called ``name``."""
    page.goto("/")
    page.get_by_test_id("guest-name").fill(name)
    page.get_by_test_id("guest-submit").click()
    expect(page.get_by_test_id("who")).to_have_text(f"Signed in as {name} (guest)")
    session = page.evaluate("() => JSON.parse(localStorage.getItem('chouette.session'))")
    return Player(page, name, session["account_id"], session["token"])


def keep_session(page: Page, session: dict[str, Any]) -> None:
    """Sign the page's browser context in as ``session`` (the page's ``chouette.session``:
    token, account_id, username, display_name, guest): put in its localStorage before any of
    its scripts run, unless the context holds a session already (so a log-out, a log-in or a
    guest kept as an account lasts across reloads, as in a browser)."""
    value = json.dumps(json.dumps(session))
    page.context.add_init_script(
        "if (!localStorage.getItem('chouette.session'))"
        f" localStorage.setItem('chouette.session', {value});"
    )


def enter(page: Page, server: LiveServer, name: str) -> Player:
    """A guest called ``name`` whose page is already signed in (the session the page keeps,
    put in its storage before any of its scripts run: :func:`keep_session`): quicker than
    :func:`sign_in`, for the tests about something else. The page is blank until the test
    opens a route. The session is the browser context's, shared by all its pages and tabs:
    two players need two contexts (``new_page`` makes one each)."""
    user = server.run(server.api.guest(name))
    session = {
        "token": user.token,
        "account_id": user.account_id,
        "username": user.username,
        "display_name": user.display_name,
        "guest": True,
    }
    keep_session(page, session)
    return Player(page, name, user.account_id, user.token)


def table_id_of(page: Page) -> str:
    """The table id in the page's address (``#/table/<id>``)."""
    match = re.search(r"#/(?:table|replay)/([^/]+)", page.url)
    assert match, page.url
    return match.group(1)


def create_table(player: Player, kind: str, **checks: bool) -> str:
    """Create a table from the lobby's form (and sit at it); returns its id.

    ``checks`` ticks option boxes by their test id without the ``create-`` prefix
    (``beavers=True``)."""
    page = player.page
    page.get_by_test_id("create-kind").select_option(kind)
    for name, on in checks.items():
        page.get_by_test_id(f"create-{name.replace('_', '-')}").set_checked(on)
    page.get_by_test_id("create-submit").click()
    expect(page).to_have_url(re.compile(r"#/table/"))
    expect(page.get_by_test_id("table-title")).to_be_visible()
    return table_id_of(page)


def find_in_lobby(player: Player, table_id: str) -> Locator:
    """The table's row in the player's lobby, refreshed until it is there (the lobby is a
    projection of the log: a moment behind it)."""
    row = player.page.locator(f'[data-testid="lobby-row"][data-table-id="{table_id}"]')
    for _ in range(40):
        player.click("lobby-refresh")
        try:
            expect(row).to_be_visible(timeout=250)
        except AssertionError:
            continue
        return row
    raise AssertionError(f"table {table_id} never showed in the lobby")


def seated_table(server: LiveServer, player: Player, kind: str, **options: Any) -> str:
    """A table made through the API with ``player`` at it (quicker than the lobby's form, for
    the tests about something else); returns its id."""
    table = server.run(server.api.create_table(player.user, kind, **options))
    server.run(server.api.ok(player.user, table, "join"))
    return table


def click_point(player: Player, point: int) -> None:
    """Click a place of the board (the viewer's numbering: 25 the bar, 0 borne off)."""
    player.test_id(f"point-{point}").click()


def board_counts(board: Locator) -> dict[str, list[int]]:
    """The checkers the board shows, read from its places' accessible names ("Point 6: 5
    checkers of Ann", "Bar: 1 checker of Ann, 0 checkers of Bob"): ``{"viewer": [26 counts],
    "opponent": [26 counts]}`` in each side's own numbering, as the API's ``sides[i].board``."""
    labels: list[tuple[int, str]] = board.locator("[data-point]").evaluate_all(
        "els => els.map(e => [Number(e.dataset.point), e.getAttribute('aria-label')])"
    )
    viewer = [0] * 26
    opponent = [0] * 26
    bar = dict(labels)[25].split(": ", 1)[1].split(";")[0]
    on_bar = re.fullmatch(r"(\d+) checkers? of (.+), (\d+) checkers? of (.+)", bar)
    assert on_bar, bar
    viewer[25], mine, opponent[25] = int(on_bar[1]), on_bar[2], int(on_bar[3])
    for point, label in labels:
        text = label.split(": ", 1)[1].split(";")[0]
        if point == 25 or text == "empty":
            continue
        found = re.fullmatch(r"(\d+) checkers? of (.+)", text)
        assert found, label
        if point == 0:
            viewer[0] = int(found[1])
        elif found[2] == mine:
            viewer[point] = int(found[1])
        else:
            opponent[25 - point] = int(found[1])
    return {"viewer": viewer, "opponent": opponent}


def expect_ledger(player: Player, amounts: dict[str, int]) -> None:
    """The page's ledger shows these amounts (by account id)."""
    for account, amount in amounts.items():
        expect(player.test_id(f"ledger-{account}")).to_have_attribute("data-amount", str(amount))


CONTROL_ROLES = frozenset(
    (
        "button",
        "link",
        "textbox",
        "searchbox",
        "checkbox",
        "radio",
        "switch",
        "combobox",
        "listbox",
        "slider",
        "spinbutton",
        "menuitem",
        "tab",
        "DisclosureTriangle",
    )
)
"""Roles of controls (Chromium's names: a ``summary`` is a DisclosureTriangle). Any other
element that takes the focus counts too (the board's places, the chat logs)."""

NOT_CONTROLS = frozenset(("RootWebArea", "main"))
"""Focusable, but not controls: the document, and ``main`` (focused by the skip link)."""


def control_names(page: Page) -> list[tuple[str, str]]:
    """The page's shown controls and focusable elements with their accessible names, as
    Chromium computes them for assistive technology: one snapshot of its accessibility tree
    (through the DevTools protocol), so a redraw cannot come between. Each as (role, and the
    element's ``data-testid`` or id where it still has one; name). Elements not shown
    (``hidden``, ``display: none``) are not in the tree."""
    cdp = page.context.new_cdp_session(page)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
        out = []
        for ax in nodes:
            if ax.get("ignored"):
                continue
            role = str(ax.get("role", {}).get("value", ""))
            props = {p["name"]: p.get("value", {}).get("value") for p in ax.get("properties", [])}
            if role in NOT_CONTROLS or not (role in CONTROL_ROLES or props.get("focusable")):
                continue
            what = role
            try:
                node = cdp.send("DOM.describeNode", {"backendNodeId": ax["backendDOMNodeId"]})
                attrs = node["node"].get("attributes", [])
                named = dict(zip(attrs[::2], attrs[1::2], strict=True))
                what += (
                    f" {named.get('data-testid') or named.get('id') or node['node']['localName']}"
                )
            except Exception:
                pass  # redrawn since: the role says enough
            out.append((what, str(ax.get("name", {}).get("value", "")).strip()))
        return out
    finally:
        cdp.detach()


def expect_all_named(page: Page, at_least: int = 1) -> list[tuple[str, str]]:
    """Every shown control of the page has an accessible name (and there are ``at_least``
    of them: the check saw the page); returns them."""
    controls = control_names(page)
    missing = [what for what, name in controls if not name]
    assert not missing, f"controls without an accessible name: {missing}"
    assert len(controls) >= at_least, controls
    return controls
