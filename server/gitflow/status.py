"""Fast status: staged (index vs HEAD), unstaged (work tree vs index), untracked, conflicted.

Where dulwich's ``porcelain.status`` spends its time (docs/git.md, Speed): reading the index into rich
objects, and an untracked scan that rescans the index once per folder. Here the index is read
into plain tuples (``indexfile``), the work tree is compared like git does — ``lstat`` each
tracked file (or take its stat from ``fsmonitor`` when nothing changed it since the last status)
and hash it only when its stat data differs from the index entry's — and untracked
files are found by listing only folders, subtracting each folder's set of tracked names, so the
ignore rules are consulted for untracked candidates only. Nothing here takes a lock.
"""

import os
import posixpath
import stat
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import compress
from operator import ne

from dulwich.ignore import IgnoreFilterManager
from dulwich.objects import Blob
from dulwich.repo import Repo

from server.core.cache import BoundedCache
from server.core.fsutil import is_temp_name
from server.gitflow.fsmonitor import MISSING, monitor
from server.gitflow.indexfile import STAT_FIELDS, Entry, IndexView, read_index
from server.gitflow.models import ChangeKind, FileChange, Status
from server.gitflow.trees import current_branch, flatten, head_id, head_tree_id

GITLINK = 0o160000
# A file modified this recently may change again within the file system's timestamp tick.
_RACY_MARGIN_NS = 1_000_000_000
_hashes: BoundedCache[bytes, tuple[tuple[int, ...], bytes]] = BoundedCache(4096)
_listings: BoundedCache[bytes, tuple[tuple[int, ...], list[bytes]]] = BoundedCache(65536)


@dataclass
class RawStatus:
    """Status with tree-form ``bytes`` paths, for the write operations' safety checks."""

    staged: dict[bytes, ChangeKind] = field(default_factory=dict)
    unstaged: dict[bytes, ChangeKind] = field(default_factory=dict)
    untracked: list[bytes] = field(default_factory=list)
    conflicted: set[bytes] = field(default_factory=set)
    renamed_from: dict[bytes, bytes] = field(default_factory=dict)

    def dirty(self) -> set[bytes]:
        """Paths with local changes that a checkout or merge must not overwrite."""
        return set(self.staged) | set(self.unstaged) | self.conflicted


def index_path(repo: Repo) -> str:
    return repo.index_path()


def raw_status(repo: Repo, *, untracked: bool = True) -> RawStatus:
    view = read_index(index_path(repo))
    result = RawStatus(conflicted=set(view.conflicted))
    _staged(repo, view, result)
    result.unstaged = work_tree_changes(repo, view)
    if untracked:
        gone = [path for path, kind in result.unstaged.items() if kind == "deleted"]
        result.untracked = sorted(untracked_files(repo, view, gone))
    return result


def _staged(repo: Repo, view: IndexView, result: RawStatus) -> None:
    cached = staged_changes(repo, view)
    result.staged = dict(cached.staged)
    result.renamed_from = dict(cached.renamed_from)


def staged_changes(repo: Repo, view: IndexView) -> RawStatus:
    """Index vs HEAD (``staged``, ``renamed_from`` filled), cached on the index view per HEAD
    tree: both are immutable. Do not modify the result."""
    tree_id = head_tree_id(repo)
    cached = view.derived.get(("staged", tree_id))
    if cached is None:
        head = flatten(repo.object_store, tree_id)
        cached = _patched(head, view, tree_id)
        if cached is None:
            cached = RawStatus()
            _compare_index_to_tree(head, view, cached)
        view.derived[("staged", tree_id)] = cached
    return cached  # type: ignore[return-value]


# Past this many paths updated since the last version of the index, it is compared in full.
_PATCH_MAX = 512


def _patched(head: dict, view: IndexView, tree_id: bytes | None) -> RawStatus | None:
    """Index vs HEAD from the last index version's answer, only the updated paths compared again
    (a stage or unstage changes a few entries of thousands); None when that answer is unknown."""
    if view.previous is None or len(view.previous[1]) > _PATCH_MAX:
        return None
    before = view.previous[0].get(("staged", tree_id))
    if not isinstance(before, RawStatus):
        return None
    changed = view.previous[1]
    result = RawStatus()
    added: dict[bytes, bytes] = {}
    deleted: dict[bytes, bytes] = {path: head[path][1] for path in before.renamed_from.values()
                                   if path not in changed}
    for path, kind in before.staged.items():
        if path in changed:
            continue
        if kind in ("added", "renamed"):
            added[path] = view.entries[path].sha
        elif kind == "deleted":
            deleted[path] = head[path][1]
        else:
            result.staged[path] = kind
    for path in sorted(changed):
        if path in view.intended:
            continue
        entry, old = view.entries.get(path), head.get(path)
        if entry is None:
            if old is not None and path not in view.skipped and path not in view.conflicted:
                deleted[path] = old[1]
        elif old is None:
            added[path] = entry.sha
        elif old[1] != entry.sha or old[0] != entry.mode:
            same_type = stat.S_IFMT(old[0]) == stat.S_IFMT(entry.mode)
            result.staged[path] = "modified" if same_type else "typechange"
    pair_renames(result, dict(sorted(added.items())), dict(sorted(deleted.items())))
    return result


