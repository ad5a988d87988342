"""Whether processes run sandboxed, and the one way to start them (``Sandbox.wrap``).

The sandbox is ``on`` unless an admin sets ``MNNWB_SANDBOX=off``. When it is on but bubblewrap
cannot run here (not installed, user namespaces disabled), it is ``unavailable``: every
execution feature then answers 503 ``sandbox_unavailable`` with the reason, never runs a user's
code unsandboxed.
"""

import functools
import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from server.core.config import Settings
from server.core.error_codes import ErrorCode
from server.core.errors import Unavailable
from server.sandbox.command import bwrap_argv
from server.sandbox.policy import Limits, Network, Policy

State = Literal["on", "off", "unavailable"]
PROBE_TIMEOUT_SECONDS = 20.0


@dataclass(frozen=True)
class SandboxState:
    state: State
    reason: str | None
    network: Network


@functools.cache
def probe(network: Network) -> str | None:
    """Why a sandbox cannot be started here, or None when it can."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    if network == "outbound" and shutil.which("slirp4netns") is None:
        return "slirp4netns is not installed (needed for MNNWB_SANDBOX_NETWORK=outbound)"
    argv = bwrap_argv(["true"], Policy(cwd=Path("/")), (), ())
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_SECONDS,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap did not start: {exc}"
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"exit code {done.returncode}"]
        return f"bubblewrap cannot create namespaces here: {lines[-1]}"
    return None


def interpreter_folders(interpreter: Path) -> list[Path]:
    """The folders an interpreter needs: its environment, and for a virtual environment the
    installation it was made from (``home`` in its ``pyvenv.cfg``)."""
    environment = interpreter.parent.parent.resolve()
    folders = [environment]
    try:
        config = (environment / "pyvenv.cfg").read_text()
    except OSError:
        return folders
    for line in config.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            folders.append(Path(value.strip()).parent.resolve())
    return folders


class Sandbox:
    """Built once by the app from its settings (``from_settings``). ``hidden`` (the data
    directory) is never seen inside, and ``secret_env`` (the server's own settings) is removed
    from every environment. Users' code gets ``network`` and ``limits``; tools get no network."""

    def __init__(self, enabled: bool, *, network: Network = "none", limits: Limits = Limits(),
                 hidden: tuple[Path, ...] = (), secret_env: tuple[str, ...] = ()) -> None:
        self.network = network
        self.limits = limits
        self._hidden = hidden
        self._secret_env = secret_env
        reason = probe(network) if enabled else None
        self.state: State = "off" if not enabled else "unavailable" if reason else "on"
        self.reason = reason

    @classmethod
    def from_settings(cls, settings: Settings) -> "Sandbox":
        limits = Limits(settings.sandbox_memory_mb, settings.sandbox_pids,
                        settings.sandbox_cpu_seconds)
        secret_env = tuple(f"MNNWB_{name.upper()}" for name in Settings.model_fields)
        return cls(settings.sandbox == "on", network=settings.sandbox_network, limits=limits,
                   hidden=(settings.data_dir,), secret_env=secret_env)

    def for_user_code(self, cwd: Path, *, writable: tuple[Path, ...] = (),
                      interpreter: str | None = None) -> Policy:
        """What a user's job, terminal or language server gets: ``writable`` and, read-only, the
        environment of its ``interpreter`` (a project's setting may name any) unless that lies
        in a hidden folder (another project's ``.venv``), where it is not mounted at all."""
        readable: tuple[Path, ...] = ()
        if interpreter is not None:
            hidden = [p.resolve() for p in self._hidden]
            readable = tuple(folder for folder in interpreter_folders(Path(interpreter))
                             if not any(folder.is_relative_to(h) for h in hidden))
        return Policy(cwd=cwd, writable=writable, readable=readable, network=self.network,
                      limits=self.limits)

    def for_tool(self, cwd: Path, *, writable: tuple[Path, ...] = (),
                 readable: tuple[Path, ...] = (), memory_mb: int | None = None) -> Policy:
        """What a model tool or exporter gets: no network, its own memory limit."""
        limits = replace(self.limits, memory_mb=memory_mb)
        return Policy(cwd=cwd, writable=writable, readable=readable, network="none",
                      limits=limits)

    def status(self) -> SandboxState:
        return SandboxState(self.state, self.reason, self.network)

    def require(self) -> None:
        """Raise 503 ``sandbox_unavailable`` when user code may not run here at all."""
        if self.state == "unavailable":
            raise Unavailable(f"the sandbox is unavailable: {self.reason}. An admin can set "
                              "MNNWB_SANDBOX=off to run without it.", code=ErrorCode.SANDBOX_UNAVAILABLE)

    def wrap(self, argv: list[str], policy: Policy) -> list[str]:
        """The command to start instead of ``argv``: ``argv`` itself when the sandbox is off."""
        self.require()
        if self.state == "off":
            return argv
        return bwrap_argv(argv, policy, self._hidden, self._secret_env)
