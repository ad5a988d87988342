"""A small bounded pool of tool runs, with one worker process started ahead of the next run.

Every run still gets a process of its own that runs nothing else; the spare is only started
early, so that its interpreter start-up and common imports are paid while no one waits. It
blocks on its standard input until it is handed one job, then behaves exactly like a freshly
spawned worker (same session, limits, folder and log). It says ``ready`` on its standard output
once its imports are done (``wait_ready``).
"""

import json
import os
import select
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from server.modeltools.runner import (
    Limits,
    LineHandler,
    Outcome,
    WorkerSpec,
    kill_group,
    run_worker,
    spawn,
)
from server.modeltools.worker import READY


class Standby:
    """Holds at most one idle worker process started with ``limits``."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._ready = False
        self._closed = False

    def refill(self) -> None:
        with self._lock:
            if self._closed or (self._proc is not None and self._proc.poll() is None):
                return
            self._ready = False
            self._proc = spawn(
                ["--standby"],
                cwd=Path("/"),
                limits=self.limits,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )

    def wait_ready(self, timeout: float) -> bool:
        """Whether there is a spare with its imports done, waiting up to ``timeout`` s for it."""
        with self._lock:
            proc = self._proc
            if self._ready or proc is None or proc.stdout is None:
                return self._ready
            deadline, seen, fd = time.monotonic() + timeout, b"", proc.stdout.fileno()
            # MNN may print a line of its own on import, before or after ``ready``
            while READY not in seen:
                left = deadline - time.monotonic()
                if left < 0 or not select.select([fd], [], [], left)[0]:
                    return False
                chunk = os.read(fd, 4096)
                if not chunk:
                    return False
                seen += chunk
            self._ready = True
            return True

    def take(self, spec: WorkerSpec) -> subprocess.Popen | None:
        """The idle process, now given ``spec``'s job; None if there is none that fits."""
        if spec.limits != self.limits or spec.extra_env or spec.wrap is not None:
            return None
        with self._lock:
            proc, self._proc = self._proc, None
        if proc is None or proc.stdin is None:
            return None
        if proc.poll() is not None:
            _discard(proc)
            return None
        job = json.dumps({"tool": spec.tool, "cwd": str(spec.run_dir)})
        try:
            proc.stdin.write(job.encode() + b"\n")
            proc.stdin.close()
        except OSError:
            _discard(proc)
            return None
        _close_stdout(proc)  # from here on the worker writes to its log
        return proc

    def close(self) -> None:
        with self._lock:
            self._closed = True
            proc, self._proc = self._proc, None
        if proc is not None:
            _discard(proc)


def _close_stdout(proc: subprocess.Popen) -> None:
    if proc.stdout is not None:
        proc.stdout.close()


def _discard(proc: subprocess.Popen) -> None:
    """Stop an idle worker and release its pipes."""
    if proc.stdin is not None:
        try:
            proc.stdin.close()
        except OSError:
            pass
    _close_stdout(proc)
    kill_group(proc)


# a run done elsewhere: (cancel, on_line) -> its outcome, called from a pool thread
RemoteRun = Callable[[threading.Event, LineHandler | None], Outcome]


@dataclass(eq=False)
class RunHandle:
    future: Future[Outcome]
    cancel: threading.Event


class WorkerPool:
    """At most ``size`` workers at once; the rest wait in order."""

    def __init__(self, size: int = 2, limits: Limits | None = None, *, spare: bool = True) -> None:
        self._executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="modeltool")
        self._handles: set[RunHandle] = set()
        self._lock = threading.Lock()
        # Started after the first run, so a server that never runs a tool never starts one.
        # Sandboxed runs never use it: a sandbox is made for one run's folders.
        self._spare = spare
        self._standby = Standby(limits or Limits())

    def submit(
        self,
        spec: WorkerSpec,
        *,
        on_start: Callable[[], None] | None = None,
        on_line: LineHandler | None = None,
        remote: RemoteRun | None = None,
    ) -> RunHandle:
        """``remote``, when given, runs the job somewhere else (a device) instead of a worker."""
        cancel = threading.Event()

        def job() -> Outcome:
            if cancel.is_set():
                return Outcome("cancelled", error="cancelled before it started")
            if on_start is not None:
                on_start()
            if remote is not None:
                return remote(cancel, on_line)
            try:
                return run_worker(spec, cancel=cancel, on_line=on_line, launcher=self._standby)
            finally:
                if self._spare:
                    self._standby.refill()

        handle = RunHandle(self._executor.submit(job), cancel)
        with self._lock:
            self._handles.add(handle)
        handle.future.add_done_callback(lambda _f: self._forget(handle))
        return handle

    def spare_ready(self, timeout: float) -> bool:
        """Whether the spare worker has its imports done (a server idle between runs)."""
        return self._standby.wait_ready(timeout)

    def _forget(self, handle: RunHandle) -> None:
        with self._lock:
            self._handles.discard(handle)

    def shutdown(self) -> None:
        """Cancel everything queued or running, wait for the workers, stop the spare."""
        with self._lock:
            handles = list(self._handles)
        for handle in handles:
            handle.cancel.set()
        self._executor.shutdown(wait=True, cancel_futures=False)
        self._standby.close()
