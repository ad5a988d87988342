"""Part of a file staged, unstaged or discarded: the index or the work tree holds the text the
diff editor computed; git sees exactly that, and a text computed from a stale diff is refused
with nothing written."""

import os
from pathlib import Path

import pytest

from server.core.errors import Conflict, Invalid
from server.gitflow import service
from tests.fakes.git_remotes import git as run_git
from tests.server.gitflow.conftest import write


def git(*args: str, cwd: Path) -> str:
    """git's output without its last newline."""
    return run_git(*args, cwd=cwd).rstrip("\n")

OLD = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"
NEW = "ONE\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT\n"
FIRST_HUNK = "ONE\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"


@pytest.fixture
def two_hunks(work: Path) -> Path:
    write(work, "a.txt", OLD)
    git("commit", "-q", "-am", "eight lines", cwd=work)
    write(work, "a.txt", NEW)
    return work


def test_staging_one_hunk_of_two_then_unstaging_it(two_hunks: Path) -> None:
    diff = service.diff(two_hunks, "a.txt")
    st = service.stage_text(two_hunks, "a.txt", FIRST_HUNK, diff.old_sha)
    assert [c.path for c in st.staged] == ["a.txt"] and [c.path for c in st.unstaged] == ["a.txt"]
    assert git("show", ":a.txt", cwd=two_hunks) == FIRST_HUNK.rstrip("\n")
    assert git("diff", "--cached", "--numstat", cwd=two_hunks) == "1\t1\ta.txt"
    assert git("diff", "--numstat", cwd=two_hunks) == "1\t1\ta.txt"
    assert (two_hunks / "a.txt").read_text() == NEW  # the work tree is untouched

    staged = service.diff(two_hunks, "a.txt", staged=True)
    st = service.stage_text(two_hunks, "a.txt", OLD, staged.new_sha)
    assert st.staged == [] and git("status", "--porcelain", cwd=two_hunks) == " M a.txt"


def test_a_stale_diff_is_refused_and_nothing_is_written(two_hunks: Path) -> None:
    diff = service.diff(two_hunks, "a.txt")
    service.stage(two_hunks, ["a.txt"])  # another tab staged the whole file meanwhile
    with pytest.raises(Conflict) as refused:
        service.stage_text(two_hunks, "a.txt", FIRST_HUNK, diff.old_sha)
    assert refused.value.code == "stale_diff"
    assert git("show", ":a.txt", cwd=two_hunks) == NEW.rstrip("\n")
    with pytest.raises(Invalid):
        service.stage_text(two_hunks, "a.txt", "a\0b", service.diff(two_hunks, "a.txt").old_sha)


def test_part_of_an_untracked_file_and_the_executable_bit(work: Path) -> None:
    script = write(work, "run.sh", "#!/bin/sh\necho one\necho two\n")
    os.chmod(script, 0o755)
    service.stage_text(work, "run.sh", "#!/bin/sh\necho one\n", None)
    assert git("ls-files", "-s", "run.sh", cwd=work).startswith("100755 ")
    assert set(git("status", "--porcelain", cwd=work).splitlines()) == {"AM run.sh"}


def test_discarding_one_hunk_keeps_the_other(two_hunks: Path) -> None:
    diff = service.diff(two_hunks, "a.txt")
    kept = "one\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT\n"
    service.discard_text(two_hunks, "a.txt", kept, diff.new_sha)
    assert (two_hunks / "a.txt").read_text() == kept
    assert git("diff", "--numstat", cwd=two_hunks) == "1\t1\ta.txt"
    with pytest.raises(Conflict) as refused:  # the diff that text came from is gone
        service.discard_text(two_hunks, "a.txt", OLD, diff.new_sha)
    assert refused.value.code == "stale_diff" and (two_hunks / "a.txt").read_text() == kept
