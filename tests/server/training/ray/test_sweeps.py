"""A sweep of four Ray jobs on the session's Ray head, its table of final metrics, and one
run's model pulled into the project."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.fakes.ray_cluster import RayHead
from tests.server.training.ray.conftest import FINISHED, make_project, ray_settings_body
from tests.waiting import wait_until

pytestmark = pytest.mark.timeout(300)


def test_a_sweep_of_four_runs_and_one_runs_model_is_pulled(
        client: TestClient, ray_cluster: RayHead, tmp_path: Path):
    client.put("/api/settings/ray", json=ray_settings_body(ray_cluster, shared=tmp_path / "s"))
    project = make_project(client, "sweep")
    created = client.post(f"/api/projects/{project['id']}/sweeps", json={
        "backend": "ray", "command": "python train.py", "grid": "--lr 0.1,0.01 --batch 32,64",
        "config": {"snapshot": True, "num_cpus": 0.25}})
    assert created.status_code == 201, created.text
    sweep = created.json()
    assert len(sweep["runs"]) == 4
    assert sorted((r["args"]["--lr"], r["args"]["--batch"]) for r in sweep["runs"]) == [
        ("0.01", "32"), ("0.01", "64"), ("0.1", "32"), ("0.1", "64")]

    def finished() -> list | None:
        sweeps = client.get(f"/api/projects/{project['id']}/sweeps").json()
        runs = sweeps[0]["runs"]
        return runs if all(r["status"] in FINISHED for r in runs) else None

    runs = wait_until(finished, timeout=150, what="the four runs to end")
    assert [r["status"] for r in runs] == ["succeeded"] * 4
    for run in runs:
        lr = float(run["args"]["--lr"])
        assert run["final"] == {"step": 2, "loss": lr / 3, "lr": lr}
    best = min(runs, key=lambda r: r["final"]["loss"])
    command = client.get(f"/api/jobs/{best['job_id']}").json()["command"]
    assert command == f"python train.py --lr {best['args']['--lr']} --batch {best['args']['--batch']}"
    pulled = client.post(f"/api/jobs/{best['job_id']}/artifacts/pull", json={})
    assert pulled.status_code == 200, pulled.text
    assert pulled.json()["folder"] == f"artifacts/{best['job_id']}"
