"""Run the model-tool worker as a fresh, contained subprocess.

Each run gets its own folder (arguments, result, log, scratch files), its own process group
(killed whole on timeout or cancel), an address-space limit, and a timeout. Its stdout and stderr
go straight to the log file, so the log is complete even when the worker dies; the runner tails
that file for progress lines while it waits.
"""

import json
import os
import re
import resource
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from server.modeltools import native
from server.sandbox.policy import exit_status

REPO_ROOT = Path(__file__).resolve().parents[2]
POLL_SECONDS = 0.05
LOG_TAIL_CHARS = 4000
TERM_GRACE_SECONDS = 1.0

_OUT_OF_MEMORY = re.compile(r"bad_alloc|MemoryError|Memory allocation|Cannot allocate memory")

Status = Literal["succeeded", "failed", "crashed", "cancelled"]
LineHandler = Callable[[str], None]


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 600.0
    memory_mb: int | None = 8192


Wrap = Callable[[list[str]], list[str]]


@dataclass(frozen=True)
class SpareRecipe:
    """How to start, ahead of need, a worker that may take a run's place: ``key`` names what it
    may see (its project's folder), ``wrap`` sandboxes it for a run folder of its own."""

    key: str
    wrap: Callable[[Path], Wrap | None]


@dataclass
class WorkerSpec:
    """What to run: the tool, its (absolute-path) arguments and the run's own folder."""

    tool: str
    args: dict[str, Any]
    run_dir: Path
    limits: Limits = field(default_factory=Limits)
    extra_env: dict[str, str] = field(default_factory=dict)
    # The sandbox's wrapping of the worker's command (``server/sandbox/``); None runs it bare,
    # as ``mnnwb check`` does on the developer's own machine.
    wrap: Wrap | None = None
    # A sandboxed run may be handed to a spare started for the same project (``pool``); without
    # one, only an unsandboxed run is.
    spare: SpareRecipe | None = None

    @property
    def log_path(self) -> Path:
        return self.run_dir / "worker.log"


@dataclass
class Outcome:
    status: Status
    result: dict[str, Any] | None = None
    error: str | None = None
    returncode: int | None = None
    # what kind of failure, where the tool names one (``input_shape_required``)
    code: str | None = None
    seconds: float = 0.0


def limit_address_space(memory_mb: int | None) -> Callable[[], None] | None:
    if memory_mb is None:
        return None
    limit = memory_mb * 1024 * 1024

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


