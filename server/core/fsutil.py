"""Atomic file writes: temp file in the same folder → fsync → os.replace → fsync the folder.

A temp file is named ``.<name>.<random>.tmp``; one left by a killed process is swept at start-up
(``server/core/leftovers.py``) and never shown by the file tree, the watcher or Git status.
"""

import errno
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from server.core.errors import InsufficientStorage

TEMP_PREFIX = "."
TEMP_SUFFIX = ".tmp"
# mkstemp's random part is 8 characters of [a-z0-9_].
TEMP_NAME = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")
# Room for the dots, mkstemp's 8 random characters and the suffix within 255 bytes.
TEMP_NAME_KEEP = 200
FULL_DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


# Below this much free space a failed write is put down to the disk being full.
FULL_DISK_MARGIN = 1024 * 1024


def disk_full(path: Path) -> bool:
    """True when the file system holding ``path`` has (almost) no space left for us."""
    try:
        stats = os.statvfs(path)
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize < FULL_DISK_MARGIN


def is_temp_name(name: str) -> bool:
    """True for the name of an atomic write's temp file."""
    return bool(TEMP_NAME.match(name))


@contextmanager
def storage_errors(what: str) -> Iterator[None]:
    """Turn a full disk (or quota) into a 507 saying what could not be written."""
    try:
        yield
    except OSError as exc:
        if exc.errno in FULL_DISK_ERRNOS:
            raise InsufficientStorage(f"the disk is full: {what} was not written") from None
        raise


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, chunks: Iterable[bytes], *, limit: int | None = None) -> int:
    """Write ``chunks`` to ``path`` atomically; returns the size written.

    With ``limit``, raises ``OverflowError`` (leaving the old file untouched) once more than
    ``limit`` bytes arrive. An existing file keeps its permission bits. A full disk raises
    ``InsufficientStorage`` with the old file untouched and no temp file left behind.
    """
    with storage_errors(path.name):
        return _write_replace(path, chunks, limit)


def _temp_prefix(name: str) -> str:
    """``.<name>.``, the name cut so a 255-byte name still has a temp file of legal length."""
    short = os.fsencode(name)[:TEMP_NAME_KEEP].decode("utf-8", "ignore")
    return f"{TEMP_PREFIX}{short}."


def _write_replace(path: Path, chunks: Iterable[bytes], limit: int | None) -> int:
    folder = path.parent
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    fd, tmp_name = tempfile.mkstemp(prefix=_temp_prefix(path.name), suffix=TEMP_SUFFIX, dir=folder)
    size = 0
    try:
        with os.fdopen(fd, "wb") as handle:
            for chunk in chunks:
                size += len(chunk)
                if limit is not None and size > limit:
                    raise OverflowError(size)
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode if mode is not None else 0o644)
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    _fsync_dir(folder)
    return size
