"""Clocks and presence on the table page: each player's clock beside their name, counting down
the delay then the reserve (and the server throwing an overdue opening by itself), and a mark
that follows who has the table open."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.e2e.harness import LiveServer
from tests.e2e.pages import enter, seated_table

CLOCK = {"delay": 3, "reserve": 60}
"""Short: the table's own clock (the opening) runs out in 3 s and the server throws it."""


def test_the_clocks_show_and_count_down(
    make_live_server: Callable[..., LiveServer], new_page: Callable[..., Page]
) -> None:
    server = make_live_server()
    ann = enter(new_page(base_url=server.url), server, "Ann")
    bob = enter(new_page(base_url=server.url), server, "Bob")
    table = seated_table(server, ann, "money", clock=CLOCK)
    ann.open_table(table)
    # Both have the table open: no game's throw is made by the timer for a table fewer than
    # two of its players are at (docs/rules.md §10, walking away).
    bob.open_table(table)
    mine = ann.test_id(f"clock-{ann.account_id}")
    expect(mine).to_have_text("1:00")
    # The stopwatch is drawn by the style sheet (no font has to know U+23F1): a masked box of
    # the text's colour, hidden from screen readers.
    icon = mine.locator(".clock-icon")
    expect(icon).to_have_attribute("aria-hidden", "true")
    # (Retrying assertions: the page may still be applying its style sheet.)
    expect(icon).to_have_css("mask-image", re.compile(r'^url\("data:image/svg\+xml'))
    expect(icon).to_have_css("width", re.compile(r"^(?:[6-9]|[1-9]\d)(?:\.\d+)?px$"))
    expect(icon).to_have_css("height", re.compile(r"^(?:[6-9]|[1-9]\d)(?:\.\d+)?px$"))
    server.run(server.api.ok(bob.user, table, "join"))  # the game starts: the opening is due
    expect(ann.test_id("clock-table")).to_contain_text("thrown for you in")
    # Nobody throws: the server's timer does when the table's 3 s run out.
    ann.expect_status(re.compile(r"Waiting for (Ann|Bob) to move \d-\d\."))
    mover = ann.view(server, table)["game"]["to_act"][0]
    other = bob.account_id if mover == ann.account_id else ann.account_id
    running = ann.test_id(f"clock-{mover}")
    expect(running).to_have_attribute("data-running", "true")
    expect(running).to_have_text(re.compile(r"^0:0[1-3] \+ 1:00$"))  # the delay first
    expect(running).to_have_text(re.compile(r"^0:5\d$"))  # then the reserve
    expect(ann.test_id(f"clock-{other}")).to_have_text("1:00")
    expect(ann.test_id(f"clock-{other}")).to_have_attribute("data-running", "false")
    expect(ann.test_id("clock-table")).to_have_count(0)


def test_presence_follows_a_second_player_coming_and_going(
    make_live_server: Callable[..., LiveServer], new_page: Callable[..., Page]
) -> None:
    server = make_live_server()
    ann = enter(new_page(base_url=server.url), server, "Ann")
    bob = enter(new_page(base_url=server.url), server, "Bob")
    table = seated_table(server, ann, "money", clock="off")
    server.run(server.api.ok(bob.user, table, "join"))
    ann.open_table(table)
    mine = ann.test_id(f"presence-{ann.account_id}")
    theirs = ann.test_id(f"presence-{bob.account_id}")
    expect(mine).to_have_attribute("data-connected", "true")
    expect(theirs).to_have_attribute("data-connected", "false")
    expect(theirs).to_have_attribute("aria-label", "Bob is not connected")
    bob.open_table(table)
    expect(theirs).to_have_attribute("data-connected", "true")
    expect(theirs).to_have_attribute("aria-label", "Bob is connected")
    expect(bob.test_id(f"presence-{ann.account_id}")).to_have_attribute("data-connected", "true")
    bob.page.goto("/#/lobby")  # Bob leaves the page: his socket closes
    expect(theirs).to_have_attribute("data-connected", "false")
    # No clock at this table: none is shown.
    expect(ann.test_id(f"clock-{ann.account_id}")).to_have_count(0)
