"""MNN's backends: the server's list, benchmark and compare on a chosen backend, refusals of one
the build lacks (MNN itself would run it on the CPU without a word)."""

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from device_bridge import backends
from server.modeltools.backends import server_backends
from tests.server.modeltools.conftest import Models, run_tool, wait_for_run


@pytest.fixture
def project(client: TestClient, zoo: Models) -> dict:
    response = client.post("/api/projects", json={"name": "backends", "template": "empty"})
    assert response.status_code == 201, response.text
    project = response.json()
    shutil.copy(zoo.conv, Path(project["path"]) / "conv.onnx")
    shutil.copy(zoo.conv_mnn, Path(project["path"]) / "conv.mnn")
    return project


def _start(client: TestClient, project: dict, tool: str, body: dict):
    return client.post(f"/api/projects/{project['id']}/tools/{tool}", json=body)


def _absent() -> str:
    """A backend this machine's MNN lacks (the PyPI wheel has only the CPU)."""
    missing = [b["name"] for b in server_backends()["backends"] if not b["available"]]
    assert missing, "every backend is available here: nothing to refuse"
    return missing[0]


def test_the_server_lists_every_backend_with_a_reason_for_the_absent(client: TestClient) -> None:
    answer = client.get("/api/tools/backends")
    assert answer.status_code == 200, answer.text
    found = answer.json()
    assert found["mnn"] and [b["name"] for b in found["backends"]] == list(backends.NAMES)
    cpu = found["backends"][0]
    assert cpu == {"name": "CPU", "available": True, "reason": ""}
    for entry in found["backends"][1:]:
        assert entry["available"] or entry["reason"], entry
    if not found["backends"][1]["available"]:  # OpenCL, absent from the PyPI wheel
        assert "MNN_OPENCL" in found["backends"][1]["reason"]


def test_benchmark_on_the_cpu_records_what_it_ran_with(client: TestClient, project: dict) -> None:
    body = {"model": "conv.mnn", "backend": "CPU", "threads": 2, "precision": "high", "power": "low",
            "warmup": 1, "loops": 5, "per_op": False}
    run = _start(client, project, "benchmark", body)
    assert run.status_code == 202, run.text
    assert run.json()["args"] | body == run.json()["args"]
    done = wait_for_run(client, run.json()["id"])
    assert done["status"] == "succeeded", done["error"]
    ran = {"backend": "CPU", "threads": 2, "precision": "high", "power": "low"}
    assert done["result"]["runtime"] == ran
    assert done["result"]["config"] == {**ran, "memory": "normal", "warmup": 1, "loops": 5}


def test_compare_records_its_runtime(client: TestClient, project: dict) -> None:
    body = {"model": "conv.mnn", "reference": "conv.onnx", "threads": 2, "precision": "high",
            "per_layer": False}
    done = wait_for_run(client, _start(client, project, "compare", body).json()["id"])
    assert done["status"] == "succeeded", done["error"]
    assert done["result"]["runtime"] == {"backend": "CPU", "threads": 2, "precision": "high",
                                         "power": "normal"}
    assert done["result"]["passed"]


@pytest.mark.parametrize("tool", ["benchmark", "compare", "quantize"])
def test_a_backend_mnn_lacks_is_refused_by_name(client: TestClient, project: dict, tool: str) -> None:
    absent = _absent()
    body = {"model": "conv.mnn", "backend": absent, "reference": "conv.onnx", "calibration": "."}
    body = {k: v for k, v in body.items() if k in {"model", "backend"}
            | {"compare": {"reference"}, "quantize": {"calibration"}}.get(tool, set())}
    answer = _start(client, project, tool, body)
    assert answer.status_code == 422, answer.text
    error = answer.json()
    assert error["code"] == "backend_unavailable"
    assert error["backend"] == absent and "CPU" in error["available"]
    assert absent in error["detail"] and "not available on this server" in error["detail"]


@pytest.mark.parametrize(("field", "value"), [("backend", "TPU"), ("backend", "opencl"),
                                              ("precision", "fp8"), ("power", "max"), ("threads", 0)])
def test_unknown_runtime_values_are_named(client: TestClient, project: dict, field: str, value) -> None:
    answer = _start(client, project, "benchmark", {"model": "conv.mnn", field: value})
    assert answer.status_code == 422, answer.text
    assert answer.json()["code"] == "bad_tool_args"
    assert answer.json()["detail"].startswith(f"{field}:")


def test_the_worker_refuses_a_backend_mnn_runs_on_the_cpu(zoo: Models, tmp_path: Path) -> None:
    """Past the server's check (a probe that could not know, say), the worker asks the session
    which backend it got and fails rather than report CPU figures as another backend's."""
    absent = _absent()
    args = {"model": str(zoo.conv_mnn), "backend": absent, "warmup": 0, "loops": 1, "per_op": False}
    outcome = run_tool("benchmark", args, tmp_path / "run")
    assert outcome.status == "failed"
    assert outcome.code == "backend_unavailable" and outcome.error is not None
    assert f"backend {absent} is not available here (MNN ran the session on CPU)" in outcome.error
