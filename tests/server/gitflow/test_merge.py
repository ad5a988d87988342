"""``git merge`` from the Source Control panel: a fast-forward, a merge commit with git's default
message, and conflicts recorded so that the merge editor (or ``git``) finishes the merge."""

from pathlib import Path

import pytest

from server.core.errors import Conflict, Invalid, NotFound
from server.gitflow import service
from tests.fakes.git_remotes import git as run_git
from tests.server.gitflow.conftest import AUTHOR, write


def git(*args: str, cwd: Path) -> str:
    """git's output without its last newline."""
    return run_git(*args, cwd=cwd).rstrip("\n")


def _branch(root: Path, name: str, path: str, text: str) -> None:
    git("checkout", "-q", "-b", name, cwd=root)
    write(root, path, text)
    git("add", "-A", cwd=root)
    git("commit", "-q", "-m", f"{name}: {path}", cwd=root)
    git("checkout", "-q", "main", cwd=root)


def test_fast_forward_then_up_to_date(work: Path) -> None:
    _branch(work, "feature", "c.txt", "c\n")
    done = service.merge(work, "feature")
    assert (done.outcome, done.commit) == ("fast_forward", git("rev-parse", "feature", cwd=work))
    assert (work / "c.txt").read_text() == "c\n" and git("status", "--porcelain", cwd=work) == ""
    assert git("reflog", "-1", "--format=%gs", "main", cwd=work) == "merge: Fast-forward"
    assert service.merge(work, "feature").outcome == "up_to_date"


def test_a_merge_commit_with_the_default_message(work: Path) -> None:
    _branch(work, "feature", "c.txt", "c\n")
    write(work, "d.txt", "d\n")
    git("add", "d.txt", cwd=work)
    git("commit", "-q", "-m", "d", cwd=work)
    main = git("rev-parse", "HEAD", cwd=work)
    done = service.merge(work, "feature", author=AUTHOR)
    assert done.outcome == "merged"
    assert git("log", "-1", "--format=%P%n%s%n%an", cwd=work).splitlines() == [
        f"{main} {git('rev-parse', 'feature', cwd=work)}", "Merge branch 'feature'", "Ada Lovelace"]
    assert git("status", "--porcelain", cwd=work) == ""


def test_conflicts_stop_the_merge_for_the_merge_editor(work: Path) -> None:
    _branch(work, "feature", "a.txt", "alpha (feature)\n")
    write(work, "a.txt", "alpha (main)\n")
    git("commit", "-q", "-am", "main", cwd=work)
    done = service.merge(work, "feature")
    assert (done.outcome, done.conflicts, done.message) == ("conflicts", ["a.txt"], "Merge branch 'feature'")
    assert git("status", "--porcelain", cwd=work) == "UU a.txt"
    with pytest.raises(Conflict) as again:
        service.merge(work, "feature")
    assert again.value.code == "merge_in_progress"
    service.resolve(work, "a.txt", "alpha (both)\n", None)
    made = service.commit(work, "Merge branch 'feature'")
    assert made.parents == [git("rev-parse", "HEAD^1", cwd=work), git("rev-parse", "feature", cwd=work)]


def test_local_changes_in_the_way_and_bad_names(work: Path) -> None:
    _branch(work, "feature", "a.txt", "alpha (feature)\n")
    write(work, "a.txt", "my edit\n")
    with pytest.raises(Conflict) as refused:
        service.merge(work, "feature")
    assert refused.value.code == "local_changes" and (work / "a.txt").read_text() == "my edit\n"
    with pytest.raises(NotFound):
        service.merge(work, "no-such-branch")
    git("checkout", "-q", "--detach", cwd=work)
    with pytest.raises(Conflict) as detached:
        service.merge(work, "feature")
    assert detached.value.code == "detached_head"
    assert isinstance(detached.value, Conflict) and not isinstance(detached.value, Invalid)
