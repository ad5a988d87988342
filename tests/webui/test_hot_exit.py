"""Hot exit in a real browser: unsaved edits survive a reload and a crashed tab, come back marked,
say so when the file changed on disk meanwhile; closing an unsaved editor asks Save / Don't
save / Cancel; leaving the page with an edit the server does not hold yet asks first."""

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.waiting import SCALE, wait_until
from tests.webui.workbench import (
    create_project,
    disk_text,
    editor_lines,
    expect_saved,
    open_file,
    open_project,
    replace_text,
    saved_ui_state,
    tab,
)

pytestmark = pytest.mark.browser

ORIGINAL = "x = 1\n"
EDITED = "x = 2  # not saved"


def _backups(live_server, project: dict) -> dict[str, str]:
    url = f"{live_server.url}/api/projects/{project['id']}/backups"
    answer = httpx.get(url, headers=live_server.auth, timeout=30 * SCALE)
    return {b["path"]: b["content"] for b in answer.json()}


def _kept(live_server, project: dict, path: str, text: str) -> None:
    wait_until(lambda: _backups(live_server, project).get(path) == text,
               what=f"the unsaved text of {path} kept on the server")


def _project(live_server, name: str) -> dict:
    project = create_project(live_server, name)
    (Path(project["path"]) / "a.py").write_text(ORIGINAL)
    (Path(project["path"]) / "b.py").write_text("y = 1\n")
    return project


def _expect_restored(page: Page, path: str, text: str) -> None:
    expect(editor_lines(page, path)).to_contain_text(text)
    expect(tab(page, path)).to_have_attribute("data-state", "dirty")
    expect(tab(page, path)).to_have_attribute("data-restored", "true")


def test_unsaved_edits_survive_a_reload_and_a_crashed_tab(context: BrowserContext, live_server) -> None:
    project = _project(live_server, "hot-exit")
    page = open_project(context, live_server, project)
    open_file(page, "a.py")
    replace_text(page, "a.py", EDITED)
    _kept(live_server, project, "a.py", EDITED)

    page.reload()
    _expect_restored(page, "a.py", EDITED)
    expect(page.get_by_test_id("toast-info")).to_contain_text("Restored your unsaved changes of a.py.")
    assert disk_text(project, "a.py") == ORIGINAL

    # A tab that dies without a word: a new one has them back too.
    page.close(run_before_unload=False)
    page = open_project(context, live_server, project)
    _expect_restored(page, "a.py", EDITED)
    # The disk text is one Undo away; back there, nothing is left to keep.
    editor_lines(page, "a.py").click()
    page.keyboard.press("ControlOrMeta+z")
    expect_saved(page, "a.py")
    wait_until(lambda: "a.py" not in _backups(live_server, project), what="the backup dropped")
    page.keyboard.press("ControlOrMeta+Shift+z")
    _kept(live_server, project, "a.py", EDITED)
    page.keyboard.press("ControlOrMeta+s")
    expect_saved(page, "a.py")
    wait_until(lambda: not _backups(live_server, project), what="the backup dropped after saving")
    assert disk_text(project, "a.py") == EDITED
    page.reload()
    expect(editor_lines(page, "a.py")).to_contain_text(EDITED)
    expect(tab(page, "a.py")).to_have_attribute("data-restored", "false")


def test_a_file_changed_on_disk_meanwhile_asks_before_a_save_overwrites_it(
    context: BrowserContext, live_server, console_errors
) -> None:
    console_errors.allow(r"409 .*/files/content\?path=a\.py")  # the save that must not overwrite
    project = _project(live_server, "hot-exit-conflict")
    page = open_project(context, live_server, project)
    open_file(page, "a.py")
    replace_text(page, "a.py", EDITED)
    _kept(live_server, project, "a.py", EDITED)
    page.close(run_before_unload=False)
    (Path(project["path"]) / "a.py").write_text("x = 3  # changed by someone else\n")

    page = open_project(context, live_server, project)
    _expect_restored(page, "a.py", EDITED)
    expect(page.get_by_test_id("disk-changed-bar")).to_contain_text("changed on disk")
    editor_lines(page, "a.py").click()
    page.keyboard.press("ControlOrMeta+s")
    dialog = page.get_by_test_id("conflict-dialog")
    expect(dialog).to_be_visible()
    assert disk_text(project, "a.py") == "x = 3  # changed by someone else\n"
    dialog.get_by_test_id("conflict-keep-mine").click()
    expect_saved(page, "a.py")
    assert disk_text(project, "a.py") == EDITED


def test_closing_an_unsaved_editor_asks_save_dont_save_or_cancel(
    context: BrowserContext, live_server
) -> None:
    project = _project(live_server, "hot-exit-close")
    page = open_project(context, live_server, project)
    open_file(page, "a.py")
    replace_text(page, "a.py", EDITED)
    close = tab(page, "a.py").get_by_test_id("editor-tab-close")
    close.click()
    dialog = page.get_by_test_id("confirm-dialog")
    expect(dialog).to_contain_text("Save the changes you made to a.py?")
    expect(dialog.get_by_test_id("confirm-ok")).to_be_focused()
    dialog.get_by_test_id("confirm-cancel").click()
    expect(tab(page, "a.py")).to_have_attribute("data-state", "dirty")

    close.click()
    dialog.get_by_test_id("confirm-ok").click()  # Save
    expect(tab(page, "a.py")).to_have_count(0)
    assert disk_text(project, "a.py") == EDITED

    open_file(page, "b.py")
    replace_text(page, "b.py", "y = 2")
    _kept(live_server, project, "b.py", "y = 2")
    tab(page, "b.py").get_by_test_id("editor-tab-close").click()
    dialog.get_by_test_id("confirm-alternative").click()  # Don't save
    expect(tab(page, "b.py")).to_have_count(0)
    wait_until(lambda: not _backups(live_server, project), what="the dropped edits' backup gone")
    wait_until(lambda: "editor:b.py" not in saved_ui_state(live_server, project),
               what="the layout saved without b.py")
    page.reload()
    expect(page.get_by_test_id("status-connection")).to_have_attribute("data-state", "connected")
    expect(tab(page, "b.py")).to_have_count(0)
    assert disk_text(project, "b.py") == "y = 1\n"


def test_leaving_with_an_edit_the_server_does_not_hold_yet_asks_first(
    context: BrowserContext, live_server
) -> None:
    project = _project(live_server, "hot-exit-unload")
    page = open_project(context, live_server, project)
    open_file(page, "a.py")
    # The server never answers: the edit stays only in this tab.
    page.route("**/backups?*", lambda route: None)
    replace_text(page, "a.py", EDITED)
    with page.expect_event("dialog") as asked:
        page.close(run_before_unload=True)
    assert asked.value.type == "beforeunload"
    asked.value.dismiss()  # stay on the page
    expect(tab(page, "a.py")).to_have_attribute("data-state", "dirty")
