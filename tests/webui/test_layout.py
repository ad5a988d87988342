"""Where things open: editors always in the main area, whatever layout a reload brings back."""

import json
import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, Route, expect

from tests.waiting import wait_until
from tests.webui.workbench import (
    create_project,
    editor_lines,
    open_file,
    open_project,
    saved_ui_state,
    tab,
    wait_for_saved_layout,
)

pytestmark = pytest.mark.browser


def editor_width(page: Page, path: str) -> float:
    box = page.locator(f"[data-testid=editor][data-path='{path}']").bounding_box()
    assert box is not None
    return box["width"]


def test_a_file_opens_in_the_main_area_after_a_reload_with_side_bars_open(
    context: BrowserContext, live_server
) -> None:
    project = create_project(live_server, "layout")
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-git").click()
    expect(page.get_by_test_id("scm-history")).to_be_visible()
    page.get_by_test_id("action-run-debug").click()
    expect(page.get_by_test_id("run-toolbar")).to_be_visible()
    wait_until(
        lambda: all(f'"{panel}"' in saved_ui_state(live_server, project) for panel in ("git", "run-debug")),
        what="the layout with Source Control and Run and Debug",
    )

    page.reload()
    expect(page.get_by_test_id("status-connection")).to_have_attribute("data-state", "connected")
    page.get_by_test_id("action-files").click()  # Run and Debug shares the tree's group
    open_file(page, "README.md")
    window = page.viewport_size
    assert window is not None
    assert editor_width(page, "README.md") > window["width"] / 2

    # Go to file (Ctrl+P) opens beside it, in the same main area.
    page.keyboard.press("ControlOrMeta+p")
    page.get_by_test_id("quickopen-input").fill("main")
    expect(page.locator("[data-testid=quickopen-item][data-path='main.py']")).to_be_visible()
    page.keyboard.press("Enter")
    expect(page.locator("[data-testid=editor-tab][data-path='main.py']")).to_be_visible()
    assert editor_width(page, "main.py") > window["width"] / 2


def test_a_layout_that_lost_its_main_area_gets_one_back(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "no-main")
    page = open_project(context, live_server, project)
    wait_until(lambda: '"files"' in saved_ui_state(live_server, project), what="the first layout")
    page.close()
    # The saved layout keeps only the file tree's group: the (empty) editor area is gone.
    state = json.loads(saved_ui_state(live_server, project))["state"]
    root = state["layout"]["grid"]["root"]
    root["data"] = [leaf for leaf in root["data"] if "files" in leaf["data"]["views"]]
    url = f"{live_server.url}/api/projects/{project['id']}/ui-state"
    assert httpx.put(url, headers=live_server.auth, json={"state": state}).status_code == 200

    page = open_project(context, live_server, project)
    open_file(page, "README.md")
    window = page.viewport_size
    assert window is not None
    assert editor_width(page, "README.md") > window["width"] / 2


def test_an_editor_dragged_into_a_side_group_can_be_dragged_back_out(
    context: BrowserContext, live_server
) -> None:
    project = create_project(live_server, "drag-out")
    page = open_project(context, live_server, project)
    open_file(page, "README.md")
    page.get_by_test_id("action-git").click()
    expect(page.get_by_test_id("scm-history")).to_be_visible()
    side = page.locator(".dv-groupview").filter(has=page.get_by_test_id("scm-panel"))
    side_box = side.bounding_box()
    assert side_box is not None
    readme_tab = page.locator("[data-testid=editor-tab][data-path='README.md']")

    # Dropped on the side group's tab bar, the editor joins that narrow group…
    readme_tab.drag_to(side.locator(".dv-void-container"))
    in_side = page.locator(".dv-groupview").filter(has=readme_tab)
    expect(in_side.locator(".dv-tab")).to_have_count(2)
    assert editor_width(page, "README.md") < side_box["width"] + 1
    expect(page.get_by_test_id("watermark")).to_be_visible()

    # …and dragged onto the empty editor area it is back there, full width.
    readme_tab.drag_to(page.get_by_test_id("watermark"))
    expect(page.locator(".dv-groupview").filter(has=page.get_by_test_id("watermark"))).to_have_count(0)
    window = page.viewport_size
    assert window is not None
    assert editor_width(page, "README.md") > window["width"] / 2
    expect(page.get_by_test_id("scm-panel")).to_be_visible()


