"""The team's consultation channel never reaches the box's page, and a spectator who is not at the
table watches a whole chouette game from a fourth browser and sees how it ended."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, WebSocket, expect

from tests.dice import ScriptedDice
from tests.e2e.harness import LiveServer
from tests.e2e.pages import click_point, enter, expect_ledger, seated_table

THROWS = [(6, 4, 2), (3, 1), (5, 2)]
"""The line (Ann the box, Bob the captain, Cat), the opening throw (the box plays 31), Bob's 52."""

ADVICE = "Psst: drop if she doubles"
"""The captain's advice to the team: it must never reach the box's page."""


def test_the_box_never_sees_the_team_chat_and_a_spectator_watches_the_game(
    make_live_server: Callable[..., LiveServer],
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    dice = ScriptedDice(THROWS)
    server = make_live_server(dice_factory=lambda table: dice)
    ann, bob, cat, dan = (
        enter(new_page(base_url=server.url), server, n) for n in ("Ann", "Bob", "Cat", "Dan")
    )
    # Everything the box's page receives on its sockets, to show the advice never arrives.
    box_frames: list[str] = []

    def record(ws: WebSocket) -> None:
        ws.on("framereceived", lambda payload: box_frames.append(_text(payload)))

    ann.page.on("websocket", record)

    table = seated_table(server, ann, "chouette")
    ann.open_table(table)
    for p in (bob, cat):
        p.open_table(table)
        p.click("cmd-join")
    dan.open_table(table)
    expect(dan.test_id("role")).to_contain_text("You are watching.")
    dan.expect_status("3 players. Any of them can start the game.")

    cat.click("cmd-start_game")
    everyone = (ann, bob, cat, dan)
    for p in everyone:
        p.expect_status("Waiting for the opening throw")
    # Who may read the team's channel: the team, not the box, not a spectator.
    for p in (bob, cat):
        expect(p.test_id("chat-pane-team")).to_be_visible()
        expect(p.test_id("chat-input-team")).to_be_visible()
    for p in (ann, dan):
        expect(p.test_id("chat-pane-team")).to_be_hidden()
    expect(dan.test_id("chat-input-table")).to_be_hidden()

    ann.page.get_by_test_id("chat-input-table").fill("Good luck, team")
    ann.click("chat-send-table")
    bob.page.get_by_test_id("chat-input-team").fill(ADVICE)
    bob.click("chat-send-team")
    expect(cat.test_id("chat-team").locator("li")).to_have_text([f"Bob: {ADVICE}"])
    expect(bob.test_id("chat-team").locator("li")).to_have_text([f"Bob (you): {ADVICE}"])
    for p in everyone:
        expect(p.test_id("chat-table").locator("li")).to_have_count(1)
        expect(p.test_id("chat-table").locator("li")).to_contain_text("Good luck, team")

    # The game: the box's opening 31, Bob's 52, the box doubles both; both drop.
    bob.click("cmd-roll")
    for p in everyone:
        p.expect_status("Waiting for Ann to move 3-1")
    for a, b in ((8, 5), (6, 5)):
        click_point(ann, a)
        click_point(ann, b)
    ann.click("cmd-confirm")
    dan.expect_status("Waiting for Bob to roll or double")
    bob.click("cmd-roll")
    dan.expect_status("Waiting for Bob to move 5-2")
    bob.type_play("13/11 13/8")
    dan.expect_status("Waiting for Ann to roll or double")
    ann.click("cmd-double")
    dan.expect_status("Waiting for Bob and Cat to answer")
    bob.click("cmd-drop")
    dan.expect_status("Waiting for Cat to answer")
    screenshot(dan.page, "spectator-final-board")  # the last position, before the next game's
    cat.click("cmd-drop")

    expect(dan.test_id("last-result")).to_have_text(
        "Game 1 is over: Ann won a single game by a dropped cube against Bob, 1 point; "
        "Ann won a single game by a dropped cube against Cat, 1 point."
    )
    final = dan.view(server, table)
    assert final["ledger"] == {ann.account_id: 2, bob.account_id: -1, cat.account_id: -1}
    assert final["line"] == [ann.account_id, cat.account_id, bob.account_id]
    assert final["history"][0]["settlements"]
    expect_ledger(dan, final["ledger"])
    line = dan.test_id("line").locator(":scope > li")
    expect(line).to_have_count(3)
    for i, account in enumerate(final["line"]):
        expect(line.nth(i)).to_have_attribute("data-testid", f"member-{account}")
    dan.expect_status(final["game"]["status"] if final["game"] else ".")
    expect(dan.test_id("history")).to_contain_text("Game 1: box Ann, captain Bob.")

    # The advice is in no part of the box's page, nor in anything its socket delivered.
    expect(ann.test_id("chat-team").locator("li")).to_have_count(0)
    assert ADVICE not in ann.page.content()
    assert box_frames and not any(ADVICE in f for f in box_frames)
    assert ADVICE not in dan.page.content()
    screenshot(dan.page, "spectator-after-the-game")
    screenshot(ann.page, "box-after-the-game")


def _text(payload: str | bytes) -> str:
    return payload if isinstance(payload, str) else payload.decode("utf-8", "replace")
