"""Status: the same answers as ``git status``, from our own fast reader."""

import os
import threading
import time
from pathlib import Path

from server.gitflow import service
from server.gitflow.repo import write_lock
from tests.fakes.git_remotes import git
from tests.server.gitflow.conftest import AUTHOR, as_porcelain, porcelain, write


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


def test_intent_to_add_paths_as_git_shows_them_and_staged_for_real(work: Path) -> None:
    """``git add -N``: " A" (" D" once the file is gone), not staged against HEAD; staging one
    here stages its content, as ``git add`` would."""
    write(work, "planned.py", "print('planned')\n")
    write(work, "empty.txt", "")
    write(work, "gone.txt", "soon gone\n")
    git("add", "-N", "planned.py", "empty.txt", "gone.txt", cwd=work)
    (work / "gone.txt").unlink()
    assert as_porcelain(work) == porcelain(work) == {" A planned.py", " A empty.txt", " D gone.txt"}
    # A commit leaves them out, as git's does.
    write(work, "a.txt", "alpha 2\n")
    service.stage(work, ["a.txt"])
    service.commit(work, "a.txt only", author=AUTHOR)
    assert git("ls-tree", "-r", "--name-only", "HEAD", cwd=work).split() == ["a.txt", "src/b.py"]
    assert as_porcelain(work) == porcelain(work) == {" A planned.py", " A empty.txt", " D gone.txt"}
    service.stage(work, ["planned.py"])
    assert as_porcelain(work) == porcelain(work)
    assert "A  planned.py" in porcelain(work)
    assert git("show", ":planned.py", cwd=work) == "print('planned')\n"


def test_a_first_commit_leaves_intent_to_add_paths_out(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    git("init", "-q", "-b", "main", str(root))
    write(root, "kept.txt", "kept\n")
    write(root, "planned.txt", "later\n")
    git("add", "kept.txt", cwd=root)
    git("add", "-N", "planned.txt", cwd=root)
    service.commit(root, "first", author=AUTHOR)
    assert git("ls-tree", "-r", "--name-only", "HEAD", cwd=root).split() == ["kept.txt"]
    assert as_porcelain(root) == porcelain(root) == {" A planned.txt"}


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
