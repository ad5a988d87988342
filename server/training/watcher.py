"""Follows one local job: streams its log to the sink in batches, parses metrics, notices the
end, enforces the stop grace period, and reports the outcome."""

import json
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO

from server.core.db import utcnow
from server.sandbox import Limits
from server.sandbox.limits import from_record, limit_reason
from server.training.logfile import LOG_FILE, append_metrics, parse_metrics, utf8_cut
from server.training.process import JobProcess
from server.training.runner import JobSink, Transition
from server.training.wakeups import POLL_INTERVAL, Followed, wakeups
from server.training.wrapper import EXIT_FILE

STOP_FILE = "stop-requested"
SPEC_FILE = "spec.json"  # written by the local runner when it starts the job
MAX_BATCH = 64 * 1024  # bounds one event; the hub keeps a replay buffer of events per project
LOST_REASON = "the process ended without recording an exit status (killed from outside?)"
LIMIT_TAIL_BYTES = 4096  # of the log, read for the sign of a memory limit

def read_exit(job_dir: Path) -> tuple[int | None, int]:
    """The command's exit code (None if it was not recorded) and the bytes of its output a full
    disk kept out of the log."""
    try:
        record = json.loads((job_dir / EXIT_FILE).read_text())
        return int(record["exit_code"]), int(record.get("lost_bytes", 0))
    except (FileNotFoundError, ValueError, KeyError, TypeError):
        return None, 0


def outcome(job_dir: Path, lost_reason: str = LOST_REASON) -> Transition:
    """How a finished job ended, from the files its wrapper and a stop request left."""
    code, lost_bytes = read_exit(job_dir)
    ended = _ending(job_dir, code, lost_reason)
    if not lost_bytes:
        return ended
    full = f"the disk was full: {lost_bytes} bytes of output are missing from the log"
    return replace(ended, reason=f"{ended.reason}; {full}" if ended.reason else full)


def _limits(job_dir: Path) -> Limits:
    """The limits the job ran under, as its runner recorded them (``local.py``, SPEC_FILE)."""
    try:
        return from_record(json.loads((job_dir / SPEC_FILE).read_text()).get("limits"))
    except (OSError, ValueError, TypeError):
        return Limits()


def _log_tail(job_dir: Path) -> str:
    try:
        with (job_dir / LOG_FILE).open("rb") as log:
            log.seek(max(0, log.seek(0, 2) - LIMIT_TAIL_BYTES))
            return log.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _ending(job_dir: Path, code: int | None, lost_reason: str) -> Transition:
    done = utcnow()
    if (job_dir / STOP_FILE).exists():
        return Transition("stopped", reason="stopped on request", exit_code=code, finished_at=done)
    if code == 0:
        return Transition("succeeded", exit_code=0, finished_at=done)
    if code is None:
        return Transition("failed", reason=lost_reason, finished_at=done)
    if reason := limit_reason(code, _log_tail(job_dir), _limits(job_dir)):
        return Transition("failed", reason=reason, exit_code=code, finished_at=done)
    if code < 0:
        name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
        return Transition("failed", reason=f"killed by signal {name}", exit_code=code,
                          finished_at=done)
    return Transition("failed", reason=f"exited with code {code}", exit_code=code, finished_at=done)


class JobWatcher:
    def __init__(self, job_id: str, job_dir: Path, process: JobProcess, sink: JobSink, *,
                 offset: int, on_end: Callable[[str], None], lost_reason: str = LOST_REASON,
                 ) -> None:
        self.job_id = job_id
        self.job_dir = job_dir
        self.process = process
        self._sink = sink
        self._offset = offset
        self._on_end = on_end
        self._lost_reason = lost_reason
        self._closing = threading.Event()
        self._wake = threading.Event()  # set by ``wakeups`` on a write to the log or the end
        self._kill_at: float | None = None
        self._thread = threading.Thread(target=self._run, name=f"job-{job_id}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop_job(self, grace: float) -> None:
        """TERM the job's process group now, KILL it if it is still there after ``grace``."""
        (self.job_dir / STOP_FILE).touch()
        self._kill_at = time.monotonic() + grace
        self.process.signal_group(signal.SIGTERM)

    def close(self) -> None:
        """Stop following the job; the process itself keeps running."""
        self._closing.set()
        self._wake.set()
        if self._thread is not threading.current_thread():
            self._thread.join()

    def _run(self) -> None:
        (self.job_dir / LOG_FILE).touch()
        followed = wakeups.follow(self.job_dir / LOG_FILE, self.process.pid, self._wake)
        try:
            with (self.job_dir / LOG_FILE).open("rb") as log:
                self._follow(log, followed)
        finally:
            followed.close()

    def _follow(self, log: BinaryIO, followed: Followed) -> None:
        while not self._closing.is_set():
            self._wake.clear()  # before the read: a write after it wakes the wait below
            self._enforce_grace()
            read, sent = self._pump(log, final=False)
            if read == MAX_BATCH:  # a fast writer: keep up without waiting
                continue
            if not sent and not self.process.alive():
                while self._pump(log, final=True)[1]:
                    pass
                self._on_end(self.job_id)
                self._sink.transition(self.job_id, outcome(self.job_dir, self._lost_reason))
                return
            # Waiting between reads gathers lines into fewer, larger events; then sleep until
            # the log is written or the process ends (or a stop's grace runs out).
            self._closing.wait(POLL_INTERVAL)
            pending = self._kill_at is not None
            self._wake.wait(POLL_INTERVAL if pending else followed.timeout())

    def _enforce_grace(self) -> None:
        if self._kill_at is not None and time.monotonic() >= self._kill_at:
            self._kill_at = None
            self.process.signal_group(signal.SIGKILL)

    def _pump(self, log: BinaryIO, *, final: bool) -> tuple[int, int]:
        """Send the next batch of complete lines (every byte when ``final``).

        Returns how many bytes were read and how many were sent.
        """
        log.seek(self._offset)
        data = log.read(MAX_BATCH)
        read = len(data)
        if not final:
            cut = data.rfind(b"\n") + 1
            if cut == 0 and read == MAX_BATCH:  # one enormous line: send it in pieces
                cut = utf8_cut(data)
            data = data[:cut]
        elif read == MAX_BATCH:
            data = data[: utf8_cut(data)]
        if not data:
            return read, 0
        text = data.decode("utf-8", "replace")
        start, self._offset = self._offset, self._offset + len(data)
        self._sink.log(self.job_id, start, text, self._offset)
        points = parse_metrics(text)
        if points:
            append_metrics(self.job_dir, points)
            self._sink.metrics(self.job_id, points)
        return read, len(data)
