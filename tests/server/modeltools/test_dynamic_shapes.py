"""Models with dynamic input dims (torch exports with ``dynamic_axes``): no tool guesses a
dynamic dim, every result records the shapes it ran with, and outputs are never overwritten."""

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.modeltools import mnnfile
from tests.fakes import dynamic_models
from tests.fakes.photos import calibration_folder
from tests.server.modeltools.conftest import DynamicModels, run_tool, wait_for_run

DETECTOR_640 = {"image": [1, 3, 640, 640]}


@pytest.fixture
def project(client: TestClient, dynamic_zoo: DynamicModels) -> dict:
    response = client.post("/api/projects", json={"name": "ocr", "template": "empty"})
    assert response.status_code == 201, response.text
    project = response.json()
    for path in vars(dynamic_zoo).values():
        shutil.copy(path, Path(project["path"]) / path.name)
    return project


def _start(client: TestClient, project: dict, tool: str, body: dict):
    return client.post(f"/api/projects/{project['id']}/tools/{tool}", json=body)


def _finished(client: TestClient, project: dict, tool: str, body: dict) -> dict:
    response = _start(client, project, tool, body)
    assert response.status_code == 202, response.text
    return wait_for_run(client, response.json()["id"])


def _refusal(response, code: str) -> dict:
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["code"] == code, body
    return body


def test_conversion_keeps_the_dynamic_dims(dynamic_zoo: DynamicModels) -> None:
    header = mnnfile.read_header(dynamic_zoo.detector_mnn)
    assert header["inputs"][0]["shape"] == [1, 3, -1, -1]
    # MNN 3.6.1's converter stores a dynamic batch as 1 (measured); the width stays dynamic.
    assert mnnfile.read_header(dynamic_zoo.recogniser_mnn)["inputs"][0]["shape"] == [1, 3, 48, -1]


@pytest.mark.parametrize("tool", ["benchmark", "compare"])
def test_a_missing_dim_is_refused_naming_input_and_dim(client: TestClient, project: dict, tool: str) -> None:
    body = {"model": "detector.mnn"}
    if tool == "compare":
        body["reference"] = "detector.onnx"
    error = _refusal(_start(client, project, tool, body), "input_shape_required")
    assert (error["input"], error["dim"]) == ("image", 2)
    assert "'image'" in error["detail"] and "dim 2" in error["detail"]
    # The .onnx reference keeps the symbolic names the .mnn lost.
    assert error["dim_name"] == ("height" if tool == "compare" else None)
    partial = {**body, "input_shapes": {"image": [1, 3, 64]}}
    assert _refusal(_start(client, project, tool, partial), "input_shape_required")["dim"] == 3


def test_a_dynamic_batch_is_named_too(client: TestClient, project: dict) -> None:
    body = {"model": "recogniser.onnx", "static": True}
    error = _refusal(_start(client, project, "convert", body), "input_shape_required")
    assert (error["input"], error["dim"], error["dim_name"]) == ("crop", 0, "batch")
    # ``batch`` stands for the dynamic batch; the width is still missing.
    error = _refusal(_start(client, project, "convert", {**body, "batch": 2}), "input_shape_required")
    assert (error["input"], error["dim"], error["dim_name"]) == ("crop", 3, "width")
    compared = {"model": "recogniser.mnn", "reference": "recogniser.onnx"}
    error = _refusal(_start(client, project, "compare", compared), "input_shape_required")
    assert (error["input"], error["dim"], error["dim_name"]) == ("crop", 3, "width")


def test_a_shape_against_a_fixed_dim_is_refused(client: TestClient, project: dict) -> None:
    body = {"model": "detector.mnn", "input_shapes": {"image": [1, 4, 64, 64]}}
    error = _refusal(_start(client, project, "benchmark", body), "input_shape_mismatch")
    assert (error["input"], error["dim"]) == ("image", 1)
    unknown = {"model": "detector.mnn", "input_shapes": {"picture": [1, 3, 64, 64]}}
    _refusal(_start(client, project, "benchmark", unknown), "input_shape_mismatch")


def test_the_worker_refuses_with_the_code_when_the_server_did_not_check(
    dynamic_zoo: DynamicModels, run_dir: Path
) -> None:
    outcome = run_tool("benchmark", {"model": str(dynamic_zoo.detector_mnn), "loops": 1}, run_dir)
    assert outcome.status == "failed"
    assert outcome.code == "input_shape_required"
    assert "'image'" in (outcome.error or "") and "dim 2" in (outcome.error or "")


def test_benchmark_runs_at_the_given_shape_and_records_it(client: TestClient, project: dict) -> None:
    body = {"model": "detector.mnn", "input_shapes": DETECTOR_640, "warmup": 1, "loops": 3,
            "per_op_loops": 2}
    run = _finished(client, project, "benchmark", body)
    assert run["status"] == "succeeded", run["error"]
    assert run["result"]["input_shapes"] == DETECTOR_640
    assert run["result"]["output_shapes"] == {"score": [1, 1, 640, 640]}
    assert run["args"]["input_shapes"] == DETECTOR_640
    # The real cost, not the 1×1 one the tools used to run silently: 409,600 times the pixels
    # gives far more than the 10 times asked of the figure, on however busy a machine.
    tiny = _finished(client, project, "benchmark", {**body, "input_shapes": {"image": [1, 3, 1, 1]}})
    assert tiny["status"] == "succeeded", tiny["error"]
    assert run["result"]["median_ms"] > 10 * tiny["result"]["median_ms"]


