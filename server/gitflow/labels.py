"""Every ref as a label on a commit, for the history graph and the branch picker: ``HEAD``, local
branches, remote-tracking branches and tags (annotated ones peeled to their commit)."""

from typing import Literal

from dulwich.objects import Commit, ObjectID
from dulwich.refs import Ref
from dulwich.repo import Repo

from server.gitflow.models import RefLabel
from server.gitflow.trees import head_id, peeled_id

_KINDS: tuple[tuple[bytes, Literal["branch", "remote", "tag"]], ...] = (
    (b"refs/heads/", "branch"),
    (b"refs/remotes/", "remote"),
    (b"refs/tags/", "tag"),
)


def list_refs(repo: Repo) -> list[RefLabel]:
    labels = []
    head = head_id(repo)
    if head is not None:
        labels.append(RefLabel(name="HEAD", kind="head", commit=head.decode("ascii")))
    for prefix, kind in _KINDS:
        for name in sorted(repo.refs.keys(base=Ref(prefix))):
            if kind == "remote" and name.endswith(b"/HEAD"):
                continue  # a symbolic ref naming the remote's default branch, listed itself
            try:
                target = peeled_id(repo.object_store, repo.refs[Ref(prefix + name)])
            except KeyError:
                continue  # a dangling symbolic ref
            if isinstance(repo.object_store[target], Commit):
                text = name.decode("utf-8", "replace")
                labels.append(RefLabel(name=text, kind=kind, commit=target.decode("ascii")))
    return labels


def every_start(repo: Repo) -> list[ObjectID]:
    """What ``git log --branches --remotes --tags HEAD`` starts from, in git's order: the
    commits of local branches, remote branches and tags (each group by name), then HEAD."""
    starts = []
    for prefix, _ in _KINDS:
        for name in sorted(repo.refs.keys(base=Ref(prefix))):
            try:
                target = peeled_id(repo.object_store, repo.refs[Ref(prefix + name)])
            except KeyError:
                continue
            if isinstance(repo.object_store[target], Commit):
                starts.append(target)
    head = head_id(repo)
    return starts + ([head] if head is not None else [])
