"""A chouette night's page (issue 32, item 5), in a real browser: from a table, the night's
ledger — who is up, who is down — and who pays whom, as GET /nights answers; a second table
added from the player's own tables joins the same ledger."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from engine.tournament import settle
from tests.e2e.harness import LiveServer
from tests.e2e.people.test_social_pages import enter_registered
from tests.server.people.test_nights import _money_game_by_drop


def test_the_nights_ledger_and_who_pays_whom(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    api = live_server.api
    ann = enter_registered(new_page(base_url=live_server.url), live_server)
    bob = live_server.run(api.register())
    cat = live_server.run(api.register())
    # A money table (public) and a private chouette of ann's, where bob and cat play money too.
    money = live_server.run(api.create_table(ann.user, "money"))
    live_server.run(api.ok(ann.user, money, "join"))
    live_server.run(api.ok(bob, money, "join"))
    pair = {ann.account_id: ann.user, bob.account_id: bob}
    won = live_server.run(_money_game_by_drop(api, money, pair))
    lost = next(p for p in pair if p != won)
    # The names the tables know them by (the server's form of the names they registered).
    view = live_server.run(api.state(money))
    names = {p["id"]: p["name"] for p in view["players"]}

    ann.open_table(money)
    ann.click("night-link")
    expect(ann.test_id("night-ledger")).to_contain_text(names[won])
    rows = ann.test_id("night-ledger").locator("tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text(f"{names[won]}+11")  # name, +1, one game
    expect(rows.nth(1)).to_contain_text(f"{names[lost]}\u221211")
    expect(ann.test_id("night-payments")).to_have_text(f"{names[lost]} pays {names[won]} 1 point.")
    expect(ann.test_id("night-note")).to_contain_text("the fewest")

    # Her private money table, where she plays cat, added from her own tables.
    private = live_server.run(api.create_table(ann.user, "money", private=True))
    invited = live_server.run(
        api.request("POST", f"/tables/{private}/invitations", user=ann.user, json={})
    )
    assert invited.status == 201, invited.body
    redeemed = live_server.run(
        api.request("POST", "/invitations", user=cat, json={"code": invited.body["code"]})
    )
    assert redeemed.status in (200, 201), redeemed.body
    live_server.run(api.ok(ann.user, private, "join"))
    live_server.run(api.ok(cat, private, "join"))
    again = {ann.account_id: ann.user, cat.account_id: cat}
    won2 = live_server.run(_money_game_by_drop(api, private, again))
    ann.page.reload()
    ann.test_id("night-add").select_option(private)
    expect(ann.test_id("night-tables").locator("li")).to_have_count(2)
    ledger = {ann.account_id: 0, bob.account_id: 0, cat.account_id: 0}
    ledger[won] += 1
    ledger[lost] -= 1
    ledger[won2] += 1
    ledger[next(p for p in again if p != won2)] -= 1
    for player, amount in ledger.items():
        row = ann.page.locator(f"[data-testid='night-ledger'] tr[data-player='{player}']")
        if amount:
            expect(row.locator("td").nth(1)).to_have_text(
                f"+{amount}" if amount > 0 else f"\u2212{-amount}"
            )
        else:
            expect(row.locator("td").nth(1)).to_have_text("0")
    payments = ann.test_id("night-payments").locator("li")
    expect(payments).to_have_count(len(settle(ledger).payments) or 1)  # (or "Everyone is square.")
