"""The live watchers of a runner's jobs, by job id; a watcher removes itself when its job ends."""

import threading
from typing import Generic, Protocol, TypeVar


class Watcher(Protocol):
    def start(self) -> None: ...

    def close(self) -> None: ...


W = TypeVar("W", bound=Watcher)


class Watchers(Generic[W]):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_job: dict[str, W] = {}

    def start(self, job_id: str, watcher: W) -> None:
        with self._lock:
            self._by_job[job_id] = watcher
        watcher.start()

    def forget(self, job_id: str) -> None:
        with self._lock:
            self._by_job.pop(job_id, None)

    def active(self, job_id: str) -> W | None:
        with self._lock:
            return self._by_job.get(job_id)

    def close_all(self) -> None:
        """Stop following every job; the jobs themselves keep running."""
        with self._lock:
            watchers = list(self._by_job.values())
            self._by_job.clear()
        for watcher in watchers:
            watcher.close()
