"""Old and new content of one file, for a side-by-side diff editor."""

import os
import stat

from dulwich.objects import Blob, ObjectID
from dulwich.repo import Repo

from server.core.error_codes import ErrorCode
from server.core.errors import NotFound
from server.gitflow.indexfile import read_index
from server.gitflow.models import Diff
from server.gitflow.paths import user_path
from server.gitflow.trees import flatten, get_commit, head_tree_id, resolve_commit
from server.gitflow.worktree import ensure_safe_parent

# Larger files are described by size and id only, like binary files.
MAX_TEXT_BYTES = 2 * 1024 * 1024
_SNIFF_BYTES = 8000

Side = tuple[bytes, bytes | None] | None  # (content, blob id if known), or absent


def _from_tree(repo: Repo, tree_id: bytes | None, path: bytes) -> Side:
    entry = flatten(repo.object_store, tree_id).get(path)
    return _from_blob(repo, entry[1]) if entry else None


def _from_blob(repo: Repo, sha: bytes) -> Side:
    blob = repo.object_store[ObjectID(sha)]
    assert isinstance(blob, Blob)
    return blob.as_raw_string(), sha


def _from_index(repo: Repo, path: bytes) -> Side:
    entry = read_index(repo.index_path()).entries.get(path)
    return _from_blob(repo, entry.sha) if entry else None


def _from_work_tree(repo: Repo, path: bytes) -> Side:
    root = os.fsencode(repo.path)
    ensure_safe_parent(root, path)
    full = os.path.join(root, path)
    try:
        st = os.lstat(full)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISLNK(st.st_mode):
        return os.readlink(full), None
    if not stat.S_ISREG(st.st_mode):
        return None
    with open(full, "rb") as f:
        return f.read(), None


def _is_binary(data: bytes) -> bool:
    if len(data) > MAX_TEXT_BYTES or b"\0" in data[:_SNIFF_BYTES]:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def build_diff(path: str, old: Side, new: Side) -> Diff:
    sides = [side for side in (old, new) if side is not None]
    binary = any(_is_binary(content) for content, _ in sides)
    return Diff(
        path=path,
        old=None if binary or old is None else old[0].decode("utf-8"),
        new=None if binary or new is None else new[0].decode("utf-8"),
        binary=binary,
        old_size=len(old[0]) if old else None,
        new_size=len(new[0]) if new else None,
        old_sha=_sha(old),
        new_sha=_sha(new),
    )


def _sha(side: Side) -> str | None:
    if side is None:
        return None
    content, sha = side
    return (sha or Blob.from_string(content).id).decode("ascii")


def file_diff(repo: Repo, path: str, staged: bool) -> Diff:
    """Index vs HEAD when ``staged``, else work tree vs index (vs nothing when untracked)."""
    raw = user_path(path)
    if staged:
        return build_diff(path, _from_tree(repo, head_tree_id(repo), raw), _from_index(repo, raw))
    return build_diff(path, _from_index(repo, raw), _from_work_tree(repo, raw))


def _tree_of(repo: Repo, rev: str) -> ObjectID | None:
    """The tree of a commit, or of its first parent when ``rev`` ends in ``^`` (none for a root)."""
    if not rev.endswith("^"):
        return resolve_commit(repo, rev).tree
    parents = resolve_commit(repo, rev[:-1]).parents
    return get_commit(repo, parents[0]).tree if parents else None


def blob_at(repo: Repo, rev: str, path: str) -> tuple[bytes, str]:
    """A file's bytes and blob id in a commit (id, branch, ``HEAD``, ``<rev>^`` for its first
    parent) or in the index (``:0``)."""
    raw = user_path(path)
    side = _from_index(repo, raw) if rev in (":0", "index") else _from_tree(repo, _tree_of(repo, rev), raw)
    if side is None:
        raise NotFound(f"{path} is not in {rev}", code=ErrorCode.BLOB_NOT_FOUND)
    return side[0], _sha(side) or ""


def commit_file_diff(repo: Repo, sha: str, path: str) -> Diff:
    """One file of a commit against the commit's first parent."""
    raw = user_path(path)
    commit = resolve_commit(repo, sha)
    parent_tree = get_commit(repo, commit.parents[0]).tree if commit.parents else None
    return build_diff(path, _from_tree(repo, parent_tree, raw), _from_tree(repo, commit.tree, raw))
