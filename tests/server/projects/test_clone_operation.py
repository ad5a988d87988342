"""Cloning as an operation: 202 with the project ``cloning``, progress on the user socket
(``/api/ws``), then the project ready; cancel, a corrupt remote and unsafe paths leave nothing."""

from pathlib import Path
from typing import Any

from tests.fakes.git_remotes import git, git_daemon
from tests.fakes.slow_remote import big_repo, slow_git_daemon, tagged_repo

WS = "ws://127.0.0.1:8765/api/ws"


def events_until(ws: Any, project_id: str, last: str) -> list[dict[str, Any]]:
    """This project's ``projects`` events, up to and including one of type ``last``."""
    seen: list[dict[str, Any]] = []
    while True:
        event = ws.receive_json()
        if event["channel"] == "projects" and event["data"]["project"] == project_id:
            seen.append(event)
            if event["type"] == last:
                return seen


def ids(client) -> set[str]:
    return {p["id"] for p in client.get("/api/projects").json()}


def test_clone_answers_202_streams_progress_and_the_project_opens(client, tmp_path):
    remote = tagged_repo(tmp_path, {f"src/f{n}.py": f"x = {n}\n" for n in range(50)})
    with client.websocket_connect(WS) as ws:
        assert ws.receive_json()["type"] == "hello"
        made = client.post("/api/projects", json={"name": "cloned", "git_url": remote.as_uri()})
        assert made.status_code == 202, made.text
        project = made.json()
        assert project["state"] == "cloning"
        events = events_until(ws, project["id"], "clone_done")
    phases = {e["data"]["phase"] for e in events if e["type"] == "clone_progress"}
    assert {"receiving", "checkout"} <= phases
    done = [e["data"] for e in events if e["data"].get("phase") == "checkout"][-1]
    assert done["done"] == done["total"] == 50
    assert client.get(f"/api/projects/{project['id']}").json()["state"] == "ready"
    folder = Path(project["path"])
    assert git("status", "--porcelain", cwd=folder) == ""
    assert git("tag", cwd=folder).split() == ["v1"]
    status = client.get(f"/api/projects/{project['id']}/git/status").json()
    assert (status["branch"], status["unstaged"], status["untracked"]) == ("main", [], [])


def test_cancel_mid_clone_leaves_no_folder_and_no_row(client, tmp_path):
    base = tmp_path / "srv"
    base.mkdir()
    big_repo(base / "big.git")
    with slow_git_daemon(base, 64 * 1024) as url, client.websocket_connect(WS) as ws:
        ws.receive_json()
        project = client.post("/api/projects", json={"name": "slow", "git_url": url + "big.git"}).json()
        receiving = events_until(ws, project["id"], "clone_progress")[-1]
        while receiving["data"]["phase"] != "receiving":
            receiving = events_until(ws, project["id"], "clone_progress")[-1]
        assert project["id"] in ids(client)
        page = client.get(f"/p/{project['id']}")
        assert page.status_code == 409 and "still being cloned" in page.text
        assert client.delete(f"/api/projects/{project['id']}").status_code == 204
        events = events_until(ws, project["id"], "clone_cancelled")
    assert all(e["type"] == "clone_progress" for e in events[:-1])
    assert not Path(project["path"]).exists()
    assert project["id"] not in ids(client)


def test_a_corrupt_remote_fails_naming_the_missing_object(client, tmp_path):
    remote = tagged_repo(tmp_path, {"a.txt": "a\n", "b.txt": "b\n"}, "loose.git")
    blob = git("rev-parse", "main:b.txt", cwd=remote).strip()
    (remote / "objects" / blob[:2] / blob[2:]).unlink()  # a small push is stored as loose objects
    with git_daemon(tmp_path) as url, client.websocket_connect(WS) as ws:
        ws.receive_json()
        for name, source in (("local", remote.as_uri()), ("served", url + "loose.git")):
            project = client.post("/api/projects", json={"name": name, "git_url": source}).json()
            failed = events_until(ws, project["id"], "clone_failed")[-1]["data"]
            assert (failed["code"], failed["objects"]) == ("remote_corrupt", [blob]), failed
            assert blob in failed["detail"]
            assert not Path(project["path"]).exists() and project["id"] not in ids(client)


def test_unsafe_paths_are_listed_and_nothing_is_written(client, tmp_path):
    remote = tagged_repo(tmp_path, {"ok.txt": "fine\n"})
    src = tmp_path / "p.git.src"
    (src / "escape").symlink_to("../../outside")
    git("add", "escape", cwd=src)
    git("commit", "-q", "-m", "symlink", cwd=src)
    git("push", "-q", str(remote), "main", cwd=src)
    with client.websocket_connect(WS) as ws:
        ws.receive_json()
        project = client.post("/api/projects", json={"name": "hostile", "git_url": remote.as_uri()}).json()
        failed = events_until(ws, project["id"], "clone_failed")[-1]["data"]
    assert (failed["code"], failed["files"]) == ("unsafe_paths", ["escape"])
    assert not Path(project["path"]).exists() and project["id"] not in ids(client)



def test_a_folder_of_this_machine_clones_as_its_file_url(client, tmp_path):
    """In local mode a plain path is a remote of this machine (a member of a team may use
    neither: tests/server/team/test_git_url_policy.py)."""
    remote = tagged_repo(tmp_path, {"README.md": "# here\n"})
    with client.websocket_connect(WS) as ws:
        assert ws.receive_json()["type"] == "hello"
        made = client.post("/api/projects", json={"name": "from-a-path", "git_url": str(remote)})
        assert made.status_code == 202, made.text
        project = made.json()
        events_until(ws, project["id"], "clone_done")
    folder = Path(project["path"])
    assert (folder / "README.md").read_text() == "# here\n"
    assert git("remote", "get-url", "origin", cwd=folder).strip() == remote.as_uri()
    relative = client.post("/api/projects", json={"name": "relative", "git_url": "some/folder"})
    assert relative.status_code == 422 and relative.json()["code"] == "unsupported_url"
    # a remote added as a plain path too
    remotes = f"/api/projects/{project['id']}/git/remotes"
    added = client.post(remotes, json={"name": "mirror", "url": str(remote)})
    assert added.status_code in (200, 201), added.text
    assert git("remote", "get-url", "mirror", cwd=folder).strip() == remote.as_uri()
