"""First start: ``make run`` in a fresh clone until the URL is printed, then a second ``make run``.

    python bench/first_start.py [--rev REV] [--cold] [--again 3]

Clones this repository (at ``--rev``, default ``HEAD``: commit what you measure) into a temporary
folder, runs ``make run`` there with a temporary data dir and a free port, and times it from the
command to the printed URL; stops the server, then times ``make run`` again ``--again`` times
(the median is printed). Each line ``make`` prints is shown with the second it appeared, which
says where the first start went. ``--cold`` gives pip, uv and npm empty caches of their own (the
machine's local wheel folders and indexes, if pip is configured with any, are still used);
without it the machine's caches are used as they are. The load average is printed at the start
and the end: figures on a busy machine are not a quiet machine's.
"""

import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
URL = re.compile(r"http://127\.0\.0\.1:\d+/\?token=\S+")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def timed_run(clone: Path, env: dict[str, str], show: bool, limit: float = 1800) -> float:
    """Seconds from ``make run`` to the printed URL; the server is stopped after."""
    start = time.monotonic()
    proc = subprocess.Popen(["make", "run"], cwd=clone, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    assert proc.stdout is not None
    found = threading.Event()
    seen: list[float] = []

    def read() -> None:
        for line in proc.stdout or []:
            now = time.monotonic() - start
            if show and line.strip() and not line.startswith(("  ", "WARNING: Location")):
                print(f"  {now:7.1f} s  {line.rstrip()[:150]}", flush=True)
            if URL.search(line) and not found.is_set():
                seen.append(now)
                found.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    while not found.wait(0.05):
        if proc.poll() is not None or time.monotonic() - start > limit:
            break
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    reader.join(timeout=10)
    if not seen:
        raise RuntimeError(f"make run printed no URL (exit {proc.returncode})")
    return seen[0]


def environment(tmp: Path, cold: bool) -> dict[str, str]:
    env = {**os.environ, "MNNWB_DATA_DIR": str(tmp / "data"), "MNNWB_PORT": str(free_port())}
    for name in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "VIRTUAL_ENV"):
        env.pop(name, None)
    if cold:
        env.update(PIP_CACHE_DIR=str(tmp / "cache" / "pip"), UV_CACHE_DIR=str(tmp / "cache" / "uv"),
                   npm_config_cache=str(tmp / "cache" / "npm"))
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD")
    parser.add_argument("--cold", action="store_true", help="empty pip, uv and npm caches")
    parser.add_argument("--again", type=int, default=3, help="second starts to time")
    args = parser.parse_args()
    rev = subprocess.run(["git", "rev-parse", "--short", args.rev], cwd=REPO, check=True,
                         capture_output=True, text=True).stdout.strip()
    print(f"load average at start: {os.getloadavg()}, {os.cpu_count()} cores; commit {rev}, "
          f"{'cold' if args.cold else 'warm'} caches")
    with tempfile.TemporaryDirectory(prefix="mnnwb-first-start-") as tmp_name:
        tmp = Path(tmp_name)
        clone = tmp / "clone"
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(REPO), str(clone)], check=True)
        subprocess.run(["git", "checkout", "-q", rev], cwd=clone, check=True)
        env = environment(tmp, args.cold)
        first = timed_run(clone, env, show=True)
        again = [timed_run(clone, env, show=False) for _ in range(args.again)]
        print(f"first make run: {first:.1f} s to the URL")
        print(f"make run again: median {statistics.median(again):.2f} s "
              f"({', '.join(f'{s:.2f}' for s in again)})")
        print(f"load average at end: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
