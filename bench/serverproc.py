"""Start a real ``mnnwb serve`` process on a free port with a temporary data dir."""

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(data_dir: Path, timeout: float = 120) -> tuple[subprocess.Popen[str], str, str]:
    """Returns the process, the base URL and the token, once the server prints its URL."""
    port = free_port()
    mnnwb = Path(sys.executable).with_name("mnnwb")
    proc = subprocess.Popen(
        [str(mnnwb), "serve", "--port", str(port), "--data-dir", str(data_dir)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True,
    )
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        match = re.search(r"(http://[^/\s]+)/\?token=(\S+)", proc.stdout.readline())
        if match:
            # Keep reading: a full pipe would block the server's access log and stall it.
            threading.Thread(target=proc.stdout.read, daemon=True).start()
            return proc, match.group(1), match.group(2)
        if proc.poll() is not None:
            break
    proc.kill()
    raise RuntimeError("the server did not start")


def stop_server(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def kill_server(proc: subprocess.Popen[str]) -> None:
    """SIGKILL the server and everything it started, as a crash or the OOM killer would."""
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()
