"""A person runs a pipeline on a camera from the Pipeline panel: this browser's camera (Chromium's
fake camera playing the coins photo sliding by, as a ``.y4m``) with the pipeline on this machine,
and a paired device's own camera (a real agent process offered a real ``mp4v`` clip as its camera,
``MNNWB_AGENT_CAMERAS``); the frame's boxes and readings and the figures over the frames update
live, and Stop ends the run."""

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, Playwright, expect

from device_bridge.playground.sources import write_y4m
from tests.conftest import LiveServer
from tests.device_bridge.test_pipeline import _convert
from tests.device_bridge.test_pipeline_camera import coins_clip, coins_frames
from tests.fakes import audio_models
from tests.webui.agents import paired_agent
from tests.webui.conftest import ConsoleErrors, camera_chromium, signed_in
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser
RUN_TIMEOUT_MS = 90_000
STAGES = ["image", "detect", "boxes", "crops", "orientation", "upright", "read"]
SOME_FRAMES = re.compile(r"^([3-9]|\d\d+)$")


@pytest.fixture
def camera_browser(playwright: Playwright, tmp_path: Path) -> Iterator[Browser]:
    """Chromium whose camera is the coins photo sliding by (looped)."""
    clip = write_y4m(tmp_path / "coins.y4m", coins_frames(24))
    with camera_chromium(playwright, clip) as browser:
        yield browser


@pytest.fixture
def camera_context(camera_browser: Browser, live_server: LiveServer,
                   console_errors: ConsoleErrors) -> Iterator[BrowserContext]:
    ctx = signed_in(camera_browser, live_server, console_errors)
    yield ctx
    ctx.close()


def _chain(live_server: LiveServer, coins_pipeline: Path, name: str) -> dict:
    project = create_project(live_server, name)
    root = Path(project["path"])
    for path in coins_pipeline.parent.glob("*.mnn*"):
        shutil.copy(path, root / path.name)
    shutil.copy(coins_pipeline, root / "pipeline.toml")
    return project


def _camera_panel(page: Page) -> Locator:
    page.locator("[data-testid=tree-item][data-path='pipeline.toml']").click(button="right")
    page.get_by_test_id("menu-run-pipeline").click()
    panel = page.get_by_test_id("pipeline-panel")
    panel.get_by_test_id("pipeline-input-kind").select_option("camera")
    expect(panel.get_by_test_id("pipeline-input-path")).to_have_count(0)
    return panel


def _sees_frames_update(panel: Locator) -> None:
    """The frame's boxes, readings and each stage's time are drawn; the figures over the frames
    so far grow frame by frame."""
    camera = panel.get_by_test_id("pipeline-camera")
    expect(camera).to_have_attribute("data-state", "running", timeout=RUN_TIMEOUT_MS)
    done = camera.get_by_test_id("pipeline-live-done")
    expect(done).to_have_attribute("data-count", SOME_FRAMES, timeout=RUN_TIMEOUT_MS)
    frame = camera.get_by_test_id("pipeline-input")
    expect(frame.get_by_test_id("pipeline-total")).to_contain_text(
        re.compile(r"^frame \d+ · \d+\.\d ms end to end · (1\d|2\d) box\(es\)"))
    expect(frame.get_by_test_id("pipeline-box").first).to_be_visible()
    expect(frame.get_by_test_id("pipeline-readings")).to_have_text(re.compile(r"^Read: .+"))
    expect(frame.get_by_test_id("pipeline-stage")).to_have_count(len(STAGES))
    expect(camera.get_by_test_id("pipeline-live-e2e")).to_have_text(
        re.compile(r"end to end median \d+\.\d ms, p90 \d+\.\d ms"))
    stages = camera.get_by_test_id("pipeline-live-stage")
    expect(stages).to_have_count(len(STAGES))
    assert [stages.nth(i).get_attribute("data-stage") for i in range(len(STAGES))] == STAGES
    dropped = camera.get_by_test_id("pipeline-live-dropped")
    expect(dropped).to_have_attribute("data-count", re.compile(r"^\d+$"))
    shown = int(done.get_attribute("data-count") or 0)
    expect(done).not_to_have_attribute("data-count", str(shown), timeout=RUN_TIMEOUT_MS)  # still going
    expect(camera.get_by_test_id("pipeline-camera-error")).to_have_count(0)


def _stops(panel: Locator) -> None:
    panel.get_by_test_id("pipeline-camera-stop").click()
    camera = panel.get_by_test_id("pipeline-camera")
    expect(camera).to_have_attribute("data-state", "idle", timeout=RUN_TIMEOUT_MS)
    expect(camera.get_by_test_id("pipeline-camera-run")).to_be_visible()


