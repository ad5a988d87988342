"""The whole cloud flow through the API against the emulator: refused until pushed, commit and
push, the job runs that commit, logs and metrics stream, the artifact is pulled back; stop."""

import hashlib
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from server.core.config import Settings
from tests.fakes.paidlc import Emulator

from .conftest import make_git_project, push_body, read_log, remote_head, submit, wait_job

WS = "ws://127.0.0.1:8765"
TRAIN_PY = """\
import json, os, random, time
out = os.environ["MNNWB_OUTPUT_DIR"]
for step in range(600):
    print(f"step {step}")
    if step % 100 == 0:
        print("MNNWB_METRIC " + json.dumps({"step": step, "loss": 1 / (step + 1)}), flush=True)
    if step == 299:  # the test lets the job finish once it has seen this line
        while not os.path.exists(os.environ["GO_FILE"]):
            time.sleep(0.02)
rng = random.Random(7)
with open(os.path.join(out, "model.bin"), "wb") as f:
    f.write(bytes(rng.getrandbits(8) for _ in range(200_000)))
print("job", os.environ["MNNWB_JOB_ID"], flush=True)
"""
EXPECTED_LINES = [
    line
    for step in range(600)
    for line in [f"step {step}"]
    + ([f'MNNWB_METRIC {{"step": {step}, "loss": {1 / (step + 1)}}}'] if step % 100 == 0 else [])
]


def model_bytes() -> bytes:
    rng = random.Random(7)
    return bytes(rng.getrandbits(8) for _ in range(200_000))


def events_until(
    socket: Any,
    last_type: str,
    *,
    job_end: bool = False,
    on_event: Callable[[dict[str, Any]], None] = lambda _: None,
) -> dict[str, list[Any]]:
    """The project's events, by type, up to the first of ``last_type`` (a job's end)."""
    seen: dict[str, list[dict[str, Any]]] = {}
    while True:
        event = socket.receive_json()
        seen.setdefault(event["type"], []).append(event["data"])
        on_event(event)
        if event["type"] == last_type and not (
            job_end and event["data"]["job"]["status"] in ("queued", "running")
        ):
            return seen


def test_a_cloud_job_runs_the_pushed_commit_and_its_artifact_comes_back(
    client: TestClient, configured: dict, tmp_path: Path
) -> None:
    project = make_git_project(client, tmp_path)
    Path(project["path"], "train.py").write_text(TRAIN_PY)
    refused = submit(client, project, command="python3 train.py")
    error = refused.json()
    assert (refused.status_code, error["code"]) == (409, "not_pushed")
    assert "train.py" in error["uncommitted"] and "train.py" in error["detail"]
    assert "main has not been pushed to origin" in error["detail"]
    assert client.get(f"/api/projects/{project['id']}/jobs").json() == []

    go = tmp_path / "go"

    def release_when_halfway(event: dict[str, Any]) -> None:
        if event["type"] == "job.log" and "step 299\n" in event["data"]["text"]:
            go.touch()  # so these lines were streamed while the job was still running

    with client.websocket_connect(f"{WS}/api/projects/{project['id']}/ws") as socket:
        response = submit(
            client, project, command="python3 train.py", config={"env": {"GO_FILE": str(go)}}, **push_body()
        )
        assert response.status_code == 201, response.text
        job = response.json()
        events = events_until(socket, "job.status", job_end=True, on_event=release_when_halfway)
    assert job["commit"] == remote_head(project)
    cloud = client.get(f"/api/jobs/{job['id']}/cloud").json()
    assert cloud["cloud_job_id"] == events["job.status"][0]["cloud_job_id"]
    assert (cloud["cloud_status"], cloud["output_prefix"]) == ("Succeeded", f"wb/jobs/{job['id']}/")
    assert job["config"]["remote_url"] == Path(project["remote"]).as_uri()
    assert client.get(f"/api/projects/{project['id']}/git/status").json()["untracked"] == []

    done = wait_job(client, job["id"])
    assert done["status"] == "succeeded", done
    assert [e["job"]["status"] for e in events["job.status"]] == ["queued", "running", "succeeded"]
    batches = events["job.log"]
    assert [b["offset"] for b in batches[1:]] == [b["next_offset"] for b in batches[:-1]]
    streamed = "".join(b["text"] for b in batches)
    assert streamed == read_log(client, job["id"])
    assert streamed.splitlines() == [*EXPECTED_LINES, f"job {job['id']}"]
    points = client.get(f"/api/jobs/{job['id']}/metrics").json()["points"]
    assert [p["step"] for p in points] == [0, 100, 200, 300, 400, 500]
    assert [p for e in events["job.metric"] for p in e["points"]] == points
    assert "Running" in {e["status"] for e in events["job.cloud_status"]}
    assert any("Succeeded" in e["event"] for e in events.get("job.event", []))

    with client.websocket_connect(f"{WS}/api/projects/{project['id']}/ws") as socket:
        pulled = client.post(f"/api/jobs/{job['id']}/artifacts/pull")
        assert pulled.status_code == 200, pulled.text
        progress = events_until(socket, "artifacts.pulled")["artifacts.progress"]
    body = pulled.json()
    assert body["folder"] == f"artifacts/{job['id']}"
    assert [(f["path"], f["size"]) for f in body["files"]] == [("model.bin", 200_000)]
    local = Path(project["path"], "artifacts", job["id"], "model.bin").read_bytes()
    assert hashlib.sha256(local).digest() == hashlib.sha256(model_bytes()).digest()
    last = progress[-1]
    assert (last["path"], last["done"], last["total"]) == ("model.bin", 200_000, 200_000)


