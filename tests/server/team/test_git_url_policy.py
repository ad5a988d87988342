"""One Git URL policy for members: no file:// or server folders, no loopback or private hosts
unless an admin allows them, checked again at fetch/pull/push time and on every redirect."""

import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from wsgiref.simple_server import make_server

import pytest
from dulwich.repo import Repo
from dulwich.server import DictBackend
from dulwich.web import WSGIServerLogger, make_wsgi_chain

from server.core.errors import Forbidden
from server.gitflow.urlpolicy import UNRESTRICTED, UrlPolicy
from server.training.models import JobCreate
from server.training.paidlc.submit import ensure_pushed
from tests.fakes.git_remotes import QuietHandler, bare_repo, git, git_daemon
from tests.server.team.conftest import Team, start_team, team_settings

App = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


@contextmanager
def serve(app: App) -> Iterator[int]:
    """A real HTTP server on 127.0.0.1; yields its port."""
    server = make_server("127.0.0.1", 0, app, handler_class=QuietHandler, server_class=WSGIServerLogger)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@contextmanager
def smart_http(path: Path) -> Iterator[int]:
    """dulwich's smart-HTTP server for one repository at ``/proj.git``."""
    repo = Repo(str(path))
    try:
        with serve(make_wsgi_chain(DictBackend({"/proj.git": repo}))) as port:
            yield port
    finally:
        repo.close()


def redirect_to(base: str) -> App:
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        query = environ.get("QUERY_STRING")
        location = base + environ["PATH_INFO"] + (f"?{query}" if query else "")
        start_response("302 Found", [("Location", location)])
        return [b""]

    return app


def _published(tmp_path: Path) -> Path:
    """A bare repository holding one commit of ``published.txt``."""
    remote = bare_repo(tmp_path / "published.git")
    work = tmp_path / "publisher"
    git("clone", "-q", str(remote), str(work))
    (work / "published.txt").write_text("hello\n")
    git("add", "published.txt", cwd=work)
    git("commit", "-q", "-m", "publish", cwd=work)
    git("push", "-q", "origin", "HEAD:main", cwd=work)
    return remote


def _project(team: Team, who: str, name: str) -> tuple[str, Path]:
    made = team.client.post("/api/projects", json={"name": name, "git": False}, headers=team.auth(who))
    assert made.status_code == 201, made.text
    pid, root = made.json()["id"], Path(made.json()["path"])
    assert team.client.post(f"/api/projects/{pid}/git/init", headers=team.auth(who)).status_code == 201
    return pid, root


def _git(team: Team, who: str, pid: str, op: str, body: dict[str, Any]) -> Any:
    return team.client.post(f"/api/projects/{pid}/git/{op}", json=body, headers=team.auth(who))


def _refused(response: Any, code: str) -> bool:
    return (response.status_code, response.json().get("code")) == (403, code)


@pytest.fixture
def victim(team: Team) -> Path:
    """``owner``'s private project, committed: what a member must not read or write."""
    _, root = _project(team, "owner", "secret")
    (root / "secret.txt").write_text("the owner's secret\n")
    git("add", "secret.txt", cwd=root)
    git("-c", "user.name=O", "-c", "user.email=o@example.com", "commit", "-q", "-m", "secret", cwd=root)
    return root


def test_a_member_cannot_add_a_local_remote_nor_clone_one(team: Team, victim: Path):
    pid, _ = _project(team, "outsider", "thief")
    for url in (victim.as_uri(), str(victim), f"file://{victim}/.git"):
        added = _git(team, "outsider", pid, "remotes", {"name": "steal", "url": url})
        assert _refused(added, "git_url_forbidden"), (url, added.text)
        cloned = team.client.post("/api/projects", json={"name": "c", "git_url": url},
                                  headers=team.auth("outsider"))
        assert _refused(cloned, "git_url_forbidden"), (url, cloned.text)
    assert team.client.get(f"/api/projects/{pid}/git/remotes", headers=team.auth("outsider")).json() == []


