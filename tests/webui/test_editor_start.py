"""The project page's start: the open file takes keys as soon as it shows, as plain text
(webui/src/features/editor/EarlyEditor.tsx), and Monaco's editor takes over with every key typed
meanwhile, in order, and the caret where it was."""

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.webui.conftest import ConsoleErrors, new_context
from tests.webui.workbench import (
    create_project,
    editor_lines,
    open_file,
    open_project,
    tab,
    wait_for_saved_layout,
)

pytestmark = pytest.mark.browser

COLD_TABS = 3
# Notes, for every key pressed, what had the focus: the plain text shown while Monaco loads,
# Monaco's editor once its editing features are in (it is created again then, EditorPanel.tsx),
# or anything else (Monaco's first editor, or nothing: a key that would be lost).
KEY_TARGETS = """window.__keyTargets = [];
document.addEventListener('keydown', (event) => {
  const target = event.target instanceof Element ? event.target : null;
  window.__keyTargets.push(target?.matches('[data-testid=editor-early]') ? 'early'
    : target?.closest('[data-testid=editor][data-features=true]') ? 'monaco' : 'other');
}, true);"""
# The file shows: as plain text, or already in Monaco's editor. Typing starts then, not once
# the focus is seen in it: a file shown without the focus would lose the first keys.
SHOWS = """() => document.querySelector('[data-testid=editor-early], [data-testid=editor] .view-lines')"""
# Keys sent once Monaco's editor has the focus with its features: the hand-over is behind them.
KEYS_AFTER = 12


def cold_tab(browser: Browser, live_server, console_errors: ConsoleErrors) -> BrowserContext:
    """A fresh browser context (empty cache) holding the session cookie."""
    ctx = new_context(browser)
    answer = ctx.request.get(f"{live_server.url}/?token={live_server.token}", max_redirects=0)
    assert answer.status == 303, answer.status
    console_errors.watch(ctx)
    return ctx


def words() -> Iterator[str]:
    """Distinct words with a space after each: no Enter or bracket that Monaco's completion or
    auto-closing would answer differently from a textarea."""
    return (f"k{n} " for n in itertools.count())


def type_across_the_handover(page: Page) -> str:
    """Types a word at a time from the moment the file shows until Monaco's editor, with its
    features, has had a few more keys; returns all that was typed."""
    page.wait_for_function(SHOWS)
    typed: list[str] = []
    for word in words():
        page.keyboard.type(word)
        typed.append(word)
        if page.evaluate("window.__keyTargets.filter((t) => t === 'monaco').length") >= KEYS_AFTER:
            break
        assert len(typed) < 5_000, "Monaco's editor never took the keys"
    return "".join(typed)


def test_every_key_typed_as_the_file_first_shows_is_kept_through_the_handover(
    browser: Browser, context: BrowserContext, live_server, console_errors: ConsoleErrors,
    tmp_path: Path,
) -> None:
    project = create_project(live_server, "editor-start")
    open_file(open_project(context, live_server, project), "README.md")
    wait_for_saved_layout(live_server, project, "README.md")
    context.close()
    readme = Path(project["path"]) / "README.md"
    for run in range(COLD_TABS):
        original = readme.read_text()
        ctx = cold_tab(browser, live_server, console_errors)
        page = ctx.new_page()
        page.add_init_script(KEY_TARGETS)
        try:
            page.goto(f"{live_server.url}/p/{project['id']}", wait_until="commit")
            typed = type_across_the_handover(page)
            # The caret came along: the early text took the keys at the file's start.
            expect(editor_lines(page, "README.md")).to_contain_text(typed.rstrip())
            page.keyboard.press("ControlOrMeta+s")
            expect(tab(page, "README.md")).to_have_attribute("data-state", "clean")
            assert readme.read_text() == typed + original, f"cold tab {run + 1}"
            targets = page.evaluate("window.__keyTargets")
            assert "early" in targets, f"cold tab {run + 1}: no key reached the plain text, {targets}"
        except AssertionError:
            page.screenshot(path=tmp_path / f"cold-tab-{run + 1}.png")
            raise
        finally:
            ctx.close()
