"""File sync by manifest: path rules, hashing, and the manifest of a project folder.

The sender lists every file with its sha256 and size; the receiver answers with the paths it
lacks, so only changed files travel. Both sides apply the same path rules: relative POSIX paths,
no ``..``, no absolute paths, nothing under ``.git``.
"""

import hashlib
import os
from pathlib import Path, PurePosixPath
from typing import Any

from device_bridge.wire import MAX_MANIFEST_FILES

SKIPPED_DIRS = frozenset({".git", "__pycache__", ".venv", "node_modules", ".mnnwb"})


class UnsafePath(ValueError):
    """A sync path that could escape the session folder or touch Git metadata."""


def check_path(path: str) -> PurePosixPath:
    """Return ``path`` as a safe relative path or raise ``UnsafePath``."""
    if not path or "\\" in path or "\x00" in path or path.startswith("/") or ":" in path[:2]:
        raise UnsafePath(f"unsafe path: {path!r}")
    parts = path.split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise UnsafePath(f"unsafe path: {path!r}")
    if any(p.lower() in (".git", "git~1") for p in parts):
        raise UnsafePath(f"refusing a path inside .git: {path!r}")
    return PurePosixPath(path)


def confined(root: Path, path: str) -> Path:
    """The absolute location of a checked ``path`` under ``root``; symlinks out are refused."""
    target = root.joinpath(*check_path(path).parts)
    real_root = os.path.realpath(root)
    real = os.path.realpath(target)
    if os.path.commonpath([real_root, real]) != real_root:
        raise UnsafePath(f"path leaves the folder: {path!r}")
    return target


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class HashCache:
    """Remembers file hashes by (size, mtime) so an unchanged file is not read again."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[int, int, str]] = {}

    def get(self, path: Path) -> tuple[str, int]:
        stat = path.stat()
        key = str(path)
        known = self._known.get(key)
        if known and known[0] == stat.st_size and known[1] == stat.st_mtime_ns:
            return known[2], stat.st_size
        digest = sha256_file(path)
        self._known[key] = (stat.st_size, stat.st_mtime_ns, digest)
        return digest, stat.st_size


def build_manifest(root: Path, cache: HashCache | None = None) -> list[dict[str, Any]]:
    """``{path, sha256, size}`` of every regular file under ``root`` (symlinks and skipped
    folders left out), sorted by path."""
    cache = cache or HashCache()
    entries: list[dict[str, Any]] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for name in files:
            full = Path(folder) / name
            if full.is_symlink() or not full.is_file():
                continue
            rel = full.relative_to(root).as_posix()
            digest, size = cache.get(full)
            entries.append({"path": rel, "sha256": digest, "size": size})
            if len(entries) > MAX_MANIFEST_FILES:
                raise ValueError(f"more than {MAX_MANIFEST_FILES} files to deploy")
    entries.sort(key=lambda e: e["path"])
    return entries
