"""The Git routes: shapes of docs/git.md, 4xx errors with codes, ``git`` events on the socket."""

from pathlib import Path

import pytest

from tests.fakes.git_remotes import bare_repo, git
from tests.waiting import wait_until


@pytest.fixture
def repo_project(client, project, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    root = Path(project["path"])
    base = f"/api/projects/{project['id']}/git"
    assert client.get(f"{base}/status").json()["code"] == "not_a_repository"
    assert client.post(f"{base}/init").status_code == 201
    git("config", "user.name", "Ada", cwd=root)
    git("config", "user.email", "ada@example.com", cwd=root)
    (root / "a.txt").write_text("alpha\n")
    return root, base


def test_edit_stage_commit_log_show(client, repo_project):
    root, base = repo_project
    status = client.get(f"{base}/status").json()
    assert status["branch"] == "main"
    assert {"path": "a.txt", "kind": "added", "old_path": None} in status["untracked"]
    assert client.post(f"{base}/stage", json={"paths": ["a.txt"]}).json()["staged"][0]["path"] == ("a.txt")
    made = client.post(f"{base}/commit", json={"message": "first"})
    assert made.status_code == 201, made.text
    sha = made.json()["sha"]
    empty = client.post(f"{base}/commit", json={"message": "again"})
    assert (empty.status_code, empty.json()["code"]) == (422, "nothing_to_commit")
    (root / "a.txt").write_text("alpha\nbeta\n")
    diff = client.get(f"{base}/diff", params={"path": "a.txt"}).json()
    assert (diff["old"], diff["new"], diff["binary"]) == ("alpha\n", "alpha\nbeta\n", False)
    log = client.get(f"{base}/log").json()
    assert [(c["sha"], c["parents"], c["summary"]) for c in log] == [(sha, [], "first")]
    shown = client.get(f"{base}/commits/{sha}").json()
    assert shown["files"] == [{"path": "a.txt", "kind": "added", "old_path": None}]
    assert client.get(f"{base}/commits/{sha}/diff", params={"path": "a.txt"}).json()["new"] == ("alpha\n")
    discarded = client.post(f"{base}/discard", json={"paths": ["a.txt"]}).json()
    assert discarded["unstaged"] == [] and (root / "a.txt").read_text() == "alpha\n"


def test_branches_checkout_conflict_and_delete(client, repo_project):
    root, base = repo_project
    client.post(f"{base}/stage", json={"paths": ["a.txt"]})
    client.post(f"{base}/commit", json={"message": "first"})
    assert client.post(f"{base}/branches", json={"name": "feature/x"}).status_code == 201
    assert client.post(f"{base}/checkout", json={"branch": "feature/x"}).json()["branch"] == ("feature/x")
    (root / "a.txt").write_text("on feature\n")
    client.post(f"{base}/stage", json={"paths": ["a.txt"]})
    client.post(f"{base}/commit", json={"message": "feature work"})
    client.post(f"{base}/checkout", json={"branch": "main"})
    (root / "a.txt").write_text("unsaved\n")
    refused = client.post(f"{base}/checkout", json={"branch": "feature/x"})
    assert refused.status_code == 409 and refused.json()["files"] == ["a.txt"]
    current = client.delete(f"{base}/branches/main")
    assert (current.status_code, current.json()["code"]) == (409, "current_branch")
    unmerged = client.delete(f"{base}/branches/feature/x")
    assert unmerged.json()["code"] == "unmerged_branch"
    assert client.delete(f"{base}/branches/feature/x", params={"force": True}).status_code == 204
    assert [b["name"] for b in client.get(f"{base}/branches").json()] == ["main"]


def test_stash_round_trip_and_errors(client, repo_project):
    root, base = repo_project
    client.post(f"{base}/stage", json={"paths": ["a.txt"]})
    client.post(f"{base}/commit", json={"message": "first"})
    nothing = client.post(f"{base}/stashes", json={"message": "empty"})
    assert (nothing.status_code, nothing.json()["code"]) == (422, "nothing_to_stash")
    (root / "a.txt").write_text("stashed\n")
    made = client.post(f"{base}/stashes", json={"message": "wip"})
    assert made.status_code == 201 and made.json()["message"] == "On main: wip"
    assert [s["message"] for s in client.get(f"{base}/stashes").json()] == ["On main: wip"]
    (root / "a.txt").write_text("edited meanwhile\n")
    assert client.post(f"{base}/stashes/0/pop").status_code == 409
    client.post(f"{base}/discard", json={"paths": ["a.txt"]})
    popped = client.post(f"{base}/stashes/0/pop").json()
    assert popped == {"index": 0, "dropped": True, "files": ["a.txt"]}
    assert client.delete(f"{base}/stashes/0").status_code == 404


def test_remotes_push_pull_events_and_no_secrets(client, project, repo_project, tmp_path):
    root, base = repo_project
    client.post(f"{base}/stage", json={"paths": ["a.txt"]})
    client.post(f"{base}/commit", json={"message": "first"})
    origin = bare_repo(tmp_path / "origin.git")
    added = client.post(f"{base}/remotes", json={"name": "origin", "url": origin.as_uri()})
    assert added.status_code == 201
    with client.websocket_connect(f"ws://127.0.0.1:8765/api/projects/{project['id']}/ws") as ws:
        assert ws.receive_json()["type"] == "hello"
        pushed = client.post(f"{base}/push", json={"remote": "origin", "password": "hunter2"})
        assert pushed.status_code == 200, pushed.text
        events = [ws.receive_json()]
        while (events[-1]["channel"], events[-1]["type"]) != ("git", "changed") and len(events) < 50:
            events.append(ws.receive_json())
        assert events[-1]["data"]["op"] == "push"
    assert git("rev-parse", "main", cwd=origin).strip() == pushed.json()["commit"]
    assert "hunter2" not in (root / ".git/config").read_text()
    pulled = client.post(f"{base}/pull", json={"remote": "origin"}).json()
    assert pulled["outcome"] == "up_to_date"
    bad = client.post(f"{base}/remotes", json={"name": "x", "url": "ext::sh -c touch% /tmp/pwn"})
    assert (bad.status_code, bad.json()["code"]) == (422, "unsupported_url")
    assert client.delete(f"{base}/remotes/origin").status_code == 204
    assert client.get(f"{base}/remotes").json() == []


def test_create_a_project_by_cloning(client, repo_project, tmp_path):
    root, base = repo_project
    client.post(f"{base}/stage", json={"paths": ["a.txt"]})
    client.post(f"{base}/commit", json={"message": "first"})
    origin = bare_repo(tmp_path / "served.git")
    git("push", "-q", str(origin), "main", cwd=root)
    made = client.post("/api/projects", json={"name": "cloned", "git_url": origin.as_uri()})
    assert made.status_code == 202, made.text
    cloned = made.json()
    ready = lambda: client.get(f"/api/projects/{cloned['id']}").json()["state"] == "ready"  # noqa: E731
    wait_until(ready, what="the clone to finish")
    assert (Path(cloned["path"]) / "a.txt").read_text() == "alpha\n"
    status = client.get(f"/api/projects/{cloned['id']}/git/status").json()
    assert (status["branch"], status["unstaged"], status["untracked"]) == ("main", [], [])


def test_tags_are_listed_and_checked_out_detached(client, repo_project):
    root, base = repo_project
    client.post(f"{base}/stage", json={"paths": ["a.txt"]})
    first = client.post(f"{base}/commit", json={"message": "first"}).json()["sha"]
    git("tag", "-a", "v1", "-m", "one", cwd=root)
    git("tag", "light", cwd=root)
    listed = client.get(f"{base}/tags").json()
    assert [(t["name"], t["commit"], t["annotated"], t["message"]) for t in listed] == [
        ("light", first, False, ""),
        ("v1", first, True, "one"),
    ]
    assert client.get(f"{base}/log", params={"ref": "v1"}).json()[0]["sha"] == first
    detached = client.post(f"{base}/checkout", json={"branch": "v1"}).json()
    assert (detached["branch"], detached["head"]) == (None, first)
    missing = client.post(f"{base}/checkout", json={"branch": "nope"})
    assert (missing.status_code, missing.json()["code"]) == (404, "branch_not_found")


def test_stored_identity_signs_commits_when_the_repository_names_none(client, repo_project):
    root, base = repo_project
    git("config", "--unset", "user.name", cwd=root)
    git("config", "--unset", "user.email", cwd=root)
    assert client.get("/api/git/identity").json() == {"name": None, "email": None}
    client.post(f"{base}/stage", json={"paths": ["a.txt"]})
    refused = client.post(f"{base}/commit", json={"message": "first"})
    assert (refused.status_code, refused.json()["code"]) == (422, "no_identity")
    bad = client.put("/api/git/identity", json={"name": "Eve <x>", "email": "e@example.com"})
    assert bad.status_code == 422
    saved = client.put("/api/git/identity", json={"name": "Grace Hopper", "email": "grace@example.com"})
    assert saved.json() == {"name": "Grace Hopper", "email": "grace@example.com"}
    made = client.post(f"{base}/commit", json={"message": "first"}).json()
    assert (made["author"], made["author_email"]) == ("Grace Hopper", "grace@example.com")
    assert git("log", "-1", "--format=%an <%ae>|%cn <%ce>", cwd=root).strip() == (
        "Grace Hopper <grace@example.com>|Grace Hopper <grace@example.com>"
    )
    git("config", "user.name", "Repo Owner", cwd=root)
    git("config", "user.email", "owner@example.com", cwd=root)
    (root / "a.txt").write_text("changed\n")
    client.post(f"{base}/stage", json={"paths": ["a.txt"]})
    assert client.post(f"{base}/commit", json={"message": "second"}).json()["author"] == "Repo Owner"
