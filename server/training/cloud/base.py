"""What the cloud runners (``pai-dlc`` in ``server/training/paidlc/``, ``ray`` in
``server/training/ray/``) share: the shape of a runner and of the watcher that follows one job.

A cloud job's folder holds ``output.log`` and ``metrics.jsonl`` as for local jobs, plus a state
file (``RemoteState``) saved as the job is followed: how the job ended, whether a stop was asked
for, and how many log bytes the remote positions account for. ``CloudRunner`` writes submit's
tail, resume (cut the log back to that size and follow again), poll, logs, stop and close once;
a backend gives the submit itself, its watcher, the remote cancel and the artifact listing.
``CloudWatcher`` writes the log appends (offsets, log events, metrics) and the end once.
"""

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO, Generic, TypeVar

from pydantic import BaseModel

from server.core.db import utcnow
from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, NotFound
from server.core.fsutil import write_text_atomic
from server.training.logfile import LOG_FILE, append_metrics, parse_metrics, rebuild_metrics
from server.training.runner import (
    Artifact,
    JobSink,
    JobSpec,
    JobStatus,
    LogChunk,
    ProcessRecord,
    Transition,
    log_chunk,
)
from server.training.watchers import Watchers

MAX_BATCH = 64 * 1024  # bytes per log event, as for local jobs


class RemoteState(BaseModel):
    """What every cloud job's state file holds; a backend adds where its job is."""

    status: JobStatus = "queued"
    log_size: int = 0
    stop_requested: bool = False


S = TypeVar("S", bound=RemoteState)


def load_json(path: Path, model: type[S]) -> S | None:
    """The state saved at ``path``, or None when the job never got one."""
    try:
        return model.model_validate_json(path.read_text())
    except FileNotFoundError:
        return None


def save_json(path: Path, state: RemoteState) -> None:
    write_text_atomic(path, state.model_dump_json())


def byte_batches(data: bytes, limit: int = MAX_BATCH) -> list[bytes]:
    """Whole lines of ``data`` grouped into pieces of at most ``limit`` bytes."""
    out, current = [], b""
    for line in data.splitlines(keepends=True):
        if current and len(current) + len(line) > limit:
            out.append(current)
            current = b""
        current += line
    return [*out, current] if current else out


class CloudWatcher(ABC, Generic[S]):
    """Follows one job on a thread: the backend's loop calls ``_append`` and ``_end``."""

    def __init__(self, job_id: str, job_dir: Path, state: S, sink: JobSink,
                 on_end: Callable[[str], None], thread_name: str) -> None:
        self.job_id = job_id
        self.job_dir = job_dir
        self.state = state
        self._sink = sink
        self._on_end = on_end
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._run, name=thread_name, daemon=True)

    @abstractmethod
    def _run(self) -> None: ...

    @abstractmethod
    def save(self) -> None:
        """Write ``self.state`` to the job's state file."""

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        """Stop following the job; it keeps running remotely."""
        self._closing.set()
        if self._thread is not threading.current_thread():
            self._thread.join()

    def _seen(self, piece: bytes) -> None:
        """A backend's look at a piece of log just written, before the tab hears of it."""

    def _append(self, out: BinaryIO, data: bytes) -> None:
        """Append whole lines to the log in event-sized pieces: offsets, log events, metrics."""
        for piece in byte_batches(data):
            out.write(piece)
            out.flush()
            start = self.state.log_size
            self.state.log_size += len(piece)
            self._seen(piece)
            text = piece.decode("utf-8", "replace")
            self._sink.log(self.job_id, start, text, self.state.log_size)
            points = parse_metrics(text)
            if points:
                append_metrics(self.job_dir, points)
                self._sink.metrics(self.job_id, points)

    def _end(self, final: Transition) -> None:
        self.state.status = final.status
        self.save()
        self._on_end(self.job_id)
        self._sink.transition(self.job_id, final)


W = TypeVar("W", bound=CloudWatcher[Any])


class CloudRunner(ABC, Generic[S, W]):
    """A job backend whose jobs run elsewhere and are followed by one watcher each."""

    never_submitted: str  # why a job found without state failed
    never_reached: str  # what asking for a job without state answers

    def __init__(self, sink: JobSink, jobs_dir: Path) -> None:
        self._sink = sink
        self._jobs_dir = jobs_dir
        self._watchers: Watchers[W] = Watchers()

    @abstractmethod
    def submit(self, spec: JobSpec) -> None: ...

    @abstractmethod
    def load_state(self, job_dir: Path) -> S | None: ...

    @abstractmethod
    def _watcher(self, spec: JobSpec, state: S) -> W: ...

    @abstractmethod
    def _cancel(self, watcher: W) -> None:
        """Ask the remote side to stop the job (``stop_requested`` is already set)."""

    @abstractmethod
    def artifacts(self, job_id: str) -> list[Artifact]: ...

    def _submitted(self, spec: JobSpec, state: S, extra: dict[str, str]) -> None:
        """The job is in the remote queue: say so and follow it."""
        self._sink.transition(spec.id, Transition("queued", extra=extra))
        self._watch(spec, state)

    def resume(self, spec: JobSpec, record: ProcessRecord) -> None:
        """Follow a job an earlier server submitted, from the log bytes its state accounts for."""
        state = self.load_state(spec.job_dir)
        if state is None:
            self._sink.transition(spec.id, Transition("failed", reason=self.never_submitted,
                                                      finished_at=utcnow()))
            return
        log = spec.job_dir / LOG_FILE
        with log.open("ab") as handle:  # drop bytes appended after the state was saved
            handle.truncate(min(state.log_size, handle.tell()))
        state.log_size = log.stat().st_size
        rebuild_metrics(spec.job_dir)
        self._watch(spec, state)

    def _watch(self, spec: JobSpec, state: S) -> None:
        self._watchers.start(spec.id, self._watcher(spec, state))

    def _state(self, job_id: str) -> S:
        state = self.load_state(self._jobs_dir / job_id)
        if state is None:
            raise NotFound(self.never_reached, code=ErrorCode.JOB_FILES_MISSING)
        return state

    def _current(self, job_id: str) -> S | None:
        """The live state while the job is watched, else the saved one."""
        watcher = self._watchers.active(job_id)
        return watcher.state if watcher else self.load_state(self._jobs_dir / job_id)

    def poll(self, job_id: str) -> JobStatus | None:
        state = self._current(job_id)
        return state.status if state else None

    def logs(self, job_id: str, since: int) -> LogChunk:
        return log_chunk(self._jobs_dir / job_id, since, self._watchers.active(job_id) is not None)

    def stop(self, job_id: str) -> None:
        watcher = self._watchers.active(job_id)
        if watcher is None:
            raise Conflict("the job is not running", code=ErrorCode.JOB_NOT_RUNNING)
        watcher.state.stop_requested = True
        self._cancel(watcher)

    def close(self) -> None:
        """Stop watching; the jobs keep running remotely and the next server resumes them."""
        self._watchers.close_all()
