"""Merging a commit into HEAD: fast-forward, or a 3-way merge whose conflicts are recorded.

The merge never uses merge drivers named by the repository's config or attributes (they are
shell commands), never overwrites local changes, and records conflicts as git does (index
stages 1–3, ``MERGE_HEAD``) so either the Source Control panel or ``git`` can finish it.
"""

import os
from collections.abc import Callable
from dataclasses import dataclass, field

from dulwich.diff_tree import tree_changes
from dulwich.graph import can_fast_forward, find_merge_base
from dulwich.index import ConflictedIndexEntry, IndexEntry
from dulwich.merge import MergeConflictInfo, Merger, recursive_merge
from dulwich.objects import ObjectID
from dulwich.refs import Ref
from dulwich.repo import Repo

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid
from server.gitflow.commits import move_head, write_commit
from server.gitflow.indexfile import read_index
from server.gitflow.trees import current_branch, get_commit, head_id, resolve_commit
from server.gitflow.worktree import check_incoming, refuse_overwrites, switch_tree, write_changes

# What a stopped merge, cherry-pick or revert leaves in .git until it is committed.
IN_PROGRESS = ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD")


@dataclass
class MergeOutcome:
    outcome: str  # up_to_date | fast_forward | merged | committed | conflicts
    commit: ObjectID | None
    conflicts: list[bytes] = field(default_factory=list)


def merge_into_head(
    repo: Repo, theirs: ObjectID, label: str, who: Callable[[], bytes], op: str = "pull"
) -> MergeOutcome:
    """``who()`` is asked for the merge's author only when a merge is made: a fast-forward makes
    no commit and needs no identity. ``op`` names the operation in the reflog."""
    head = head_id(repo)
    if head is not None and (theirs == head or can_fast_forward(repo, theirs, head)):
        return MergeOutcome("up_to_date", head)
    if head is None or can_fast_forward(repo, head, theirs):
        old_tree = get_commit(repo, head).tree if head else None
        switch_tree(repo, old_tree, get_commit(repo, theirs).tree, op)
        move_head(repo, head, theirs, op.encode() + b": Fast-forward")
        return MergeOutcome("fast_forward", theirs)
    return _three_way(repo, head, theirs, label, who())


def merge_label(repo: Repo, name: str) -> str:
    """How ``git merge`` names what it merges in the default message."""
    raw = name.encode("utf-8")
    if Ref(b"refs/heads/" + raw) in repo.refs:
        return f"branch '{name}'"
    if Ref(b"refs/tags/" + raw) in repo.refs:
        return f"tag '{name}'"
    if Ref(b"refs/remotes/" + raw) in repo.refs:
        return f"remote-tracking branch '{name}'"
    return f"commit '{name}'"


def merge_ref(repo: Repo, name: str, who: Callable[[], bytes]) -> MergeOutcome:
    """``git merge <name>``: a branch, remote branch, tag or commit into HEAD's branch."""
    if any(os.path.exists(os.path.join(repo.controldir(), name)) for name in IN_PROGRESS):
        raise Conflict("a merge is in progress: resolve and commit it first",
                       code=ErrorCode.MERGE_IN_PROGRESS)
    if read_index(repo.index_path()).conflicted:
        raise Invalid("resolve and stage the conflicted files first", code=ErrorCode.UNRESOLVED_CONFLICTS)
    if current_branch(repo) is None:
        raise Conflict("HEAD is detached: switch to a branch to merge into", code=ErrorCode.DETACHED_HEAD)
    theirs = resolve_commit(repo, name).id
    return merge_into_head(repo, theirs, merge_label(repo, name), who, op="merge")


def _three_way(repo: Repo, head: ObjectID, theirs: ObjectID, label: str, who: bytes) -> MergeOutcome:
    ours_commit, theirs_commit = get_commit(repo, head), get_commit(repo, theirs)
    merger = Merger(repo.object_store)
    merged, conflicts = recursive_merge(
        repo.object_store,
        find_merge_base(repo, [head, theirs]),
        ours_commit,
        theirs_commit,
        merger=merger,
    )
    repo.object_store.add_object(merged)
    changes = list(tree_changes(repo.object_store, ours_commit.tree, merged.id))
    check_incoming(repo, changes)
    refuse_overwrites(repo, changes, "merge")
    write_changes(repo, ours_commit.tree, merged.id, changes)
    message = f"Merge {label}"
    if conflicts:
        record_conflicts(repo, merger.conflict_info, theirs, message)
        return MergeOutcome("conflicts", None, sorted(conflicts))
    new = write_commit(repo, merged.id, [head, theirs], who, message)
    move_head(repo, head, new.id, b"merge: " + message.encode(), who)
    return MergeOutcome("merged", new.id)


def _stage_entry(side: tuple[int | None, bytes | None]) -> IndexEntry | None:
    mode, sha = side
    if mode is None or sha is None:
        return None
    return IndexEntry(
        ctime=(0, 0), mtime=(0, 0), dev=0, ino=0, mode=mode, uid=0, gid=0, size=0, sha=ObjectID(sha)
    )


def record_conflicts(
    repo: Repo, conflicts: dict[bytes, MergeConflictInfo], theirs: ObjectID, message: str,
    head_file: str = "MERGE_HEAD",
) -> None:
    """Index stages 1–3 per conflicted path, and ``head_file`` (``MERGE_HEAD``, or
    ``CHERRY_PICK_HEAD``/``REVERT_HEAD``) and ``MERGE_MSG`` as git writes them."""
    index = repo.open_index()
    for path, info in conflicts.items():
        index[path] = ConflictedIndexEntry(
            ancestor=_stage_entry(info.ancestor),
            this=_stage_entry(info.ours),
            other=_stage_entry(info.theirs),
        )
    index.write()
    control = repo.controldir()
    with open(os.path.join(control, head_file), "wb") as f:
        f.write(theirs + b"\n")
    with open(os.path.join(control, "MERGE_MSG"), "wb") as f:
        f.write(message.encode("utf-8") + b"\n")
