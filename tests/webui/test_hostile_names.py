"""Hostile folder and file names reach the page config and the UI, and are shown as text only."""

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.webui.workbench import open_project

pytestmark = pytest.mark.browser

# Together "a<" / "script>…" spell "a</script><img …>" in the folder's path.
FOLDER = ("a<", "script><img src=x onerror=\"window.__pwned=1\"> \"q\" 'ü' ☃")
FILE = "\"><img src=x onerror=window.__pwned=2> 'ü'.txt"


def _nothing_ran(page: Page) -> None:
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img[onerror]").count() == 0


def test_hostile_names_are_shown_as_text(context: BrowserContext, live_server, tmp_path: Path) -> None:
    folder = tmp_path.joinpath(*FOLDER)
    folder.mkdir(parents=True)
    (folder / FILE).write_text("hello\n")
    made = httpx.post(f"{live_server.url}/api/projects", headers=live_server.auth,
                      json={"name": "hostile", "path": str(folder)})
    assert made.status_code == 201, made.text
    project = made.json()

    home = context.new_page()
    home.goto(live_server.url + "/")
    row = home.locator("[data-testid=project-row][data-project-name='hostile']")
    expect(row).to_contain_text(str(folder))
    _nothing_ran(home)

    page = open_project(context, live_server, project)
    config = page.evaluate("JSON.parse(document.getElementById('mnnwb-config').textContent)")
    assert config["project"]["path"] == str(folder)
    expect(page.get_by_test_id("tree-body")).to_contain_text(FILE)
    _nothing_ran(page)
