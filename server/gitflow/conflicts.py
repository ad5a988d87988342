"""A conflicted file for the merge editor, and marking it resolved.

The three versions come from the index's stages (1 base, 2 ours, 3 theirs), as git records them,
so the editor shows what ``git mergetool`` would. The text is cut into the runs both sides agree
on (already merged) and the conflicts, with ``merge3`` (the merge dulwich itself uses). Resolving
writes the chosen content to the work-tree file and stages it, as ``git add`` after editing does;
``git status`` on the command line agrees at every step.
"""

import os

from dulwich.index import ConflictedIndexEntry, IndexEntry
from dulwich.objects import Blob
from dulwich.repo import Repo
from merge3 import Merge3

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid, NotFound
from server.gitflow.diff import _is_binary
from server.gitflow.models import ConflictChunk, ConflictFile
from server.gitflow.paths import user_path
from server.gitflow.staging import stage
from server.gitflow.status import decode
from server.gitflow.worktree import ensure_safe_parent


def _stages(repo: Repo, raw: bytes) -> ConflictedIndexEntry:
    index = repo.open_index()
    entry = index[raw] if raw in index else None
    if not isinstance(entry, ConflictedIndexEntry):
        raise NotFound(f"{decode(raw)} has no conflict", code=ErrorCode.NOT_CONFLICTED)
    return entry


def _content(repo: Repo, entry: IndexEntry | None) -> bytes | None:
    if entry is None:
        return None
    blob = repo.object_store[entry.sha]
    assert isinstance(blob, Blob)
    return blob.as_raw_string()


def conflict_file(repo: Repo, path: str) -> ConflictFile:
    raw = user_path(path)
    stages = _stages(repo, raw)
    base, ours, theirs = (_content(repo, e) for e in (stages.ancestor, stages.this, stages.other))
    sides = [side for side in (base, ours, theirs) if side is not None]
    if any(_is_binary(side) for side in sides):
        return ConflictFile(path=path, binary=True, ours_deleted=ours is None, theirs_deleted=theirs is None)
    texts = [(side or b"").decode("utf-8") for side in (base, ours, theirs)]
    return ConflictFile(
        path=path,
        binary=False,
        ours_deleted=ours is None,
        theirs_deleted=theirs is None,
        base=texts[0],
        ours=texts[1],
        theirs=texts[2],
        chunks=_chunks(*texts),
    )


def _chunks(base: str, ours: str, theirs: str) -> list[ConflictChunk]:
    """Runs of merged text and conflicts, in order; joining them with a side per conflict gives
    the file."""
    merge = Merge3(base.splitlines(True), ours.splitlines(True), theirs.splitlines(True))
    chunks: list[ConflictChunk] = []
    for group in merge.merge_groups():
        if group[0] == "conflict":
            _, b, a, t = group
            chunks.append(ConflictChunk(kind="conflict", base="".join(b), ours="".join(a), theirs="".join(t)))
        elif chunks and chunks[-1].kind == "merged":
            chunks[-1].text += "".join(group[1])
        else:
            chunks.append(ConflictChunk(kind="merged", text="".join(group[1])))
    return chunks


def resolve(repo: Repo, path: str, content: str | None, take: str | None) -> None:
    """Write the resolution (given text, or one side's version whole) and stage it."""
    raw = user_path(path)
    stages = _stages(repo, raw)
    if take is not None:
        side = _content(repo, stages.this if take == "ours" else stages.other)
        if side is None:
            raise Invalid(f"that side deleted {path}: delete the file and stage it instead")
        data = side
    elif content is not None:
        data = content.encode("utf-8")
    else:
        raise Invalid("give the resolved content or the side to take", code=ErrorCode.INVALID_RESOLUTION)
    root = os.fsencode(repo.path)
    ensure_safe_parent(root, raw)
    full = os.path.join(root, raw)
    if os.path.islink(full) or os.path.isdir(full):
        raise Invalid(f"{path} is not a regular file", code=ErrorCode.INVALID_RESOLUTION)
    with open(full, "wb") as f:
        f.write(data)
    stage(repo, [path])
