"""Status: the same answers as ``git status``, from our own fast reader."""

import os
import threading
import time
from pathlib import Path

from server.gitflow import service
from server.gitflow.repo import write_lock
from tests.fakes.git_remotes import git
from tests.server.gitflow.conftest import as_porcelain, porcelain, write


def test_clean_repository_has_no_changes(work: Path) -> None:
    st = service.status(work)
    assert st.branch == "main"
    assert (st.staged, st.unstaged, st.untracked, st.conflicted) == ([], [], [], [])


def test_every_kind_of_change_matches_git(work: Path) -> None:
    write(work, "a.txt", "alpha\nmore\n")
    (work / "src/b.py").unlink()
    write(work, "new/deep/n.txt", "n\n")
    write(work, "staged.txt", "s\n")
    git("add", "staged.txt", cwd=work)
    write(work, "staged.txt", "s2\n")
    write(work, ".gitignore", "*.log\nbuild/\n")
    write(work, "x.log", "ignored\n")
    write(work, "build/out.bin", "ignored\n")
    assert as_porcelain(work) == porcelain(work)


def test_typechange_and_mode_change(work: Path) -> None:
    (work / "a.txt").unlink()
    os.symlink("src/b.py", work / "a.txt")
    os.chmod(work / "src/b.py", 0o755)
    assert as_porcelain(work) == porcelain(work)


def test_same_size_edit_within_the_same_second_is_seen(work: Path) -> None:
    before = (work / "a.txt").stat()
    write(work, "a.txt", "ALPHA\n")
    os.utime(work / "a.txt", ns=(before.st_atime_ns, before.st_mtime_ns))
    assert [c.path for c in service.status(work).unstaged] == ["a.txt"]


def test_staged_rename_is_reported_once(work: Path) -> None:
    git("mv", "a.txt", "renamed.txt", cwd=work)
    st = service.status(work)
    assert [(c.path, c.kind, c.old_path) for c in st.staged] == [("renamed.txt", "renamed", "a.txt")]


def test_unchanged_touch_is_clean_and_new_edit_after_it_is_seen(work: Path) -> None:
    os.utime(work / "a.txt")
    assert service.status(work).unstaged == []
    write(work, "a.txt", "changed\n")
    assert [c.path for c in service.status(work).unstaged] == ["a.txt"]


def test_untracked_folder_with_ignored_files(work: Path) -> None:
    write(work, ".gitignore", "node_modules/\n*.tmp\n")
    write(work, "node_modules/x/index.js", "x")
    write(work, "data/keep.csv", "1")
    write(work, "data/skip.tmp", "1")
    untracked = [c.path for c in service.status(work).untracked]
    assert untracked == [".gitignore", "data/keep.csv"]


def test_reads_do_not_wait_for_the_write_lock(work: Path) -> None:
    write(work, "a.txt", "edited\n")
    lock = write_lock(work)
    held = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with lock:
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(5)
        start = time.monotonic()
        assert [c.path for c in service.status(work).unstaged] == ["a.txt"]
        assert time.monotonic() - start < 5
    finally:
        release.set()
        holder.join()


def test_status_leaves_no_lock_files(work: Path) -> None:
    write(work, "a.txt", "edited\n")
    service.status(work)
    assert not (work / ".git/index.lock").exists()
