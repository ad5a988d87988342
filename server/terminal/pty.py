"""A shell on a pseudo-terminal, read from the event loop without a thread.

The shell leads its own session with the PTY as controlling terminal, so job control works and
ending the terminal can signal the whole process group: nothing started in it outlives it.
"""

import asyncio
import codecs
import contextlib
import fcntl
import os
import signal
import struct
import subprocess
import termios
from collections.abc import Callable
from pathlib import Path

import psutil

READ_SIZE = 64 * 1024
KILL_GRACE_SECONDS = 2.0


def _take_terminal() -> None:  # runs in the child, after setsid
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def set_size(fd: int, cols: int, rows: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


class PtyProcess:
    """``argv`` on a new PTY; ``on_output`` gets decoded text, ``on_exit`` the exit code once."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], cols: int, rows: int,
                 on_output: Callable[[str], None], on_exit: Callable[[int | None], None]) -> None:
        self.master, replica = os.openpty()
        set_size(self.master, cols, rows)
        try:
            self.process = subprocess.Popen(
                argv, cwd=cwd, env=env, stdin=replica, stdout=replica, stderr=replica,
                start_new_session=True, preexec_fn=_take_terminal, close_fds=True,
            )
        except OSError:
            os.close(self.master)
            raise
        finally:
            os.close(replica)
        os.set_blocking(self.master, False)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._on_output = on_output
        self._on_exit = on_exit
        self._loop = asyncio.get_running_loop()
        self.closed = False
        self.paused = False
        self.eof = False
        self._loop.add_reader(self.master, self._readable)

    def pause(self) -> None:
        if not self.paused and not self.eof:
            self.paused = True
            self._loop.remove_reader(self.master)

    def resume(self) -> None:
        if self.paused and not self.eof:
            self.paused = False
            self._loop.add_reader(self.master, self._readable)

    def _readable(self) -> None:
        try:
            data = os.read(self.master, READ_SIZE)
        except BlockingIOError:
            return
        except OSError:  # EIO: every process holding the PTY has ended
            data = b""
        if data:
            self._on_output(self._decoder.decode(data))
            return
        self.eof = True
        self._loop.remove_reader(self.master)
        self._reaper = asyncio.ensure_future(self._reap())

    async def _reap(self) -> None:
        code = await asyncio.to_thread(self.process.wait)
        self._close_fd()
        self._on_exit(code)

    def write(self, text: str) -> None:
        if self.closed:
            return
        data = text.encode()
        while data:
            try:
                written = os.write(self.master, data)
            except BlockingIOError:
                return  # the shell is not reading; typing ahead that far is dropped
            except OSError:
                return
            data = data[written:]

    def resize(self, cols: int, rows: int) -> None:
        if self.closed:
            return
        with contextlib.suppress(OSError):
            set_size(self.master, cols, rows)

    def _close_fd(self) -> None:
        self.eof = True
        if not self.closed:
            self.closed = True
            with contextlib.suppress(ValueError, OSError):
                self._loop.remove_reader(self.master)
            os.close(self.master)

    async def terminate(self) -> None:
        """Hang up every process of the shell's session (background jobs have process groups of
        their own), then kill what is left after a grace period."""
        await asyncio.to_thread(signal_session, self.process.pid, signal.SIGHUP)
        try:
            await asyncio.wait_for(asyncio.to_thread(self.process.wait), KILL_GRACE_SECONDS)
        except TimeoutError:
            pass
        await asyncio.to_thread(signal_session, self.process.pid, signal.SIGKILL)
        await asyncio.to_thread(self.process.wait)
        self._close_fd()


def signal_session(session_id: int, sig: int) -> None:
    """Send ``sig`` to every process whose session is ``session_id``."""
    for pid in psutil.pids():
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if os.getsid(pid) == session_id:
                os.kill(pid, sig)
                if sig == signal.SIGHUP:
                    os.kill(pid, signal.SIGCONT)  # a stopped job must wake up to hang up