def test_a_pipeline_runs_on_the_browsers_camera_frame_by_frame(
    camera_context: BrowserContext, live_server: LiveServer, coins_pipeline: Path
) -> None:
    project = _chain(live_server, coins_pipeline, "camera-chain")
    page = open_project(camera_context, live_server, project)
    panel = _camera_panel(page)
    panel.get_by_test_id("pipeline-camera-width").select_option("480")
    panel.get_by_test_id("pipeline-camera-run").click()
    _sees_frames_update(panel)
    image = panel.get_by_test_id("pipeline-camera").get_by_test_id("pipeline-image")
    expect(image).to_have_js_property("naturalWidth", 384)  # the frame the pipeline ran on
    _stops(panel)


@pytest.fixture
def coins_device(live_server: LiveServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict]:
    """A real agent process whose one camera is the coins clip (60 s at 10 fps)."""
    clip = coins_clip(tmp_path / "camera.mp4", 600)
    monkeypatch.setenv("MNNWB_AGENT_CAMERAS", str(clip))
    with paired_agent(live_server, tmp_path / "agent") as (found, _agent):
        yield {**found, "clip": str(clip)}


def test_a_pipeline_runs_on_a_devices_own_camera(
    context: BrowserContext, live_server: LiveServer, coins_pipeline: Path, coins_device: dict
) -> None:
    project = _chain(live_server, coins_pipeline, "device-camera-chain")
    page = open_project(context, live_server, project)
    panel = _camera_panel(page)
    picker = panel.get_by_test_id("pipeline-device")
    expect(picker.locator("option", has_text="● board")).to_have_count(1, timeout=RUN_TIMEOUT_MS)
    picker.select_option(label="● board")
    source = panel.get_by_test_id("pipeline-camera-source")
    camera = f"Device camera {coins_device['clip']}"
    expect(source.locator("option")).to_have_text(["This browser's camera", camera])
    expect(panel.get_by_test_id("pipeline-camera-none")).to_have_count(0)
    source.select_option(coins_device["clip"])
    panel.get_by_test_id("pipeline-camera-width").select_option("480")
    panel.get_by_test_id("pipeline-camera-run").click()
    _sees_frames_update(panel)
    expect(panel.get_by_test_id("pipeline-live-figures")).to_contain_text(f"camera {coins_device['clip']}")
    # the frames' lines are the panel's to draw, not the device console's to show
    console = page.get_by_test_id("device-console")
    expect(console).to_contain_text("Running: python -m device_bridge.runtime.pipeline_live pipeline.toml")
    expect(console).not_to_contain_text("MNNWB_PIPELINE")
    _stops(panel)


def test_a_device_without_cameras_runs_it_on_the_browsers_camera(
    camera_context: BrowserContext, live_server: LiveServer, coins_pipeline: Path,
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MNNWB_AGENT_CAMERAS", raising=False)
    with paired_agent(live_server, tmp_path / "agent", "plain"):
        project = _chain(live_server, coins_pipeline, "no-camera-chain")
        page = open_project(camera_context, live_server, project)
        panel = _camera_panel(page)
        picker = panel.get_by_test_id("pipeline-device")
        expect(picker.locator("option", has_text="● plain")).to_have_count(1, timeout=RUN_TIMEOUT_MS)
        picker.select_option(label="● plain")
        expect(panel.get_by_test_id("pipeline-camera-none")).to_have_text(re.compile(
            r"^plain has no camera of its own"))
        expect(panel.get_by_test_id("pipeline-camera-source").locator("option")).to_have_text(
            ["This browser's camera"])
        panel.get_by_test_id("pipeline-camera-width").select_option("480")
        panel.get_by_test_id("pipeline-camera-run").click()
        _sees_frames_update(panel)  # the tab's frames, run on the device
        expect(panel.get_by_test_id("pipeline-live-figures")).to_contain_text("browser")
        _stops(panel)


def test_a_pipeline_whose_first_stage_takes_audio_is_refused_on_the_camera(
    camera_context: BrowserContext, live_server: LiveServer
) -> None:
    project = create_project(live_server, "loudness-camera")
    root = Path(project["path"])
    built = audio_models.build(root / "built", _convert)
    for path in built.parent.glob("loudness.mnn*"):
        shutil.copy(path, root / path.name)
    shutil.copy(built, root / "pipeline.toml")
    page = open_project(camera_context, live_server, project)
    panel = _camera_panel(page)
    panel.get_by_test_id("pipeline-camera-run").click()
    camera = panel.get_by_test_id("pipeline-camera")
    expect(camera.get_by_test_id("pipeline-camera-error")).to_have_text(
        "the first stage 'loudness' takes audio (input 'wave' of loudness.mnn); a camera gives pictures",
        timeout=RUN_TIMEOUT_MS)
    expect(camera).to_have_attribute("data-state", "idle", timeout=RUN_TIMEOUT_MS)
    expect(camera.get_by_test_id("pipeline-live-done")).to_have_attribute("data-count", "0")
