"""Evaluate: a classifier trained on an ImageFolder of real photos, run by ONNX Runtime and as
MNN fp32 and int8 on the same val images in one run; refusals that say what to declare; files
that cannot be samples named; quantize calibrating from the dataset and reporting the drop; mAP@0.5
on a COCO dataset."""

import json
import shutil
import warnings
from pathlib import Path

import pytest
import torch
from fastapi.testclient import TestClient

from device_bridge.runtime import spec as model_spec
from tests.fakes import photo_classifier as fixture
from tests.fakes.photo_classifier import PhotoClassifier
from tests.fakes.photos import CAT, ROCKET, photo, truncated
from tests.server.modeltools.conftest import wait_for_run

MODELS = ["classifier.onnx", "classifier.mnn", "classifier.int8.mnn"]
# The first test here may be the one that builds the session's photo classifier (training, three
# tool runs): over 100 s when every core of the machine is busy.
pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def project(client: TestClient, photo_classifier: PhotoClassifier) -> dict:
    answer = client.post("/api/projects", json={"name": "evaluate", "template": "empty"})
    assert answer.status_code == 201, answer.text
    project = answer.json()
    fixture.install(photo_classifier, Path(project["path"]))
    return project


def _start(client: TestClient, project: dict, body: dict, tool: str = "evaluate"):
    return client.post(f"/api/projects/{project['id']}/tools/{tool}", json=body)


def _run(client: TestClient, project: dict, body: dict, tool: str = "evaluate") -> dict:
    started = _start(client, project, body, tool)
    assert started.status_code == 202, started.text
    return wait_for_run(client, started.json()["id"], timeout=180)


def test_onnx_runtime_and_mnn_fp32_agree_and_int8_reports_its_drop(client: TestClient, project: dict) -> None:
    run = _run(client, project, {"models": MODELS, "dataset": "photos"})
    assert run["status"] == "succeeded", run["error"]
    result = run["result"]
    assert (result["split"], result["samples"], result["skipped_count"]) == ("val", 48, 0)
    assert result["classes"] == ["astronaut", "cat", "coffee", "rocket"]
    assert result["preprocessed"]["groups"] == 1  # one tensor per sample, fed to all three
    onnx, fp32, int8 = result["models"]
    assert [m["model"] for m in result["models"]] == MODELS
    assert (onnx["runtime"], fp32["runtime"]) == ("onnxruntime", "mnn")
    assert (onnx["kind"], fp32["kind"], int8["kind"]) == ("source", "fp32", "int8")
    assert onnx["top1"] > 0.75  # four classes: chance is 0.25
    assert fp32["top1"] == onnx["top1"] and fp32["correct"] == onnx["correct"]
    assert fp32["drop"] == 0
    assert int8["drop"] == pytest.approx(onnx["top1"] - int8["top1"])
    for model in result["models"]:
        assert model["median_ms"] > 0 and model["input_shape"] == [1, 3, 64, 64]
    assert onnx["shape_from_spec"] and fp32["shape_from_spec"]  # their height and width are open
    # ONNX Runtime and MNN fp32 give the same answer on every sample, disagreements included
    for sample in result["disagreements"]:
        assert sample["answers"][0]["label"] == sample["answers"][1]["label"], sample
        assert sample["file"].startswith("photos/val/")
    assert result["disagreement_count"] == len(result["disagreements"])
    assert len(result["per_class"]) == 4
    assert sum(row["support"] for row in result["per_class"]) == 48
    matrix = result["confusion"][0]
    assert len(matrix) == 4 and len(matrix[0]) == 5 and result["confusion_columns"][-1] == "(other)"
    assert sum(matrix[i][i] for i in range(4)) == onnx["correct"]
    # each model's figures are on its lineage
    graph = client.get(f"/api/projects/{project['id']}/lineage",
                       params={"path": "classifier.int8.mnn"}).json()
    measured = [n for n in graph["nodes"] if n["kind"] == "run" and n["data"]["tool"] == "evaluate"]
    assert measured and measured[0]["data"]["figures"]["top1"] == int8["top1"]
    assert measured[0]["data"]["figures"]["samples"] == 48


