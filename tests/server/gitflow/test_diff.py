"""Diffs: old and new content for the three comparisons; binary files by size and id."""

from pathlib import Path

import pytest

from server.core.errors import Invalid
from server.gitflow import service
from tests.fakes.git_remotes import git
from tests.server.gitflow.conftest import write


def test_work_tree_index_and_head(work: Path) -> None:
    write(work, "a.txt", "staged\n")
    service.stage(work, ["a.txt"])
    write(work, "a.txt", "working\n")
    unstaged = service.diff(work, "a.txt")
    assert (unstaged.old, unstaged.new, unstaged.binary) == ("staged\n", "working\n", False)
    assert (unstaged.old_size, unstaged.new_size) == (7, 8)
    staged = service.diff(work, "a.txt", staged=True)
    assert (staged.old, staged.new) == ("alpha\n", "staged\n")


def test_untracked_and_deleted(work: Path) -> None:
    write(work, "n.txt", "new\n")
    (work / "src/b.py").unlink()
    assert service.diff(work, "n.txt").model_dump(include={"old", "new"}) == {
        "old": None,
        "new": "new\n",
    }
    assert service.diff(work, "src/b.py").model_dump(include={"old", "new"}) == {
        "old": "print('b')\n",
        "new": None,
    }


def test_binary_is_described_not_dumped(work: Path) -> None:
    write(work, "w.bin", b"\x00\x01weights" * 10)
    service.stage(work, ["w.bin"])
    write(work, "w.bin", b"\x00\x02" * 7)
    d = service.diff(work, "w.bin")
    assert d.binary and d.old is None and d.new is None
    assert (d.old_size, d.new_size) == (90, 14)
    assert d.new_sha == git("hash-object", "w.bin", cwd=work).strip()
    assert d.old_sha == git("rev-parse", ":w.bin", cwd=work).strip()


def test_commit_against_its_parent(work: Path) -> None:
    write(work, "a.txt", "v2\n")
    service.stage(work, ["a.txt"])
    sha = service.commit(work, "v2").sha
    d = service.commit_diff(work, sha, "a.txt")
    assert (d.old, d.new) == ("alpha\n", "v2\n")
    first = service.log(work)[-1].sha
    root_diff = service.commit_diff(work, first, "a.txt")
    assert (root_diff.old, root_diff.new) == (None, "alpha\n")


def test_no_diff_through_a_symlinked_folder(work: Path, tmp_path: Path) -> None:
    write(tmp_path / "outside", "secret.txt", "secret\n")
    (work / "linked").symlink_to(tmp_path / "outside")
    with pytest.raises(Invalid):
        service.diff(work, "linked/secret.txt")
