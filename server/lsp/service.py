"""Who gets language features and the server process that gives them.

The language server is ``pylsp`` (python-lsp-server, with Jedi and pyflakes) from the server's
own environment; Jedi is pointed at the project's interpreter (its runtime setting or ``.venv``),
so completions and definitions come from the packages the project really has. Jedi runs that
interpreter to inspect it, which is running the project's code in effect: editors and up only.
The workbench's own plugin (``server/lsp/plugin.py``) formats with the formatter of that
interpreter's environment when it has one.
"""

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlmodel import Session

from server.projects import service as projects
from server.projects.models import Project
from server.training.runtime import resolve_interpreter
from server.users.service import user_for_principal

HIDDEN_PREFIXES = ("MNNWB_",)


@dataclass
class LanguageServerPlan:
    argv: list[str]
    cwd: str
    env: dict[str, str]
    root_uri: str
    settings: dict[str, object]
    # The project's interpreter, whose environment the server reads (jedi's).
    interpreter: str | None = None


def admit(session: Session, principal: str | None, pid: str) -> Project:
    """The project, if the caller may have language features in it (NotFound / Forbidden)."""
    return projects.get_project(session, user_for_principal(session, principal), pid, "run")


def plan_for(engine: Engine, principal: str | None, pid: str) -> LanguageServerPlan:
    """What to start for this caller and project (NotFound / Forbidden when they may not)."""
    with Session(engine) as session:
        project = admit(session, principal, pid)
        runtime = resolve_interpreter(session, project)
    root = os.path.realpath(project.path)
    jedi: dict[str, object] = {}
    own = runtime.interpreter if runtime.source != "server" else None
    if own:
        jedi["environment"] = own
    env = {k: v for k, v in os.environ.items() if not k.startswith(HIDDEN_PREFIXES)}
    return LanguageServerPlan(
        argv=[sys.executable, "-m", "pylsp"], cwd=root, env=env, root_uri=Path(root).as_uri(),
        settings={"pylsp": {"plugins": {
            "jedi": jedi, "pycodestyle": {"enabled": False},
            # server/lsp/plugin.py: formats with the tools of this interpreter's environment first
            "mnnwb": {"interpreter": own},
        }}},
        interpreter=runtime.interpreter,
    )
