"""Python language features beyond completion, in a real browser with the real language server:
rename across files with its preview and undo, find all references, go to symbol in workspace,
formatting (on demand and on save), and the Problems panel (the console must stay free of
errors)."""

from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.waiting import wait_until
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
)

pytestmark = pytest.mark.browser

HELPERS = "def shout(text):\n    return text.upper()\n"
USER_A = "from helpers import shout\n\nprint(shout('a'))\n"
USER_B = "import helpers\n\nhelpers.shout('b')\n"
# The language server starts with the first Python editor: on a loaded machine that takes a while.
LSP_START_MS = 40_000


def _three_files(live_server) -> dict:
    project = create_project(live_server, "rename")
    root = Path(project["path"])
    (root / "helpers.py").write_text(HELPERS)
    (root / "a.py").write_text(USER_A)
    (root / "pkg").mkdir()
    (root / "pkg" / "b.py").write_text(USER_B)
    return project


def _cursor_at(page: Page, path: str, where: str) -> None:
    """The cursor in ``path``'s editor at ``line:column`` (Ctrl+G)."""
    editor_lines(page, path).click()
    page.keyboard.press("Control+G")
    page.get_by_test_id("palette-input").fill(where)
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("status-cursor")).to_contain_text(f"Ln {where.replace(':', ', Col ')}")


def test_rename_a_function_used_in_three_files_with_preview_and_undo(
    context: BrowserContext, live_server,
) -> None:
    project = _three_files(live_server)
    page = open_project(context, live_server, project)
    open_file(page, "a.py")
    _cursor_at(page, "a.py", "3:8")
    page.keyboard.press("F2")
    rename_input = page.locator(".rename-box input")
    expect(rename_input).to_be_visible()
    rename_input.fill("yell")
    rename_input.press("Enter")
    preview = page.get_by_test_id("rename-preview")
    expect(preview).to_be_visible(timeout=LSP_START_MS)
    expect(page.get_by_test_id("rename-summary")).to_have_text("4 changes in 3 files.")
    expect(page.get_by_test_id("rename-file")).to_have_count(3)
    expect(preview).to_contain_text("helpers.yell('b')")
    expect(preview).to_contain_text("def yell(text):")
    # Nothing is written before Apply.
    assert disk_text(project, "helpers.py") == HELPERS
    page.get_by_test_id("rename-apply").click()
    expect(page.get_by_test_id("rename-done")).to_contain_text("Renamed shout to yell in 3 files.")
    renamed = {"a.py": "from helpers import yell\n\nprint(yell('a'))\n",
               "helpers.py": "def yell(text):\n    return text.upper()\n",
               "pkg/b.py": "import helpers\n\nhelpers.yell('b')\n"}
    wait_until(lambda: all(disk_text(project, p) == t for p, t in renamed.items()),
               what="the three files renamed on disk")
    expect(editor_lines(page, "a.py")).to_contain_text("print(yell('a'))")
    expect_saved(page, "a.py")
    # One step back, in every file.
    page.get_by_test_id("rename-undo").click()
    expect(page.get_by_test_id("rename-done")).to_have_count(0)
    original = {"a.py": USER_A, "helpers.py": HELPERS, "pkg/b.py": USER_B}
    wait_until(lambda: all(disk_text(project, p) == t for p, t in original.items()),
               what="the three files restored")
    expect(editor_lines(page, "a.py")).to_contain_text("print(shout('a'))")


def test_find_all_references_and_go_to_symbol_in_workspace(context: BrowserContext, live_server) -> None:
    project = _three_files(live_server)
    page = open_project(context, live_server, project)
    open_file(page, "a.py")
    _cursor_at(page, "a.py", "3:8")
    page.keyboard.press("Shift+F12")
    peek = page.locator(".peekview-widget")
    expect(peek).to_be_visible(timeout=LSP_START_MS)
    tree = peek.locator(".ref-tree")
    for name in ("a.py", "helpers.py", "b.py"):
        expect(tree).to_contain_text(name)
    expect(peek.locator(".peekview-title")).to_contain_text("References (4)")
    page.keyboard.press("Escape")
    expect(peek).to_have_count(0)
    page.keyboard.press("Control+Alt+O")
    page.get_by_test_id("symbol-input").fill("shou")
    item = page.locator("[data-testid=symbol-item][data-path='helpers.py']")
    expect(item).to_contain_text("shout")
    expect(page.locator(".quickopen-list")).to_have_attribute("data-query", "shou")
    page.get_by_test_id("symbol-input").fill("")
    # A fast typist: Enter before the answer to what was typed opens that answer's first symbol,
    # not one of the older list.
    page.get_by_test_id("symbol-input").fill("shou")
    page.keyboard.press("Enter")
    expect(page.locator("[data-testid=editor][data-path='helpers.py']")).to_be_visible()
    expect(page.get_by_test_id("status-cursor")).to_contain_text("Ln 1, Col 10 (5 selected)")  # the name


