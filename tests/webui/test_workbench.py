"""The workbench in a real browser, doing what a person does."""

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, FilePayload, Route, expect

from tests.waiting import wait_until
from tests.webui.conftest import ConsoleErrors
from tests.webui.workbench import (
    create_project,
    disk_text,
    editor_lines,
    expect_saved,
    open_file,
    open_project,
    replace_text,
    save,
    tab,
    wait_for_saved_layout,
)

pytestmark = pytest.mark.browser


def _create_on_home_page(home, name: str) -> None:
    home.get_by_test_id("new-project-name").fill(name)
    home.get_by_test_id("template-empty").click()
    # Creating opens the new project in a tab of its own: wait for it here and close it, so no
    # later wait for a tab can take this one.
    with home.context.expect_page() as created:
        home.get_by_test_id("new-project-submit").click()
    expect(created.value).to_have_url(re.compile(r"/p/[0-9a-f]+$"))
    created.value.close()
    expect(home.locator(f"[data-testid=project-row][data-project-name='{name}']")).to_be_visible()


def test_two_projects_each_in_its_own_tab(context: BrowserContext, live_server) -> None:
    home = context.new_page()
    home.goto(live_server.url + "/")
    for name in ("alpha", "beta"):
        _create_on_home_page(home, name)
    projects = {
        p["name"]: p for p in httpx.get(f"{live_server.url}/api/projects", headers=live_server.auth).json()
    }

    tabs = {}
    for name in ("alpha", "beta"):
        with context.expect_page() as opened:
            home.locator(
                f"[data-testid=project-row][data-project-name='{name}'] [data-testid=project-open]"
            ).click()
        tabs[name] = opened.value
        expect(tabs[name]).to_have_url(f"{live_server.url}/p/{projects[name]['id']}")
        expect(tabs[name].get_by_test_id("project-title")).to_have_text(name)

    for name, page in tabs.items():
        open_file(page, "README.md")
        # The editing features (find, folding, …) join the editor once it is usable.
        editor = page.locator("[data-testid=editor][data-path='README.md']")
        expect(editor).to_have_attribute("data-features", "true")
        editor_lines(page, "README.md").click()
        page.keyboard.press("ControlOrMeta+f")
        expect(editor.locator(".find-widget.visible")).to_be_visible()
        page.keyboard.press("Escape")
        replace_text(page, "README.md", f"notes_of_{name}")
        save(page)
        expect_saved(page, "README.md")
        expect(page.get_by_test_id("status-save")).to_have_attribute("data-state", "clean")
    for name in tabs:
        assert disk_text(projects[name], "README.md") == f"notes_of_{name}"


def test_open_a_folder_rename_and_remove_on_the_home_page(
    context: BrowserContext, live_server, tmp_path: Path, console_errors: ConsoleErrors
) -> None:
    console_errors.allow(r"422 .*/api/projects\)")  # the folder that does not exist
    folder = tmp_path / "existing"
    folder.mkdir()
    (folder / "train.py").write_text("print(1)\n")
    home = context.new_page()
    home.goto(live_server.url + "/")
    home.get_by_test_id("source-folder").click()
    # Until a name is typed, the folder (or Git URL) names the project.
    home.get_by_test_id("new-project-location").fill(str(folder) + "/")
    expect(home.get_by_test_id("new-project-name")).to_have_value("existing")
    home.get_by_test_id("source-git").click()
    home.get_by_test_id("new-project-location").fill("git@example.com:team/vision-models.git")
    expect(home.get_by_test_id("new-project-name")).to_have_value("vision-models")
    home.get_by_test_id("source-folder").click()
    home.get_by_test_id("new-project-name").fill("mine")
    home.get_by_test_id("new-project-location").fill(str(tmp_path / "missing"))
    expect(home.get_by_test_id("new-project-name")).to_have_value("mine")  # a typed name stays
    home.get_by_test_id("new-project-submit").click()
    expect(home.get_by_test_id("new-project-error")).to_contain_text("no such folder")
    home.get_by_test_id("new-project-location").fill(str(folder))
    home.get_by_test_id("new-project-submit").click()
    row = home.locator("[data-testid=project-row][data-project-name='mine']")
    expect(row).to_be_visible()

    row.get_by_test_id("project-rename").click()
    home.get_by_test_id("prompt-input").fill("renamed")
    home.get_by_test_id("prompt-ok").click()
    renamed = home.locator("[data-testid=project-row][data-project-name='renamed']")
    expect(renamed).to_be_visible()

    renamed.get_by_test_id("project-remove").click()
    expect(home.get_by_test_id("confirm-option")).not_to_be_checked()
    home.get_by_test_id("confirm-ok").click()
    expect(home.get_by_test_id("no-projects")).to_be_visible()
    assert (folder / "train.py").read_text() == "print(1)\n"


def test_a_save_in_one_tab_reaches_the_other(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "shared")
    first, second = open_project(context, live_server, project), open_project(context, live_server, project)
    for page in (first, second):
        open_file(page, "README.md")

    replace_text(first, "README.md", "written_in_the_first_tab")
    save(first)
    expect(editor_lines(second, "README.md")).to_have_text("written_in_the_first_tab")
    expect_saved(second, "README.md")

    # A change made outside the workbench reaches a clean tab by itself and a dirty one as a prompt.
    replace_text(first, "README.md", "unsaved_edit")
    disk = Path(project["path"]) / "README.md"
    disk.write_text("from_outside")
    expect(editor_lines(second, "README.md")).to_have_text("from_outside")
    expect(first.get_by_test_id("disk-changed-bar")).to_be_visible()
    first.get_by_test_id("disk-reload").click()
    expect(editor_lines(first, "README.md")).to_have_text("from_outside")
    expect_saved(first, "README.md")
    assert disk.read_text() == "from_outside"


