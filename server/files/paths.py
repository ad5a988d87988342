"""Confinement of project-relative paths: realpath + commonpath, no escapes, nothing in .git."""

import os
from pathlib import Path, PurePosixPath

from server.core.error_codes import ErrorCode
from server.core.errors import Forbidden, Invalid

# Names that reach the Git directory on case-insensitive or 8.3-name file systems too.
GIT_DIR_NAMES = frozenset({".git", "git~1"})
MAX_PATH_LENGTH = 4096
# The longest file name Linux, macOS and Windows file systems take, in bytes of UTF-8.
MAX_NAME_BYTES = 255


def check_name_lengths(parts: tuple[str, ...]) -> None:
    """Refuse a path with a component no file system can hold (it would fail on every call)."""
    if any(len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES for part in parts):
        raise Invalid(f"a file name is longer than {MAX_NAME_BYTES} bytes", code=ErrorCode.NAME_TOO_LONG)


def is_git_part(part: str) -> bool:
    return part.casefold().rstrip(". ") in GIT_DIR_NAMES


def clean_relative(rel: str) -> PurePosixPath:
    """Validate a project-relative path string; '' means the project root."""
    if "\x00" in rel or len(rel) > MAX_PATH_LENGTH:
        raise Invalid("invalid path", code=ErrorCode.BAD_PATH)
    if rel.startswith("/") or "\\" in rel or (len(rel) > 1 and rel[1] == ":"):
        raise Invalid("paths are relative to the project, with forward slashes", code=ErrorCode.BAD_PATH)
    pure = PurePosixPath(rel) if rel not in ("", ".") else PurePosixPath()
    check_name_lengths(pure.parts)
    if any(part == ".." for part in pure.parts):
        raise Forbidden("path escapes the project", code=ErrorCode.PATH_ESCAPE)
    if any(is_git_part(part) for part in pure.parts):
        raise Forbidden("the .git folder is managed by the Git panel", code=ErrorCode.GIT_DIR)
    return pure


def resolve(root: str | Path, rel: str) -> Path:
    """The real absolute path of ``rel`` inside ``root``; refuses anything that leaves it.

    Symlinks are followed and the target must stay inside the project and outside ``.git``.
    """
    pure = clean_relative(rel)
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, *pure.parts))
    if os.path.commonpath([real_root, real]) != real_root:
        raise Forbidden("path escapes the project", code=ErrorCode.PATH_ESCAPE)
    inner = PurePosixPath(os.path.relpath(real, real_root))
    if any(is_git_part(part) for part in inner.parts):
        raise Forbidden("the .git folder is managed by the Git panel", code=ErrorCode.GIT_DIR)
    return Path(real)


def relative(root: str | Path, path: Path) -> str:
    rel = os.path.relpath(path, os.path.realpath(root))
    return "" if rel == "." else PurePosixPath(*Path(rel).parts).as_posix()
