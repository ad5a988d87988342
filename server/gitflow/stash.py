"""Stashes stored exactly like git's (``refs/stash`` plus its reflog), applied safely.

A stash is a commit W whose tree is the work tree, with parents HEAD, I (the index) and, when
untracked files were included, U (a root commit of those files). Unlike dulwich's stash:
stashing nothing is refused; applying is a real 3-way merge of W onto the current HEAD (base:
W's first parent), which touches only the paths the stash changed, and is refused — keeping the
stash — when it would overwrite a local change or an existing file, or would conflict.
"""

import os
import stat

from dulwich.diff_tree import TreeChange, tree_changes
from dulwich.index import (
    IndexEntry,
    build_file_from_blob,
    cleanup_mode,
    commit_tree,
    index_entry_from_stat,
)
from dulwich.merge import Merger
from dulwich.objects import Blob, Commit, ObjectID, Tree
from dulwich.reflog import read_reflog
from dulwich.refs import Ref
from dulwich.repo import Repo
from dulwich.stash import Stash

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid, NotFound
from server.gitflow.commits import write_commit
from server.gitflow.looseobjects import add_files
from server.gitflow.models import StashApplied, StashEntry
from server.gitflow.paths import check_entries
from server.gitflow.status import RawStatus, decode, raw_status
from server.gitflow.trees import FlatTree, current_branch, flatten, get_commit, head_id
from server.gitflow.worktree import (
    changed_paths,
    check_incoming,
    ensure_safe_parent,
    refuse_overwrites,
    remove_file,
    write_changes,
)

STASH_REF = b"refs/stash"


def list_stashes(repo: Repo) -> list[StashEntry]:
    path = os.path.join(repo.commondir(), "logs", "refs", "stash")
    try:
        with open(path, "rb") as f:
            entries = list(read_reflog(f))
    except FileNotFoundError:
        return []
    return [
        StashEntry(index=i, message=e.message.decode("utf-8", "replace"), commit=e.new_sha.decode())
        for i, e in enumerate(reversed(entries))
    ]


def _stash_commit(repo: Repo, index: int) -> Commit:
    entries = list_stashes(repo)
    if not 0 <= index < len(entries):
        raise NotFound(f"no stash {index}", code=ErrorCode.STASH_NOT_FOUND)
    return get_commit(repo, entries[index].commit.encode())


def _labels(repo: Repo, head: bytes) -> tuple[str, str]:
    branch = current_branch(repo) or "(no branch)"
    subject = get_commit(repo, head).message.decode("utf-8", "replace").strip().splitlines()
    return branch, f"{head.decode()[:7]} {subject[0] if subject else ''}"


def push(repo: Repo, message: str, include_untracked: bool, who: bytes) -> StashEntry:
    head = head_id(repo)
    if head is None:
        raise Invalid("make a first commit before stashing", code=ErrorCode.NO_COMMITS)
    st = raw_status(repo, untracked=include_untracked)
    if st.conflicted:
        raise Invalid("resolve the conflicted files before stashing", code=ErrorCode.UNRESOLVED_CONFLICTS)
    if not st.staged and not st.unstaged and not st.untracked:
        raise Invalid("no local changes to save", code=ErrorCode.NOTHING_TO_STASH)
    branch, label = _labels(repo, head)
    index_tree = repo.open_index().commit(repo.object_store)
    index_commit = write_commit(repo, index_tree, [head], who, f"index on {branch}: {label}")
    parents = [head, index_commit.id]
    if st.untracked:
        untracked_tree = _tree_of_files(repo, st.untracked, {})
        untracked = write_commit(repo, untracked_tree, [], who, f"untracked files on {branch}: {label}")
        parents.append(untracked.id)
    work_tree = _tree_of_files(repo, list(st.unstaged), flatten(repo.object_store, index_tree))
    title = f"On {branch}: {message}" if message.strip() else f"WIP on {branch}: {label}"
    stash = write_commit(repo, work_tree, parents, who, title)
    old = repo.refs[Ref(STASH_REF)] if Ref(STASH_REF) in repo.refs else None
    repo.refs.set_if_equals(Ref(STASH_REF), old, stash.id, message=title.encode(), committer=who)
    _reset_to_head(repo, head, st)
    return StashEntry(index=0, message=title, commit=stash.id.decode())


def _tree_of_files(repo: Repo, paths: list[bytes], base: FlatTree) -> ObjectID:
    """A tree of ``base`` with ``paths`` taken from the work tree (a missing file is dropped)."""
    entries = dict(base)
    root = os.fsencode(repo.path)
    files: dict[bytes, tuple[bytes, os.stat_result]] = {}
    for path in paths:
        full = os.path.join(root, path)
        try:
            st = os.lstat(full)
        except FileNotFoundError:
            st = None
        if st is None or not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
            entries.pop(path, None)
            continue
        files[path] = (full, st)
    for (path, (_, st)), sha in zip(files.items(), add_files(repo, list(files.values())), strict=True):
        entries[path] = (cleanup_mode(st.st_mode), sha)
    return commit_tree(repo.object_store, [(p, sha, mode) for p, (mode, sha) in entries.items()])


