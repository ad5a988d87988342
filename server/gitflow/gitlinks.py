"""Submodules as git keeps them: a gitlink (mode 160000) in the tree and index, a folder in the
work tree.

Nothing here clones a submodule. A transition that adds a gitlink makes its folder (empty, as
``git clone`` without ``--recurse-submodules`` does) and records the gitlink in the index; one
that removes a gitlink drops its index entry and removes its folder only when it is empty.
dulwich would write a ``.git`` file pointing at a module folder that does not exist and record
the folder's own mode (040000), which breaks ``git status`` and deletes the submodule on the next
commit.
"""

import os
import stat

from dulwich.diff_tree import TreeChange
from dulwich.index import Index, IndexEntry
from dulwich.objects import S_ISGITLINK, ObjectID

GITLINK = 0o160000


def is_gitlink_change(change: TreeChange) -> bool:
    """A change whose sides are gitlinks (a type change comes as a delete and an add)."""
    return any(side is not None and side.mode is not None and S_ISGITLINK(side.mode)
               for side in (change.old, change.new))


def gitlink_entry(sha: bytes) -> IndexEntry:
    """An index entry for a gitlink; git too keeps no stat data worth comparing for one."""
    return IndexEntry(
        ctime=(0, 0), mtime=(0, 0), dev=0, ino=0, mode=GITLINK, uid=0, gid=0, size=0, sha=ObjectID(sha)
    )


def remove_folders(root: bytes, changes: list[TreeChange]) -> None:
    """Before the other changes are written: remove the folders of removed gitlinks, and the
    folders holding them, while they are empty (a cloned submodule's folder is kept)."""
    for change in changes:
        if change.new is None or change.new.mode is None or not S_ISGITLINK(change.new.mode):
            path = change.old.path if change.old is not None else None
            while path:
                full = os.path.join(root, path)
                if not os.path.isdir(full) or os.path.islink(full) or os.listdir(full):
                    break
                os.rmdir(full)
                path = os.path.dirname(path)


def record(root: bytes, index: Index, changes: list[TreeChange]) -> None:
    """After the other changes are written: make the new gitlinks' folders, update the index."""
    for change in changes:
        new = change.new
        if new is not None and new.path is not None and new.mode is not None and S_ISGITLINK(new.mode):
            assert new.sha is not None
            full = os.path.join(root, new.path)
            if not os.path.lexists(full):
                os.makedirs(full)
            elif not stat.S_ISDIR(os.lstat(full).st_mode):
                raise FileExistsError(f"{new.path.decode('utf-8', 'replace')} is not a folder")
            index[new.path] = gitlink_entry(new.sha)
        elif change.old is not None and change.old.path is not None:
            entry = index[change.old.path] if change.old.path in index else None
            if isinstance(entry, IndexEntry) and S_ISGITLINK(entry.mode):
                del index[change.old.path]
