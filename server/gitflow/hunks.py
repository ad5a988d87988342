"""Staging, unstaging and discarding part of a file: hunks and lines picked in the diff editor.

The editor knows which lines a person picked; it sends the whole text the index (stage,
unstage) or the work-tree file (discard) should hold afterwards, with the blob id that side had
in the diff it showed. When that side has changed since (another tab staged, the file was saved
again), nothing is written and the answer is a 409 ``stale_diff``: the diff reloads and the
person picks again, so a hunk is never applied to a text it was not computed from.
"""

import os
import stat

from dulwich.objects import Blob, ObjectID
from dulwich.repo import Repo

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid
from server.gitflow.indexfile import read_index
from server.gitflow.indexwrite import NO_STAT
from server.gitflow.looseobjects import add_blobs
from server.gitflow.paths import user_path
from server.gitflow.staging import write_index_updates
from server.gitflow.worktree import ensure_safe_parent, file_in_place_of_folder

REGULAR = 0o100644
EXECUTABLE = 0o100755


def _stale(path: str) -> Conflict:
    return Conflict(
        f"{path} changed since its diff was shown; look at the diff again and pick the lines again",
        code=ErrorCode.STALE_DIFF,
        files=[path],
    )


def _text(text: str) -> bytes:
    data = text.encode("utf-8")
    if b"\0" in data:
        raise Invalid("only text can be staged by lines", code=ErrorCode.NOT_TEXT)
    return data


def set_index_text(repo: Repo, path: str, text: str, base: str | None) -> None:
    """Make the index hold ``text`` for ``path``. ``base`` is the index's blob id the text was
    computed from (None: the path was not in the index)."""
    raw = user_path(path)
    data = _text(text)
    view = read_index(repo.index_path())
    if raw in view.conflicted:
        raise Conflict("resolve the conflict in the merge editor first",
                       code=ErrorCode.CONFLICTED, files=[path])
    entry = view.entries.get(raw)
    current = entry.sha.decode("ascii") if entry else None
    if current != base:
        raise _stale(path)
    if entry is not None:
        mode = entry.mode
    else:
        root = os.fsencode(repo.path)
        ensure_safe_parent(root, raw)
        try:
            st = os.lstat(os.path.join(root, raw))
        except (FileNotFoundError, NotADirectoryError):
            raise _stale(path) from None
        if not stat.S_ISREG(st.st_mode):
            raise Invalid(f"{path} is not a regular file: stage it whole", code=ErrorCode.NOT_TEXT)
        mode = EXECUTABLE if st.st_mode & 0o100 else REGULAR
    if not stat.S_ISREG(mode):
        raise Invalid(f"{path} is not a regular file: stage it whole", code=ErrorCode.NOT_TEXT)
    blob = Blob.from_string(data)
    add_blobs(repo, [blob])
    # Stat data unknown: the next status hashes the file, as after ``git apply --cached``.
    write_index_updates(repo, {raw: (NO_STAT, ObjectID(blob.id), mode)})


def set_worktree_text(repo: Repo, path: str, text: str, base: str) -> None:
    """Write ``text`` into the work-tree file, which must still hold the blob ``base``."""
    raw = user_path(path)
    data = _text(text)
    root = os.fsencode(repo.path)
    ensure_safe_parent(root, raw)
    if file_in_place_of_folder(root, raw) is not None:
        raise _stale(path)
    full = os.path.join(root, raw)
    try:
        st = os.lstat(full)
    except (FileNotFoundError, NotADirectoryError):
        raise _stale(path) from None
    if not stat.S_ISREG(st.st_mode):
        raise Invalid(f"{path} is not a regular file: discard it whole", code=ErrorCode.NOT_TEXT)
    with open(full, "rb") as f:
        if Blob.from_string(f.read()).id.decode("ascii") != base:
            raise _stale(path)
    # Written in place, as an editor saves: the file keeps its mode, owner and inode.
    with open(full, "r+b") as f:
        f.write(data)
        f.truncate()
