"""A page that loses its connection in mid-game says so, and once the network is back resumes
from the last version it saw, without a reload: every event posted meanwhile (a roll, a move,
chat) appears exactly once.

Two ways to lose it: a real cut (a proxy between the browser and the server resets every
connection and refuses new ones; the browser is not told), and the browser going offline
(Chromium's network emulation, which also fires the ``offline`` and ``online`` events).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.dice import ScriptedDice
from tests.e2e.harness import LiveServer
from tests.e2e.pages import Player, board_counts, enter, seated_table
from tests.e2e.proxy import CuttableProxy

THROWS = [(3, 1), (5, 2), (6, 4), (4, 2)]
"""The opening throw (Ann plays 31), Bob's 52 (made while Ann is cut off), Ann's 64 (she
hits), Bob's 42 from the bar (made while Ann's browser is offline)."""

AWAY = ["Are you there?", "Your move after this one", "Hello again"]
OFFLINE = ["Gone again?", "I ran one back", "Welcome back"]


@pytest.fixture
def proxied(make_live_server: Callable[..., LiveServer]) -> Iterator[CuttableProxy]:
    dice = ScriptedDice(THROWS)
    proxy = CuttableProxy(make_live_server(dice_factory=lambda table: dice)).start()
    yield proxy
    proxy.stop()


def arrange(
    ann_url: str, server: LiveServer, new_page: Callable[..., Page]
) -> tuple[Player, Player, str]:
    """Ann (at ``ann_url``) and Bob sit at a money table; Ann plays the opening 31."""
    ann = enter(new_page(base_url=ann_url), server, "Ann")
    bob = enter(new_page(base_url=server.url), server, "Bob")
    table = seated_table(server, ann, "money")
    ann.open_table(table)
    bob.open_table(table)
    bob.click("cmd-join")
    ann.click("cmd-roll")
    ann.type_play("8/5 6/5")
    ann.expect_status("Waiting for Bob to roll or double")
    # A mark that a reload or a navigation away would wipe out.
    ann.page.evaluate("() => { window.__marker = 'still here'; }")
    return ann, bob, table


PLAYS = {"5-2": "13/11 13/8", "4-2": "bar/23 13/9"}
"""Bob's plays while Ann is away, by his throw."""


def meanwhile(bob: Player, server: LiveServer, table: str, chat: list[str]) -> None:
    """What happens while Ann is away: Bob rolls and plays, and three chat messages (two from
    Bob's page, one through the API)."""
    before = bob.test_id("chat-table").locator("li").count()
    bob.page.get_by_test_id("chat-input-table").fill(chat[0])
    bob.click("chat-send-table")
    bob.click("cmd-roll")
    expect(bob.test_id("dice")).not_to_have_attribute("data-dice", "")
    dice = bob.test_id("dice").get_attribute("data-dice")
    assert dice is not None
    bob.type_play(PLAYS[dice.replace(",", "-")])
    bob.expect_status("Waiting for Ann to roll or double")
    bob.page.get_by_test_id("chat-input-table").fill(chat[1])
    bob.click("chat-send-table")
    expect(bob.test_id("chat-table").locator("li")).to_have_count(before + 2)
    server.run(server.api.ok(bob.user, table, "chat", channel="table", text=chat[2]))


def expect_resumed(
    ann: Player, bob: Player, server: LiveServer, table: str, chat: list[str]
) -> None:
    """Ann's page is back, current, with each event once, and was never reloaded."""
    expect(ann.test_id("connection-notice")).to_be_hidden()
    ann.expect_status("Waiting for Ann to roll or double")
    messages = ann.test_id("chat-table").locator("li")
    expect(messages).to_have_text([f"Bob: {text}" for text in chat])
    versions = messages.evaluate_all("els => els.map(e => Number(e.dataset.v))")
    assert versions == list(range(1, len(chat) + 1)), versions
    view = ann.view(server, table)
    assert board_counts(ann.test_id("board")) == {
        "viewer": view["game"]["sides"][0]["board"],
        "opponent": view["game"]["sides"][1]["board"],
    }
    assert ann.page.evaluate("() => window.__marker") == "still here", "the page was reloaded"


def test_a_page_resumes_without_a_reload_after_losing_its_connection(
    proxied: CuttableProxy, new_page: Callable[..., Page]
) -> None:
    server = proxied.server
    ann, bob, table = arrange(proxied.url, server, new_page)
    loads: list[str] = []
    ann.page.on("load", lambda page: loads.append(page.url))

    # A real cut: Ann's page is not told, its sockets and requests just fail.
    proxied.cut()
    expect(ann.test_id("connection-notice")).to_be_visible()
    expect(ann.test_id("connection-notice")).to_contain_text("Connection lost")
    meanwhile(bob, server, table, AWAY)
    # Ann's page is still trying (and failing) to come back, and shows nothing new.
    expect(ann.test_id("connection-notice")).to_be_visible()
    expect(ann.test_id("chat-table").locator("li")).to_have_count(0)
    ann.expect_status("Waiting for Bob to roll or double")
    # It keeps trying (and being refused) for as long as the cut lasts.
    for _ in range(100):
        if proxied.refused:
            break
        ann.page.wait_for_timeout(100)
    assert proxied.refused > 0, "the page tried to reconnect during the cut"
    proxied.restore()
    expect_resumed(ann, bob, server, table, AWAY)
    ann.click("cmd-roll")
    ann.type_play("24/14")
    bob.expect_status("Waiting for Bob to roll or double")

    # The browser goes offline (and says so to the page), then back online.
    ann.page.context.set_offline(True)
    expect(ann.test_id("connection-notice")).to_contain_text("Connection lost")
    meanwhile(bob, server, table, OFFLINE)
    expect(ann.test_id("chat-table").locator("li")).to_have_count(len(AWAY))
    ann.page.context.set_offline(False)
    expect_resumed(ann, bob, server, table, AWAY + OFFLINE)
    assert loads == [], loads
