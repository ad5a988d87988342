"""Runs one job command and records its exit status in the job folder.

Started by the local runner as the leader of its own process session, with stdout and stderr
already pointing at the job's log file. The command's output comes through a pipe and this
process copies it into the log, so a full disk loses output visibly rather than silently: the
bytes that could not be written are counted, a line in the log marks the gap as soon as there is
room again, and the count goes into ``exit.json``.

A restarted server is not this process's parent and cannot wait for it, so the exit status goes
to ``exit.json``, whose space is reserved when the job starts: the status is recorded even if the
disk is full by then.

Usage: ``python wrapper.py JOB_DIR CWD [--sandboxed] -- ARGV...``. Standard library only: it
runs with the server's interpreter, whatever environment the command itself uses. A sandboxed
command's signal deaths come back as exit codes 128 + N (``server/sandbox/policy.py``,
``exit_status``); ``--sandboxed`` records them as the signal, as for a direct child.
"""

import errno
import json
import os
import signal
import subprocess
import sys
import threading

EXIT_FILE = "exit.json"
RESERVED = 256
CHUNK = 65536
# How long the output of processes the command left behind is still copied once it has ended.
LINGER_SECONDS = 1.0


def _reserved_path(job_dir: str) -> str:
    return os.path.join(job_dir, EXIT_FILE + ".tmp")


def reserve_exit(job_dir: str) -> None:
    """Allocate the exit file's blocks now; writing over them later needs no free space."""
    with open(_reserved_path(job_dir), "wb") as handle:
        handle.write(b" " * RESERVED)
        handle.flush()
        os.fsync(handle.fileno())


def write_exit(job_dir: str, code: int, lost_bytes: int = 0) -> None:
    record = json.dumps({"exit_code": code, "lost_bytes": lost_bytes}).encode()
    temp = _reserved_path(job_dir)
    flags = os.O_WRONLY | os.O_CREAT  # no truncation: the reserved blocks are reused
    with os.fdopen(os.open(temp, flags, 0o600), "wb") as handle:
        handle.write(record.ljust(RESERVED))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, os.path.join(job_dir, EXIT_FILE))


def _write(fd: int, data: bytes) -> int:
    """Write ``data`` to ``fd``; returns how many bytes a full disk kept out."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            return len(view)
    return 0


def gap_line(lost: int) -> bytes:
    return f"\n[mnnwb] the disk was full: {lost} bytes of output were not saved here\n".encode()


def copy_output(source: int, log: int) -> int:
    """Copy the command's output to the log until the pipe closes; returns the bytes lost."""
    lost = gap = 0
    while chunk := os.read(source, CHUNK):
        if gap and not _write(log, gap_line(gap)):
            gap = 0
        missed = len(chunk) if gap else _write(log, chunk)
        gap, lost = gap + missed, lost + missed
    if gap:
        _write(log, gap_line(gap))
    return lost


def main(argv: list[str]) -> int:
    job_dir, cwd, *rest = argv
    sandboxed = rest[:1] == ["--sandboxed"]
    separator, *command = rest[1:] if sandboxed else rest
    if separator != "--" or not command:
        print("usage: wrapper.py JOB_DIR CWD [--sandboxed] -- ARGV...", file=sys.stderr)
        return 2
    reserve_exit(job_dir)
    # A stop signals the whole group; this process outlives the command to record how it ended.
    # A Python handler (unlike SIG_IGN) is reset to the default in the command by exec.
    signal.signal(signal.SIGTERM, lambda _sig, _frame: None)
    signal.signal(signal.SIGINT, lambda _sig, _frame: None)
    read_end, write_end = os.pipe()
    try:
        process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=write_end,
                                   stderr=write_end)
    except OSError as exc:
        os.close(write_end)
        print(f"cannot start {command[0]!r}: {exc.strerror or exc}", flush=True)
        write_exit(job_dir, 127)
        return 0
    os.close(write_end)
    lost: list[int] = []
    copier = threading.Thread(target=lambda: lost.append(copy_output(read_end, 1)), daemon=True)
    copier.start()
    code = process.wait()
    if sandboxed and 128 < code <= 128 + 64:
        code = 128 - code
    copier.join(LINGER_SECONDS)
    write_exit(job_dir, code, lost[0] if lost else 0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
