"""The first status of a work tree is ``git status``'s answer (``firststatus``), read into the same
form as ours; ours warms up behind it and answers the next status the same way."""

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.gitflow import firststatus, service
from server.gitflow.models import Status
from tests.fakes.git_remotes import GIT_ENV, git
from tests.server.gitflow.conftest import as_porcelain, porcelain, write
from tests.server.gitflow.test_hostile import plant_everything
from tests.waiting import wait_until


@pytest.fixture
def answered_by_git(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Every work tree counts as large; the list grows by one each time git answers a status."""
    calls: list[int] = []
    real = firststatus.git_status

    def counting(repo: object) -> object:
        calls.append(1)
        return real(repo)  # type: ignore[arg-type]

    monkeypatch.setattr(firststatus, "MIN_INDEX_BYTES", 0)
    monkeypatch.setattr(firststatus, "git_status", counting)
    yield calls


def first_then_warm(root: Path, answered_by_git: list[int]) -> tuple[Status, Status]:
    """The first status (git's), then, once ours has warmed up, the next one (ours)."""
    first = service.status(root)
    assert answered_by_git == [1]
    wait_until(lambda: not firststatus.warming(root), what="the background status")
    second = service.status(root)
    assert answered_by_git == [1], "our own status answers once warmed up"
    return first, second


def every_kind_of_change(root: Path) -> None:
    write(root, "a.txt", "alpha\nmore\n")
    (root / "src/b.py").chmod(0o755)
    write(root, "gone.txt", "g\n")
    write(root, "link.txt", "l\n")
    write(root, "moved.txt", "the same blob before and after\n")
    gitlink = git("rev-parse", "HEAD", cwd=root).strip()
    git("add", "-A", cwd=root)
    git("update-index", "--add", "--cacheinfo", f"160000,{gitlink},sub", cwd=root)
    git("commit", "-q", "-m", "more files and a submodule", cwd=root)
    (root / "sub").mkdir()
    (root / "gone.txt").unlink()
    (root / "link.txt").unlink()
    os.symlink("a.txt", root / "link.txt")
    git("mv", "moved.txt", "renamed.txt", cwd=root)
    write(root, "staged.txt", "s\n")
    git("add", "staged.txt", cwd=root)
    write(root, "staged.txt", "s2\n")
    write(root, "new/deep/n.txt", "n\n")
    write(root, ".gitignore", "*.log\nbuild/\n")
    write(root, "x.log", "ignored\n")
    write(root, "build/out.bin", "ignored\n")
    write(root, ".git/info/exclude", "secret.txt\n")
    write(root, "secret.txt", "excluded\n")
    write(root, ".a.txt.abcd1234.tmp", "a save's temp file\n")
    git("init", "-q", str(root / "nested"))


def test_first_status_is_gits_answer_in_our_form(work: Path, answered_by_git: list[int]) -> None:
    every_kind_of_change(work)
    first, second = first_then_warm(work, answered_by_git)
    assert first == second
    # A save's temp file and a nested repository are never untracked files for us (status.py).
    assert as_porcelain(work) == porcelain(work) - {"?? .a.txt.abcd1234.tmp", "?? nested/"}
    assert [(c.path, c.kind, c.old_path) for c in first.staged if c.kind == "renamed"] == [
        ("renamed.txt", "renamed", "moved.txt")]
    assert {c.path for c in first.untracked} == {".gitignore", "new/deep/n.txt"}


def test_conflicts_and_an_unborn_branch(work: Path, tmp_path: Path, answered_by_git: list[int]) -> None:
    git("checkout", "-q", "-b", "other", cwd=work)
    write(work, "a.txt", "theirs\n")
    git("commit", "-q", "-am", "theirs", cwd=work)
    git("checkout", "-q", "main", cwd=work)
    write(work, "a.txt", "ours\n")
    git("commit", "-q", "-am", "ours", cwd=work)
    merge = subprocess.run(["git", "merge", "-q", "other"], cwd=work, env=GIT_ENV, capture_output=True)
    assert merge.returncode != 0, "the merge stops on a conflict"
    first, second = first_then_warm(work, answered_by_git)
    assert [c.path for c in first.conflicted] == ["a.txt"]
    assert first == second

    answered_by_git.clear()
    fresh = tmp_path / "fresh"
    git("init", "-q", "-b", "main", str(fresh))
    write(fresh, "one.txt", "1\n")
    git("add", "one.txt", cwd=fresh)
    first, second = first_then_warm(fresh, answered_by_git)
    assert first.head is None and first.branch == "main"
    assert [(c.path, c.kind) for c in first.staged] == [("one.txt", "added")]
    assert first == second


def test_nothing_in_the_repository_config_runs_and_nothing_is_written(
    work: Path, tmp_path: Path, answered_by_git: list[int]
) -> None:
    marker = tmp_path / "pwned"
    plant_everything(work, marker)
    write(work, "a.txt", "edited: git must hash it, through no filter\n")
    index = work / ".git/index"
    before = (index.read_bytes(), index.stat().st_mtime_ns)
    first = service.status(work)
    assert answered_by_git == [1]
    assert ("a.txt", "modified") in [(c.path, c.kind) for c in first.unstaged]
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before
    assert not (work / ".git/index.lock").exists()
    wait_until(lambda: not firststatus.warming(work), what="the background status")
    assert not marker.exists()


def test_changes_during_and_after_the_warm_up_are_seen(work: Path, answered_by_git: list[int]) -> None:
    service.status(work)
    write(work, "a.txt", "edited while ours warms up\n")
    write(work, "src/new.py", "new\n")
    wait_until(lambda: not firststatus.warming(work), what="the background status")
    assert as_porcelain(work) == porcelain(work)
    write(work, "src/b.py", "edited once warm\n")
    (work / "src/new.py").unlink()
    assert as_porcelain(work) == porcelain(work)
    assert answered_by_git == [1]


def test_a_small_work_tree_is_answered_by_ours(work: Path, answered_by_git: list[int],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(firststatus, "MIN_INDEX_BYTES", (work / ".git/index").stat().st_size + 1)
    write(work, "a.txt", "edited\n")
    assert as_porcelain(work) == porcelain(work)
    assert answered_by_git == []


def test_the_repository_settings_ours_reads_hold_for_git_too(
    work: Path, tmp_path: Path, answered_by_git: list[int]
) -> None:
    """git runs without the repository's config: the settings status depends on are passed."""
    excludes = tmp_path / "excludes"
    excludes.write_text("*.scratch\n")
    git("config", "core.filemode", "false", cwd=work)
    git("config", "core.excludesFile", str(excludes), cwd=work)
    (work / "src/b.py").chmod(0o755)
    write(work, "notes.scratch", "excluded by core.excludesFile\n")
    write(work, "kept.txt", "untracked\n")
    first, second = first_then_warm(work, answered_by_git)
    assert (first.unstaged, [c.path for c in first.untracked]) == ([], ["kept.txt"])
    assert first == second


def test_a_warm_up_handed_on_starts_only_when_run_and_is_handed_on_again_until_then(
    work: Path, answered_by_git: list[int]
) -> None:
    """A route hands the warm-up to run after its answer is sent; until it runs, the work tree is
    still cold and git answers again (and hands it on again), so an answer never sent loses
    nothing."""
    later: list = []
    service.status(work, later=later.append)
    assert answered_by_git == [1] and len(later) == 1
    assert not firststatus.warming(work), "handed on, not started"
    service.status(work, later=later.append)
    assert answered_by_git == [1, 1] and len(later) == 2
    for task in later:
        task()
    wait_until(lambda: not firststatus.warming(work), what="the background status")
    service.status(work, later=later.append)
    assert answered_by_git == [1, 1], "our own status answers once warmed up"
    assert len(later) == 2


def test_the_status_route_warms_up_after_its_answer(client, work: Path, answered_by_git: list[int]) -> None:
    project = client.post("/api/projects", json={"name": "work", "path": str(work)}).json()
    url = f"/api/projects/{project['id']}/git/status"
    first = client.get(url)
    assert first.status_code == 200 and answered_by_git == [1]
    wait_until(lambda: not firststatus.warming(work), what="the background status")
    second = client.get(url)
    assert second.json() == first.json()
    assert answered_by_git == [1], "the route's background task warmed ours up"
