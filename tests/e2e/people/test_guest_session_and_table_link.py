"""A guest keeps their seat, and a table's link lands on its table (issue 29).

The page keeps its session in localStorage: every tab of a browser is the same player, a new
tab or a reopened browser too (a new context with the first one's storage stands for both),
until the token expires or is revoked. Someone who opens a table's link signed out watches it,
gets in from there and is at that table, not in the lobby. And a guest keeps their account,
seat and all, with a username and password.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from tests.e2e.harness import LiveServer
from tests.e2e.pages import create_table, sign_in
from tests.server.conftest import User

PASSWORD = "a guest no more"


def stored_session(page: Page) -> dict[str, Any]:
    value = page.evaluate("() => localStorage.getItem('chouette.session')")
    assert value, "no session in localStorage"
    session: dict[str, Any] = json.loads(value)
    return session


def test_a_guest_is_the_same_player_in_a_new_tab_and_a_reopened_browser(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    server = live_server
    ann = sign_in(new_page(base_url=server.url), "Ann")
    session = stored_session(ann.page)
    # The session lasts as long as the token: a guest's lifetime, from the server.
    assert session["expires_at"] > 0 and "expires_in" not in session
    table = create_table(ann, "money")
    expect(ann.test_id("role")).to_contain_text("You are playing.")

    # A new tab of the same browser: the same player, at their seat.
    tab = ann.page.context.new_page()
    tab.goto(f"/#/table/{table}")
    expect(tab.get_by_test_id("who")).to_have_text("Signed in as Ann (guest)")
    expect(tab.get_by_test_id("role")).to_contain_text("You are playing.")

    # The browser closed and opened again: a new context with the first one's storage.
    state = ann.page.context.storage_state()
    again = new_page(base_url=server.url, storage_state=state)
    again.goto(f"/#/table/{table}")
    expect(again.get_by_test_id("who")).to_have_text("Signed in as Ann (guest)")
    expect(again.get_by_test_id("role")).to_contain_text("You are playing.")
    assert server.run(server.api.state(table, ann.user))["role"] == "player"
    # The lobby shows the returning player their own table first, one click from the seat.
    again.goto("/#/lobby")
    mine = again.locator(f'[data-testid="your-table"][data-table-id="{table}"]')
    for _ in range(40):  # the lobby is a projection: a moment behind the log
        try:
            expect(mine).to_be_visible(timeout=250)
            break
        except AssertionError:
            again.get_by_test_id("lobby-refresh").click()
    expect(mine).to_be_visible()
    first_row = again.get_by_test_id("lobby-row").first
    expect(first_row).to_have_attribute("data-table-id", table)
    mine.get_by_test_id("your-table-open").click()
    expect(again).to_have_url(re.compile(f"#/table/{table}$"))
    expect(again.get_by_test_id("role")).to_contain_text("You are playing.")

    # Logging out in one tab is heard by the other (the storage event): both are signed out.
    ann.page.get_by_test_id("logout").click()
    expect(ann.test_id("who")).to_have_text("Not signed in")
    expect(tab.get_by_test_id("who")).to_have_text("Not signed in")
    expect(tab.get_by_test_id("role")).to_contain_text("You are watching (not signed in).")
    assert tab.evaluate("() => localStorage.getItem('chouette.session')") is None
    # The reopened browser still holds the token, which the server revoked: its next request
    # is a 401, and the page forgets the session and shows its page signed out.
    again.goto("/#/lobby")
    expect(again.get_by_test_id("who")).to_have_text("Not signed in")
    assert again.evaluate("() => localStorage.getItem('chouette.session')") is None


def test_an_expired_session_is_forgotten(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    page = new_page(base_url=live_server.url)
    ann = sign_in(page, "Ann")
    session = stored_session(page)
    session["expires_at"] = 1  # long past
    page.evaluate("value => localStorage.setItem('chouette.session', value)", json.dumps(session))
    page.reload()
    expect(page.get_by_test_id("who")).to_have_text("Not signed in")
    expect(page.get_by_test_id("guest-form")).to_be_visible()
    assert page.evaluate("() => localStorage.getItem('chouette.session')") is None
    # (The server would still take the token: the page let it go at the time it was told.)
    me = live_server.run(live_server.api.request("GET", "/me", user=ann.user))
    assert me.status == 200


def test_a_table_link_opened_signed_out_lands_on_its_table_after_getting_in(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    server = live_server
    host = server.run(server.api.guest("Host"))
    table = server.run(server.api.create_table(host, "money"))
    server.run(server.api.ok(host, table, "join"))
    eve = server.run(server.api.register("eve", "correct horse"))

    # As a guest: watching, then "get in", and still at the table, free to sit down.
    dot = new_page(base_url=server.url)
    dot.goto(f"/#/table/{table}")
    expect(dot.get_by_test_id("who")).to_have_text("Not signed in")
    expect(dot.get_by_test_id("role")).to_contain_text("You are watching (not signed in).")
    dot.get_by_test_id("table-get-in-open").click()
    dot.get_by_test_id("guest-name").fill("Dot")
    dot.get_by_test_id("guest-submit").click()
    expect(dot.get_by_test_id("who")).to_have_text("Signed in as Dot (guest)")
    expect(dot).to_have_url(re.compile(f"#/table/{table}$"))
    expect(dot.get_by_test_id("table-title")).to_be_visible()
    expect(dot.get_by_test_id("role")).to_contain_text("You are watching.")
    expect(dot.get_by_test_id("watching-banner")).to_have_count(0)
    dot.get_by_test_id("cmd-join").click()
    expect(dot.get_by_test_id("role")).to_contain_text("You are playing.")
    dot_session = stored_session(dot)
    view = server.run(
        server.api.state(table, User(dot_session["token"], dot_session["account_id"], "", ""))
    )
    assert view["role"] == "player"

    # Logging in: the same, at the same table.
    page = new_page(base_url=server.url)
    page.goto(f"/#/table/{table}")
    expect(page.get_by_test_id("role")).to_contain_text("You are watching (not signed in).")
    page.get_by_test_id("table-get-in-open").click()
    page.get_by_test_id("login-username").fill("eve")
    page.get_by_test_id("login-password").fill("correct horse")
    page.get_by_test_id("login-submit").click()
    expect(page.get_by_test_id("who")).to_have_text(f"Signed in as {eve.display_name}")
    expect(page).to_have_url(re.compile(f"#/table/{table}$"))
    expect(page.get_by_test_id("role")).to_contain_text("You are watching.")
    expect(page.get_by_test_id("watching-banner")).to_have_count(0)


def test_a_guest_kept_as_an_account_on_the_page_keeps_the_seat(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    server = live_server
    server.run(server.api.register("taken_name", "correct horse"))
    ann = sign_in(new_page(base_url=server.url), "Ann")
    table = create_table(ann, "money")
    bob = server.run(server.api.guest("Bob"))
    server.run(server.api.ok(bob, table, "join"))
    expect(ann.test_id("role")).to_contain_text("You are playing.")
    guest_token = stored_session(ann.page)["token"]

    # A taken username: refused, said on the form, and Ann is the guest she was.
    ann.click("keep-open")
    ann.test_id("keep-username").fill("taken_name")
    ann.test_id("keep-password").fill(PASSWORD)
    ann.click("keep-submit")
    expect(ann.test_id("keep-status")).to_contain_text("taken")
    expect(ann.test_id("who")).to_have_text("Signed in as Ann (guest)")
    assert stored_session(ann.page)["token"] == guest_token

    ann.test_id("keep-username").fill("ann_kept")
    ann.click("keep-submit")
    expect(ann.test_id("who")).to_have_text("Signed in as Ann")
    expect(ann.test_id("keep-guest")).to_have_count(0)
    expect(ann.page).to_have_url(re.compile(f"#/table/{table}$"))
    expect(ann.test_id("role")).to_contain_text("You are playing.")
    kept = stored_session(ann.page)
    assert kept["account_id"] == ann.account_id and kept["guest"] is False
    assert kept["username"] == "ann_kept" and kept["token"] != guest_token

    # The server agrees: the same account, registered, at its seat; the guest token is gone.
    now = User(kept["token"], ann.account_id, "ann_kept", "Ann")
    assert server.run(server.api.state(table, now))["role"] == "player"
    me = server.run(server.api.request("GET", "/me", user=now))
    assert me.body["guest"] is False and me.body["account_id"] == ann.account_id
    old = server.run(server.api.request("GET", "/me", user=ann.user))
    assert old.status == 401
    login = server.run(
        server.api.request("POST", "/sessions", json={"username": "ann_kept", "password": PASSWORD})
    )
    assert login.status == 200 and login.body["account_id"] == ann.account_id
    # The profile link follows the new username.
    ann.click("my-profile")
    expect(ann.page).to_have_url(re.compile("#/player/ann_kept$"))
    expect(ann.test_id("profile-name")).to_have_text("Ann")


def test_an_invitation_opened_signed_out_lands_on_its_table_after_getting_in(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    server = live_server
    owner = server.run(server.api.register())
    made = server.run(
        server.api.request(
            "POST", "/tables", user=owner, json={"kind": "money", "options": {"private": True}}
        )
    )
    table = made.body["id"]
    invitation = server.run(server.api.request("POST", f"/tables/{table}/invitations", user=owner))
    assert invitation.status == 201, invitation.body
    page = new_page(base_url=server.url)
    page.goto(f"/#/invite/{invitation.body['code']}")
    expect(page.get_by_test_id("invite-get-in")).to_be_visible()
    page.get_by_test_id("guest-name").fill("Fay")
    page.get_by_test_id("guest-submit").click()
    expect(page).to_have_url(re.compile(f"#/table/{table}$"))
    expect(page.get_by_test_id("who")).to_have_text("Signed in as Fay (guest)")
    expect(page.get_by_test_id("role")).to_contain_text("You are watching.")
    expect(page.get_by_test_id("cmd-join")).to_be_visible()


def test_the_keep_form_fits_a_phone(
    live_server: LiveServer,
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    width = 360
    page = new_page(
        base_url=live_server.url,
        viewport={"width": width, "height": 740},
        is_mobile=True,
        has_touch=True,
    )
    sign_in(page, "Ann")
    page.get_by_test_id("keep-open").click()
    form = page.get_by_test_id("keep-form")
    expect(form).to_be_visible()
    box = form.bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
    for control in ("keep-username", "keep-password", "keep-submit"):
        expect(page.get_by_test_id(control)).to_be_in_viewport()
    screenshot(page, "keep-form-phone")
    # Cancel (or Escape) closes it, still a guest.
    page.get_by_test_id("keep-cancel").click()
    expect(form).to_be_hidden()
    page.get_by_test_id("keep-open").click()
    page.get_by_test_id("keep-username").press("Escape")
    expect(form).to_be_hidden()
    expect(page.get_by_test_id("keep-open")).to_be_focused()
    expect(page.get_by_test_id("who")).to_be_attached()
