"""A person runs a pipeline of three models on a photograph from the file tree and sees the
boxes drawn on it, what each was read as, and every stage's time."""

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect

from device_bridge.runtime import pipeline
from tests.device_bridge.test_pipeline import COINS, coins_pipeline  # noqa: F401 - a fixture
from tests.fakes.photos import photo
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser
RUN_TIMEOUT_MS = 60_000


def test_run_a_pipeline_on_a_photo_and_see_boxes_and_text(
    context: BrowserContext, live_server, coins_pipeline: Path  # noqa: F811
) -> None:
    project = create_project(live_server, "ocr-chain")
    root = Path(project["path"])
    for path in coins_pipeline.parent.glob("*.mnn*"):
        shutil.copy(path, root / path.name)
    shutil.copy(coins_pipeline, root / "pipeline.toml")
    shutil.copy(photo(COINS), root / COINS)
    expected = pipeline.Runner(pipeline.load(root / "pipeline.toml")).run(root / COINS)
    boxes = len(expected["stages"][2]["items"][0]["boxes"])
    page = open_project(context, live_server, project)

    page.locator("[data-testid=tree-item][data-path='pipeline.toml']").click(button="right")
    page.get_by_test_id("menu-run-pipeline").click()
    panel = page.get_by_test_id("pipeline-panel")
    expect(panel.get_by_test_id("pipeline-input-path")).to_have_value(COINS)
    panel.get_by_test_id("pipeline-run").click()
    expect(panel).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    result = panel.get_by_test_id("pipeline-result")
    expect(result.get_by_test_id("pipeline-box")).to_have_count(boxes)
    expect(result.get_by_test_id("pipeline-image")).to_have_js_property("naturalWidth", 384)
    texts = [item["outputs"]["logits"]["text"] for item in expected["stages"][-1]["items"]]
    expect(result.get_by_test_id("pipeline-readings")).to_contain_text(next(t for t in texts if t))
    stages = result.get_by_test_id("pipeline-stage")
    expect(stages).to_have_count(len(expected["stages"]))
    expect(result.locator("[data-testid=pipeline-stage][data-stage=read] td").nth(2)).to_have_text(str(boxes))
    expect(result.get_by_test_id("pipeline-timeline").locator(".pipeline-span")).to_have_count(
        len(expected["timeline"]))
