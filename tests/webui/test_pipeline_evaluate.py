"""A person evaluates the real PP-OCRv4 pipeline (tests/fakes/ppocr.py) on a labelled folder of
rendered text from its panel: the character accuracy over the set, and the sample whose label is
deliberately wrong listed first with what was expected and what was read."""

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.device_bridge.test_ppocr_pipeline import LINES, RENDERED, TURNED, distance
from tests.webui.workbench import create_project, open_project

pytestmark = pytest.mark.browser
RUN_TIMEOUT_MS = 120_000
READS = " ".join(LINES)
WRONG = "MNN Workbench 2025 Pipelines on device"


def test_evaluate_a_pipeline_on_a_labelled_folder_and_see_the_wrong_one_first(
    context: BrowserContext, live_server, ppocr_pipeline: Path
) -> None:
    project = create_project(live_server, "ocr-evaluate")
    root = Path(project["path"])
    for path in ppocr_pipeline.parent.iterdir():
        if path.is_file() and path.suffix in (".mnn", ".toml", ".txt"):
            shutil.copy(path, root / path.name)
    labelled = root / "labelled"
    labelled.mkdir()
    shutil.copy(ppocr_pipeline.parent / RENDERED, labelled / RENDERED)
    shutil.copy(ppocr_pipeline.parent / TURNED, labelled / TURNED)
    shutil.copy(ppocr_pipeline.parent / RENDERED, labelled / "mislabelled.png")
    turned = " ".join(LINES[::-1])
    (labelled / "labels.csv").write_text(
        f"file,text\n{RENDERED},{READS}\n{TURNED},{turned}\nmislabelled.png,{WRONG}\n"
    )
    expected = 1 - distance(READS, WRONG) / (len(READS) + len(turned) + len(WRONG))
    page = open_project(context, live_server, project)

    page.locator("[data-testid=tree-item][data-path='pipeline.toml']").click(button="right")
    page.get_by_test_id("menu-run-pipeline").click()
    panel = page.get_by_test_id("pipeline-panel")
    panel.get_by_test_id("pipeline-evaluate-open").click()
    evaluate = panel.get_by_test_id("pipeline-evaluate")
    expect(evaluate.get_by_test_id("evaluate-dataset")).to_have_value("labelled")
    evaluate.get_by_test_id("evaluate-run").click()
    expect(evaluate).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    aggregate = evaluate.get_by_test_id("evaluate-aggregate")
    expect(aggregate).to_have_attribute("data-metric", "char_accuracy")
    expect(aggregate).to_contain_text("Character accuracy")
    expect(aggregate.get_by_test_id("evaluate-value")).to_have_text(f"{expected:.4f}")
    expect(aggregate.get_by_test_id("evaluate-exact")).to_have_text("66.7 %")
    rows = evaluate.get_by_test_id("evaluate-sample")
    expect(rows).to_have_count(3)
    first = rows.first
    expect(first).to_have_attribute("data-exact", "false")
    expect(first.locator("td").nth(0)).to_have_text("labelled/mislabelled.png")
    expect(first.locator("td").nth(1)).to_have_text(WRONG)
    expect(first.locator("td").nth(2)).to_have_text(READS)
    expect(rows.nth(1)).to_have_attribute("data-exact", "true")
