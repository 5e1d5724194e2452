"""A bot account's badge in a real browser (docs/bots.md, "Outside bots"): the table page shows
"(bot)" beside a bot account's name, as the view's ``players[].bot`` says, and beside nobody
else's; its profile page says so too."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.e2e.harness import LiveServer
from tests.e2e.pages import enter, seated_table


def test_a_bot_accounts_seat_and_profile_show_the_badge(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    server = live_server
    ann = enter(new_page(base_url=server.url), server, "Ann")
    table = seated_table(server, ann, "money")
    robo = server.run(server.api.register())
    marked = server.run(
        server.api.request("POST", "/me/bot", user=robo, json={"password": "correct horse"})
    )
    assert marked.status == 200 and marked.body["bot"] is True, marked.body
    server.run(server.api.ok(robo, table, "join"))

    ann.open_table(table)
    seat = ann.test_id(f"member-{robo.account_id}")
    expect(seat).to_contain_text(robo.display_name)
    expect(seat).to_contain_text("(bot)")
    expect(ann.test_id(f"member-{ann.account_id}")).not_to_contain_text("(bot)")

    ann.page.goto(f"/#/player/{robo.username}")
    expect(ann.test_id("profile")).to_contain_text("(bot)")
