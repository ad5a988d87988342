"""Commit and amend; history and a commit's files (staging: ``staging.py``).

Unlike dulwich's porcelain: a commit with nothing staged is refused, commits run no hook and are
never signed through an external program, and the branch moves by compare-and-swap so a
concurrent commit is never lost.
"""

import os
import re
import time
from collections.abc import Sequence

from dulwich.config import Config
from dulwich.diff_tree import tree_changes
from dulwich.index import (
    commit_tree,
)
from dulwich.object_store import commit_tree_changes
from dulwich.objects import Commit, ObjectID
from dulwich.refs import Ref
from dulwich.repo import Repo

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid, NotFound
from server.gitflow.history import topo_order, topo_order_many
from server.gitflow.indexfile import IndexView, read_index
from server.gitflow.labels import every_start
from server.gitflow.models import ChangeKind, CommitDetail, CommitInfo, FileChange
from server.gitflow.status import decode, note_index_matches, staged_changes
from server.gitflow.trees import flatten, get_commit, head_id, head_tree_id, remember, resolve_commit

_TREE_CHANGE_KINDS: dict[str, ChangeKind] = {"add": "added", "delete": "deleted"}
_IDENTITY = re.compile(r"^[^<>\n]+ <[^<>\n]*>$")


def identity(repo: Repo, author: str | None, fallback: str | None = None) -> bytes:
    """``Name <email>`` from the request; else the repository's own config; else ``fallback``
    (the caller's stored identity); else the server's global config."""
    if author:
        return _checked(author)
    found = _configured(repo.get_config())
    if found is None and fallback:
        return _checked(fallback)
    return found or _configured(repo.get_config_stack()) or _no_identity()


def _checked(author: str) -> bytes:
    if not _IDENTITY.match(author):
        raise Invalid("author must look like 'Name <email>'", code=ErrorCode.INVALID_AUTHOR)
    return author.encode("utf-8")


def _configured(config: Config) -> bytes | None:
    try:
        name = config.get((b"user",), b"name")
        email = config.get((b"user",), b"email")
    except KeyError:
        return None
    return name + b" <" + email + b">" if name and email else None


def _no_identity() -> bytes:
    raise Invalid(
        "no author: set your name and email, or the repository's user.name and user.email",
        code=ErrorCode.NO_IDENTITY,
    )


def _merge_head(repo: Repo) -> ObjectID | None:
    try:
        with open(os.path.join(repo.controldir(), "MERGE_HEAD"), "rb") as f:
            return ObjectID(f.readline().strip()) or None
    except FileNotFoundError:
        return None


def commit(
    repo: Repo, message: str, author: str | None = None, amend: bool = False, fallback: str | None = None
) -> CommitInfo:
    view = read_index(repo.index_path())
    if view.conflicted:
        raise Invalid("resolve and stage the conflicted files first", code=ErrorCode.UNRESOLVED_CONFLICTS)
    who = identity(repo, author, fallback)
    old_head = head_id(repo)
    parents, merge_head = _parents(repo, old_head, amend)
    tree = _index_tree(repo, view)
    if tree == head_tree_id(repo) and not amend and merge_head is None:
        raise Invalid("nothing to commit: stage some changes first", code=ErrorCode.NOTHING_TO_COMMIT)
    picked = None if amend else _picked(repo)
    new = write_commit(repo, tree, parents, who, message, author_of=picked)
    summary = message.strip().splitlines()[0] if message.strip() else ""
    log_message = ("commit (amend): " if amend else "commit: ") + summary
    move_head(repo, old_head, new.id, log_message.encode(), who)
    for name in ("MERGE_HEAD", "MERGE_MSG", "CHERRY_PICK_HEAD", "REVERT_HEAD"):
        path = os.path.join(repo.controldir(), name)
        if os.path.exists(path):
            os.unlink(path)
    return commit_info(new)


def _picked(repo: Repo) -> Commit | None:
    """The commit a cherry-pick that stopped on conflicts is applying: its author stays the
    author, as ``git commit`` does after ``git cherry-pick``."""
    try:
        with open(os.path.join(repo.controldir(), "CHERRY_PICK_HEAD"), "rb") as f:
            sha = f.readline().strip()
    except FileNotFoundError:
        return None
    try:
        return get_commit(repo, ObjectID(sha))
    except (NotFound, Invalid):  # a stray file naming no commit: the committer is the author
        return None


def _index_tree(repo: Repo, view: IndexView) -> ObjectID:
    """The index as a tree: HEAD's tree with only the staged paths rewritten.

    Rebuilding just the folders on the staged paths (not all of them, as dulwich's
    ``Index.commit`` does) keeps a commit fast in a large repository.
    """
    head_tree = head_tree_id(repo)
    if head_tree is None:
        entries = [(path, ObjectID(e.sha), e.mode) for path, e in view.entries.items()
                   if path not in view.intended]
        return commit_tree(repo.object_store, entries)
    staged = staged_changes(repo, view)
    changes: list[tuple[bytes, int | None, ObjectID | None]] = [
        (path, view.entries[path].mode, ObjectID(view.entries[path].sha))
        if path in view.entries
        else (path, None, None)
        for path in sorted(set(staged.staged) | set(staged.renamed_from.values()))
    ]
    if not changes:
        return head_tree
    tree = commit_tree_changes(repo.object_store, head_tree, _without_implied(changes))
    # The next status compares the index with this tree: tell it both answers now.
    flat = dict(flatten(repo.object_store, head_tree))
    for path, mode, sha in changes:
        if mode is None or sha is None:
            flat.pop(path, None)
        else:
            flat[path] = (mode, sha)
    remember(tree, flat)
    note_index_matches(view, tree)
    return tree


