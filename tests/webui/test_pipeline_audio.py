"""A person runs a pipeline of an audio model on a ``.wav`` of the project from the pipeline's
panel: the clip is offered first, plays in the result, and what the model heard is written
with the stage's time and session memory."""

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.device_bridge.test_pipeline import _convert
from tests.fakes import audio_models
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser
RUN_TIMEOUT_MS = 60_000


def test_run_a_pipeline_on_a_wav_and_hear_what_it_found(
    context: BrowserContext, live_server, tmp_path: Path
) -> None:
    built = audio_models.build(tmp_path / "built", _convert)
    project = create_project(live_server, "sound-chain")
    root = Path(project["path"])
    for path in built.parent.glob("loudness.mnn*"):
        shutil.copy(path, root / path.name)
    shutil.copy(built, root / "pipeline.toml")
    audio_models.wav(root / "loud.wav", audio_models.tone(1.5, 0.8))
    page = open_project(context, live_server, project)

    page.locator("[data-testid=tree-item][data-path='pipeline.toml']").click(button="right")
    page.get_by_test_id("menu-run-pipeline").click()
    panel = page.get_by_test_id("pipeline-panel")
    expect(panel.get_by_test_id("pipeline-input-path")).to_have_value("loud.wav")
    panel.get_by_test_id("pipeline-run").click()
    expect(panel).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    result = panel.get_by_test_id("pipeline-result")
    expect(result.get_by_test_id("pipeline-audio")).to_contain_text("1.50 s at 16000 Hz")
    expect(result.get_by_test_id("pipeline-image")).to_have_count(0)
    expect(result.get_by_test_id("pipeline-readings")).to_contain_text("loud")
    stage = result.locator("[data-testid=pipeline-stage][data-stage=loudness]")
    memory = stage.get_by_test_id("pipeline-stage-memory")
    expect(memory).to_have_text(re.compile(r"^\d+\.\d+$"))
    assert float(memory.inner_text()) > 0