def test_a_limit_keeps_every_class_and_bad_files_are_named(client: TestClient, project: dict) -> None:
    val = Path(project["path"]) / "photos" / "val"
    truncated(val / "cat" / "cat_000.jpg", val / "cat" / "cut.jpg")
    (val / "rocket" / "notes.jpg").write_text("no photo here")
    whole = (val / "coffee" / "coffee_001.png").read_bytes()
    (val / "coffee" / "broken.png").write_bytes(whole[:40] + b"IEND")  # ends as a PNG does
    run = _run(client, project, {"models": ["classifier.mnn"], "dataset": "photos", "limit": 8})
    assert run["status"] == "succeeded", run["error"]
    result = run["result"]
    assert result["samples"] == 8  # files that cannot be read are not counted
    assert [row["support"] for row in result["per_class"]] == [3, 2, 1, 2]  # the classes in turn
    reasons = {s["file"]: s["reason"] for s in result["skipped"]}
    assert reasons["val/cat/cut.jpg"].startswith("truncated JPEG")
    assert reasons["val/rocket/notes.jpg"].startswith("not an image: the file is text")
    assert reasons["val/coffee/broken.png"].startswith("cannot be decoded")  # found decoding it
    assert result["skipped_count"] == 3
    run = _run(client, project, {"models": ["classifier.mnn"], "dataset": "photos"})
    assert (run["result"]["samples"], run["result"]["skipped_count"]) == (48, 3)


def _spec(root: Path, model: str, **changes) -> None:
    path = model_spec.sidecar(root / model)
    data = model_spec.parse(path.read_text()).to_dict()
    data["inputs"][0].update(changes.get("input", {}))
    if "outputs" in changes:
        data["outputs"] = changes["outputs"]
    for key in changes.get("drop", ()):
        data["inputs"][0].pop(key, None)
    path.write_text(model_spec.dumps(model_spec.from_dict(data)))


def test_refusals_say_what_to_declare(client: TestClient, project: dict) -> None:
    root = Path(project["path"])
    shutil.copy(root / "classifier.mnn", root / "bare.mnn")
    (root / "table.csv").write_text("a,b,label\n1,2,cat\n")
    refused = {
        "no spec": ({"models": ["bare.mnn"], "dataset": "photos"}, "model_spec_required",
                    "declare its input"),
        "not a dataset": ({"models": MODELS, "dataset": "photos/val/cat"}, "not_a_dataset", "class folders"),
        "tabular data on an image input": ({"models": ["classifier.mnn"], "dataset": "table.csv"},
                                           "input_kind_mismatch", 'kind = "tensor"'),
        "a metric for another task": ({"models": MODELS, "dataset": "photos", "metric": "map50"},
                                      "bad_metric", "for detection"),
        "a metric script that is not there": ({"models": MODELS, "dataset": "photos", "metric": "m.py"},
                                              "bad_metric", "not found"),
        "one model twice": ({"models": ["classifier.mnn", "classifier.mnn"], "dataset": "photos"},
                            "bad_tool_args", "listed twice"),
        "model, not models": ({"model": "classifier.mnn", "dataset": "photos"}, "bad_tool_args", "models"),
        "batch 2": ({"models": ["classifier.onnx"], "dataset": "photos",
                     "input_shapes": {"image": [2, 3, 64, 64]}}, "bad_tool_args", "batch 1"),
    }
    for what, (body, code, words) in refused.items():
        answer = _start(client, project, body)
        assert answer.status_code == 422, (what, answer.text)
        assert answer.json()["code"] == code and words in answer.json()["detail"], (what, answer.json())
    _spec(root, "classifier.mnn", input={"kind": "tensor"})
    answer = _start(client, project, {"models": ["classifier.mnn"], "dataset": "photos"})
    assert answer.json()["code"] == "input_kind_mismatch", answer.text
    assert 'declare the input with kind = "image"' in answer.json()["detail"]
    _spec(root, "classifier.onnx", drop=["default_shape"])
    answer = _start(client, project, {"models": ["classifier.onnx"], "dataset": "photos"})
    assert answer.json()["code"] == "input_shape_required", answer.text  # never guessed
    assert answer.json()["input"] == "image" and "'batch'" in answer.json()["detail"]
    _spec(root, "classifier.int8.mnn", outputs=[{"name": "logits", "kind": "tensor"}])
    answer = _start(client, project, {"models": ["classifier.int8.mnn"], "dataset": "photos"})
    assert answer.json()["code"] == "model_spec_required" and "kind logits" in answer.json()["detail"]
    # known only once the dataset is read: the run fails, by name
    run = _run(client, project, {"models": ["classifier.static.mnn"], "dataset": "photos", "split": "test"})
    assert (run["status"], run["error_code"]) == ("failed", "bad_split"), run
    assert "its splits: train, val" in run["error"]


