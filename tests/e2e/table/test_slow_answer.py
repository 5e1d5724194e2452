"""A command's answer that is slow to come: the page draws nothing on a click until the answer or
its event is there (a render then would only hold them up), but once the answer is late it shows
that it waits (the buttons disabled), and a second click meanwhile sends nothing."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, Request, expect

from tests.dice import ScriptedDice
from tests.e2e.harness import LiveServer
from tests.e2e.pages import enter, seated_table

DELAY_MS = 800
"""How long the page's own command requests are held before they leave."""

# The page's command requests leave DELAY_MS late (its fetch, wrapped before its scripts run).
SLOW_COMMANDS = f"""
(() => {{
  const fetch = window.fetch.bind(window);
  window.fetch = (url, init) => String(url).endsWith("/commands")
    ? new Promise((go) => setTimeout(go, {DELAY_MS})).then(() => fetch(url, init))
    : fetch(url, init);
}})();
"""


def test_a_late_answer_shows_the_page_waiting_and_a_second_click_sends_nothing(
    make_live_server: Callable[..., LiveServer], new_page: Callable[..., Page]
) -> None:
    server = make_live_server(dice_factory=lambda table: ScriptedDice([(5, 4), (4, 3)]))
    ann_page = new_page(base_url=server.url)
    ann_page.add_init_script(SLOW_COMMANDS)
    ann = enter(ann_page, server, "Ann")
    bob = enter(new_page(base_url=server.url), server, "Bob")
    table = seated_table(server, ann, "money")
    server.run(server.api.ok(bob.user, table, "join"))
    ann.open_table(table)
    ann.expect_status("Waiting for the opening throw")

    sent: list[str] = []

    def commands(request: Request) -> None:
        if request.method == "POST" and request.url.endswith("/commands"):
            sent.append(request.post_data or "")

    ann.page.on("request", commands)
    roll = ann.test_id("cmd-roll")
    expect(roll).to_be_enabled()
    roll.click()
    # The answer is late: the page says it waits, and the button pressed cannot be pressed again.
    expect(roll).to_be_disabled(timeout=DELAY_MS - 200)
    roll.click(force=True)
    ann.expect_status("Waiting for Ann to move 5-4")
    expect(ann.test_id("dice")).to_have_attribute("data-dice", "5,4")
    assert len(sent) == 1 and '"roll"' in sent[0], sent
