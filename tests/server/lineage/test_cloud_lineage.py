"""A PAI-DLC job's pulled artifact: its lineage names the cloud backend, the job's id in the
cloud, the pushed commit and the job's last metrics (the emulator runs the pushed code)."""

from pathlib import Path

from fastapi.testclient import TestClient

from tests.server.training.paidlc.conftest import (  # noqa: F401 (fixtures used by name)
    configured,
    emulator,
    make_git_project,
    push_body,
    remote_head,
    submit,
    wait_job,
)

TRAIN_PY = """\
import json, os
print("MNNWB_METRIC " + json.dumps({"step": 1, "acc": 0.75}), flush=True)
with open(os.path.join(os.environ["MNNWB_OUTPUT_DIR"], "model.onnx"), "wb") as f:
    f.write(b"pretend model " * 100)
"""


def test_a_pulled_cloud_artifact_names_its_cloud_job(
    client: TestClient, configured: dict, tmp_path: Path  # noqa: F811
) -> None:
    project = make_git_project(client, tmp_path)
    Path(project["path"], "train.py").write_text(TRAIN_PY)
    response = submit(client, project, command="python3 train.py", **push_body())
    assert response.status_code == 201, response.text
    job = wait_job(client, response.json()["id"])
    assert job["status"] == "succeeded", job
    pulled = client.post(f"/api/jobs/{job['id']}/artifacts/pull")
    assert pulled.status_code == 200, pulled.text
    cloud_id = client.get(f"/api/jobs/{job['id']}/cloud").json()["cloud_job_id"]

    path = f"artifacts/{job['id']}/model.onnx"
    graph = client.get(f"/api/projects/{project['id']}/lineage", params={"path": path}).json()
    [node] = [n for n in graph["nodes"] if n["kind"] == "job"]
    assert (node["data"]["backend"], node["data"]["cloud_job_id"]) == ("pai-dlc", cloud_id)
    assert node["data"]["metrics"] == {"step": 1, "acc": 0.75}
    [commit] = [n for n in graph["nodes"] if n["kind"] == "commit"]
    assert commit["data"]["sha"] == job["commit"] == remote_head(project)
    assert commit["data"]["message"] == "training code"
