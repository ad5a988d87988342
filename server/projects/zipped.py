"""A new project from an uploaded ``.zip`` of a playground folder (docs/playground.md, "From a
zip").

The zip holds ``app.mnnplayground`` at its root or in its single top folder, whose content then
becomes the project. Everything is checked before a byte is unpacked, and a refusal names what
it refused, with nothing written: a path that is absolute or climbs out with ``..``, a ``.git``
(in any case, as a file system may read it), a symbolic link or other non-plain entry, more
entries or more unpacked bytes than the limits (a zip bomb), an upload over the upload limit.
Python's zip reader never yields more than an entry's declared size (a lie fails its CRC check),
so the declared sizes bound what is written.
"""

import shutil
import stat
import tempfile
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path, PurePosixPath
from typing import BinaryIO, NoReturn

from device_bridge.playground.app import APP_FILE
from server.core.error_codes import ErrorCode
from server.core.errors import Invalid, TooLarge
from server.core.fsutil import publish
from server.files.paths import is_git_part

CHUNK = 1024 * 1024


class UnsafeZipEntry(Invalid):
    code = ErrorCode.UNSAFE_ZIP_ENTRY


def _refuse(entry: str, what: str) -> NoReturn:
    raise UnsafeZipEntry(f"{entry} is {what}; nothing of the zip was unpacked", entry=entry)


def check_entry(info: zipfile.ZipInfo) -> None:
    name = info.filename
    path = name.rstrip("/")
    if not path or name.startswith("/") or "\\" in name or path[1:2] == ":" or "\x00" in name:
        _refuse(name, "not a relative path inside the zip")
    if any(part in ("", ".", "..") for part in path.split("/")):
        _refuse(name, "a path that leaves the zip")
    if any(is_git_part(part) for part in PurePosixPath(path).parts):
        _refuse(name, "a Git folder")
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        _refuse(name, "a symbolic link")
    if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):  # 0: made without a type
        _refuse(name, "not a plain file or folder")


def playground_root(names: list[str]) -> str:
    """The folder of the zip that holds the app file: ``""`` (the root) or ``"top/"``."""
    if APP_FILE in names:
        return ""
    tops = {name.split("/", 1)[0] for name in names}
    if len(tops) == 1:
        top = f"{tops.pop()}/"
        if f"{top}{APP_FILE}" in names:
            return top
    raise Invalid(f"the zip has no {APP_FILE} at its root or in its single top folder: it is not "
                  "a playground project", code=ErrorCode.NOT_A_PLAYGROUND)


def checked(archive: zipfile.ZipFile, max_entries: int, max_bytes: int) -> list[zipfile.ZipInfo]:
    entries = archive.infolist()
    if len(entries) > max_entries:
        raise TooLarge(f"the zip has {len(entries)} entries; the limit is {max_entries}",
                       code=ErrorCode.ZIP_TOO_LARGE)
    seen: set[str] = set()
    for info in entries:
        check_entry(info)
        if info.filename in seen:
            _refuse(info.filename, "in the zip twice")
        seen.add(info.filename)
    unpacked = sum(info.file_size for info in entries)
    if unpacked > max_bytes:
        raise TooLarge(f"the zip unpacks to {unpacked} bytes; the limit is {max_bytes}",
                       code=ErrorCode.ZIP_TOO_LARGE)
    return entries


async def receive(chunks: AsyncIterator[bytes], into: BinaryIO, max_bytes: int) -> None:
    """The upload, stopped as soon as it passes ``max_bytes``."""
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > max_bytes:
            raise TooLarge(f"the zip is larger than the upload limit of {max_bytes} bytes",
                           code=ErrorCode.ZIP_TOO_LARGE)
        into.write(chunk)


def unpack(upload: BinaryIO, dest: Path, max_entries: int, max_bytes: int) -> None:
    """Unpack the playground folder of ``upload`` into ``dest``, which must not exist yet."""
    try:
        with zipfile.ZipFile(upload) as archive:
            entries = checked(archive, max_entries, max_bytes)
            root = playground_root([info.filename for info in entries])
            staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
            try:
                _write(archive, entries, root, staging)
                publish(staging, dest)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, OSError) as exc:
        raise Invalid(f"not a readable zip: {exc}", code=ErrorCode.BAD_ZIP) from None


def _write(archive: zipfile.ZipFile, entries: list[zipfile.ZipInfo], root: str,
           staging: Path) -> None:
    for info in entries:
        if not info.filename.startswith(root) or info.filename == root:
            continue
        target = staging / info.filename[len(root):]
        if info.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(info) as source, open(target, "xb") as out:
            while chunk := source.read(CHUNK):
                out.write(chunk)
