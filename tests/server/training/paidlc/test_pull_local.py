"""Pulling artifacts works for local jobs too, so the UI treats both backends alike."""

from pathlib import Path

from alibabacloud_oss_v2.crc import Crc64
from fastapi.testclient import TestClient

from .conftest import wait_job

SCRIPT = """\
import os, time
while not os.path.exists("go"):
    time.sleep(0.02)
out = os.environ["MNNWB_OUTPUT_DIR"]
os.makedirs(os.path.join(out, "sub"))
with open(os.path.join(out, "sub", "model.mnn"), "wb") as f:
    f.write(bytes(range(256)) * 1000)
"""


def test_a_local_jobs_outputs_are_copied_into_artifacts(client: TestClient) -> None:
    project = client.post("/api/projects", json={"name": "local", "template": "empty"}).json()
    Path(project["path"], "job.py").write_text(SCRIPT)
    job = client.post(
        f"/api/projects/{project['id']}/jobs", json={"backend": "local", "command": "python job.py"}
    ).json()
    early = client.post(f"/api/jobs/{job['id']}/artifacts/pull")
    assert (early.status_code, early.json()["code"]) == (409, "job_running")
    Path(project["path"], "go").touch()
    assert wait_job(client, job["id"])["status"] == "succeeded"
    pulled = client.post(f"/api/jobs/{job['id']}/artifacts/pull")
    assert pulled.status_code == 200, pulled.text
    expected = bytes(range(256)) * 1000
    crc = Crc64(0)
    crc.update(expected)
    assert pulled.json()["files"] == [
        {"path": "sub/model.mnn", "size": len(expected), "crc64": str(crc.sum64()), "sha256": None,
         "skipped": False}
    ]
    copied = Path(project["path"], "artifacts", job["id"], "sub", "model.mnn")
    assert copied.read_bytes() == expected
