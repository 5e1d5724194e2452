"""A whole turn played with the keyboard alone (Tab, the arrow keys, Enter: no mouse), and an
accessibility check of every page: each button, input, select, link and focusable board place
has an accessible name, as Chromium's accessibility tree computes it — on the lobby (signed out
and in), the tournaments, a money table and a chouette (the box's choices, a member's answer)
and the replay."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from tests.dice import ScriptedDice
from tests.e2e.harness import LiveServer
from tests.e2e.pages import (
    board_counts,
    enter,
    expect_all_named,
    find_in_lobby,
    seated_table,
)
from tests.server.conftest import User

BOTTOM_ROW = [12, 11, 10, 9, 8, 7, 25, 6, 5, 4, 3, 2, 1, 0]
TOP_ROW = [13, 14, 15, 16, 17, 18, 25, 19, 20, 21, 22, 23, 24, 0]
"""The board's places left to right, as the arrow keys walk them (server/static/board/board.js)."""


def focused(page: Page) -> dict[str, Any]:
    return page.evaluate(
        "() => { const e = document.activeElement;"
        " return {testid: e?.dataset?.testid ?? null, point: e?.dataset?.point ?? null}; }"
    )


def tab_to(page: Page, want: Callable[[dict[str, Any]], bool], limit: int = 100) -> None:
    """Press Tab until the focused element is the one wanted."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if want(focused(page)):
            return
    raise AssertionError(f"Tab never reached it; the focus is on {focused(page)}")


def arrow_to(page: Page, target: int) -> None:
    """Walk the board's focus to a place with the arrow keys (up and down cross the board)."""
    for _ in range(30):
        at = int(focused(page)["point"])
        if at == target:
            return
        row = TOP_ROW if (at >= 13 and at != 25) else BOTTOM_ROW
        if target not in row or (target == 25 and at <= 12):
            page.keyboard.press("ArrowUp" if row is BOTTOM_ROW else "ArrowDown")
            continue
        page.keyboard.press("ArrowRight" if row.index(target) > row.index(at) else "ArrowLeft")
    raise AssertionError(f"the arrows never reached point {target}")


