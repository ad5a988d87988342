"""The Git flow's entry points: one function per operation, given a project's folder.

Reads open the repository and take no lock. Writes hold the repository's write lock (one per
real path), so two tabs writing at once are serialized and nothing is lost. Network transfers
run outside the lock; only the ref updates that follow them take it.
"""

import os
import threading
from functools import partial
from pathlib import Path

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.gitflow import blame as blame_ops
from server.gitflow import branches as branch_ops
from server.gitflow import clones as clone_ops
from server.gitflow import commits as commit_ops
from server.gitflow import conflicts as conflict_ops
from server.gitflow import hunks as hunk_ops
from server.gitflow import merge as merge_ops
from server.gitflow import picks as pick_ops
from server.gitflow import remotes as remote_ops
from server.gitflow import staging, start
from server.gitflow import stash as stash_ops
from server.gitflow import tags as tag_ops
from server.gitflow.diff import commit_file_diff, file_diff
from server.gitflow.firststatus import Later, first_status
from server.gitflow.gitcli import OnStep
from server.gitflow.labels import list_refs
from server.gitflow.models import (
    Blame,
    Branch,
    CommitDetail,
    CommitInfo,
    ConflictFile,
    Diff,
    FetchResult,
    MergeResult,
    PickResult,
    PullResult,
    PushResult,
    RefLabel,
    Remote,
    StashApplied,
    StashEntry,
    Status,
    TagInfo,
    TagPushResult,
)
from server.gitflow.repo import init_repo, open_repo, write_lock, writing
from server.gitflow.status import status as read_status
from server.gitflow.status import to_model
from server.gitflow.transport import DEFAULT_TIMEOUT, Progress, split_credentials
from server.gitflow.urlpolicy import UNRESTRICTED, UrlPolicy

Folder = str | os.PathLike[str]


def status(folder: Folder, later: Later | None = None) -> Status:
    """The work tree's status; ``later`` as ``firststatus.first_status`` takes it."""
    with open_repo(folder) as repo:
        first = first_status(repo, later)
        return to_model(repo, first) if first is not None else read_status(repo)


def diff(folder: Folder, path: str, staged: bool = False) -> Diff:
    with open_repo(folder) as repo:
        return file_diff(repo, path, staged)


def commit_diff(folder: Folder, sha: str, path: str) -> Diff:
    with open_repo(folder) as repo:
        return commit_file_diff(repo, sha, path)


def stage(folder: Folder, paths: list[str]) -> Status:
    with writing(folder) as repo:
        staging.stage(repo, paths)
        return read_status(repo)


def unstage(folder: Folder, paths: list[str]) -> Status:
    with writing(folder) as repo:
        staging.unstage(repo, paths)
        return read_status(repo)


def discard(folder: Folder, paths: list[str]) -> Status:
    with writing(folder) as repo:
        staging.discard(repo, paths)
        return read_status(repo)


def stage_text(folder: Folder, path: str, text: str, base: str | None) -> Status:
    """Stage or unstage part of a file: the index holds ``text`` (computed from blob ``base``)."""
    with writing(folder) as repo:
        hunk_ops.set_index_text(repo, path, text, base)
        return read_status(repo)


def discard_text(folder: Folder, path: str, text: str, base: str | None) -> Status:
    """Discard part of a file's changes: the work-tree file (still blob ``base``) holds ``text``."""
    if base is None:
        raise Invalid("base: the work-tree file's blob id is needed", code=ErrorCode.STALE_DIFF)
    with writing(folder) as repo:
        hunk_ops.set_worktree_text(repo, path, text, base)
        return read_status(repo)


def merge(folder: Folder, branch: str, author: str | None = None,
          fallback_author: str | None = None) -> MergeResult:
    """``git merge``: fast-forward when it can, else a merge commit with git's default message;
    conflicts are left for the merge editor (status' ``conflicted``), as git leaves them."""
    with writing(folder) as repo:
        who = partial(commit_ops.identity, repo, author, fallback_author)
        outcome = merge_ops.merge_ref(repo, branch, who)
        message = f"Merge {merge_ops.merge_label(repo, branch)}"
    return MergeResult(
        message=message,
        branch=branch,
        outcome=outcome.outcome,  # type: ignore[arg-type]
        commit=outcome.commit.decode() if outcome.commit else None,
        conflicts=[p.decode("utf-8", "replace") for p in outcome.conflicts],
    )


