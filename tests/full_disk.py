"""A real, small, full file system for tests: a tmpfs mounted with ``size=`` (needs root)."""

import errno
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

FILL_CHUNK = b"\0" * 65536


@contextmanager
def small_disk(where: Path, size: str = "8m") -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``where`` for the block, unmounted after."""
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)],
                   check=True, capture_output=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=True, capture_output=True)


def can_mount() -> bool:
    return os.geteuid() == 0


@contextmanager
def filled(disk: Path, leave: int = 0) -> Iterator[None]:
    """Fill ``disk`` to the last byte for the block (a filler file grown until ENOSPC), less
    ``leave`` bytes given back, then free the space again."""
    filler = disk / ".filler"
    with open(filler, "wb", buffering=0) as handle:
        for size in (len(FILL_CHUNK), 4096, 1):
            try:
                while True:
                    handle.write(FILL_CHUNK[:size])
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
        if leave:
            handle.truncate(max(0, handle.tell() - leave))
    try:
        yield
    finally:
        filler.unlink()
