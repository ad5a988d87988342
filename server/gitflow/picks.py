"""Cherry-pick and revert: one commit's change applied to HEAD, or taken back, by a 3-way merge.

A cherry-pick merges the commit into HEAD with the commit's parent as the base; a revert merges
the parent with the commit as the base. As with ``git cherry-pick`` / ``git revert``, a clean
result is committed at once (a cherry-pick keeps the commit's author and message; a revert says
``Revert "<summary>"`` and names the commit), and conflicts are recorded as git records them
(index stages 1–3, ``CHERRY_PICK_HEAD`` or ``REVERT_HEAD``, ``MERGE_MSG``) for the merge editor;
the commit from the Source Control panel then finishes it with one parent.
"""

import os

from dulwich.diff_tree import tree_changes
from dulwich.merge import Merger, recursive_merge
from dulwich.objects import Commit, ObjectID
from dulwich.repo import Repo

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid
from server.gitflow.commits import move_head, write_commit
from server.gitflow.indexfile import read_index
from server.gitflow.merge import IN_PROGRESS, MergeOutcome, record_conflicts
from server.gitflow.trees import get_commit, head_id, resolve_commit
from server.gitflow.worktree import check_incoming, refuse_overwrites, write_changes


def _check_idle(repo: Repo) -> ObjectID:
    control = repo.controldir()
    for name in IN_PROGRESS:
        if os.path.exists(os.path.join(control, name)):
            what = name.removesuffix("_HEAD").lower().replace("_", "-")
            raise Conflict(f"a {what} is in progress: resolve and commit it first",
                           code=ErrorCode.MERGE_IN_PROGRESS)
    if read_index(repo.index_path()).conflicted:
        raise Invalid("resolve and stage the conflicted files first", code=ErrorCode.UNRESOLVED_CONFLICTS)
    head = head_id(repo)
    if head is None:
        raise Invalid("there is no commit to apply it to yet", code=ErrorCode.NO_COMMITS)
    return head


def revert_message(c: Commit) -> str:
    summary = c.message.decode("utf-8", "replace").strip().splitlines()[0] if c.message.strip() else ""
    return f'Revert "{summary}"\n\nThis reverts commit {c.id.decode("ascii")}.\n'


def pick(repo: Repo, spec: str, who: bytes, revert: bool = False) -> tuple[MergeOutcome, str]:
    """Cherry-pick (or revert) the commit ``spec`` onto HEAD; the outcome and the message."""
    head = _check_idle(repo)
    target = resolve_commit(repo, spec)
    op = "revert" if revert else "cherry-pick"
    if len(target.parents) > 1:
        short = target.id[:7].decode()
        raise Invalid(f"{short} is a merge commit: it cannot be a {op} here", code=ErrorCode.MERGE_COMMIT)
    parent = get_commit(repo, target.parents[0]) if target.parents else None
    if revert and parent is None:
        raise Invalid("the first commit cannot be reverted", code=ErrorCode.ROOT_COMMIT)
    ours = get_commit(repo, head)
    base, theirs = (target, parent) if revert else (parent, target)
    assert theirs is not None
    merger = Merger(repo.object_store)
    merged, conflicts = recursive_merge(
        repo.object_store, [base.id] if base is not None else [], ours, theirs, merger=merger
    )
    message = revert_message(target) if revert else target.message.decode("utf-8", "replace")
    if merged.id == ours.tree and not conflicts:
        raise Invalid(f"nothing to {op}: HEAD already has this change", code=ErrorCode.NOTHING_TO_COMMIT)
    repo.object_store.add_object(merged)
    changes = list(tree_changes(repo.object_store, ours.tree, merged.id))
    check_incoming(repo, changes)
    refuse_overwrites(repo, changes, op)
    write_changes(repo, ours.tree, merged.id, changes)
    if conflicts:
        name = "REVERT_HEAD" if revert else "CHERRY_PICK_HEAD"
        record_conflicts(repo, merger.conflict_info, target.id, message, head_file=name)
        return MergeOutcome("conflicts", None, sorted(conflicts)), message
    # A cherry-pick keeps who wrote the change, and when.
    new = write_commit(repo, merged.id, [head], who, message, author_of=None if revert else target)
    summary = message.strip().splitlines()[0] if message.strip() else ""
    move_head(repo, head, new.id, f"{op}: {summary}".encode(), who)
    return MergeOutcome("committed", new.id), message
