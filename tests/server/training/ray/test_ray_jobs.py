"""Ray jobs end to end on a real local Ray head: the commit offer, live logs and metrics,
artifacts through moto's S3 with checksums (a tampered object refused), stop, and a restarted
workbench re-attaching to a running job."""

from pathlib import Path

import MNN
import pytest
from fastapi.testclient import TestClient

from server.core.config import Settings
from tests.conftest import make_client
from tests.fakes.ray_cluster import RayHead, S3Server
from tests.server.training.ray.conftest import (
    AUTHOR,
    commit_everything,
    job_of,
    make_project,
    metric_count,
    ray_settings_body,
    submit,
    wait_status,
)
from tests.waiting import wait_until

# The first Ray test of a session also starts the shared head (~30-50 s on a busy machine).
pytestmark = pytest.mark.timeout(300)


def test_job_runs_the_commit_streams_metrics_and_brings_artifacts_back(
        client: TestClient, ray_cluster: RayHead, s3: S3Server, tmp_path: Path):
    saved = client.put("/api/settings/ray", json=ray_settings_body(ray_cluster, s3=s3))
    assert saved.status_code == 200, saved.text
    assert saved.json()["has_auth_token"] and saved.json()["has_s3_secret"]
    assert "not-needed" not in saved.text and "testing-secret" not in saved.text
    project = make_project(client)
    refused = submit(client, project)
    assert refused.status_code == 409 and refused.json()["code"] == "not_committed"
    assert "train.py" in refused.json()["uncommitted"]
    release = tmp_path / "release"
    response = submit(client, project, commit_and_push=True, message="train", author=AUTHOR,
                      config={"env": {"RELEASE": str(release)}, "num_cpus": 0.5})
    assert response.status_code == 201, response.text
    job = response.json()
    assert job["backend"] == "ray" and job["commit"]
    # Live: the metrics are in while the job still waits for its release.
    wait_until(lambda: metric_count(client, job["id"]) == 3, timeout=120, what="three metrics")
    assert job_of(client, job["id"])["status"] == "running"
    release.touch()
    done = wait_status(client, job["id"], {"succeeded", "failed", "stopped"})
    assert done["status"] == "succeeded", done
    log = client.get(f"/api/jobs/{job['id']}/logs").json()["text"]
    assert "training done" in log and log.count("MNNWB_METRIC") == 3
    points = client.get(f"/api/jobs/{job['id']}/metrics").json()["points"]
    assert [p["step"] for p in points] == [0, 1, 2]

    pulled = client.post(f"/api/jobs/{job['id']}/artifacts/pull", json={})
    assert pulled.status_code == 200, pulled.text
    files = {f["path"]: f for f in pulled.json()["files"]}
    assert set(files) == {"sub/model.mnn", "notes.txt"}
    project_path = Path(client.get(f"/api/projects/{project['id']}").json()["path"])
    model = project_path / "artifacts" / job["id"] / "sub" / "model.mnn"
    assert model.read_bytes() == b"MNN" + b"0.1" * 100

    key = f"wb/jobs/{job['id']}/sub/model.mnn"
    s3.client().put_object(Bucket="mnnwb-ray", Key=key, Body=b"MNN tampered")
    tampered = client.post(f"/api/jobs/{job['id']}/artifacts/pull", json={})
    assert tampered.status_code == 409 and tampered.json()["code"] == "checksum_mismatch"
    assert model.read_bytes() == b"MNN" + b"0.1" * 100  # the good copy is kept
    assert not model.with_name("model.mnn.part").exists()


def test_stop_a_running_job(client: TestClient, ray_cluster: RayHead, tmp_path: Path):
    client.put("/api/settings/ray", json=ray_settings_body(ray_cluster, shared=tmp_path / "s"))
    project = make_project(client, "raystop")
    response = submit(client, project, config={"snapshot": True,
                                               "env": {"RELEASE": str(tmp_path / "never")}})
    assert response.status_code == 201, response.text
    job = response.json()
    wait_until(lambda: metric_count(client, job["id"]) == 3, timeout=120, what="three metrics")
    stopped = client.post(f"/api/jobs/{job['id']}/stop")
    assert stopped.status_code == 200, stopped.text
    done = wait_status(client, job["id"], {"succeeded", "failed", "stopped"})
    assert done["status"] == "stopped" and done["reason"] == "stopped on request"
    pulled = client.post(f"/api/jobs/{job['id']}/artifacts/pull", json={})
    assert pulled.status_code == 409 and pulled.json()["code"] == "no_artifacts"


def test_restarted_workbench_reattaches_to_a_running_job(
        settings: Settings, ray_cluster: RayHead, tmp_path: Path):
    release = tmp_path / "release"
    with make_client(settings) as first:
        first.put("/api/settings/ray", json=ray_settings_body(ray_cluster, shared=tmp_path / "s"))
        project = make_project(first, "rayrestart")
        commit_everything(first, project)
        job = submit(first, project, config={"env": {"RELEASE": str(release)}}).json()
        wait_until(lambda: metric_count(first, job["id"]) == 3, timeout=120, what="metrics")
    with make_client(settings) as second:
        assert job_of(second, job["id"])["status"] == "running"
        release.touch()
        done = wait_status(second, job["id"], {"succeeded", "failed", "stopped"})
        assert done["status"] == "succeeded", done
        log = second.get(f"/api/jobs/{job['id']}/logs").json()["text"]
        assert log.count("MNNWB_METRIC") == 3 and log.count("training done") == 1
        assert metric_count(second, job["id"]) == 3
        pulled = second.post(f"/api/jobs/{job['id']}/artifacts/pull", json={})
        assert pulled.status_code == 200, pulled.text
        assert sorted(f["path"] for f in pulled.json()["files"]) == ["notes.txt", "sub/model.mnn"]
        assert (tmp_path / "s" / "jobs" / job["id"] / "manifest.json").is_file()


def test_a_template_s_training_runs_on_ray_and_its_model_comes_back(
        client: TestClient, ray_cluster: RayHead, tmp_path: Path):
    """The `mnn-native-mlp` template as a person starts it, only shorter: its metrics stream in
    and the model it saved to $MNNWB_OUTPUT_DIR on the cluster loads and runs here."""
    client.put("/api/settings/ray", json=ray_settings_body(ray_cluster, shared=tmp_path / "shared"))
    project = client.post("/api/projects", json={"name": "mlp-on-ray", "template": "mnn-native-mlp"}).json()
    response = submit(client, project, command="python train.py --steps 60", config={"snapshot": True})
    assert response.status_code == 201, response.text
    job = response.json()
    done = wait_status(client, job["id"], {"succeeded", "failed", "stopped"}, timeout=180)
    assert done["status"] == "succeeded", done
    points = client.get(f"/api/jobs/{job['id']}/metrics").json()["points"]
    assert [p["step"] for p in points] == [20, 40, 60]
    pulled = client.post(f"/api/jobs/{job['id']}/artifacts/pull", json={})
    assert pulled.status_code == 200, pulled.text
    assert [f["path"] for f in pulled.json()["files"]] == ["model.mnn"]
    model = Path(project["path"]) / "artifacts" / job["id"] / "model.mnn"
    net = MNN.nn.load_module_from_file(str(model), ["input"], ["probs"])
    probs = net.forward(MNN.expr.const([0.5, 0.5], [1, 2], MNN.expr.NCHW)).read()
    assert probs.shape == (1, 2) and abs(float(probs.sum()) - 1.0) < 1e-4
