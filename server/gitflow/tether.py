"""Run a command tied to the server: when the server dies, even by SIGKILL, the command dies too,
with every process it started.

``python -I -S tether.py SERVER_PID COMMAND [ARG...]`` is started as the leader of a new session,
so the command and its children (``git clone`` starts ``index-pack``, ``remote-https``, …) share
its process group. The kernel sends the tether SIGTERM when the server thread that started it
ends (``PR_SET_PDEATHSIG``); the tether then kills the whole group. The exit status is the
command's (128 + the signal's number when a signal ended it). Only the standard library is used:
the tether runs isolated from the server's packages.
"""

import ctypes
import os
import signal
import sys
from pathlib import Path

PR_SET_PDEATHSIG = 1
SCRIPT = Path(__file__)


def tethered(command: list[str]) -> list[str]:
    """``command`` run through the tether by this process."""
    return [sys.executable, "-I", "-S", str(SCRIPT), str(os.getpid()), *command]


def _kill_group(signum: int, frame: object) -> None:
    os.killpg(0, signal.SIGKILL)


def main(argv: list[str]) -> int:
    server, command = int(argv[1]), argv[2:]
    signal.signal(signal.SIGTERM, _kill_group)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != server:  # the server died before the request took hold
        return 128 + signal.SIGTERM
    child = os.posix_spawnp(command[0], command, os.environ)
    _, status = os.waitpid(child, 0)
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
