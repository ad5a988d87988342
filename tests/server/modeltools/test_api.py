"""The model-tools API: runs as rows, confined paths, events, cancel, reconcile."""

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from server.api.services import services_of
from server.modeltools.models import ToolRun
from tests.server.modeltools.conftest import Models, wait_for_run
from tests.waiting import wait_until


@pytest.fixture
def project(client: TestClient, zoo: Models) -> dict:
    response = client.post("/api/projects", json={"name": "vision", "template": "empty"})
    assert response.status_code == 201, response.text
    project = response.json()
    shutil.copy(zoo.conv, Path(project["path"]) / "conv.onnx")
    shutil.copytree(zoo.calibration, Path(project["path"]) / "calib")
    return project


def _start(client: TestClient, project: dict, tool: str, body: dict):
    return client.post(f"/api/projects/{project['id']}/tools/{tool}", json=body)


def test_convert_then_inspect_through_the_api(client: TestClient, project: dict) -> None:
    response = _start(client, project, "convert", {"model": "conv.onnx", "fp16": True})
    assert response.status_code == 202, response.text
    run = response.json()
    assert run["status"] == "queued"
    assert run["args"]["output"] == "conv.fp16.mnn"
    run = wait_for_run(client, run["id"])
    assert run["status"] == "succeeded", run["error"]
    assert run["result"]["output"] == "conv.fp16.mnn"
    assert (Path(project["path"]) / "conv.fp16.mnn").is_file()
    log = client.get(f"/api/tool-runs/{run['id']}/log").json()
    assert "Converted Success!" in log["text"] and log["complete"] is True
    inspected = _start(client, project, "inspect", {"model": "conv.fp16.mnn"}).json()
    inspected = wait_for_run(client, inspected["id"])
    assert inspected["result"]["inputs"][0]["shape"] == [1, 3, 32, 32]
    runs = client.get(f"/api/projects/{project['id']}/tool-runs").json()
    assert [r["tool"] for r in runs] == ["inspect", "convert"]


def test_events_on_the_tools_channel(client: TestClient, project: dict) -> None:
    run = _start(client, project, "convert", {"model": "conv.onnx"}).json()
    assert wait_for_run(client, run["id"])["status"] == "succeeded"
    hub = services_of(client.app).hub

    def replayed() -> list:
        sub, _ = hub.subscribe(project["id"], since=0)
        events = []
        while not sub.queue.empty():
            events.append(sub.queue.get_nowait())
        hub.unsubscribe(sub)
        return events

    def run_statuses(events: list) -> list[str]:
        return [e.data["status"] for e in events if e.channel == "tools" and e.type == "run"]

    # The row is final before its event reaches the hub's loop: wait for the event itself.
    events = wait_until(lambda: (found := replayed()) and "succeeded" in run_statuses(found)
                        and found, what="the run's final event")
    assert run_statuses(events) == ["queued", "running", "succeeded"]
    assert any(e.type == "progress" and e.data["fraction"] == 1.0 for e in events)
    assert any(e.type == "log" and "Converted Success!" in e.data["line"] for e in events)
    files = [e.data for e in events if e.channel == "files"]
    assert files[-1]["changes"] == [{"kind": "added", "path": "conv.mnn"}]


@pytest.mark.parametrize(
    ("tool", "body", "status", "fragment"),
    [
        ("convert", {"model": "../outside.onnx"}, 403, "escapes the project"),
        ("convert", {"model": "missing.onnx"}, 422, "file not found"),
        ("convert", {"model": "conv.onnx", "weight_quant_bits": 9}, 422, "between 2 and 8"),
        ("convert", {"model": "conv.onnx", "output": "out.onnx"}, 422, "must be a .mnn"),
        ("convert", {"model": "conv.onnx", "colour": 1}, 422, "colour"),
        ("quantize", {"model": "conv.onnx", "calibration": "calib"}, 422, "takes .mnn"),
        ("benchmark", {"model": "random.mnn"}, 422, "not a MNN model"),
        ("inspect", {"model": "notes.txt"}, 422, "this tool takes"),
        ("frobnicate", {"model": "conv.onnx"}, 422, "tool"),
    ],
)
def test_bad_requests_get_clear_errors(
    client: TestClient, project: dict, tool: str, body: dict, status: int, fragment: str
) -> None:
    root = Path(project["path"])
    (root / "random.mnn").write_bytes(b"\x01\x02\x03" * 100)
    (root / "notes.txt").write_text("not a model")
    response = _start(client, project, tool, body)
    assert response.status_code == status, response.text
    assert fragment in response.json()["detail"]
    assert client.get("/api/health").status_code == 200


def test_quantize_refuses_admm_before_running(client: TestClient, project: dict) -> None:
    run = wait_for_run(
        client, _start(client, project, "convert", {"model": "conv.onnx"}).json()["id"]
    )
    assert run["status"] == "succeeded"
    body = {"model": "conv.mnn", "calibration": "calib", "feature_method": "ADMM"}
    response = _start(client, project, "quantize", body)
    assert response.status_code == 422
    assert "ADMM is refused" in response.json()["detail"]


def test_cancel_a_running_benchmark(client: TestClient, project: dict) -> None:
    run = wait_for_run(
        client, _start(client, project, "convert", {"model": "conv.onnx"}).json()["id"]
    )
    body = {"model": "conv.mnn", "loops": 100000, "warmup": 10000}
    run = _start(client, project, "benchmark", body).json()
    response = client.post(f"/api/tool-runs/{run['id']}/cancel")
    assert response.status_code == 200
    run = wait_for_run(client, run["id"], timeout=20)
    assert run["status"] == "cancelled"
    again = client.post(f"/api/tool-runs/{run['id']}/cancel")
    assert again.status_code == 409


def test_unknown_run_is_404(client: TestClient) -> None:
    response = client.get("/api/tool-runs/nope")
    assert response.status_code == 404
    assert response.json()["code"] == "run_not_found"


def test_runs_left_active_by_a_previous_server_are_failed(client: TestClient, project: dict) -> None:
    app = client.app
    with Session(services_of(app).engine) as session:
        for status in ("queued", "running", "succeeded"):
            session.add(
                ToolRun(
                    id=f"old-{status}",
                    project_id=project["id"],
                    tool="inspect",
                    status=status,
                    args={},
                    log_path="/nonexistent",
                )
            )
        session.commit()
    assert services_of(app).tools.reconcile() == 2
    for status, expected in (
        ("queued", "failed"),
        ("running", "failed"),
        ("succeeded", "succeeded"),
    ):
        run = client.get(f"/api/tool-runs/old-{status}").json()
        assert run["status"] == expected
    assert client.get("/api/tool-runs/old-running").json()["error"] == "server restarted"
