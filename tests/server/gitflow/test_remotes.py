"""Fetch, pull, push and clone against real servers on loopback."""

import socket
import threading
import time
from pathlib import Path

import pytest

from server.core.errors import Conflict, Forbidden, Invalid, NotFound, Unavailable
from server.gitflow import service
from tests.fakes.git_remotes import bare_repo, dulwich_http, git, git_daemon
from tests.server.gitflow.conftest import write

USER, PASSWORD = "alice", "s3cret-pw"


def commit_file(root: Path, path: str, text: str, message: str) -> str:
    write(root, path, text)
    service.stage(root, [path])
    return service.commit(root, message).sha


def other_clone(url: str, dest: Path) -> Path:
    git("clone", "-q", url, str(dest))
    git("config", "user.name", "Bob", cwd=dest)
    git("config", "user.email", "bob@example.com", cwd=dest)
    return dest


@pytest.fixture
def origin(tmp_path: Path, work: Path) -> Path:
    remote = bare_repo(tmp_path / "origin.git")
    service.add_remote(work, "origin", remote.as_uri())
    service.push(work, "origin", "main")
    return remote


def test_push_fetch_and_fast_forward_pull_over_file(work: Path, origin: Path, tmp_path: Path) -> None:
    assert git("rev-parse", "main", cwd=origin).strip() == git("rev-parse", "HEAD", cwd=work).strip()
    bob = other_clone(origin.as_uri(), tmp_path / "bob")
    write(bob, "bob.txt", "from bob\n")
    git("add", "bob.txt", cwd=bob)
    git("commit", "-q", "-m", "bob", cwd=bob)
    git("push", "-q", "origin", "main", cwd=bob)
    fetched = service.fetch(work)
    assert fetched.updated == ["origin/main"]
    assert service.branches(work)[0].behind == 1
    pulled = service.pull(work, "origin", "main")
    assert pulled.outcome == "fast_forward"
    assert (work / "bob.txt").read_text() == "from bob\n"


def test_pull_merges_and_reports_conflicts(work: Path, origin: Path, tmp_path: Path) -> None:
    bob = other_clone(origin.as_uri(), tmp_path / "bob")
    write(bob, "a.txt", "bob's alpha\n")
    write(bob, "bob.txt", "b\n")
    git("commit", "-q", "-am", "bob edits a", cwd=bob)
    git("add", "bob.txt", cwd=bob)
    git("commit", "-q", "-m", "bob adds a file", cwd=bob)
    git("push", "-q", "origin", "main", cwd=bob)
    commit_file(work, "a.txt", "our alpha\n", "we edit a")
    result = service.pull(work)
    assert (result.outcome, result.conflicts) == ("conflicts", ["a.txt"])
    st = service.status(work)
    assert [c.path for c in st.conflicted] == ["a.txt"]
    assert "<<<<<<<" in (work / "a.txt").read_text()
    assert "UU a.txt" in git("status", "--porcelain", cwd=work)
    with pytest.raises(Invalid):
        service.commit(work, "too early")
    write(work, "a.txt", "resolved\n")
    service.stage(work, ["a.txt"])
    merge = service.commit(work, "merge bob")
    assert len(merge.parents) == 2
    assert (work / "bob.txt").exists()


def test_clean_merge_makes_a_merge_commit(work: Path, origin: Path, tmp_path: Path) -> None:
    bob = other_clone(origin.as_uri(), tmp_path / "bob")
    write(bob, "bob.txt", "b\n")
    git("add", "bob.txt", cwd=bob)
    git("commit", "-q", "-m", "bob", cwd=bob)
    git("push", "-q", "origin", "main", cwd=bob)
    commit_file(work, "ours.txt", "o\n", "ours")
    result = service.pull(work)
    assert result.outcome == "merged"
    assert git("log", "-1", "--format=%P", cwd=work).split().__len__() == 2
    service.push(work)
    assert git("rev-parse", "main", cwd=origin).strip() == result.commit


def test_non_fast_forward_push_is_refused_and_tracking_ref_kept(
    work: Path, origin: Path, tmp_path: Path
) -> None:
    bob = other_clone(origin.as_uri(), tmp_path / "bob")
    write(bob, "bob.txt", "b\n")
    git("add", "bob.txt", cwd=bob)
    git("commit", "-q", "-m", "bob", cwd=bob)
    git("push", "-q", "origin", "main", cwd=bob)
    tracking = git("rev-parse", "origin/main", cwd=work).strip()
    commit_file(work, "ours.txt", "o\n", "ours")
    with pytest.raises(Conflict) as caught:
        service.push(work)
    assert caught.value.code == "push_rejected"
    assert git("rev-parse", "origin/main", cwd=work).strip() == tracking