def pick(folder: Folder, sha: str, revert: bool = False, author: str | None = None,
         fallback_author: str | None = None) -> PickResult:
    """``git cherry-pick`` (or ``git revert``) of one commit onto HEAD."""
    with writing(folder) as repo:
        who = commit_ops.identity(repo, author, fallback_author)
        outcome, message = pick_ops.pick(repo, sha, who, revert)
    return PickResult(
        commit=outcome.commit.decode() if outcome.commit else None,
        outcome=outcome.outcome,  # type: ignore[arg-type]
        conflicts=[p.decode("utf-8", "replace") for p in outcome.conflicts],
        message=message,
    )


def conflict(folder: Folder, path: str) -> ConflictFile:
    with open_repo(folder) as repo:
        return conflict_ops.conflict_file(repo, path)


def resolve(folder: Folder, path: str, content: str | None, take: str | None) -> Status:
    with writing(folder) as repo:
        conflict_ops.resolve(repo, path, content, take)
        return read_status(repo)


def blame(folder: Folder, path: str, rev: str = "HEAD") -> Blame:
    with open_repo(folder) as repo:
        return blame_ops.blame(repo, path, rev)


def commit(
    folder: Folder,
    message: str,
    amend: bool = False,
    author: str | None = None,
    fallback_author: str | None = None,
) -> CommitInfo:
    """``fallback_author`` is the caller's stored identity, used when the repository has none."""
    with writing(folder) as repo:
        return commit_ops.commit(repo, message, author=author, amend=amend, fallback=fallback_author)


def log(folder: Folder, limit: int = 100, skip: int = 0, ref: str | None = None,
        every: bool = False) -> list[CommitInfo]:
    with open_repo(folder) as repo:
        return commit_ops.log(repo, limit=limit, skip=skip, ref=ref, every=every)


def show(folder: Folder, sha: str) -> CommitDetail:
    with open_repo(folder) as repo:
        return commit_ops.show(repo, sha)


def branches(folder: Folder) -> list[Branch]:
    with open_repo(folder) as repo:
        return branch_ops.list_branches(repo)


def refs(folder: Folder) -> list[RefLabel]:
    with open_repo(folder) as repo:
        return list_refs(repo)


def tags(folder: Folder) -> list[TagInfo]:
    with open_repo(folder) as repo:
        return tag_ops.list_tags(repo)


def create_tag(folder: Folder, name: str, target: str | None = None, message: str = "",
               author: str | None = None, fallback_author: str | None = None) -> TagInfo:
    """A tag at ``target`` (HEAD by default); annotated, with the caller as tagger, when
    ``message`` is given (a lightweight tag needs no identity)."""
    with writing(folder) as repo:
        who = commit_ops.identity(repo, author, fallback_author) if message.strip() else None
        return tag_ops.create_tag(repo, name, target, message, who)


def delete_tag(folder: Folder, name: str) -> None:
    with writing(folder) as repo:
        tag_ops.delete_tag(repo, name)


def push_tag(
    folder: Folder,
    remote: str,
    tag: str,
    username: str | None = None,
    password: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    progress: Progress | None = None,
    policy: UrlPolicy = UNRESTRICTED,
) -> TagPushResult:
    with open_repo(folder) as repo:
        return remote_ops.push_tag(repo, remote, tag, (username, password), timeout, progress, policy)


def create_branch(folder: Folder, name: str, start_point: str | None = None) -> Branch:
    with writing(folder) as repo:
        return branch_ops.create_branch(repo, name, start_point)


def delete_branch(folder: Folder, name: str, force: bool = False) -> None:
    with writing(folder) as repo:
        branch_ops.delete_branch(repo, name, force)


