"""The seat-a-bot button is shown exactly when the table view says the viewer may seat a bot
(``may_seat_bot``): the page counts no seats of its own. At a money table, a chouette of three
seats and a finished match (where a seat is free but nobody may join), every page shows the
button as its own view says, and clicking it seats a bot."""

from __future__ import annotations

import random
from collections.abc import Callable

from playwright.sync_api import Page, expect

from tests.e2e.harness import LiveServer
from tests.e2e.pages import Player, enter, seated_table


def expect_button_as_the_view_says(
    server: LiveServer, table: str, shown: list[tuple[Player, bool]]
) -> None:
    """Each player's view says ``may_seat_bot`` as given, and their page shows the button then
    and only then."""
    for player, may in shown:
        assert player.view(server, table)["may_seat_bot"] is may, player.name
        expect(player.test_id("seat-bot")).to_have_count(1 if may else 0)


def test_the_seat_a_bot_button_follows_the_view(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    server = live_server
    ann, bob = (enter(new_page(base_url=server.url), server, n) for n in ("Ann", "Bob"))

    # A money table: Ann (its creator) may seat a bot while a seat is free; Bob never.
    table = seated_table(server, ann, "money")
    for p in (ann, bob):
        p.open_table(table)
    expect_button_as_the_view_says(server, table, [(ann, True), (bob, False)])
    bob.click("cmd-join")
    expect(bob.test_id("role")).to_contain_text("You are playing.")
    expect_button_as_the_view_says(server, table, [(ann, False), (bob, False)])
    bob.click("cmd-leave")
    expect(bob.test_id("role")).to_contain_text("You are watching.")
    expect_button_as_the_view_says(server, table, [(ann, True), (bob, False)])
    ann.click("seat-bot")
    expect(ann.test_id("players")).to_contain_text("(bot)")
    expect_button_as_the_view_says(server, table, [(ann, False), (bob, False)])

    # A chouette of three seats: Bob created it; a bot takes the last seat.
    table = seated_table(server, bob, "chouette", max_players=3)
    server.run(server.api.ok(ann.user, table, "join"))
    for p in (ann, bob):
        p.open_table(table)
    expect_button_as_the_view_says(server, table, [(ann, False), (bob, True)])
    bob.click("seat-bot")
    bob.expect_status("3 players.")
    expect_button_as_the_view_says(server, table, [(ann, False), (bob, False)])

    # A one-point match, resigned: once Bob leaves, a seat is free, but the match is over and
    # nobody may join it, so no bot may be seated either.
    table = seated_table(server, ann, "match", match_length=1)
    server.run(server.api.ok(bob.user, table, "join"))
    users = {ann.account_id: ann.user, bob.account_id: bob.user}
    s = server.run(
        server.api.until_phase(
            table, users, random.Random(3), lambda s: s["game"]["phase"] == "roll"
        )
    )
    resigning = s["game"]["to_act"][0]
    other = next(u for a, u in users.items() if a != resigning)
    server.run(server.api.ok(users[resigning], table, "resign", level=1))
    server.run(server.api.ok(other, table, "accept"))
    server.run(server.api.ok(bob.user, table, "leave"))
    for p in (ann, bob):
        p.open_table(table)
    expect_button_as_the_view_says(server, table, [(ann, False), (bob, False)])
