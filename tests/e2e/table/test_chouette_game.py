"""Three people play a chouette game from their browsers, with scripted dice: the box doubles
both members, the captain drops and the other member takes, that member (now moving for the
team) redoubles the box on their own cube and the box takes; the box resigns to them. Every page
shows the ledger and the next line as the server has them (``GET /tables/{id}``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.dice import ScriptedDice
from tests.e2e.harness import LiveServer
from tests.e2e.pages import Player, click_point, create_table, enter, expect_ledger

THROWS = [(6, 4, 2), (3, 1), (5, 2), (6, 4), (2, 1)]
"""The line (Ann 6, Bob 4, Cat 2: Ann is the box, Bob the captain), the opening throw (the box
3, the captain 1: the box plays 31), Bob's 52, Ann's 64 (she hits), Cat's 21 from the bar."""


def expect_line(player: Player, line: list[str]) -> None:
    """The page's line lists these accounts in this order."""
    items = player.test_id("line").locator(":scope > li")
    expect(items).to_have_count(len(line))
    for i, account in enumerate(line):
        expect(items.nth(i)).to_have_attribute("data-testid", f"member-{account}")


def test_three_browsers_play_a_chouette_game(
    make_live_server: Callable[..., LiveServer],
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    dice = ScriptedDice(THROWS)
    server = make_live_server(dice_factory=lambda table: dice)
    ann, bob, cat = (enter(new_page(base_url=server.url), server, n) for n in ("Ann", "Bob", "Cat"))
    everyone = (ann, bob, cat)

    ann.page.goto("/")
    table = create_table(ann, "chouette")
    for p in (bob, cat):
        p.open_table(table)
        expect(p.test_id("role")).to_contain_text("You are watching.")
        p.click("cmd-join")
        expect(p.test_id("role")).to_contain_text("You play from the next game.")
    bob.expect_status("3 players. Any of them can start the game.")

    # Bob starts the game: the line is thrown (Ann 6, Bob 4, Cat 2), then the opening throw.
    bob.click("cmd-start_game")
    for p in everyone:
        p.expect_status("Waiting for the opening throw: Ann (the box) or Bob (the captain) throws.")
        expect_line(p, [ann.account_id, bob.account_id, cat.account_id])
    expect(ann.test_id("role")).to_contain_text("You are the box.")
    expect(bob.test_id("role")).to_contain_text("You are the captain.")
    expect(cat.test_id("role")).to_contain_text("You are on the team.")
    expect(cat.test_id("cmd-roll")).to_have_count(0)
    bob.click("cmd-roll")
    ann.expect_status("Waiting for Ann to move 3-1")
    for a, b in ((8, 5), (6, 5)):
        click_point(ann, a)
        click_point(ann, b)
    ann.click("cmd-confirm")

    # The captain rolls 52 and types the team's play.
    bob.expect_status("Waiting for Bob to roll or double")
    bob.click("cmd-roll")
    bob.type_play("13/11 13/8")

    # The box doubles both members' cubes: the captain drops, Cat takes.
    ann.expect_status("Waiting for Ann to roll or double")
    for member in (bob, cat):
        expect(ann.test_id(f"double-target-{member.account_id}")).to_be_checked()
    expect(ann.test_id("cmd-double")).to_contain_text("Double every cube")
    ann.click("cmd-double")
    for p in everyone:
        p.expect_status("Waiting for Bob and Cat to answer")
    expect(bob.test_id(f"offer-{bob.account_id}")).to_have_text(
        "Ann doubled to 2; Bob (you) to answer"
    )
    bob.click("cmd-drop")
    cat.click("cmd-take")
    for p in everyone:
        member = p.test_id(f"member-{bob.account_id}")
        expect(member).to_have_attribute("data-in-game", "false")
        expect(member).to_have_class("member out")
        expect(p.test_id(f"cube-{cat.account_id}")).to_have_attribute("data-value", "2")
        expect(p.test_id(f"cube-{cat.account_id}")).to_have_attribute("data-owner", cat.account_id)
        expect(p.test_id(f"member-{cat.account_id}")).to_contain_text("Acting captain")
    expect(bob.test_id("role")).to_contain_text("Your game is settled")
    expect_ledger(ann, {ann.account_id: 1, bob.account_id: -1, cat.account_id: 0})

    # The box rolls 64 and hits; Cat, moving for the team now, redoubles on her own cube.
    ann.click("cmd-roll")
    ann.type_play("24/14*")
    cat.expect_status("Waiting for Cat to roll or double")
    expect(cat.test_id("cmd-double")).to_have_text("Double your cube")
    cat.click("cmd-double")
    ann.expect_status("Waiting for Ann to answer")
    expect(ann.test_id("answer-hint")).to_be_visible()
    ann.click(f"cmd-take-{cat.account_id}")
    for p in everyone:
        expect(p.test_id(f"cube-{cat.account_id}")).to_have_attribute("data-value", "4")
        expect(p.test_id(f"cube-{cat.account_id}")).to_have_attribute("data-owner", ann.account_id)
    cat.click("cmd-roll")
    cat.expect_status("Waiting for Cat to move 2-1")
    cat.type_play("bar/22")

    # The box resigns a single game to Cat, who accepts: 1 x her cube of 4.
    ann.expect_status("Waiting for Ann to roll or double")
    ann.click("cmd-resign")
    expect(ann.test_id(f"resign-target-{cat.account_id}")).to_be_checked()
    expect(ann.test_id(f"resign-target-{bob.account_id}")).to_have_count(0)
    ann.click("cmd-resign-1")
    expect(cat.test_id("cmd-accept")).to_be_visible()
    screenshot(cat.page, "final-board-cat")  # the last position, before the next game's
    cat.click("cmd-accept")
    expect(cat.test_id("last-result")).to_contain_text("Game 1 is over:")

    view = ann.view(server, table)
    assert view["ledger"] == {ann.account_id: -3, bob.account_id: -1, cat.account_id: 4}
    # The box beat the captain: it stays, the captain goes to the bottom of the line.
    assert view["line"] == [ann.account_id, cat.account_id, bob.account_id]
    for p in everyone:
        expect(p.test_id("last-result")).to_contain_text("Game 1 is over:")
        expect(p.test_id("last-result")).to_contain_text("by resignation against Ann")
        expect_ledger(p, view["ledger"])
        expect_line(p, view["line"])
        expect(p.test_id(f"member-{ann.account_id}")).to_contain_text("Box")
        expect(p.test_id(f"member-{cat.account_id}")).to_contain_text("Captain")
        p.expect_status(view["game"]["status"] if view["game"] else ".")
    screenshot(ann.page, "after-the-game-ann")
