"""The table page on a phone (390 x 844 CSS pixels, touch): the board, the dice, the clocks and
the controls fit the screen's width with nothing to scroll sideways, and the player to move
makes a play by tapping checkers and points."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.dice import ScriptedDice
from tests.e2e.harness import LiveServer
from tests.e2e.pages import Player, board_counts, enter, seated_table

PHONE = {"width": 390, "height": 844}


def _overflow(player: Player) -> list[str]:
    """What sticks out past the viewport's width (the page's own width first)."""
    found: list[str] = player.page.evaluate(
        """() => {
          const root = document.documentElement;
          const w = root.clientWidth;
          const out = [];
          if (root.scrollWidth > w) out.push(`page ${root.scrollWidth} > ${w}`);
          for (const el of document.querySelectorAll('[data-testid]')) {
            const r = el.getBoundingClientRect();
            if (r.width && (r.left < -1 || r.right > w + 1)) {
              out.push(`${el.dataset.testid} ${Math.round(r.left)}..${Math.round(r.right)}`);
            }
          }
          return out;
        }"""
    )
    return found


def test_a_money_game_on_a_phone(
    make_live_server: Callable[..., LiveServer],
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    dice = ScriptedDice([(5, 4)])  # the opening: Ann 5, Bob 4
    server = make_live_server(dice_factory=lambda table: dice)
    ann = enter(
        new_page(base_url=server.url, viewport=PHONE, is_mobile=True, has_touch=True), server, "Ann"
    )
    bob = server.run(server.api.guest("Bob"))
    table = seated_table(server, ann, "money", clock={"delay": 12, "reserve": 120})
    server.run(server.api.ok(bob, table, "join"))
    ann.open_table(table)
    ann.expect_status("Waiting for the opening throw")
    expect(ann.test_id("board")).to_be_visible()
    assert _overflow(ann) == []

    ann.test_id("cmd-roll").tap()
    ann.expect_status("Waiting for Ann to move 5-4")
    expect(ann.test_id("dice")).to_have_attribute("data-dice", "5,4")
    board = ann.test_id("board").bounding_box()
    assert board is not None and board["width"] >= 0.9 * PHONE["width"] - 32, board
    expect(ann.test_id(f"clock-{ann.account_id}")).to_be_visible()
    for point in (24, 20, 13, 8):  # 24/20 13/8, tapped
        ann.test_id(f"point-{point}").tap()
    expect(ann.test_id("cmd-confirm")).to_have_text("Confirm 24/20 13/8")
    expect(ann.test_id("cmd-confirm")).to_be_in_viewport()
    assert _overflow(ann) == []
    screenshot(ann.page, "phone-before-confirm")
    ann.test_id("cmd-confirm").tap()
    ann.expect_status("Waiting for Bob to roll or double")
    counts = board_counts(ann.test_id("board"))["viewer"]
    assert (counts[24], counts[20], counts[13], counts[8]) == (1, 1, 4, 4), counts
    assert _overflow(ann) == []