def _without_implied(
    changes: list[tuple[bytes, int | None, ObjectID | None]],
) -> list[tuple[bytes, int | None, ObjectID | None]]:
    """Drop deletions below a path that becomes a file: replacing the folder removes them
    (and dulwich's ``commit_tree_changes`` would try to descend into the new file)."""
    files = {path for path, mode, _ in changes if mode is not None}

    def implied(path: bytes) -> bool:
        parts = path.split(b"/")
        return any(b"/".join(parts[:n]) in files for n in range(1, len(parts)))

    return [c for c in changes if c[1] is not None or not implied(c[0])]


def _parents(repo: Repo, old_head: ObjectID | None, amend: bool) -> tuple[list[ObjectID], ObjectID | None]:
    merge_head = _merge_head(repo)
    if amend:
        if old_head is None:
            raise Invalid("there is no commit to amend", code=ErrorCode.NOTHING_TO_AMEND)
        return list(get_commit(repo, old_head).parents), None
    parents = [old_head] if old_head else []
    return (parents + [merge_head] if merge_head else parents), merge_head


def write_commit(
    repo: Repo, tree: ObjectID, parents: Sequence[ObjectID], who: bytes, message: str,
    author_of: Commit | None = None,
) -> Commit:
    """``who`` commits (and authors, unless ``author_of`` is a commit whose author to keep)."""
    now = int(time.time())
    offset = time.localtime(now).tm_gmtoff
    new = Commit()
    new.tree = tree
    new.parents = list(parents)
    new.author = new.committer = who
    new.author_time = new.commit_time = now
    new.author_timezone = new.commit_timezone = offset
    if author_of is not None:
        new.author, new.author_time = author_of.author, author_of.author_time
        new.author_timezone = author_of.author_timezone
    new.encoding = b"UTF-8"
    new.message = message.rstrip("\n").encode("utf-8") + b"\n"
    repo.object_store.add_object(new)
    return new


def move_head(
    repo: Repo, old: ObjectID | None, new: ObjectID, message: bytes, who: bytes | None = None
) -> None:
    """Move HEAD's branch from ``old`` to ``new`` only if nobody moved it meanwhile."""
    if old is None:
        moved = repo.refs.add_if_new(Ref(b"HEAD"), new, message=message, committer=who)
    else:
        moved = repo.refs.set_if_equals(Ref(b"HEAD"), old, new, message=message, committer=who)
    if not moved:
        raise Conflict("the branch moved meanwhile; try again", code=ErrorCode.HEAD_MOVED)


def _name_and_email(who: bytes) -> tuple[str, str]:
    name, _, email = who.decode("utf-8", "replace").partition(" <")
    return name, email.rstrip(">")


def commit_info(c: Commit) -> CommitInfo:
    name, email = _name_and_email(c.author)
    committer, committer_email = _name_and_email(c.committer)
    message = c.message.decode("utf-8", "replace")
    return CommitInfo(
        sha=c.id.decode("ascii"),
        parents=[p.decode("ascii") for p in c.parents],
        author=name,
        author_email=email,
        committer=committer,
        committer_email=committer_email,
        time=c.commit_time,
        summary=message.strip().splitlines()[0] if message.strip() else "",
        message=message,
    )


def log(repo: Repo, limit: int = 100, skip: int = 0, ref: str | None = None,
        every: bool = False) -> list[CommitInfo]:
    """One page of ``git log --topo-order``; only the page's own commits are read in full.

    ``every``: the history of every branch, remote branch and tag and of HEAD, as
    ``git log --topo-order --branches --remotes --tags HEAD``."""
    if every:
        order = topo_order_many(repo, every_start(repo))
    else:
        start = resolve_commit(repo, ref).id if ref else head_id(repo)
        order = topo_order(repo, start) if start is not None else ()
    return [commit_info(get_commit(repo, sha)) for sha in order[skip : skip + limit]]



def show(repo: Repo, sha: str) -> CommitDetail:
    c = resolve_commit(repo, sha)
    parent_tree = get_commit(repo, c.parents[0]).tree if c.parents else None
    files = []
    for change in tree_changes(repo.object_store, parent_tree, c.tree):
        kind = _TREE_CHANGE_KINDS.get(change.type, "modified")
        entry = change.old if change.type == "delete" else change.new
        assert entry is not None and entry.path is not None
        files.append(FileChange(path=decode(entry.path), kind=kind))
    return CommitDetail(**commit_info(c).model_dump(), files=files)
