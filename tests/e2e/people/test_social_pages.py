"""The social pages (issue 15), in a real browser: a private table's creator makes an
invitation link on the table page and a friend who opens it lands at the table, a revoked link
stops working; a rated match shows its rating change at its end; the profile and the
leaderboards show what the read models say."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect

from server.keys import LOBBY
from tests.e2e.harness import LiveServer
from tests.e2e.pages import Player, create_table, keep_session, table_id_of


def enter_registered(page: Page, server: LiveServer) -> Player:
    """A registered account whose page is already signed in."""
    user = server.run(server.api.register())
    session = {
        "token": user.token,
        "account_id": user.account_id,
        "username": user.username,
        "display_name": user.display_name,
        "guest": False,
    }
    keep_session(page, session)
    return Player(page, user.username, user.account_id, user.token)


def test_an_invitation_link_opens_a_private_table_until_revoked(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    ann = enter_registered(new_page(base_url=live_server.url), live_server)
    bob = enter_registered(new_page(base_url=live_server.url), live_server)
    cat = enter_registered(new_page(base_url=live_server.url, allow_errors=True), live_server)
    ann.page.goto("/#/lobby")
    table_id = create_table(ann, "chouette", private=True)
    ann.click("make-invitation")
    url = ann.test_id("invitation-url").inner_text()
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/#/invite/[A-Za-z0-9_-]{32}", url), url
    # Not in the lobby, for anyone.
    assert live_server.api.app is not None
    live_server.run(live_server.api.app[LOBBY].catch_up())
    bob.page.goto("/#/lobby")
    expect(bob.test_id("lobby-status")).to_contain_text("table")
    expect(bob.page.locator(f"[data-table-id='{table_id}']")).to_have_count(0)
    # The link opens the table for bob.
    bob.page.goto(url)
    expect(bob.page).to_have_url(re.compile(f"#/table/{table_id}"))
    expect(bob.test_id("table-title")).to_be_visible()
    # Revoked: cat's copy of the link does not work.
    ann.click("revoke-invitation")
    expect(ann.test_id("invitations")).to_contain_text("revoked")
    cat.page.goto(url)
    expect(cat.test_id("social-error")).to_contain_text("unknown or was revoked")
    # The table is found by name among ann's private tables.
    ann.page.goto("/#/lobby")
    expect(ann.test_id("my-tables")).to_contain_text("chouette table")
    assert table_id_of(bob.page) == table_id


def test_a_rated_match_profile_and_leaderboards(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    api = live_server.api
    ann = enter_registered(new_page(base_url=live_server.url), live_server)
    bob = live_server.run(api.register())
    r = live_server.run(
        api.request(
            "POST",
            "/tables",
            user=ann.user,
            json={"kind": "match", "options": {"match_length": 1, "rated": True}},
        )
    )
    table_id = r.body["id"]
    live_server.run(api.ok(ann.user, table_id, "join"))
    live_server.run(api.ok(bob, table_id, "join"))
    ann.open_table(table_id)
    live_server.run(api.ok(ann.user, table_id, "roll"))
    live_server.run(api.ok(bob, table_id, "leave"))  # bob forfeits: ann wins the match
    # Both new, equal, 1 point: 4·5·1·½ = 10.
    expect(ann.test_id("rating-change")).to_contain_text("+10.00 (1510.00)")
    expect(ann.test_id("rating-change")).to_contain_text("\u221210.00 (1490.00)")

    ann.page.goto(f"/#/player/{ann.name}")
    expect(ann.test_id("profile-name")).to_have_text(ann.name.title())
    expect(ann.test_id("profile-rating")).to_contain_text("Rating 1510.00, experience 1")
    expect(ann.test_id("profile-history")).to_contain_text("Won a 1-point match")
    expect(ann.test_id("profile-stats")).to_contain_text("Matches")

    ann.page.goto("/#/leaderboards")
    expect(ann.test_id("rating-note")).to_contain_text("at least 25 points")
    expect(ann.test_id("chouette-board")).to_contain_text("No chouette games")
    ann.page.get_by_test_id("my-profile").click()
    expect(ann.test_id("profile-name")).to_have_text(ann.name.title())