def note_index_matches(view: IndexView, tree_id: bytes) -> None:
    """Record that the index equals the tree ``tree_id`` (it was just committed as it)."""
    view.derived[("staged", tree_id)] = RawStatus()


def _compare_index_to_tree(head: dict, view: IndexView, result: RawStatus) -> None:
    added: dict[bytes, bytes] = {}
    for path, entry in view.entries.items():
        if path in view.intended:
            continue
        old = head.get(path)
        if old is None:
            added[path] = entry.sha
        elif old[1] != entry.sha or old[0] != entry.mode:
            same_type = stat.S_IFMT(old[0]) == stat.S_IFMT(entry.mode)
            result.staged[path] = "modified" if same_type else "typechange"
    removed = head.keys() - view.entries.keys() - view.skipped - view.conflicted
    pair_renames(result, added, {path: head[path][1] for path in removed})


def pair_renames(result: RawStatus, added: dict[bytes, bytes], deleted: dict[bytes, bytes]) -> None:
    """Record ``added`` and ``deleted`` (path -> blob id) as staged; an added path whose blob a
    deleted path had is a rename of it (exact renames only)."""
    for path in deleted:
        result.staged[path] = "deleted"
    by_blob = {blob_id: path for path, blob_id in deleted.items()}
    for path, blob_id in added.items():
        old_path = by_blob.pop(blob_id, None)
        if old_path is not None:
            del result.staged[old_path]
            result.staged[path] = "renamed"
            result.renamed_from[path] = old_path
        else:
            result.staged[path] = "added"


def work_tree_changes(repo: Repo, view: IndexView) -> dict[bytes, ChangeKind]:
    """Tracked files whose work-tree content or type differs from their index entry.

    The stats come from the monitor (only files changed since the last status are stat'ed
    again); the comparison runs as a C-level ``map`` over all entries, and only entries whose
    stat data differs from a known-clean key reach Python code, and are hashed.
    """
    root = os.fsencode(repo.path) + b"/"
    paths, clean = view.clean_keys()
    stats = monitor.stats(root, view.folder_groups(), view.folders())
    suspects = compress(range(len(paths)), map(ne, map(STAT_FIELDS, stats), clean))
    filemode = _trust_filemode(repo)
    settled_before = time.time_ns() - _RACY_MARGIN_NS
    changes: dict[bytes, ChangeKind] = {}
    for position in suspects:
        path, st = paths[position], stats[position]
        kind = _compare(root + path, view.entries[path], st, filemode)
        if kind:
            changes[path] = kind
        elif st.st_mtime_ns < settled_before:
            view.mark_clean(position, STAT_FIELDS(st))
    for path in view.intended:  # as git shows them: " A", or " D" once the file is gone
        changes[path] = "deleted" if changes.get(path) == "deleted" else "added"
    return changes


def _compare(full: bytes, entry: Entry, st: os.stat_result, filemode: bool) -> ChangeKind | None:
    if st is MISSING:
        return "deleted"
    if entry.mode == GITLINK:
        return None if stat.S_ISDIR(st.st_mode) else "typechange"
    mode = _work_tree_mode(st, entry.mode, filemode)
    if mode is None:
        return "deleted" if stat.S_ISDIR(st.st_mode) else "typechange"
    if stat.S_IFMT(mode) != stat.S_IFMT(entry.mode):
        return "typechange"
    if mode != entry.mode:
        return "modified"
    if entry.size and st.st_size & 0xFFFFFFFF != entry.size:
        return "modified"
    return "modified" if _hash_file(full, mode, st) != entry.sha else None


def _work_tree_mode(st: os.stat_result, index_mode: int, filemode: bool) -> int | None:
    if stat.S_ISLNK(st.st_mode):
        return 0o120000
    if not stat.S_ISREG(st.st_mode):
        return None
    if not filemode and stat.S_ISREG(index_mode):
        return index_mode
    return 0o100755 if st.st_mode & 0o100 else 0o100644


