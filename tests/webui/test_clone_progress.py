"""Cloning from the home page: a progress bar while it runs, Cancel, and the project opens when
done. One remote is slowed down so the clone can be watched and cancelled mid-transfer."""

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.fakes.slow_remote import big_repo, slow_git_daemon, tagged_repo

pytestmark = pytest.mark.browser


def row(home: Page, name: str):
    return home.locator(f"[data-testid=project-row][data-project-name='{name}']")


def start_clone(home: Page, name: str, url: str) -> None:
    home.get_by_test_id("source-git").click()
    home.get_by_test_id("new-project-name").fill(name)
    home.get_by_test_id("new-project-location").fill(url)
    home.get_by_test_id("new-project-submit").click()


def test_clone_shows_progress_one_is_cancelled_the_other_opens(context: BrowserContext, live_server,
                                                                tmp_path: Path) -> None:
    base = tmp_path / "srv"
    base.mkdir()
    big_repo(base / "big.git")
    small = tagged_repo(tmp_path, {"README.md": "# small\n", "src/main.py": "print('hi')\n"})
    home = context.new_page()
    home.goto(live_server.url + "/")
    with slow_git_daemon(base, 64 * 1024) as url:
        start_clone(home, "slow", url + "big.git")
        slow = row(home, "slow")
        receiving = re.compile(r"Receiving objects \d+%")
        expect(slow.get_by_test_id("clone-progress-text")).to_contain_text(receiving)
        with context.expect_page() as opened:
            start_clone(home, "small", small.as_uri())
        page = opened.value
        expect(page).to_have_url(re.compile(r"/p/[0-9a-f]+$"))
        expect(page.get_by_test_id("project-title")).to_have_text("small")
        expect(row(home, "small").get_by_test_id("project-open")).to_be_visible()
        folder = Path(_path_of(live_server, "slow"))
        assert folder.is_dir()
        slow.get_by_test_id("clone-cancel").click()
        expect(slow).to_have_count(0)
    assert not folder.exists()
    names = [p["name"] for p in httpx.get(f"{live_server.url}/api/projects", headers=live_server.auth).json()]
    assert names == ["small"]


def _path_of(live_server, name: str) -> str:
    listed = httpx.get(f"{live_server.url}/api/projects", headers=live_server.auth).json()
    return next(p["path"] for p in listed if p["name"] == name)
