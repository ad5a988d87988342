"""The file tree with the keyboard and the mouse: F2, Delete, nested new files, drag and drop, and
names coloured by their Git state."""

import re
import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.webui.workbench import create_project, open_project, tab

pytestmark = pytest.mark.browser


def row(page, path: str):
    return page.locator(f"[data-testid=tree-item][data-path='{path}']")


def commit_all(root: Path) -> None:
    git = ["git", "-C", str(root), "-c", "user.name=T", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "start"], check=True)


def test_keys_nested_new_file_drag_and_drop_and_git_colours(
    context: BrowserContext, live_server, tmp_path: Path
) -> None:
    project = create_project(live_server, "tree-keys")
    root = Path(project["path"])
    (root / "data").mkdir()
    (root / "old.txt").write_text("old\n")
    (root / "gone.txt").write_text("gone\n")
    commit_all(root)
    (root / "main.py").write_text("print('changed')\n")
    (root / "fresh.py").write_text("x = 1\n")
    page = open_project(context, live_server, project)

    expect(row(page, "main.py")).to_have_attribute("data-git", "modified")
    expect(row(page, "fresh.py")).to_have_attribute("data-git", "untracked")
    expect(row(page, "old.txt")).to_have_attribute("data-git", "")

    # A new file deep in folders that do not exist yet.
    page.get_by_test_id("tree-new-file").click()
    page.get_by_test_id("prompt-input").fill("src/a/b.py")
    page.get_by_test_id("prompt-ok").click()
    expect(tab(page, "src/a/b.py")).to_be_visible()
    expect(row(page, "src/a/b.py")).to_be_visible()
    assert (root / "src/a/b.py").is_file()
    expect(row(page, "src")).to_have_attribute("data-git", "untracked")

    # F2 renames the focused entry, Delete deletes it after a confirmation.
    row(page, "old.txt").focus()
    page.keyboard.press("F2")
    page.get_by_test_id("prompt-input").fill("new.txt")
    page.get_by_test_id("prompt-ok").click()
    expect(row(page, "new.txt")).to_be_visible()
    assert (root / "new.txt").read_text() == "old\n"
    row(page, "gone.txt").focus()
    page.keyboard.press("Delete")
    page.get_by_test_id("confirm-ok").click()
    expect(row(page, "gone.txt")).to_have_count(0)
    assert not (root / "gone.txt").exists()
    # it went to the project's trash: Undo brings it back
    toast = page.get_by_test_id("toast-info").filter(has_text="Deleted gone.txt.")
    toast.get_by_test_id("toast-action").click()
    expect(row(page, "gone.txt")).to_be_visible()
    assert (root / "gone.txt").read_text() == "gone\n"

    # Drag a file onto a folder: it moves there, and back to the root below the rows.
    row(page, "fresh.py").drag_to(row(page, "data"))
    expect(row(page, "data/fresh.py")).to_be_visible()
    assert (root / "data/fresh.py").read_text() == "x = 1\n"
    row(page, "data/fresh.py").drag_to(page.get_by_test_id("tree-body"), target_position={"x": 60, "y": 400})
    expect(row(page, "fresh.py")).to_be_visible()
    assert (root / "fresh.py").exists() and not (root / "data/fresh.py").exists()

    # The toolbar's New file and Upload go into the selected folder (or the selected file's).
    # The move above is done when it selects the moved file; only then is the next pick ours.
    expect(row(page, "fresh.py")).to_have_class(re.compile(r"\bselected\b"))
    row(page, "data").click()
    expect(row(page, "data")).to_have_class(re.compile(r"\bselected\b"))
    with page.expect_file_chooser() as chooser:
        page.get_by_test_id("tree-upload").click()
    upload = tmp_path / "notes.txt"
    upload.write_text("uploaded\n")
    chooser.value.set_files(str(upload))
    expect(row(page, "data/notes.txt")).to_be_visible()
    assert (root / "data" / "notes.txt").read_text() == "uploaded\n"
    row(page, "data/notes.txt").click()
    page.get_by_test_id("tree-new-file").click()
    page.get_by_test_id("prompt-input").fill("beside.py")
    page.get_by_test_id("prompt-ok").click()
    expect(row(page, "data/beside.py")).to_be_visible()
