"""The Playground panel fed by the device's own camera, and a run on this machine writing to the
Device Console. The device's camera is what OpenCV opens on the agent: a real ``mp4v`` clip the
agent is told to offer as a camera (``MNNWB_AGENT_CAMERAS``); no V4L2 device is used here."""

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect

from server.core.config import Settings
from tests.conftest import LiveServer
from tests.fakes.playground import camera_project, write_mp4
from tests.webui.agents import paired_agent
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser

@pytest.fixture
def settings(settings: Settings) -> Settings:
    """At most one playground run on this machine per person (``MNNWB_PLAYGROUND_LOCAL_MAX``);
    each test here but the last has one at most."""
    settings.playground_local_max = 1
    return settings


# Ten frames of each colour, four times over, at 10 fps: the camera plays for 12 s.
CLIP = ("red",) * 10 + ("green",) * 10 + ("blue",) * 10


@pytest.fixture
def camera_device(live_server: LiveServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict]:
    """A real agent process whose one camera is the colours clip."""
    clip = write_mp4(tmp_path / "camera.mp4", CLIP * 4, fps=10)
    monkeypatch.setenv("MNNWB_AGENT_CAMERAS", str(clip))
    with paired_agent(live_server, tmp_path / "agent") as (found, _agent):
        yield {**found, "clip": str(clip)}


# Each time a frame is painted: the colour of its picture (away from the rect and the point) and
# the text of the rect drawn on it. They must always agree: each result is drawn on its frame.
WATCH_CANVAS = """canvas => {
    window.pictures = new Set();
    window.mismatches = [];
    new MutationObserver(() => {
        if (!canvas.width) return;
        const [r, g, b] = canvas.getContext('2d').getImageData(40, 60, 1, 1).data;
        const colour = ['red', 'green', 'blue'][[r, g, b].indexOf(Math.max(r, g, b))];
        const text = canvas.dataset.texts;
        window.pictures.add(colour);
        if (text !== colour) window.mismatches.push(`${canvas.dataset.painted}: ${colour} drawn ${text}`);
    }).observe(canvas, {attributes: true, attributeFilter: ['data-painted']});
}"""


def test_the_devices_own_camera_feeds_the_app_and_the_results_come_back_on_their_frames(
    context: BrowserContext, live_server: LiveServer, camera_device: dict, tmp_path: Path
) -> None:
    project = create_project(live_server, "device camera")
    camera_project(Path(project["path"]))
    page = open_project(context, live_server, project)
    panel = page.get_by_test_id("playground-panel")
    panel.get_by_test_id("device-picker").select_option(camera_device["id"])
    source = panel.get_by_test_id("playground-source")
    camera = f"Device camera {camera_device['clip']}"
    expect(source.locator("option")).to_have_text(["This browser's camera", camera])
    source.select_option(camera_device["clip"])
    panel.get_by_test_id("playground-size").select_option("160")
    canvas = panel.get_by_test_id("playground-canvas")
    canvas.evaluate(WATCH_CANVAS)
    panel.get_by_test_id("playground-start").click()
    expect(panel).to_have_attribute("data-fed-by-device", "true", timeout=60_000)
    expect(panel.get_by_test_id("playground-camera")).to_have_count(0)  # the tab is only the screen
    expect(canvas).to_have_attribute("data-frame", re.compile(r"^([3-9]|\d\d+)$"), timeout=60_000)
    expect(canvas).to_have_attribute("data-rects", "1")
    expect(canvas).to_have_attribute("data-points", "1")
    assert canvas.evaluate("c => [c.width, c.height]") == [160, 120]  # the frame the app had
    label = panel.locator("[data-testid=playground-label][data-index='0']")
    expect(label).to_have_text(re.compile(r"^(red|green|blue) \d\.\d\d$"))
    page.wait_for_function("() => window.pictures.size >= 3", timeout=60_000)
    assert page.evaluate("() => window.mismatches") == []
    stats = panel.get_by_test_id("playground-stats")
    expect(stats).to_contain_text("capture→result")
    expect(stats).to_have_attribute("data-latency", re.compile(r"^\d+(\.\d+)?$"))
    console = page.get_by_test_id("device-console")
    expect(console).to_contain_text(f"--live --camera {camera_device['clip']} --width 160")
    expect(console).not_to_contain_text("MNNWB_KIT")
    page.screenshot(path=tmp_path / "playground-device-camera.png")
    panel.get_by_test_id("playground-stop").click()
    expect(label).to_have_text("bye")  # the app's close callback, run by the stop
    expect(panel).to_have_attribute("data-state", "idle")


RUN = "-m device_bridge.playground.run . --live"
FAILING_APP = """import MNNCV

kit = MNNCV.Kit()
print("hello from the app")
kit.setLabel(0, "set up")
raise ValueError("the app broke")
"""


def test_a_run_on_this_machine_writes_its_output_to_the_device_console(
    context: BrowserContext, live_server: LiveServer
) -> None:
    project = create_project(live_server, "console here")
    folder = camera_project(Path(project["path"]))
    (folder / "main.py").write_text(FAILING_APP)
    page = open_project(context, live_server, project)
    panel = page.get_by_test_id("playground-panel")
    panel.get_by_test_id("device-picker").select_option(label="This machine")
    expect(panel.get_by_test_id("playground-source")).to_have_count(0)  # no device, no its cameras
    panel.get_by_test_id("playground-start").click()
    console = page.get_by_test_id("device-console")
    expect(console).to_contain_text("Process exited with code 1.", timeout=60_000)
    expect(console).to_contain_text('main.py", line 6, in <module>')
    expect(console).to_contain_text("ValueError: the app broke")
    expect(panel.get_by_test_id("playground-error")).to_have_text("ValueError: the app broke")
    expect(panel).to_have_attribute("data-state", "idle")
    # the traceback fills the console's rows: its start is above, as a person scrolls to it
    console.locator(".xterm").hover()
    for _ in range(20):
        page.mouse.wheel(0, -400)
    expect(console).to_contain_text(f"Running on this machine: python {RUN}")
    expect(console).to_contain_text("hello from the app")
    expect(console).not_to_contain_text("MNNWB_KIT")


def test_a_start_past_the_cap_of_runs_on_this_machine_is_named_in_the_panel(
    context: BrowserContext, live_server: LiveServer
) -> None:
    """``MNNWB_PLAYGROUND_LOCAL_MAX`` (1 in this module): one person's second run on this machine, in
    another project, is refused and the panel says why; stopping the first makes room."""
    pages = []
    for name in ("cap one", "cap two"):
        project = create_project(live_server, name)
        camera_project(Path(project["path"]))
        page = open_project(context, live_server, project)
        panel = page.get_by_test_id("playground-panel")
        panel.get_by_test_id("device-picker").select_option(label="This machine")
        pages.append(panel)
    first, second = pages
    first.get_by_test_id("playground-start").click()
    expect(first).to_have_attribute("data-live", "true", timeout=60_000)
    second.get_by_test_id("playground-start").click()
    expect(second.get_by_test_id("playground-error")).to_have_text(
        "at most 1 playground runs on this machine per person (MNNWB_PLAYGROUND_LOCAL_MAX); "
        "stop one first (playground_limit)")
    expect(second).to_have_attribute("data-state", "idle")
    first.get_by_test_id("playground-stop").click()
    expect(first).to_have_attribute("data-state", "idle")
    second.get_by_test_id("playground-start").click()
    expect(second).to_have_attribute("data-live", "true", timeout=60_000)
    second.get_by_test_id("playground-stop").click()
    expect(second).to_have_attribute("data-state", "idle")
