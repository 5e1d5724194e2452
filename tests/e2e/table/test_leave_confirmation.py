"""No one-click forfeit (issue 29): the Leave button sits in the table's header, apart from Roll,
Double and Take; in mid-game it asks first, in a modal alert dialog that states what leaving
costs as the server's view says it (``leave_cost``), its focus on Cancel. Escape and Cancel
leave everything as it was (no event is written); "Leave and forfeit" forfeits, and the
ledgers move by exactly the stated points. Between games Leave acts at once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.dice import ScriptedDice
from tests.e2e.harness import LiveServer
from tests.e2e.pages import Player, enter, expect_ledger, seated_table


def table_version(server: LiveServer, table: str) -> int:
    return server.run(server.api.versions(table))[0]


def expect_no_dialog(player: Player) -> None:
    expect(player.page.get_by_role("alertdialog")).to_have_count(0)


def test_leaving_mid_game_asks_first_and_costs_what_it_said(
    make_live_server: Callable[..., LiveServer],
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    dice = ScriptedDice([(5, 4)])
    server = make_live_server(dice_factory=lambda table: dice)
    ann, bob = (enter(new_page(base_url=server.url), server, n) for n in ("Ann", "Bob"))
    table = seated_table(server, ann, "money")
    server.run(server.api.ok(bob.user, table, "join"))
    for p in (ann, bob):
        p.open_table(table)
        # Leave is in the header, not among the game's actions.
        expect(p.page.locator("header.table-head").get_by_test_id("cmd-leave")).to_have_count(1)
        expect(p.test_id("actions").get_by_test_id("cmd-leave")).to_have_count(0)

    # The opening throw starts the game: Bob's page learns what leaving costs him now from
    # the throw's own message (it does not fetch the view).
    ann.click("cmd-roll")
    bob.expect_status("Waiting for Ann to move 5-4")
    cost = bob.view(server, table)["leave_cost"]
    assert cost is not None and cost["points"] < 0, cost
    before = table_version(server, table)
    ledger = bob.view(server, table)["ledger"]

    # Leave asks first: the view's words and points, the focus on Cancel. Escape cancels.
    bob.click("cmd-leave")
    dialog = bob.page.get_by_role("alertdialog", name="Leave and forfeit?")
    expect(dialog).to_be_visible()
    expect(bob.test_id("leave-text")).to_have_text(cost["text"])
    expect(bob.test_id("leave-points")).to_have_attribute("data-points", str(cost["points"]))
    expect(bob.test_id("leave-points")).to_contain_text(f"\u2212{-cost['points']} points")
    expect(bob.test_id("leave-cancel")).to_be_focused()
    screenshot(bob.page, "leave-dialog-bob")
    bob.page.keyboard.press("Escape")
    expect_no_dialog(bob)
    assert table_version(server, table) == before
    expect(bob.test_id("role")).to_contain_text("You are playing.")

    # Cancel changes nothing either.
    bob.click("cmd-leave")
    expect(dialog).to_be_visible()
    bob.click("leave-cancel")
    expect_no_dialog(bob)
    assert table_version(server, table) == before
    assert bob.view(server, table)["ledger"] == ledger

    # "Leave and forfeit": Bob forfeits, and the ledgers move by just what he was told.
    bob.click("cmd-leave")
    bob.click("leave-confirm")
    expect(bob.test_id("role")).to_contain_text("You are watching.")
    expect_no_dialog(bob)
    after = ann.view(server, table)["ledger"]
    assert after[bob.account_id] - ledger.get(bob.account_id, 0) == cost["points"]
    assert after[ann.account_id] - ledger.get(ann.account_id, 0) == -cost["points"]
    for p in (ann, bob):
        expect_ledger(p, {bob.account_id: cost["points"], ann.account_id: -cost["points"]})

    # Between games Ann's Leave acts at once: no question, and she is no longer seated.
    ann.expect_status(f"Ann won {-cost['points']} points: Bob left.")
    assert ann.view(server, table)["leave_cost"] is None
    ann.click("cmd-leave")
    expect(ann.test_id("role")).to_contain_text("You are watching.")
    expect_no_dialog(ann)
    assert ann.view(server, table)["ledger"] == after
