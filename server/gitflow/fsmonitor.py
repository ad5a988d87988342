"""The ``lstat`` of every tracked file, for status — kept between calls where the kernel can say
which files changed (git's fsmonitor idea).

``git status`` spends most of its time in one ``lstat`` per tracked file, and so does ours. A
long-running server can keep those answers: one inotify instance watches the folders that hold
tracked files of recently used repositories, and a status stats again only the files an event
named. inotify queues an event inside the very system call that changes a file, so draining the
queue at the start of a status sees every change made before it — no settling delay, no cookie.

The untracked scan keeps each watched folder's names the same way (git's untracked cache, with
events in place of folder times): a folder is listed again only once a name in it came or went.

Whatever the monitor cannot vouch for is stat'ed (or listed), as without it: the first status of a
repository, a folder that could not be watched or was moved or removed (its whole subtree), and
everything after the kernel's event queue overflowed. Not seen, as with git's fsmonitor: writes
through a shared memory mapping, through a hard link in an unwatched folder, or by another
machine on a network file system — set ``MNNWB_GIT_STATUS_WATCH=false`` for such folders.
"""

import contextlib
import logging
import os
import threading
from collections.abc import Collection
from functools import partial

from server.core.cache import BoundedCache
from server.core.inotify import (
    FOLDER_GONE,
    IN_ATTRIB,
    IN_CREATE,
    IN_DELETE,
    IN_DELETE_SELF,
    IN_DONT_FOLLOW,
    IN_EXCL_UNLINK,
    IN_MODIFY,
    IN_MOVE_SELF,
    IN_MOVED_FROM,
    IN_MOVED_TO,
    IN_ONLYDIR,
    IN_Q_OVERFLOW,
    NAMES_CHANGED,
    Inotify,
)

log = logging.getLogger(__name__)

WATCH_MASK = (
    IN_MODIFY | IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
    | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK
)

MISSING = os.stat_result((0,) * 10)
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC

Groups = list[tuple[bytes, list[bytes]]]


def stat_groups(root: bytes, groups: Groups) -> list[os.stat_result]:
    """``lstat`` of ``root + folder/name`` for each group, in order; ``MISSING`` for no file."""
    stats: list[os.stat_result] = []
    for folder, names in groups:
        stats.extend(stat_folder(root, folder, names))
    return stats


def stat_folder(root: bytes, folder: bytes, names: list[bytes]) -> list[os.stat_result]:
    """Each name relative to an open descriptor of its folder (a one-component lookup)."""
    try:
        fd = os.open(root + folder if folder else root, _FOLDER_FLAGS)
    except OSError:
        return [MISSING] * len(names)
    try:
        return list(map(partial(os.stat, dir_fd=fd, follow_symlinks=False), names))
    except OSError:
        return [_stat_or_missing(fd, name) for name in names]
    finally:
        os.close(fd)


def _stat_or_missing(fd: int, name: bytes) -> os.stat_result:
    try:
        return os.stat(name, dir_fd=fd, follow_symlinks=False)
    except OSError:
        return MISSING


class _Tree:
    """What the monitor knows of one work tree (``root`` ends with ``/``)."""

    def __init__(self, root: bytes) -> None:
        self.root = root
        self.watched: dict[bytes, int] = {}  # folder -> watch descriptor
        self.known: dict[bytes, dict[bytes, os.stat_result]] = {}  # folder -> name -> lstat
        self.folders: object = None  # the tracked-folder set last watched
        self.listings: dict[bytes, list[bytes]] = {}  # folder -> its names, while none came or went
        self.epoch = 0  # counts the events that changed a folder's names

    def folder_path(self, folder: bytes) -> bytes:
        return self.root + folder if folder else self.root[:-1]


# Which state of a work tree listings were taken in (None: the monitor does not know the tree).
ListingToken = tuple[_Tree, int] | None


