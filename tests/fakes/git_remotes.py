"""Real Git servers on loopback for tests, each a context manager bound to port 0.

* ``git_daemon(base)``: git's own daemon (``git daemon --inetd`` per accepted connection, so
  the listening socket is ours and binds port 0), with push enabled; server-side hooks run, as
  on a real server.
* ``dulwich_http(base, username, password)``: dulwich's smart-HTTP server behind HTTP basic
  auth.
* ``bare_repo(path)``: a bare repository made by the ``git`` CLI, usable as ``file://``.
"""

import base64
import hmac
import socket
import subprocess
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from wsgiref.simple_server import make_server

from dulwich.repo import Repo
from dulwich.server import DictBackend
from dulwich.web import WSGIRequestHandlerLogger, WSGIServerLogger, make_wsgi_chain

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent",
    "GIT_AUTHOR_NAME": "Remote",
    "GIT_AUTHOR_EMAIL": "remote@example.com",
    "GIT_COMMITTER_NAME": "Remote",
    "GIT_COMMITTER_EMAIL": "remote@example.com",
    "PATH": "/usr/local/bin:/usr/bin:/bin",
}


def git(*args: str, cwd: str | Path | None = None) -> str:
    """Run the ``git`` CLI with a clean environment; return its stdout."""
    done = subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def bare_repo(path: Path, branch: str = "main") -> Path:
    git("init", "--bare", "-q", "-b", branch, str(path))
    git("config", "receive.denyNonFastForwards", "false", cwd=path)
    return path


@contextmanager
def git_daemon(base: Path) -> Iterator[str]:
    """Serve every repository under ``base`` at the yielded ``git://127.0.0.1:PORT/``."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    children: list[subprocess.Popen[bytes]] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                children.append(_daemon_process(base, conn))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"git://127.0.0.1:{listener.getsockname()[1]}/"
    finally:
        stop.set()
        listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept()
        listener.close()
        thread.join(timeout=5)
        for child in children:
            child.wait(timeout=10)


def _daemon_process(base: Path, conn: socket.socket) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            "git",
            "daemon",
            "--inetd",
            "--export-all",
            "--enable=receive-pack",
            f"--base-path={base}",
            str(base),
        ],
        stdin=conn.fileno(),
        stdout=conn.fileno(),
        stderr=subprocess.DEVNULL,
        env=GIT_ENV,
    )


class BasicAuth:
    """WSGI middleware demanding one user name and password."""

    def __init__(self, app: Callable[..., Iterable[bytes]], username: str, password: str) -> None:
        self.app = app
        self.expected = "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()
        self.seen_authorization: list[str] = []

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        given = environ.get("HTTP_AUTHORIZATION", "")
        self.seen_authorization.append(given)
        if not hmac.compare_digest(given.encode(), self.expected.encode()):
            start_response(
                "401 Unauthorized",
                [("WWW-Authenticate", 'Basic realm="git"'), ("Content-Length", "0")],
            )
            return [b""]
        return self.app(environ, start_response)


class QuietHandler(WSGIRequestHandlerLogger):
    def log_message(self, format: str, *args: object) -> None:
        return None


@contextmanager
def dulwich_http(repos: dict[str, Path], username: str, password: str) -> Iterator[tuple[str, BasicAuth]]:
    """Serve ``repos`` (URL path → repository folder) over smart HTTP with basic auth."""
    opened = {f"/{name}": Repo(str(path)) for name, path in repos.items()}
    auth = BasicAuth(make_wsgi_chain(DictBackend(opened)), username, password)
    server = make_server("127.0.0.1", 0, auth, handler_class=QuietHandler, server_class=WSGIServerLogger)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/", auth
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
        for repo in opened.values():
            repo.close()
