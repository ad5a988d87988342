"""A model's spec (``<model>.model.toml``) through the API: drafted from the model file, checked
against it when written, read by the tools for the dynamic dims a run leaves out (and recorded
as such), and carried to the model that convert and quantize write."""

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from device_bridge.runtime import spec as model_spec
from tests.server.modeltools.conftest import DynamicModels, wait_for_run

IMAGE = {"name": "image", "shape": [1, 3, -1, -1], "default_shape": [1, 3, 96, 128], "kind": "image",
         "layout": "NCHW", "scale": 1 / 255}
SPEC = {"inputs": [IMAGE], "outputs": [{"name": "score", "kind": "mask", "threshold": 0.5}]}


@pytest.fixture
def project(client: TestClient, dynamic_zoo: DynamicModels) -> dict:
    response = client.post("/api/projects", json={"name": "spec", "template": "empty"})
    assert response.status_code == 201, response.text
    project = response.json()
    for path in (dynamic_zoo.detector, dynamic_zoo.detector_mnn):
        shutil.copy(path, Path(project["path"]) / path.name)
    return project


def _url(project: dict, path: str) -> str:
    return f"/api/projects/{project['id']}/model-spec?path={path}"


def _put(client: TestClient, project: dict, path: str, body: dict):
    return client.put(_url(project, path), json=body)


def test_a_model_without_a_spec_answers_a_draft_from_its_file(client: TestClient, project: dict) -> None:
    answer = client.get(_url(project, "detector.onnx"))
    assert answer.status_code == 200, answer.text
    found = answer.json()
    assert not found["exists"] and found["spec_path"] == "detector.onnx.model.toml"
    assert found["declared_inputs"] == [{"name": "image", "shape": [1, 3, -1, -1],
                                         "labels": [None, None, "height", "width"]}]
    assert [o["name"] for o in found["declared_outputs"]] == ["score"]
    draft = found["spec"]["inputs"][0]
    assert (draft["kind"], draft["layout"], draft["shape"]) == ("image", "NCHW", [1, 3, -1, -1])
    assert "default_shape" not in draft  # the draft never fills a dynamic dim itself
    assert not (Path(project["path"]) / "detector.onnx.model.toml").exists()


def test_a_written_spec_is_checked_against_the_model(client: TestClient, project: dict) -> None:
    wrong_name = {"inputs": [{**IMAGE, "name": "picture"}]}
    refused = _put(client, project, "detector.mnn", wrong_name)
    assert refused.status_code == 422 and refused.json()["code"] == "bad_model_spec", refused.text
    assert refused.json()["where"] == "inputs[0].name" and "'image'" in refused.json()["detail"]
    fixed_dim = {"inputs": [{"name": "image", "shape": [1, 4, -1, -1], "default_shape": [1, 4, 8, 8]}]}
    assert _put(client, project, "detector.mnn", fixed_dim).json()["where"] == "inputs[0].shape[1]"
    bad_field = {"inputs": [{**IMAGE, "mean": [1, 2]}]}
    assert _put(client, project, "detector.mnn", bad_field).json()["where"] == "inputs[0].mean"
    no_output = {**SPEC, "outputs": [{"name": "boxes"}]}
    assert _put(client, project, "detector.mnn", no_output).json()["where"] == "outputs[0].name"
    assert not (Path(project["path"]) / "detector.mnn.model.toml").exists()

    written = _put(client, project, "detector.mnn", SPEC)
    assert written.status_code == 200, written.text
    assert written.json()["exists"]
    assert written.json()["spec"]["inputs"][0]["default_shape"] == [1, 3, 96, 128]
    on_disk = model_spec.load(Path(project["path"]) / "detector.mnn")
    assert on_disk is not None and on_disk.default_shapes() == {"image": [1, 3, 96, 128]}


def test_a_viewer_cannot_write_and_paths_stay_inside(client: TestClient, project: dict) -> None:
    assert client.get(_url(project, "../detector.onnx")).status_code in (403, 422)
    assert client.get(_url(project, "missing.onnx")).json()["code"] in ("bad_model_file", "not_found")
    (Path(project["path"]) / "notes.txt").write_text("hi")
    assert client.get(_url(project, "notes.txt")).json()["code"] == "bad_model_file"


