"""Processes in the sandbox have a process namespace of their own: the pid a sandboxed shell
prints (``$$``) is its pid in there. This finds the same process among the test's own."""

import psutil

from tests.waiting import wait_until


def _inner_pid(process: psutil.Process) -> int | None:
    try:
        with open(f"/proc/{process.pid}/status") as status:
            for line in status:
                if line.startswith("NSpid:"):
                    return int(line.split()[-1])
    except OSError:
        return None
    return None


def host_pid(inner: int, ancestor: int | None = None) -> int:
    """The pid seen from here of the process that is ``inner`` in its sandbox, among the
    descendants of ``ancestor`` (this test process by default)."""
    root = psutil.Process(ancestor)

    def find() -> int | None:
        found = [p.pid for p in root.children(recursive=True) if _inner_pid(p) == inner
                 and p.pid != inner]
        return found[0] if len(found) == 1 else None

    return wait_until(find, what=f"the sandboxed process {inner}")
