"""Watch project folders while a tab has them open, and publish ``files/changed`` events.

Changes made through the API are published by the route at once (with the saving tab's id);
the watcher then skips the echo of that same write, recognised by its size and mtime.
Inside ``.git/`` only the files that say where HEAD, the branches and the index are count: a
change there (a ``git commit`` in a terminal) is one ``git/changed`` event per batch, unless the
repository is exactly as the API's last Git write left it (that write announced itself).
"""

import asyncio
import contextlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from watchfiles import Change, DefaultFilter, awatch

from server.core.events import EventHub
from server.files.events import ChangedPath, FilesChanged, GitChanged
from server.files.paths import relative

KINDS: dict[Change, Literal["added", "modified", "deleted"]] = {
    Change.added: "added", Change.modified: "modified", Change.deleted: "deleted"}
# Lock files are git's own temp files; their rename onto the real name is the change.
MAX_GIT_PATHS = 50
GIT_STATE = re.compile(r"(HEAD|index|packed-refs|refs/.+)(?<!\.lock)")


class ProjectFilter(DefaultFilter):
    ignore_dirs = (*DefaultFilter.ignore_dirs, ".venv")
    # The temp files of atomic saves are an implementation detail, never an event.
    ignore_entity_patterns = (*DefaultFilter.ignore_entity_patterns, r"^\..*\.tmp$")

    def __init__(self, root: str) -> None:
        super().__init__()
        self.git_dir = os.path.join(root, ".git") + os.sep

    def __call__(self, change: Change, path: str) -> bool:
        if path.startswith(self.git_dir):
            return GIT_STATE.fullmatch(path[len(self.git_dir) :].replace(os.sep, "/")) is not None
        return super().__call__(change, path)


GitState = dict[str, tuple[int, int]]


def git_state(root: str) -> GitState:
    """(mtime, size) of every file that says where HEAD, the branches and the index are."""
    git_dir = os.path.join(root, ".git")
    state: GitState = {}
    for name in ("HEAD", "index", "packed-refs"):
        with contextlib.suppress(OSError):
            info = os.stat(os.path.join(git_dir, name))
            state[name] = (info.st_mtime_ns, info.st_size)
    for folder, _dirs, files in os.walk(os.path.join(git_dir, "refs")):
        for name in files:
            with contextlib.suppress(OSError):
                info = os.stat(os.path.join(folder, name))
                state[os.path.relpath(os.path.join(folder, name), git_dir)] = (info.st_mtime_ns, info.st_size)
    return state


class _Watch:
    def __init__(self) -> None:
        self.users = 0
        self.stop = asyncio.Event()
        self.task: asyncio.Task[None] | None = None


class FileWatchers:
    """Reference-counted watchers, one per open project."""

    def __init__(self, hub: EventHub, enabled: bool = True) -> None:
        self.hub = hub
        self.enabled = enabled
        self._watches: dict[str, _Watch] = {}
        self._own_writes: dict[str, tuple[int, int]] = {}
        self._git_after_own_write: dict[str, GitState] = {}
        self._git_writing: dict[str, int] = {}

    def note_write(self, path: Path) -> None:
        """Remember a write made through the API so its echo is not published twice."""
        with contextlib.suppress(OSError):
            info = path.stat()
            self._own_writes[str(path)] = (info.st_mtime_ns, info.st_size)

    @contextlib.contextmanager
    def git_write(self, project_id: str, root: str) -> Iterator[None]:
        """Around a Git write through the API, which runs off the event loop: what the watcher
        sees of ``.git`` meanwhile is that write half-done, not an outside change (a commit
        writes the index before its ref), and the write announces itself when it ends. After
        it succeeds, the repository's state is remembered as it left it."""
        self._git_writing[project_id] = self._git_writing.get(project_id, 0) + 1
        try:
            yield
            if project_id in self._watches:
                self._git_after_own_write[project_id] = git_state(os.path.realpath(root))
        finally:
            self._git_writing[project_id] -= 1
            if not self._git_writing[project_id]:
                del self._git_writing[project_id]

    def acquire(self, project_id: str, root: str) -> None:
        if not self.enabled:
            return
        watch = self._watches.setdefault(project_id, _Watch())
        watch.users += 1
        if watch.task is None:
            watch.task = asyncio.create_task(self._run(project_id, root, watch.stop))

    def release(self, project_id: str) -> None:
        watch = self._watches.get(project_id)
        if watch is None:
            return
        watch.users -= 1
        if watch.users <= 0:
            watch.stop.set()
            del self._watches[project_id]
            self._git_after_own_write.pop(project_id, None)

    async def close(self) -> None:
        tasks = [w.task for w in self._watches.values() if w.task]
        for watch in self._watches.values():
            watch.stop.set()
        self._watches.clear()
        for task in tasks:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(task, 2)

    async def _run(self, project_id: str, root: str, stop: asyncio.Event) -> None:
        real_root = os.path.realpath(root)
        watch_filter = ProjectFilter(real_root)
        with contextlib.suppress(FileNotFoundError, RuntimeError):
            async for batch in awatch(
                real_root, watch_filter=watch_filter, stop_event=stop, debounce=150, step=40,
                rust_timeout=500, yield_on_timeout=False,
            ):
                in_git = {(ch, p) for ch, p in batch if p.startswith(watch_filter.git_dir)}
                changes = [c for c in (self._describe(real_root, ch, p) for ch, p in batch - in_git) if c]
                if changes:
                    self.hub.emit(project_id, FilesChanged(changes=changes))
                if in_git:
                    self._publish_git(project_id, real_root, {p for _, p in in_git})

    def _publish_git(self, project_id: str, root: str, paths: set[str]) -> None:
        if project_id in self._git_writing:
            return  # an API write is under way: it announces itself when it ends
        if self._git_after_own_write.get(project_id) == git_state(root):
            return  # exactly as the API's last Git write left it: that write announced itself
        names = sorted(relative(os.path.join(root, ".git"), Path(p)) for p in paths)
        self.hub.emit(project_id, GitChanged(op="outside", paths=names[:MAX_GIT_PATHS]))

    def _describe(self, root: str, change: Change, path: str) -> ChangedPath | None:
        if change != Change.deleted and self._is_own_write(path):
            return None
        return {"kind": KINDS[change], "path": relative(root, Path(path))}

    def _is_own_write(self, path: str) -> bool:
        seen = self._own_writes.pop(path, None)
        if seen is None:
            return False
        try:
            info = os.stat(path)
        except OSError:
            return False
        return (info.st_mtime_ns, info.st_size) == seen
