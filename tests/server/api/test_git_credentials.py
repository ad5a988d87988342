"""Remembered remote credentials: kept only when asked and the call succeeded, sealed at rest,
listed by username only, used when a call brings none, forgotten on request."""

from pathlib import Path

from tests.fakes.git_remotes import bare_repo, dulwich_http, git

USER, PASSWORD = "alice", "pw-7c1e5b0d-sealed"


def _no_plain_password(*folders: Path) -> None:
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file():
                assert PASSWORD.encode() not in path.read_bytes(), path


def test_remember_use_list_and_forget(client, project, tmp_path, monkeypatch, settings):
    monkeypatch.setenv("HOME", str(tmp_path))
    root, base = Path(project["path"]), f"/api/projects/{project['id']}/git"
    client.post(f"{base}/init")
    git("config", "user.name", "Ada", cwd=root)
    git("config", "user.email", "ada@example.com", cwd=root)
    (root / "a.txt").write_text("alpha\n")
    client.post(f"{base}/stage", json={"paths": ["a.txt"]})
    client.post(f"{base}/commit", json={"message": "first"})
    remote = bare_repo(tmp_path / "remote.git")
    with dulwich_http({"proj.git": remote}, USER, PASSWORD) as (url, _auth):
        client.post(f"{base}/remotes", json={"name": "origin", "url": url + "proj.git"})
        refused = client.post(f"{base}/push", json={})
        assert (refused.status_code, refused.json()["code"]) == (403, "auth_failed")
        wrong = client.post(f"{base}/push", json={"username": USER, "password": "nope", "remember": True})
        assert wrong.status_code == 403
        assert client.get(f"{base}/credentials").json() == []
        once = client.post(f"{base}/fetch", json={"username": USER, "password": PASSWORD})
        assert once.status_code == 200, once.text
        assert client.get(f"{base}/credentials").json() == []
        kept = client.post(f"{base}/push", json={"username": USER, "password": PASSWORD, "remember": True})
        assert kept.status_code == 200, kept.text
        assert PASSWORD not in kept.text
        listed = client.get(f"{base}/credentials")
        assert listed.json() == [{"remote": "origin", "username": USER}]
        assert PASSWORD not in listed.text
        (root / "a.txt").write_text("beta\n")
        client.post(f"{base}/stage", json={"paths": ["a.txt"]})
        client.post(f"{base}/commit", json={"message": "second"})
        later = client.post(f"{base}/push", json={})
        assert later.status_code == 200, later.text
        assert git("rev-parse", "main", cwd=remote).strip() == later.json()["commit"]
        _no_plain_password(settings.data_dir, root)
        assert client.delete(f"{base}/credentials/origin").status_code == 204
        assert client.get(f"{base}/credentials").json() == []
        assert client.post(f"{base}/fetch", json={}).json()["code"] == "auth_failed"
    gone = client.delete(f"{base}/credentials/origin")
    assert (gone.status_code, gone.json()["code"]) == (404, "credentials_not_found")


def test_removing_a_remote_forgets_its_credentials(client, project, tmp_path):
    base = f"/api/projects/{project['id']}/git"
    client.post(f"{base}/init")
    remote = bare_repo(tmp_path / "remote.git")
    with dulwich_http({"proj.git": remote}, USER, PASSWORD) as (url, _auth):
        client.post(f"{base}/remotes", json={"name": "origin", "url": url + "proj.git"})
        made = client.post(f"{base}/fetch", json={"username": USER, "password": PASSWORD, "remember": True})
        assert made.status_code == 200, made.text
    assert [c["remote"] for c in client.get(f"{base}/credentials").json()] == ["origin"]
    assert client.delete(f"{base}/remotes/origin").status_code == 204
    assert client.get(f"{base}/credentials").json() == []


def test_remembered_credentials_stay_with_their_url(client, project, tmp_path):
    root, base = Path(project["path"]), f"/api/projects/{project['id']}/git"
    client.post(f"{base}/init")
    remote = bare_repo(tmp_path / "remote.git")
    with dulwich_http({"proj.git": remote}, USER, PASSWORD) as (url, _auth):
        client.post(f"{base}/remotes", json={"name": "origin", "url": url + "proj.git"})
        made = client.post(f"{base}/fetch", json={"username": USER, "password": PASSWORD, "remember": True})
        assert made.status_code == 200, made.text
    other = bare_repo(tmp_path / "other.git")
    with dulwich_http({"other.git": other}, USER, PASSWORD) as (other_url, other_auth):
        # The remote now names another server (changed outside the panel, e.g. in a terminal).
        git("remote", "set-url", "origin", other_url + "other.git", cwd=root)
        refused = client.post(f"{base}/fetch", json={})
        assert (refused.status_code, refused.json()["code"]) == (403, "auth_failed")
        assert not any(seen.startswith("Basic ") for seen in other_auth.seen_authorization)
