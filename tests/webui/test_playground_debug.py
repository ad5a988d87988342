"""The Playground panel in a real browser starts a device run under the debugger when the project
has breakpoints: a breakpoint clicked in the gutter of the app's photo callback stops it on a real
agent process when a photo is sent, the callback's locals show in the Run panel, and continue
lets its label through; Stop runs the close callback."""

from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.conftest import LiveServer
from tests.fakes.playground import CAMERA_APP, SIZE, camera_project
from tests.webui.test_device_debug import click_gutter, device  # noqa: F401 - a fixture
from tests.webui.workbench import create_project, open_file, open_project

pytestmark = pytest.mark.browser

PHOTO_LINE = CAMERA_APP.splitlines().index('    kit.setLabel(1, "photo: %s" % name)') + 1


def test_a_breakpoint_stops_the_playground_s_photo_callback_on_the_device(
    context: BrowserContext, live_server: LiveServer, device: dict, tmp_path: Path  # noqa: F811
) -> None:
    project = create_project(live_server, "colours")
    camera_project(Path(project["path"]))
    page = open_project(context, live_server, project)
    panel = page.get_by_test_id("playground-panel")
    expect(panel).to_contain_text("Colours")
    open_file(page, "main.py")
    click_gutter(page, "main.py", PHOTO_LINE)
    expect(page.locator("[data-testid=editor][data-path='main.py'] .bp-glyph")).to_have_count(1)

    page.get_by_test_id("action-playground").click()  # back to the panel, beside the editor
    panel.get_by_test_id("device-picker").select_option(device["id"])
    panel.get_by_test_id("playground-start").click()
    expect(panel).to_have_attribute("data-live", "true", timeout=60_000)
    expect(page.get_by_test_id("device-console")).to_contain_text(
        "Debugging: python -m device_bridge.playground.run . --live")
    panel.get_by_test_id("playground-photo-input").set_input_files(str(Path(project["path"]) / "blue.png"))

    current = page.locator("[data-testid=editor][data-path='main.py'] .debug-current-line")
    expect(current).to_have_count(1, timeout=60_000)
    page.get_by_test_id("action-run-debug").click()
    run_panel = page.get_by_test_id("run-panel")
    expect(run_panel.get_by_test_id("stop-reason")).to_contain_text("breakpoint")
    height, width = SIZE
    for name, value in (("width", width), ("height", height)):
        variable = run_panel.locator(f"[data-testid=variable][data-name={name}]")
        expect(variable.get_by_test_id("variable-value")).to_have_text(str(value))
    photo_label = panel.locator("[data-testid=playground-label][data-index='1']")
    expect(photo_label).to_have_count(0)  # held at the breakpoint

    run_panel.get_by_test_id("debug-continue").click()
    page.get_by_test_id("action-playground").click()
    expect(photo_label).to_have_text("photo: blue", timeout=60_000)
    panel.get_by_test_id("playground-stop").click()
    expect(panel.locator("[data-testid=playground-label][data-index='0']")).to_have_text("bye")
    expect(panel).to_have_attribute("data-state", "idle")
