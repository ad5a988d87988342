"""Runs one job command and records its exit status in the job folder.

Started by the local runner as the leader of its own process session, with stdout and stderr
already pointing at the job's log file (the command inherits both). A restarted server is not
this process's parent and cannot wait for it, so the exit status goes to ``exit.json``.

Usage: ``python wrapper.py JOB_DIR CWD -- ARGV...``. Standard library only: it runs with the
server's interpreter, whatever environment the command itself uses.
"""

import json
import os
import signal
import subprocess
import sys

EXIT_FILE = "exit.json"


def write_exit(job_dir: str, code: int) -> None:
    temp = os.path.join(job_dir, EXIT_FILE + ".tmp")
    with open(temp, "w") as handle:
        json.dump({"exit_code": code}, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, os.path.join(job_dir, EXIT_FILE))


def main(argv: list[str]) -> int:
    job_dir, cwd, separator, *command = argv
    if separator != "--" or not command:
        print("usage: wrapper.py JOB_DIR CWD -- ARGV...", file=sys.stderr)
        return 2
    # A stop signals the whole group; this process outlives the command to record how it ended.
    # A Python handler (unlike SIG_IGN) is reset to the default in the command by exec.
    signal.signal(signal.SIGTERM, lambda _sig, _frame: None)
    signal.signal(signal.SIGINT, lambda _sig, _frame: None)
    try:
        process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL)
    except OSError as exc:
        print(f"cannot start {command[0]!r}: {exc.strerror or exc}", flush=True)
        code = 127
    else:
        code = process.wait()
    write_exit(job_dir, code)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
