"""Status with the stat monitor: the same answers as ``git status`` after every kind of change,
while stat'ing only what changed."""

import contextlib
import os
import random
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from server.core.errors import Conflict
from server.gitflow import fsmonitor, service
from tests.fakes.git_remotes import git
from tests.server.gitflow.conftest import as_porcelain, porcelain, write

FOLDERS = ("src", "src/deep", "docs", "lib")


@pytest.fixture
def tree(work: Path) -> Path:
    """``work`` with a few more tracked folders and files."""
    for folder in FOLDERS:
        for n in range(4):
            write(work, f"{folder}/f{n}.txt", f"{folder} {n}\n")
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "tree", cwd=work)
    return work


@pytest.fixture
def stat_count(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many names status has stat'ed since the list was last cleared."""
    counted: list[int] = []
    real = fsmonitor.stat_folder

    def counting(root: bytes, folder: bytes, names: list[bytes]) -> list[os.stat_result]:
        counted.append(len(names))
        return real(root, folder, names)

    monkeypatch.setattr(fsmonitor, "stat_folder", counting)
    yield counted


def tracked_files(root: Path) -> list[str]:
    return sorted(git("ls-files", cwd=root).split())


def some_tracked(root: Path, rng: random.Random) -> Path:
    """A tracked path (the repository's root once nothing is tracked any more)."""
    return root / rng.choice(tracked_files(root) or ["."])


def same_size_edit(root: Path, rng: random.Random) -> None:
    path = some_tracked(root, rng)
    if path.is_file() and not path.is_symlink():
        data = path.read_bytes()
        path.write_bytes(data[::-1] if data[::-1] != data else data.upper())


def append(root: Path, rng: random.Random) -> None:
    path = some_tracked(root, rng)
    if path.is_file() and not path.is_symlink():
        with path.open("a") as f:
            f.write("more\n")


def chmod(root: Path, rng: random.Random) -> None:
    path = some_tracked(root, rng)
    if path.is_file() and not path.is_symlink():
        path.chmod(path.stat().st_mode ^ 0o100)


def delete(root: Path, rng: random.Random) -> None:
    path = some_tracked(root, rng)
    if path.is_file() or path.is_symlink():
        path.unlink()


def atomic_replace(root: Path, rng: random.Random) -> None:
    path = some_tracked(root, rng)
    if path.parent.is_dir() and not path.is_dir():
        temp = path.parent / ".save.tmp"
        temp.write_text(f"replaced {rng.random()}\n")
        temp.rename(path)


def symlink_over_file(root: Path, rng: random.Random) -> None:
    path = some_tracked(root, rng)
    if path.is_file():
        path.unlink()
        path.symlink_to("elsewhere")


def untracked_file(root: Path, rng: random.Random) -> None:
    path = root / f"{rng.choice(FOLDERS)}/new{rng.randrange(100)}/n.txt"
    if not any(os.path.lexists(p) and not p.is_dir() for p in path.parents):
        write(path.parent, path.name, "new\n")


def remove_folder(root: Path, rng: random.Random) -> None:
    shutil.rmtree(root / rng.choice(FOLDERS), ignore_errors=True)


def move_folder_and_copy_back(root: Path, rng: random.Random) -> None:
    """The watched folder moves away; an edit in its new place must not count for the old."""
    folder = root / rng.choice(FOLDERS)
    if folder.is_dir():
        moved = root / "moved"
        shutil.rmtree(moved, ignore_errors=True)
        folder.rename(moved)
        shutil.copytree(moved, folder, symlinks=True)
        for path in filter(Path.is_file, moved.rglob("*.txt")):
            path.write_text("edited after the move\n")
        shutil.rmtree(moved)


def file_becomes_folder(root: Path, rng: random.Random) -> None:
    path = some_tracked(root, rng)
    if path.is_file() and not path.is_symlink():
        path.unlink()
        write(path, "inner.txt", "inside\n")


def folder_becomes_file(root: Path, rng: random.Random) -> None:
    folder = root / rng.choice(FOLDERS)
    if folder.is_dir():
        shutil.rmtree(folder)
        folder.write_text("now a file\n")


def discard_with_us(root: Path, rng: random.Random) -> None:
    changed = [c.path for c in service.status(root).unstaged]
    if changed:
        with contextlib.suppress(Conflict):  # a folder where a file was is left alone
            service.discard(root, [rng.choice(changed)])


def restore_all(root: Path, rng: random.Random) -> None:
    for path in root.iterdir():
        if path.name != ".git":
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    git("checkout", "-q", "--", ".", cwd=root)


def stage_all(root: Path, rng: random.Random) -> None:
    git("add", "-A", cwd=root)


def commit(root: Path, rng: random.Random) -> None:
    git("add", "-A", cwd=root)
    git("commit", "-q", "--allow-empty", "-m", "step", cwd=root)


def commit_with_us(root: Path, rng: random.Random) -> None:
    st = service.status(root)
    service.stage(root, [c.path for c in (*st.unstaged, *st.untracked)])
    if service.status(root).staged:
        service.commit(root, "ours")


CHANGES: list[Callable[[Path, random.Random], None]] = [
    same_size_edit, append, chmod, delete, atomic_replace, symlink_over_file, untracked_file,
    remove_folder, move_folder_and_copy_back, file_becomes_folder, restore_all, stage_all, commit,
    folder_becomes_file, discard_with_us, commit_with_us,
]


@pytest.mark.parametrize("watch", [True, False], ids=["watched", "full-scan"])
@pytest.mark.parametrize("seed", range(4))
def test_random_changes_match_git_after_every_step(
    tree: Path, seed: int, watch: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fsmonitor.monitor, "enabled", watch)
    rng = random.Random(seed)
    assert as_porcelain(tree) == porcelain(tree)
    for step in range(40):
        change = rng.choice(CHANGES)
        change(tree, rng)
        assert as_porcelain(tree) == porcelain(tree), f"after step {step}: {change.__name__}"


def test_after_the_first_status_only_changed_files_are_stated(tree: Path, stat_count: list[int]) -> None:
    service.status(tree)
    assert sum(stat_count) == len(tracked_files(tree))
    stat_count.clear()
    write(tree, "src/f1.txt", "edited\n")
    assert [c.path for c in service.status(tree).unstaged] == ["src/f1.txt"]
    assert sum(stat_count) == 1
    stat_count.clear()
    assert [c.path for c in service.status(tree).unstaged] == ["src/f1.txt"]
    assert stat_count == []


def test_a_folder_replaced_by_another_is_stated_again(tree: Path, stat_count: list[int]) -> None:
    """The watches of a moved folder and its subfolders follow it: they must not stand for the
    folders that take their place."""
    service.status(tree)
    stat_count.clear()
    (tree / "src").rename(tree / "old-src")
    shutil.copytree(tree / "old-src", tree / "src")
    (tree / "old-src/deep/f2.txt").write_text("edited in the old folder\n")
    assert service.status(tree).unstaged == []
    assert sum(stat_count) == len([p for p in tracked_files(tree) if p.startswith("src/")])
    (tree / "src/deep/f2.txt").write_text("edited in the new folder\n")
    assert [c.path for c in service.status(tree).unstaged] == ["src/deep/f2.txt"]


def test_an_overflowed_event_queue_means_stat_everything(tree: Path) -> None:
    """Events past the kernel's queue limit are dropped: the edit below is never reported."""
    service.status(tree)
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    first, second = tree / "src/f0.txt", tree / "src/f1.txt"
    for n in range(limit // 2 + 100):  # alternating, so the kernel cannot merge them
        os.utime(first, ns=(n, n))
        os.utime(second, ns=(n, n))
    edited = tree / "lib/f3.txt"
    before = edited.stat()
    edited.write_text("lib X\n")  # the same size
    os.utime(edited, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert {c.path for c in service.status(tree).unstaged} == {"lib/f3.txt"}
    assert as_porcelain(tree) == porcelain(tree)


def test_a_folder_that_cannot_be_watched_is_stated_every_time(
    tree: Path, stat_count: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As when the user's inotify watch limit is reached: that folder falls back to stats."""
    real_add = fsmonitor.Inotify.add

    def add(self: fsmonitor.Inotify, path: bytes, mask: int) -> int | None:
        return None if path.endswith(b"/docs") else real_add(self, path, mask)

    monkeypatch.setattr(fsmonitor.Inotify, "add", add)
    service.status(tree)
    stat_count.clear()
    service.status(tree)
    assert stat_count == [4]  # docs/f0..f3 only
    stat_count.clear()
    before = (tree / "docs/f1.txt").stat()
    (tree / "docs/f1.txt").write_text("docs X\n")  # the same size and mtime: only a stat sees it
    os.utime(tree / "docs/f1.txt", ns=(before.st_atime_ns, before.st_mtime_ns))
    assert [c.path for c in service.status(tree).unstaged] == ["docs/f1.txt"]
    assert stat_count == [4]


def test_without_inotify_status_stats_everything(
    tree: Path, stat_count: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fsmonitor, "monitor", fresh := fsmonitor.StatMonitor())
    monkeypatch.setattr("server.gitflow.status.monitor", fresh)
    monkeypatch.setattr(fsmonitor.Inotify, "__init__", _no_inotify)
    for _ in range(2):
        service.status(tree)
    assert sum(stat_count) == 2 * len(tracked_files(tree))
    write(tree, "a.txt", "edited\n")
    assert [c.path for c in service.status(tree).unstaged] == ["a.txt"]


def _no_inotify(self: fsmonitor.Inotify) -> None:
    raise OSError("inotify is not available here")