def checkout(folder: Folder, branch: str) -> Status:
    with writing(folder) as repo:
        branch_ops.checkout(repo, branch)
        return read_status(repo)


def remotes(folder: Folder) -> list[Remote]:
    with open_repo(folder) as repo:
        return remote_ops.list_remotes(repo)


def remote_url(folder: Folder, name: str) -> str:
    """The remote's URL as configured, without any ``user:pass@``."""
    with open_repo(folder) as repo:
        return split_credentials(remote_ops.remote_url(repo, name))[0]


def add_remote(folder: Folder, name: str, url: str, policy: UrlPolicy = UNRESTRICTED) -> Remote:
    with writing(folder) as repo:
        return remote_ops.add_remote(repo, name, url, policy)


def remove_remote(folder: Folder, name: str) -> None:
    with writing(folder) as repo:
        remote_ops.remove_remote(repo, name)


def fetch(
    folder: Folder,
    remote: str = "origin",
    username: str | None = None,
    password: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    progress: Progress | None = None,
    policy: UrlPolicy = UNRESTRICTED,
) -> FetchResult:
    with open_repo(folder) as repo:
        return remote_ops.fetch(
            repo, remote, (username, password), timeout, progress, lock=write_lock(folder), policy=policy
        )


def pull(
    folder: Folder,
    remote: str = "origin",
    branch: str | None = None,
    username: str | None = None,
    password: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    progress: Progress | None = None,
    author: str | None = None,
    policy: UrlPolicy = UNRESTRICTED,
    fallback_author: str | None = None,
) -> PullResult:
    with open_repo(folder) as repo:
        name, outcome = remote_ops.pull(
            repo,
            remote,
            branch,
            (username, password),
            timeout,
            progress,
            author,
            lock=write_lock(folder),
            policy=policy,
            fallback_author=fallback_author,
        )
    return PullResult(
        remote=remote,
        branch=name,
        outcome=outcome.outcome,  # type: ignore[arg-type]
        commit=outcome.commit.decode() if outcome.commit else None,
        conflicts=[p.decode("utf-8", "replace") for p in outcome.conflicts],
    )


def push(
    folder: Folder,
    remote: str = "origin",
    branch: str | None = None,
    username: str | None = None,
    password: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    progress: Progress | None = None,
    policy: UrlPolicy = UNRESTRICTED,
) -> PushResult:
    with open_repo(folder) as repo:
        return remote_ops.push(repo, remote, branch, (username, password), timeout, progress, policy)


def stashes(folder: Folder) -> list[StashEntry]:
    with open_repo(folder) as repo:
        return stash_ops.list_stashes(repo)


def stash_push(
    folder: Folder,
    message: str = "",
    include_untracked: bool = False,
    author: str | None = None,
    fallback_author: str | None = None,
) -> StashEntry:
    with writing(folder) as repo:
        who = commit_ops.identity(repo, author, fallback_author)
        return stash_ops.push(repo, message, include_untracked, who)


def stash_apply(folder: Folder, index: int, pop: bool = False) -> StashApplied:
    with writing(folder) as repo:
        return stash_ops.apply(repo, index, pop=pop)


def stash_drop(folder: Folder, index: int) -> None:
    with writing(folder) as repo:
        stash_ops.drop(repo, index)


def init(folder: Folder, branch: str = "main") -> Status:
    init_repo(folder, branch)
    return status(folder)


def start_tracking(folder: Folder, author: str | None = None,
                   fallback_author: str | None = None) -> Status:
    """A repository whose first commit holds the folder's files (``start.py``)."""
    start.start_tracking(folder, author, fallback_author)
    return status(folder)


def clone(
    url: str,
    dest: Folder,
    username: str | None = None,
    password: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    progress: Progress | None = None,
    policy: UrlPolicy = UNRESTRICTED,
    on_step: OnStep | None = None,
    cancel: threading.Event | None = None,
) -> str | None:
    """Clone into a new (or empty) folder; returns the checked-out branch, if any."""
    with write_lock(Path(dest)):
        return clone_ops.clone(url, dest, username, password, timeout, progress, policy, on_step, cancel)
