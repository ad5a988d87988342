"""New blobs from work-tree files, written loose as ``git add`` writes them, several at a time.

Each file is read, hashed, compressed and written to a temporary file in its object folder,
then renamed to its name; a reader sees the whole object or none. Reading, hashing
(``hashlib``), compressing (``zlib``) and the file system calls all let other threads run, so a
few files go at once: 50 files cost about what 20 did one by one. An object that is there
already is written again with the same bytes (git would only refresh its time; both keep it
from being pruned). Stores this writer does not handle as git would — shared permissions
(``core.sharedRepository``), not on disk — are written through dulwich, one object at a time.
"""

import os
import stat
import zlib
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from hashlib import sha1

from dulwich.object_store import DiskObjectStore
from dulwich.objects import Blob, ObjectID
from dulwich.repo import Repo

# Up to this many new objects are written loose, as ``git add`` does; more go into one pack,
# whose name dulwich checks against every pack's (~60 ms beside an 80,000-object pack).
LOOSE_MAX = 256
_WORKERS = 4
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)


@cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(_WORKERS, thread_name_prefix="git-objects")


def file_contents(full: bytes, file_stat: os.stat_result) -> bytes:
    """What a blob of the file at ``full`` holds: a symlink's target, else the file's bytes."""
    if stat.S_ISLNK(file_stat.st_mode):
        return os.readlink(full)
    with open(full, "rb") as f:
        return f.read()


def add_files(repo: Repo, files: list[tuple[bytes, os.stat_result]]) -> list[ObjectID]:
    """Each file's blob written to the object store; their ids, in order."""
    store = repo.object_store
    if len(files) > LOOSE_MAX or not _writes_itself(store):
        blobs = [Blob.from_string(file_contents(full, st)) for full, st in files]
        add_blobs(repo, blobs)
        return [blob.id for blob in blobs]
    assert isinstance(store, DiskObjectStore)
    level, durable = store.loose_compression_level, store.fsync_object_files

    def one(file: tuple[bytes, os.stat_result]) -> ObjectID:
        return write_loose(store.path, file_contents(*file), level, durable)

    if len(files) < 2:
        return [one(file) for file in files]
    return list(_pool().map(one, files))


def add_blobs(repo: Repo, blobs: list[Blob]) -> None:
    """Blobs already in memory: loose up to ``LOOSE_MAX``, else one pack."""
    store = repo.object_store
    if len(blobs) > LOOSE_MAX:
        store.add_objects([(blob, None) for blob in blobs])
    elif not _writes_itself(store):
        for blob in blobs:
            store.add_object(blob)
    else:
        assert isinstance(store, DiskObjectStore)
        for blob in blobs:
            write_loose(store.path, blob.as_raw_string(), store.loose_compression_level,
                        store.fsync_object_files)


def _writes_itself(store: object) -> bool:
    return isinstance(store, DiskObjectStore) and store.shared_perm is None


def write_loose(objects: str | os.PathLike[str], data: bytes, level: int, durable: bool) -> ObjectID:
    """The blob holding ``data``, written under ``objects`` (``.git/objects``); its id."""
    header = b"blob %d\0" % len(data)
    digest = sha1(header, usedforsecurity=False)
    digest.update(data)
    sha = digest.hexdigest()
    folder = os.path.join(objects, sha[:2])
    compress = zlib.compressobj(level)
    body = compress.compress(header) + compress.compress(data) + compress.flush()
    temporary = os.path.join(folder, f"tmp_obj_{os.urandom(6).hex()}")
    try:
        fd = os.open(temporary, _FLAGS, 0o444)
    except FileNotFoundError:  # the object folder's first object
        os.makedirs(folder, exist_ok=True)
        fd = os.open(temporary, _FLAGS, 0o444)
    try:
        rest = memoryview(body)
        while rest:
            rest = rest[os.write(fd, rest):]
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.replace(temporary, os.path.join(folder, sha[2:]))
    except BaseException:
        os.unlink(temporary)
        raise
    return ObjectID(sha.encode("ascii"))
