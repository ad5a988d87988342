"""The jobs API end to end: a template's training runs through it; stop; logs; errors.

What each template's own command does is checked by tests/server/projects/test_templates_run.py;
the PyTorch template also runs through this API in tests/server/lineage/test_lineage.py."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.waiting import wait_until

FINISHED = {"succeeded", "failed", "stopped"}


def create_project(client: TestClient, template: str | None = "empty", **extra) -> dict:
    body = {"name": f"p-{template}", **({"template": template} if template else {}), **extra}
    response = client.post("/api/projects", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def submit(client: TestClient, project: dict, **body) -> dict:
    response = client.post(f"/api/projects/{project['id']}/jobs", json={"backend": "local", **body})
    assert response.status_code == 201, response.text
    return response.json()


def wait_job(client: TestClient, job_id: str, statuses=FINISHED, timeout: float = 60) -> dict:
    return wait_until(lambda: (job := client.get(f"/api/jobs/{job_id}").json())["status"] in statuses and job,
                      timeout, f"job {job_id} to reach {sorted(statuses)}")


def read_log(client: TestClient, job_id: str) -> str:
    text, offset = "", 0
    while True:
        chunk = client.get(f"/api/jobs/{job_id}/logs", params={"offset": offset}).json()
        text, offset = text + chunk["text"], chunk["offset"]
        if chunk["eof"]:
            return text


def test_a_template_runs_locally_through_the_api(client):
    project = create_project(client, "mnn-native-mlp")
    job = submit(client, project)
    assert job["command"].startswith("python ")
    assert job["status"] == "running" and job["started_at"]
    done = wait_job(client, job["id"])
    log = read_log(client, job["id"])
    assert (done["status"], done["exit_code"]) == ("succeeded", 0), log
    assert done["finished_at"] >= done["started_at"]
    points = client.get(f"/api/jobs/{job['id']}/metrics").json()["points"]
    assert points and all("step" in p for p in points)
    assert log.count("MNNWB_METRIC ") == len(points)
    artifact = Path(project["path"], "outputs", job["id"], "model.mnn")
    assert artifact.stat().st_size > 0
    listed = client.get(f"/api/projects/{project['id']}/jobs").json()
    assert [j["id"] for j in listed] == [job["id"]]


def test_stop_ends_a_running_job_as_stopped(client):
    project = create_project(client)
    job = submit(client, project, command="python -c \"import time; print('ready', flush=True); "
                                          "time.sleep(60)\"")
    wait_until(lambda: "ready" in client.get(f"/api/jobs/{job['id']}/logs").json()["text"],
               what="the job to print ready")
    assert client.post(f"/api/jobs/{job['id']}/stop").status_code == 200
    done = wait_job(client, job["id"], timeout=10)
    assert (done["status"], done["exit_code"], done["reason"]) == ("stopped", -15,
                                                                  "stopped on request")
    again = client.post(f"/api/jobs/{job['id']}/stop")
    assert (again.status_code, again.json()["code"]) == (409, "job_not_running")


def test_logs_read_from_an_offset(client):
    project = create_project(client)
    job = submit(client, project, command="python -c \"print('alpha'); print('beta')\"")
    wait_job(client, job["id"])
    whole = read_log(client, job["id"])
    start = whole.index("beta")
    tail = client.get(f"/api/jobs/{job['id']}/logs", params={"offset": start}).json()
    assert tail == {"text": "beta\n", "offset": len(whole.encode()), "eof": True}
    assert client.get(f"/api/jobs/{job['id']}/logs", params={"offset": -1}).status_code == 422


def test_a_failing_command_is_a_failed_job_with_a_reason(client):
    project = create_project(client)
    job = submit(client, project, command="python -c \"raise SystemExit(4)\"")
    done = wait_job(client, job["id"])
    assert (done["status"], done["exit_code"], done["reason"]) == ("failed", 4,
                                                                  "exited with code 4")


@pytest.mark.parametrize("backend", ["nope"])
def test_unknown_backends_are_refused(client, backend):
    project = create_project(client)
    response = client.post(f"/api/projects/{project['id']}/jobs", json={"backend": backend})
    assert (response.status_code, response.json()["code"]) == (422, "unknown_backend")
    assert "local" in response.json()["detail"]
    assert client.get(f"/api/projects/{project['id']}/jobs").json() == []


def test_refused_commands_leave_no_job(client):
    project = create_project(client)
    for body, code in (({"command": "python 'open"}, "bad_command"),
                       ({"command": "python x.py", "config": {"bogus": 1}}, "bad_config")):
        response = client.post(f"/api/projects/{project['id']}/jobs",
                               json={"backend": "local", **body})
        assert (response.status_code, response.json()["code"]) == (422, code)
    assert client.get(f"/api/projects/{project['id']}/jobs").json() == []


def test_a_project_without_a_template_needs_a_command(client, tmp_path):
    folder = tmp_path / "plain"
    folder.mkdir()
    project = create_project(client, None, path=str(folder))
    response = client.post(f"/api/projects/{project['id']}/jobs", json={"backend": "local"})
    assert (response.status_code, response.json()["code"]) == (422, "no_command")


def test_unknown_jobs_are_404(client):
    for response in (client.get("/api/jobs/nope"), client.post("/api/jobs/nope/stop"),
                     client.get("/api/jobs/nope/logs"), client.get("/api/jobs/nope/metrics")):
        assert response.status_code == 404


def test_a_rerun_repeats_a_job_with_what_the_body_changes(client, tmp_path):
    project = create_project(client)
    command = "python -c \"import os; print('greeting', os.environ['GREETING'])\""
    first = submit(client, project, command=command, config={"env": {"GREETING": "hello"}})
    wait_job(client, first["id"])
    assert "greeting hello" in read_log(client, first["id"])

    same = client.post(f"/api/jobs/{first['id']}/rerun", json={})
    assert same.status_code == 201, same.text
    again = same.json()
    assert again["id"] != first["id"]
    assert (again["backend"], again["command"], again["config"]) == ("local", command, first["config"])
    wait_job(client, again["id"])
    assert "greeting hello" in read_log(client, again["id"])

    edited = client.post(f"/api/jobs/{first['id']}/rerun", json={
        "command": command.replace("greeting", "hi"), "config": {"env": {"GREETING": "there"}}}).json()
    wait_job(client, edited["id"])
    assert "hi there" in read_log(client, edited["id"])
    listed = [j["id"] for j in client.get(f"/api/projects/{project['id']}/jobs").json()]
    assert sorted(listed) == sorted([first["id"], again["id"], edited["id"]])
    assert client.post("/api/jobs/nosuchjob/rerun", json={}).json()["code"] == "no_job"
