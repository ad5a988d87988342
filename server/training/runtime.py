"""Which interpreter runs a project's local jobs: the project's setting, else its ``.venv``,
else the server's own."""

import os
import sys
from pathlib import Path

from sqlmodel import Session

from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.projects.models import Project
from server.training.models import ProjectRuntime, RuntimePublic, RuntimeUpdate
from server.training.venv import venv_python


def resolve_interpreter(session: Session, project: Project) -> RuntimePublic:
    setting = session.get(ProjectRuntime, project.id)
    if setting is not None:
        return RuntimePublic(interpreter=setting.interpreter, source="setting")
    venv = venv_python(Path(project.path))
    if venv.exists():
        return RuntimePublic(interpreter=str(venv), source="venv")
    return RuntimePublic(interpreter=sys.executable, source="server")


def set_interpreter(session: Session, project: Project, body: RuntimeUpdate) -> RuntimePublic:
    """Set (or with null, clear) the project's interpreter: an executable, absolute or relative
    to the project folder."""
    setting = session.get(ProjectRuntime, project.id)
    if body.interpreter is None:
        if setting is not None:
            session.delete(setting)
            session.commit()
        return resolve_interpreter(session, project)
    # Not resolved: a venv's python is a symlink, and it only acts as the venv under its own path.
    path = Path(os.path.abspath(Path(project.path, body.interpreter)))
    if not path.is_file() or not os.access(path, os.X_OK):
        raise Invalid(f"{path} is not an executable file", code=ErrorCode.BAD_INTERPRETER)
    setting = setting or ProjectRuntime(project_id=project.id, interpreter=str(path))
    setting.interpreter = str(path)
    session.add(setting)
    session.commit()
    return resolve_interpreter(session, project)
