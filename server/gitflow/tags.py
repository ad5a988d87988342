"""Tags: listing them peeled, and taking the tags a remote advertises as git does.

A fetch or clone keeps every tag the remote has (annotated ones point at their tag object, so
``git show``, ``git describe`` and a later push see the same objects); a tag that already exists
locally is never moved, as ``git fetch`` refuses to clobber one.
"""

from collections.abc import Mapping

from dulwich.object_store import peel_sha
from dulwich.objects import ZERO_SHA, Commit, ObjectID, Tag
from dulwich.refs import Ref
from dulwich.repo import Repo

from server.gitflow.models import TagInfo

TAGS = b"refs/tags/"
PEELED = b"^{}"


def list_tags(repo: Repo) -> list[TagInfo]:
    result = []
    for name in sorted(repo.refs.keys(base=Ref(TAGS))):
        sha = repo.refs[Ref(TAGS + name)]
        obj = repo.object_store[sha]
        target = peel_sha(repo.object_store, sha)[1] if isinstance(obj, Tag) else obj
        message = obj.message.decode("utf-8", "replace").strip() if isinstance(obj, Tag) else ""
        result.append(
            TagInfo(
                name=name.decode("utf-8", "replace"),
                commit=target.id.decode("ascii") if isinstance(target, Commit) else None,
                target=target.id.decode("ascii"),
                annotated=isinstance(obj, Tag),
                message=message,
            )
        )
    return result


def take_remote_tags(repo: Repo, refs: Mapping[Ref, ObjectID | None]) -> list[str]:
    """Add every advertised tag the repository lacks and now has the object of; their names."""
    added = []
    for ref, sha in refs.items():
        if not ref.startswith(TAGS) or ref.endswith(PEELED) or not sha or sha == ZERO_SHA:
            continue
        if sha in repo.object_store and repo.refs.add_if_new(ref, sha, message=b"fetch: new tag"):
            added.append(ref[len(TAGS) :].decode("utf-8", "replace"))
    return sorted(added)
