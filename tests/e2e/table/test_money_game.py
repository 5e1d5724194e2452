"""Two people play a money game from their browsers, with scripted dice: they get in, one
creates the table from the lobby and the other sits from the lobby, and they play it out through
the page — checkers clicked and dragged, a play typed in the notation box, a forced play made
with one click, a double and a take, a resignation accepted — and both pages show the ledger."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, Request, expect

from tests.dice import ScriptedDice
from tests.e2e.harness import LiveServer
from tests.e2e.pages import (
    board_counts,
    click_point,
    create_table,
    expect_ledger,
    find_in_lobby,
    sign_in,
)

THROWS = [(5, 4), (4, 3), (6, 3), (2, 1)]
"""The opening throw (Ann 5, Bob 4: Ann plays 54), Bob's 43 (he hits twice), Ann's 63 from the
bar (one legal play: bar/22), Bob's 21."""


def test_two_browsers_play_a_money_game_to_the_end(
    make_live_server: Callable[..., LiveServer],
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    dice = ScriptedDice(THROWS)
    server = make_live_server(dice_factory=lambda table: dice)
    ann = sign_in(new_page(base_url=server.url), "Ann")
    bob = sign_in(new_page(base_url=server.url), "Bob")

    # Ann creates a money table from the lobby; Bob finds it in his lobby and sits.
    table = create_table(ann, "money")
    ann.expect_status("Waiting for a second player")
    row = find_in_lobby(bob, table)
    row.get_by_test_id("lobby-join").click()
    expect(bob.page).to_have_url(f"{server.url}/#/table/{table}")

    # The opening throw: Ann 5, Bob 4. Ann makes 24/20 13/8 by clicking checker, then point.
    for p in (ann, bob):
        p.expect_status("Waiting for the opening throw")
    ann.click("cmd-roll")
    ann.expect_status("Waiting for Ann to move 5-4")
    expect(ann.test_id("dice")).to_have_attribute("data-dice", "5,4")
    click_point(ann, 24)
    expect(ann.test_id("point-24")).to_have_attribute("aria-pressed", "true")
    expect(ann.test_id("point-20")).to_have_class("hit is-destination")
    click_point(ann, 20)
    expect(ann.test_id("move-made")).to_have_text("Moved so far: 24/20")
    assert board_counts(ann.test_id("board"))["viewer"][20] == 1, "the partial move shows"
    click_point(ann, 13)
    click_point(ann, 9)  # a 4: used already
    expect(ann.test_id("move-announce")).to_have_text("That checker cannot go to 9.")
    click_point(ann, 8)
    expect(ann.test_id("cmd-confirm")).to_have_text("Confirm 24/20 13/8")
    ann.click("cmd-undo")  # a second thought, then the same again
    expect(ann.test_id("move-made")).to_have_text("Moved so far: 24/20")
    assert board_counts(ann.test_id("board"))["viewer"][8] == 3
    click_point(ann, 13)
    click_point(ann, 8)
    expect(ann.test_id("cmd-confirm")).to_have_text("Confirm 24/20 13/8")
    ann.click("cmd-confirm")

    # Bob doubles before his roll; Ann takes.
    bob.expect_status("Waiting for Bob to roll or double")
    bob.click("cmd-double")
    ann.expect_status("Waiting for Ann to take or drop")
    expect(ann.test_id("cube")).to_contain_text("Bob doubled to 2")
    ann.click("cmd-take")
    bob.expect_status("Waiting for Bob to roll.")  # Ann owns the cube: no "or double"
    expect(bob.test_id("cube")).to_have_text("The cube at 2, owned by Ann.")
    expect(bob.test_id("cmd-double")).to_have_count(0)

    # Bob rolls 43 and types his play: both of Ann's back checkers go to the bar. The throw's
    # own message on the stream brings his legal plays, and the play's its view after it (the
    # board, whose turn, what each may do, what leaving now costs): neither page fetches the
    # table view from the throw to the board after the play.
    fetched: list[str] = []

    def views(request: Request) -> None:
        if request.method == "GET" and request.url.endswith(f"/tables/{table}"):
            fetched.append(request.url)

    for p in (ann, bob):
        p.page.on("request", views)
    bob.click("cmd-roll")
    bob.expect_status("Waiting for Bob to move 4-3")
    expect(ann.test_id("status")).to_contain_text("Waiting for Bob to move 4-3")
    expect(bob.test_id("move-input")).to_be_visible()
    assert fetched == [], fetched
    bob.type_play("8/5*/1*")
    ann.expect_status("Waiting for Ann to roll")
    bob.expect_status("Waiting for Ann to roll")
    counts = board_counts(ann.test_id("board"))
    assert counts["viewer"][25] == 2, counts
    assert board_counts(bob.test_id("board"))["opponent"][25] == 2
    expect(ann.test_id("cmd-roll")).to_be_visible()
    assert fetched == [], fetched
    for p in (ann, bob):
        p.page.remove_listener("request", views)

    # Ann rolls 63: only bar/22 is legal, and one click plays it.
    ann.click("cmd-roll")
    ann.expect_status("Waiting for Ann to move 6-3")
    expect(ann.test_id("cmd-play-only")).to_have_text("Play bar/22")
    ann.click("cmd-play-only")

    # Bob rolls 21 and drags a checker from his 6 point to hit on his 3 point.
    bob.expect_status("Waiting for Bob to roll.")
    bob.click("cmd-roll")
    bob.expect_status("Waiting for Bob to move 2-1")
    bob.test_id("point-6").drag_to(bob.test_id("point-3"))
    expect(bob.test_id("cmd-confirm")).to_have_text("Confirm 6/3*")
    bob.click("cmd-confirm")

    # Ann, two checkers on the bar, resigns a single game; Bob accepts: 1 x the cube, 2.
    ann.expect_status("Waiting for Ann to roll or double")
    ann.click("cmd-resign")
    ann.click("cmd-resign-1")
    bob.expect_status("Waiting for Bob to accept or decline the resignation")
    screenshot(bob.page, "final-board-bob")  # the last position, before the next game's
    bob.click("cmd-accept")
    for p in (ann, bob):
        you = " (you)" if p is bob else ""
        expect(p.test_id("last-result")).to_have_text(
            f"Game 1 is over: Bob{you} won a single game by resignation, 2 points."
        )
        expect_ledger(p, {bob.account_id: 2, ann.account_id: -2})
        expect(p.test_id(f"ledger-{bob.account_id}")).to_contain_text("+2")
        expect(p.test_id(f"ledger-{ann.account_id}")).to_contain_text("\u22122")
    view = bob.view(server, table)
    assert view["ledger"] == {bob.account_id: 2, ann.account_id: -2}
    # A money table waits for a player to throw for the next game (either may leave first).
    assert view["game"]["number"] == 1 and not view["in_game"]
    for p in (ann, bob):
        p.expect_status("Bob won 2 points.")
        expect(p.test_id("cmd-roll")).to_have_text("Throw for the next game")
        expect(p.test_id("cmd-leave")).to_be_visible()
    screenshot(ann.page, "after-the-game-ann")
    ann.click("cmd-roll")  # game 2 starts and its opening dice are thrown at once
    for p in (ann, bob):
        p.expect_status(re.compile(r"Waiting for (Ann|Bob) to move \d-\d\."))
    assert bob.view(server, table)["game"]["number"] == 2
