"""Branches: list with ahead/behind, create, checkout (never over local changes), delete.

Unlike dulwich's porcelain, deleting the current branch is refused, and so is deleting a branch
whose commits are not merged into HEAD or its upstream unless forced.
"""

import os

from dulwich.file import GitFile
from dulwich.graph import can_fast_forward
from dulwich.objects import ObjectID
from dulwich.refs import Ref, check_ref_format
from dulwich.repo import Repo

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid, NotFound
from server.gitflow.models import Branch
from server.gitflow.trees import current_branch, get_commit, head_id, head_tree_id, resolve_commit
from server.gitflow.worktree import switch_tree

HEADS = b"refs/heads/"
REMOTES = b"refs/remotes/"
TAGS = b"refs/tags/"
# Counting further than this is slow on long histories and useless in a badge.
MAX_COUNT = 1000


def branch_ref(name: str) -> Ref:
    ref = Ref(HEADS + name.encode("utf-8"))
    if not check_ref_format(ref) or name.startswith("-"):
        raise Invalid(f"invalid branch name: {name!r}", code=ErrorCode.INVALID_BRANCH_NAME)
    return ref


def upstream_of(repo: Repo, name: bytes) -> Ref | None:
    """The remote-tracking ref configured as ``name``'s upstream, if it exists."""
    config = repo.get_config()
    try:
        remote = config.get((b"branch", name), b"remote")
        merge = config.get((b"branch", name), b"merge")
    except KeyError:
        return None
    if not merge.startswith(HEADS) or remote == b".":
        return None
    ref = Ref(REMOTES + remote + b"/" + merge[len(HEADS) :])
    return ref if ref in repo.refs else None


def count_between(repo: Repo, include: ObjectID, exclude: ObjectID) -> int:
    walker = repo.get_walker(include=[include], exclude=[exclude], max_entries=MAX_COUNT)
    return sum(1 for _ in walker)


def list_branches(repo: Repo) -> list[Branch]:
    current = current_branch(repo)
    result = []
    for name in sorted(repo.refs.keys(base=Ref(HEADS))):
        tip = repo.refs[Ref(HEADS + name)]
        upstream = upstream_of(repo, name)
        ahead = behind = 0
        if upstream is not None:
            other = repo.refs[Ref(upstream)]
            ahead, behind = count_between(repo, tip, other), count_between(repo, other, tip)
        text = name.decode("utf-8", "replace")
        result.append(
            Branch(
                name=text,
                commit=tip.decode("ascii"),
                current=text == current,
                upstream=upstream[len(REMOTES) :].decode() if upstream else None,
                ahead=ahead,
                behind=behind,
            )
        )
    return result


def create_branch(repo: Repo, name: str, start_point: str | None = None) -> Branch:
    ref = branch_ref(name)
    if ref in repo.refs:
        raise Conflict(f"branch already exists: {name}", code=ErrorCode.BRANCH_EXISTS)
    if start_point:
        start = resolve_commit(repo, start_point).id
    else:
        head = head_id(repo)
        if head is None:
            raise Invalid("make a first commit before creating branches", code=ErrorCode.NO_COMMITS)
        start = head
    message = f"branch: Created from {start_point or 'HEAD'}".encode()
    repo.refs.add_if_new(Ref(ref), start, message=message)
    return Branch(name=name, commit=start.decode("ascii"), current=False)


