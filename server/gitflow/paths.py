"""Which tree paths may be written into a work tree, and which user paths name a file in it.

A tree from a remote or a stash is untrusted: it may name ``.git/hooks/…``, ``.GIT``, the NTFS
short name ``git~1``, ``..`` or an absolute path, or carry a symlink that points out of the work
tree. Every tree we are about to write is checked as a whole before the first file is touched.
"""

import posixpath
import stat
from collections.abc import Iterable
from functools import lru_cache

from dulwich.index import validate_path_element_hfs, validate_path_element_ntfs
from dulwich.object_store import BaseObjectStore
from dulwich.objects import ObjectID

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.files.paths import MAX_NAME_BYTES, check_name_lengths


@lru_cache(maxsize=65536)  # a tree repeats its folder names; checking one costs ~8 µs
def element_is_safe(element: bytes) -> bool:
    """True when one path component may be written on any platform."""
    if element in (b"", b".", b"..") or b"\\" in element or b"\0" in element:
        return False
    if len(element) > MAX_NAME_BYTES:
        return False
    return validate_path_element_ntfs(element) and validate_path_element_hfs(element)


def tree_path_is_safe(path: bytes) -> bool:
    if path.startswith(b"/"):
        return False
    return all(element_is_safe(part) for part in path.split(b"/"))


def symlink_target_is_safe(path: bytes, target: bytes) -> bool:
    """True when a symlink at ``path`` pointing to ``target`` stays inside the work tree."""
    if not target or target.startswith(b"/") or b"\0" in target:
        return False
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    return resolved != b".." and not resolved.startswith(b"../")


def check_entries(store: BaseObjectStore, entries: Iterable[tuple[bytes, int, bytes]]) -> None:
    """Refuse the whole operation if any ``(path, mode, sha)`` about to be written is unsafe."""
    refused = []
    for path, mode, sha in entries:
        if not tree_path_is_safe(path):
            refused.append(path)
        elif stat.S_ISLNK(mode) and not symlink_target_is_safe(path, store[ObjectID(sha)].as_raw_string()):
            refused.append(path)
    if refused:
        names = sorted(p.decode("utf-8", "replace") for p in refused)
        raise Invalid(
            "refused: the repository contains unsafe paths or symlinks leaving the work tree",
            code=ErrorCode.UNSAFE_PATHS,
            files=names,
        )


def user_path(path: str) -> bytes:
    """A project-relative path from a request, in tree form; rejects escapes and ``.git``."""
    clean = posixpath.normpath(path.replace("\\", "/")).lstrip("/") if path else ""
    check_name_lengths(tuple(clean.split("/")))
    raw = clean.encode("utf-8")
    if not clean or clean == "." or not tree_path_is_safe(raw):
        raise Invalid(f"invalid path: {path!r}", code=ErrorCode.INVALID_PATH)
    return raw
