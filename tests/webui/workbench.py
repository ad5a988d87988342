"""What a person does on the workbench pages, as small steps the browser tests share."""

from pathlib import Path

import httpx
from playwright.sync_api import BrowserContext, Page, expect

from tests.waiting import wait_until


def create_project(live_server, name: str, template: str = "empty", git: bool = False) -> dict:
    """A project from ``template``; a Git repository with its initial commit only when ``git``
    (the product's default; most browser tests make their own history, or need none)."""
    body = {"name": name, "template": template, "git": git}
    response = httpx.post(f"{live_server.url}/api/projects", headers=live_server.auth, json=body)
    assert response.status_code == 201, response.text
    return response.json()


def open_project(context: BrowserContext, live_server, project: dict) -> Page:
    page = context.new_page()
    page.goto(f"{live_server.url}/p/{project['id']}")
    expect(page.get_by_test_id("status-connection")).to_have_attribute("data-state", "connected")
    return page


def open_file(page: Page, path: str) -> None:
    """Opens a file in a tab that stays: a double click on its name, as one click only previews
    it. On the name, as a person aims: the first click may make the editor area, which narrows
    the tree under the row's middle."""
    page.locator(f"[data-testid=tree-item][data-path='{path}'] .tree-name").dblclick()
    expect(tab(page, path)).to_have_attribute("data-preview", "false")
    # The editor is created again once its editing features have loaded: wait for that one, so
    # what a test reads or types next is not lost with the first.
    editor = page.locator(f"[data-testid=editor][data-path='{path}']")
    expect(editor).to_have_attribute("data-features", "true")
    expect(editor_lines(page, path)).to_be_visible()


def editor_lines(page: Page, path: str):
    # Monaco recycles its line elements: always look them up again from the editor.
    return page.locator(f"[data-testid=editor][data-path='{path}'] .view-lines")


def replace_text(page: Page, path: str, text: str) -> None:
    editor_lines(page, path).click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type(text)
    expect(tab(page, path)).to_have_attribute("data-state", "dirty")


def save(page: Page) -> None:
    page.keyboard.press("ControlOrMeta+s")


def tab(page: Page, path: str):
    return page.locator(f"[data-testid=editor-tab][data-path='{path}']")


def expect_saved(page: Page, path: str) -> None:
    expect(tab(page, path)).to_have_attribute("data-state", "clean")


def disk_text(project: dict, path: str) -> str:
    return (Path(project["path"]) / path).read_text()


def saved_ui_state(live_server, project: dict) -> str:
    """The project's server-side UI state (layout, panel parameters), as JSON text."""
    url = f"{live_server.url}/api/projects/{project['id']}/ui-state"
    return httpx.get(url, headers=live_server.auth).text


def wait_for_saved_layout(live_server, project: dict, path: str, timeout: float = 10) -> None:
    """Polls the project's server-side UI state until its layout shows an editor on ``path``."""
    url = f"{live_server.url}/api/projects/{project['id']}/ui-state"
    wait_until(lambda: f"editor:{path}" in httpx.get(url, headers=live_server.auth).text,
               timeout, f"the layout with {path} to be saved")
