"""Atomic file writes for the server: the shared helpers of ``device_bridge/atomic.py``
(temp file in the same folder → fsync → os.replace → fsync the folder), with a full disk
turned into the API's 507.

A temp file is named ``.<name>.<random>.tmp``; one left by a killed process is swept at start-up
(``server/core/leftovers.py``) and never shown by the file tree, the watcher or Git status.
"""

import errno
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from device_bridge import atomic
from device_bridge.atomic import (
    TEMP_NAME,
    TEMP_NAME_KEEP,
    TEMP_PREFIX,
    TEMP_SUFFIX,
    fsync_dir,
    is_temp_name,
    publish,
    write_bytes_atomic,
    write_json_atomic,
    write_text_atomic,
)
from server.core.errors import InsufficientStorage

__all__ = [
    "FULL_DISK_ERRNOS", "TEMP_NAME", "TEMP_NAME_KEEP", "TEMP_PREFIX", "TEMP_SUFFIX", "atomic_write",
    "disk_full", "fsync_dir", "is_temp_name", "publish", "storage_errors", "write_bytes_atomic",
    "write_json_atomic", "write_text_atomic",
]

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


@contextmanager
def storage_errors(what: str) -> Iterator[None]:
    """Turn a full disk (or quota) into a 507 saying what could not be written."""
    try:
        yield
    except OSError as exc:
        if exc.errno in FULL_DISK_ERRNOS:
            raise InsufficientStorage(f"the disk is full: {what} was not written") from None
        raise


def atomic_write(path: Path, chunks: Iterable[bytes], *, limit: int | None = None) -> int:
    """Write ``chunks`` to ``path`` atomically; returns the size written.

    With ``limit``, raises ``OverflowError`` (leaving the old file untouched) once more than
    ``limit`` bytes arrive. An existing file keeps its permission bits. A full disk raises
    ``InsufficientStorage`` with the old file untouched and no temp file left behind.
    """
    with storage_errors(path.name):
        return atomic.atomic_write(path, chunks, limit=limit)

