"""Small things a person meets in the first hour: a created project opens, a diff opens at its
change, a disabled button says why, a missing set-up links to its settings."""

import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.webui.conftest import ConsoleErrors
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser


def test_a_project_created_on_the_home_page_opens(context: BrowserContext, live_server) -> None:
    home = context.new_page()
    home.goto(live_server.url + "/")
    home.get_by_test_id("new-project-name").fill("opened")
    home.get_by_test_id("template-empty").click()
    with context.expect_page() as opened:
        home.get_by_test_id("new-project-submit").click()
    expect(opened.value.get_by_test_id("project-title")).to_have_text("opened")


def test_a_diff_opens_at_its_first_change(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "long-diff")
    root = Path(project["path"])
    lines = [f"line {n}" for n in range(1, 301)]
    (root / "long.txt").write_text("\n".join(lines) + "\n")
    git = ["git", "-C", str(root), "-c", "user.name=T", "-c", "user.email=t@example.com"]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "start"]):
        subprocess.run([*git, *step], check=True)
    lines[249] = "changed 250"
    (root / "long.txt").write_text("\n".join(lines) + "\n")
    page = open_project(context, live_server, project)

    page.get_by_test_id("action-git").click()
    page.locator("[data-testid=scm-file][data-path='long.txt']").click()
    modified = page.get_by_test_id("git-diff-editor").locator(".editor.modified .view-lines")
    expect(modified).to_contain_text("changed 250")


def test_disabled_and_unset_things_say_why(
    context: BrowserContext, live_server, console_errors: ConsoleErrors
) -> None:
    console_errors.allow(r"422 .*/jobs\)")  # PAI-DLC is not set up: refused on submit
    project = create_project(live_server, "why")
    page = open_project(context, live_server, project)

    page.get_by_test_id("action-perf").click()
    expect(page.get_by_test_id("bench-start")).to_be_disabled()
    expect(page.get_by_test_id("bench-why")).to_have_text("Pick a device first.")

    page.get_by_test_id("action-training").click()
    expect(page.get_by_test_id("pai-settings-open")).to_have_text("⚙ PAI-DLC")
    page.get_by_test_id("job-new").click()
    page.get_by_test_id("job-backend-pai-dlc").click()
    page.get_by_test_id("job-start").click()
    expect(page.get_by_test_id("new-job-error")).to_contain_text("PAI-DLC is not set up")
    page.get_by_test_id("new-job-pai-settings").click()
    expect(page.get_by_test_id("pai-settings-dialog")).to_be_visible()


def test_a_diverged_loss_is_marked_on_its_chart(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "diverge")
    (Path(project["path"]) / "diverge.py").write_text(
        "import json\n"
        "for step, loss in enumerate([0.9, 0.5, float('nan'), float('inf')], start=1):\n"
        "    print('MNNWB_METRIC ' + json.dumps({'step': step, 'loss': loss}), flush=True)\n"
    )
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-training").click()
    page.get_by_test_id("job-new").click()
    dialog = page.get_by_test_id("new-job-dialog")
    dialog.get_by_test_id("job-command").fill("python diverge.py")
    dialog.get_by_test_id("job-start").click()
    expect(page.get_by_test_id("job-row")).to_have_attribute("data-status", "succeeded", timeout=30_000)
    chart = page.locator("[data-testid=metric-chart][data-metric=loss]")
    expect(chart.get_by_test_id("metric-diverged")).to_have_text("loss diverged at step 3 (NaN)")


def test_model_pickers_follow_files_that_come_and_go(context: BrowserContext, live_server) -> None:
    """No stale pickers: a model written while the Perf panel is open is offered, one deleted is
    gone, and the picked one gives way when it is deleted."""
    from tests.webui.test_device_debug import build_tiny_model

    project = create_project(live_server, "pickers")
    root = Path(project["path"])
    build_tiny_model(root / "a.mnn")
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-perf").click()
    picker = page.get_by_test_id("bench-model")
    expect(picker).to_have_value("a.mnn")
    (root / "models").mkdir()
    (root / "models" / "b.mnn").write_bytes((root / "a.mnn").read_bytes())
    expect(picker.locator("option")).to_have_text(["a.mnn", "models/b.mnn"])
    picker.select_option("models/b.mnn")
    # its inputs listed (read from the file) before it goes
    inputs_of_b = page.locator("[data-testid=bench-inputs][data-model='models/b.mnn']")
    expect(inputs_of_b.locator("[data-input=input]")).to_be_visible()
    (root / "models" / "b.mnn").unlink()
    expect(picker.locator("option")).to_have_text(["a.mnn"])
    expect(picker).to_have_value("a.mnn")


def test_a_dialog_starts_with_the_keyboard_on_its_first_field(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "dialog-focus")
    page = open_project(context, live_server, project)
    page.get_by_test_id("action-training").click()
    page.get_by_test_id("interpreter-open").click()
    dialog = page.get_by_test_id("interpreter-dialog")
    expect(dialog.get_by_test_id("interpreter-path")).to_be_focused()
    page.keyboard.type(".venv/bin/python")
    expect(dialog.get_by_test_id("interpreter-path")).to_have_value(".venv/bin/python")


def test_the_title_bar_shows_codicons(context: BrowserContext, live_server) -> None:
    """The activity buttons are VS Code's icons (their own font, beside Monaco's), each named for
    screen readers and tooltips."""
    project = create_project(live_server, "icons")
    page = open_project(context, live_server, project)
    for action, icon in (("files", "files"), ("git", "source-control"), ("terminal", "terminal"),
                         ("market", "extensions"), ("run-debug", "debug-alt")):
        button = page.get_by_test_id(f"action-{action}")
        expect(button.locator(f".ci.ci-{icon}")).to_be_visible()
        assert button.get_attribute("aria-label")
    loaded = page.evaluate("""async () => (await document.fonts.load('16px "mnnwb-codicon"')).length""")
    assert loaded == 1
    icon = page.get_by_test_id("action-git").locator(".ci")
    width = icon.evaluate("el => el.getBoundingClientRect().width")
    assert 12 <= width <= 20  # a glyph of the icon font, not a fallback box
