"""The replay page verifies the dice on a server reached over plain HTTP by a host name, where
the browser has no Web Crypto (``crypto.subtle`` exists only in a secure context: HTTPS, or
localhost). Its ``dice.js`` then hashes with the page's own ``sha256.js``: the record passes, a
revealed seed changed on its way to the page fails, and a check whose hashing breaks says it was
not checked, never that it failed.

The browser is one of this test's own: the session's is launched without the host mapping that
sends ``chouette.test`` to the live server's ``127.0.0.1``. It is launched in the test's body,
which runs in the thread that owns Playwright (``tests/e2e/harness.py``); fixtures do not.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Browser, Page, Playwright, WebSocketRoute, expect

from tests.e2e.harness import LiveServer, chromium_path
from tests.e2e.records.test_replay_and_verify import FixedFairDice, play_a_game

HOST = "chouette.test"
"""A name that is not localhost (``.test`` is reserved, RFC 2606): no secure context."""

BROKEN_WEB_CRYPTO = """
Object.defineProperty(globalThis.crypto, "subtle", {
  value: {
    digest: () => Promise.reject(new Error("this browser's SHA-256 is out of order")),
    importKey: () => Promise.reject(new Error("this browser's HMAC is out of order")),
    sign: () => Promise.reject(new Error("this browser's HMAC is out of order")),
  },
});
"""
"""An init script giving the page a ``crypto.subtle`` whose every operation rejects."""

IN_THE_PAGE = """async ([seed, commitment]) => {
  const d = await import(new URL("/static/fair/dice.js", location.href).href);
  const wrong = seed.slice(0, -1) + (seed.endsWith("0") ? "1" : "0");
  return {
    secure: window.isSecureContext,
    subtle: typeof crypto.subtle,
    host: location.hostname,
    implementation: d.hashImplementation(),
    commitment: await d.commitmentOf(seed),
    right: await d.checkCommitment(seed, commitment),
    wrong: await d.checkCommitment(wrong, commitment),
  };
}"""
"""dice.js's own functions in the page, on the revealed seed and on one changed in its last
digit."""


@contextmanager
def insecure_browser(playwright: Playwright) -> Iterator[Browser]:
    """A headless Chromium that resolves ``chouette.test`` to 127.0.0.1 (and nothing else)."""
    path = chromium_path()
    assert path is not None, "no Chromium (the session's browser fixture says how to get one)"
    browser = playwright.chromium.launch(
        executable_path=path,
        headless=True,
        args=[
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--no-proxy-server",
            f"--host-resolver-rules=MAP {HOST} 127.0.0.1",
        ],
    )
    try:
        yield browser
    finally:
        browser.close()


def open_replay(browser: Browser, origin: str, table: str, errors: list[str], **setup: Any) -> Page:
    """The replay page of a table in a fresh context at ``origin``; uncaught errors collected."""
    context = browser.new_context(base_url=origin)
    context.set_default_timeout(10_000)
    if "init_script" in setup:
        context.add_init_script(setup["init_script"])
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(f"{exc.name}: {exc.message}"))
    if "route" in setup:
        page.route_web_socket("**/tables/*/ws*", setup["route"])
    page.goto(f"/#/replay/{table}")
    return page


def test_the_dice_verify_over_plain_http_by_a_host_name(
    make_live_server: Callable[..., LiveServer],
    playwright: Playwright,
    screenshot: Callable[[Page, str], Path],
) -> None:
    server = make_live_server(dice_factory=lambda table: FixedFairDice())
    table = play_a_game(server)
    with insecure_browser(playwright) as browser:
        check_the_replay(server, table, browser, screenshot)


def check_the_replay(
    server: LiveServer, table: str, browser: Browser, screenshot: Callable[[Page, str], Path]
) -> None:
    origin = f"http://{HOST}:{urlsplit(server.url).port}"
    seed, commitment = FixedFairDice().reveal(1), FixedFairDice().commitment(1)
    errors: list[str] = []

    honest = open_replay(browser, origin, table, errors)
    expect(honest.get_by_test_id("seed-1")).to_have_text(seed)
    found = honest.evaluate(IN_THE_PAGE, [seed, commitment])
    assert found == {
        "secure": False,
        "subtle": "undefined",
        "host": HOST,
        "implementation": "javascript",
        "commitment": commitment,
        "right": True,
        "wrong": False,
    }, found
    honest.get_by_test_id("verify-1").click()
    result = honest.get_by_test_id("verify-result-1")
    expect(result).to_have_attribute("data-status", "ok")
    expect(result).to_contain_text("\u2714 Pass: the seed matches the commitment and all")
    expect(result).to_contain_text("this page's own SHA-256")
    screenshot(honest, "verified-over-plain-http")

    # The same page for someone whose connection changes the revealed seed: a computed mismatch.
    changed: list[str] = []

    def change_the_seed(ws: WebSocketRoute) -> None:
        server_side = ws.connect_to_server()

        def forward(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("t") == "game_ended" and msg["d"]["game"] == 1:
                was = msg["d"]["seed"]
                msg["d"]["seed"] = was[:-1] + ("1" if was.endswith("0") else "0")
                changed.append(msg["d"]["seed"])
                ws.send(json.dumps(msg))
                return
            ws.send(message)

        server_side.on_message(forward)

    fooled = open_replay(browser, origin, table, errors, route=change_the_seed)
    fooled.get_by_test_id("verify-1").click()
    result = fooled.get_by_test_id("verify-result-1")
    expect(result).to_have_attribute("data-status", "failed")
    expect(result).to_have_text("\u2718 Fail: the revealed seed does not match the commitment.")
    assert changed and changed[0] != seed
    expect(fooled.get_by_test_id("seed-1")).to_have_text(changed[0])

    # A browser whose hashing breaks: not checked, and why; never a failure.
    broken = open_replay(browser, origin, table, errors, init_script=BROKEN_WEB_CRYPTO)
    broken.get_by_test_id("verify-1").click()
    result = broken.get_by_test_id("verify-result-1")
    expect(result).to_have_attribute("data-status", "unchecked")
    expect(result).to_have_text(
        "Not checked: the check could not be computed here: this browser's SHA-256 is out of "
        "order. This is no evidence against the dice."
    )
    expect(result).not_to_contain_text("Fail")
    screenshot(broken, "not-checked-when-the-hashing-breaks")
    assert not errors, errors
