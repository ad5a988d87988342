"""The untracked scan with the stat monitor: a tracked folder whose names no event changed is not
listed again, and every name that came or went since is seen, as ``git status`` sees it."""

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.gitflow import service, status
from tests.fakes.git_remotes import git
from tests.server.gitflow.conftest import as_porcelain, porcelain, write

FOLDERS = ("src", "src/deep", "docs")


@pytest.fixture
def listed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The work-tree folders status has listed since the list was last cleared."""
    folders: list[str] = []
    real = status._list_folder

    def counting(full: bytes) -> list[bytes] | None:
        folders.append(os.fsdecode(full))
        return real(full)

    monkeypatch.setattr(status, "_list_folder", counting)
    yield folders


def _relative(work: Path, folders: list[str]) -> set[str]:
    return {os.path.relpath(f, work) for f in folders}


def test_only_folders_whose_names_changed_are_listed_again(work: Path, listed: list[str]) -> None:
    for folder in FOLDERS:
        write(work, f"{folder}/f.txt", f"{folder}\n")
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "folders", cwd=work)
    service.status(work)
    listed.clear()
    write(work, "docs/f.txt", "edited: no name came or went\n")
    assert as_porcelain(work) == porcelain(work) == {" M docs/f.txt"}
    assert listed == []
    write(work, "src/deep/new.txt", "new\n")
    assert as_porcelain(work) == porcelain(work)
    assert _relative(work, listed) == {"src/deep"}
    listed.clear()
    (work / "src/deep/new.txt").rename(work / "src/moved.txt")
    assert as_porcelain(work) == porcelain(work)
    assert _relative(work, listed) == {"src", "src/deep"}


@pytest.mark.parametrize("change", ["new file", "new folder", "removed", "renamed", "folder moved"])
def test_each_name_change_is_seen(work: Path, change: str) -> None:
    for folder in FOLDERS:
        write(work, f"{folder}/f.txt", f"{folder}\n")
    write(work, "src/untracked.txt", "u\n")
    git("add", "-A", "src/deep", "docs", cwd=work)
    git("commit", "-q", "-m", "folders", cwd=work)
    service.status(work)
    service.status(work)  # the listings are kept now
    if change == "new file":
        write(work, "docs/other.txt", "o\n")
    elif change == "new folder":
        write(work, "docs/inner/x.txt", "x\n")
    elif change == "removed":
        (work / "src/untracked.txt").unlink()
    elif change == "renamed":
        (work / "src/untracked.txt").rename(work / "src/deep/renamed.txt")
    else:
        shutil.move(work / "src/deep", work / "deep-moved")
    assert as_porcelain(work) == porcelain(work)
    write(work, "deep-moved/later.txt" if change == "folder moved" else "src/deep/later.txt", "l\n")
    assert as_porcelain(work) == porcelain(work)