def test_tools_take_the_spec_defaults_and_record_them(client: TestClient, project: dict) -> None:
    assert _put(client, project, "detector.mnn", SPEC).status_code == 200
    started = client.post(f"/api/projects/{project['id']}/tools/benchmark",
                          json={"model": "detector.mnn", "loops": 2, "warmup": 1, "per_op": False})
    assert started.status_code == 202, started.text
    run = wait_for_run(client, started.json()["id"])
    assert run["status"] == "succeeded", run["error"]
    assert run["args"]["shapes_from_spec"] == ["image"]
    assert run["args"]["input_shapes"] == {"image": [1, 3, 96, 128]}
    assert run["result"]["input_shapes"] == {"image": [1, 3, 96, 128]}
    # A shape the request gives wins over the spec's, and is not marked as the spec's.
    given = client.post(f"/api/projects/{project['id']}/tools/benchmark",
                        json={"model": "detector.mnn", "loops": 2, "warmup": 1, "per_op": False,
                              "input_shapes": {"image": [1, 3, 32, 32]}})
    run = wait_for_run(client, given.json()["id"])
    assert "shapes_from_spec" not in run["args"]
    assert run["result"]["input_shapes"] == {"image": [1, 3, 32, 32]}


def test_a_broken_spec_refuses_the_run_by_name(client: TestClient, project: dict) -> None:
    broken = "[[inputs]]\nname = 'image'\nshape = [0]\n"
    (Path(project["path"]) / "detector.mnn.model.toml").write_text(broken)
    refused = client.post(f"/api/projects/{project['id']}/tools/benchmark", json={"model": "detector.mnn"})
    assert refused.status_code == 422 and refused.json()["code"] == "bad_model_spec", refused.text
    assert refused.json()["where"] == "inputs[0].shape[0]"


def test_convert_gives_the_output_its_own_spec(client: TestClient, project: dict) -> None:
    assert _put(client, project, "detector.onnx", SPEC).status_code == 200
    started = client.post(f"/api/projects/{project['id']}/tools/convert",
                          json={"model": "detector.onnx", "output": "converted.mnn"})
    run = wait_for_run(client, started.json()["id"])
    assert run["status"] == "succeeded", run["error"]
    carried = model_spec.load(Path(project["path"]) / "converted.mnn")
    assert carried is not None and carried.inputs[0].shape == [1, 3, -1, -1]
    assert carried.default_shapes() == {"image": [1, 3, 96, 128]} and carried.outputs[0].kind == "mask"
    # A static conversion at the spec's shape: the output's spec has the fixed shape, no default.
    started = client.post(f"/api/projects/{project['id']}/tools/convert",
                          json={"model": "detector.onnx", "output": "static.mnn", "static": True})
    run = wait_for_run(client, started.json()["id"])
    assert run["status"] == "succeeded", run["error"]
    assert run["args"]["shapes_from_spec"] == ["image"]
    fixed = model_spec.load(Path(project["path"]) / "static.mnn")
    assert fixed is not None and fixed.inputs[0].shape == [1, 3, 96, 128]
    assert fixed.inputs[0].default_shape is None


def test_quantize_takes_its_image_settings_from_the_spec(client: TestClient, project: dict) -> None:
    from tests.fakes.photos import calibration_folder

    spec = {"inputs": [{**IMAGE, "mean": [0.5], "std": [0.25], "color": "BGR"}]}
    assert _put(client, project, "detector.mnn", spec).status_code == 200
    calibration_folder(Path(project["path"]) / "calib", 48)
    started = client.post(f"/api/projects/{project['id']}/tools/quantize",
                          json={"model": "detector.mnn", "calibration": "calib", "mean": [0, 0, 0]})
    assert started.status_code == 202, started.text
    run = wait_for_run(client, started.json()["id"], timeout=120)
    assert run["status"] == "succeeded", run["error"]
    # (pixel / 255 - 0.5) / 0.25 is MNN's (pixel - 127.5) * 0.0156…; a field the request gives wins.
    assert run["args"]["preprocessing_from_spec"] == ["format", "normal"]
    assert run["args"]["format"] == "BGR" and run["args"]["mean"] == [0, 0, 0]
    assert run["args"]["normal"] == pytest.approx([1 / 255 / 0.25] * 3, rel=1e-6)
    assert run["args"]["shapes_from_spec"] == ["image"]
