"""Panels say what is missing and offer the fix, and their widgets keep their shape: the Perf panel
with no device paired (its device picker wide enough to read, its empty charts drawn with axes),
a new PAI-DLC job before PAI-DLC is configured (no request refused on opening), the MNN-LLM panel
on a folder without a model (styled like the other panels). Each is compared with a screenshot
baseline (``tests/webui/screens.py``), and the layout facts behind the look are asserted by name."""

from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Locator, Page, expect

from tests.waiting import wait_until
from tests.webui.screens import assert_screenshot
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser

MIN_PICKER_WIDTH = 120
ACCENT = "rgb(14, 99, 156)"  # --accent in base.css: a primary button's background

# Non-transparent pixels of a uPlot chart's canvas in its y-axis strip (left) and x-axis strip
# (bottom): the tick labels and ticks. An axis over an empty scale is not drawn at all.
AXIS_PIXELS = """(chart) => {
  const canvas = chart.querySelector('canvas');
  const g = canvas.getContext('2d');
  const ratio = window.devicePixelRatio;
  const count = (x, y, w, h) => {
    const d = g.getImageData(x, y, w, h).data;
    let n = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n += 1;
    return n;
  };
  const y = Math.round(44 * ratio), x = Math.round(24 * ratio);
  return { y: count(0, 0, y, canvas.height - x), x: count(y, canvas.height - x, canvas.width - y, x) };
}"""


def drawn_axes(chart: Locator) -> dict | None:
    """The chart's axis pixels when both axes are drawn, else None."""
    pixels = chart.evaluate(AXIS_PIXELS)
    return pixels if pixels["x"] and pixels["y"] else None


def open_perf(page: Page) -> Locator:
    page.get_by_test_id("action-perf").click()
    perf = page.get_by_test_id("perf-panel")
    expect(perf).to_be_visible()
    return perf


def test_perf_panel_without_a_device(context: BrowserContext, live_server, tmp_path: Path) -> None:
    page = open_project(context, live_server, create_project(live_server, "perf-empty"))
    perf = open_perf(page)

    notice = perf.get_by_test_id("perf-no-device")
    expect(notice).to_contain_text("No device is paired")
    assert_screenshot(notice, "perf-no-device", tmp_path)

    picker = perf.get_by_test_id("device-picker")
    width = picker.bounding_box()["width"]
    assert width >= MIN_PICKER_WIDTH, f"the device picker is {width:.0f} px wide"
    assert_screenshot(perf.locator(".bench-form").first, "perf-bench-form", tmp_path)

    latency = perf.locator("[data-testid=perf-chart][data-metric=latency]")
    expect(latency.get_by_test_id("perf-chart-empty")).to_have_text("No samples yet")
    wait_until(lambda: drawn_axes(latency), what="the empty latency chart's axes to be drawn")
    assert_screenshot(latency, "perf-latency-empty", tmp_path)

    notice.get_by_test_id("perf-no-device-pair").click()
    expect(page.get_by_test_id("pair-dialog").get_by_test_id("pair-name")).to_be_visible()


def test_new_cloud_job_before_pai_dlc_is_configured(
    context: BrowserContext, live_server, tmp_path: Path
) -> None:
    page = open_project(context, live_server, create_project(live_server, "cloud-empty"))
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.get_by_test_id("action-training").click()
    page.get_by_test_id("job-new").click()
    dialog = page.get_by_test_id("new-job-dialog")
    dialog.get_by_test_id("job-backend-pai-dlc").click()

    notice = dialog.get_by_test_id("pai-not-configured")
    expect(notice).to_contain_text("PAI-DLC is not configured")
    expect(notice).to_contain_text("the workspace ID and the OSS bucket")
    # Opening asks for the settings only, never for the cloud's machine types (refused unset).
    expect(dialog.get_by_test_id("ecs-spec")).to_have_count(0)
    assert [url for url in asked if "/settings/pai-dlc/" in url] == []
    assert_screenshot(notice, "pai-not-configured", tmp_path)

    notice.get_by_test_id("pai-configure").click()
    expect(page.get_by_test_id("pai-settings-dialog")).to_be_visible()


def _folder(project: dict, name: str, files: dict[str, str]) -> None:
    folder = Path(project["path"]) / name
    folder.mkdir()
    for file, text in files.items():
        (folder / file).write_text(text)


def _open_llm(page: Page, folder: str) -> Locator:
    page.locator(f"[data-testid=tree-item][data-path='{folder}']").click(button="right")
    page.get_by_test_id("menu-llm").click()
    return page.locator("[data-testid=llm-panel]:visible")


def test_llm_panel_on_a_folder_without_a_model(context: BrowserContext, live_server, tmp_path: Path) -> None:
    project = create_project(live_server, "llm-empty")
    _folder(project, "notes", {"readme.txt": "not a model"})
    # A Hugging Face-format folder as the panel recognises one: config.json beside weights.
    _folder(project, "qwen", {"config.json": "{}", "model.safetensors": "weights"})
    page = open_project(context, live_server, project)

    panel = _open_llm(page, "notes")
    notice = panel.get_by_test_id("llm-no-model")
    expect(notice).to_contain_text("No MNN-LLM model in notes")
    offered = notice.get_by_test_id("llm-model-folder")
    expect(offered).to_have_count(1)
    expect(offered).to_have_text("Export qwen…")
    assert_screenshot(notice, "llm-no-model", tmp_path)

    offered.click()
    export = page.locator("[data-testid=llm-export]:visible")
    expect(export.get_by_test_id("llm-output")).to_have_value("qwen-mnn-q4")
    run = export.get_by_test_id("llm-export-run")
    background = run.evaluate("(b) => getComputedStyle(b).backgroundColor")
    assert background == ACCENT, f"the Export button is unstyled (background {background})"
    heading = export.locator("h3").evaluate("(h) => getComputedStyle(h).textTransform")
    assert heading == "uppercase", "the section heading is unstyled"
    assert_screenshot(export, "llm-export-form", tmp_path)


def test_llm_panel_in_a_project_without_model_folders(context: BrowserContext, live_server) -> None:
    project = create_project(live_server, "llm-none")
    _folder(project, "notes", {"readme.txt": "not a model"})
    page = open_project(context, live_server, project)
    notice = _open_llm(page, "notes").get_by_test_id("llm-no-model")
    expect(notice.get_by_test_id("llm-no-model-folders")).to_contain_text("has no such folder yet")
    expect(notice.get_by_test_id("llm-model-folder")).to_have_count(0)
