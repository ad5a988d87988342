"""Try it: a real photograph through a model, preprocessed and read as the model's spec says;
refused by name where the spec or the file cannot say what to feed."""

import shutil
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from fastapi.testclient import TestClient

from device_bridge.runtime import preprocess
from device_bridge.runtime import spec as model_spec
from tests.fakes import dynamic_models
from tests.fakes.photos import CAT, ROCKET, photo
from tests.server.modeltools.conftest import DynamicModels, _convert, wait_for_run

LABELS = ["cat", "rocket", "coffee"]
CLASSIFIER_SPEC = {
    "inputs": [{"name": "image", "shape": [1, 3, -1, -1], "default_shape": [1, 3, 64, 96], "kind": "image",
                "layout": "NCHW", "resize": "letterbox", "scale": 1 / 255, "mean": [0.5], "std": [0.25]}],
    "outputs": [{"name": "logits", "kind": "logits", "labels_file": "labels.txt"}],
}


@pytest.fixture(scope="module")
def classifier(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("classifier")
    onnx_path = dynamic_models.classifier(folder / "classifier.onnx")
    return onnx_path, _convert(onnx_path, folder / "run")


@pytest.fixture
def project(client: TestClient, classifier: tuple[Path, Path], dynamic_zoo: DynamicModels) -> dict:
    answer = client.post("/api/projects", json={"name": "try", "template": "empty"})
    assert answer.status_code == 201, answer.text
    project = answer.json()
    root = Path(project["path"])
    for path in (*classifier, dynamic_zoo.detector_mnn):
        shutil.copy(path, root / path.name)
    for name in (CAT, ROCKET):
        shutil.copy(photo(name), root / name)
    (root / "labels.txt").write_text("\n".join(LABELS) + "\n")
    return project


def _try(client: TestClient, project: dict, body: dict) -> dict:
    started = client.post(f"/api/projects/{project['id']}/tools/try", json=body)
    assert started.status_code == 202, started.text
    return wait_for_run(client, started.json()["id"])


def test_a_photo_through_a_classifier_gives_its_labels(client: TestClient, project: dict,
                                                      classifier: tuple[Path, Path]) -> None:
    answer = client.put(f"/api/projects/{project['id']}/model-spec?path=classifier.mnn", json=CLASSIFIER_SPEC)
    assert answer.status_code == 200, answer.text
    run = _try(client, project, {"model": "classifier.mnn", "input": ROCKET})
    assert run["status"] == "succeeded", run["error"]
    result = run["result"]
    assert result["input"] == ROCKET and result["input_shapes"] == {"image": [1, 3, 64, 96]}
    assert result["input_file"] == {"width": 640, "height": 427}
    assert run["args"]["shapes_from_spec"] == ["image"]
    top = result["outputs"]["logits"]["top"]
    # The same photo, preprocessed by the same spec, through ONNX Runtime: the same answer.
    spec = model_spec.from_dict(CLASSIFIER_SPEC)
    tensor, _ = preprocess.tensor(spec.inputs[0], [1, 3, 64, 96], photo(ROCKET))
    logits = ort.InferenceSession(str(classifier[0])).run(None, {"image": tensor})[0][0]
    expected = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
    assert [t["label"] for t in top] == [LABELS[i] for i in np.argsort(-expected)]
    assert [t["score"] for t in top] == pytest.approx(sorted(expected, reverse=True), abs=1e-4)


def test_without_a_spec_nothing_is_guessed(client: TestClient, project: dict) -> None:
    run = _try(client, project, {"model": "classifier.mnn", "input": CAT,
                                 "input_shapes": {"image": [1, 3, 32, 32]}})
    assert run["status"] == "failed" and run["error_code"] == "model_spec_required", run
    assert "Spec" in run["error"]


def test_a_bad_photo_is_named(client: TestClient, project: dict) -> None:
    client.put(f"/api/projects/{project['id']}/model-spec?path=classifier.mnn", json=CLASSIFIER_SPEC)
    root = Path(project["path"])
    (root / "broken.jpg").write_bytes(photo(ROCKET).read_bytes()[:5000])
    run = _try(client, project, {"model": "classifier.mnn", "input": "broken.jpg"})
    assert run["status"] == "failed" and run["error_code"] == "bad_input_file", run
    assert run["error"].startswith("broken.jpg: cannot be decoded")
    missing = client.post(f"/api/projects/{project['id']}/tools/try",
                          json={"model": "classifier.mnn", "input": "nowhere.png"})
    assert missing.status_code == 422 and missing.json()["code"] == "bad_input_file"


def test_a_mask_output_is_read_at_the_shape_the_run_gives(client: TestClient, project: dict) -> None:
    spec = {"inputs": [{"name": "image", "shape": [1, 3, -1, -1], "kind": "image", "layout": "NCHW",
                        "scale": 1 / 255}],
            "outputs": [{"name": "score", "kind": "mask", "threshold": 0.0,
                         "labels": ["background", "text"]}]}
    url = f"/api/projects/{project['id']}"
    assert client.put(f"{url}/model-spec?path=detector.mnn", json=spec).status_code == 200
    refused = client.post(f"{url}/tools/try", json={"model": "detector.mnn", "input": CAT})
    assert refused.status_code == 422 and refused.json()["code"] == "input_shape_required"
    run = _try(client, project, {"model": "detector.mnn", "input": CAT,
                                 "input_shapes": {"image": [1, 3, 48, 64]}})
    assert run["status"] == "succeeded", run["error"]
    mask = run["result"]["outputs"]["score"]
    assert mask["kind"] == "mask" and mask["size"] == [64, 48] and len(mask["rows"]) == 48
    assert sum(c["pixels"] for c in mask["classes"]) == 48 * 64
