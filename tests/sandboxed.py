"""Processes in the sandbox have a process namespace of their own: the pid a sandboxed shell
prints (``$$``) is its pid in there. A shell prints it with its namespace (``PID_ECHO``), and
``host_pid`` finds the same process among the test's own."""

import os

import psutil

from tests.waiting import wait_until

# What a shell types to say who it is: its pid and its pid namespace, read back by ``parse``.
PID_ECHO = 'echo "pid=$$ ns=$(readlink /proc/$$/ns/pid)="'
PID_PATTERN = r"pid=(\d+) ns=(pid:\[\d+\])="


def _inner_pid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("NSpid:"):
                    return int(line.split()[-1])
    except OSError:
        return None
    return None


def _namespace(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def host_pid(inner: int, namespace: str) -> int:
    """The pid seen from here of the process that is ``inner`` in the pid ``namespace`` (as
    ``readlink /proc/self/ns/pid`` prints it), among this test process's descendants."""

    def find() -> int | None:
        for child in psutil.Process().children(recursive=True):
            if _namespace(child.pid) == namespace and _inner_pid(child.pid) == inner:
                return child.pid
        return None

    return wait_until(find, what=f"the sandboxed process {inner} of {namespace}")