def test_a_metric_script_of_the_project(client: TestClient, project: dict) -> None:
    root = Path(project["path"])
    (root / "metric.py").write_text(
        "import numpy as np\n"
        "NAMES = ['astronaut', 'cat', 'coffee', 'rocket']\n"
        "def evaluate(outputs, labels):\n"
        "    hits = [NAMES[int(np.argmax(o))] == y for o, y in zip(outputs, labels)]\n"
        "    return {'hit_rate': sum(hits) / len(hits), 'count': len(hits)}\n")
    run = _run(client, project, {"models": ["classifier.onnx", "classifier.mnn"], "dataset": "photos",
                                 "metric": "metric.py"})
    assert run["status"] == "succeeded", run["error"]
    plain = _run(client, project, {"models": ["classifier.onnx"], "dataset": "photos"})["result"]
    for model in run["result"]["models"]:
        assert model["metrics"] == {"hit_rate": plain["models"][0]["top1"], "count": 48.0}
    assert run["result"]["metric"] == "metric.py"


class _Table(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(2, 2)
        with torch.no_grad():  # "yes" when b > a
            self.fc.weight.copy_(torch.tensor([[1.0, -1.0], [-1.0, 1.0]]))
            self.fc.bias.zero_()

    def forward(self, row: torch.Tensor) -> torch.Tensor:
        return self.fc(row)


def test_a_csv_of_values(client: TestClient, project: dict) -> None:
    root = Path(project["path"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(_Table(), (torch.zeros(1, 2),), str(root / "table.onnx"), input_names=["row"],
                          output_names=["logits"], opset_version=17, dynamo=False)
    (root / "table.onnx.model.toml").write_text(model_spec.dumps(model_spec.from_dict({
        "inputs": [{"name": "row", "shape": [1, 2], "layout": "NC"}],
        "outputs": [{"name": "logits", "kind": "logits", "labels": ["no", "yes"]}]})))
    (root / "table.csv").write_text("a,b,label\n1,2,yes\n3,1,no\n0,5,yes\nx,1,no\n2,1,yes\n")
    run = _run(client, project, {"models": ["table.onnx"], "dataset": "table.csv"})
    assert run["status"] == "succeeded", run["error"]
    result = run["result"]
    assert (result["dataset_kind"], result["samples"], result["models"][0]["correct"]) == ("csv", 4, 3)
    assert result["skipped"] == [{"file": "row 5", "reason": "column a: 'x' is not a number"}]


def test_quantize_calibrates_from_the_dataset_and_reports_the_drop(client: TestClient, project: dict,
                                                                   photo_classifier: PhotoClassifier) -> None:
    root = Path(project["path"])
    (root / "table.csv").write_text("a,b,label\n1,2,cat\n")
    answer = _start(client, project, {"model": "classifier.static.mnn", "dataset": "table.csv"}, "quantize")
    assert answer.status_code == 422 and answer.json()["code"] == "not_a_dataset", answer.text
    shutil.copy(root / "classifier.static.mnn", root / "bare.mnn")
    answer = _start(client, project, {"model": "bare.mnn", "dataset": "photos"}, "quantize")
    assert answer.status_code == 422 and answer.json()["code"] == "model_spec_required", answer.text
    assert answer.json()["detail"].startswith("the accuracy check after quantizing")
    (root / "photos" / "train" / "cat" / "empty.png").write_bytes(b"")
    run = _run(client, project, {"model": "classifier.static.mnn", "dataset": "photos", "max_samples": 40},
               "quantize")
    assert run["status"] == "succeeded", run["error"]
    result = run["result"]
    assert result["samples"] == 40
    assert result["skipped"] == [{"file": "train/cat/empty.png", "reason": "empty file (0 bytes)"}]
    assert run["args"]["preprocessing_from_spec"] == ["format", "mean", "normal"]
    accuracy = result["accuracy"]
    assert (accuracy["split"], accuracy["samples"], accuracy["metric"]) == ("val", 48, "accuracy")
    evaluated = _run(client, project, {"models": ["classifier.static.mnn", result["output"]],
                                       "dataset": "photos"})["result"]["models"]
    assert accuracy["float"]["top1"] == evaluated[0]["top1"]
    assert accuracy["int8"]["top1"] == evaluated[1]["top1"]
    assert accuracy["drop"] == pytest.approx(evaluated[0]["top1"] - evaluated[1]["top1"])
    # the session's own int8 model was quantized from the whole train split the same way
    assert photo_classifier.quantized["accuracy"]["samples"] == 48


class _WholeImage(torch.nn.Module):
    """A detector of one box: the whole image, class 1 (rocket) where blue outweighs red, else 0
    (cat), score 0.9: rows of x1 y1 x2 y2 score class in the input's pixels."""

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        means = image.mean(dim=(2, 3))
        cls = (means[:, 2:3] > means[:, 0:1]).float()
        score = torch.sigmoid(means[:, 0:1] * 0 + 2.1972)
        corners = torch.tensor([[0.0, 0.0, 64.0, 64.0]]).expand(image.shape[0], 4)
        return torch.cat([corners, score, cls], dim=1)[:, None, :]


def test_map50_on_a_coco_dataset(client: TestClient, project: dict, tmp_path: Path) -> None:
    root = Path(project["path"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(_WholeImage(), (torch.zeros(1, 3, 64, 64),), str(root / "whole.onnx"),
                          input_names=["image"], output_names=["boxes"], opset_version=17, dynamo=False)
    spec = model_spec.dumps(model_spec.from_dict({
        "inputs": [{"name": "image", "shape": [1, 3, 64, 64], "kind": "image", "layout": "NCHW",
                    "scale": 1 / 255}],
        "outputs": [{"name": "boxes", "kind": "boxes", "labels": ["cat", "rocket"]}]}))
    (root / "whole.onnx.model.toml").write_text(spec)
    outcome = fixture.run_worker_tool("convert", {"model": str(root / "whole.onnx"),
                                                  "output": str(root / "whole.mnn")}, tmp_path / "convert")
    assert outcome.status == "succeeded", outcome.error
    (root / "whole.mnn.model.toml").write_text(spec)
    coco = root / "det"
    (coco / "images").mkdir(parents=True)
    shutil.copy(photo(CAT), coco / "images" / CAT)  # 451 × 300
    shutil.copy(photo(ROCKET), coco / "images" / ROCKET)  # 640 × 427
    (coco / "annotations.json").write_text(json.dumps({
        "images": [{"id": 1, "file_name": CAT}, {"id": 2, "file_name": ROCKET}],
        "categories": [{"id": 1, "name": "cat"}, {"id": 2, "name": "rocket"}],
        "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 451, 300]},
                        {"id": 2, "image_id": 1, "category_id": 1, "bbox": [300, 20, 60, 50]},
                        {"id": 3, "image_id": 2, "category_id": 2, "bbox": [0, 0, 640, 427]}]}))
    run = _run(client, project, {"models": ["whole.onnx", "whole.mnn"], "dataset": "det"})
    assert run["status"] == "succeeded", run["error"]
    result = run["result"]
    assert (result["task"], result["metric"], result["samples"]) == ("detection", "map50", 2)
    # cat: one of its two boxes found, precision 1 up to recall 0.5; rocket: found
    for model in result["models"]:
        assert model["map50"] == pytest.approx((0.5 + 1.0) / 2)
    assert result["per_class"] == [
        {"class": "cat", "support": 2, "models": [{"ap50": 0.5}, {"ap50": 0.5}]},
        {"class": "rocket", "support": 1, "models": [{"ap50": 1.0}, {"ap50": 1.0}]}]
    assert result["confusion"] is None and result["disagreement_count"] == 0
    answer = _start(client, project, {"models": ["whole.mnn"], "dataset": "det", "metric": "accuracy"})
    assert answer.status_code == 422 and answer.json()["code"] == "bad_metric", answer.text
