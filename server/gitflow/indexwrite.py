"""Rewriting ``.git/index`` in place of dulwich's writer: unchanged entries copied byte for byte.

An index this process wrote last is kept as its entries' raw bytes in path order, so the next
rewrite only replaces the updated entries and joins the rest (no entry is parsed or encoded
again), and the new version's parsed view is derived from the last one (``indexfile``) instead
of being parsed again by the next status. Any other writer's file is read afresh.
"""

import os
from binascii import unhexlify
from bisect import bisect_left
from dataclasses import dataclass
from hashlib import sha1

from dulwich.file import GitFile

from server.core.cache import BoundedCache
from server.gitflow.indexfile import _ENTRY, _EXTENDED, _HEADER, known_view, remember_view, updated_view

# Extensions that describe only derived data, which a rewrite may drop (git rebuilds them).
_DROPPABLE_EXTENSIONS = (b"TREE", b"REUC", b"UNTR")

# Stat data for an entry whose file was not looked at: status always hashes such a file.
NO_STAT = os.stat_result((0,) * 10, {"st_atime_ns": 0, "st_mtime_ns": 0, "st_ctime_ns": 0})

FileKey = tuple[int, int, int, int]


def encode_entry(path: bytes, st: os.stat_result, sha: bytes, mode: int) -> bytes:
    """One version-2 index entry for a file just hashed from the work tree."""
    fields = (
        int(st.st_ctime) & 0xFFFFFFFF,
        st.st_ctime_ns % 1_000_000_000,
        int(st.st_mtime) & 0xFFFFFFFF,
        st.st_mtime_ns % 1_000_000_000,
        st.st_dev & 0xFFFFFFFF,
        st.st_ino & 0xFFFFFFFF,
        mode,
        st.st_uid & 0xFFFFFFFF,
        st.st_gid & 0xFFFFFFFF,
        st.st_size & 0xFFFFFFFF,
    )
    raw = _ENTRY.pack(*fields, unhexlify(sha), min(len(path), 0xFFF)) + path
    return raw + b"\0" * (8 - len(raw) % 8)


@dataclass
class RawIndex:
    """An index's entries as raw bytes: ``blocks[i]`` holds every stage of ``paths[i]``."""

    paths: list[bytes]  # sorted, as git sorts them
    blocks: list[bytes]
    count: int  # entries (stages) in all
    extended: int  # paths with an entry in the extended (version 3) format

    def copy(self) -> "RawIndex":
        return RawIndex(list(self.paths), list(self.blocks), self.count, self.extended)

    def apply(self, updates: dict[bytes, bytes | None]) -> None:
        """Put each ``path -> raw entry`` in (all of the path's stages replaced); None removes."""
        for path, raw in updates.items():
            i = bisect_left(self.paths, path)
            if i < len(self.paths) and self.paths[i] == path:
                count, extended = _block_counts(self.blocks[i])
                self.count, self.extended = self.count - count, self.extended - extended
                if raw is None:
                    del self.paths[i], self.blocks[i]
                    continue
                self.blocks[i] = raw
            elif raw is None:
                continue
            else:
                self.paths.insert(i, path)
                self.blocks.insert(i, raw)
            count, extended = _block_counts(raw)
            self.count, self.extended = self.count + count, self.extended + extended

    def data(self) -> bytes:
        """The index file's bytes, checksum included."""
        data = _HEADER.pack(b"DIRC", 3 if self.extended else 2, self.count) + b"".join(self.blocks)
        return data + sha1(data, usedforsecurity=False).digest()


def _block_counts(block: bytes) -> tuple[int, int]:
    """How many entries ``block`` holds, and 1 if any is in the extended format (else 0)."""
    count = extended = offset = 0
    while offset < len(block):
        flags = int.from_bytes(block[offset + 60 : offset + 62], "big")
        start = offset + (64 if flags & _EXTENDED else 62)
        extended |= 1 if flags & _EXTENDED else 0
        length = flags & 0xFFF
        end = block.index(b"\0", start) if length == 0xFFF else start + length
        offset += (end - offset + 8) & ~7
        count += 1
    return count, extended


def rewrite_index(index_path: str, updates: dict[bytes, bytes | None]) -> bool:
    """Apply ``path -> encoded entry`` (None removes) to the index, under git's lock file.

    Returns False, writing nothing, for an index this writer does not handle (version 4, split
    or sparse indexes); use dulwich's then.
    """
    with GitFile(index_path, "wb", fsync=False) as f:  # as git: its core.fsync leaves out the index
        before = _file_key(index_path)
        last = _written.get(index_path)
        raw = last[1].copy() if last is not None and last[0] == before else _read_raw(index_path)
        if raw is None:
            f.abort()
            return False
        raw.apply(updates)
        f.write(raw.data())
        f.flush()
        written = os.fstat(f.fileno()).st_ino
    known = known_view(index_path)
    after = os.stat(index_path)
    key = (after.st_ino, after.st_size, after.st_mtime_ns, after.st_ctime_ns)
    if after.st_ino == written:  # the next rewrite of this very file need not split it again
        _written.put(index_path, (key, raw))
    if known is not None and known[0] == before and after.st_ino == written:
        remember_view(index_path, key, updated_view(known[1], updates, after.st_mtime_ns))
    return True


# Per index file, the raw entries this process last wrote to it (any other writer's file misses).
_written: BoundedCache[str, tuple[FileKey, RawIndex]] = BoundedCache(4)


def _file_key(path: str) -> FileKey | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _read_raw(index_path: str) -> RawIndex | None:
    """The index's raw entries, or None for an index we do not rewrite."""
    try:
        with open(index_path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return RawIndex([], [], 0, 0)
    signature, version, count = _HEADER.unpack_from(data, 0)
    if signature != b"DIRC" or version not in (2, 3):
        return None
    entries: dict[bytes, list[bytes]] = {}
    extended: set[bytes] = set()
    offset = 12
    for _ in range(count):
        flags = int.from_bytes(data[offset + 60 : offset + 62], "big")
        start = offset + (64 if flags & _EXTENDED else 62)
        length = flags & 0xFFF
        end = data.find(b"\0", start) if length == 0xFFF else start + length
        size = (end - offset + 8) & ~7
        path = data[start:end]
        entries.setdefault(path, []).append(data[offset : offset + size])
        if flags & _EXTENDED:
            extended.add(path)
        offset += size
    while offset < len(data) - 20:
        if data[offset : offset + 4] not in _DROPPABLE_EXTENSIONS:
            return None
        offset += 8 + int.from_bytes(data[offset + 4 : offset + 8], "big")
    paths = sorted(entries)
    return RawIndex(paths, [b"".join(entries[p]) for p in paths], count, len(extended))
