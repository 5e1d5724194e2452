"""The table feels alive (issue 29): checkers slide to their places — one's own steps and the
opponent's play arriving from the stream — and not at all under ``prefers-reduced-motion``; and
the keyboard's shortcuts (roll, double, take, drop, undo, confirm) play a real game, listed in the
panel that ``?`` opens, and never fire while typing in the chat.

The page's animations are slowed fifty times through the DevTools protocol
(``Animation.setPlaybackRate``), so that a 200 ms flight is still under way when the test looks
at it, however busy the machine."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from tests.dice import ScriptedDice
from tests.e2e.harness import LiveServer
from tests.e2e.pages import Player, board_counts, click_point, enter, seated_table

FLIGHTS = """() => document.getAnimations()
  .filter(a => a.effect && a.effect.target
    && a.effect.target.closest('[data-testid="board"] .checkers'))
  .map(a => ({state: a.playState, side: a.effect.target.getAttribute('class'),
              from: a.effect.getKeyframes()[0].transform}))"""
"""The animations under way on the board's checkers: each one's state, its checker's class and
the transform it starts from."""

SETTLED = """() => { document.getAnimations().forEach(a => a.finish());
  return [...document.querySelectorAll('[data-testid="board"] .checkers > *')]
    .map(e => getComputedStyle(e).transform); }"""
"""Finish every animation; the computed transform of each of the board's checkers after."""


