"""A person opens the project's datasets, sees an ImageFolder of real photos counted per class and
split with thumbnails, evaluates the MNN fp32 and int8 models on it and reads the table, the
confusion matrix and the samples the two disagree on."""

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, expect

from tests.fakes import photo_classifier as fixture
from tests.fakes.photo_classifier import PhotoClassifier
from tests.fakes.photos import truncated
from tests.webui.test_model_tools import tool_from_menu
from tests.webui.workbench import create_project, open_project

# The first test here may be the one that builds the session's photo classifier: over 100 s
# when every core of the machine is busy.
pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

RUN_TIMEOUT_MS = 120_000


def test_evaluate_fp32_against_int8_on_a_dataset(
    context: BrowserContext, live_server, photo_classifier: PhotoClassifier, tmp_path: Path
) -> None:
    project = create_project(live_server, "evaluate-ui")
    root = Path(project["path"])
    fixture.install(photo_classifier, root)
    truncated(root / "photos" / "val" / "cat" / "cat_000.jpg", root / "photos" / "val" / "cat" / "cut.jpg")
    page = open_project(context, live_server, project)

    page.get_by_test_id("action-datasets").click()
    card = page.locator("[data-testid=dataset][data-path=photos]")
    expect(card.get_by_test_id("dataset-summary")).to_contain_text("240 samples · 4 classes")
    cat = card.locator("[data-testid=dataset-class][data-class=cat]")
    expect(cat.locator("[data-split=train]")).to_have_text("48")
    expect(cat.locator("[data-split=val]")).to_have_text("12")
    expect(card.get_by_test_id("dataset-skipped-count")).to_have_text("1 skipped")
    expect(card.get_by_test_id("dataset-thumbnail")).to_have_count(16)
    thumbnail = card.get_by_test_id("dataset-thumbnail").first
    expect(thumbnail).to_have_js_property("complete", True)
    assert thumbnail.evaluate("img => img.naturalWidth") == 64  # the crop itself, through the raw route
    page.screenshot(path=tmp_path / "datasets.png")

    card.get_by_test_id("dataset-evaluate").click()
    panel = page.locator("[data-testid=evaluate-panel][data-dataset=photos]")
    # a model that appears while the panel is open is offered at once
    (root / "copy.mnn").write_bytes((root / "classifier.mnn").read_bytes())
    expect(panel.locator("[data-testid=evaluate-model-choice][data-model='copy.mnn']")).to_have_count(1)
    for model in ("classifier.mnn", "classifier.int8.mnn"):
        panel.locator(f"[data-testid=evaluate-model-choice][data-model='{model}']").check()
    panel.get_by_test_id("evaluate-run").click()
    expect(panel).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)

    run = httpx.get(f"{live_server.url}/api/tool-runs/{panel.get_attribute('data-run')}",
                    headers=live_server.auth).json()
    result = run["result"]
    fp32, int8 = result["models"]
    assert run["args"]["models"] == ["classifier.mnn", "classifier.int8.mnn"]
    expect(panel.get_by_test_id("evaluate-samples")).to_have_text("48")
    expect(panel.get_by_test_id("evaluate-skipped-count")).to_have_text("1")
    rows = panel.get_by_test_id("evaluate-model")
    expect(rows).to_have_count(2)
    fp32_row = panel.locator("[data-testid=evaluate-model][data-model='classifier.mnn']")
    int8_row = panel.locator("[data-testid=evaluate-model][data-model='classifier.int8.mnn']")
    expect(fp32_row.get_by_test_id("evaluate-top1")).to_have_text(f"{100 * fp32['top1']:.1f}%")
    expect(int8_row.get_by_test_id("evaluate-top1")).to_have_text(f"{100 * int8['top1']:.1f}%")
    expect(int8_row.get_by_test_id("evaluate-kind")).to_have_text("int8")
    drop = 100 * int8["drop"]
    expect(int8_row.get_by_test_id("evaluate-drop")).to_have_text(
        "±0" if drop == 0 else f"{'−' if drop > 0 else '+'}{abs(drop):.1f}")
    expect(panel.get_by_test_id("evaluate-class")).to_have_count(4)
    # the confusion matrix of the int8 model: its diagonal is what it got right
    cells = panel.get_by_test_id("evaluate-confusion").get_by_test_id("evaluate-cell")
    diagonal = sum(int(cells.nth(i * 5 + i).inner_text()) for i in range(4)) if cells.count() == 20 else \
        sum(int(cells.nth(i * 4 + i).inner_text()) for i in range(4))
    assert diagonal == int8["correct"]
    disagreements = panel.get_by_test_id("evaluate-disagreement")
    expect(disagreements).to_have_count(result["disagreement_count"])
    if result["disagreement_count"]:
        first = disagreements.first
        expect(first.locator("img")).to_have_js_property("complete", True)
        expect(first.get_by_test_id("evaluate-answer")).to_have_count(2)
    expect(panel.get_by_test_id("evaluate-skipped-file")).to_contain_text("val/cat/cut.jpg")
    page.screenshot(path=tmp_path / "evaluate.png", full_page=True)


def test_quantize_with_a_dataset_shows_the_accuracy_drop(
    context: BrowserContext, live_server, photo_classifier: PhotoClassifier
) -> None:
    project = create_project(live_server, "quantize-dataset")
    fixture.install(photo_classifier, Path(project["path"]))
    page = open_project(context, live_server, project)
    quantize = tool_from_menu(page, "classifier.static.mnn", "quantize")
    quantize.get_by_test_id("tool-field-dataset").select_option("photos")
    quantize.get_by_test_id("tool-run").click()
    expect(quantize).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    run = httpx.get(f"{live_server.url}/api/tool-runs/{quantize.get_attribute('data-run')}",
                    headers=live_server.auth).json()
    accuracy = run["result"]["accuracy"]
    assert run["args"]["dataset"] == "photos" and "calibration" not in run["args"]
    shown = quantize.get_by_test_id("quantize-accuracy")
    before = 100 * accuracy["float"]["top1"]
    expect(shown).to_contain_text(f"Top-1 on photos/val, 48 samples: float {before:.1f}%")
    expect(shown).to_contain_text(f"int8 {100 * accuracy['int8']['top1']:.1f}%")

    # "Evaluate…" on a model file: the project's dataset, the model checked as the baseline.
    page.locator("[data-testid=tree-item][data-path='classifier.mnn']").click(button="right")
    page.get_by_test_id("menu-tool-evaluate").click()
    panel = page.locator("[data-testid=evaluate-panel][data-dataset=photos]")
    expect(panel.get_by_test_id("evaluate-dataset")).to_have_value("photos")
    expect(panel.locator("[data-testid=evaluate-model-choice][data-model='classifier.mnn']")).to_be_checked()
    expect(panel.locator("[data-testid=evaluate-model-choice]:checked")).to_have_count(1)
