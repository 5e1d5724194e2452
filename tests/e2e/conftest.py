"""Browser tests: the system's headless Chromium (Debian's ``chromium`` package) driven by
Playwright for Python, against the real app on a real socket over a fresh database.

- ``browser``: the session's Chromium.
- ``new_page``: a factory of pages, each in a fresh browser context (its own storage: one person
  each). Every page is closed after the test; when the test fails, each page's screenshot is
  saved first. An uncaught error in a page fails the test (``allow_errors=True`` to expect one).
- ``live_server``: the app of ``create_app`` on a free localhost port, over this test's fresh
  database (``db_url``) with the API tests' seeded dice (``make_config`` of
  ``tests/server/conftest.py``); ``make_live_server(**overrides)`` starts one with other
  :class:`~server.config.Config` fields (``dice_factory=lambda table: ScriptedDice(...)``). Each
  has ``url``, ``api`` (the API tests' :class:`Api`, for arranging a table through the public
  API) and ``run(coroutine)`` to call it from a test: ``live_server.run(live_server.api.guest())``.
- ``screenshot(page, name)``: save a PNG under ``test-output/e2e/<test>/`` (or
  ``$CHOUETTE_TEST_OUTPUT``); the folder ignores itself in git.

Browser tests are plain (sync) functions, run in the thread that owns Playwright
(``pytest_pyfunc_call`` below; why: :mod:`tests.e2e.harness`). Their types are in
:mod:`tests.e2e.harness`.

Never skipped in CI (``CI=true``): without Chromium there the tests fail; elsewhere they are
skipped with the reason. ``CHOUETTE_CHROMIUM`` names another Chromium binary.
"""

from __future__ import annotations

import inspect
import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    expect,
    sync_playwright,
)

from tests.db import *  # noqa: F403 (the database fixtures, by name: tests.db.__all__)
from tests.e2e.harness import BrowserThread, LiveServer, chromium_path
from tests.server.conftest import make_config

collect_ignore = ["conftest.py"]
"""No doctests here: collecting this file as a module would import it a second time under the
name ``conftest``, which clashes with the other folders' conftest files when several folders are
named on the command line."""

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = Path(os.environ.get("CHOUETTE_TEST_OUTPUT") or ROOT / "test-output")
"""Where screenshots go (ignored by git: the folder holds a ``.gitignore`` of its own)."""
CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-dev-shm-usage"]
"""Root in a container has no sandbox, and a container's /dev/shm is small."""
TIMEOUT_MS = 10_000
"""Playwright's wait for any one thing, an action's or an ``expect``'s (its defaults, 30 s and
5 s: the one makes a failure slow to see, the other is short on a busy machine)."""
expect.set_options(timeout=TIMEOUT_MS)

# -- the Playwright thread ---------------------------------------------------------------------

_THREAD: BrowserThread | None = None


def browser_thread() -> BrowserThread:
    global _THREAD
    if _THREAD is None:
        _THREAD = BrowserThread()
    return _THREAD


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool:
    """Run each test of this folder in the Playwright thread."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        raise TypeError(f"{pyfuncitem.name}: browser tests are plain functions, not async")
    args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    browser_thread().call(pyfuncitem.obj, **args)
    return True


_CALL_REPORT = pytest.StashKey[pytest.TestReport]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Keep the call phase's report on the item, so that fixtures can tell a failed test."""
    report = yield
    if report.when == "call":
        item.stash[_CALL_REPORT] = report
    return report


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Let the Playwright thread go (after the session fixtures stopped the browser)."""
    global _THREAD
    if _THREAD is not None:
        _THREAD.close()
        _THREAD = None


# -- the browser ---------------------------------------------------------------------------------


def _unavailable(reason: str) -> NoReturn:
    if CI:
        pytest.fail(f"{reason} (browser tests never skip in CI)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    thread = browser_thread()
    pw = thread.call(lambda: sync_playwright().start())
    try:
        yield pw
    finally:
        thread.call(pw.stop)


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """The session's headless Chromium (the system's, not a downloaded one)."""
    path = chromium_path()
    if path is None:
        _unavailable(
            "no Chromium: install Debian's `chromium` package (apt-get install chromium) or "
            "name one in CHOUETTE_CHROMIUM"
        )
    thread = browser_thread()
    launched = thread.call(
        playwright.chromium.launch, executable_path=path, headless=True, args=CHROMIUM_ARGS
    )
    try:
        yield launched
    finally:
        thread.call(launched.close)


# -- pages ---------------------------------------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:120] or "test"


def _output(request: pytest.FixtureRequest) -> Path:
    """This test's output folder (created, with the output root ignoring itself in git)."""
    OUTPUT.mkdir(parents=True, exist_ok=True)
    ignore = OUTPUT / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Test output (screenshots): never committed.\n*\n")
    folder = OUTPUT / "e2e" / _slug(request.node.nodeid.removeprefix("tests/e2e/"))
    if not request.node.stash.get(_FRESH, False):
        # What an earlier run left (a failure's screenshots) must not pass for this run's.
        shutil.rmtree(folder, ignore_errors=True)
        request.node.stash[_FRESH] = True
    folder.mkdir(parents=True, exist_ok=True)
    return folder


_FRESH = pytest.StashKey[bool]()


@pytest.fixture
def screenshot(request: pytest.FixtureRequest) -> Callable[[Page, str], Path]:
    """``screenshot(page, name)``: the whole page as ``<test output>/<name>.png``."""

    def shot(page: Page, name: str) -> Path:
        path = _output(request) / f"{_slug(name)}.png"
        browser_thread().call(page.screenshot, path=str(path), full_page=True)
        return path

    return shot


@pytest.fixture
def new_page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Callable[..., Page]]:
    """``new_page(**context_options)``: a page in a fresh context (``base_url``, ``viewport``...
    as Playwright's ``new_context`` takes them; ``allow_errors=True`` lets the page throw)."""
    thread = browser_thread()
    opened: list[tuple[BrowserContext, Page, list[str], bool]] = []

    def make(*, allow_errors: bool = False, **options: Any) -> Page:
        def open_page() -> Page:
            context = browser.new_context(**options)
            context.set_default_timeout(TIMEOUT_MS)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(f"{exc.name}: {exc.message}"))
            opened.append((context, page, errors, allow_errors))
            return page

        return thread.call(open_page)

    yield make

    report = request.node.stash.get(_CALL_REPORT, None)
    failed = report is not None and report.failed

    def close_all() -> list[str]:
        problems = []
        for n, (context, page, errors, allowed) in enumerate(opened, 1):
            if failed and not page.is_closed():
                page.screenshot(path=str(_output(request) / f"failure-page-{n}.png"))
            if errors and not allowed:
                problems.extend(f"page {n}: {e}" for e in errors)
            context.close()
        return problems

    problems = thread.call(close_all)
    if problems and not failed:
        pytest.fail("uncaught errors in the page:\n" + "\n".join(problems), pytrace=False)


# -- the server ----------------------------------------------------------------------------------


@pytest.fixture
def make_live_server(db_url: str) -> Iterator[Callable[..., LiveServer]]:
    """``make_live_server(**config_overrides)``: a started server on this test's database."""
    started: list[LiveServer] = []

    def make(**overrides: Any) -> LiveServer:
        server = LiveServer(make_config(db_url, **overrides))
        started.append(server)
        return server.start()

    yield make
    for server in reversed(started):
        server.stop()


@pytest.fixture
def live_server(make_live_server: Callable[..., LiveServer]) -> LiveServer:
    """The app with the API tests' seeded dice, on this test's fresh database."""
    return make_live_server()
