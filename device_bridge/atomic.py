"""Atomic file writes, the one way both the server and the device agent replace a file.

A write goes to a temp file in the same folder → fsync → ``os.replace`` → fsync the folder, so
after a crash the target is either the old file or the new one, never a torn mix. It lives here
(not in ``server/``) because the device agent never imports the server; ``server/core/fsutil.py``
re-exports it and adds the full-disk error of the HTTP API.

A temp file is named ``.<name>.<random>.tmp``. Content streamed elsewhere first (a resumable
download's ``.part`` file, a staging folder) is put in place with :func:`publish`.
"""

import json
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

TEMP_PREFIX = "."
TEMP_SUFFIX = ".tmp"
# mkstemp's random part is 8 characters of [a-z0-9_].
TEMP_NAME = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")
# Room for the dots, mkstemp's 8 random characters and the suffix within 255 bytes.
TEMP_NAME_KEEP = 200
NEW_FILE_MODE = 0o644


def is_temp_name(name: str) -> bool:
    """True for the name of an atomic write's temp file."""
    return bool(TEMP_NAME.match(name))


def fsync_dir(folder: Path) -> None:
    """Make the entries of ``folder`` (a rename into it) durable."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _temp_prefix(name: str) -> str:
    """``.<name>.``, the name cut so a 255-byte name still has a temp file of legal length."""
    short = os.fsencode(name)[:TEMP_NAME_KEEP].decode("utf-8", "ignore")
    return f"{TEMP_PREFIX}{short}."


def atomic_write(path: Path, chunks: Iterable[bytes], *, limit: int | None = None,
                 mode: int | None = None) -> int:
    """Write ``chunks`` to ``path`` atomically; returns the size written.

    With ``limit``, raises ``OverflowError`` (leaving the old file untouched) once more than
    ``limit`` bytes arrive. The file gets ``mode`` if given, else an existing file keeps its
    permission bits and a new one gets 0644. On any error the old file is untouched and no temp
    file is left behind.
    """
    folder = path.parent
    if mode is None:
        mode = path.stat().st_mode & 0o7777 if path.exists() else NEW_FILE_MODE
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
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    fsync_dir(folder)
    return size


def write_bytes_atomic(path: Path, data: bytes, *, mode: int | None = None) -> int:
    """``path.write_bytes(data)``, atomically."""
    return atomic_write(path, [data], mode=mode)


def write_text_atomic(path: Path, text: str, *, encoding: str = "utf-8",
                      mode: int | None = None) -> int:
    """``path.write_text(text)``, atomically."""
    return atomic_write(path, [text.encode(encoding)], mode=mode)


def write_json_atomic(path: Path, obj: Any, *, mode: int | None = None, **json_kw: Any) -> int:
    """``json.dump(obj, path)`` (with ``json_kw``), atomically."""
    return write_text_atomic(path, json.dumps(obj, **json_kw), mode=mode)


def publish(temp: Path, target: Path) -> None:
    """Put ``temp`` (a file or folder written elsewhere in ``target``'s folder) in place as
    ``target``: fsync a file's content, rename, fsync the folder that now holds ``target``.

    Renaming is ``os.replace``: an existing file (or empty folder) ``target`` is replaced.
    """
    if not temp.is_dir():
        fd = os.open(temp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    os.replace(temp, target)
    fsync_dir(target.parent)
