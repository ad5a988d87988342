"""Stash: stored like git's, applied by a real 3-way merge, never over local work."""

from pathlib import Path

import pytest

from server.core.errors import Conflict, Invalid, NotFound
from server.gitflow import service
from tests.fakes.git_remotes import git
from tests.server.gitflow.conftest import write


def test_push_resets_and_git_lists_and_pops_ours(work: Path) -> None:
    write(work, "a.txt", "stashed edit\n")
    write(work, "new.txt", "untracked\n")
    entry = service.stash_push(work, "my work", include_untracked=True)
    assert entry.message == "On main: my work"
    assert git("status", "--porcelain", cwd=work) == ""
    assert git("stash", "list", cwd=work).strip() == "stash@{0}: On main: my work"
    git("stash", "pop", "-q", cwd=work)
    assert (work / "a.txt").read_text() == "stashed edit\n"
    assert (work / "new.txt").read_text() == "untracked\n"
    assert service.stashes(work) == []


def test_we_read_and_pop_a_stash_made_by_git(work: Path) -> None:
    write(work, "a.txt", "git stashed\n")
    write(work, "gone.txt", "x")
    git("stash", "push", "-q", "-u", "-m", "from git", cwd=work)
    write(work, "src/b.py", "older\n")
    git("commit", "-q", "-am", "unrelated commit", cwd=work)
    [entry] = service.stashes(work)
    assert entry.message == "On main: from git"
    applied = service.stash_apply(work, 0, pop=True)
    assert applied.dropped and applied.files == ["a.txt", "gone.txt"]
    assert (work / "a.txt").read_text() == "git stashed\n"
    assert (work / "gone.txt").read_text() == "x"
    assert git("stash", "list", cwd=work) == ""
    assert {c.path for c in service.status(work).unstaged} == {"a.txt"}


def test_pop_keeps_an_unrelated_uncommitted_edit(work: Path) -> None:
    """dulwich's stash_pop rewrites every file and wipes this edit (docs/git.md)."""
    write(work, "a.txt", "stashed\n")
    service.stash_push(work, "s")
    write(work, "src/b.py", "my unrelated edit\n")
    service.stash_apply(work, 0, pop=True)
    assert (work / "src/b.py").read_text() == "my unrelated edit\n"
    assert (work / "a.txt").read_text() == "stashed\n"


def test_pop_over_a_changed_file_is_refused_and_the_stash_kept(work: Path) -> None:
    write(work, "a.txt", "stashed\n")
    service.stash_push(work, "s")
    write(work, "a.txt", "edited after stashing\n")
    with pytest.raises(Conflict) as caught:
        service.stash_apply(work, 0, pop=True)
    assert caught.value.extra["files"] == ["a.txt"]
    assert (work / "a.txt").read_text() == "edited after stashing\n"
    assert len(service.stashes(work)) == 1


def test_conflicting_stash_is_refused_and_kept(work: Path) -> None:
    write(work, "a.txt", "stash side\n")
    service.stash_push(work, "s")
    write(work, "a.txt", "committed side\n")
    service.stage(work, ["a.txt"])
    service.commit(work, "diverge")
    with pytest.raises(Conflict) as caught:
        service.stash_apply(work, 0)
    assert caught.value.code == "stash_conflict" and caught.value.extra["files"] == ["a.txt"]
    assert (work / "a.txt").read_text() == "committed side\n"
    assert len(service.stashes(work)) == 1


def test_three_way_merge_onto_a_moved_head(work: Path) -> None:
    write(work, "a.txt", "line1\nline2\nline3\n")
    service.stage(work, ["a.txt"])
    service.commit(work, "three lines")
    write(work, "a.txt", "line1 stashed\nline2\nline3\n")
    service.stash_push(work, "top")
    write(work, "a.txt", "line1\nline2\nline3 committed\n")
    service.stage(work, ["a.txt"])
    service.commit(work, "bottom")
    service.stash_apply(work, 0)
    assert (work / "a.txt").read_text() == "line1 stashed\nline2\nline3 committed\n"
    assert [c.path for c in service.status(work).unstaged] == ["a.txt"]


def test_nothing_to_stash_is_refused(work: Path) -> None:
    """dulwich's stash_push records an empty entry here (docs/git.md)."""
    with pytest.raises(Invalid) as caught:
        service.stash_push(work, "empty")
    assert caught.value.code == "nothing_to_stash"
    write(work, "only-untracked.txt", "u")
    with pytest.raises(Invalid):
        service.stash_push(work, "untracked not included")
    assert service.stashes(work) == [] and git("stash", "list", cwd=work) == ""


def test_order_drop_and_missing_index(work: Path) -> None:
    for text in ("one", "two", "three"):
        write(work, "a.txt", text + "\n")
        service.stash_push(work, text)
    assert [s.message for s in service.stashes(work)] == ["On main: three", "On main: two", "On main: one"]
    service.stash_drop(work, 1)
    assert git("stash", "list", "--format=%gs", cwd=work).splitlines() == ["On main: three", "On main: one"]
    with pytest.raises(NotFound):
        service.stash_apply(work, 5)
    git("stash", "apply", "-q", "stash@{1}", cwd=work)
    assert (work / "a.txt").read_text() == "one\n"
