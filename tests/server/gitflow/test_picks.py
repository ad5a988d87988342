"""Cherry-pick and revert of one commit: committed at once when clean (a cherry-pick keeps its
author), stopped on conflicts as git stops, and finished by a commit with one parent."""

from pathlib import Path

import pytest

from server.core.errors import Conflict, Invalid
from server.gitflow import service
from tests.fakes.git_remotes import git as run_git
from tests.server.gitflow.conftest import AUTHOR, write


def git(*args: str, cwd: Path) -> str:
    """git's output without its last newline."""
    return run_git(*args, cwd=cwd).rstrip("\n")


def _feature(root: Path) -> str:
    """A branch ``feature`` with one commit by Grace adding ``c.txt``; its id."""
    git("checkout", "-q", "-b", "feature", cwd=root)
    write(root, "c.txt", "c\n")
    git("add", "c.txt", cwd=root)
    git("commit", "-q", "--author", "Grace Hopper <grace@example.com>", "-m", "Add c", cwd=root)
    git("checkout", "-q", "main", cwd=root)
    return git("rev-parse", "feature", cwd=root)


def test_cherry_pick_keeps_the_author_and_revert_takes_it_back(work: Path) -> None:
    sha = _feature(work)
    head = git("rev-parse", "HEAD", cwd=work)
    picked = service.pick(work, sha, author=AUTHOR)
    assert (picked.outcome, picked.message) == ("committed", "Add c\n")
    assert git("log", "-1", "--format=%P|%an|%cn|%s", cwd=work) == f"{head}|Grace Hopper|Ada Lovelace|Add c"
    assert (work / "c.txt").read_text() == "c\n" and git("status", "--porcelain", cwd=work) == ""
    with pytest.raises(Invalid) as again:
        service.pick(work, sha)
    assert again.value.code == "nothing_to_commit"

    reverted = service.pick(work, "HEAD", revert=True)
    assert reverted.outcome == "committed"
    assert git("log", "-1", "--format=%s%n%b", cwd=work).splitlines()[:2] == [
        'Revert "Add c"', f"This reverts commit {picked.commit}."]
    assert not (work / "c.txt").exists() and git("status", "--porcelain", cwd=work) == ""


def test_a_conflicting_cherry_pick_stops_for_the_merge_editor(work: Path) -> None:
    git("checkout", "-q", "-b", "feature", cwd=work)
    write(work, "a.txt", "alpha (feature)\n")
    git("commit", "-q", "--author", "Grace Hopper <grace@example.com>", "-am", "Feature's alpha", cwd=work)
    git("checkout", "-q", "main", cwd=work)
    write(work, "a.txt", "alpha (main)\n")
    git("commit", "-q", "-am", "Main's alpha", cwd=work)
    head = git("rev-parse", "HEAD", cwd=work)
    stopped = service.pick(work, "feature")
    assert (stopped.outcome, stopped.conflicts, stopped.commit) == ("conflicts", ["a.txt"], None)
    assert git("status", "--porcelain", cwd=work) == "UU a.txt"
    assert git("rev-parse", "CHERRY_PICK_HEAD", cwd=work) == git("rev-parse", "feature", cwd=work)
    with pytest.raises(Conflict) as busy:
        service.merge(work, "feature")
    assert busy.value.code == "merge_in_progress"
    service.resolve(work, "a.txt", None, "theirs")
    done = service.commit(work, stopped.message)
    assert done.parents == [head] and done.summary == "Feature's alpha"
    assert (done.author, done.committer) == ("Grace Hopper", "Ada Lovelace")  # as git commit keeps it
    assert not (work / ".git" / "CHERRY_PICK_HEAD").exists()


def test_refusals_lose_nothing(work: Path) -> None:
    sha = _feature(work)
    write(work, "c.txt", "untracked c\n")
    with pytest.raises(Conflict) as in_the_way:
        service.pick(work, sha)
    assert in_the_way.value.code == "local_changes" and (work / "c.txt").read_text() == "untracked c\n"
    root = git("rev-list", "--max-parents=0", "HEAD", cwd=work)
    with pytest.raises(Invalid) as first:
        service.pick(work, root, revert=True)
    assert first.value.code == "root_commit"
