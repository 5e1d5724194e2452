"""The seed window from the page: each player's page mixes a random seed of its own into a
game's dice as soon as the game starts, so a table of people at the page throws at once; a
player who adds none holds the first throw up until the window runs out, and the page says who
it waits for."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect

from events.domain import types as e
from events.store.streams import decode_recorded, table_stream
from server.keys import TABLES
from tests.e2e.harness import LiveServer
from tests.e2e.pages import enter, seated_table


def _events(server: LiveServer, table: str) -> list[e.Event]:
    store = server.api.app[TABLES].store  # type: ignore[index]
    return [decode_recorded(r) for r in server.run(store.read_stream(table_stream(table)))]


def test_every_page_adds_its_seed_and_the_chouette_throws_for_the_line_at_once(
    make_live_server: Callable[..., LiveServer], new_page: Callable[..., Page]
) -> None:
    server = make_live_server(seed_window=60)  # a minute: only the seeds can close it in time
    ann, bob, cat = (enter(new_page(base_url=server.url), server, n) for n in ("Ann", "Bob", "Cat"))
    table = seated_table(server, ann, "chouette")
    for p in (bob, cat):
        server.run(server.api.ok(p.user, table, "join"))
    for p in (ann, bob, cat):
        p.open_table(table)
    bob.click("cmd-start_game")
    # Every page answered the window with a seed of its own: the line is thrown, the game on.
    for p in (ann, bob, cat):
        p.expect_status(re.compile(r"Waiting for the opening throw: .* \(the box\) or .*"))
    events = _events(server, table)
    added = {ev.player: ev.seed for ev in events if isinstance(ev, e.ClientSeedAdded)}
    assert set(added) == {ann.account_id, bob.account_id, cat.account_id}
    assert all(re.fullmatch(r"[0-9a-f]{32}", s) for s in added.values())
    assert len(set(added.values())) == 3
    closed = [ev for ev in events if isinstance(ev, e.SeedWindowClosed)]
    assert closed == [e.SeedWindowClosed(game=1, missing=[], at=closed[0].at)]
    for p in (ann, bob, cat):
        expect(p.test_id("my-seed")).to_have_text(added[p.account_id])


def test_the_page_waits_for_a_silent_player_then_throws(
    make_live_server: Callable[..., LiveServer], new_page: Callable[..., Page]
) -> None:
    server = make_live_server(seed_window=3)
    ann = enter(new_page(base_url=server.url), server, "Ann")
    bot = server.run(server.api.guest("Quiet"))
    table = seated_table(server, ann, "money")
    ann.open_table(table)
    server.run(server.api.ok(bot, table, "join"))  # the game starts; Quiet adds no seed
    ann.expect_status("waiting for Quiet to add a dice seed before the first throw")
    expect(ann.test_id("seed-window")).to_contain_text("s left for Quiet")
    expect(ann.test_id("cmd-roll")).to_be_disabled()
    # The window runs out (three seconds): the page lets Ann throw, and the throw closes it.
    expect(ann.test_id("cmd-roll")).to_be_enabled(timeout=10_000)
    ann.click("cmd-roll")
    ann.expect_status(re.compile(r"Waiting for (Ann|Quiet) to move \d-\d\."))
    closed = [ev for ev in _events(server, table) if isinstance(ev, e.SeedWindowClosed)]
    assert [ev.missing for ev in closed] == [[bot.account_id]]
