"""Atomic file writes: temp file in the same folder → fsync → os.replace → fsync the folder."""

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, chunks: Iterable[bytes], *, limit: int | None = None) -> int:
    """Write ``chunks`` to ``path`` atomically; returns the size written.

    With ``limit``, raises ``OverflowError`` (leaving the old file untouched) once more than
    ``limit`` bytes arrive. An existing file keeps its permission bits.
    """
    folder = path.parent
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
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
        if mode is not None:
            os.chmod(tmp_name, mode)
        else:
            os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    _fsync_dir(folder)
    return size
