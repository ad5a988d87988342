"""The terminal, search and replace, the command palette and the Python language server, in a
real browser, doing what a person does (the console must stay free of errors)."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.waiting import wait_until
from tests.webui.workbench import (
    create_project,
    disk_text,
    editor_lines,
    open_file,
    open_project,
    saved_ui_state,
)

pytestmark = pytest.mark.browser


def _terminal_rows(page: Page):
    return page.get_by_test_id("terminal").locator(".xterm-rows")


def _type_in_terminal(page: Page, text: str) -> None:
    page.get_by_test_id("terminal").click()
    expect(page.locator(".xterm-helper-textarea")).to_be_focused()
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def _stty_size(page: Page, marker: str) -> tuple[int, int]:
    _type_in_terminal(page, f"echo {marker}-$(stty size | tr ' ' x)-")
    expect(_terminal_rows(page)).to_contain_text(re.compile(rf"{marker}-\d+x\d+-"))
    rows, cols = re.findall(rf"{marker}-(\d+)x(\d+)-", _terminal_rows(page).inner_text())[-1]
    return int(rows), int(cols)


def test_terminal_types_resizes_and_survives_a_reload(
    context: BrowserContext, live_server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    # The shell reads the start-up files of this home, not those of whoever runs the tests.
    monkeypatch.setenv("HOME", str(tmp_path))
    project = create_project(live_server, "term")
    page = open_project(context, live_server, project)
    page.keyboard.press("Control+Backquote")
    expect(page.get_by_test_id("terminal")).to_be_visible()
    _type_in_terminal(page, "echo $((6*7))x; KEEP=kept-$$")
    expect(_terminal_rows(page)).to_contain_text("42x")
    before = _stty_size(page, "a")
    page.set_viewport_size({"width": 1000, "height": 700})
    wait_until(lambda: _stty_size(page, "b") != before, what="the shell to see the new terminal size")
    # The terminal's id is in the saved layout: a reload reattaches to the same shell.
    wait_until(lambda: "terminalId" in saved_ui_state(live_server, project), what="the layout to be saved")
    page.reload()
    expect(_terminal_rows(page)).to_contain_text("42x")
    _type_in_terminal(page, "echo $KEEP-again")
    expect(_terminal_rows(page)).to_contain_text(re.compile(r"kept-\d+-again"))


def test_a_second_tab_shares_the_terminal(
    context: BrowserContext, live_server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    project = create_project(live_server, "shared-term")
    first = open_project(context, live_server, project)
    first.keyboard.press("Control+Backquote")
    _type_in_terminal(first, "echo first-$((2*3))")
    expect(_terminal_rows(first)).to_contain_text("first-6")
    wait_until(lambda: "terminalId" in saved_ui_state(live_server, project), what="the layout to be saved")
    # The same project in a second tab: the same shell, beside the first tab, not taken from it.
    second = open_project(context, live_server, project)
    expect(_terminal_rows(second)).to_contain_text("first-6")
    _type_in_terminal(second, "echo second-$((3*3))")
    expect(_terminal_rows(second)).to_contain_text("second-9")
    expect(_terminal_rows(first)).to_contain_text("second-9")
    _type_in_terminal(first, "echo again-$((4*4))")
    expect(_terminal_rows(second)).to_contain_text("again-16")
    expect(first.get_by_test_id("terminal")).not_to_contain_text("closed")


def test_search_opens_a_match_and_replace_applies_after_a_preview(
    context: BrowserContext, live_server,
) -> None:
    project = create_project(live_server, "find")
    root = Path(project["path"])
    (root / "pkg").mkdir()
    (root / "pkg" / "a.py").write_text("alpha = 1\nprint(alpha)\n")
    (root / "b.txt").write_text("no match here\nalpha beta\n")
    (root / ".gitignore").write_text("secret/\n")
    (root / "secret").mkdir()
    (root / "secret" / "c.py").write_text("alpha\n")
    page = open_project(context, live_server, project)
    page.keyboard.press("Control+Shift+F")
    page.get_by_test_id("search-input").fill("alpha")
    expect(page.get_by_test_id("search-summary")).to_have_text("3 results in 2 files")
    expect(page.get_by_test_id("search-file")).to_have_count(2)
    page.locator("[data-testid=search-match][data-path='b.txt']").click()
    expect(page.locator("[data-testid=editor][data-path='b.txt']")).to_be_visible()
    page.get_by_test_id("replace-input").fill("gamma")
    page.get_by_test_id("replace-preview-btn").click()
    preview = page.get_by_test_id("replace-preview")
    expect(preview).to_contain_text("gamma beta")
    expect(page.get_by_test_id("search-summary")).to_have_text("Replace 3 matches in 2 files?")
    page.get_by_test_id("replace-apply").click()
    expect(page.get_by_test_id("search-summary")).to_have_text("Replaced 3 in 2 files.")
    assert disk_text(project, "pkg/a.py") == "gamma = 1\nprint(gamma)\n"
    assert disk_text(project, "secret/c.py") == "alpha\n"
    # The open editor shows the new text too.
    expect(editor_lines(page, "b.txt")).to_contain_text("gamma beta")


# The server's words when the matching used up its CPU time (server/search/engine.py).
TOO_SLOW = "matching the pattern took too long"


def _search_for(page: Page, query: str, *, regex: bool = False) -> None:
    page.keyboard.press("Control+Shift+F")
    if regex:
        page.get_by_test_id("search-regex").click()
        expect(page.get_by_test_id("search-regex")).to_have_attribute("aria-pressed", "true")
    page.get_by_test_id("search-input").fill(query)


def test_search_shows_why_the_server_refused_a_regex(
    context: BrowserContext, live_server, console_errors,
) -> None:
    console_errors.allow(r"422 .*/search\?")  # the refused search
    project = create_project(live_server, "slow-regex")
    # Git finds "ab" at the start at once; Python's re then backtracks for ever on the run of a.
    (Path(project["path"]) / "run.txt").write_text("ab" + "a" * 30_000 + "\n")
    page = open_project(context, live_server, project)
    _search_for(page, "(a+)+b", regex=True)
    expect(page.get_by_test_id("search-summary")).to_contain_text(TOO_SLOW)
    expect(page.get_by_test_id("search-match")).to_have_count(0)


def test_search_that_fails_midway_keeps_its_first_matches_and_shows_why(
    context: BrowserContext, live_server,
) -> None:
    project = create_project(live_server, "slow-text")
    root = Path(project["path"])
    # A case-insensitive literal is matched character by character: the first file's line is
    # matched in the server and streamed; the second's, long enough to go to the worker, takes
    # it past its CPU time, and the stream ends with an error line (no 422: the console stays
    # clean).
    query = "a" * 999 + "b"
    (root / "a.txt").write_text(query + "\n")
    (root / "b.txt").write_text("a" * 3_000_000 + query + "\n")
    page = open_project(context, live_server, project)
    _search_for(page, query)
    expect(page.get_by_test_id("search-summary")).to_contain_text(TOO_SLOW)
    expect(page.get_by_test_id("search-file")).to_have_count(1)
    expect(page.locator("[data-testid=search-match][data-path='a.txt']")).to_be_visible()


def test_palette_lists_actions_with_shortcuts_and_go_to_line(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "palette")
    (Path(project["path"]) / "lines.txt").write_text("one\ntwo\nthree\nfour\n")
    page = open_project(context, live_server, project)
    page.keyboard.press("F1")
    expect(page.get_by_test_id("palette")).to_be_visible()
    terminal = page.locator("[data-testid=palette-item][data-command='terminal.new']")
    expect(terminal).to_contain_text("New terminal")
    expect(terminal.locator("kbd")).to_have_text("Ctrl+Shift+`")
    expect(page.locator("[data-testid=palette-item][data-command=git]")).to_contain_text("Ctrl+Shift+G")
    page.get_by_test_id("palette-input").fill("search files")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("search-panel")).to_be_visible()
    page.get_by_test_id("action-files").click()  # the search panel is a tab beside the tree
    open_file(page, "lines.txt")
    editor_lines(page, "lines.txt").click()
    page.keyboard.press("Control+G")
    page.get_by_test_id("palette-input").fill("3")
    page.keyboard.press("Enter")
    page.keyboard.type(">")
    page.keyboard.press("ControlOrMeta+s")
    edited = "one\ntwo\n>three\nfour\n"
    wait_until(lambda: disk_text(project, "lines.txt") == edited, what="the edit on line 3")


def test_python_completion_from_the_language_server(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "lsp")
    (Path(project["path"]) / "use_os.py").write_text("import os\n\n")
    page = open_project(context, live_server, project)
    open_file(page, "use_os.py")
    editor_lines(page, "use_os.py").click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.type("os.getcw")
    # The completion waits for the language server to start; a loaded machine may need a retry.
    wait_until(lambda: _suggested(page, "getcwd"), timeout=40, what="a completion for os.getcw")
    page.keyboard.press("Enter")
    expect(editor_lines(page, "use_os.py")).to_contain_text("os.getcwd")


def _suggested(page: Page, name: str) -> bool:
    """Asks for completions (Ctrl+Space) and says whether ``name`` is offered."""
    page.keyboard.press("Escape")
    page.keyboard.press("Control+Space")
    try:
        expect(page.locator(".suggest-widget .monaco-list-row").filter(has_text=name).first).to_be_visible(
            timeout=20_000)
    except AssertionError:
        return False
    return True
