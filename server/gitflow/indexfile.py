"""A fast, read-only view of ``.git/index`` for status.

dulwich's ``Index`` builds a rich object per entry (~60 ms for 10,000 files); status needs only
the stat fields, mode and id of each entry, which one ``struct`` call per entry gives in ~6 ms.
The parsed view is cached against the index file's identity (inode, size, mtime, ctime): every
writer replaces the file through a lock file and rename, so a changed index always misses.
Reading takes no lock, like ``git status --no-optional-locks``.
"""

import os
import struct
from binascii import hexlify
from dataclasses import dataclass, field
from operator import attrgetter
from typing import NamedTuple

from dulwich.index import Index
from dulwich.objects import ObjectID

from server.core.cache import BoundedCache

_ENTRY = struct.Struct(">10I20sH")
_HEADER = struct.Struct(">4sII")
_EXTENDED = 0x4000
_SKIP_WORKTREE = 0x4000
_INTENT_TO_ADD = 0x2000  # `git add -N`: an entry with the empty blob, not staged yet


class Entry(NamedTuple):
    mode: int
    sha: ObjectID  # hex
    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int


@dataclass
class IndexView:
    entries: dict[bytes, Entry] = field(default_factory=dict)
    conflicted: set[bytes] = field(default_factory=set)
    skipped: set[bytes] = field(default_factory=set)
    mtime_ns: int = 0
    # Entries added with `git add -N`: tracked (not untracked), but not staged against HEAD.
    intended: set[bytes] = field(default_factory=set)

    _folders: dict[bytes, set[bytes]] | None = field(default=None, repr=False)
    _paths: list[bytes] | None = field(default=None, repr=False)
    _positions: dict[bytes, int] | None = field(default=None, repr=False)  # in ``_paths``
    _clean: list[tuple[int, ...] | None] | None = field(default=None, repr=False)
    _groups: list[tuple[bytes, list[bytes]]] | None = field(default=None, repr=False)
    _subfolders: dict[bytes, list[bytes]] | None = field(default=None, repr=False)
    derived: dict[object, object] = field(default_factory=dict, repr=False)
    # What this view was derived from: the last version's ``derived`` and the paths updated since.
    previous: tuple[dict[object, object], frozenset[bytes]] | None = field(default=None, repr=False)

    def clean_keys(self) -> tuple[list[bytes], list[tuple[int, ...] | None]]:
        """Tracked paths, and per path the ``STAT_FIELDS`` a file known to be clean has.

        A key starts as the index entry's own stat data, except for racily clean entries
        (modified no earlier than the index was written), which must always be hashed.
        """
        if self._paths is None or self._clean is None:
            self._paths = sorted(self.entries, key=_folder_and_name)
            entries = [self.entries[path] for path in self._paths]
            self._clean = [_entry_key(e, self.mtime_ns) for e in entries]
        return self._paths, self._clean

    def folder_groups(self) -> list[tuple[bytes, list[bytes]]]:
        """``clean_keys``'s paths as runs of ``(folder, names)``, in the same order."""
        if self._groups is None:
            groups: list[tuple[bytes, list[bytes]]] = []
            for path in self.clean_keys()[0]:
                folder, name = _folder_and_name(path)
                if not groups or groups[-1][0] != folder:
                    groups.append((folder, []))
                groups[-1][1].append(name)
            self._groups = groups
        return self._groups

    def mark_clean(self, position: int, key: tuple[int, ...]) -> None:
        """Remember stat data verified by hashing, as ``git status`` refreshes its index."""
        if self._clean is not None:
            self._clean[position] = key

    def subfolders(self) -> dict[bytes, list[bytes]]:
        """Per tracked folder, the paths of its tracked subfolders."""
        if self._subfolders is None:
            subfolders: dict[bytes, list[bytes]] = {folder: [] for folder in self.folders()}
            for folder in subfolders:
                if folder:
                    subfolders[folder.rpartition(b"/")[0]].append(folder)
            self._subfolders = subfolders
        return self._subfolders

    def folders(self) -> dict[bytes, set[bytes]]:
        """Tracked names per folder (``b""`` is the root), built once per index version."""
        if self._folders is None:
            folders: dict[bytes, set[bytes]] = {}
            for path in (*self.entries, *self.conflicted, *self.skipped):
                parent, _, name = path.rpartition(b"/")
                names = folders.get(parent)
                if names is None:
                    names = folders[parent] = set()
                    _register_folder(folders, parent)
                names.add(name)
            self._folders = folders
        return self._folders


def _entry_key(entry: Entry, index_mtime_ns: int) -> tuple[int, ...] | None:
    """The entry's own stat data as a clean key, unless it is racily clean (modified no earlier
    than the index was written: its file must be hashed)."""
    if entry.mtime_ns < index_mtime_ns:
        return (entry.mtime_ns, entry.size, entry.ctime_ns, entry.ino, entry.mode)
    return None


def _folder_and_name(path: bytes) -> tuple[bytes, bytes]:
    folder, _, name = path.rpartition(b"/")
    return folder, name


def _register_folder(folders: dict[bytes, set[bytes]], folder: bytes) -> None:
    """Add ``folder`` to its parent's names, and so on up to the first known ancestor."""
    while folder:
        parent, _, leaf = folder.rpartition(b"/")
        names = folders.get(parent)
        if names is not None:
            names.add(leaf)
            return
        folders[parent] = {leaf}
        folder = parent


