"""Stage, unstage and discard: index entries written from the work tree or from HEAD.

Unlike dulwich's porcelain: unstaging resets the index entry and never touches the work tree, and
discarding checks every path before the first file is touched.
"""

import os
import stat
from collections.abc import Callable, Iterator
from functools import cache

from dulwich.index import build_file_from_blob, cleanup_mode, index_entry_from_stat
from dulwich.objects import Blob, ObjectID
from dulwich.repo import Repo

from server.core.errors import Conflict, NotFound
from server.gitflow.indexfile import IndexView, read_index
from server.gitflow.indexwrite import NO_STAT, encode_entry, rewrite_index
from server.gitflow.looseobjects import add_files
from server.gitflow.paths import user_path
from server.gitflow.status import decode, raw_status
from server.gitflow.trees import flatten, head_tree_id
from server.gitflow.worktree import (
    ensure_safe_parent,
    file_in_place_of_folder,
    remove_file,
)


def _targets(repo: Repo, paths: list[str], changed: Callable[[], set[bytes]]) -> list[bytes]:
    """Requested paths; a folder (or a vanished file) stands for the changed paths below it."""
    found: list[bytes] = []
    root = os.fsencode(repo.path)
    for path in paths:
        raw = user_path(path)
        ensure_safe_parent(root, raw)
        full = os.path.join(root, raw)
        if os.path.isfile(full) or os.path.islink(full):
            found.append(raw)
            continue
        below = [p for p in changed() if p == raw or p.startswith(raw + b"/")]
        if below:
            found.extend(below)
        elif not os.path.lexists(full):
            raise NotFound(f"no such file: {path}")
    return sorted(set(found))


def _changes(repo: Repo, *kinds: str) -> Callable[[], set[bytes]]:
    """The paths with the given kinds of change, computed once and only when needed."""

    @cache
    def compute() -> set[bytes]:
        st = raw_status(repo, untracked="untracked" in kinds)
        found: set[bytes] = set()
        for kind in kinds:
            value = getattr(st, kind)
            found |= set(value.values()) if kind == "renamed_from" else set(value)
        return found

    return compute


def stage(repo: Repo, paths: list[str]) -> list[str]:
    targets = _targets(repo, paths, _changes(repo, "unstaged", "untracked", "conflicted"))
    root = os.fsencode(repo.path)
    updates: dict[bytes, IndexUpdate] = {}
    files: dict[bytes, tuple[bytes, os.stat_result]] = {}
    for path in targets:
        full = os.path.join(root, path)
        try:
            file_stat = os.lstat(full)
        except (FileNotFoundError, NotADirectoryError):
            file_stat = None
        if file_stat is not None and (stat.S_ISREG(file_stat.st_mode) or stat.S_ISLNK(file_stat.st_mode)):
            files[path] = (full, file_stat)
        # else gone, or a folder took the tracked file's place: its files are staged by their own paths
        updates[path] = None
    view = read_index(repo.index_path())
    for path in files:
        for other in _in_the_way(view, path):
            updates.setdefault(other, None)
    ids = add_files(repo, list(files.values()))
    for (path, (_, file_stat)), sha in zip(files.items(), ids, strict=True):
        updates[path] = (file_stat, sha, cleanup_mode(file_stat.st_mode))
    write_index_updates(repo, updates)
    return [decode(p) for p in targets]


def _in_the_way(view: IndexView, path: bytes) -> Iterator[bytes]:
    """Index entries that cannot stay beside a file at ``path``: files where its folders are,
    and the files below it when it was a folder (git replaces them the same way)."""
    def tracked(p: bytes) -> bool:
        return p in view.entries or p in view.conflicted or p in view.skipped

    folder = path
    while b"/" in folder:
        folder = folder.rpartition(b"/")[0]
        if tracked(folder):
            yield folder
    folders, subfolders = view.folders(), view.subfolders()
    stack = [path] if path in folders else []
    while stack:
        below = stack.pop()
        for name in folders[below]:
            child = below + b"/" + name
            if tracked(child):
                yield child
        stack.extend(subfolders.get(below, ()))


# A new index entry: the file's stat data (zeros when unknown), its blob id and mode; None removes.
IndexUpdate = tuple[os.stat_result, ObjectID, int] | None


def write_index_updates(repo: Repo, updates: dict[bytes, IndexUpdate]) -> None:
    """Our byte-copying index writer when it handles the index, else dulwich's."""
    encoded = {path: update and encode_entry(path, *update) for path, update in updates.items()}
    if rewrite_index(repo.index_path(), encoded):
        return
    index = repo.open_index()
    for path, update in updates.items():
        if update is not None:
            index[path] = index_entry_from_stat(*update)
        elif path in index:
            del index[path]
    index.write()


def unstage(repo: Repo, paths: list[str]) -> list[str]:
    """Reset index entries to HEAD; the work tree is left exactly as it is."""
    targets = _targets(repo, paths, _changes(repo, "staged", "renamed_from"))
    head = flatten(repo.object_store, head_tree_id(repo))
    updates: dict[bytes, IndexUpdate] = {}
    for path in targets:
        if path in head:
            mode, sha = head[path]
            updates[path] = (NO_STAT, sha, mode)  # stat data unknown: the next status hashes it
        else:
            updates[path] = None
    write_index_updates(repo, updates)
    return [decode(p) for p in targets]


def discard(repo: Repo, paths: list[str]) -> list[str]:
    """Restore work-tree files from the index; delete untracked files named explicitly.

    Every path is checked before the first file is touched. The index is left as it is: its
    entries already hold what the files now contain (the next status hashes them once, as git
    would refresh them), so no index write can fail after the work tree has changed."""
    targets = _targets(repo, paths, _changes(repo, "unstaged", "untracked"))
    view = read_index(repo.index_path())
    root = os.fsencode(repo.path)
    for path in targets:
        ensure_safe_parent(root, path)
        if path in view.conflicted:
            raise Conflict("resolve the conflict before discarding", files=[decode(path)])
        full = os.path.join(root, path)
        if path in view.entries and os.path.isdir(full) and not os.path.islink(full):
            raise Conflict("a folder is where this file was: move or delete it first", files=[decode(path)])
        blocking = file_in_place_of_folder(root, path) if path in view.entries else None
        if blocking is not None:
            raise Conflict("a file is where this file's folder was: move or delete it first",
                           files=[decode(blocking)])
    for path in targets:
        entry = view.entries.get(path)
        if entry is None:
            if path not in view.skipped:
                remove_file(root, path)
            continue
        blob = repo.object_store[entry.sha]
        assert isinstance(blob, Blob)
        full = os.path.join(root, path)
        if os.path.lexists(full):
            os.unlink(full)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        build_file_from_blob(blob, entry.mode, full)
    return [decode(p) for p in targets]