class StatMonitor:
    """Tracked files' stats for up to ``capacity`` work trees, the least recently used dropped."""

    def __init__(self, capacity: int = 32) -> None:
        self.enabled = True
        self._lock = threading.Lock()
        self._inotify: Inotify | None = None
        self._unavailable = False
        self._trees: BoundedCache[bytes, _Tree] = BoundedCache(capacity)
        self._owners: dict[int, set[tuple[bytes, bytes]]] = {}  # wd -> {(root, folder)}

    def stats(self, root: bytes, groups: Groups, folders: dict[bytes, set[bytes]]) -> list[os.stat_result]:
        """As ``stat_groups(root, groups)``; ``folders`` are all tracked folders (to watch)."""
        with self._lock:
            inotify = self._ready()
            if inotify is None:
                return stat_groups(root, groups)
            tree = self._tree(inotify, root)
            self._drain(inotify)
            if tree.folders is not folders:
                self._watch(inotify, tree, folders)
            return self._collect(tree, groups)

    def listings(self, root: bytes) -> tuple[dict[bytes, list[bytes]], ListingToken]:
        """The names of ``root``'s watched folders listed before (``keep_listings``) that no
        event changed since, and the token to keep the folders listed now with."""
        with self._lock:
            inotify = self._ready()
            tree = self._trees.peek(root)
            if inotify is None or tree is None:
                return {}, None
            self._drain(inotify)
            return dict(tree.listings), (tree, tree.epoch)

    def keep_listings(self, root: bytes, listed: dict[bytes, list[bytes]], token: ListingToken) -> None:
        """Keep the names of folders listed after ``listings`` gave ``token``, unless an event
        changed a folder's names meanwhile (the next status lists them again then)."""
        with self._lock:
            tree = self._trees.peek(root)
            if token is None or token[0] is not tree or token[1] != tree.epoch:
                return
            tree.listings.update((f, names) for f, names in listed.items() if f in tree.watched)

    def cold(self, root: bytes) -> bool:
        """Whether a status of ``root`` would stat every tracked file and set its watches first
        (the monitor works but does not know the work tree yet). A dict lookup, without the lock."""
        return self.enabled and not self._unavailable and root not in self._trees

    def close(self) -> None:
        with self._lock:
            if self._inotify is not None:
                self._inotify.close()
            self._inotify = None
            self._trees.clear()
            self._owners.clear()

    def _ready(self) -> Inotify | None:
        if not self.enabled or self._unavailable:
            return None
        if self._inotify is None:
            try:
                self._inotify = Inotify()
            except OSError as exc:
                log.info("status stats every tracked file: %s", exc)
                self._unavailable = True
        return self._inotify

    def _tree(self, inotify: Inotify, root: bytes) -> _Tree:
        tree = self._trees.get(root)
        if tree is None:
            tree = _Tree(root)
            for _, oldest in self._trees.put(root, tree):
                self._unwatch(inotify, oldest, (b"",), subtree=True)
        return tree

    def _drain(self, inotify: Inotify) -> None:
        gone: dict[bytes, set[bytes]] = {}  # folders deleted or moved, forgotten at the end at once
        for wd, mask, name in inotify.events():
            if mask & IN_Q_OVERFLOW:
                for tree in self._trees.values():
                    tree.known.clear()
                    tree.listings.clear()
                    tree.epoch += 1
                continue
            for root, folder in list(self._owners.get(wd, ())):
                owner = self._trees.peek(root)
                assert owner is not None  # a forgotten tree's watches went with it
                if mask & FOLDER_GONE:  # the watches below a moved folder move with it
                    gone.setdefault(root, set()).add(folder)
                    continue
                names = owner.known.get(folder)
                if names is not None:
                    names.pop(name, None)
                if mask & NAMES_CHANGED:
                    owner.listings.pop(folder, None)
                    owner.epoch += 1
        for root, folders in gone.items():
            owner = self._trees.peek(root)
            if owner is not None:
                self._unwatch(inotify, owner, folders, subtree=True)

    def _watch(self, inotify: Inotify, tree: _Tree, folders: dict[bytes, set[bytes]]) -> None:
        """Watch every tracked folder not watched yet; stop watching those no longer tracked.

        A folder is watched before any of its files is stat'ed, so no change falls between."""
        self._unwatch(inotify, tree, [f for f in tree.watched if f not in folders], subtree=False)
        for folder in folders:
            if folder not in tree.watched:
                wd = inotify.add(tree.folder_path(folder), WATCH_MASK)
                if wd is not None:
                    tree.watched[folder] = wd
                    self._owners.setdefault(wd, set()).add((tree.root, folder))
        tree.folders = folders

    def _unwatch(self, inotify: Inotify, tree: _Tree, folders: Collection[bytes], *, subtree: bool) -> None:
        """Forget ``folders`` (and with ``subtree`` every folder below them): stat them again."""
        if subtree:
            doomed = [f for f in tree.watched if _below_any(f, folders)]
        else:
            doomed = [f for f in folders if f in tree.watched]
        for name in doomed:
            wd = tree.watched.pop(name)
            tree.known.pop(name, None)
            tree.listings.pop(name, None)
            tree.epoch += 1
            owners = self._owners.get(wd, set())
            owners.discard((tree.root, name))
            if not owners:
                self._owners.pop(wd, None)
                with contextlib.suppress(OSError):
                    inotify.remove(wd)
        tree.folders = None if doomed else tree.folders

    def _collect(self, tree: _Tree, groups: Groups) -> list[os.stat_result]:
        stats: list[os.stat_result] = []
        for folder, names in groups:
            if folder not in tree.watched:
                stats.extend(stat_folder(tree.root, folder, names))
                continue
            known = tree.known.setdefault(folder, {})
            found: list[os.stat_result | None] = list(map(known.get, names))
            if None in found:
                stale = [i for i, st in enumerate(found) if st is None]
                fresh = stat_folder(tree.root, folder, [names[i] for i in stale])
                for i, st in zip(stale, fresh, strict=True):
                    found[i] = known[names[i]] = st
            stats.extend(found)  # type: ignore[arg-type]
        return stats


def _below_any(folder: bytes, tops: Collection[bytes]) -> bool:
    """Whether ``folder`` is one of ``tops`` or inside one (``b""`` is the work tree's root)."""
    while folder not in tops:
        if not folder:
            return False
        folder = folder.rpartition(b"/")[0]
    return True


monitor = StatMonitor()