MESSY = "import sys\nimport os\nx=[1,2,\n 3]\ndef  f( a ):\n  return a\n"
FORMATTED = "import sys\nimport os\n\nx = [1, 2, 3]\n\n\ndef f(a):\n    return a\n"


def test_format_a_badly_formatted_file_and_format_on_save(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "format")
    (Path(project["path"]) / "messy.py").write_text(MESSY)
    page = open_project(context, live_server, project)
    open_file(page, "messy.py")
    editor_lines(page, "messy.py").click()
    # Shift+Alt+F formats with the server's ruff (the project has no environment of its own).
    page.keyboard.press("Shift+Alt+F")
    expect(editor_lines(page, "messy.py")).to_contain_text("x = [1, 2, 3]", timeout=LSP_START_MS)
    save(page)
    wait_until(lambda: disk_text(project, "messy.py") == FORMATTED, what="the formatted file saved")
    # Organize Imports sorts them, one undoable step.
    page.keyboard.press("Shift+Alt+O")
    expect(tab(page, "messy.py")).to_have_attribute("data-state", "dirty")
    save(page)
    sorted_imports = FORMATTED.replace("import sys\nimport os\n", "import os\nimport sys\n")
    wait_until(lambda: disk_text(project, "messy.py") == sorted_imports, what="the imports sorted")
    page.keyboard.press("ControlOrMeta+z")
    save(page)
    wait_until(lambda: disk_text(project, "messy.py") == FORMATTED, what="the sorting undone")
    # Format on save, a setting of the person.
    page.keyboard.press("F1")
    page.get_by_test_id("palette-input").fill("format on save")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("toast-info")).to_contain_text("now formatted when you save")
    replace_text(page, "messy.py", "y=1+2\nz  =  3")
    save(page)
    wait_until(lambda: disk_text(project, "messy.py") == "y = 1 + 2\nz = 3\n",
               what="the file formatted on save")
    expect_saved(page, "messy.py")


def test_problems_panel_lists_a_pyflakes_error_and_jumps_to_it(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "problems")
    root = Path(project["path"])
    (root / "broken.py").write_text("import os\n\nprint(undefined_name)\n")
    page = open_project(context, live_server, project)
    open_file(page, "broken.py")
    counts = page.get_by_test_id("status-problems")
    expect(counts).to_have_attribute("data-errors", "1", timeout=LSP_START_MS)
    expect(counts).to_have_attribute("data-warnings", "1")
    counts.click()
    panel = page.get_by_test_id("problems-panel")
    error = panel.locator("[data-testid=problem][data-severity=error]")
    expect(error).to_contain_text("undefined name 'undefined_name'")
    expect(error).to_have_attribute("data-path", "broken.py")
    expect(error).to_have_attribute("data-line", "3")
    # A file changed on disk, open in no editor, is listed too.
    (root / "other.py").write_text("import json\n")
    other = panel.locator("[data-testid=problem][data-path='other.py']")
    expect(other).to_contain_text("'json' imported but unused")
    error.click()
    expect(page.get_by_test_id("status-cursor")).to_contain_text("Ln 3, Col 7")
    # The unused import's quick fix (Ctrl+.) removes it.
    _cursor_at(page, "broken.py", "1:8")
    page.keyboard.press("Control+.")
    fix = page.locator(".action-widget").get_by_text("Remove unused import os")
    expect(fix).to_be_visible()
    fix.click()
    expect(editor_lines(page, "broken.py")).not_to_contain_text("import os")
    expect(counts).to_have_attribute("data-warnings", "1")  # other.py's