def test_compare_runs_at_the_given_shape_and_records_it(client: TestClient, project: dict) -> None:
    shape = {"crop": [1, 3, 48, 40]}
    body = {"model": "recogniser.mnn", "reference": "recogniser.onnx", "input_shapes": shape}
    run = _finished(client, project, "compare", body)
    assert run["status"] == "succeeded", run["error"]
    result = run["result"]
    assert result["input_shapes"] == shape
    assert result["outputs"][0]["shape"] == [1, 8, 12, 10]
    assert result["passed"] is True, result


def test_a_constant_reference_fails_compare(client: TestClient, project: dict) -> None:
    body = {"model": "constant.mnn", "reference": "constant.onnx", "input_shapes": {"image": [1, 3, 32, 32]}}
    run = _finished(client, project, "compare", body)
    assert run["status"] == "succeeded", run["error"]
    row = run["result"]["outputs"][0]
    assert row["max_abs_error"] == 0.0  # the two agree exactly, and still prove nothing
    assert row["reference_collapsed"] == "is constant (0 everywhere)"
    assert row["passed"] is False and run["result"]["passed"] is False
    assert any("of the reference is constant" in w for w in run["result"]["warnings"])


def test_diff_needs_the_shape_and_records_it(client: TestClient, project: dict) -> None:
    body = {"a": "detector.mnn", "b": "constant.mnn"}
    error = _refusal(client.post(f"/api/projects/{project['id']}/tools/diff", json=body),
                     "input_shape_required")
    assert (error["input"], error["dim"]) == ("image", 2)
    shape = {"image": [1, 3, 24, 16]}
    response = client.post(f"/api/projects/{project['id']}/tools/diff",
                           json={**body, "input_shapes": shape, "loops": 2})
    assert response.status_code == 202, response.text
    run = wait_for_run(client, response.json()["id"])
    assert run["status"] == "succeeded", run["error"]
    assert run["result"]["input_shapes"] == shape
    assert run["result"]["outputs"][0]["shape"] == [1, 1, 24, 16]


def test_static_conversion_needs_the_shapes(client: TestClient, project: dict) -> None:
    body = {"model": "detector.onnx", "static": True}
    error = _refusal(_start(client, project, "convert", body), "input_shape_required")
    assert (error["input"], error["dim"], error["dim_name"]) == ("image", 2, "height")
    run = _finished(client, project, "convert", {**body, "input_shapes": {"image": [1, 3, 64, 48]}})
    assert run["status"] == "succeeded", run["error"]
    written = Path(project["path"]) / run["result"]["output"]
    assert mnnfile.read_header(written)["inputs"][0]["shape"] == [1, 3, 64, 48]
    assert run["result"]["input_shapes"] == {"image": [1, 3, 64, 48]}


def test_a_static_conversion_that_holds_no_op_fails(dynamic_zoo: DynamicModels, tmp_path: Path) -> None:
    """Without shapes MNN 3.6.1 prints success and writes a 132-byte model it cannot load."""
    output = tmp_path / "detector.static.mnn"
    args = {"model": str(dynamic_zoo.detector), "output": str(output), "static": True}
    outcome = run_tool("convert", args, tmp_path / "run")
    assert outcome.status == "failed"
    assert "the written model holds no op" in (outcome.error or "")
    assert "Compute Shape Error" in (outcome.error or "")
    assert not output.exists()


def test_running_again_writes_a_new_file(client: TestClient, project: dict) -> None:
    root = Path(project["path"])
    first = _finished(client, project, "convert", {"model": "detector.onnx", "output": "det.mnn"})
    assert first["result"]["output"] == "det.mnn"
    written = (root / "det.mnn").read_bytes()
    body = {"model": "detector.onnx", "output": "det.mnn", "fp16": True}
    again = _finished(client, project, "convert", body)
    assert (again["args"]["output"], again["result"]["output"]) == ("det-2.mnn", "det-2.mnn")
    assert (root / "det.mnn").read_bytes() == written
    third = _finished(client, project, "convert", {"model": "detector.onnx", "output": "det.mnn"})
    assert third["result"]["output"] == "det-3.mnn"
    replaced = _finished(client, project, "convert",
                         {"model": "detector.onnx", "output": "det.mnn", "fp16": True, "overwrite": True})
    assert replaced["result"]["output"] == "det.mnn"
    assert (root / "det.mnn").read_bytes() != written


def test_a_quantizer_crash_on_open_dims_says_why_and_the_static_conversion_quantizes(
    client: TestClient, project: dict
) -> None:
    """MNN's quantizer quantizes the detector with its open height and width, but crashes on a
    classifier that averages over them: the crash says so and how to get past it."""
    root = Path(project["path"])
    calibration_folder(root / "calib", 64)
    shape = {"image": [1, 3, 64, 64]}
    detector = _finished(client, project, "quantize", {"model": "detector.mnn", "calibration": "calib",
                                                       "input_shapes": shape})
    assert detector["status"] == "succeeded", detector["error"]
    dynamic_models.classifier(root / "classifier.onnx")
    assert _finished(client, project, "convert", {"model": "classifier.onnx"})["status"] == "succeeded"
    crashed = _finished(client, project, "quantize", {"model": "classifier.mnn", "calibration": "calib",
                                                      "input_shapes": shape})
    assert crashed["status"] == "crashed"
    first_line = crashed["error"].splitlines()[0]
    assert first_line.startswith("crashed (signal 11, SIGSEGV): the model's inputs have open dims "
                                 "(image [1, 3, ?, ?]);")
    assert first_line.endswith("convert the source with static and input_shapes, then quantize "
                               "that conversion")
    static = _finished(client, project, "convert", {"model": "classifier.onnx", "static": True,
                                                    "input_shapes": shape, "output": "classifier.static.mnn"})
    assert static["status"] == "succeeded", static["error"]
    quantized = _finished(client, project, "quantize", {"model": "classifier.static.mnn",
                                                        "calibration": "calib"})
    assert quantized["status"] == "succeeded", quantized["error"]
