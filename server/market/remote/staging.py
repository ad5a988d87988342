"""Fill a package folder from a remote source with nothing left behind on a bad file.

Files are fetched into the source's work folder in the data dir (``market-cache/<source>/
files/<id>@<version>/``), where partial downloads wait to be resumed. Each file is checked as it
arrives; a mismatch removes the work folder and raises ``TamperedFile`` naming the file. Only a
complete, verified package is moved (renamed, on one file system) into ``dest``.
"""

import fcntl
import hashlib
import logging
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.market import safety
from server.market.package import MANIFEST_NAME, PackageManifest, TamperedFile, sha256_file

log = logging.getLogger(__name__)
MAX_README = 1024 * 1024


@dataclass(frozen=True)
class RemoteFile:
    """A file to fetch: checked by its sha256 or, where a hub publishes none, its Git blob id."""

    path: str
    size: int
    sha256: str | None = None
    git_blob: str | None = None


Fetch = Callable[[RemoteFile, Path], None]


def git_blob_id(path: Path) -> str:
    digest = hashlib.sha1(usedforsecurity=False)
    digest.update(b"blob %d\0" % path.stat().st_size)
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _matches(path: Path, wanted: RemoteFile) -> bool:
    if path.stat().st_size != wanted.size:
        return False
    if wanted.sha256 is not None:
        return sha256_file(path) == wanted.sha256
    return wanted.git_blob is not None and git_blob_id(path) == wanted.git_blob


def readme_file(manifest: PackageManifest, files: list[RemoteFile]) -> RemoteFile | None:
    """The package's README: the file listed with role ``readme``, else a top-level README.md."""
    listed = next((e.path for e in manifest.files if e.role == "readme"), None)
    for wanted in files:
        if wanted.path == listed or (listed is None and wanted.path.lower() == "readme.md"):
            return wanted if wanted.size <= MAX_README else None
    return None


def readme_text(data: bytes, wanted: RemoteFile, source: str) -> str:
    """The README's text if the bytes are the listed ones; a mismatch shows none."""
    if len(data) == wanted.size and (
            hashlib.sha256(data).hexdigest() == wanted.sha256 if wanted.sha256 is not None
            else hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
            == wanted.git_blob):
        return data.decode("utf-8", "replace")
    log.warning("catalog %s: %s does not match its checksum; not shown", source, wanted.path)
    return ""


@contextmanager
def locked_work(cache: Path, package_id: str, version: str) -> Iterator[Path]:
    """The work folder of one package version, held by this process alone."""
    work = cache / "files" / f"{package_id}@{version}"
    work.mkdir(parents=True, exist_ok=True)
    with (cache / "files" / f"{package_id}@{version}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield work


def fetch_verified(work: Path, files: list[RemoteFile], fetch: Fetch, source: str) -> None:
    """Bring every file into ``work`` and check it; a bad one empties ``work`` and is named.

    An unsafe path (``safety.check_path``) is refused before any file is fetched, and an unsafe
    entry the source reports (a link in a Git tree) empties ``work`` too."""
    try:
        safety.check_paths(wanted.path for wanted in files)
        _fetch_each(work, files, fetch, source)
    except safety.UnsafeEntry:
        shutil.rmtree(work, ignore_errors=True)
        raise


def _fetch_each(work: Path, files: list[RemoteFile], fetch: Fetch, source: str) -> None:
    root = work.resolve()
    for wanted in files:
        target = root / wanted.path
        if not target.resolve().is_relative_to(root):
            raise Invalid(f"{wanted.path} leaves the package folder", code=ErrorCode.BAD_MANIFEST)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.is_file():
            fetch(wanted, target)
        if not _matches(target, wanted):
            shutil.rmtree(work, ignore_errors=True)
            raise TamperedFile(f"{wanted.path} from the catalog {source} does not match its checksum; "
                               "nothing was installed", path=wanted.path, source=source)


def publish(work: Path, manifest_text: str, dest: Path) -> Path:
    """Move the verified package from ``work`` into ``dest`` (absent or empty)."""
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise Invalid(f"{dest.name} is not an empty folder", code=ErrorCode.NOT_EMPTY)
    (work / MANIFEST_NAME).write_text(manifest_text, encoding="utf-8")
    created = not dest.exists()
    dest.mkdir(parents=True, exist_ok=True)
    try:
        for child in list(work.iterdir()):
            shutil.move(child, dest / child.name)
    except BaseException:
        _empty(dest, remove=created)
        raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return dest


def _empty(folder: Path, remove: bool) -> None:
    if remove:
        shutil.rmtree(folder, ignore_errors=True)
        return
    for child in folder.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            os.unlink(child)
