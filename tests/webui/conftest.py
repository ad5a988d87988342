"""Playwright fixtures: Debian's chromium, one logged-in browser context per test, a screenshot
of every open page when a test fails, and a test that passed fails still when a page logged an
error to its console (a test expecting a failed request says so with ``console_errors.allow``)."""

import re
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Playwright,
    expect,
    sync_playwright,
)

from server.core.config import REPO_ROOT
from tests.server.devices.test_devices_api import devices, pair

CHROMIUM = "/usr/bin/chromium"
# A closed network: nothing in the browser may try to phone home.
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
MANIFEST = REPO_ROOT / "webui" / "dist" / ".vite" / "manifest.json"
FAILED = pytest.StashKey[bool]()
# Generous for a busy 2-core machine: with both cores kept busy beside the suite's two processes
# (make test-load), a page's first Git view once took over 10 s to list its files. A passing
# assertion returns as soon as it holds.
WAIT_MS = 20_000
expect.set_options(timeout=WAIT_MS)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.when == "call":
        item.stash[FAILED] = report.failed
    return report


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    if not MANIFEST.exists():
        pytest.fail("the web UI is not built: run `npm --prefix webui ci && npm --prefix webui run build`")
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


def new_context(browser: Browser) -> BrowserContext:
    """A context whose waits are generous for a busy 2-core machine (a page load of the IDE
    takes 2-3 s at load 10): a wait returns as soon as its condition holds."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.set_default_timeout(WAIT_MS)
    ctx.set_default_navigation_timeout(30_000)
    return ctx


class ConsoleErrors:
    """Errors the pages of watched contexts log to their console, and the ones a test expects."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.allowed: list[re.Pattern[str]] = []

    def watch(self, ctx: BrowserContext) -> None:
        ctx.on("page", self._watch_page)
        for page in ctx.pages:
            self._watch_page(page)

    def _watch_page(self, page: Page) -> None:
        page.on("console", self._on_console)
        page.on("pageerror", lambda error: self.seen.append(f"uncaught {error} ({page.url})"))

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            # For a failed request the location is the request's URL: say which one failed.
            self.seen.append(f"{message.text} ({message.location.get('url', '')})")

    def allow(self, pattern: str) -> None:
        """An error the test brings about on purpose (e.g. the 409 of a stale save)."""
        self.allowed.append(re.compile(pattern))

    def unexpected(self) -> list[str]:
        return [e for e in self.seen if not any(p.search(e) for p in self.allowed)]


@pytest.fixture
def console_errors(request: pytest.FixtureRequest) -> Iterator[ConsoleErrors]:
    errors = ConsoleErrors()
    yield errors
    if not request.node.stash.get(FAILED, True) and errors.unexpected():
        pytest.fail("the browser console logged errors:\n" + "\n".join(errors.unexpected()), pytrace=False)


def signed_in(browser: Browser, live_server, console_errors: ConsoleErrors) -> BrowserContext:
    """A new context of ``browser`` holding the session cookie of ``live_server``, its console
    watched."""
    ctx = new_context(browser)
    # The printed URL's token exchange, without rendering the home page: the context's request
    # client shares its cookie jar with its pages.
    answer = ctx.request.get(f"{live_server.url}/?token={live_server.token}", max_redirects=0)
    assert answer.status == 303 and "set-cookie" in answer.headers, answer.status
    console_errors.watch(ctx)
    return ctx


@contextmanager
def camera_chromium(playwright: Playwright, clip: Path) -> Iterator[Browser]:
    """Chromium whose camera plays ``clip`` (a ``.y4m``, looped), granted without asking."""
    args = [*CHROMIUM_ARGS, "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-video-capture={clip}"]
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=args)
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture
def context(
    browser: Browser, live_server, request: pytest.FixtureRequest, tmp_path: Path,
    console_errors: ConsoleErrors,
) -> Iterator[BrowserContext]:
    """A browser context holding the session cookie of ``live_server``."""
    ctx = signed_in(browser, live_server, console_errors)
    yield ctx
    if request.node.stash.get(FAILED, True):
        for index, open_page in enumerate(ctx.pages):
            open_page.screenshot(path=tmp_path / f"failure-{index}.png")
    ctx.close()


class People(dict[str, BrowserContext]):
    """One browser context per person, made the first time a test names them."""

    def __init__(self, browser: Browser, console_errors: ConsoleErrors) -> None:
        super().__init__()
        self.browser = browser
        self.console_errors = console_errors

    def __missing__(self, who: str) -> BrowserContext:
        ctx = self.browser.new_context(viewport={"width": 1280, "height": 800})
        self.console_errors.watch(ctx)
        self[who] = ctx
        return ctx


@pytest.fixture
def people(
    browser: Browser, request: pytest.FixtureRequest, tmp_path: Path, console_errors: ConsoleErrors
) -> Iterator[People]:
    """Several people in separate browser contexts; screenshots of every page on failure."""
    crowd = People(browser, console_errors)
    yield crowd
    for who, ctx in crowd.items():
        if request.node.stash.get(FAILED, True):
            for index, page in enumerate(ctx.pages):
                page.screenshot(path=tmp_path / f"failure-{who}-{index}.png")
        ctx.close()


@pytest.fixture
def board(live_server, tmp_path: Path) -> Iterator[dict]:
    """A real agent process named board, paired and online."""
    _, agent = pair(live_server, tmp_path / "agent", name="board")
    try:
        yield devices(live_server)[0]
    finally:
        agent.kill()
