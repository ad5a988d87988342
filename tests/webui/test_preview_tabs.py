"""Preview tabs, as in VS Code: one click previews a file in an italic tab the next click replaces;
typing in it or a double click keeps it; the preview survives a reload with the layout."""

import json
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.waiting import wait_until
from tests.webui.workbench import create_project, editor_lines, open_project, save, saved_ui_state, tab

pytestmark = pytest.mark.browser


def row(page: Page, path: str):
    return page.locator(f"[data-testid=tree-item][data-path='{path}']")


def editor_params(live_server, project: dict) -> dict[str, dict]:
    """The saved layout's editor panels and their parameters, by path."""
    state = json.loads(saved_ui_state(live_server, project))["state"]
    panels = state.get("layout", {}).get("panels", {})
    return {p["params"]["path"]: p["params"] for p in panels.values() if p["id"].startswith("editor:")}


def test_a_click_previews_typing_and_a_double_click_keep_and_a_reload_restores(
    context: BrowserContext, live_server
) -> None:
    project = create_project(live_server, "preview-tabs")
    root = Path(project["path"])
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_text(f"{name}\n")
    page = open_project(context, live_server, project)

    row(page, "a.txt").click()
    expect(tab(page, "a.txt")).to_have_attribute("data-preview", "true")
    expect(tab(page, "a.txt").locator(".editor-tab-name")).to_have_css("font-style", "italic")
    row(page, "a.txt").click()  # the same file again: still one tab
    expect(page.get_by_test_id("editor-tab")).to_have_count(1)

    row(page, "b.txt").click()
    expect(tab(page, "b.txt")).to_have_attribute("data-preview", "true")
    expect(tab(page, "a.txt")).to_have_count(0)

    editor = page.locator("[data-testid=editor][data-path='b.txt']")
    expect(editor).to_have_attribute("data-features", "true")
    editor_lines(page, "b.txt").click()
    page.keyboard.type("typed ")
    expect(tab(page, "b.txt")).to_have_attribute("data-preview", "false")
    expect(tab(page, "b.txt").locator(".editor-tab-name")).to_have_css("font-style", "normal")
    save(page)
    expect(tab(page, "b.txt")).to_have_attribute("data-state", "clean")

    row(page, "c.txt").click()
    expect(tab(page, "c.txt")).to_have_attribute("data-preview", "true")
    expect(tab(page, "b.txt")).to_be_visible()
    tab(page, "c.txt").dblclick()
    expect(tab(page, "c.txt")).to_have_attribute("data-preview", "false")

    row(page, "a.txt").click()
    expect(tab(page, "a.txt")).to_have_attribute("data-preview", "true")
    expect(page.get_by_test_id("editor-tab")).to_have_count(3)
    wait_until(
        lambda: editor_params(live_server, project).get("a.txt", {}).get("preview") is True,
        what="the layout with a.txt previewed",
    )
    assert "preview" not in editor_params(live_server, project)["c.txt"]

    page.reload()
    expect(page.get_by_test_id("status-connection")).to_have_attribute("data-state", "connected")
    expect(tab(page, "a.txt")).to_have_attribute("data-preview", "true")
    expect(tab(page, "b.txt")).to_have_attribute("data-preview", "false")
    expect(tab(page, "c.txt")).to_have_attribute("data-preview", "false")
    # The restored preview is replaced like any other; a double click in the tree keeps a file.
    row(page, "README.md").dblclick()
    expect(tab(page, "README.md")).to_have_attribute("data-preview", "false")
    expect(tab(page, "a.txt")).to_have_count(0)
    expect(page.get_by_test_id("editor-tab")).to_have_count(3)


def test_previews_turned_off_from_the_palette_stay_off_after_a_reload(
    context: BrowserContext, live_server
) -> None:
    project = create_project(live_server, "preview-off")
    (Path(project["path"]) / "a.txt").write_text("a\n")
    page = open_project(context, live_server, project)
    row(page, "a.txt").click()
    expect(tab(page, "a.txt")).to_have_attribute("data-preview", "true")

    page.keyboard.press("F1")
    page.get_by_test_id("palette-input").fill("toggle preview editors")
    page.locator("[data-testid=palette-item][data-command='editor.toggle-preview']").click()
    expect(tab(page, "a.txt")).to_have_attribute("data-preview", "false")  # the open preview is kept
    wait_until(
        lambda: json.loads(saved_ui_state(live_server, project))["state"].get("previewEditors") is False,
        what="the setting to be saved",
    )

    page.reload()
    expect(page.get_by_test_id("status-connection")).to_have_attribute("data-state", "connected")
    row(page, "README.md").click()
    expect(tab(page, "README.md")).to_have_attribute("data-preview", "false")
    expect(page.get_by_test_id("editor-tab")).to_have_count(2)
