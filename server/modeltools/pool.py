"""A small bounded pool of tool runs, with one worker process started ahead of the next run.

Every run still gets a process of its own that runs nothing else; the spare is only started
early, so that its interpreter start-up and common imports are paid while no one waits. It
blocks on its standard input until it is handed one job, then behaves exactly like a freshly
spawned worker (same session, limits, sandbox, folder and log). It says ``ready`` on its
standard output once its imports are done (``wait_ready``). With the sandbox on, the spare is
started inside a sandbox made for the project of the last run, so a run there no longer pays
bubblewrap's and Python's start and the imports either (``Standby``).
"""

import json
import os
import secrets
import select
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from server.core.fsutil import publish
from server.modeltools.runner import (
    Limits,
    LineHandler,
    Outcome,
    SpareRecipe,
    WorkerSpec,
    drain_to_log,
    kill_group,
    prepare_run_dir,
    run_worker,
    spawn,
)
from server.modeltools.worker import READY

UNSANDBOXED = SpareRecipe("", lambda _folder: None)


def recipe_of(spec: WorkerSpec) -> SpareRecipe | None:
    """The spare that may run ``spec``: its own, or any unsandboxed one for an unsandboxed run."""
    if spec.spare is not None:
        return spec.spare
    return UNSANDBOXED if spec.wrap is None else None


class Standby:
    """Holds at most one idle worker process started with ``limits``.

    A sandboxed spare is started for one project (its recipe's ``key``) in a sandbox that sees
    that project and an empty folder of its own (``.spare-…`` beside the runs' folders), as a
    fresh worker of a run there would. The run that takes it gets that folder: it is renamed to
    the run's (the sandbox's mount follows it), and the worker is told the path it sees.
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._key: str | None = None
        self._slot: Path | None = None  # a sandboxed spare's own folder
        self._ready = False
        self._seen = b""  # what the spare has written so far, until ``ready``
        self._closed = False

    def refill(self, recipe: SpareRecipe = UNSANDBOXED, runs: Path | None = None) -> None:
        """Start a spare for ``recipe`` unless one is idle for it (one for another project is
        stopped); a sandboxed one gets a folder in ``runs``."""
        with self._lock:
            if self._closed:
                return
            if self._proc is not None and self._proc.poll() is None and self._key == recipe.key:
                return
            old, self._proc, self._slot, self._ready = (self._proc, self._slot), None, None, False
        if old[0] is not None:
            _discard(old[0], old[1])
        slot, wrap = None, None
        if recipe is not UNSANDBOXED:
            if runs is None:
                return
            slot = runs / f".spare-{secrets.token_hex(8)}"
            slot.mkdir(parents=True)
            wrap = recipe.wrap(slot)
        proc = spawn(["--standby"], cwd=slot or Path("/"), limits=self.limits,
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, wrap=wrap)
        with self._lock:
            if self._closed or self._proc is not None:
                stale = (proc, slot)
            else:
                stale, self._ready, self._seen = None, False, b""
                self._proc, self._key, self._slot = proc, recipe.key, slot
        if stale is not None:
            _discard(*stale)

    def wait_ready(self, timeout: float) -> bool:
        """Whether there is a spare with its imports done, waiting up to ``timeout`` s for it."""
        with self._lock:
            return self._wait_ready(timeout)

    def _wait_ready(self, timeout: float) -> bool:
        proc = self._proc
        if self._ready or proc is None or proc.stdout is None:
            return self._ready
        deadline, fd = time.monotonic() + timeout, proc.stdout.fileno()
        # MNN may print a line of its own on import, before or after ``ready``
        while READY not in self._seen:
            left = deadline - time.monotonic()
            if left < 0 or not select.select([fd], [], [], max(0.0, left))[0]:
                return False
            chunk = os.read(fd, 4096)
            if not chunk:
                return False
            self._seen += chunk
        self._ready = True
        return True

    def take(self, spec: WorkerSpec) -> subprocess.Popen | None:
        """The idle process, now given ``spec``'s job; None if there is none that fits."""
        recipe = recipe_of(spec)
        if spec.limits != self.limits or spec.extra_env or recipe is None:
            return None
        with self._lock:
            if self._key != recipe.key:
                return None
            # A sandboxed spare may not have set its sandbox up yet (bubblewrap binds the spare's
            # folder by its path): moving the folder then would leave it nothing to bind, so
            # only a spare that said ``ready`` is taken; the run starts its own worker meanwhile.
            if self._slot is not None and not self._wait_ready(0):
                return None
            proc, slot, self._proc, self._slot, self._ready = self._proc, self._slot, None, None, False
        if proc is None or proc.stdin is None:
            return None
        if proc.poll() is not None or not _move(slot, spec.run_dir):
            _discard(proc, slot)
            return None
        prepare_run_dir(spec)
        job = json.dumps({"tool": spec.tool, "cwd": str(slot or spec.run_dir)})
        try:
            proc.stdin.write(job.encode() + b"\n")
            proc.stdin.close()
        except OSError:
            _discard(proc, None)
            return None
        drain_to_log(proc, spec.log_path, skip=READY)  # until the worker has moved its output to the log
        return proc

    def close(self) -> None:
        with self._lock:
            self._closed = True
            proc, slot, self._proc, self._slot = self._proc, self._slot, None, None
        if proc is not None:
            _discard(proc, slot)


def _move(slot: Path | None, run_dir: Path) -> bool:
    """A sandboxed spare's folder becomes the run's (which must still be empty)."""
    if slot is None:
        return True
    try:
        publish(slot, run_dir)
    except OSError:
        return False
    return True


def _close_stdout(proc: subprocess.Popen) -> None:
    if proc.stdout is not None:
        proc.stdout.close()


def _discard(proc: subprocess.Popen, slot: Path | None) -> None:
    """Stop an idle worker, release its pipes and remove its own folder."""
    if proc.stdin is not None:
        try:
            proc.stdin.close()
        except OSError:
            pass
    _close_stdout(proc)
    kill_group(proc)
    if slot is not None:
        shutil.rmtree(slot, ignore_errors=True)


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
        # Started after the first run, so a server that never runs a tool never starts one; a
        # sandboxed spare is for the project of the last run (``Standby``).
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
                recipe = recipe_of(spec)
                if self._spare and recipe is not None:
                    self._standby.refill(recipe, spec.run_dir.parent)

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
