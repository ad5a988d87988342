"""Projects: create from templates or folders, list, rename, remove; bad input gets clear 4xx."""

import subprocess
import sys
from pathlib import Path

import pytest

import server.projects as projects_package
from server.api.services import services_of
from server.training.artifacts import ARTIFACTS_DIR


def test_templates_include_empty_and_hello_mnn(client):
    names = [t["name"] for t in client.get("/api/templates").json()]
    assert names[:2] == ["empty", "hello-mnn"]


def test_create_from_template_renders_files(client, settings):
    response = client.post("/api/projects", json={"name": "My App", "template": "empty"})
    assert response.status_code == 201
    project = response.json()
    assert project["owner"] == "local" and project["template"] == "empty"
    readme = (settings.projects_dir / "My App" / "README.md").read_text()
    assert readme.startswith("# My App")


def test_hello_mnn_template_runs(client, settings):
    project = client.post("/api/projects", json={"name": "hello", "template": "hello-mnn"}).json()
    result = subprocess.run(
        [sys.executable, "hello_mnn.py"], cwd=project["path"], capture_output=True, text=True,
        timeout=60, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "MNNWB_METRIC" in result.stdout
    assert (settings.projects_dir / "hello" / "outputs" / "hello.mnn").stat().st_size > 0


def test_open_existing_folder(client, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "a.py").write_text("x = 1\n")
    project = client.post("/api/projects", json={"name": "mine", "path": str(folder)}).json()
    listing = client.get(f"/api/projects/{project['id']}/files").json()
    assert [e["name"] for e in listing] == ["a.py"]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"name": ""}, 422, "bad_name"),
        ({"name": "../etc"}, 422, "bad_name"),
        ({"name": "a/b"}, 422, "bad_name"),
        ({"name": "x" * 65}, 422, "bad_name"),
        ({"name": "ok", "template": "nope"}, 422, "unknown_template"),
        ({"name": "ok", "path": "relative/dir"}, 422, "bad_path"),
        ({"name": "ok", "path": "/no/such/folder/anywhere"}, 422, "bad_path"),
        ({"name": "ok", "path": "/tmp", "template": "empty"}, 422, "bad_source"),
    ],
)
def test_bad_input_gets_clear_errors(client, body, status, code):
    response = client.post("/api/projects", json=body)
    assert response.status_code == status
    assert response.json()["code"] == code
    assert client.get("/api/projects").json() == []


def test_duplicates_are_refused(client, project, tmp_path):
    again = client.post("/api/projects", json={"name": "demo"})
    assert again.status_code == 409
    same_folder = client.post("/api/projects", json={"name": "other", "path": project["path"]})
    assert same_folder.status_code == 409


def test_rename_and_remove_keeping_files(client, project):
    pid = project["id"]
    renamed = client.patch(f"/api/projects/{pid}", json={"name": "renamed"}).json()
    assert renamed["name"] == "renamed" and renamed["path"] == project["path"]
    assert client.delete(f"/api/projects/{pid}").status_code == 204
    assert client.get(f"/api/projects/{pid}").status_code == 404
    from pathlib import Path

    assert Path(project["path"], "README.md").exists()


def test_remove_with_files(client, project):
    from pathlib import Path

    assert client.delete(f"/api/projects/{project['id']}?delete_files=true").status_code == 204
    assert not Path(project["path"]).exists()


def test_files_of_an_opened_folder_are_never_deleted(client, tmp_path):
    folder = tmp_path / "keep"
    folder.mkdir()
    project = client.post("/api/projects", json={"name": "keep", "path": str(folder)}).json()
    response = client.delete(f"/api/projects/{project['id']}?delete_files=true")
    assert response.status_code == 422
    assert folder.exists() and client.get(f"/api/projects/{project['id']}").status_code == 200


def test_ui_state_round_trip_and_cap(client, project):
    url = f"/api/projects/{project['id']}/ui-state"
    assert client.get(url).json() == {"state": {}}
    assert client.put(url, json={"state": {"layout": {"a": 1}}}).status_code == 200
    assert client.get(url).json() == {"state": {"layout": {"a": 1}}}
    assert client.put(url, json={"state": {"x": "y" * 300_000}}).status_code == 422
    assert client.get(url).json() == {"state": {"layout": {"a": 1}}}


def test_projects_survive_a_restart(settings, client, project):
    from fastapi.testclient import TestClient

    from server.app import create_app

    app = create_app(settings)
    with TestClient(app, base_url="http://127.0.0.1") as again:
        listed = again.get("/api/projects", headers={"Authorization": f"Bearer {services_of(app).token}"})
    assert [p["id"] for p in listed.json()] == [project["id"]]


def test_templates_that_train_keep_pulled_artifacts_out_of_git():
    ignores = list((Path(projects_package.__file__).parent / "templates").glob("*/files/.gitignore"))
    assert ignores
    for ignore in ignores:
        assert f"{ARTIFACTS_DIR}/" in ignore.read_text().splitlines(), ignore


def test_a_folder_with_a_playground_app_file_is_a_playground_project(client, project: dict) -> None:
    url = f"/api/projects/{project['id']}"
    assert client.get(url).json()["kind"] == "project"
    assert client.get(url).json()["playground"] is None
    app_file = Path(project["path"]) / "app.mnnplayground"
    app_file.write_text('{"applicationName":"Playground","entryFile":"/main.py",'
                        '"modelName":"CreateNewPlayground"}')
    found = client.get(url).json()
    assert found["kind"] == "playground"
    assert found["playground"] == {"application_name": "Playground", "entry_file": "main.py",
                                   "model_name": "CreateNewPlayground"}
    listed = next(p for p in client.get("/api/projects").json() if p["id"] == project["id"])
    assert listed["kind"] == "playground"
    app_file.write_text("{not json")
    broken = client.get(url).json()
    assert broken["kind"] == "playground"
    assert broken["playground"]["error"].startswith("app.mnnplayground is not JSON")