def test_a_cloud_error_while_watching_is_reported_and_stop_still_works(
    client: TestClient, settings: Settings, configured: dict, emulator: Emulator, tmp_path: Path
) -> None:
    project = make_git_project(client, tmp_path)
    Path(project["path"], "run.sh").write_text("echo started\nsleep 30\necho finished\n")
    secret = "git-password-for-this-call"
    job = submit(client, project, command="bash run.sh", username="me", password=secret, **push_body()).json()
    assert secret not in str(job) and secret not in str(client.get(f"/api/jobs/{job['id']}").json())
    wait_job(client, job["id"], {"running"})
    with client.websocket_connect(f"{WS}/api/projects/{project['id']}/ws") as socket:
        emulator.inject_fault("GetJob", 503, "ServiceUnavailable", "The service is not available.")
        error = events_until(socket, "job.cloud_error")["job.cloud_error"][-1]
    assert (error["job_id"], error["code"], error["cloud_code"]) == (
        job["id"], "cloud_error", "ServiceUnavailable")
    assert error["request_id"] and "PAI-DLC GetJob failed" in error["detail"]
    stopped = client.post(f"/api/jobs/{job['id']}/stop")
    assert stopped.status_code == 200, stopped.text
    done = wait_job(client, job["id"])
    assert (done["status"], done["reason"]) == ("stopped", "stopped on request")
    assert "finished" not in read_log(client, job["id"])
    again = client.post(f"/api/jobs/{job['id']}/stop")
    assert (again.status_code, again.json()["code"]) == (409, "job_not_running")
    stored = b"".join(f.read_bytes() for f in settings.data_dir.rglob("*") if f.is_file())
    assert secret.encode() not in stored


def test_a_pushed_tree_needs_no_commit_and_a_bad_spec_is_refused_clearly(
    client: TestClient, configured: dict, emulator: Emulator, tmp_path: Path
) -> None:
    project = make_git_project(client, tmp_path)
    Path(project["path"], "run.sh").write_text("echo hello\n")
    first = submit(client, project, command="bash run.sh", **push_body()).json()
    assert wait_job(client, first["id"])["status"] == "succeeded"
    bad = submit(client, project, command="bash run.sh", config={"ecs_spec": "ecs.nope"})
    error = bad.json()
    assert (bad.status_code, error["code"]) == (422, "cloud_invalid")
    assert "ecs.nope" in error["detail"] and error["request_id"] in error["detail"]
    emulator.inject_fault("CreateJob", 400, "Throttling.User", "Request was denied due to user flow control.")
    throttled = submit(client, project, command="bash run.sh").json()
    assert (throttled["code"], bool(throttled["request_id"])) == ("cloud_throttled", True)
    assert [j["id"] for j in client.get(f"/api/projects/{project['id']}/jobs").json()] == [first["id"]]
    ahead = Path(project["path"], "run.sh")
    ahead.write_text("echo changed\n")
    client.post(f"/api/projects/{project['id']}/git/stage", json={"paths": ["run.sh"]})
    client.post(
        f"/api/projects/{project['id']}/git/commit", json={"message": "m", "author": push_body()["author"]}
    )
    refused = submit(client, project, command="bash run.sh").json()
    assert (refused["code"], refused["ahead"], refused["uncommitted"]) == ("not_pushed", 1, [])
    assert "main is 1 commit(s) ahead of origin/main" in refused["detail"]
