"""Who may open a terminal, and the shell it runs.

A terminal is a shell in the sandbox (``server/sandbox/``), which sees the project and not the
rest of the machine; where an admin turned the sandbox off it is a shell as the server's own
user, so it is given like the keys to the machine:
in local mode to the token holder; in team mode to administrators, and to a project's owners and
editors only when an administrator sets ``MNNWB_TEAM_TERMINAL=true``. Viewers never.
"""

import os
import pwd
import shutil
from functools import partial
from pathlib import Path
from typing import Any

from dulwich.config import ConfigFile
from sqlalchemy.engine import Engine
from sqlmodel import Session

from server.core.config import Settings
from server.core.error_codes import ErrorCode
from server.core.errors import Forbidden, Unavailable
from server.gitflow.identity import default_author
from server.projects import service as projects
from server.projects.models import Project
from server.sandbox import Sandbox
from server.terminal.manager import Terminal, TerminalManager
from server.training.runtime import resolve_interpreter
from server.users.service import user_for_principal

# Never handed to the shell: the server's own settings (a database URL may hold a password).
HIDDEN_PREFIXES = ("MNNWB_",)
PYTHON_BIN_VAR = "WORKBENCH_PYTHON_BIN"
# bash reads this instead of ~/.bashrc: the user's own first (it may put other Pythons on PATH,
# as pyenv does), then the project's environment goes in front of them. It lies beside this
# module, so a sandboxed shell can read it too.
BASH_RC = Path(__file__).resolve().parent / "workbench.bashrc"


def terminal_project(session: Session, settings: Settings, principal: str | None, pid: str) -> Project:
    """The project, if the caller may open a terminal in it (else NotFound / Forbidden)."""
    user = user_for_principal(session, principal)
    project = projects.get_project(session, user, pid, "read")
    if user.role == "admin":
        return project
    if not settings.team_terminal:
        raise Forbidden("terminals are for administrators on this server",
                        code=ErrorCode.TERMINAL_ADMINS_ONLY)
    projects.require_role(session, project, "run")
    return project


def _login_shell() -> str:
    shell = os.environ.get("SHELL") or pwd.getpwuid(os.getuid()).pw_shell
    return shell if shell and os.access(shell, os.X_OK) else (shutil.which("bash") or "/bin/sh")


def _shell_argv() -> list[str]:
    shell = _login_shell()
    if Path(shell).name != "bash":
        return [shell, "-i"]
    return [shell, "--rcfile", str(BASH_RC), "-i"]


def _repository_identity(root: Path) -> bool:
    """Whether the project's repository names its own ``user.name`` and ``user.email``."""
    try:
        config = ConfigFile.from_path(str(root / ".git" / "config"))
        return bool(config.get((b"user",), b"name") and config.get((b"user",), b"email"))
    except (OSError, KeyError, ValueError):
        return False


def git_identity_env(root: Path, author: str | None) -> dict[str, str]:
    """The caller's Git identity (set in the Source Control panel) for git run in the terminal,
    unless the repository names its own, which wins as it does for commits made in the UI."""
    if not author or _repository_identity(root):
        return {}
    name, _, email = author.partition(" <")
    email = email.removesuffix(">")
    return {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email,
            "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email}


def shell_command(session: Session, sandbox: Sandbox, project: Project,
                  author: str | None = None) -> tuple[list[str], dict[str, str]]:
    """An interactive shell with the project's interpreter first on PATH (its venv activated),
    in the sandbox: the project read-write, the interpreter's environment read-only. ``author``
    (``Name <email>``) is the caller's stored Git identity."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(HIDDEN_PREFIXES)}
    env.update(TERM="xterm-256color", COLORTERM="truecolor")
    env.pop("VIRTUAL_ENV", None)
    runtime = resolve_interpreter(session, project)
    root = Path(project.path)
    env.update(git_identity_env(root, author))
    policy = sandbox.for_user_code(root, writable=(root,), interpreter=runtime.interpreter)
    if runtime.source != "server":
        bin_dir = Path(runtime.interpreter).parent
        env[PYTHON_BIN_VAR] = str(bin_dir)
        # Shells other than bash get the PATH alone.
        env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', os.defpath)}"
    return sandbox.wrap(_shell_argv(), policy), env


def open_terminal(engine: Engine, settings: Settings, sandbox: Sandbox, manager: TerminalManager,
                  scope_state: dict[str, Any], pid: str, terminal_id: str | None, cols: int,
                  rows: int) -> tuple[Terminal, bool]:
    """Reattach to the caller's terminal ``terminal_id`` if it still runs, else start one;
    ``True`` with a new terminal. ``scope_state`` holds the caller's principal and credential."""
    principal = scope_state.get("principal")
    owner = str(principal)
    with Session(engine) as session:
        project = terminal_project(session, settings, principal, pid)
        found = manager.find(terminal_id, project.id, owner) if terminal_id else None
        if found is not None:
            manager.reattached(found, scope_state)
            return found, False
        author = default_author(session, user_for_principal(session, principal).id)
        argv, env = shell_command(session, sandbox, project, author)
    # Checked again whenever the owner's access changes (server/users/connections.py).
    recheck = partial(terminal_project, settings=settings, principal=principal, pid=pid)
    try:
        return manager.create(project.id, owner, argv, Path(project.path), env, cols, rows,
                              scope_state, recheck), True
    except OSError as exc:
        raise Unavailable(f"cannot start a shell: {exc.strerror or exc}", code=ErrorCode.NO_SHELL) from exc