def test_a_conflict_is_resolved_in_the_dialog(
    context: BrowserContext, live_server, console_errors: ConsoleErrors
) -> None:
    console_errors.allow(r"409 .*/files/content\?path=README.md")  # the stale save
    project = create_project(live_server, "conflicted")
    first, second = open_project(context, live_server, project), open_project(context, live_server, project)
    for page in (first, second):
        open_file(page, "README.md")
    replace_text(first, "README.md", "first_version")
    replace_text(second, "README.md", "second_version")

    save(first)
    expect_saved(first, "README.md")
    expect(second.get_by_test_id("disk-changed-bar")).to_be_visible()
    editor_lines(second, "README.md").click()
    save(second)
    dialog = second.get_by_test_id("conflict-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator(".modified .view-lines")).to_have_text("second_version")
    expect(dialog.locator(".original .view-lines")).to_have_text("first_version")
    dialog.get_by_test_id("conflict-keep-mine").click()

    expect(dialog).to_be_hidden()
    expect_saved(second, "README.md")
    assert disk_text(project, "README.md") == "second_version"
    expect(editor_lines(first, "README.md")).to_have_text("second_version")


def test_a_save_asked_for_while_the_last_is_under_way_runs_after_it(
    context: BrowserContext, live_server
) -> None:
    """An edit and Ctrl+S before the last save's answer came back (an undo right after a save) is
    written once that save is done, not dropped with the tab left dirty."""
    project = create_project(live_server, "saves")
    page = open_project(context, live_server, project)
    open_file(page, "README.md")
    held: list[Route] = []
    writes = 0

    def hold_the_first_write(route: Route) -> None:
        nonlocal writes
        writes += route.request.method == "PUT"
        if route.request.method == "PUT" and not held:
            held.append(route)
        else:
            route.continue_()

    page.route(lambda url: "/files/content" in url, hold_the_first_write)
    replace_text(page, "README.md", "first")
    save(page)
    wait_until(lambda: page.evaluate("true") and held, what="the first save's write")
    expect(tab(page, "README.md")).to_have_attribute("data-state", "saving")
    page.keyboard.type("_second")
    save(page)
    save(page)  # asked for twice meanwhile: written once
    held[0].continue_()
    # (The route's handler for the second write runs while Playwright is called: this wait does.)
    expect_saved(page, "README.md")
    assert disk_text(project, "README.md") == "first_second"
    assert writes == 2


def test_file_tree_menu_and_remembered_layout(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "tree")
    page = open_project(context, live_server, project)
    page.get_by_test_id("tree-body").click(button="right")
    page.get_by_test_id("menu-new-folder").click()
    page.get_by_test_id("prompt-input").fill("src")
    page.get_by_test_id("prompt-ok").click()
    folder = page.locator("[data-testid=tree-item][data-path='src']")
    folder.click(button="right")
    page.get_by_test_id("menu-new-file").click()
    page.get_by_test_id("prompt-input").fill("train.py")
    page.get_by_test_id("prompt-ok").click()
    expect(tab(page, "src/train.py")).to_be_visible()
    replace_text(page, "src/train.py", "epochs = 3")
    save(page)
    expect_saved(page, "src/train.py")
    assert disk_text(project, "src/train.py") == "epochs = 3"

    page.locator("[data-testid=tree-item][data-path='src/train.py']").click(button="right")
    page.get_by_test_id("menu-rename").click()
    page.get_by_test_id("prompt-input").fill("fit.py")
    page.get_by_test_id("prompt-ok").click()
    expect(tab(page, "src/fit.py")).to_be_visible()
    assert disk_text(project, "src/fit.py") == "epochs = 3"

    folder.click(button="right")
    with page.expect_file_chooser() as chooser:
        page.get_by_test_id("menu-upload").click()
    labels = FilePayload(name="labels.txt", mimeType="text/plain", buffer=b"cat\ndog\n")
    chooser.value.set_files([labels])
    uploaded = page.locator("[data-testid=tree-item][data-path='src/labels.txt']")
    expect(uploaded).to_be_visible()
    assert disk_text(project, "src/labels.txt") == "cat\ndog\n"
    uploaded.click(button="right")
    with page.expect_download() as download:
        page.get_by_test_id("menu-download").click()
    assert Path(download.value.path()).read_bytes() == b"cat\ndog\n"

    page.keyboard.press("ControlOrMeta+p")
    page.get_by_test_id("quickopen-input").fill("labels")
    expect(page.get_by_test_id("quickopen-item").first).to_have_attribute("data-path", "src/labels.txt")
    page.keyboard.press("Enter")
    expect(tab(page, "src/labels.txt")).to_be_visible()

    wait_for_saved_layout(live_server, project, "src/fit.py")
    page.reload()
    expect(tab(page, "src/fit.py")).to_be_visible()
    expect(page.locator("[data-testid=tree-item][data-path='src/fit.py']")).to_be_visible()

    page.locator("[data-testid=tree-item][data-path='src']").click(button="right")
    page.get_by_test_id("menu-delete").click()
    page.get_by_test_id("confirm-ok").click()
    expect(page.locator("[data-testid=tree-item][data-path='src']")).to_have_count(0)
    expect(tab(page, "src/fit.py")).to_have_count(0)
    assert not (Path(project["path"]) / "src").exists()
