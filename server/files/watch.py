"""Watch project folders while a tab has them open, and publish ``files/changed`` events.

Changes made through the API are published by the route at once (with the saving tab's id);
the watcher then skips the echo of that same write, recognised by its size and mtime.
"""

import asyncio
import contextlib
import os
from pathlib import Path

from watchfiles import Change, DefaultFilter, awatch

from server.core.events import EventHub
from server.files.paths import relative

KINDS = {Change.added: "added", Change.modified: "modified", Change.deleted: "deleted"}


class ProjectFilter(DefaultFilter):
    ignore_dirs = (*DefaultFilter.ignore_dirs, ".venv")
    # The temp files of atomic saves are an implementation detail, never an event.
    ignore_entity_patterns = (*DefaultFilter.ignore_entity_patterns, r"^\..*\.tmp$")


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

    def note_write(self, path: Path) -> None:
        """Remember a write made through the API so its echo is not published twice."""
        with contextlib.suppress(OSError):
            info = path.stat()
            self._own_writes[str(path)] = (info.st_mtime_ns, info.st_size)

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
        with contextlib.suppress(FileNotFoundError, RuntimeError):
            async for batch in awatch(
                real_root, watch_filter=ProjectFilter(), stop_event=stop, debounce=150, step=40,
                rust_timeout=500, yield_on_timeout=False,
            ):
                changes = [c for c in (self._describe(real_root, ch, p) for ch, p in batch) if c]
                if changes:
                    self.hub.publish(project_id, "files", "changed", {"changes": changes})

    def _describe(self, root: str, change: Change, path: str) -> dict[str, str] | None:
        if change != Change.deleted and self._is_own_write(path):
            return None
        rel = relative(root, Path(path))
        if rel.split("/", 1)[0] == ".git":
            return None
        return {"kind": KINDS[change], "path": rel}

    def _is_own_write(self, path: str) -> bool:
        seen = self._own_writes.pop(path, None)
        if seen is None:
            return False
        try:
            info = os.stat(path)
        except OSError:
            return False
        return (info.st_mtime_ns, info.st_size) == seen