def _hash_file(full: bytes, mode: int, st: os.stat_result) -> bytes:
    """The blob id of a work-tree file, remembered while its stat data stays the same."""
    key = STAT_FIELDS(st)
    known = _hashes.get(full)
    if known is not None and known[0] == key:
        return known[1]
    if stat.S_ISLNK(mode):
        sha = Blob.from_string(os.readlink(full)).id
    else:
        with open(full, "rb") as f:
            sha = Blob.from_string(f.read()).id
    if st.st_mtime_ns < time.time_ns() - _RACY_MARGIN_NS:
        _hashes.put(full, (key, sha))
    return sha


def _trust_filemode(repo: Repo) -> bool:
    return repo.get_config().get_boolean((b"core",), b"filemode", True)


def untracked_files(repo: Repo, view: IndexView, gone: Iterable[bytes] = ()) -> Iterator[bytes]:
    """Untracked, not ignored files; folders holding only tracked names are never matched.

    ``gone`` are tracked files missing from the work tree: where a folder took the place of
    one, its files are untracked."""
    root = os.fsencode(repo.path)
    folders, subfolders = view.folders(), view.subfolders()
    ignore: IgnoreFilterManager | None = None
    for path in gone:
        full = root + b"/" + path
        if os.path.isdir(full) and not os.path.islink(full):
            ignore = ignore or IgnoreFilterManager.from_repo(repo)
            yield from _untracked_below(root, path, ignore)
    known, token = monitor.listings(root + b"/")
    listed: dict[bytes, list[bytes]] = {}
    stack = [b""]
    while stack:
        folder = stack.pop()
        names = known.get(folder)
        if names is None:
            names = _list_folder(root + b"/" + folder if folder else root)
            if names is not None:
                listed[folder] = names
        if names is None:
            if folder and os.path.lexists(root + b"/" + folder):  # a file where a folder was
                ignore = ignore or IgnoreFilterManager.from_repo(repo)
                yield from _untracked_below(root, folder, ignore)
            continue
        stack.extend(subfolders.get(folder, ()))
        for name in set(names) - folders.get(folder, set()):
            if not folder and name == b".git":
                continue
            if ignore is None:
                ignore = IgnoreFilterManager.from_repo(repo)
            child = folder + b"/" + name if folder else name
            yield from _untracked_below(root, child, ignore)
    monitor.keep_listings(root + b"/", listed, token)


def _untracked_below(root: bytes, path: bytes, ignore: IgnoreFilterManager) -> Iterator[bytes]:
    """``path`` itself when it is an untracked file, or the files of an untracked folder."""
    full = root + b"/" + path
    text = path.decode("utf-8", "surrogateescape")
    if not (os.path.isdir(full) and not os.path.islink(full)):
        # A save's temp file is the server's, not the user's, even when a kill left it.
        if not ignore.is_ignored(text) and not is_temp_name(posixpath.basename(text)):
            yield path
        return
    if ignore.is_ignored(text + "/") or os.path.exists(full + b"/.git"):
        return
    for name in sorted(os.listdir(full)):
        yield from _untracked_below(root, path + b"/" + name, ignore)


def _list_folder(full: bytes) -> list[bytes] | None:
    """A folder's names, reused while the folder's own stat data is unchanged (git's untracked
    cache: creating, deleting or renaming an entry updates the folder's mtime)."""
    try:
        st = os.lstat(full)
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode):
        return None
    key = STAT_FIELDS(st)
    known = _listings.get(full)
    if known is not None and known[0] == key:
        return known[1]
    names = os.listdir(full)
    if st.st_mtime_ns < time.time_ns() - _RACY_MARGIN_NS:
        _listings.put(full, (key, names))
    return names


def to_model(repo: Repo, raw: RawStatus) -> Status:
    def change(path: bytes, kind: ChangeKind) -> FileChange:
        old = raw.renamed_from.get(path)
        return FileChange(path=decode(path), kind=kind, old_path=decode(old) if old else None)

    head = head_id(repo)
    return Status(
        branch=current_branch(repo),
        head=head.decode() if head else None,
        staged=[change(p, k) for p, k in sorted(raw.staged.items())],
        unstaged=[change(p, k) for p, k in sorted(raw.unstaged.items())],
        untracked=[change(p, "added") for p in raw.untracked],
        conflicted=[change(p, "modified") for p in sorted(raw.conflicted)],
    )


def decode(path: bytes) -> str:
    return path.decode("utf-8", "replace")


def status(repo: Repo) -> Status:
    return to_model(repo, raw_status(repo))
