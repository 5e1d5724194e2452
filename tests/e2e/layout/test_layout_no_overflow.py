"""No page runs past the window's width, on a phone (390 x 844) or a laptop (1280 x 800): the
login and the lobby, a money table and a chouette in play, the replay of a finished game (its
long hexadecimal seeds and commitments), a player's profile, the leaderboards (issue 29) and the
tournaments."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.harness import LiveServer
from tests.e2e.layout.layout_checks import page_options, sideways_overflow
from tests.e2e.pages import Player, enter, seated_table


@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_no_page_overflows_sideways(
    size: str,
    live_server: LiveServer,
    new_page: Callable[..., Page],
) -> None:
    server = live_server
    api = server.api
    stranger_page = new_page(base_url=server.url, **page_options(size))
    ann = enter(new_page(base_url=server.url, **page_options(size)), server, "Ann")
    bob, cat = server.run(api.guest("Bob")), server.run(api.guest("Cat"))

    # A money game played to its end (a resignation): its seed is revealed in the replay.
    money = seated_table(server, ann, "money")
    server.run(api.ok(bob, money, "join"))
    server.run(api.ok(ann.user, money, "roll"))
    view = ann.view(server, money)
    mover = bob if view["game"]["on_roll"] == bob.account_id else ann.user
    server.run(api.ok(mover, money, "move", notation=view["game"]["legal_plays"][0]["notation"]))
    chouette = server.run(api.create_table(ann.user, "chouette"))
    for user in (ann.user, bob, cat):
        server.run(api.ok(user, chouette, "join"))
    server.run(api.ok(bob, chouette, "start_game"))

    def fits(player: Player, what: str) -> None:
        assert sideways_overflow(player) == [], f"{what} at {size}"

    stranger = Player(stranger_page, "a stranger", "", "")
    stranger_page.goto("/")
    expect(stranger_page.get_by_test_id("guest-form")).to_be_visible()
    expect(stranger_page.get_by_test_id("lobby-status")).to_contain_text("tables")
    fits(stranger, "the login and the lobby")

    ann.page.goto("/")
    expect(ann.test_id("lobby-status")).to_contain_text("tables")
    fits(ann, "the lobby")
    ann.open_table(money)
    expect(ann.test_id("board")).to_be_visible()
    fits(ann, "a money table in play")
    ann.open_table(chouette)
    expect(ann.test_id("line")).to_be_visible()
    fits(ann, "a chouette in play")

    # The money game ends; its replay lists the commitment and the revealed seed.
    on_roll = ann.view(server, money)["game"]["on_roll"]
    loser, winner = (bob, ann.user) if on_roll == bob.account_id else (ann.user, bob)
    server.run(api.ok(loser, money, "resign", level=1))
    server.run(api.ok(winner, money, "accept"))
    ann.page.goto(f"/#/replay/{money}")
    expect(ann.test_id("seed-1")).to_have_text(re.compile("^[0-9a-f]{64}$"))
    ann.click("verify-1")
    expect(ann.test_id("verify-result-1")).not_to_be_empty()  # (the tests' dice are not fair)
    ann.click("run-audit")
    expect(ann.test_id("audit-result")).not_to_be_empty()
    fits(ann, "the replay of a finished game")
    stranger_page.goto(f"/#/replay/{chouette}")
    expect(stranger_page.get_by_test_id("game-1")).to_be_visible()
    fits(stranger, "a chouette's replay")

    dora = server.run(api.register("dora"))
    ann.page.goto(f"/#/player/{dora.username}")
    expect(ann.test_id("profile-name")).to_have_text("Dora")
    fits(ann, "a profile")
    ann.page.goto("/#/leaderboards")
    expect(ann.test_id("rating-note")).to_be_visible()
    fits(ann, "the leaderboards")
    # (The tournaments' pages, the bracket and the standings: tests/e2e/tournaments.)
    ann.page.goto("/#/tournaments")
    expect(ann.test_id("tournaments-status")).to_contain_text("tournaments")
    fits(ann, "the tournaments")
