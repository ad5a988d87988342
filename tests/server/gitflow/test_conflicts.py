"""The merge editor's server side: a conflicted file's three versions and hunks, resolved by text
or by taking a side; ``git status`` agrees at every step and the merge commit has both parents."""

import subprocess
from pathlib import Path

import pytest

from server.core.errors import NotFound
from server.gitflow import service
from tests.fakes.git_remotes import GIT_ENV, git
from tests.server.gitflow.conftest import write

BASE = "one\ntwo\nthree\nfour\nfive\n"
OURS = "one\nTWO (ours)\nthree\nfour\nfive\nsix\n"
THEIRS = "zero\none\ntwo (theirs)\nthree\nfour\nfive\n"


@pytest.fixture
def conflicted(work: Path) -> Path:
    """``main`` and ``other`` changed line two of ``a.txt`` differently; ``git merge other`` stopped."""
    write(work, "a.txt", BASE)
    git("commit", "-q", "-am", "base", cwd=work)
    git("checkout", "-q", "-b", "other", cwd=work)
    write(work, "a.txt", THEIRS)
    write(work, "b.bin", b"\0theirs")
    git("add", "b.bin", cwd=work)
    git("commit", "-q", "-am", "theirs", cwd=work)
    git("checkout", "-q", "main", cwd=work)
    write(work, "a.txt", OURS)
    write(work, "b.bin", b"\0ours")
    git("add", "b.bin", cwd=work)
    git("commit", "-q", "-am", "ours", cwd=work)
    done = subprocess.run(["git", "merge", "-q", "other"], cwd=work, env=GIT_ENV, capture_output=True)
    assert done.returncode == 1, done.stderr  # stopped on the conflicts
    return work


def test_three_versions_and_hunks(conflicted: Path) -> None:
    found = service.conflict(conflicted, "a.txt")
    assert (found.base, found.ours, found.theirs, found.binary) == (BASE, OURS, THEIRS, False)
    assert [(c.kind, c.text, c.base, c.ours, c.theirs) for c in found.chunks] == [
        ("merged", "zero\none\n", "", "", ""),
        ("conflict", "", "two\n", "TWO (ours)\n", "two (theirs)\n"),
        ("merged", "three\nfour\nfive\nsix\n", "", "", ""),
    ]
    assert service.conflict(conflicted, "b.bin").binary
    with pytest.raises(NotFound):
        service.conflict(conflicted, "src/b.py")


def test_resolving_by_text_and_by_side_then_committing_the_merge(conflicted: Path) -> None:
    assert {"UU a.txt", "AA b.bin"} <= set(git("status", "--porcelain", cwd=conflicted).splitlines())
    resolved = "zero\none\ntwo (theirs)\nthree\nfour\nfive\nsix\n"
    st = service.resolve(conflicted, "a.txt", resolved, None)
    assert [c.path for c in st.conflicted] == ["b.bin"]
    assert "M  a.txt" in git("status", "--porcelain", cwd=conflicted).splitlines()
    service.resolve(conflicted, "b.bin", None, "theirs")
    assert (conflicted / "b.bin").read_bytes() == b"\0theirs"
    assert service.status(conflicted).conflicted == []
    merge = service.commit(conflicted, "Merge other")
    assert merge.parents == [git("rev-parse", "HEAD^1", cwd=conflicted).strip(),
                             git("rev-parse", "other", cwd=conflicted).strip()]
    assert git("status", "--porcelain", cwd=conflicted) == ""
    assert git("show", "HEAD:a.txt", cwd=conflicted) == resolved
