"""Writing trees into the work tree without losing local changes or leaving the work tree.

Every transition is checked before its first write: the incoming tree's paths and symlinks
(``paths.check_entries``), and the local changes it would overwrite (refused with a 409 that
lists them). Then ``git read-tree -m -u`` (``readtree.py``) writes only the paths that differ;
dulwich's ``update_working_tree`` does for merges, stash and an unborn HEAD.
"""

import os

from dulwich.diff_tree import TreeChange, tree_changes
from dulwich.index import InvalidPathError, update_working_tree, verify_leading_dirs
from dulwich.objects import ObjectID
from dulwich.repo import Repo

from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Invalid
from server.gitflow import gitlinks, readtree
from server.gitflow.paths import check_entries, element_is_safe
from server.gitflow.status import decode, raw_status


def ensure_safe_parent(root: bytes, path: bytes) -> None:
    """Refuse a path whose leading folders include a symlink (it would write elsewhere).

    A leading folder that is now a file is not refused here: the path simply does not exist."""
    try:
        verify_leading_dirs(path, [], root)
    except InvalidPathError:
        raise Invalid(
            "refused: the path goes through a symlink", code=ErrorCode.UNSAFE_PATHS, files=[decode(path)]
        ) from None
    except NotADirectoryError:
        pass


def file_in_place_of_folder(root: bytes, path: bytes) -> bytes | None:
    """The first leading folder of ``path`` that is now a file (writing there would fail)."""
    parts = path.split(b"/")[:-1]
    for n in range(1, len(parts) + 1):
        folder = b"/".join(parts[:n])
        full = os.path.join(root, folder)
        if os.path.lexists(full) and not os.path.isdir(full):
            return folder
    return None


def remove_file(root: bytes, path: bytes) -> None:
    """Delete a work-tree file, then its folders while they are empty."""
    full = os.path.join(root, path)
    if os.path.lexists(full):
        os.unlink(full)
    folder = os.path.dirname(path)
    while folder:
        try:
            os.rmdir(os.path.join(root, folder))
        except OSError:
            return
        folder = os.path.dirname(folder)


def changed_paths(changes: list[TreeChange]) -> set[bytes]:
    paths = set()
    for change in changes:
        for side in (change.old, change.new):
            if side is not None and side.path is not None:
                paths.add(side.path)
    return paths


def check_incoming(repo: Repo, changes: list[TreeChange]) -> None:
    """Refuse unsafe paths or symlinks in the entries a transition would write."""
    check_entries(
        repo.object_store,
        [
            (c.new.path, c.new.mode, c.new.sha)
            for c in changes
            if c.new is not None and c.new.path is not None and c.new.sha is not None
        ],
    )


def refuse_overwrites(repo: Repo, changes: list[TreeChange], action: str) -> None:
    """409 listing local changes (and untracked files) that the transition would overwrite."""
    refuse_paths(repo, changed_paths(changes), action)


def refuse_paths(repo: Repo, touched: set[bytes], action: str) -> None:
    st = raw_status(repo)
    blocked = (touched & st.dirty()) | (touched & set(st.untracked))
    if blocked:
        raise Conflict(
            f"{action} would overwrite local changes; commit or stash them first",
            code=ErrorCode.LOCAL_CHANGES,
            files=sorted(decode(p) for p in blocked),
        )


def switch_tree(repo: Repo, old_tree: ObjectID | None, new_tree: ObjectID, action: str) -> None:
    """Move work tree and index from ``old_tree`` to ``new_tree``, keeping unrelated changes.

    git itself writes (``readtree.py``) once the paths are checked; dulwich for an unborn HEAD."""
    if old_tree is not None and readtree.usable(repo):
        touched, incoming = readtree.differences(repo, old_tree, new_tree)
        check_entries(repo.object_store, incoming)
        refuse_paths(repo, touched, action)
        readtree.move(repo, old_tree, new_tree, action)
        return
    changes = list(tree_changes(repo.object_store, old_tree, new_tree))
    check_incoming(repo, changes)
    refuse_overwrites(repo, changes, action)
    write_changes(repo, old_tree, new_tree, changes)


def write_changes(
    repo: Repo, old_tree: ObjectID | None, new_tree: ObjectID, changes: list[TreeChange]
) -> None:
    """Write ``changes`` into the work tree and index; submodules stay gitlinks."""
    links = [c for c in changes if gitlinks.is_gitlink_change(c)]
    root = os.fsencode(repo.path)
    try:
        gitlinks.remove_folders(root, links)
        update_working_tree(
            repo,
            old_tree,
            new_tree,
            iter([c for c in changes if not gitlinks.is_gitlink_change(c)]),
            validate_path_element=element_is_safe,
            allow_overwrite_modified=False,
        )
        if links:
            index = repo.open_index()
            gitlinks.record(root, index, links)
            index.write()
    except InvalidPathError as e:
        raise Invalid("refused: unsafe path in the tree", code=ErrorCode.UNSAFE_PATHS) from e
    except OSError as e:
        raise Conflict(f"could not update the work tree: {e.strerror or e}") from e
