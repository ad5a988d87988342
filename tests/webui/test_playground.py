"""The Playground panel in a real browser with Chromium's fake camera playing a generated
``.y4m``: a playground project runs on a real device agent process, the browser's frames go to
its camera callback one at a time, and the labels, rects and points it makes are drawn on the
frame they came from; Stop runs its close callback."""

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, Playwright, expect

from tests.fakes.playground import camera_project
from tests.webui.conftest import ConsoleErrors, camera_chromium, signed_in
from tests.webui.test_device_debug import device  # noqa: F401 - a fixture
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser


@pytest.fixture
def camera_browser(playwright: Playwright, tmp_path: Path) -> Iterator[Browser]:
    """Chromium whose camera is the colours clip (red, green, blue frames, looped)."""
    clip = camera_project(tmp_path / "clip-source") / "clip.y4m"
    with camera_chromium(playwright, clip) as browser:
        yield browser


@pytest.fixture
def camera_context(
    camera_browser: Browser, live_server, console_errors: ConsoleErrors
) -> Iterator[BrowserContext]:
    ctx = signed_in(camera_browser, live_server, console_errors)
    yield ctx
    ctx.close()


def _camera_frames_are_labelled_by_colour(page: Page, panel: Locator) -> Locator:
    """Start the camera: frames are drawn with the app's rect and point, and the frames seen are
    the clip's three colours, each labelled as the model sees it. Gives label 0."""
    panel.get_by_test_id("playground-camera").click()
    canvas = panel.get_by_test_id("playground-canvas")
    expect(canvas).to_have_attribute("data-frame", re.compile(r"^([3-9]|\d\d+)$"), timeout=60_000)
    expect(canvas).to_have_attribute("data-rects", "1")
    expect(canvas).to_have_attribute("data-points", "1")
    label = panel.locator("[data-testid=playground-label][data-index='0']")
    expect(label).to_have_text(re.compile(r"^(red|green|blue) \d\.\d\d$"))
    label.evaluate("""el => {
        window.seenColours = new Set([el.textContent.split(' ')[0]]);
        new MutationObserver(() => window.seenColours.add(el.textContent.split(' ')[0]))
            .observe(el, {characterData: true, childList: true, subtree: true});
    }""")
    page.wait_for_function("() => window.seenColours.size >= 3", timeout=60_000)
    assert sorted(page.evaluate("() => [...window.seenColours]")) == ["blue", "green", "red"]
    return label


def test_the_browser_camera_feeds_a_playground_on_the_device(
    camera_context: BrowserContext, live_server, device: dict, tmp_path: Path  # noqa: F811
) -> None:
    project = create_project(live_server, "colours")
    camera_project(Path(project["path"]))
    page = open_project(camera_context, live_server, project)
    panel = page.get_by_test_id("playground-panel")  # a playground project opens it
    expect(panel).to_contain_text("Colours")
    panel.get_by_test_id("device-picker").select_option(device["id"])
    panel.get_by_test_id("playground-start").click()
    expect(panel).to_have_attribute("data-live", "true", timeout=60_000)
    label = _camera_frames_are_labelled_by_colour(page, panel)
    expect(panel.get_by_test_id("playground-stats")).to_contain_text("capture→result")
    # the kit's calls are the panel's to draw, not the device console's to show
    console = page.get_by_test_id("device-console")
    expect(console).to_contain_text("Running: python -m device_bridge.playground.run . --live")
    expect(console).not_to_contain_text("MNNWB_KIT")
    page.screenshot(path=tmp_path / "playground.png")

    # selectPhoto: a photo from the person's disk goes to the app's photo callback
    panel.get_by_test_id("playground-camera-off").click()
    panel.get_by_test_id("playground-photo-input").set_input_files(str(Path(project["path"]) / "blue.png"))
    expect(panel.locator("[data-testid=playground-label][data-index='1']")).to_have_text("photo: blue")
    panel.get_by_test_id("playground-stop").click()
    expect(label).to_have_text("bye")  # the app's close callback, run by the stop
    expect(panel).to_have_attribute("data-state", "idle")


def test_the_browser_camera_feeds_a_playground_on_this_machine(
    camera_context: BrowserContext, live_server, tmp_path: Path
) -> None:
    """No device agent: the run is the server's own (sandboxed) process, with the same protocol."""
    project = create_project(live_server, "colours here")
    camera_project(Path(project["path"]))
    page = open_project(camera_context, live_server, project)
    panel = page.get_by_test_id("playground-panel")
    expect(panel.get_by_test_id("playground-start")).to_be_disabled()
    panel.get_by_test_id("device-picker").select_option(label="This machine")
    panel.get_by_test_id("playground-start").click()
    expect(panel).to_have_attribute("data-live", "true", timeout=60_000)
    expect(panel).to_have_attribute("data-state", "running")
    label = _camera_frames_are_labelled_by_colour(page, panel)
    stats = panel.get_by_test_id("playground-stats")
    expect(stats).to_contain_text("capture→result")
    page.screenshot(path=tmp_path / "playground-here.png")

    panel.get_by_test_id("playground-camera-off").click()
    panel.get_by_test_id("playground-photo-input").set_input_files(str(Path(project["path"]) / "blue.png"))
    expect(panel.locator("[data-testid=playground-label][data-index='1']")).to_have_text("photo: blue")
    panel.get_by_test_id("playground-stop").click()
    expect(label).to_have_text("bye")  # the app's close callback, run by the stop
    expect(panel).to_have_attribute("data-state", "idle")


SLOW_APP = """import time
import MNNCV

kit = MNNCV.Kit()
seen = []


def on_frame(data, format, width, height, inangle, outangle):
    seen.append(width)
    time.sleep(0.3)  # slower than the camera: its frames meanwhile must be dropped, not queued
    kit.setLabel(0, "frames %d" % len(seen))


kit.setCamera(on_frame)
"""


def test_a_slow_app_on_this_machine_gets_one_frame_at_a_time(
    camera_context: BrowserContext, live_server
) -> None:
    project = create_project(live_server, "slow here")
    folder = camera_project(Path(project["path"]))
    (folder / "main.py").write_text(SLOW_APP)
    page = open_project(camera_context, live_server, project)
    panel = page.get_by_test_id("playground-panel")
    panel.get_by_test_id("device-picker").select_option(label="This machine")
    panel.get_by_test_id("playground-start").click()
    expect(panel).to_have_attribute("data-live", "true", timeout=60_000)
    panel.get_by_test_id("playground-camera").click()
    stats = panel.get_by_test_id("playground-stats")
    expect(stats).to_have_attribute("data-dropped", re.compile(r"^([3-9]|\d\d+)$"), timeout=60_000)
    panel.get_by_test_id("playground-camera-off").click()
    # nothing was queued: once the frame in flight is done, the app has had exactly the frames sent
    page.wait_for_function("""() => {
        const s = document.querySelector('[data-testid=playground-stats]');
        return s.dataset.sent === s.dataset.done;
    }""")
    done = stats.get_attribute("data-done")
    expect(panel.locator("[data-testid=playground-label][data-index='0']")).to_have_text(f"frames {done}")
    panel.get_by_test_id("playground-stop").click()
    expect(panel).to_have_attribute("data-state", "idle")
