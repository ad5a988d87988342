"""Every new project is a Git repository with one initial commit of what it was made with (a
template, an empty start, a zip upload, a market install) unless the request says ``git: false``;
an existing project starts tracking with ``POST git/init {commit: true}``. Checked with the
``git`` command line, on real templates, zips and built-in market packages."""

import io
import json
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.gitflow.start import DEFAULT_IGNORE
from tests.server.training.test_jobs_api import submit, wait_job

APP = json.dumps({"applicationName": "Zipped", "entryFile": "/main.py", "modelName": "m"})


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "safe.directory=*", *args], cwd=root, capture_output=True,
                          text=True, check=True, env={"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root)})
    return done.stdout


def on_disk(root: Path) -> set[str]:
    """Every file under ``root`` but the repository's own and those its ignore rules leave out."""
    files = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    files = {f for f in files if not f.startswith(".git/")}
    ignored = set(git(root, "ls-files", "--others", "--ignored", "--exclude-standard").split("\n")) - {""}
    return files - ignored


def from_template(client: TestClient, name: str, git_on: bool | None) -> dict:
    body = {"name": name, "template": "hello-mnn", **({} if git_on is None else {"git": git_on})}
    response = client.post("/api/projects", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def empty_start(client: TestClient, name: str, git_on: bool | None) -> dict:
    body = {"name": name, **({} if git_on is None else {"git": git_on})}
    response = client.post("/api/projects", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def from_zip(client: TestClient, name: str, git_on: bool | None) -> dict:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("top/app.mnnplayground", APP)
        archive.writestr("top/main.py", "print('hi')\n")
        archive.writestr("top/models/m.mnn", b"\x00model")
    params = {"name": name, **({} if git_on is None else {"git": str(git_on).lower()})}
    response = client.post("/api/projects/zip", params=params, content=buffer.getvalue(),
                           headers={"Content-Type": "application/zip"})
    assert response.status_code == 201, response.text
    return response.json()


def from_market(client: TestClient, name: str, git_on: bool | None) -> dict:
    body = {"new_project": name, **({} if git_on is None else {"git": git_on})}
    response = client.post("/api/market/digits/versions/1.0.0/install", json=body)
    assert response.status_code == 201, response.text
    return client.get(f"/api/projects/{response.json()['project_id']}").json()


MAKERS: dict[str, Callable[[TestClient, str, bool | None], dict]] = {
    "template": from_template, "empty": empty_start, "zip": from_zip, "market": from_market}
# What each way of making a project must have put in its first commit, at least.
EXPECTED = {"template": {"hello_mnn.py", "README.md"}, "empty": {"main.py", "README.md"},
            "zip": {"app.mnnplayground", "main.py", "models/m.mnn"},
            "market": {"market/digits/algorithm.toml", "market/digits/demo.py"}}


@pytest.mark.usefixtures("builtins_ready")
@pytest.mark.parametrize("how", sorted(MAKERS))
def test_a_new_project_is_a_repository_with_one_commit_of_its_files(client: TestClient, how: str) -> None:
    project = MAKERS[how](client, f"tracked {how}", None)
    root = Path(project["path"])
    base = f"/api/projects/{project['id']}/git"
    [first] = client.get(f"{base}/log").json()
    assert (first["summary"], first["parents"]) == ("Initial commit", [])
    committed = set(git(root, "ls-tree", "-r", "--name-only", "HEAD").split("\n")) - {""}
    assert committed == on_disk(root) and committed >= EXPECTED[how] | {".gitignore"}
    assert git(root, "rev-parse", "HEAD").strip() == first["sha"]
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
    status = client.get(f"{base}/status").json()
    assert (status["branch"], status["head"], status["untracked"]) == ("main", first["sha"], [])
    if how == "market":  # the package's model files are committed with it
        assert any(path.endswith(".mnn") for path in committed)


@pytest.mark.usefixtures("builtins_ready")
@pytest.mark.parametrize("how", sorted(MAKERS))
def test_git_false_makes_no_repository(client: TestClient, how: str) -> None:
    project = MAKERS[how](client, f"untracked {how}", False)
    root = Path(project["path"])
    assert not (root / ".git").exists() and not (root / ".gitignore").exists()
    assert {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} >= EXPECTED[how]
    answer = client.get(f"/api/projects/{project['id']}/git/status")
    assert (answer.status_code, answer.json()["code"]) == (404, "not_a_repository")


def test_a_gitignore_the_files_ship_is_kept_and_followed(client: TestClient) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.mnnplayground", APP)
        archive.writestr("main.py", "print('hi')\n")
        archive.writestr(".gitignore", "*.mnn\n")
        archive.writestr("models/m.mnn", b"\x00model")
    response = client.post("/api/projects/zip", params={"name": "own ignore"}, content=buffer.getvalue(),
                           headers={"Content-Type": "application/zip"})
    assert response.status_code == 201, response.text
    root = Path(response.json()["path"])
    assert (root / ".gitignore").read_text() == "*.mnn\n"
    committed = set(git(root, "ls-tree", "-r", "--name-only", "HEAD").split("\n")) - {""}
    assert committed == {".gitignore", "app.mnnplayground", "main.py"}
    assert (root / "models" / "m.mnn").read_bytes() == b"\x00model"


def test_a_job_in_a_new_template_project_has_its_commit_in_the_lineage(client: TestClient) -> None:
    project = client.post("/api/projects", json={"name": "trained", "template": "mnn-native-mlp"}).json()
    [first] = client.get(f"/api/projects/{project['id']}/git/log").json()
    job = wait_job(client, submit(client, project)["id"], timeout=120)
    assert (job["status"], job["commit"]) == ("succeeded", first["sha"])
    pulled = client.post(f"/api/jobs/{job['id']}/artifacts/pull")
    assert pulled.status_code == 200, pulled.text
    graph = client.get(f"/api/projects/{project['id']}/lineage",
                       params={"path": f"artifacts/{job['id']}/model.mnn"}).json()
    [commit] = [n for n in graph["nodes"] if n["kind"] == "commit"]
    assert (commit["data"]["sha"], commit["data"]["message"]) == (first["sha"], "Initial commit")
    # what the job wrote stays out of the repository (the template's .gitignore)
    status = client.get(f"/api/projects/{project['id']}/git/status").json()
    assert status["untracked"] == [] and status["unstaged"] == []


def test_start_tracking_commits_what_is_there_and_ignores_outputs(client: TestClient, project: dict) -> None:
    root = Path(project["path"])
    (root / "outputs").mkdir()
    (root / "outputs" / "big.bin").write_bytes(b"\x00" * 4096)
    (root / "data.csv").write_text("a,b\n1,2\n")
    base = f"/api/projects/{project['id']}/git"
    assert client.get(f"{base}/status").json()["code"] == "not_a_repository"
    started = client.post(f"{base}/init", json={"commit": True, "author": "Ada <ada@example.com>"})
    assert started.status_code == 201, started.text
    assert started.json()["untracked"] == [] and started.json()["head"]
    assert (root / ".gitignore").read_text() == DEFAULT_IGNORE
    committed = set(git(root, "ls-tree", "-r", "--name-only", "HEAD").split("\n")) - {""}
    assert committed == {".gitignore", "README.md", "main.py", "data.csv"}
    assert git(root, "log", "--format=%an <%ae>|%s").strip() == "Ada <ada@example.com>|Initial commit"
    again = client.post(f"{base}/init", json={"commit": True})
    assert again.json()["code"] == "already_a_repository"


def test_start_tracking_without_an_identity_asks_for_one_and_leaves_the_folder_as_it_was(
    client: TestClient, project: dict, monkeypatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no global git config
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    root = Path(project["path"])
    base = f"/api/projects/{project['id']}/git"
    refused = client.post(f"{base}/init", json={"commit": True})
    assert (refused.status_code, refused.json()["code"]) == (422, "no_identity")
    assert not (root / ".git").exists() and not (root / ".gitignore").exists()
    assert client.put("/api/git/identity", json={"name": "Bo", "email": "bo@example.com"}).status_code == 200
    assert client.post(f"{base}/init", json={"commit": True}).status_code == 201
    assert git(root, "log", "--format=%an <%ae>").strip() == "Bo <bo@example.com>"


def test_a_new_project_without_any_identity_is_authored_by_the_account(
    client: TestClient, monkeypatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    project = client.post("/api/projects", json={"name": "nobody"}).json()
    [first] = client.get(f"/api/projects/{project['id']}/git/log").json()
    assert first["author"] == project["owner"] and first["author_email"].startswith(f"{project['owner']}@")
