"""Reading trees and commits: flattened trees (cached by id, since trees never change), HEAD."""

import stat

from dulwich.object_store import BaseObjectStore, peel_sha
from dulwich.objects import Commit, ObjectID, Tree
from dulwich.refs import Ref
from dulwich.repo import Repo

from server.core.cache import BoundedCache
from server.core.error_codes import ErrorCode
from server.core.errors import Invalid, NotFound

FlatTree = dict[bytes, tuple[int, ObjectID]]

_flat_cache: BoundedCache[bytes, FlatTree] = BoundedCache(8)
# Each tree object read lately, as its entries: a new HEAD's tree (after a commit git made, or a
# checkout) shares most folders with the last one, so flattening it reads only the folders that
# changed (about 1,000 folders of a 10,000-file repository take ~1 MB).
_ITEMS_SIZE = 20_000
_tree_items: BoundedCache[bytes, list[tuple[bytes, int, ObjectID]]] = BoundedCache(_ITEMS_SIZE)


def flatten(store: BaseObjectStore, tree_id: bytes | None) -> FlatTree:
    """Every blob, symlink and submodule below ``tree_id`` as ``path -> (mode, id)``."""
    if tree_id is None:
        return {}
    cached = _flat_cache.get(tree_id)
    if cached is not None:
        return cached
    flat: FlatTree = {}
    stack: list[tuple[bytes, bytes]] = [(b"", tree_id)]
    while stack:
        prefix, sha = stack.pop()
        for name, mode, child in _items(store, sha):
            path = prefix + name
            if stat.S_ISDIR(mode):
                stack.append((path + b"/", child))
            else:
                flat[path] = (mode, child)
    remember(tree_id, flat)
    return flat


def _items(store: BaseObjectStore, sha: bytes) -> list[tuple[bytes, int, ObjectID]]:
    """A tree object's entries, read once while it is among the last ``_ITEMS_SIZE`` read."""
    items = _tree_items.peek(sha)
    if items is not None:
        return items
    tree = store[ObjectID(sha)]
    assert isinstance(tree, Tree)
    items = [(name, mode, child) for name, mode, child in tree.iteritems()]
    _tree_items.put(sha, items)
    return items


def remember(tree_id: bytes, flat: FlatTree) -> None:
    """Cache the flattened form of a tree its writer already knows (do not modify ``flat``)."""
    _flat_cache.put(tree_id, flat)


def head_id(repo: Repo) -> ObjectID | None:
    """The commit HEAD points to, or None on an unborn branch."""
    try:
        return repo.refs[Ref(b"HEAD")]
    except KeyError:
        return None


def get_commit(repo: Repo, sha: bytes) -> Commit:
    try:
        obj = repo[ObjectID(sha)]
    except (KeyError, ValueError):
        raise NotFound(f"commit not found: {sha.decode('ascii', 'replace')}") from None
    if not isinstance(obj, Commit):
        raise Invalid("not a commit")
    return obj


def resolve_commit(repo: Repo, spec: str) -> Commit:
    """A commit by full or abbreviated id, branch, tag (annotated ones peeled) or ``HEAD``."""
    if not spec or len(spec) > 250 or not spec.isascii():
        raise NotFound(f"commit not found: {spec[:80]}")
    raw = spec.encode("ascii")
    for ref in (raw, b"refs/heads/" + raw, b"refs/tags/" + raw, b"refs/remotes/" + raw):
        if Ref(ref) in repo.refs:
            try:
                target = repo.refs[Ref(ref)]
            except KeyError:  # HEAD naming a branch that has no commit yet
                raise _no_commits(spec) from None
            return get_commit(repo, peeled_id(repo.object_store, target))
    if len(raw) == 40:
        return get_commit(repo, raw)
    if 4 <= len(raw) < 40 and all(c in b"0123456789abcdef" for c in raw):
        matches = [sha for sha in repo.object_store if sha.startswith(raw)]
        commits = [sha for sha in matches if isinstance(repo[sha], Commit)]
        if len(commits) == 1:
            return get_commit(repo, commits[0])
    if head_id(repo) is None:
        raise _no_commits(spec)
    raise NotFound(f"commit not found: {spec}")


def _no_commits(spec: str) -> NotFound:
    return NotFound(f"{spec} names no commit: the branch has no commits yet", code=ErrorCode.NO_COMMITS)


def peeled_id(store: BaseObjectStore, sha: ObjectID) -> ObjectID:
    """The object a (possibly nested) tag points to; any other object is itself."""
    try:
        return peel_sha(store, sha)[1].id
    except KeyError:
        return sha


def head_tree_id(repo: Repo) -> ObjectID | None:
    sha = head_id(repo)
    return get_commit(repo, sha).tree if sha else None


def current_branch(repo: Repo) -> str | None:
    """The branch HEAD names (``None`` when HEAD is detached)."""
    chain, _ = repo.refs.follow(Ref(b"HEAD"))
    target = chain[-1]
    if target.startswith(b"refs/heads/"):
        return target[len(b"refs/heads/") :].decode("utf-8", "replace")
    return None
