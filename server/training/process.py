"""A local job's process: identified by pid and start time, so a reused pid is never mistaken
for it, whether the process is this server's child or was started by an earlier server."""

import os
import signal
import sys
from pathlib import Path

import psutil

from server.training.logfile import LOG_FILE

WRAPPER = Path(__file__).resolve().parent / "wrapper.py"
# psutil derives start times from boot time and clock ticks: the same process always gives the
# same value, so only float noise needs absorbing.
START_TIME_TOLERANCE = 0.05


class JobProcess:
    def __init__(self, pid: int, started_at: float) -> None:
        self.pid = pid
        self.started_at = started_at
        self._proc: psutil.Process | None
        try:
            proc = psutil.Process(pid)
            same = abs(proc.create_time() - started_at) < START_TIME_TOLERANCE
            self._proc = proc if same else None
        except psutil.Error:
            self._proc = None

    @classmethod
    def spawn(cls, job_dir: Path, cwd: Path, argv: list[str], env: dict[str, str], *,
              sandboxed: bool) -> "JobProcess":
        """Start the wrapper (which runs ``argv``) as the leader of a new session.

        ``posix_spawn`` rather than ``Popen``: the server keeps no process object, so a fresh
        job and one re-attached after a restart are followed the same way.
        """
        log = str(job_dir / LOG_FILE)
        flags = ["--sandboxed"] if sandboxed else []
        command = [sys.executable, str(WRAPPER), str(job_dir), str(cwd), *flags, "--", *argv]
        pid = os.posix_spawn(sys.executable, command, env, setsid=True, file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ])
        return cls(pid, psutil.Process(pid).create_time())

    def alive(self) -> bool:
        """Asked by the job's watcher whenever its log had nothing new: for our own child one
        ``waitpid``, which reaps it once it has ended; ``/proc`` is read only for a process an
        earlier server started."""
        try:
            ended = os.waitpid(self.pid, os.WNOHANG)[0]
        except ChildProcessError:  # started by an earlier server, or already reaped
            pass
        else:
            if ended:
                self._proc = None
            return self._proc is not None
        if self._proc is None:
            return False
        try:
            return self._proc.is_running() and self._proc.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    def signal_group(self, sig: signal.Signals) -> None:
        if not self.alive():
            return
        try:
            os.killpg(self.pid, sig)
        except ProcessLookupError:
            pass
