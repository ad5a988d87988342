"""Tags: listing them peeled, and taking the tags a remote advertises as git does.

A fetch or clone keeps every tag the remote has (annotated ones point at their tag object, so
``git show``, ``git describe`` and a later push see the same objects); a tag that already exists
locally is never moved, as ``git fetch`` refuses to clobber one.
"""

import time
from collections.abc import Mapping

from dulwich.object_store import peel_sha
from dulwich.objects import ZERO_SHA, Commit, ObjectID, Tag
from dulwich.refs import Ref, check_ref_format
from dulwich.repo import Repo

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid, NotFound
from server.gitflow.models import TagInfo
from server.gitflow.trees import head_id, resolve_commit

TAGS = b"refs/tags/"
PEELED = b"^{}"


def tag_ref(name: str) -> Ref:
    ref = Ref(TAGS + name.encode("utf-8"))
    if not name or not check_ref_format(ref) or name.startswith("-"):
        raise Invalid(f"invalid tag name: {name!r}", code=ErrorCode.INVALID_TAG_NAME)
    return ref


def create_tag(repo: Repo, name: str, target: str | None, message: str, who: bytes | None) -> TagInfo:
    """``git tag NAME [TARGET]``, or ``git tag -a -m MESSAGE`` when there is a message (``who``
    is then the tagger). An existing tag is never moved."""
    ref = tag_ref(name)
    if ref in repo.refs:
        raise Conflict(f"the tag {name} exists already", code=ErrorCode.TAG_EXISTS)
    commit = resolve_commit(repo, target) if target else None
    sha = commit.id if commit is not None else head_id(repo)
    if sha is None:
        raise Invalid("there is no commit to tag yet", code=ErrorCode.NO_COMMITS)
    if message.strip():
        assert who is not None
        tag = Tag()
        tag.name = name.encode("utf-8")
        tag.object = (Commit, sha)
        tag.tagger = who
        tag.tag_time = int(time.time())
        tag.tag_timezone = time.localtime(tag.tag_time).tm_gmtoff
        tag.message = message.rstrip("\n").encode("utf-8") + b"\n"
        repo.object_store.add_object(tag)
        sha = tag.id
    if not repo.refs.add_if_new(ref, sha, message=b"tag: " + name.encode("utf-8")):
        raise Conflict(f"the tag {name} exists already", code=ErrorCode.TAG_EXISTS)
    return _info(repo, ref[len(TAGS) :])


def delete_tag(repo: Repo, name: str) -> None:
    ref = tag_ref(name)
    if ref not in repo.refs:
        raise NotFound(f"no such tag: {name}", code=ErrorCode.TAG_NOT_FOUND)
    repo.refs.remove_if_equals(ref, repo.refs[ref])


def list_tags(repo: Repo) -> list[TagInfo]:
    return [_info(repo, name) for name in sorted(repo.refs.keys(base=Ref(TAGS)))]


def _info(repo: Repo, name: bytes) -> TagInfo:
    sha = repo.refs[Ref(TAGS + name)]
    obj = repo.object_store[sha]
    target = peel_sha(repo.object_store, sha)[1] if isinstance(obj, Tag) else obj
    message = obj.message.decode("utf-8", "replace").strip() if isinstance(obj, Tag) else ""
    return TagInfo(
        name=name.decode("utf-8", "replace"),
        commit=target.id.decode("ascii") if isinstance(target, Commit) else None,
        target=target.id.decode("ascii"),
        annotated=isinstance(obj, Tag),
        message=message,
    )


def take_remote_tags(repo: Repo, refs: Mapping[Ref, ObjectID | None]) -> list[str]:
    """Add every advertised tag the repository lacks and now has the object of; their names."""
    added = []
    for ref, sha in refs.items():
        if not ref.startswith(TAGS) or ref.endswith(PEELED) or not sha or sha == ZERO_SHA:
            continue
        if sha in repo.object_store and repo.refs.add_if_new(ref, sha, message=b"fetch: new tag"):
            added.append(ref[len(TAGS) :].decode("utf-8", "replace"))
    return sorted(added)
