"""Running the ``git`` command line for transfers: a hermetic environment, progress, cancel.

Every run ignores the system and global git config (``GIT_CONFIG_NOSYSTEM``,
``GIT_CONFIG_GLOBAL=/dev/null``), never prompts (``GIT_TERMINAL_PROMPT=0``), runs no hook
(``core.hooksPath=/dev/null``; clones start from an empty template folder) and speaks only
``http(s)://``, ``git://`` and ``file://``. Credentials reach git through a credential helper that
reads them from the child's environment, so they are never on a command line, in a file or in
``.git/config``. stderr is read as it comes (git ends progress lines with ``\\r``); a run that
says nothing for ``timeout`` seconds, or whose ``cancel`` event is set, is killed with its whole
process group. That group dies with the server too, even when the server is killed outright
(``tether.py``).
"""

import os
import re
import select
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from server.core.error_codes import ErrorCode
from server.core.errors import BadGateway, Forbidden, NotFound, Unavailable
from server.gitflow.tether import tethered
from server.gitflow.transport import redact

PROTOCOLS = ("http", "https", "git", "file")
_HELPER = ('!f() { test "$1" = get && printf "username=%s\\npassword=%s\\n" '
           '"$MNNWB_GIT_USERNAME" "$MNNWB_GIT_PASSWORD"; }; f')
_PASSED_ENV = ("PATH", "http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY")
_PROGRESS = re.compile(
    r"^(?:remote: )?(?P<what>[A-Za-z ]+?):\s+(?P<pct>\d+)% \((?P<done>\d+)/(?P<total>\d+)\)"
    r"(?:, (?P<size>[\d.]+) (?P<size_unit>\w+)(?: \| (?P<rate>[\d.]+) (?P<unit>\w+)/s)?)?")
PHASES = {"Enumerating objects": "counting", "Counting objects": "counting",
          "Compressing objects": "compressing", "Receiving objects": "receiving",
          "Resolving deltas": "resolving", "Updating files": "checkout", "Checking out files": "checkout"}
_UNITS = {"bytes": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}
_SHA = re.compile(r"\b[0-9a-f]{40}\b")


class Cancelled(Exception):
    """The run was stopped on request; the caller cleans up."""


@dataclass(frozen=True)
class Step:
    """One progress report: ``phase`` one of counting, compressing, receiving, resolving,
    checkout (or ``message`` for any other line); ``done`` of ``total`` units."""

    phase: str
    done: int
    total: int
    bytes_per_second: float | None
    text: str


OnStep = Callable[[Step], None]


def parse_progress(line: str) -> Step:
    match = _PROGRESS.match(line)
    if match is None or match["what"] not in PHASES:
        return Step("message", 0, 0, None, line)
    rate = float(match["rate"]) * _UNITS.get(match["unit"], 1) if match["rate"] else None
    return Step(PHASES[match["what"]], int(match["done"]), int(match["total"]), rate, line)


def git_env(username: str | None = None, password: str | None = None) -> dict[str, str]:
    env = {k: os.environ[k] for k in _PASSED_ENV if k in os.environ}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0",
               LC_ALL="C", HOME=os.devnull)
    if username or password:
        env.update(MNNWB_GIT_USERNAME=username or "", MNNWB_GIT_PASSWORD=password or "")
    return env


def git_options(credentials: bool = False) -> list[str]:
    """``-c`` options every transfer runs with."""
    options = ["core.hooksPath=/dev/null", "core.fsmonitor=false", "core.protectNTFS=true",
               "core.protectHFS=true", "protocol.allow=never", "credential.helper="]
    options += [f"protocol.{p}.allow=always" for p in PROTOCOLS]
    if credentials:
        options.append("credential.helper=" + _HELPER)
    return [arg for option in options for arg in ("-c", option)]


@dataclass
class GitRun:
    """One ``git`` process whose stderr lines go to ``on_line``."""

    args: list[str]
    cwd: Path
    env: dict[str, str]
    timeout: float
    cancel: threading.Event | None = None

    def run(self, on_line: Callable[[str], None]) -> tuple[int, list[str]]:
        """The exit status and the last lines git wrote to stderr."""
        proc = subprocess.Popen(tethered(["git", *self.args]), cwd=self.cwd, env=self.env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, start_new_session=True)
        assert proc.stderr is not None
        tail: deque[str] = deque(maxlen=40)
        try:
            self._pump(proc.stderr.fileno(), on_line, tail)
            return proc.wait(), list(tail)
        except BaseException:
            _kill_group(proc)
            raise
        finally:
            proc.stderr.close()

    def _pump(self, fd: int, on_line: Callable[[str], None], tail: deque[str]) -> None:
        pending, last = b"", time.monotonic()
        while True:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if self.cancel is not None and self.cancel.is_set():
                raise Cancelled()
            if not ready:
                if time.monotonic() - last > self.timeout:
                    raise Unavailable("the remote did not answer in time", code=ErrorCode.TIMEOUT)
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return
            last = time.monotonic()
            *lines, pending = re.split(rb"[\r\n]", pending + chunk)
            for raw in lines:
                line = raw.decode("utf-8", "replace").strip()
                if line:
                    tail.append(line)
                    on_line(line)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def transfer_error(lines: list[str], *secrets: str | None) -> Exception:
    """The domain error a failed transfer's stderr names."""
    text = redact("\n".join(lines), *secrets)
    missing = sorted({sha for line in lines if "unable to read" in line or "missing" in line
                      for sha in _SHA.findall(line)})
    if missing or "corrupt" in text:
        objects = f": object {', '.join(missing)} is missing" if missing else ""
        detail = f"the remote repository is corrupt{objects}"
        return BadGateway(detail, code=ErrorCode.REMOTE_CORRUPT, objects=missing)
    if "Authentication failed" in text or "could not read Username" in text:
        return Forbidden("the remote refused the credentials", code=ErrorCode.AUTH_FAILED)
    if ("not found" in text or "does not appear to be a git repository" in text
            or "not a git repository" in text or "not exported" in text):
        return NotFound("no Git repository at the remote URL", code=ErrorCode.REMOTE_NOT_FOUND)
    if "timed out" in text:
        return Unavailable("the remote did not answer in time", code=ErrorCode.TIMEOUT)
    last = " ".join(line for line in lines[-3:] if not _PROGRESS.match(line))
    return Unavailable(f"could not reach the remote: {redact(last, *secrets)}", code=ErrorCode.REMOTE_ERROR)
