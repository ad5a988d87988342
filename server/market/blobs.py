"""The registry's file store: each file once, named by its sha256, under the data dir."""

import hashlib
import os
import tempfile
from pathlib import Path

from server.core.config import Settings
from server.core.fsutil import publish, storage_errors
from server.market.package import FileEntry, TamperedFile

CHUNK = 1 << 20


def blob_root(settings: Settings) -> Path:
    return settings.data_dir / "market" / "blobs"


def blob_path(settings: Settings, sha256: str) -> Path:
    return blob_root(settings) / sha256[:2] / sha256


def store(settings: Settings, source: Path) -> tuple[str, int]:
    """Copy ``source`` into the store; its sha256 and size (hashed while copying)."""
    root = blob_root(settings)
    root.mkdir(parents=True, exist_ok=True)
    digest, size = hashlib.sha256(), 0
    with storage_errors(source.name):
        handle, temp = tempfile.mkstemp(prefix=".blob-", dir=root)
        try:
            with os.fdopen(handle, "wb") as out, source.open("rb") as src:
                for block in iter(lambda: src.read(CHUNK), b""):
                    digest.update(block)
                    size += len(block)
                    out.write(block)
            sha = digest.hexdigest()
            final = blob_path(settings, sha)
            final.parent.mkdir(exist_ok=True)
            publish(Path(temp), final)
        finally:
            Path(temp).unlink(missing_ok=True)
    return sha, size


def copy_out(settings: Settings, entry: FileEntry, target: Path) -> None:
    """Write the blob of ``entry`` to ``target``; refuse it if it no longer has its sha256."""
    source = blob_path(settings, entry.sha256)
    if not source.is_file():
        raise TamperedFile(f"{entry.path} is missing from the registry", path=entry.path)
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    with storage_errors(entry.path), source.open("rb") as src, target.open("wb") as out:
        for block in iter(lambda: src.read(CHUNK), b""):
            digest.update(block)
            out.write(block)
    if digest.hexdigest() != entry.sha256:
        raise TamperedFile(f"{entry.path} does not match its sha256 in the registry",
                           path=entry.path)


def remove_unused(settings: Settings, keep: set[str], candidates: set[str]) -> None:
    """Delete the blobs among ``candidates`` that no remaining version lists."""
    for sha in candidates - keep:
        blob_path(settings, sha).unlink(missing_ok=True)