# The stat fields git compares; a file whose fields equal a clean key is unchanged.
STAT_FIELDS = attrgetter("st_mtime_ns", "st_size", "st_ctime_ns", "st_ino", "st_mode")


# Per index file, its last parsed version: an older one is never asked for again.
_views: BoundedCache[str, tuple[tuple[int, int, int, int], IndexView]] = BoundedCache(16)


def known_view(index_path: str) -> tuple[tuple[int, int, int, int], IndexView] | None:
    """The last parsed view of ``index_path`` and the file identity it was parsed at."""
    return _views.get(index_path)


def remember_view(index_path: str, key: tuple[int, int, int, int], view: IndexView) -> None:
    _views.put(index_path, (key, view))


def read_index(index_path: str) -> IndexView:
    """The index at ``index_path`` (an empty view when the repository has none yet)."""
    try:
        st = os.stat(index_path)
    except FileNotFoundError:
        return IndexView()
    key = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    known = _views.get(index_path)
    if known is not None and known[0] == key:
        return known[1]
    view = _parse(index_path)
    view.mtime_ns = st.st_mtime_ns
    _views.put(index_path, (key, view))
    return view


def _parse(index_path: str) -> IndexView:
    with open(index_path, "rb") as f:
        data = f.read()
    signature, version, _count = _HEADER.unpack_from(data, 0)
    if signature != b"DIRC" or version not in (2, 3):
        return _parse_with_dulwich(index_path)
    return _parse_entries(data)


def _parse_entries(data: bytes) -> IndexView:
    """The entries of a version 2 or 3 index (its header's count of them, from offset 12)."""
    count = _HEADER.unpack_from(data, 0)[2]
    view = IndexView()
    offset = 12
    unpack, find = _ENTRY.unpack_from, data.find
    for _ in range(count):
        (c_s, c_ns, m_s, m_ns, _dev, ino, mode, _uid, _gid, size, sha, flags) = unpack(data, offset)
        start = offset + 62
        ext_flags = 0
        if flags & _EXTENDED:
            ext_flags = int.from_bytes(data[start : start + 2], "big")
            start += 2
        length = flags & 0xFFF
        end = find(b"\0", start) if length == 0xFFF else start + length
        path = data[start:end]
        offset += (end - offset + 8) & ~7
        if (flags >> 12) & 3:
            view.conflicted.add(path)
        elif ext_flags & _SKIP_WORKTREE:
            view.skipped.add(path)
        else:
            if ext_flags & _INTENT_TO_ADD:
                view.intended.add(path)
            view.entries[path] = Entry(
                mode,
                ObjectID(hexlify(sha)),
                size,
                m_s * 1_000_000_000 + m_ns,
                c_s * 1_000_000_000 + c_ns,
                ino,
            )
    view.entries = {p: e for p, e in view.entries.items() if p not in view.conflicted}
    return view


def _parse_with_dulwich(index_path: str) -> IndexView:
    """Index versions this reader does not parse itself (v4 path compression)."""
    from dulwich.index import ConflictedIndexEntry

    view = IndexView()
    for path, entry in Index(index_path).items():
        if isinstance(entry, ConflictedIndexEntry):
            view.conflicted.add(path)
            continue
        if entry.extended_flags & _SKIP_WORKTREE:
            view.skipped.add(path)
            continue
        if entry.extended_flags & _INTENT_TO_ADD:
            view.intended.add(path)
        m_s, m_ns = entry.mtime if isinstance(entry.mtime, tuple) else (int(entry.mtime), 0)
        c_s, c_ns = entry.ctime if isinstance(entry.ctime, tuple) else (int(entry.ctime), 0)
        view.entries[path] = Entry(
            entry.mode, entry.sha, entry.size, m_s * 10**9 + m_ns, c_s * 10**9 + c_ns, entry.ino
        )
    return view


# Past this many updated entries, the derived view's sorted paths and clean keys are rebuilt.
_PATCH_MAX = 64


def updated_view(old: IndexView, updates: dict[bytes, bytes | None], mtime_ns: int) -> IndexView:
    """The view of the index ``old`` was parsed from, with ``updates`` applied."""
    new = IndexView(dict(old.entries), set(old.conflicted), set(old.skipped), mtime_ns,
                    intended=set(old.intended))
    new.previous = (old.derived, frozenset(updates))
    for path in updates:
        new.entries.pop(path, None)
        new.conflicted.discard(path)
        new.skipped.discard(path)
        new.intended.discard(path)
    raws = [raw for raw in updates.values() if raw is not None]
    added = _parse_entries(_HEADER.pack(b"DIRC", 3, len(raws)) + b"".join(raws))
    new.entries.update(added.entries)
    new.conflicted |= added.conflicted
    new.skipped |= added.skipped
    new.intended |= added.intended
    same_paths = (new.entries.keys() == old.entries.keys() and new.conflicted == old.conflicted
                  and new.skipped == old.skipped)
    if same_paths and old._paths is not None and old._clean is not None and len(updates) <= _PATCH_MAX:
        # Only entries changed: the folder structure stands, and so do the other clean keys.
        new._paths, new._groups = old._paths, old._groups
        new._folders, new._subfolders = old._folders, old._subfolders
        new._clean = list(old._clean)
        if old._positions is None:
            old._positions = {path: i for i, path in enumerate(old._paths)}
        new._positions = old._positions
        for path in updates.keys() & new.entries.keys():
            new._clean[old._positions[path]] = _entry_key(new.entries[path], mtime_ns)
    return new