# Takes out of the page's config the layout it carries (server/web/first_view.py), before the
# page's scripts read it: the page then asks for the layout.
WITHOUT_FIRST_VIEW = """new MutationObserver((_, observer) => {
  const node = document.getElementById('mnnwb-config');
  let config;
  try { config = JSON.parse(node?.textContent ?? ''); } catch { return; }  // not all parsed yet
  delete config.first_view;
  node.textContent = JSON.stringify(config);
  observer.disconnect();
}).observe(document, { subtree: true, childList: true, characterData: true });"""


def open_with_the_layout_held(context: BrowserContext, live_server, name: str) -> tuple[Page, Route]:
    """A new project's page, its saved layout late: the page is drawn, the dock is not. The page
    carries the layout, so it is left out and the request the page then makes is held."""
    project = create_project(live_server, name)
    held: list[Route] = []
    context.route(re.compile(r"/ui-state$"),
                  lambda route: held.append(route) if route.request.method == "GET" else route.continue_())
    page = context.new_page()
    page.add_init_script(WITHOUT_FIRST_VIEW)
    with page.expect_request(lambda r: r.url.endswith("/ui-state") and r.method == "GET"):
        page.goto(f"{live_server.url}/p/{project['id']}")
    expect(page.get_by_test_id("action-git")).to_be_disabled()  # drawn, the features registered
    assert len(held) == 1
    return page, held[0]


def test_title_actions_wait_for_the_layout_so_an_early_click_is_not_lost(
    context: BrowserContext, live_server
) -> None:
    """Before the saved layout is restored there is no dock to show a panel in: the title bar's
    buttons are disabled until then (a click used to be lost, with an error in the console)."""
    page, layout = open_with_the_layout_held(context, live_server, "early")
    layout.continue_()
    page.get_by_test_id("action-git").click()
    expect(page.get_by_test_id("scm-panel")).to_be_visible()


def test_shortcuts_pressed_before_the_layout_is_restored_run_once_it_is(
    context: BrowserContext, live_server
) -> None:
    """A shortcut acts on the dock; pressed while the saved layout loads, it is held and replayed
    (it used to throw "the dock is not ready" into the console and do nothing)."""
    page, layout = open_with_the_layout_held(context, live_server, "early-keys")
    page.keyboard.press("Control+Shift+G")
    page.keyboard.press("Control+Shift+F")
    expect(page.get_by_test_id("scm-panel")).to_have_count(0)
    layout.continue_()
    expect(page.get_by_test_id("scm-panel")).to_be_visible()
    expect(page.get_by_test_id("search-panel")).to_be_visible()


def open_with_monaco_held(context: BrowserContext, live_server, name: str, path: str = "README.md",
                          text: str | None = None) -> tuple[Page, dict, list[Route]]:
    """A project page whose saved layout shows ``path`` (written with ``text`` first, if given),
    loaded with Monaco's chunk held back."""
    project = create_project(live_server, name)
    if text is not None:
        Path(project["path"], path).write_bytes(text.encode())
    open_file(open_project(context, live_server, project), path)
    wait_for_saved_layout(live_server, project, path)
    held: list[Route] = []
    monaco_chunk = re.compile(r"/static/assets/setup-[\w-]+\.js$")  # webui/src/monaco/setup.ts
    context.route(monaco_chunk, lambda route: held.append(route))
    page = context.new_page()
    page.goto(f"{live_server.url}/p/{project['id']}")
    expect(page.get_by_test_id("status-connection")).to_have_attribute("data-state", "connected")
    return page, project, held


def release(page: Page, held: list[Route]) -> None:
    # Monaco is asked for at the first pause in typing into the plain text (monaco/load.ts). A
    # route's handler runs while Playwright is called: the wait asks the page something.
    wait_until(lambda: page.evaluate("true") and held, what="Monaco's chunk to be requested")
    for route in held:
        route.continue_()


