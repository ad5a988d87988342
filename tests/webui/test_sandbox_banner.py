"""Every page says, in a red banner above the app, when users' code does not run sandboxed (an
admin's ``MNNWB_SANDBOX=off``, or a machine where bubblewrap cannot start), and stays usable
below it; with the sandbox on there is no banner (webui/src/main.tsx, server/web/pages.py)."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from server.core.config import Settings
from server.sandbox.service import probe
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser

OFF = "The sandbox is off on this server"


@pytest.fixture
def settings(settings: Settings, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
             tmp_path: Path) -> Iterator[Settings]:
    """The shared settings with the sandbox the test asks for: ``on``, ``off``, or ``unavailable``
    (on, with no ``bwrap`` on the PATH). The probe is cached per process: it runs afresh here
    and again after the test, so no other test sees this one's PATH."""
    wanted = getattr(request, "param", "on")
    settings.sandbox = "off" if wanted == "off" else "on"
    if wanted == "unavailable":
        empty = tmp_path / "no-programs"
        empty.mkdir()
        monkeypatch.setenv("PATH", str(empty))
    probe.cache_clear()
    yield settings
    probe.cache_clear()


def _banner(page: Page):
    return page.get_by_test_id("sandbox-banner")


def _expect_app_fits_below_the_banner(page: Page) -> None:
    """The banner sits above the app, and the app still ends inside the window."""
    banner = _banner(page).bounding_box()
    app = page.locator("#app").bounding_box()
    viewport = page.viewport_size
    assert banner is not None and app is not None and viewport is not None
    assert banner["y"] + banner["height"] <= app["y"] + 0.5, (banner, app)
    assert app["y"] + app["height"] <= viewport["height"] + 0.5, (app, viewport)


@pytest.mark.parametrize("settings", ["off"], indirect=True)
def test_with_the_sandbox_off_every_page_says_so_and_stays_usable(
    context: BrowserContext, live_server,
) -> None:
    project = create_project(live_server, "unboxed")
    (Path(project["path"]) / "notes.txt").write_text("hello\n")
    home = context.new_page()
    home.goto(live_server.url)
    expect(_banner(home)).to_contain_text(OFF)
    expect(home.get_by_test_id("project-list")).to_contain_text("unboxed")
    expect(home.get_by_test_id("new-project")).to_be_visible()
    _expect_app_fits_below_the_banner(home)

    page = open_project(context, live_server, project)
    expect(_banner(page)).to_contain_text(OFF)
    expect(page.locator("[data-testid=tree-item][data-path='notes.txt']")).to_be_visible()
    statusbar = page.get_by_test_id("statusbar")
    expect(statusbar).to_be_in_viewport(ratio=1)
    _expect_app_fits_below_the_banner(page)


@pytest.mark.parametrize("settings", ["unavailable"], indirect=True)
def test_a_sandbox_that_cannot_start_is_named_with_its_reason(
    context: BrowserContext, live_server,
) -> None:
    page = context.new_page()
    page.goto(live_server.url)
    expect(_banner(page)).to_contain_text("The sandbox is unavailable")
    expect(_banner(page)).to_contain_text("bubblewrap (bwrap) is not installed")
    expect(page.get_by_test_id("new-project")).to_be_visible()
    _expect_app_fits_below_the_banner(page)


def test_with_the_sandbox_on_no_page_shows_a_banner(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "boxed")
    home = context.new_page()
    home.goto(live_server.url)
    expect(home.get_by_test_id("project-list")).to_contain_text("boxed")
    expect(_banner(home)).to_have_count(0)
    page = open_project(context, live_server, project)
    expect(page.get_by_test_id("statusbar")).to_be_in_viewport(ratio=1)
    expect(_banner(page)).to_have_count(0)