def _reset_to_head(repo: Repo, head_commit: ObjectID, st: RawStatus) -> None:
    """Put every stashed path back to HEAD (index and work tree); remove stashed untracked."""
    head = flatten(repo.object_store, get_commit(repo, head_commit).tree)
    root = os.fsencode(repo.path)
    index = repo.open_index()
    for path in sorted(set(st.staged) | set(st.unstaged) | set(st.renamed_from.values())):
        ensure_safe_parent(root, path)
        remove_file(root, path)
        if path in head:
            mode, sha = head[path]
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            blob = repo.object_store[ObjectID(sha)]
            assert isinstance(blob, Blob)
            index[path] = index_entry_from_stat(
                build_file_from_blob(blob, mode, os.path.join(root, path)), sha, mode
            )
        elif path in index:
            del index[path]
    index.write()
    for path in st.untracked:
        ensure_safe_parent(root, path)
        remove_file(root, path)


def apply(repo: Repo, index: int, pop: bool = False) -> StashApplied:
    stash = _stash_commit(repo, index)
    head = head_id(repo)
    if head is None:
        raise Invalid("make a first commit before applying a stash", code=ErrorCode.NO_COMMITS)
    head_tree = get_commit(repo, head).tree
    merged = _merge_stash(repo, stash, head_tree)
    changes = list(tree_changes(repo.object_store, head_tree, merged))
    check_incoming(repo, changes)
    refuse_overwrites(repo, changes, "applying the stash")
    untracked = _untracked_entries(repo, stash)
    write_changes(repo, head_tree, merged, changes)
    _keep_changes_unstaged(repo, head_tree, changes)
    _write_untracked(repo, untracked)
    files = sorted({decode(p) for p in changed_paths(changes)} | {decode(p) for p, _, _ in untracked})
    if pop:
        drop(repo, index)
    return StashApplied(index=index, dropped=pop, files=files)


def _merge_stash(repo: Repo, stash: Commit, head_tree: ObjectID) -> ObjectID:
    base_tree = get_commit(repo, stash.parents[0]).tree
    if base_tree == head_tree:
        return stash.tree
    trees = [repo.object_store[ObjectID(t)] for t in (base_tree, head_tree, stash.tree)]
    assert all(isinstance(t, Tree) for t in trees)
    merged, conflicts = Merger(repo.object_store).merge_trees(*trees)  # type: ignore[arg-type]
    if conflicts:
        raise Conflict(
            "the stash conflicts with the current files; it was kept",
            code=ErrorCode.STASH_CONFLICT,
            files=sorted(decode(p) for p in conflicts),
        )
    repo.object_store.add_object(merged)
    return merged.id


def _untracked_entries(repo: Repo, stash: Commit) -> list[tuple[bytes, int, ObjectID]]:
    if len(stash.parents) < 3:
        return []
    tree = get_commit(repo, stash.parents[2]).tree
    entries = [(p, mode, sha) for p, (mode, sha) in flatten(repo.object_store, tree).items()]
    check_entries(repo.object_store, entries)
    root = os.fsencode(repo.path)
    existing = sorted(decode(p) for p, _, _ in entries if os.path.lexists(os.path.join(root, p)))
    if existing:
        raise Conflict(
            "the stash's untracked files already exist; it was kept",
            code=ErrorCode.LOCAL_CHANGES,
            files=existing,
        )
    return entries


def _keep_changes_unstaged(repo: Repo, head_tree: ObjectID, changes: list[TreeChange]) -> None:
    """As ``git stash apply`` does: changed and deleted files stay unstaged, new files staged."""
    head = flatten(repo.object_store, head_tree)
    index = repo.open_index()
    for path in changed_paths(changes):
        if path in head:
            mode, sha = head[path]
            index[path] = IndexEntry(
                ctime=(0, 0), mtime=(0, 0), dev=0, ino=0, mode=mode, uid=0, gid=0, size=0, sha=ObjectID(sha)
            )
    index.write()


def _write_untracked(repo: Repo, entries: list[tuple[bytes, int, ObjectID]]) -> None:
    root = os.fsencode(repo.path)
    for path, mode, sha in entries:
        ensure_safe_parent(root, path)
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        blob = repo.object_store[ObjectID(sha)]
        assert isinstance(blob, Blob)
        build_file_from_blob(blob, mode, full)


def drop(repo: Repo, index: int) -> None:
    _stash_commit(repo, index)
    Stash(repo).drop(index)
