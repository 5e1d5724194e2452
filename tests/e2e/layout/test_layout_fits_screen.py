"""A whole game on a phone (390 x 844) and on a laptop (1280 x 800), a money game and a
chouette, with nothing ever scrolled: at every decision the board and every control of that
decision are on the screen together (issue 29), and on the phone each button is big enough to
touch. The other side plays through the API, so each game takes seconds."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.dice import ScriptedDice
from tests.e2e.harness import LiveServer
from tests.e2e.layout.layout_checks import expect_decision_on_screen, page_options
from tests.e2e.pages import click_point, enter, seated_table

SIZES = ["phone", "laptop"]


@pytest.mark.parametrize("size", SIZES)
def test_a_money_game_never_scrolls(
    size: str,
    make_live_server: Callable[..., LiveServer],
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    # Ann 5 and Bob 4 to open, Bob 31, Ann 62; then Bob redoubles and Ann drops.
    dice = ScriptedDice([(5, 4), (3, 1), (6, 2)])
    server = make_live_server(dice_factory=lambda table: dice)
    api = server.api
    ann = enter(new_page(base_url=server.url, **page_options(size)), server, "Ann")
    bob = server.run(api.guest("Bob"))
    table = seated_table(server, ann, "money")
    server.run(api.ok(bob, table, "join"))
    ann.open_table(table)

    ann.expect_status("Waiting for the opening throw")
    expect_decision_on_screen(ann, size, ["cmd-roll"], "the opening throw")
    ann.click("cmd-roll")
    ann.expect_status("Waiting for Ann to move 5-4")
    expect_decision_on_screen(ann, size, ["move-input", "move-submit"], "her move")
    for point in (24, 20, 13, 8):
        click_point(ann, point)
    expect(ann.test_id("cmd-confirm")).to_have_text("Confirm 24/20 13/8")
    expect_decision_on_screen(ann, size, ["cmd-confirm", "cmd-undo"], "her play made")
    screenshot(ann.page, f"money-{size}-confirm")
    ann.click("cmd-confirm")

    ann.expect_status("Waiting for Bob to roll or double")
    server.run(api.ok(bob, table, "roll"))
    server.run(api.ok(bob, table, "move", notation="24/23 13/10"))
    ann.expect_status("Waiting for Ann to roll or double")
    expect_decision_on_screen(ann, size, ["cmd-roll", "cmd-double", "cmd-resign"], "roll or double")
    ann.click("cmd-resign")
    expect(ann.test_id("cmd-resign-3")).to_be_visible()
    expect_decision_on_screen(
        ann, size, ["cmd-resign-1", "cmd-resign-2", "cmd-resign-3"], "the resign menu open"
    )
    screenshot(ann.page, f"money-{size}-resign-menu")
    ann.click("cmd-resign")  # closed again
    expect(ann.test_id("cmd-resign-3")).to_be_hidden()
    ann.click("cmd-double")
    ann.expect_status("Waiting for Bob to take or drop")
    server.run(api.ok(bob, table, "take"))
    ann.expect_status("Waiting for Ann to roll")
    ann.click("cmd-roll")
    ann.expect_status("Waiting for Ann to move 6-2")
    view = ann.view(server, table)
    ann.type_play(view["game"]["legal_plays"][0]["notation"])

    # Bob owns the cube: he redoubles, and Ann drops (the game is over).
    ann.expect_status("Waiting for Bob to roll or double")
    server.run(api.ok(bob, table, "double"))
    ann.expect_status("Waiting for Ann to take or drop")
    expect_decision_on_screen(ann, size, ["cmd-take", "cmd-drop"], "Bob's redouble")
    screenshot(ann.page, f"money-{size}-redoubled")
    ann.click("cmd-drop")
    expect(ann.test_id("last-result")).to_contain_text("Game 1 is over")
    expect(ann.test_id("cmd-roll")).to_have_text("Throw for the next game")
    expect_decision_on_screen(ann, size, ["cmd-roll"], "after the game")


@pytest.mark.parametrize("size", SIZES)
def test_a_chouette_game_never_scrolls(
    size: str,
    make_live_server: Callable[..., LiveServer],
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    # The line (Ann 6, Bob 4, Cat 2: Ann the box, Bob the captain), the opening (the box 3,
    # the captain 1: the box plays 31), then Cat's 52 for the team.
    dice = ScriptedDice([(6, 4, 2), (3, 1), (5, 2)])
    server = make_live_server(dice_factory=lambda table: dice)
    api = server.api
    options = page_options(size)
    ann, cat = (enter(new_page(base_url=server.url, **options), server, n) for n in ("Ann", "Cat"))
    bob = server.run(api.guest("Bob"))
    table = server.run(api.create_table(ann.user, "chouette"))
    for user in (ann.user, bob, cat.user):
        server.run(api.ok(user, table, "join"))
    ann.open_table(table)
    cat.open_table(table)
    expect_decision_on_screen(ann, size, ["cmd-start_game"], "before the first game")
    ann.click("cmd-start_game")
    ann.expect_status("Waiting for the opening throw")
    expect_decision_on_screen(ann, size, ["cmd-roll"], "the opening throw")
    ann.click("cmd-roll")
    ann.expect_status("Waiting for Ann to move 3-1")
    for point in (8, 5, 6, 5):
        click_point(ann, point)
    expect_decision_on_screen(ann, size, ["cmd-confirm"], "the box's play made")
    ann.click("cmd-confirm")

    # The team's turn: each member doubles the box on their own cube.
    cat.expect_status("Waiting for Bob to roll or double")
    expect(cat.test_id("cmd-double")).to_have_text("Double your cube")
    expect_decision_on_screen(cat, size, ["cmd-double"], "a member's double")
    cat.click("cmd-double")
    server.run(api.ok(bob, table, "double"))

    # The box answers member by member: it takes Cat's cube and drops Bob's.
    ann.expect_status("Waiting for Ann to answer")
    for member in (bob, cat):
        expect(ann.test_id(f"cmd-take-{member.account_id}")).to_be_visible()
    expect_decision_on_screen(
        ann,
        size,
        [f"cmd-{a}-{m}" for m in (bob.account_id, cat.account_id) for a in ("take", "drop")],
        "the box's answers",
    )
    screenshot(ann.page, f"chouette-{size}-box-answers")
    ann.click(f"cmd-take-{cat.account_id}")
    expect(ann.test_id(f"cmd-take-{cat.account_id}")).to_have_count(0)
    expect_decision_on_screen(ann, size, [f"cmd-drop-{bob.account_id}"], "one answer left")
    ann.click(f"cmd-drop-{bob.account_id}")

    # Cat moves for the team now (the captain is out of this game).
    cat.expect_status("Waiting for Cat to roll")
    expect_decision_on_screen(cat, size, ["cmd-roll"], "the acting captain's throw")
    cat.click("cmd-roll")
    cat.expect_status("Waiting for Cat to move 5-2")
    expect_decision_on_screen(cat, size, ["move-input"], "the acting captain's move")
    screenshot(cat.page, f"chouette-{size}-member-move")
    cat.type_play("13/11 13/8")

    # The box resigns a single game to Cat, who accepts: the game is over.
    ann.expect_status("Waiting for Ann to roll or double")
    expect_decision_on_screen(
        ann, size, ["cmd-roll", "cmd-double", f"double-target-{cat.account_id}"], "box on roll"
    )
    ann.click("cmd-resign")
    expect(ann.test_id(f"resign-target-{cat.account_id}")).to_be_checked()
    expect_decision_on_screen(
        ann, size, ["cmd-resign-1", f"resign-target-{cat.account_id}"], "the box resigning"
    )
    ann.click("cmd-resign-1")
    cat.expect_status("Waiting for Cat to answer")
    expect_decision_on_screen(cat, size, ["cmd-accept", "cmd-decline"], "the box's offer")
    cat.click("cmd-accept")
    for p in (ann, cat):
        expect(p.test_id("last-result")).to_contain_text("Game 1 is over")
    expect_decision_on_screen(ann, size, [], "after the game")
    expect_decision_on_screen(cat, size, [], "after the game")
    screenshot(cat.page, f"chouette-{size}-over")