def test_a_remote_written_by_hand_is_refused_at_fetch_pull_and_push(team: Team, victim: Path):
    pid, root = _project(team, "outsider", "thief")
    (root / "mine.txt").write_text("mine\n")
    git("add", "mine.txt", cwd=root)
    git("-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "mine", cwd=root)
    git("remote", "add", "steal", victim.as_uri(), cwd=root)
    before = git("for-each-ref", cwd=victim)
    for op in ("fetch", "pull", "push"):
        response = _git(team, "outsider", pid, op, {"remote": "steal", "branch": "main"})
        assert _refused(response, "git_url_forbidden"), (op, response.text)
    stolen = team.client.get(f"/api/projects/{pid}/git/blob", headers=team.auth("outsider"),
                             params={"rev": "steal/main", "path": "secret.txt"})
    assert stolen.status_code == 404
    assert git("for-each-ref", cwd=victim) == before


def test_admins_keep_local_remotes(team: Team, tmp_path: Path):
    remote = _published(tmp_path)
    pid, root = _project(team, "admin", "mirror")
    assert _git(team, "admin", pid, "remotes", {"name": "origin", "url": remote.as_uri()}).status_code == 201
    assert _git(team, "admin", pid, "pull", {"remote": "origin", "branch": "main"}).status_code == 200
    assert (root / "published.txt").read_text() == "hello\n"


def test_loopback_hosts_need_the_admins_allow_list(tmp_path: Path):
    remote = _published(tmp_path)
    with smart_http(remote) as port, git_daemon(tmp_path) as daemon:
        urls = [f"http://127.0.0.1:{port}/proj.git", f"http://localhost:{port}/proj.git",
                f"{daemon}published.git", f"http://[::1]:{port}/proj.git"]
        for team in start_team(team_settings(tmp_path / "closed")):
            pid, _ = _project(team, "outsider", "p")
            for url in urls:
                added = _git(team, "outsider", pid, "remotes", {"name": "r", "url": url})
                assert _refused(added, "git_host_forbidden"), (url, added.text)
            cloned = team.client.post("/api/projects", json={"name": "c", "git_url": urls[0]},
                                      headers=team.auth("outsider"))
            assert _refused(cloned, "git_host_forbidden")
            assert not (tmp_path / "closed" / "projects" / "outsider" / "c").exists()
        for team in start_team(team_settings(tmp_path / "open", git_allowed_hosts=["127.0.0.0/8"])):
            pid, root = _project(team, "outsider", "p")
            assert _git(team, "outsider", pid, "remotes", {"name": "r", "url": urls[0]}).status_code == 201
            assert _git(team, "outsider", pid, "pull", {"remote": "r", "branch": "main"}).status_code == 200
            assert (root / "published.txt").read_text() == "hello\n"


def test_a_redirect_to_a_host_that_is_not_allowed_is_refused(tmp_path: Path):
    remote = _published(tmp_path)
    with smart_http(remote) as port, serve(redirect_to(f"http://127.0.0.1:{port}")) as hop:
        url = f"http://localhost:{hop}/proj.git"
        for team in start_team(team_settings(tmp_path / "name", git_allowed_hosts=["localhost"])):
            pid, root = _project(team, "outsider", "p")
            assert _git(team, "outsider", pid, "remotes", {"name": "r", "url": url}).status_code == 201
            fetched = _git(team, "outsider", pid, "fetch", {"remote": "r"})
            assert _refused(fetched, "git_host_forbidden"), fetched.text
            assert git("for-each-ref", "refs/remotes", cwd=root) == ""
        allowed = ["localhost", "127.0.0.1"]
        for team in start_team(team_settings(tmp_path / "both", git_allowed_hosts=allowed)):
            pid, root = _project(team, "outsider", "p")
            assert _git(team, "outsider", pid, "remotes", {"name": "r", "url": url}).status_code == 201
            assert _git(team, "outsider", pid, "fetch", {"remote": "r"}).json()["updated"] == ["r/main"]


def test_the_push_before_a_cloud_job_follows_the_callers_policy(tmp_path: Path):
    remote = bare_repo(tmp_path / "inside.git")
    work = tmp_path / "work"
    git("init", "-q", "-b", "main", str(work))
    git("remote", "add", "origin", remote.as_uri(), cwd=work)
    (work / "run.sh").write_text("echo hi\n")
    body = JobCreate(backend="pai-dlc", commit_and_push=True, message="run", author="M <m@example.com>")
    member = UrlPolicy(restricted=True)
    with pytest.raises(Forbidden) as refused:
        ensure_pushed(work, body, lambda op: None, member)
    assert refused.value.code == "git_url_forbidden"
    assert git("for-each-ref", cwd=remote) == ""
    assert ensure_pushed(work, body, lambda op: None, UNRESTRICTED).branch == "main"
    assert git("for-each-ref", cwd=remote).strip().endswith("refs/heads/main")
