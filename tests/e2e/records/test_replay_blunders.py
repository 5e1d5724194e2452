"""The replay page lists the errors and blunders of a table's finished games (GNU Backgammon's
analysis, ``GET /tables/{id}/analysis``) with the action taken and the best one; a click on one
shows the position the decision was made in."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.harness import LiveServer
from tests.e2e.records.test_replay_and_verify import FixedFairDice, play_a_game

pytest.importorskip("gnubg")


def test_the_replay_lists_the_blunders_and_jumps_to_one(
    make_live_server: Callable[..., LiveServer],
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    server = make_live_server(dice_factory=lambda table: FixedFairDice())
    table = play_a_game(server)  # the first listed play each turn: errors are likely
    reply = server.run(server.api.request("GET", f"/tables/{table}/analysis"))
    assert reply.status == 200, reply.body
    marked = [d for g in reply.body["games"] for d in g["decisions"] if d["mark"]]
    assert marked, "the scripted game was expected to contain an error"
    head = server.run(server.api.request("GET", f"/tables/{table}/replay"))
    head_version = head.body["version"]

    page = new_page(base_url=server.url)
    page.goto(f"/#/replay/{table}")
    expect(page.get_by_test_id("replay-at")).to_have_text(
        f"Version {head_version} of {head_version}"
    )
    page.get_by_test_id("run-analysis").click()
    items = page.get_by_test_id("blunder-list").locator("li")
    expect(items).to_have_count(len(marked))
    for i, d in enumerate(marked):
        item = items.nth(i)
        expect(item).to_have_attribute("data-mark", d["mark"])
        expect(item).to_contain_text(d["action"])
        expect(item).to_contain_text(f"best {d['best']}")
        expect(item).to_contain_text(f"{d['equity_lost']:.3f}")
    summary = page.get_by_test_id("analysis-summary")
    expect(summary).to_contain_text("Ann")
    expect(summary).to_contain_text("mEMG")
    # A click shows the position before the decision: the replay at that version.
    last = marked[-1]
    page.get_by_test_id(f"blunder-{len(marked) - 1}").click()
    target = last["version"] - 1
    expect(page.get_by_test_id("replay-at")).to_have_text(f"Version {target} of {head_version}")
    expect(page.get_by_test_id("replay-slider")).to_have_value(str(target))
    screenshot(page, "replay-blunders")