def environment(extra_env: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNNWB_WORKER_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"
    # MNN and ORT pick thread pools by core count; a tool run uses what it asks for.
    env.setdefault("OMP_NUM_THREADS", "1")
    return {**env, **extra_env}


def spawn(
    worker_argv: list[str],
    *,
    cwd: Path,
    limits: Limits,
    stdin: Any,
    stdout: Any,
    extra_env: dict[str, str] | None = None,
    wrap: Callable[[list[str]], list[str]] | None = None,
) -> subprocess.Popen:
    """Start ``python -m server.modeltools.worker …`` in a new session, under the memory limit
    (and in the sandbox, through ``wrap``)."""
    argv = [sys.executable, "-P", "-m", "server.modeltools.worker", *worker_argv]
    return subprocess.Popen(
        wrap(argv) if wrap is not None else argv,
        cwd=cwd,
        stdin=stdin,
        stdout=stdout,
        stderr=subprocess.STDOUT,
        env=environment(extra_env or {}),
        start_new_session=True,
        preexec_fn=limit_address_space(limits.memory_mb),
    )


def prepare_run_dir(spec: WorkerSpec) -> None:
    """The run's arguments and an empty log, in its folder, before its worker reads them."""
    (spec.run_dir / "args.json").write_text(json.dumps(spec.args))
    spec.log_path.touch()


def _start(spec: WorkerSpec) -> subprocess.Popen:
    prepare_run_dir(spec)
    with spec.log_path.open("ab") as log:
        return spawn(
            [spec.tool, "args.json", "result.json"],
            cwd=spec.run_dir,
            limits=spec.limits,
            stdin=subprocess.DEVNULL,
            stdout=log,
            extra_env=spec.extra_env,
            wrap=spec.wrap,
        )


def kill_group(proc: subprocess.Popen) -> None:
    """SIGTERM the worker's process group, then SIGKILL whatever is left of it after a grace."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=TERM_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            continue
    proc.wait()


class _LogTail:
    """Reads lines appended to the log since the last call."""

    def __init__(self, path: Path, on_line: LineHandler | None) -> None:
        self._path, self._on_line, self._offset, self._partial = path, on_line, 0, b""

    def poll(self) -> None:
        if self._on_line is None:
            return
        with self._path.open("rb") as handle:
            handle.seek(self._offset)
            chunk = handle.read()
        self._offset += len(chunk)
        *lines, self._partial = (self._partial + chunk).split(b"\n")
        for line in lines:
            self._on_line(line.decode("utf-8", "replace").rstrip("\r"))


def log_tail(run_dir: Path, chars: int = LOG_TAIL_CHARS) -> str:
    """The end of the run's log, plus what native code printed if it died mid-call."""
    parts = []
    for name in ("worker.log", "native.log"):
        path = run_dir / name
        if path.is_file():
            parts.append(path.read_bytes()[-chars:].decode("utf-8", "replace"))
    return "\n".join(parts)[-chars:]


def _finish(spec: WorkerSpec, code: int) -> Outcome:
    if code < 0:
        name = signal.Signals(-code).name if -code in signal.valid_signals() else "?"
        error = f"crashed (signal {-code}, {name})"
        return Outcome("crashed", error=_explain(spec, error), returncode=code)
    result_file = spec.run_dir / "result.json"
    if code != 0 or not result_file.is_file():
        error = f"worker exited with code {code}"
        return Outcome("failed", error=_explain(spec, error), returncode=code)
    data = json.loads(result_file.read_text())
    if data.get("ok"):
        return Outcome("succeeded", result=data["result"], returncode=code)
    return Outcome("failed", error=data.get("error") or "the tool failed", returncode=code,
                   code=data.get("code"))


def _explain(spec: WorkerSpec, error: str) -> str:
    """The error, a hint when the memory limit was hit or the tool left one for a crash of the
    native call it made, and the end of the log."""
    tail = log_tail(spec.run_dir)
    if spec.limits.memory_mb and _OUT_OF_MEMORY.search(tail):
        error += f": out of memory (limit {spec.limits.memory_mb} MB)"
    elif (hint := spec.run_dir / native.CRASH_HINT).is_file():
        error += ": " + hint.read_text(errors="replace").strip()
    return f"{error}\n{tail}"


def _wait(
    proc: subprocess.Popen, spec: WorkerSpec, cancel: threading.Event, tail: _LogTail
) -> Outcome | None:
    """Wait for the worker; kill its group and say why on a cancel or a timeout."""
    deadline = time.monotonic() + spec.limits.timeout_s
    while True:
        try:
            proc.wait(timeout=POLL_SECONDS)
            return None
        except subprocess.TimeoutExpired:
            pass
        tail.poll()
        if cancel.is_set():
            stop = Outcome("cancelled", error="cancelled")
        elif time.monotonic() > deadline:
            stop = Outcome("failed", error=f"timed out after {spec.limits.timeout_s:g} s")
        else:
            continue
        kill_group(proc)
        return stop


class Launcher(Protocol):
    def take(self, spec: WorkerSpec) -> subprocess.Popen | None:
        """An already started worker given ``spec``'s job (its folder prepared), or None."""


_drains: "weakref.WeakKeyDictionary[subprocess.Popen, threading.Thread]" = weakref.WeakKeyDictionary()


def drain_to_log(proc: subprocess.Popen, log_path: Path, skip: bytes = b"") -> None:
    """Copy what a handed-over worker still writes to its pipe (before it points its output at
    the log: MNN's own line, a traceback of a job it could not start) into the run's log, in a
    thread that ends when the worker lets go of the pipe; a line equal to ``skip`` is left out."""
    stdout = proc.stdout
    if stdout is None:
        return

    def copy() -> None:
        with stdout, log_path.open("ab") as log:
            for line in iter(stdout.readline, b""):
                if line != skip:
                    log.write(line)
                    log.flush()

    thread = threading.Thread(target=copy, name="worker-drain", daemon=True)
    _drains[proc] = thread
    thread.start()


def run_worker(
    spec: WorkerSpec,
    *,
    cancel: threading.Event | None = None,
    on_line: LineHandler | None = None,
    launcher: Launcher | None = None,
) -> Outcome:
    """Run one worker to the end, a timeout, or a cancel; never raises for a worker's fault.

    A ``launcher`` may hand over an already started, never used worker process; without one (or
    when it has none fitting) a new process is spawned.
    """
    started = time.monotonic()
    spec.run_dir.mkdir(parents=True, exist_ok=True)
    proc = (launcher.take(spec) if launcher is not None else None) or _start(spec)
    tail = _LogTail(spec.log_path, on_line)
    stop = _wait(proc, spec, cancel or threading.Event(), tail)
    tail.poll()
    code = proc.wait()
    drained = _drains.get(proc)
    if drained is not None:  # what the worker wrote to its pipe is in the log before it is read
        drained.join(timeout=TERM_GRACE_SECONDS)
    outcome = stop or _finish(spec, exit_status(code) if spec.wrap is not None else code)
    outcome.seconds = time.monotonic() - started
    return outcome