def test_the_workbench_is_drawn_and_usable_while_monaco_is_still_loading(
    context: BrowserContext, live_server
) -> None:
    """Monaco loads beside the workbench, not before it (webui/src/monaco/load.ts): with its
    chunk held back, the tree, the saved layout and the title bar already work; once it arrives
    the open file's editor appears and takes keys."""
    page, _, held = open_with_monaco_held(context, live_server, "monaco-late")
    expect(tab(page, "README.md")).to_be_visible()
    expect(page.locator("[data-testid=tree-item][data-path='main.py']")).to_be_visible()
    page.get_by_test_id("action-git").click()
    expect(page.get_by_test_id("scm-panel")).to_be_visible()
    expect(page.get_by_test_id("editor")).to_have_count(0)
    release(page, held)

    editor = page.locator("[data-testid=editor][data-path='README.md']")
    expect(editor).to_have_attribute("data-features", "true")
    editor_lines(page, "README.md").click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.type("typed after Monaco arrived")
    expect(tab(page, "README.md")).to_have_attribute("data-state", "dirty")
    expect(editor_lines(page, "README.md")).to_contain_text("typed after Monaco arrived")


def test_what_is_typed_before_monaco_arrives_is_kept_and_saved(context: BrowserContext, live_server) -> None:
    """While Monaco loads, the open file shows as plain text that takes keys (EarlyEditor.tsx);
    the edit (as one undoable step), the cursor and a Ctrl+S pressed then carry over to the
    editor that replaces it."""
    page, project, held = open_with_monaco_held(context, live_server, "early-keys")
    readme = Path(project["path"]) / "README.md"
    early = page.locator("[data-testid=editor-early][data-path='README.md']")
    expect(early).to_be_focused()
    assert early.input_value() == readme.read_text()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.type("typed early")
    page.keyboard.press("ControlOrMeta+s")
    expect(tab(page, "README.md")).to_have_attribute("data-state", "dirty")
    assert "typed early" not in readme.read_text()  # saved once the editor has taken over
    release(page, held)

    expect(page.locator("[data-testid=editor][data-path='README.md']")).to_be_visible()
    expect(early).to_have_count(0)
    wait_until(lambda: readme.read_text().endswith("typed early"), what="the early Ctrl+S saved")
    page.keyboard.press("ControlOrMeta+z")  # the early typing is one edit in the editor's history
    expect(editor_lines(page, "README.md")).not_to_contain_text("typed early")
    page.keyboard.press("ControlOrMeta+Shift+z")
    expect(editor_lines(page, "README.md")).to_contain_text("typed early")
    page.keyboard.type(", then more")  # the editor has the focus and the cursor where it was
    expect(editor_lines(page, "README.md")).to_contain_text("typed early, then more")
    page.keyboard.press("ControlOrMeta+s")
    wait_until(lambda: readme.read_text().endswith("typed early, then more"), what="the second save")
    expect(tab(page, "README.md")).to_have_attribute("data-state", "clean")


def test_a_file_with_windows_line_ends_typed_into_early_keeps_them(
    context: BrowserContext, live_server
) -> None:
    """A textarea shows CRLF line ends as LF: the early edit still lands where it was typed, and
    the file keeps its CRLF line ends when saved."""
    page, project, held = open_with_monaco_held(context, live_server, "early-crlf", "crlf.txt",
                                                "one\r\ntwo\r\nthree\r\n")
    early = page.locator("[data-testid=editor-early][data-path='crlf.txt']")
    expect(early).to_be_focused()
    page.keyboard.press("ControlOrMeta+Home")
    page.keyboard.press("ArrowDown")
    page.keyboard.type("2: ")
    page.keyboard.press("ControlOrMeta+s")
    release(page, held)
    saved = Path(project["path"], "crlf.txt")
    wait_until(lambda: saved.read_bytes() == b"one\r\n2: two\r\nthree\r\n", what="the CRLF file saved")
    page.keyboard.type("x")  # the cursor carried over: after "2: "
    expect(editor_lines(page, "crlf.txt")).to_contain_text("2: xtwo")


def test_a_project_page_brings_its_layout_and_open_files_with_it(
    context: BrowserContext, live_server
) -> None:
    """The saved layout and the files it shows come inside the page (server/web/first_view.py):
    the page draws them without asking the server for either."""
    project = create_project(live_server, "first-view")
    open_file(open_project(context, live_server, project), "README.md")
    wait_for_saved_layout(live_server, project, "README.md")
    page = context.new_page()
    asked: list[str] = []
    page.on("request", lambda request: asked.append(f"{request.method} {request.url}"))
    page.goto(f"{live_server.url}/p/{project['id']}")
    expect(editor_lines(page, "README.md")).to_contain_text("# first-view")
    reads = [r for r in asked if r.startswith("GET") and ("/ui-state" in r or "/files/content" in r)]
    assert not reads and any("/files?" in r for r in asked), asked  # the tree is still listed
