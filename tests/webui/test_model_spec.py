"""A person declares a model's spec on its card and tries the model on a real photograph."""

import shutil
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from playwright.sync_api import BrowserContext, expect

from device_bridge.runtime import preprocess
from device_bridge.runtime import spec as model_spec
from tests.fakes import dynamic_models
from tests.fakes.photos import ROCKET, photo
from tests.server.modeltools.conftest import _convert
from tests.webui.workbench import create_project, open_project

RUN_TIMEOUT_MS = 60_000
LABELS = ["cat", "rocket", "coffee"]


@pytest.fixture(scope="module")
def classifier(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("classifier")
    onnx_path = dynamic_models.classifier(folder / "classifier.onnx")
    return onnx_path, _convert(onnx_path, folder / "run")


def _expected_top(onnx_path: Path, spec: model_spec.ModelSpec) -> list[str]:
    tensor, _ = preprocess.tensor(spec.inputs[0], [1, 3, 64, 96], photo(ROCKET))
    logits = ort.InferenceSession(str(onnx_path)).run(None, {"image": tensor})[0][0]
    return [LABELS[i] for i in np.argsort(-logits)]


def test_declare_a_spec_and_try_the_model_on_a_photo(
    context: BrowserContext, live_server, classifier: tuple[Path, Path], console_errors
) -> None:
    console_errors.allow(r"422 .*model-spec")  # the refused shape below
    project = create_project(live_server, "spec-try")
    root = Path(project["path"])
    shutil.copy(classifier[1], root / "classifier.mnn")
    shutil.copy(photo(ROCKET), root / ROCKET)
    page = open_project(context, live_server, project)

    page.locator("[data-testid=tree-item][data-path='classifier.mnn']").click()
    card = page.get_by_test_id("spec-card")
    expect(card.get_by_test_id("spec-draft")).to_be_visible()
    expect(card.get_by_test_id("spec-input-0-kind")).to_have_value("image")  # drafted from [1, 3, ?, ?]
    # A shape against the model's fixed channel count is refused by field, nothing written.
    card.get_by_test_id("spec-input-0-default").fill("1, 4, 64, 96")
    card.get_by_test_id("spec-save").click()
    expect(card.get_by_test_id("spec-error")).to_contain_text("inputs[0].default_shape[1]")
    assert not (root / "classifier.mnn.model.toml").exists()

    card.get_by_test_id("spec-input-0-default").fill("1, 3, 64, 96")
    card.get_by_test_id("spec-input-0-resize").select_option("letterbox")
    card.get_by_test_id("spec-input-0-mean").fill("0.5")
    card.get_by_test_id("spec-input-0-std").fill("0.25")
    card.get_by_test_id("spec-output-logits-kind").select_option("logits")
    card.get_by_test_id("spec-output-logits-labels").fill("\n".join(LABELS))
    card.get_by_test_id("spec-save").click()
    expect(card).to_have_attribute("data-exists", "true")
    expect(card.get_by_test_id("spec-draft")).to_have_count(0)
    saved = model_spec.load(root / "classifier.mnn")
    assert saved is not None and saved.default_shapes() == {"image": [1, 3, 64, 96]}
    assert saved.outputs[0].labels == LABELS and saved.inputs[0].resize == "letterbox"

    tryit = page.get_by_test_id("try-it")
    expect(tryit.get_by_test_id("try-input")).to_have_value(ROCKET)
    expect(tryit.get_by_test_id("try-shape")).to_have_value("1, 3, 64, 96")
    tryit.get_by_test_id("try-run").click()
    result = tryit.get_by_test_id("try-result")
    expect(result).to_be_visible(timeout=RUN_TIMEOUT_MS)
    rows = result.get_by_test_id("try-top").locator("tr td:first-child")
    expect(rows).to_have_text(_expected_top(classifier[0], saved))
    expect(result.get_by_test_id("try-image")).to_have_js_property("naturalWidth", 640)
    expect(result.get_by_test_id("try-meta")).to_contain_text("image [1, 3, 64, 96]")

    # After a reload the spec is the saved one, not a draft.
    page.reload()
    page.locator("[data-testid=tree-item][data-path='classifier.mnn']").click()
    expect(page.get_by_test_id("spec-card")).to_have_attribute("data-exists", "true")
    expect(page.get_by_test_id("spec-output-logits-kind")).to_have_value("logits")
