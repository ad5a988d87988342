"""What a package may hold: plain files in plain folders, and nothing that plants a repository.

Every package is checked before anything of it reaches a project, whatever its source. A listed
path, or an entry found in a package folder, that is absolute, climbs out with ``..``, or names a
``.git`` (in any case, at any depth, or as a file system may read it: ``.git.``, ``git~1``) is
refused, and so is an entry that is a symbolic link, a hard link, a device, a FIFO or a socket:
``422 unsafe_package_entry`` naming the entry. A ``.git`` inside a project would be a repository
of the package's making, with hooks and config that Git runs.
"""

import os
import stat
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import NoReturn

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.files.paths import is_git_part


class UnsafeEntry(Invalid):
    code = ErrorCode.UNSAFE_PACKAGE_ENTRY


def _refuse(entry: str, what: str) -> NoReturn:
    raise UnsafeEntry(f"{entry} is {what}; a package may hold only plain files and folders, "
                      "so nothing of it was installed", entry=entry)


def check_path(path: str) -> None:
    """Refuse a package path that leaves the package or names a Git folder."""
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or "\\" in path or path[1:2] == ":":
        _refuse(path, "not a relative path inside the package")
    if any(part in ("", ".", "..") for part in path.split("/")):
        _refuse(path, "a path that leaves the package")
    if any(is_git_part(part) for part in pure.parts):
        _refuse(path, "a Git folder")


def check_paths(paths: Iterable[str]) -> None:
    for path in paths:
        check_path(path)


def _kind(mode: int, links: int) -> str | None:
    """What makes an entry unsafe, or None for a plain file or folder."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return None
    if stat.S_ISREG(mode):
        return "a hard link" if links > 1 else None
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device file"
    return "a socket" if stat.S_ISSOCK(mode) else "not a plain file"


def _raise(error: OSError) -> NoReturn:
    raise error


def check_folder(folder: Path) -> None:
    """Walk ``folder`` without following links; refuse the first entry that is unsafe."""
    for current, dirs, files in os.walk(folder, onerror=_raise):
        for name in sorted([*dirs, *files]):
            path = Path(current, name)
            rel = path.relative_to(folder).as_posix()
            check_path(rel)
            info = os.lstat(path)
            what = _kind(info.st_mode, info.st_nlink)
            if what is not None:
                _refuse(rel, what)