def test_push_rejected_by_a_server_hook_over_git_daemon(work: Path, tmp_path: Path) -> None:
    """dulwich raises nothing when a hook rejects a push (docs/git.md); we report the reason."""
    base = tmp_path / "srv"
    base.mkdir()
    remote = bare_repo(base / "proj.git")
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'protected: reviews required' >&2\nexit 1\n")
    hook.chmod(0o755)
    with git_daemon(base) as url:
        service.add_remote(work, "origin", url + "proj.git")
        with pytest.raises(Conflict) as caught:
            service.push(work, timeout=10)
        assert "protected: reviews required" in caught.value.detail
        assert "refs/remotes/origin/main" not in git("for-each-ref", cwd=work)
        hook.unlink()
        service.push(work, timeout=10)
        assert (
            git("rev-parse", "origin/main", cwd=work).strip() == git("rev-parse", "main", cwd=remote).strip()
        )
        assert service.fetch(work, timeout=10).updated == []


def test_http_basic_auth_credentials_are_never_stored(work: Path, tmp_path: Path) -> None:
    remote = bare_repo(tmp_path / "served.git")
    with dulwich_http({"proj.git": remote}, USER, PASSWORD) as (url, auth):
        service.add_remote(work, "origin", url.replace("http://", f"http://{USER}:{PASSWORD}@") + "proj.git")
        with pytest.raises(Forbidden):
            service.push(work, username=USER, password="wrong", timeout=10)
        service.push(work, username=USER, password=PASSWORD, timeout=10)
        assert git("rev-parse", "main", cwd=remote).strip() == git("rev-parse", "HEAD", cwd=work).strip()
        dest = tmp_path / "cloned"
        branch = service.clone(url + "proj.git", dest, USER, PASSWORD, timeout=10)
        assert branch == "main" and (dest / "src/b.py").read_text() == "print('b')\n"
        assert any(a.startswith("Basic ") for a in auth.seen_authorization)
        service.add_remote(work, "nowhere", url + "missing.git")
        with pytest.raises(NotFound):
            service.fetch(work, "nowhere", username=USER, password=PASSWORD, timeout=10)
    for config in (work / ".git/config", dest / ".git/config"):
        text = config.read_text()
        assert PASSWORD not in text and USER + ":" not in text
    assert all(PASSWORD not in r.url for r in service.remotes(work))


def test_errors_and_urls_are_redacted(work: Path) -> None:
    with pytest.raises(Invalid) as caught:
        service.add_remote(work, "evil", f"ssh://{USER}:{PASSWORD}@host/x")
    assert PASSWORD not in caught.value.detail
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()
    service.add_remote(work, "down", f"http://127.0.0.1:{port}/x.git")
    with pytest.raises(Unavailable) as down:
        service.fetch(work, "down", username=USER, password=PASSWORD, timeout=5)
    assert PASSWORD not in down.value.detail


def test_a_silent_server_times_out(work: Path) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    thread = threading.Thread(target=lambda: accepted.append(listener.accept()[0]), daemon=True)
    thread.start()
    service.add_remote(work, "silent", f"git://127.0.0.1:{listener.getsockname()[1]}/x.git")
    start = time.monotonic()
    with pytest.raises(Unavailable) as caught:
        service.fetch(work, "silent", timeout=1)
    assert caught.value.code == "timeout" and time.monotonic() - start < 10
    listener.close()
    for sock in accepted:
        sock.close()


def test_clone_over_git_daemon_and_progress(tmp_path: Path, work: Path) -> None:
    base = tmp_path / "srv"
    base.mkdir()
    remote = bare_repo(base / "p.git")
    git("push", "-q", str(remote), "main", cwd=work)
    messages: list[str] = []
    with git_daemon(base) as url:
        branch = service.clone(url + "p.git", tmp_path / "c", timeout=10, progress=messages.append)
    assert branch == "main"
    assert git("status", "--porcelain", cwd=tmp_path / "c") == ""
    assert git("rev-parse", "HEAD", cwd=tmp_path / "c").strip() == git("rev-parse", "HEAD", cwd=work).strip()
    assert messages
