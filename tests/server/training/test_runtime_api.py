"""A project's interpreter: the server's by default, a setting, or a venv built from
``requirements.txt`` with progress on the tab's socket."""

import sys
from pathlib import Path

from tests.server.training.test_events import WS_BASE
from tests.server.training.test_jobs_api import create_project, read_log, submit, wait_job

PRINT_PREFIX = "python -c \"import sys; print('prefix', sys.prefix)\""


def test_the_interpreter_defaults_to_the_servers_and_can_be_set(client):
    project = create_project(client)
    url = f"/api/projects/{project['id']}/runtime"
    assert client.get(url).json() == {"interpreter": sys.executable, "source": "server"}
    bad = client.put(url, json={"interpreter": "no/such/python"})
    assert (bad.status_code, bad.json()["code"]) == (422, "bad_interpreter")
    assert client.put(url, json={"interpreter": sys.executable}).json()["source"] == "setting"
    job = submit(client, project, command="python -c \"import sys; print(sys.executable)\"")
    wait_job(client, job["id"])
    assert read_log(client, job["id"]).strip() == sys.executable
    assert client.put(url, json={"interpreter": None}).json()["source"] == "server"


def test_a_venv_is_built_from_requirements_with_progress_and_then_used(client):
    project = create_project(client, "pytorch-classifier")
    with client.websocket_connect(f"{WS_BASE}/api/projects/{project['id']}/ws") as socket:
        started = client.post(f"/api/projects/{project['id']}/runtime/venv", json={})
        assert started.status_code == 202, started.text
        progress = []
        while True:
            event = socket.receive_json()
            if event["type"] == "venv.progress":
                progress.append(event["data"])
            if event["type"] == "venv.done":
                break
    assert event["data"]["ok"], progress
    assert {p["step"] for p in progress} == {"create", "install"}
    assert any("torch==2.13.0" in p["line"] for p in progress)  # pip read requirements.txt
    venv = Path(project["path"], ".venv")
    runtime = client.get(f"/api/projects/{project['id']}/runtime").json()
    assert runtime == {"interpreter": str(venv / "bin" / "python"), "source": "venv"}
    job = submit(client, project, command=PRINT_PREFIX)
    assert wait_job(client, job["id"])["status"] == "succeeded"
    assert read_log(client, job["id"]).strip() == f"prefix {venv}"


def test_a_folder_in_the_way_of_the_venv_is_refused(client):
    project = create_project(client)
    Path(project["path"], ".venv").mkdir()
    response = client.post(f"/api/projects/{project['id']}/runtime/venv", json={})
    assert (response.status_code, response.json()["code"]) == (422, "bad_venv")