def test_a_whole_turn_with_the_keyboard_alone(
    make_live_server: Callable[..., LiveServer],
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    dice = ScriptedDice([(3, 1)])
    server = make_live_server(dice_factory=lambda table: dice)
    ann = enter(new_page(base_url=server.url), server, "Ann")
    bob = enter(new_page(base_url=server.url), server, "Bob")
    table = seated_table(server, ann, "money")
    ann.open_table(table)
    bob.open_table(table)
    bob.click("cmd-join")
    ann.expect_status("Waiting for the opening throw")
    expect_all_named(ann.page, at_least=30)
    page = ann.page
    page.locator("body").focus()

    # The opening throw: Tab to the button, Enter.
    tab_to(page, lambda f: f["testid"] == "cmd-roll")
    page.keyboard.press("Enter")
    ann.expect_status("Waiting for Ann to move 3-1")

    # Tab into the board (one stop: the points rove with the arrows), then 8/5 6/5.
    tab_to(page, lambda f: f["point"] is not None)
    for source, destination in ((8, 5), (6, 5)):
        arrow_to(page, source)
        page.keyboard.press("Enter")
        expect(ann.test_id(f"point-{source}")).to_have_attribute("aria-pressed", "true")
        expect(ann.test_id(f"point-{destination}")).to_have_attribute(
            "aria-label", re.compile(r"; can move here$")
        )
        if source == 8:
            expect_all_named(page, at_least=30)  # mid-move: a checker chosen, places offered
        arrow_to(page, destination)
        page.keyboard.press("Enter")
    expect(ann.test_id("move-made")).to_have_text("Moved so far: 8/5 6/5")
    expect(ann.test_id("move-announce")).to_contain_text("The play 8/5 6/5 is complete")
    assert board_counts(ann.test_id("board"))["viewer"][5] == 2
    tab_to(page, lambda f: f["testid"] == "cmd-confirm")
    page.keyboard.press("Enter")
    bob.expect_status("Waiting for Bob to roll or double")
    view = bob.view(server, table)
    assert view["game"]["sides"][1]["board"][5] == 2, "the play the server recorded is 8/5 6/5"
    expect_all_named(bob.page, at_least=30)
    screenshot(ann.page, "keyboard-turn-board")


def chouette_at_the_box_s_double(server: LiveServer, users: list[User]) -> str:
    """A chouette (Ann the box, Bob the captain, Cat) played through the API to the box's turn
    after one exchange: Ann 31, Bob 52. Returns the table id."""
    api = server.api
    ann, bob, cat = users
    table = server.run(api.create_table(ann, "chouette"))
    for user in (ann, bob, cat):
        server.run(api.ok(user, table, "join"))
    server.run(api.ok(bob, table, "start_game"))
    server.run(api.ok(bob, table, "roll"))
    server.run(api.ok(ann, table, "move", notation="8/5 6/5"))
    server.run(api.ok(bob, table, "roll"))
    server.run(api.ok(bob, table, "move", notation="13/11 13/8"))
    return table


def test_every_control_of_every_page_has_an_accessible_name(
    make_live_server: Callable[..., LiveServer],
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    dice = ScriptedDice([(6, 4, 2), (3, 1), (5, 2)])
    server = make_live_server(dice_factory=lambda table: dice)

    # The lobby, signed out: the three ways in, and the tables.
    stranger = new_page(base_url=server.url)
    stranger.goto("/")
    expect(stranger.get_by_test_id("guest-form")).to_be_visible()
    expect(stranger.get_by_test_id("lobby-status")).to_contain_text("tables")
    expect_all_named(stranger, at_least=8)

    ann, cat = (enter(new_page(base_url=server.url), server, n) for n in ("Ann", "Cat"))
    bob = server.run(server.api.guest("Bob"))  # the captain: no page of his own here
    table = chouette_at_the_box_s_double(server, [ann.user, bob, cat.user])

    # The lobby, signed in: the create form (each kind's options) and a table's row.
    ann.page.goto("/")
    row = find_in_lobby(ann, table)
    expect(row.get_by_test_id("lobby-open")).to_be_visible()
    for kind in ("money", "match", "chouette"):
        ann.page.get_by_test_id("create-kind").select_option(kind)
        expect_all_named(ann.page, at_least=10)
    screenshot(ann.page, "lobby")
    # The tournaments, as a guest sees them (the create form and each tournament's page:
    # tests/e2e/tournaments).
    ann.page.get_by_test_id("tournaments-link").click()
    expect(ann.test_id("tournaments-status")).to_contain_text("tournaments")
    expect_all_named(ann.page, at_least=5)

    # The box's page: its choice of cubes to double, and the resignation menu open.
    ann.open_table(table)
    ann.expect_status("Waiting for Ann to roll or double")
    expect(ann.test_id(f"double-target-{bob.account_id}")).to_be_visible()
    ann.page.get_by_test_id("cmd-resign").click()
    expect(ann.test_id(f"resign-target-{cat.account_id}")).to_be_visible()
    expect_all_named(ann.page, at_least=40)
    ann.click("cmd-double")

    # A member answering, and the box's page while they do.
    cat.open_table(table)
    expect(cat.test_id("cmd-take")).to_be_visible()
    expect(cat.test_id("chat-input-team")).to_be_visible()
    expect_all_named(cat.page, at_least=40)
    expect_all_named(ann.page, at_least=30)

    # The replay, and its fairness panel with a game listed.
    stranger.goto(f"/#/replay/{table}")
    expect(stranger.get_by_test_id("game-1")).to_be_visible()
    stranger.get_by_test_id("run-audit").click()
    expect(stranger.get_by_test_id("audit-result")).not_to_be_empty()
    expect_all_named(stranger, at_least=40)
    screenshot(stranger, "replay")
