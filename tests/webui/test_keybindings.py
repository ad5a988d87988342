"""Keys and commands in a real browser: VS Code's default keys and their effect, commands run
from the palette with the keyboard alone, and a key changed in the Keyboard Shortcuts editor
that is the only one to work after a reload (docs/ide.md, "Keyboard shortcuts")."""

import json
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.waiting import wait_until
from tests.webui.workbench import (
    create_project,
    editor_lines,
    open_file,
    open_project,
    saved_ui_state,
    tab,
)

pytestmark = pytest.mark.browser


def _editor(page: Page, path: str):
    return page.locator(f"[data-testid=editor][data-path='{path}']")


def _palette_key(page: Page, command: str):
    return page.locator(f"[data-testid=palette-item][data-command='{command}'] kbd")


def _saved_panels(live_server, project: dict) -> dict:
    return json.loads(saved_ui_state(live_server, project))["state"].get("layout", {}).get("panels", {})


def _keybindings(live_server) -> dict:
    return httpx.get(f"{live_server.url}/api/keybindings", headers=live_server.auth).json()["bindings"]


def test_vs_code_default_keys_show_their_views(
    context: BrowserContext, live_server, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # the terminal's shell reads this home's files
    project = create_project(live_server, "keys")
    (Path(project["path"]) / "main.py").write_text("a = 1\nb = 2\nc = 3\n")
    page = open_project(context, live_server, project)
    tree = page.get_by_test_id("file-tree")
    expect(tree).to_be_visible()

    page.keyboard.press("Control+Shift+F")
    expect(page.get_by_test_id("search-panel")).to_be_visible()
    page.keyboard.press("Control+Shift+E")
    expect(tree).to_be_visible()
    page.keyboard.press("Control+Shift+G")
    expect(page.get_by_test_id("scm-panel")).to_be_visible()
    page.keyboard.press("Control+Shift+D")
    expect(page.get_by_test_id("run-panel")).to_be_visible()
    page.keyboard.press("Control+Shift+X")  # the market stands for VS Code's Extensions view
    expect(page.get_by_test_id("market-panel")).to_be_visible()
    # macOS: Command does what Ctrl does.
    page.keyboard.press("Meta+Shift+E")
    expect(tree).to_be_visible()

    # Ctrl+B hides and shows the side bar; a view's key shows it again too.
    page.keyboard.press("Control+B")
    expect(tree).to_be_hidden()
    page.keyboard.press("Control+B")
    expect(tree).to_be_visible()
    page.keyboard.press("Control+B")
    expect(tree).to_be_hidden()
    page.keyboard.press("Control+Shift+E")
    expect(tree).to_be_visible()

    # Ctrl+` shows a terminal, Ctrl+J hides and shows the panel it is in.
    page.keyboard.press("Control+Backquote")
    expect(page.get_by_test_id("terminal")).to_be_visible()
    # A hidden group keeps its size-less content in the page: look at the panel that holds it.
    terminal = page.locator(".dock-panel", has=page.get_by_test_id("terminal"))
    page.keyboard.press("Control+J")
    expect(terminal).to_be_hidden()
    page.keyboard.press("Control+J")
    expect(terminal).to_be_visible()

    # The editor has the focus: F9 puts a breakpoint on the cursor's line and takes it off.
    open_file(page, "main.py")
    editor_lines(page, "main.py").click()
    page.keyboard.press("ControlOrMeta+Home")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("F9")
    glyphs = _editor(page, "main.py").locator(".bp-glyph")
    expect(glyphs).to_have_count(1)
    page.keyboard.press("F9")
    expect(glyphs).to_have_count(0)
    # Ctrl+B from inside the editor still works, and typing still goes into it.
    page.keyboard.press("Control+B")
    expect(tree).to_be_hidden()
    page.keyboard.press("Control+B")
    expect(tree).to_be_visible()

    # Ctrl+K Ctrl+S from the editor opens the shortcuts editor, and the editor's own Ctrl+K
    # chords go on working (Ctrl+K Ctrl+C comments the line).
    editor_lines(page, "main.py").click()
    page.keyboard.press("ControlOrMeta+Home")
    page.keyboard.press("Control+K")
    page.keyboard.press("Control+C")
    expect(editor_lines(page, "main.py")).to_contain_text("# a = 1")
    page.keyboard.press("Control+K")
    page.keyboard.press("Control+S")
    expect(page.get_by_test_id("keybindings-editor")).to_be_visible()
    # …and from anywhere else.
    tab(page, "main.py").click()
    expect(page.get_by_test_id("keybindings-editor")).to_be_hidden()
    page.get_by_test_id("file-tree").click()
    page.keyboard.press("Control+K")
    expect(page.get_by_test_id("chord-pending")).to_be_visible()
    page.keyboard.press("Control+S")
    expect(page.get_by_test_id("chord-pending")).to_be_hidden()
    expect(page.get_by_test_id("keybindings-editor")).to_be_visible()


def test_ctrl_tab_goes_through_the_recently_used_editors(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "recent")
    for name in ("a.txt", "b.txt", "c.txt"):
        (Path(project["path"]) / name).write_text(f"{name}\n")
    page = open_project(context, live_server, project)
    for name in ("a.txt", "b.txt", "c.txt"):
        open_file(page, name)
    expect(_editor(page, "c.txt")).to_be_visible()
    # One press goes back to the editor used before; the next press (Ctrl let go) comes back.
    page.keyboard.press("Control+Tab")
    expect(_editor(page, "b.txt")).to_be_visible()
    expect(_editor(page, "c.txt")).to_be_hidden()
    page.keyboard.press("Control+Tab")
    expect(_editor(page, "c.txt")).to_be_visible()
    # With Ctrl held, each Tab goes one further, and the list shows where it is.
    page.keyboard.down("Control")
    page.keyboard.press("Tab")
    switcher = page.get_by_test_id("editor-switcher")
    expect(switcher).to_be_visible()
    page.keyboard.press("Tab")
    expect(switcher.locator("[aria-selected=true]")).to_have_text("a.txt")
    page.keyboard.up("Control")
    expect(switcher).to_be_hidden()
    expect(_editor(page, "a.txt")).to_be_visible()
    # Ctrl+Shift+Tab goes the other way: a.txt was used last, then c.txt.
    page.keyboard.press("Control+Shift+Tab")
    expect(_editor(page, "b.txt")).to_be_visible()


def test_palette_runs_commands_by_keyboard_alone(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "palette-keys")
    (Path(project["path"]) / "notes.txt").write_text("one\ntwo\n")
    page = open_project(context, live_server, project)
    tree = page.get_by_test_id("file-tree")
    expect(tree).to_be_visible()
    palette_input = page.get_by_test_id("palette-input")

    # Every command shows its key; a command is found by its category too.
    page.keyboard.press("F1")
    palette_input.type("view toggle")
    sidebar = page.locator("[data-testid=palette-item][data-command='view.toggle-sidebar']")
    expect(sidebar).to_contain_text("View: Toggle side bar")
    expect(sidebar.locator("kbd")).to_have_text("Ctrl+B")
    expect(_palette_key(page, "view.toggle-panel")).to_have_text("Ctrl+J")
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("palette")).to_be_hidden()

    page.keyboard.press("Control+Shift+P")
    palette_input.type("toggle side bar")
    page.keyboard.press("Enter")
    expect(tree).to_be_hidden()

    # The arrow keys pick among the matches.
    page.keyboard.press("F1")
    palette_input.type("keyboard shortcuts")
    expect(_palette_key(page, "keybindings.open")).to_have_text("Ctrl+K Ctrl+S")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("keybindings-editor")).to_be_visible()

    page.keyboard.press("F1")
    palette_input.type("go to file")
    page.keyboard.press("Enter")
    page.get_by_test_id("quickopen-input").type("notes")
    expect(page.locator("[data-testid=quickopen-item][data-path='notes.txt']")).to_be_visible()
    page.keyboard.press("Enter")
    expect(_editor(page, "notes.txt")).to_be_visible()

    page.keyboard.press("F1")
    palette_input.type("toggle")
    items = page.get_by_test_id("palette-item")
    expect(items.first).to_be_visible()
    titles = items.all_inner_texts()
    index = next(i for i, text in enumerate(titles) if "Toggle breakpoint" in text)
    for _ in range(index):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(_editor(page, "notes.txt").locator(".bp-glyph")).to_have_count(1)

    page.keyboard.press("F1")
    palette_input.type("view files")
    page.keyboard.press("Enter")
    expect(tree).to_be_visible()