def checkout(repo: Repo, name: str) -> None:
    """Switch to ``name`` as ``git checkout`` does: a local branch; a remote branch (``origin/x``,
    or ``x`` when one remote has it) through a local tracking branch ``x``, made if missing; a
    tag by detaching HEAD at its commit."""
    branch_ref(name)
    local, remote = _local_branch_for(repo, name)
    previous = current_branch(repo) or (head_id(repo) or b"").decode()
    message = f"checkout: moving from {previous} to {local or name}".encode()
    if local is None:
        target = resolve_commit(repo, name).id
        switch_tree(repo, head_tree_id(repo), get_commit(repo, target).tree, "checkout")
        _detach_head(repo, target, message)
        return
    ref = branch_ref(local)
    target = repo.refs[ref] if remote is None else repo.refs[_remote_ref(remote, local)]
    switch_tree(repo, head_tree_id(repo), get_commit(repo, target).tree, "checkout")
    if remote is not None:
        _create_tracking_branch(repo, local, remote, target)
    repo.refs.set_symbolic_ref(Ref(b"HEAD"), ref, message=message)


def _detach_head(repo: Repo, target: ObjectID, message: bytes) -> None:
    """Point HEAD itself at ``target`` (dulwich's ref writes would move the branch it names)."""
    old = head_id(repo)
    with GitFile(os.path.join(repo.controldir(), "HEAD"), "wb") as f:
        f.write(target + b"\n")
    repo.refs._log(Ref(b"HEAD"), old, target, message=message)


def _local_branch_for(repo: Repo, name: str) -> tuple[str | None, bytes | None]:
    """The local branch to switch to and, when it must be made, the remote it tracks; a tag
    gives ``(None, None)``."""
    if branch_ref(name) in repo.refs:
        return name, None
    raw = name.encode()
    if b"/" in raw and Ref(REMOTES + raw) in repo.refs:
        remote, _, short = raw.partition(b"/")
        local = short.decode()
        return local, (None if branch_ref(local) in repo.refs else remote)
    if Ref(TAGS + raw) in repo.refs:
        return None, None
    return name, _tracked_remote(repo, name)


def _remote_ref(remote: bytes, name: str) -> Ref:
    return Ref(REMOTES + remote + b"/" + name.encode())


def _tracked_remote(repo: Repo, name: str) -> bytes:
    """The one remote that has a branch ``name``."""
    remote_refs = repo.refs.keys(base=Ref(REMOTES))
    matches = [r for r in remote_refs if r.split(b"/", 1)[-1] == name.encode()]
    if len(matches) != 1:
        raise NotFound(f"no such branch: {name}", code=ErrorCode.BRANCH_NOT_FOUND)
    return matches[0].split(b"/", 1)[0]


def _create_tracking_branch(repo: Repo, name: str, remote: bytes, target: ObjectID) -> None:
    ref = branch_ref(name)
    repo.refs.add_if_new(ref, target, message=b"branch: Created from " + _remote_ref(remote, name))
    config = repo.get_config()
    config.set((b"branch", name.encode()), b"remote", remote)
    config.set((b"branch", name.encode()), b"merge", ref)
    config.write_to_path()


def delete_branch(repo: Repo, name: str, force: bool = False) -> None:
    ref = branch_ref(name)
    if Ref(ref) not in repo.refs:
        raise NotFound(f"no such branch: {name}", code=ErrorCode.BRANCH_NOT_FOUND)
    if name == current_branch(repo):
        raise Conflict("cannot delete the branch you are on", code=ErrorCode.CURRENT_BRANCH)
    tip = repo.refs[ref]
    if not force and not _is_merged(repo, name.encode(), tip):
        raise Conflict(
            f"branch {name} has commits not merged into HEAD; delete with force to drop them",
            code=ErrorCode.UNMERGED_BRANCH,
        )
    repo.refs.remove_if_equals(Ref(ref), tip, message=b"branch: deleted")
    config = repo.get_config()
    if config.has_section((b"branch", name.encode())):
        del config[(b"branch", name.encode())]
        config.write_to_path()


def _is_merged(repo: Repo, name: bytes, tip: ObjectID) -> bool:
    head = head_id(repo)
    if head is not None and can_fast_forward(repo, tip, head):
        return True
    upstream = upstream_of(repo, name)
    return upstream is not None and can_fast_forward(repo, tip, repo.refs[Ref(upstream)])
