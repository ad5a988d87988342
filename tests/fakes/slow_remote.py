"""A slow Git server for tests that must act in the middle of a transfer (cancel a clone).

``slow_git_daemon(base, bytes_per_second)`` serves like ``git_remotes.git_daemon`` but passes
what the daemon sends to the client at most ``bytes_per_second``; with ``stall_after`` it goes
silent once it has sent that many bytes to a client, as a remote that hangs mid-transfer, and
sets ``stalled``.
``big_repo(path)`` is a bare repository of incompressible files, so the pack is as large as its
contents; ``tagged_repo`` a small one with a tag.
"""

import os
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.fakes.git_remotes import GIT_ENV, bare_repo, git

CHUNK = 4096


def big_repo(path: Path, files: int = 200, size: int = 16 * 1024) -> Path:
    """A bare repository holding ``files`` random files of ``size`` bytes on ``main``."""
    work = path.with_name(path.name + ".src")
    git("init", "-q", "-b", "main", str(work))
    for n in range(files):
        (work / f"data{n:03d}.bin").write_bytes(os.urandom(size))
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "big", cwd=work)
    bare_repo(path)
    git("push", "-q", str(path), "main", cwd=work)
    return path


def tagged_repo(base: Path, files: dict[str, str], name: str = "p.git") -> Path:
    """A bare repository ``base/name`` of one commit holding ``files``, tagged ``v1``."""
    src = base / (name + ".src")
    git("init", "-q", "-b", "main", str(src))
    for path, text in files.items():
        (src / path).parent.mkdir(parents=True, exist_ok=True)
        (src / path).write_text(text)
    git("add", "-A", cwd=src)
    git("commit", "-q", "-m", "one", cwd=src)
    git("tag", "-a", "v1", "-m", "first", cwd=src)
    remote = bare_repo(base / name)
    git("push", "-q", "--tags", str(remote), "main", cwd=src)
    return remote


@contextmanager
def slow_git_daemon(base: Path, bytes_per_second: int, stall_after: int | None = None,
                    stalled: threading.Event | None = None) -> Iterator[str]:
    """Serve every repository under ``base`` at the yielded ``git://127.0.0.1:PORT/``, slowly."""
    listener = socket.create_server(("127.0.0.1", 0))
    children: list[subprocess.Popen[bytes]] = []
    pumps: list[threading.Thread] = []
    closing = threading.Event()
    stall = (stall_after, stalled or threading.Event())

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            child = subprocess.Popen(
                ["git", "daemon", "--inetd", "--export-all", f"--base-path={base}", str(base)],
                stdin=conn.fileno(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=GIT_ENV)
            children.append(child)
            pumps.append(threading.Thread(target=_trickle, daemon=True,
                                          args=(child, conn, bytes_per_second, stall, closing)))
            pumps[-1].start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"git://127.0.0.1:{listener.getsockname()[1]}/"
    finally:
        closing.set()
        listener.shutdown(socket.SHUT_RDWR)
        listener.close()
        thread.join(timeout=5)
        for child in children:
            child.kill()
            child.wait(timeout=10)
        for pump in pumps:
            pump.join(timeout=10)
        for child in children:
            assert child.stdout is not None
            child.stdout.close()


def _trickle(child: subprocess.Popen[bytes], conn: socket.socket, rate: int,
             stall: tuple[int | None, threading.Event], closing: threading.Event) -> None:
    """Copy the daemon's output to the client, ``CHUNK`` bytes at a time, at ``rate``; after
    ``stall[0]`` bytes, set ``stall[1]`` and send nothing more until the daemon closes."""
    assert child.stdout is not None
    stall_after, stalled = stall
    sent = 0
    with conn:
        try:
            while chunk := os.read(child.stdout.fileno(), CHUNK):
                if stall_after is not None and sent >= stall_after:
                    stalled.set()
                    closing.wait()
                    return
                conn.sendall(chunk)
                sent += len(chunk)
                if closing.wait(len(chunk) / rate):  # the throttle, cut short when closing
                    return
        except OSError:
            return
