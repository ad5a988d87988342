"""Opening repositories safely, and one write lock per repository.

A repository's own config and hooks are written by whoever made the repository, so nothing in
them may run: hooks are dropped, external filter and merge drivers are never created, and
commits are never signed through an external program. ``core.fsmonitor`` and
``core.hooksPath`` are never read because nothing here consults them.
"""

import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from dulwich.config import Config
from dulwich.errors import NotGitRepository
from dulwich.file import FileLocked, _GitFile
from dulwich.filters import FilterContext, FilterDriver, FilterRegistry
from dulwich.repo import Repo

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, InsufficientStorage, Invalid, NotFound
from server.core.fsutil import storage_errors


class TextOnlyFilters(FilterRegistry):
    """A filter registry that knows only the built-in text (line ending) filter."""

    def __init__(self, config: Config | None, repo: Repo) -> None:
        super().__init__(config, repo)
        self._factories = {"text": self._create_text_filter}

    def _create_from_config(self, name: str) -> FilterDriver | None:
        return None


class SafeRepo(Repo):
    """A dulwich ``Repo`` that never runs a hook, filter process or other external command."""

    def __init__(self, root: str, **kwargs: Any) -> None:
        super().__init__(root, **kwargs)
        self.hooks.clear()
        self.filter_context = FilterContext(TextOnlyFilters(None, self))

    def close(self) -> None:
        super().close()
        self.filter_context = FilterContext(TextOnlyFilters(None, self))


_registry_lock = threading.Lock()
_write_locks: dict[str, threading.RLock] = {}


def repo_key(path: str | os.PathLike[str]) -> str:
    return os.path.realpath(path)


def write_lock(path: str | os.PathLike[str]) -> threading.RLock:
    """The lock that serializes every write to the repository at ``path``."""
    key = repo_key(path)
    with _registry_lock:
        lock = _write_locks.get(key)
        if lock is None:
            lock = _write_locks[key] = threading.RLock()
        return lock


@contextmanager
def open_repo(path: str | os.PathLike[str]) -> Iterator[SafeRepo]:
    """Open the repository whose work tree is ``path`` (never a parent folder's)."""
    root = Path(path)
    if not root.is_dir():
        raise NotFound(f"folder not found: {root.name}", code=ErrorCode.NOT_FOUND)
    try:
        repo = SafeRepo(str(root))
    except NotGitRepository:
        raise NotFound("this project is not a Git repository", code=ErrorCode.NOT_A_REPOSITORY) from None
    try:
        yield repo
    finally:
        repo.close()


@contextmanager
def writing(path: str | os.PathLike[str]) -> Iterator[SafeRepo]:
    """Open the repository with its write lock held for the whole block.

    A lock file left by a git command (running, or killed mid-write) is a 409 naming it: git
    refuses the same way, and deleting it is for the user to decide."""
    with write_lock(path), open_repo(path) as repo:
        try:
            with full_disk_released("the change to the repository"):
                yield repo
        except FileLocked as exc:
            name = os.path.relpath(os.fsdecode(exc.lockfilename), repo.path)
            raise Conflict(
                f"another Git process is writing this repository ({name} exists); if none is "
                "running, delete that file and try again",
                code=ErrorCode.REPOSITORY_LOCKED,
            ) from None


def init_repo(path: str | os.PathLike[str], branch: str = "main") -> None:
    """Create an empty repository in an existing folder that has none: all of it or, when
    creating it fails (a full disk), nothing at all."""
    root = Path(path)
    if not root.is_dir():
        raise NotFound("folder not found", code=ErrorCode.NOT_FOUND)
    if (root / ".git").exists():
        raise Invalid("this folder is already a Git repository", code=ErrorCode.ALREADY_A_REPOSITORY)
    with write_lock(root):
        try:
            with full_disk_released("the new repository"):
                repo = SafeRepo.init(str(root), default_branch=branch.encode())
                repo.close()
        except BaseException:
            shutil.rmtree(root / ".git", ignore_errors=True)
            raise


@contextmanager
def full_disk_released(what: str) -> Iterator[None]:
    """A full disk as a 507, with the lock files the failed write held deleted.

    dulwich's ``GitFile`` writes ``<name>.lock`` and renames it on close; when the disk fills,
    close fails before the rename and leaves the lock, which would refuse every later write
    (``repository_locked``). The failed call's frames still hold those files: abort them.
    """
    try:
        with storage_errors(what):
            yield
    except InsufficientStorage as exc:
        _abort_git_files(exc.__context__)
        raise


def _abort_git_files(exc: BaseException | None) -> None:
    tb = exc.__traceback__ if exc is not None else None
    while tb is not None:
        for value in list(tb.tb_frame.f_locals.values()):
            if isinstance(value, _GitFile) and not value._closed:
                with suppress(OSError):
                    value._file.close()  # its buffered bytes cannot be written: drop them
                with suppress(FileNotFoundError):
                    os.remove(value._lockfilename)
                value._closed = True
        tb = tb.tb_next
