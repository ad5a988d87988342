"""A real local Ray head for the tests (``ray start --head`` on 127.0.0.1 with a dashboard) and
moto's S3 server as the shared artifact storage.

The head runs in its own process session, so stopping it signals exactly its processes (never
``ray stop``, which would stop every Ray on the machine). Usage stats are off: nothing is sent
anywhere.
"""

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.waiting import wait_until

S3_KEY_ID = "testing-key"
S3_SECRET = "testing-secret"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class RayHead:
    address: str  # the dashboard URL


def _head_processes(pgid: int, temp_dir: Path) -> list[int]:
    """The running processes of this head: its process group, and the workers Ray put in
    sessions of their own (they name the head's temp dir). Zombies do not count."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (proc / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z" and (int(fields[2]) == pgid or str(temp_dir).encode() in cmdline):
            found.append(int(proc.name))
    return found


def _signal_all(pids: list[int], sig: int) -> None:
    for pid in pids:
        with suppress(ProcessLookupError):
            os.kill(pid, sig)


def _start(temp_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    dashboard = free_port()
    bin_dir = str(Path(sys.executable).parent)
    # ``python`` in a job's entrypoint is this interpreter: the tests' venv is the cluster's.
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0",
           "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    argv = [str(Path(bin_dir) / "ray"), "start", "--head", "--node-ip-address=127.0.0.1",
            f"--port={free_port()}", "--dashboard-host=127.0.0.1",
            f"--dashboard-port={dashboard}", "--num-cpus=2", "--include-dashboard=true",
            "--disable-usage-stats", f"--temp-dir={temp_dir}",
            # Every port its own: the defaults would clash with any other Ray on this machine.
            *(f"--{name}={free_port()}" for name in (
                "ray-client-server-port", "dashboard-agent-listen-port",
                "dashboard-agent-grpc-port", "metrics-export-port", "runtime-env-agent-port",
                "node-manager-port", "object-manager-port"))]
    starter = subprocess.Popen(argv, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    return starter, f"http://127.0.0.1:{dashboard}"


def _takes_jobs(address: str, temp_dir: Path) -> bool | None:
    """True once a job can be submitted; None when the head died on its way up."""
    from ray.job_submission import JobSubmissionClient

    crashed = any(" C " in log.read_text(errors="replace")
                  for log in temp_dir.glob("session_*/logs/raylet.out"))
    if crashed:
        return None
    try:
        JobSubmissionClient(address).submit_job(entrypoint="true", metadata={"probe": "1"})
    except (RuntimeError, OSError, ValueError):
        return False
    return True


def _stop(starter: subprocess.Popen[bytes], temp_dir: Path) -> None:
    starter.wait()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        _signal_all(_head_processes(starter.pid, temp_dir), sig)
        with suppress(AssertionError):
            wait_until(lambda: not _head_processes(starter.pid, temp_dir), timeout=10,
                       what="the Ray head to exit", interval=0.2)


def _ready(starter: subprocess.Popen[bytes], address: str, temp_dir: Path) -> bool:
    """Wait until the head takes jobs; False if its raylet died on the way (on a busy machine
    it gives up on a slow dashboard agent after a fixed wait) or it never got there."""
    states = {True: "ready", None: "crashed", False: ""}
    try:
        outcome = wait_until(lambda: states[_takes_jobs(address, temp_dir)], timeout=150,
                             what="the Ray head to take jobs", interval=0.5)
    except AssertionError:
        return False
    return outcome == "ready"


def _log_tails(temp_dir: Path, lines: int = 15) -> str:
    """The end of each of the head's logs that say why it did not come up."""
    tails = []
    for log in sorted(temp_dir.glob("session_*/logs/*")):
        if log.suffix in (".err", ".out", ".log") and log.stat().st_size:
            text = log.read_text(errors="replace").splitlines()[-lines:]
            tails.append(f"--- {log.name}\n" + "\n".join(text))
    return "\n".join(tails) or "(no logs)"


@contextmanager
def ray_head(temp_dir: Path, attempts: int = 3) -> Iterator[RayHead]:
    """A head that takes jobs: a head that crashes or hangs on the way up is stopped and a fresh
    one started, up to ``attempts`` times."""
    why = ""
    for attempt in range(attempts):
        folder = temp_dir / str(attempt)  # short: Ray's socket paths must stay under 108 bytes
        starter, address = _start(folder)
        try:
            ready = _ready(starter, address, folder)
        except BaseException:
            _stop(starter, folder)
            raise
        if not ready:
            why = _log_tails(folder)
            _stop(starter, folder)
            continue
        try:
            yield RayHead(address=address)
        finally:
            _stop(starter, folder)
        return
    raise AssertionError(f"the Ray head did not come up in {attempts} attempts; the last one's logs:\n{why}")


@dataclass(frozen=True)
class S3Server:
    endpoint: str

    def client(self) -> Any:
        import boto3  # imported here: most test sessions never need it

        return boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1",
                            aws_access_key_id=S3_KEY_ID, aws_secret_access_key=S3_SECRET)


@contextmanager
def s3_server(*buckets: str) -> Iterator[S3Server]:
    from moto.server import ThreadedMotoServer  # imported here: heavy, and rarely needed

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        s3 = S3Server(endpoint=f"http://127.0.0.1:{port}")
        for bucket in buckets:
            s3.client().create_bucket(Bucket=bucket)
        yield s3
    finally:
        server.stop()
