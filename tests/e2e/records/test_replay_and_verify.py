"""The replay page: its slider shows the table as it was at a chosen version (the same board and
Position ID as ``GET /tables/{id}/replay?at=N``), and *verify* re-derives a finished game's dice
in the browser: it passes on the record, and fails when one recorded throw is changed on its way
to the page (the page's WebSocket, rewritten by Playwright's WebSocket routing)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, WebSocketRoute, expect

from events.domain.dice import commitment, derive_die, game_key
from tests.e2e.harness import LiveServer
from tests.e2e.pages import board_counts


class FixedFairDice:
    """The provably fair derivation (:mod:`events.domain.dice`) from a fixed seed per game: the dice
    are the same on every run, and verifiable exactly as the production dice are."""

    def _seed(self, game: int) -> bytes:
        return hashlib.sha256(f"e2e replay {game}".encode()).digest()

    def commitment(self, game: int) -> str:
        return commitment(self._seed(game))

    def die(self, game: int, counter: int, clients: Sequence[str] = ()) -> int:
        return derive_die(game_key(self._seed(game), clients), counter)

    def reveal(self, game: int) -> str:
        return self._seed(game).hex()


def play_a_game(server: LiveServer) -> str:
    """A money game played through the API, to its end: the first listed play each turn, then
    a resignation accepted. Returns the table id."""
    api = server.api
    ann, bob = server.run(api.guest("Ann")), server.run(api.guest("Bob"))
    users = {ann.account_id: ann, bob.account_id: bob}
    table = server.run(api.create_table(ann, "money"))
    server.run(api.ok(ann, table, "join"))
    server.run(api.ok(bob, table, "join"))
    server.run(api.ok(ann, table, "roll"))
    for _ in range(6):
        game = server.run(api.state(table))["game"]
        who = users[game["to_act"][0]]
        if game["phase"] == "roll":
            server.run(api.ok(who, table, "roll"))
        else:
            server.run(api.ok(who, table, "move", notation=game["legal_plays"][0]["notation"]))
    game = server.run(api.state(table))["game"]
    resigner = users[game["to_act"][0]]
    if game["phase"] == "move":
        server.run(api.ok(resigner, table, "move", notation=game["legal_plays"][0]["notation"]))
        resigner = users[server.run(api.state(table))["game"]["to_act"][0]]
    server.run(api.ok(resigner, table, "resign", level=1))
    other = next(u for u in users.values() if u is not resigner)
    server.run(api.ok(other, table, "accept"))
    return table


def replay_at(server: LiveServer, table: str, at: int) -> dict[str, Any]:
    reply = server.run(server.api.request("GET", f"/tables/{table}/replay?at={at}"))
    assert reply.status == 200, reply.body
    return dict(reply.body)


def set_slider(page: Page, version: int) -> None:
    """Move the replay slider to a version, as a drag of it does (the input event)."""
    page.get_by_test_id("replay-slider").evaluate(
        "(el, v) => { el.value = String(v);"
        " el.dispatchEvent(new Event('input', {bubbles: true})); }",
        version,
    )


def test_the_replay_slider_shows_the_table_at_a_chosen_version(
    make_live_server: Callable[..., LiveServer],
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    server = make_live_server(dice_factory=lambda table: FixedFairDice())
    table = play_a_game(server)
    head = replay_at(server, table, 1)["version"]
    page = new_page(base_url=server.url)
    page.goto(f"/#/replay/{table}")
    slider = page.get_by_test_id("replay-slider")
    expect(slider).to_have_attribute("max", str(head))
    expect(page.get_by_test_id("replay-at")).to_have_text(f"Version {head} of {head}")

    # Versions in mid-game: after a throw, after a move; by the slider, then by the keyboard.
    moves = [
        v
        for v in range(1, head + 1)
        if replay_at(server, table, v)["event"]["type"] in ("checkers_moved", "dice_rolled")
    ]
    for version in moves[:3]:
        set_slider(page, version)
        check_version(page, server, table, version, head)
    slider.focus()
    slider.press("ArrowLeft")
    check_version(page, server, table, moves[2] - 1, head)
    page.get_by_test_id("replay-next").click()
    check_version(page, server, table, moves[2], head)
    screenshot(page, f"replay-at-{moves[2]}")


def check_version(page: Page, server: LiveServer, table: str, version: int, head: int) -> None:
    """The page shows the board, Position ID and event of the API's replay at ``version``."""
    expect(page.get_by_test_id("replay-at")).to_have_text(f"Version {version} of {head}")
    want = replay_at(server, table, version)
    game = want["table"]["game"]
    expect(page.get_by_test_id("replay-event")).to_have_attribute(
        "data-type", want["event"]["type"]
    )
    board = page.get_by_test_id("board")
    expect(board).to_have_attribute("data-position-id", game["position_id"])
    assert board_counts(board) == {
        "viewer": game["sides"][0]["board"],
        "opponent": game["sides"][1]["board"],
    }
    expect(page.get_by_test_id("replay-status")).to_have_text(game["status"])


def test_verify_passes_for_the_record_and_fails_for_a_tampered_throw(
    make_live_server: Callable[..., LiveServer],
    new_page: Callable[..., Page],
) -> None:
    server = make_live_server(dice_factory=lambda table: FixedFairDice())
    table = play_a_game(server)

    honest = new_page(base_url=server.url)
    honest.goto(f"/#/replay/{table}")
    expect(honest.get_by_test_id("commitment-1")).to_have_text(FixedFairDice().commitment(1))
    expect(honest.get_by_test_id("seed-1")).to_have_text(FixedFairDice().reveal(1))
    honest.get_by_test_id("verify-1").click()
    result = honest.get_by_test_id("verify-result-1")
    expect(result).to_have_attribute("data-status", "ok")
    expect(result).to_contain_text("Pass")
    honest.get_by_test_id("run-audit").click()
    # The server's audit agrees (game 2, begun at once, keeps its seed until it ends).
    expect(honest.get_by_test_id("audit-result")).to_contain_text("dice verified: 1;")
    expect(honest.get_by_test_id("audit-result")).to_contain_text("rules ok")

    # The same page for someone whose connection changes the second roll's first die.
    tampered: list[tuple[int, list[int], list[int]]] = []

    def rewrite(ws: WebSocketRoute) -> None:
        server_side = ws.connect_to_server()

        def forward(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("t") == "dice_rolled" and not tampered:
                before = list(msg["d"]["dice"])
                msg["d"]["dice"][0] = before[0] % 6 + 1
                tampered.append((msg["v"], before, msg["d"]["dice"]))
                ws.send(json.dumps(msg))
                return
            ws.send(message)

        server_side.on_message(forward)

    fooled = new_page(base_url=server.url)
    fooled.route_web_socket("**/tables/*/ws*", rewrite)
    fooled.goto(f"/#/replay/{table}")
    fooled.get_by_test_id("verify-1").click()
    result = fooled.get_by_test_id("verify-result-1")
    expect(result).to_have_attribute("data-status", "failed")
    assert tampered, "a dice_rolled event went through the route"
    version, before, after = tampered[0]
    expect(result).to_contain_text(
        re.compile(
            rf"Fail: die \d+ \(version {version}\) is recorded as {after[0]}; "
            rf"the seed gives {before[0]}\."
        )
    )
