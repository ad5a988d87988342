"""A project with a tiny training script, and Ray settings pointing at the session's Ray head
with moto's S3 (or a shared folder) as the artifact storage."""

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from tests.fakes.ray_cluster import S3_KEY_ID, S3_SECRET, RayHead, S3Server
from tests.waiting import wait_until

AUTHOR = "Test Person <test@example.com>"
FINISHED = {"succeeded", "failed", "stopped"}
# Prints its arguments as a metric, then waits for the file $RELEASE (when set) so a test sees the
# job running with metrics already out, then writes a model file into $MNNWB_OUTPUT_DIR.
TRAIN = '''import json, os, pathlib, sys, time
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
lr = float(args.get("--lr", "0.1"))
for step in range(3):
    print("MNNWB_METRIC " + json.dumps({"step": step, "loss": lr / (step + 1), "lr": lr}), flush=True)
release = os.environ.get("RELEASE")
while release and not pathlib.Path(release).exists():
    time.sleep(0.05)
print("training done", flush=True)
out = pathlib.Path(os.environ["MNNWB_OUTPUT_DIR"])
(out / "sub").mkdir()
(out / "sub" / "model.mnn").write_bytes(b"MNN" + str(lr).encode() * 100)
(out / "notes.txt").write_text("lr=%s" % lr)
'''


def ray_settings_body(head: RayHead, s3: S3Server | None = None,
                      shared: Path | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"address": head.address, "poll_seconds": 0.2,
                            "auth_token": "Bearer not-needed-by-a-local-head"}
    if s3 is not None:
        body.update(storage="s3", s3_endpoint=s3.endpoint, s3_bucket="mnnwb-ray",
                    s3_prefix="wb", s3_access_key_id=S3_KEY_ID, s3_secret_key=S3_SECRET)
    else:
        body.update(storage="shared_path", shared_path=str(shared))
    return body


def make_project(client: TestClient, name: str = "raytrain") -> dict[str, Any]:
    """A Git project with ``train.py`` written but not committed."""
    project = client.post("/api/projects", json={"name": name, "template": "empty", "git": False}).json()
    pid = project["id"]
    assert client.post(f"/api/projects/{pid}/git/init").status_code == 201
    saved = client.put(f"/api/projects/{pid}/files/content", params={"path": "train.py"},
                       json={"content": TRAIN})
    assert saved.status_code == 200, saved.text
    return project


def submit(client: TestClient, project: dict[str, Any], **body: Any) -> Any:
    return client.post(f"/api/projects/{project['id']}/jobs",
                       json={"backend": "ray", "command": "python train.py", **body})


def job_of(client: TestClient, job_id: str) -> dict[str, Any]:
    return client.get(f"/api/jobs/{job_id}").json()


def wait_status(client: TestClient, job_id: str, statuses: set[str],
                timeout: float = 120) -> dict[str, Any]:
    return wait_until(lambda: (job := job_of(client, job_id))["status"] in statuses and job,
                      timeout=timeout, what=f"job {job_id} to be {statuses}")


def metric_count(client: TestClient, job_id: str) -> int:
    return len(client.get(f"/api/jobs/{job_id}/metrics").json()["points"])


def commit_everything(client: TestClient, project: dict[str, Any]) -> None:
    base = f"/api/projects/{project['id']}/git"
    status = client.get(f"{base}/status").json()
    paths = [c["path"] for c in status["unstaged"] + status["untracked"]]
    assert client.post(f"{base}/stage", json={"paths": paths}).status_code == 200
    response = client.post(f"{base}/commit", json={"message": "train", "author": AUTHOR})
    assert response.status_code == 201, response.text
