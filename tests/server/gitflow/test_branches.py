"""Branches: ahead/behind, checkout that never overwrites local work, safe deletion."""

from pathlib import Path

import pytest

from server.core.errors import Conflict, Invalid, NotFound
from server.gitflow import service
from tests.fakes.git_remotes import git
from tests.server.gitflow.conftest import write


def commit_file(root: Path, path: str, text: str, message: str) -> str:
    write(root, path, text)
    service.stage(root, [path])
    return service.commit(root, message).sha


def test_create_checkout_and_git_agrees(work: Path) -> None:
    service.create_branch(work, "feature")
    service.checkout(work, "feature")
    sha = commit_file(work, "f.txt", "f\n", "on feature")
    assert git("rev-parse", "--abbrev-ref", "HEAD", cwd=work).strip() == "feature"
    assert git("rev-parse", "feature", cwd=work).strip() == sha
    service.checkout(work, "main")
    assert not (work / "f.txt").exists()
    assert git("status", "--porcelain", cwd=work) == ""


def test_branch_made_by_git_is_listed_with_ahead_behind(work: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git("init", "--bare", "-q", "-b", "main", str(remote))
    git("remote", "add", "origin", str(remote), cwd=work)
    git("push", "-q", "-u", "origin", "main", cwd=work)
    commit_file(work, "x.txt", "x\n", "local only")
    git("branch", "from-git", cwd=work)
    branches = {b.name: b for b in service.branches(work)}
    assert set(branches) == {"main", "from-git"}
    main = branches["main"]
    assert (main.current, main.upstream, main.ahead, main.behind) == (True, "origin/main", 1, 0)


def test_checkout_refuses_to_overwrite_local_changes(work: Path) -> None:
    service.create_branch(work, "other")
    service.checkout(work, "other")
    commit_file(work, "a.txt", "other version\n", "change a on other")
    service.checkout(work, "main")
    write(work, "a.txt", "my unsaved work\n")
    write(work, "unrelated.txt", "keep me\n")
    with pytest.raises(Conflict) as caught:
        service.checkout(work, "other")
    assert caught.value.extra["files"] == ["a.txt"]
    assert (work / "a.txt").read_text() == "my unsaved work\n"
    assert git("rev-parse", "--abbrev-ref", "HEAD", cwd=work).strip() == "main"


def test_checkout_carries_unrelated_changes(work: Path) -> None:
    service.create_branch(work, "other")
    write(work, "src/b.py", "edited\n")
    service.checkout(work, "other")
    assert (work / "src/b.py").read_text() == "edited\n"
    assert [c.path for c in service.status(work).unstaged] == ["src/b.py"]


def test_deleting_the_current_branch_is_refused(work: Path) -> None:
    with pytest.raises(Conflict) as caught:
        service.delete_branch(work, "main")
    assert caught.value.code == "current_branch"
    assert "main" in git("branch", cwd=work)


def test_unmerged_branch_needs_force(work: Path) -> None:
    service.create_branch(work, "topic")
    service.checkout(work, "topic")
    commit_file(work, "t.txt", "t\n", "topic work")
    service.checkout(work, "main")
    with pytest.raises(Conflict) as caught:
        service.delete_branch(work, "topic")
    assert caught.value.code == "unmerged_branch"
    service.delete_branch(work, "topic", force=True)
    assert "topic" not in git("branch", cwd=work)


def test_merged_branch_deletes_and_bad_names_are_refused(work: Path) -> None:
    service.create_branch(work, "done")
    service.delete_branch(work, "done")
    for bad in ("a..b", "-x", "with space", "end."):
        with pytest.raises(Invalid):
            service.create_branch(work, bad)
    with pytest.raises(NotFound):
        service.checkout(work, "missing")
    with pytest.raises(Conflict):
        service.create_branch(work, "main")


def test_checkout_a_remote_branch_into_a_fresh_repository(work: Path, tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    service.init(fresh)
    service.add_remote(fresh, "origin", work.as_uri())
    service.fetch(fresh)
    status = service.checkout(fresh, "main")
    assert (status.branch, status.staged, status.unstaged) == ("main", [], [])
    assert (fresh / "src/b.py").read_text() == "print('b')\n"
    assert [b.upstream for b in service.branches(fresh)] == ["origin/main"]
