"""Tags made, deleted and pushed: lightweight or annotated as ``git tag`` makes them, never
moved once they exist, here or on the remote (served by ``git daemon``)."""

from pathlib import Path

import pytest

from server.core.errors import Conflict, Invalid, NotFound
from server.gitflow import service
from tests.fakes.git_remotes import bare_repo, git_daemon
from tests.fakes.git_remotes import git as run_git
from tests.server.gitflow.conftest import AUTHOR, write


def git(*args: str, cwd: Path | None = None) -> str:
    """git's output without its last newline."""
    return run_git(*args, cwd=cwd).rstrip("\n")


def test_lightweight_and_annotated_tags_then_delete(work: Path) -> None:
    head = git("rev-parse", "HEAD", cwd=work)
    light = service.create_tag(work, "v1")
    assert (light.commit, light.annotated) == (head, False)
    assert git("cat-file", "-t", "v1", cwd=work) == "commit"
    write(work, "a.txt", "beta\n")
    git("commit", "-q", "-am", "beta", cwd=work)
    made = service.create_tag(work, "v2", "HEAD", "Second release\n\nNotes.", author=AUTHOR)
    assert made.annotated and made.commit == git("rev-parse", "HEAD", cwd=work)
    assert git("cat-file", "-t", "v2", cwd=work) == "tag"
    assert git("for-each-ref", "--format=%(taggername) %(taggeremail)|%(contents:subject)", "refs/tags/v2",
               cwd=work) == "Ada Lovelace <ada@example.com>|Second release"
    assert git("describe", "--tags", "HEAD~1", cwd=work) == "v1"
    assert [t.name for t in service.tags(work)] == ["v1", "v2"]

    with pytest.raises(Conflict) as exists:
        service.create_tag(work, "v1", "HEAD")
    assert exists.value.code == "tag_exists" and git("rev-parse", "v1", cwd=work) == head
    for bad in ("has space", "-x", "a..b", "end.lock"):
        with pytest.raises(Invalid) as refused:
            service.create_tag(work, bad)
        assert refused.value.code == "invalid_tag_name"
    with pytest.raises(NotFound):
        service.create_tag(work, "v3", "no-such-commit")

    service.delete_tag(work, "v1")
    assert git("tag", "-l", cwd=work) == "v2"
    with pytest.raises(NotFound) as gone:
        service.delete_tag(work, "v1")
    assert gone.value.code == "tag_not_found"


def test_push_a_tag_and_a_remote_tag_is_never_moved(work: Path, tmp_path: Path) -> None:
    base = tmp_path / "served"
    remote = bare_repo(base / "proj.git")
    with git_daemon(base) as url:
        service.add_remote(work, "origin", url + "proj.git")
        service.push(work, "origin", "main")
        service.create_tag(work, "v1", message="First", author=AUTHOR)
        pushed = service.push_tag(work, "origin", "v1")
        assert pushed.commit == git("rev-parse", "HEAD", cwd=work)
        assert git("--git-dir", str(remote), "rev-parse", "v1") == git("rev-parse", "v1", cwd=work)
        assert git("--git-dir", str(remote), "cat-file", "-t", "v1") == "tag"
        assert service.push_tag(work, "origin", "v1").tag == "v1"  # already there: nothing to do

        service.delete_tag(work, "v1")
        write(work, "a.txt", "beta\n")
        git("commit", "-q", "-am", "beta", cwd=work)
        service.create_tag(work, "v1")
        with pytest.raises(Conflict) as rejected:
            service.push_tag(work, "origin", "v1")
        assert rejected.value.code == "push_rejected"
        assert git("--git-dir", str(remote), "cat-file", "-t", "v1") == "tag"
        with pytest.raises(NotFound):
            service.push_tag(work, "origin", "v9")
