"""Compare on real inputs: a photograph made a tensor by the model's spec feeds both the MNN
model and its ONNX reference, and the result names the file; without a spec it is refused."""

import shutil
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from tests.fakes.photos import CAT, photo
from tests.server.modeltools.conftest import DynamicModels, wait_for_run

SPEC = {"inputs": [{"name": "image", "shape": [1, 3, -1, -1], "default_shape": [1, 3, 120, 180],
                    "kind": "image", "layout": "NCHW", "resize": "letterbox", "scale": 1 / 255}]}


@pytest.fixture
def project(client: TestClient, dynamic_zoo: DynamicModels) -> dict:
    answer = client.post("/api/projects", json={"name": "real", "template": "empty"})
    assert answer.status_code == 201, answer.text
    project = answer.json()
    root = Path(project["path"])
    for path in (dynamic_zoo.detector, dynamic_zoo.detector_mnn):
        shutil.copy(path, root / path.name)
    shutil.copy(photo(CAT), root / CAT)
    np.save(root / "zeros.npy", np.zeros((1, 3, 16, 16), dtype=np.float32))
    return project


def _compare(client: TestClient, project: dict, inputs: dict) -> dict:
    started = client.post(f"/api/projects/{project['id']}/tools/compare",
                          json={"model": "detector.mnn", "reference": "detector.onnx", "inputs": inputs,
                                "per_layer": False})
    assert started.status_code == 202, started.text
    return wait_for_run(client, started.json()["id"])


def test_a_photo_is_compared_at_the_spec_shape(client: TestClient, project: dict) -> None:
    url = f"/api/projects/{project['id']}/model-spec?path=detector.mnn"
    assert client.put(url, json=SPEC).status_code == 200
    run = _compare(client, project, {"image": CAT})
    assert run["status"] == "succeeded", run["error"]
    result = run["result"]
    assert result["inputs"] == [{"name": "image", "shape": [1, 3, 120, 180], "source": "file", "file": CAT}]
    assert result["passed"] is True and result["cosine"] > 0.9999


def test_a_photo_without_a_spec_is_refused_and_an_array_needs_none(client: TestClient, project: dict) -> None:
    run = _compare(client, project, {"image": CAT})
    assert run["status"] == "failed" and run["error_code"] == "model_spec_required", run
    assert CAT in run["error"] and "'image'" in run["error"]
    run = _compare(client, project, {"image": "zeros.npy"})
    assert run["status"] == "succeeded", run["error"]
    assert run["result"]["inputs"][0]["shape"] == [1, 3, 16, 16]
