"""Fixtures for the Git flow: work repositories made by the ``git`` CLI."""

import os
from pathlib import Path

import pytest

from server.gitflow import service
from tests.fakes.git_remotes import git

AUTHOR = "Ada Lovelace <ada@example.com>"


def write(root: Path, path: str, text: str | bytes) -> Path:
    full = root / path
    full.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        full.write_bytes(text)
    else:
        full.write_text(text)
    return full


def porcelain(root: Path) -> set[str]:
    """``git status --porcelain -uall`` as a set of lines."""
    return set(git("status", "--porcelain", "-uall", "--no-renames", cwd=root).splitlines())


LETTER = {"added": "A", "modified": "M", "deleted": "D", "typechange": "T"}


def as_porcelain(root: Path) -> set[str]:
    """Our status in ``porcelain``'s form, to compare with git's."""
    st = service.status(root)
    lines = set()
    columns: dict[str, list[str]] = {}
    for change in st.staged:
        if change.kind == "renamed":
            columns.setdefault(change.path, [" ", " "])[0] = "A"
            columns.setdefault(change.old_path or "", [" ", " "])[0] = "D"
        else:
            columns.setdefault(change.path, [" ", " "])[0] = LETTER[change.kind]
    for change in st.unstaged:
        columns.setdefault(change.path, [" ", " "])[1] = LETTER[change.kind]
    for path, (x, y) in columns.items():
        lines.add(f"{x}{y} {path}")
    lines |= {f"?? {c.path}" for c in st.untracked}
    return lines


@pytest.fixture(autouse=True)
def _no_user_git_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the machine's ``~/.gitconfig``."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A repository with one commit of ``a.txt`` and ``src/b.py`` on ``main``."""
    root = tmp_path / "work"
    git("init", "-q", "-b", "main", str(root))
    git("config", "user.name", "Ada Lovelace", cwd=root)
    git("config", "user.email", "ada@example.com", cwd=root)
    write(root, "a.txt", "alpha\n")
    write(root, "src/b.py", "print('b')\n")
    git("add", "-A", cwd=root)
    git("commit", "-q", "-m", "initial", cwd=root)
    return root


def file_mode(path: Path) -> int:
    return os.lstat(path).st_mode
