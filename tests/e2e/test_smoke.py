"""The browser pipeline works: the system's Chromium, driven by Playwright, loads the page's
modules from the live server, runs them (Web Crypto included) and talks to the API."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.e2e.harness import LiveServer


def test_the_browser_runs_the_client_modules_against_the_live_server(
    live_server: LiveServer,
    new_page: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
) -> None:
    page = new_page(base_url=live_server.url)
    response = page.goto("/static/selftest.html")
    assert response is not None and response.status == 200
    expect(page.locator("body")).to_have_attribute("data-done", "true")
    for check in ("modules", "board", "moves", "dice", "server"):
        expect(page.get_by_test_id(check)).to_have_text("ok")
    expect(page.get_by_role("img", name="The starting position")).to_be_visible()
    path = screenshot(page, "selftest")
    assert path.stat().st_size > 1000


def test_each_page_is_its_own_person_on_the_same_server(
    live_server: LiveServer, new_page: Callable[..., Page]
) -> None:
    ann = live_server.run(live_server.api.guest("Ann"))
    bob = live_server.run(live_server.api.guest("Bob"))
    pages = [new_page(base_url=live_server.url) for _ in range(2)]
    for page, user in zip(pages, (ann, bob), strict=True):
        page.goto("/static/selftest.html")
        page.evaluate("token => localStorage.setItem('token', token)", user.token)
    names = [
        page.evaluate(
            """async () => {
                const token = localStorage.getItem("token");
                const r = await fetch("/me", {headers: {Authorization: `Bearer ${token}`}});
                return (await r.json()).display_name;
            }"""
        )
        for page in pages
    ]
    assert names == ["Ann", "Bob"], "each context keeps its own storage"