def slow_motion(page: Page) -> None:
    """Slow the page's animations fifty times (a 200 ms flight takes 10 s)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Animation.enable")
    cdp.send("Animation.setPlaybackRate", {"playbackRate": 0.02})


def unfocus(page: Page) -> None:
    """Nothing focused: the keys go to the page itself."""
    page.evaluate("() => document.activeElement && document.activeElement.blur()")


def flights(player: Player) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = player.page.evaluate(FLIGHTS)
    return result


def test_checkers_slide_to_their_places_and_stay_still_under_reduced_motion(
    make_live_server: Callable[..., LiveServer],
    new_page: Callable[..., Page],
) -> None:
    dice = ScriptedDice([(3, 1), (4, 3)])
    server = make_live_server(dice_factory=lambda table: dice)
    ann = enter(new_page(base_url=server.url), server, "Ann")
    bob = enter(new_page(base_url=server.url, reduced_motion="reduce"), server, "Bob")
    table = seated_table(server, ann, "money")
    ann.open_table(table)
    bob.open_table(table)
    for p in (ann, bob):
        slow_motion(p.page)
    bob.click("cmd-join")
    ann.expect_status("Waiting for the opening throw")
    assert flights(ann) == [] and flights(bob) == []
    ann.click("cmd-roll")
    ann.expect_status("Waiting for Ann to move 3-1")

    # Ann's own step 8/5: the checker is drawn on 5 at once, and slides there from the top of
    # the 8 point (210 units to its left, across the bar; two checkers up).
    click_point(ann, 8)
    click_point(ann, 5)
    expect(ann.test_id("move-made")).to_have_text("Moved so far: 8/5")
    assert board_counts(ann.test_id("board"))["viewer"][5] == 1, "the final place at once"
    [flight] = flights(ann)
    assert flight["state"] == "running" and "viewer" in flight["side"], flight
    assert flight["from"] == "translate(-210px, -100px)", flight
    # A checker chosen meanwhile (the same counts drawn again): the flight goes on.
    click_point(ann, 6)
    expect(ann.test_id("point-6")).to_have_attribute("aria-pressed", "true")
    assert [f["from"] for f in flights(ann)] == ["translate(-210px, -100px)"]
    # The next step at once: the first flight ends where it was going, only the new one flies.
    click_point(ann, 5)
    expect(ann.test_id("move-made")).to_have_text("Moved so far: 8/5 6/5")
    [flight] = flights(ann)
    assert flight["from"] == "translate(-50px, -150px)", flight  # 6 to 5, onto the first one
    assert set(ann.page.evaluate(SETTLED)) == {"none"}, "nothing left off its place"
    assert flights(ann) == []
    counts = board_counts(ann.test_id("board"))
    assert counts["viewer"][5] == 2 and counts["viewer"][6] == 4 and counts["viewer"][8] == 2

    # Confirmed: the board stays as built while the play is sent (no flight back and forth);
    # Bob's page, under reduced motion, shows Ann's play arriving without any flight.
    ann.click("cmd-confirm")
    bob.expect_status("Waiting for Bob to roll or double")
    ann.expect_status("Waiting for Bob to roll or double")
    assert flights(ann) == []
    expect(bob.test_id("point-20")).to_have_attribute(
        "aria-label", re.compile(r"^Point 20: 2 checkers of Ann")
    )
    assert flights(bob) == []

    # Bob's own steps under reduced motion: none; his play reaches Ann's page: two flights.
    bob.click("cmd-roll")
    bob.expect_status("Waiting for Bob to move 4-3")
    click_point(bob, 13)
    click_point(bob, 9)
    expect(bob.test_id("move-made")).to_have_text("Moved so far: 13/9")
    assert flights(bob) == []
    click_point(bob, 13)
    click_point(bob, 10)
    bob.click("cmd-confirm")
    expect(ann.test_id("point-16")).to_have_attribute(
        "aria-label", re.compile(r"^Point 16: 1 checker of Bob")
    )
    arrived = flights(ann)
    assert len(arrived) == 2 and all("opponent" in f["side"] for f in arrived), arrived
    # From the top of Bob's 13 point (Ann's 12, bottom left) across the board to 15 and 16.
    assert {f["from"] for f in arrived} == {"translate(-100px, 350px)", "translate(-150px, 400px)"}
    assert set(ann.page.evaluate(SETTLED)) == {"none"}
    view = ann.view(server, table)
    assert board_counts(ann.test_id("board")) == {
        "viewer": view["game"]["sides"][0]["board"],
        "opponent": view["game"]["sides"][1]["board"],
    }, "the board is exactly the view's"


def test_the_shortcuts_panel_and_a_game_played_with_the_keys(
    make_live_server: Callable[..., LiveServer],
    new_page: Callable[..., Page],
) -> None:
    dice = ScriptedDice([(5, 4), (4, 3)])
    server = make_live_server(dice_factory=lambda table: dice)
    ann = enter(new_page(base_url=server.url), server, "Ann")
    bob = enter(new_page(base_url=server.url), server, "Bob")
    table = seated_table(server, ann, "money")
    ann.open_table(table)
    bob.open_table(table)
    bob.click("cmd-join")
    ann.expect_status("Waiting for the opening throw")
    page = ann.page

    # "?" opens the panel (a dialog) listing every shortcut; Escape closes it.
    unfocus(page)
    page.keyboard.press("?")
    panel = page.get_by_role("dialog", name="Keyboard shortcuts")
    expect(panel).to_be_visible()
    for key, does in (
        ("R", "Roll"),
        ("D", "Double"),
        ("T", "Take"),
        ("P", "Drop"),
        ("U", "Undo"),
        ("C", "Confirm"),
        ("?", "Show or hide this list"),
    ):
        expect(ann.test_id(f"shortcut-{key.lower()}")).to_contain_text(
            re.compile(f"^{re.escape(key)}{does}")
        )
    page.keyboard.press("r")  # the panel is modal: no shortcut behind it
    page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    # The "?" button opens it too (a 44 px target), and the focus comes back to it.
    opener = ann.test_id("shortcuts-open")
    box = opener.bounding_box()
    assert box is not None and box["width"] >= 44 and box["height"] >= 44, box
    opener.focus()
    page.keyboard.press("Enter")
    expect(panel).to_be_visible()
    expect(ann.test_id("shortcuts-close")).to_be_visible()
    page.keyboard.press("?")  # "?" toggles it shut
    expect(panel).to_be_hidden()
    expect(opener).to_be_focused()
    ann.expect_status("Waiting for the opening throw")

    # Typed into the chat, the keys are the text's: nothing is played.
    chat = ann.test_id("chat-input-table")
    chat.click()
    page.keyboard.type("r d t p u c ?")
    expect(chat).to_have_value("r d t p u c ?")
    expect(panel).to_be_hidden()
    chat.press("Enter")
    expect(bob.test_id("chat-table")).to_contain_text("r d t p u c ?")
    view = ann.view(server, table)
    assert view["game"] is None or view["game"]["dice"] is None, view["game"]
    ann.expect_status("Waiting for the opening throw")

    # R throws the opening dice (Ann 5, Bob 4); U undoes a step; C confirms the play.
    unfocus(page)
    expect(ann.test_id("cmd-roll")).to_have_attribute("aria-keyshortcuts", "R")
    page.keyboard.press("r")
    ann.expect_status("Waiting for Ann to move 5-4")
    click_point(ann, 24)
    click_point(ann, 20)
    click_point(ann, 13)
    click_point(ann, 8)
    expect(ann.test_id("move-made")).to_have_text("Moved so far: 24/20 13/8")
    page.keyboard.press("u")
    expect(ann.test_id("move-made")).to_have_text("Moved so far: 24/20")
    click_point(ann, 13)
    click_point(ann, 8)
    expect(ann.test_id("cmd-confirm")).to_have_attribute("aria-keyshortcuts", "C")
    page.keyboard.press("c")

    # Bob presses D; Ann takes with T.
    bob.expect_status("Waiting for Bob to roll or double")
    unfocus(bob.page)
    bob.page.keyboard.press("d")
    ann.expect_status("Waiting for Ann to take or drop")
    page.keyboard.press("t")
    bob.expect_status("Waiting for Bob to roll.")
    assert ann.view(server, table)["game"]["cubes"][0]["value"] == 2

    # Bob rolls (R) and plays 8/5*/1* typed in the play box; Ann, on roll, redoubles (D) and
    # Bob drops (P): Ann wins the cube's 2 points.
    bob.page.keyboard.press("r")
    bob.expect_status("Waiting for Bob to move 4-3")
    bob.type_play("8/5*/1*")
    ann.expect_status("Waiting for Ann to roll or double")
    unfocus(page)
    page.keyboard.press("d")
    bob.expect_status("Waiting for Bob to take or drop")
    expect(bob.test_id("cmd-drop")).to_have_attribute("aria-keyshortcuts", "P")
    bob.page.keyboard.press("p")
    for p in (ann, bob):
        p.expect_status("Ann won 2 points.")
    assert ann.view(server, table)["ledger"] == {ann.account_id: 2, bob.account_id: -2}

    # A key whose button is not offered does nothing but say so.
    page.keyboard.press("t")
    expect(ann.test_id("move-announce")).to_have_text("Take the double: not offered now.")