def test_a_key_changed_in_the_shortcuts_editor_is_the_one_that_works_after_a_reload(
    context: BrowserContext, live_server,
) -> None:
    project = create_project(live_server, "rebind")
    page = open_project(context, live_server, project)
    tree = page.get_by_test_id("file-tree")
    expect(tree).to_be_visible()
    page.keyboard.press("Control+K")
    page.keyboard.press("Control+S")
    editor = page.get_by_test_id("keybindings-editor")
    page.get_by_test_id("keybindings-search").type("toggle side bar")
    row = editor.locator("[data-testid=keybinding-row][data-command='view.toggle-sidebar']")
    expect(row.get_by_test_id("keybinding-key")).to_have_text("Ctrl+B")
    expect(row.get_by_test_id("keybinding-source")).to_have_text("Default")

    # Recording a key another command has shows the clash before anything is kept.
    row.focus()
    page.keyboard.press("Enter")
    recorder = row.get_by_test_id("keybinding-recorder")
    expect(recorder).to_be_focused()
    page.keyboard.press("Control+Shift+F")
    expect(recorder).to_have_value("Ctrl+Shift+F")
    clash = row.get_by_test_id("keybinding-record").get_by_test_id("keybinding-conflict")
    expect(clash).to_contain_text("Search: Search in files")
    page.keyboard.press("Escape")
    expect(recorder).to_be_hidden()
    assert _keybindings(live_server) == {}

    row.get_by_test_id("keybinding-edit").click()
    expect(row.get_by_test_id("keybinding-recorder")).to_be_focused()
    page.keyboard.press("Control+Alt+B")
    expect(row.get_by_test_id("keybinding-recorder")).to_have_value("Ctrl+Alt+B")
    page.keyboard.press("Enter")
    expect(row.get_by_test_id("keybinding-key")).to_have_text("Ctrl+Alt+B")
    expect(row.get_by_test_id("keybinding-source")).to_have_text("Yours")
    wait_until(lambda: _keybindings(live_server) == {"view.toggle-sidebar": ["Ctrl+Alt+B"]},
               what="the new key to be saved")
    # The layout is saved a moment after a change: the reload must find the shortcuts editor in it.
    wait_until(lambda: "keybindings" in _saved_panels(live_server, project),
               what="the layout with the shortcuts editor to be saved")

    page.reload()
    expect(page.get_by_test_id("status-connection")).to_have_attribute("data-state", "connected")
    expect(tree).to_be_visible()
    page.keyboard.press("Control+B")  # the old key does nothing now
    page.keyboard.press("F1")
    expect(_palette_key(page, "view.toggle-sidebar")).to_have_text("Ctrl+Alt+B")
    expect(page.get_by_test_id("palette-input")).to_be_focused()
    page.keyboard.press("Escape")
    expect(tree).to_be_visible()
    page.keyboard.press("Control+Alt+B")
    expect(tree).to_be_hidden()
    page.keyboard.press("Control+Alt+B")
    expect(tree).to_be_visible()

    # A chord works as well, and reset brings the default back.
    editor = page.get_by_test_id("keybindings-editor")
    expect(editor).to_be_visible()  # the reload brought the shortcuts editor back
    page.get_by_test_id("keybindings-search").type("toggle panel")
    panel_row = editor.locator("[data-testid=keybinding-row][data-command='view.toggle-panel']")
    panel_row.get_by_test_id("keybinding-edit").click()
    expect(panel_row.get_by_test_id("keybinding-recorder")).to_be_focused()
    page.keyboard.press("Control+K")
    page.keyboard.press("Control+J")
    expect(panel_row.get_by_test_id("keybinding-recorder")).to_have_value("Ctrl+K Ctrl+J")
    page.keyboard.press("Enter")
    wait_until(lambda: _keybindings(live_server).get("view.toggle-panel") == ["Ctrl+K Ctrl+J"],
               what="the chord to be saved")
    page.get_by_test_id("file-tree").click()
    page.keyboard.press("Control+K")
    page.keyboard.press("Control+J")
    expect(page.get_by_test_id("problems-panel")).to_be_visible()

    page.get_by_test_id("keybindings-search").fill("toggle side bar")
    row = editor.locator("[data-testid=keybinding-row][data-command='view.toggle-sidebar']")
    row.get_by_test_id("keybinding-reset").click()
    expect(row.get_by_test_id("keybinding-key")).to_have_text("Ctrl+B")
    wait_until(lambda: "view.toggle-sidebar" not in _keybindings(live_server), what="the reset to be saved")
    page.get_by_test_id("file-tree").click()
    page.keyboard.press("Control+B")
    expect(tree).to_be_hidden()
