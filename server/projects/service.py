"""Projects: create (template, existing folder, Git URL), list, rename, remove, UI state."""

import json
import re
import shutil
from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

from server.core.config import Settings
from server.core.errors import Conflict, Forbidden, Invalid, NotFound
from server.projects.models import Project, ProjectCreate, ProjectPublic
from server.projects.templates import render_template
from server.users.models import User

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ -]{0,63}$")
UI_STATE_MAX_BYTES = 256 * 1024


def check_name(name: str) -> str:
    name = name.strip()
    if not NAME_RE.fullmatch(name) or name.endswith((".", " ")):
        raise Invalid(
            "a project name is 1-64 letters, digits, spaces, dots, dashes or underscores, "
            "starting with a letter or digit",
            code="bad_name",
        )
    return name


def to_public(project: Project, owner: User) -> ProjectPublic:
    return ProjectPublic(
        id=project.id,
        name=project.name,
        path=project.path,
        template=project.template,
        owner=owner.name,
        created_at=project.created_at,
    )


def list_projects(session: Session, user: User) -> list[Project]:
    query = select(Project).where(Project.owner_id == user.id).order_by(col(Project.created_at))
    return list(session.exec(query))


def get_project(session: Session, user: User, project_id: str) -> Project:
    project = session.get(Project, project_id)
    if project is None:
        raise NotFound("no such project")
    if project.owner_id != user.id:
        raise Forbidden("you have no access to this project")
    return project


def _ensure_unique(session: Session, user: User, name: str, path: str | None = None) -> None:
    same_name = select(Project).where(Project.owner_id == user.id, Project.name == name)
    if session.exec(same_name).first() is not None:
        raise Conflict(f"a project named {name!r} already exists", code="duplicate")
    if path and session.exec(select(Project).where(Project.path == path)).first() is not None:
        raise Conflict("that folder is already open as a project", code="duplicate")


def _existing_folder(raw: str) -> Path:
    path = Path(raw).expanduser()
    if not path.is_absolute():
        raise Invalid("the folder must be an absolute path", code="bad_path")
    path = path.resolve()
    if not path.is_dir():
        raise Invalid(f"no such folder: {path}", code="bad_path")
    return path


def create_project(
    session: Session, settings: Settings, user: User, body: ProjectCreate
) -> Project:
    """Create a project from exactly one source: a template, an existing folder or a Git URL."""
    name = check_name(body.name)
    sources = [s for s in (body.path, body.git_url) if s]
    if len(sources) > 1 or (sources and body.template):
        raise Invalid("give one of template, path or git_url", code="bad_source")
    if body.path:
        folder = _existing_folder(body.path)
        _ensure_unique(session, user, name, str(folder))
        return _insert(session, Project(name=name, path=str(folder), owner_id=user.id))
    folder = (settings.projects_dir / name).resolve()
    _ensure_unique(session, user, name, str(folder))
    if folder.exists():
        raise Conflict(f"the folder {folder} already exists", code="duplicate")
    if body.git_url:
        _clone(body, folder)
        template = None
    else:
        template = body.template or "empty"
        try:
            render_template(template, folder, name)
        except Exception:
            shutil.rmtree(folder, ignore_errors=True)
            raise
    project = Project(name=name, path=str(folder), template=template, owner_id=user.id)
    return _insert(session, project)


def _clone(body: ProjectCreate, folder: Path) -> None:
    from server.gitflow.service import clone

    try:
        clone(body.git_url or "", folder, username=body.username, password=body.password)
    except Exception:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def _insert(session: Session, project: Project) -> Project:
    session.add(project)
    session.commit()
    session.refresh(project)
    return project


def rename_project(session: Session, project: Project, user: User, name: str) -> Project:
    name = check_name(name)
    if name != project.name:
        _ensure_unique(session, user, name)
        project.name = name
        session.add(project)
        session.commit()
        session.refresh(project)
    return project


def delete_project(
    session: Session, settings: Settings, project: Project, delete_files: bool
) -> None:
    """Forget a project; its files are removed only when asked and only if we created them."""
    folder = Path(project.path)
    if delete_files:
        inside = folder.resolve().parent == settings.projects_dir.resolve()
        if not inside:
            raise Invalid(
                "files of a folder opened from elsewhere are never deleted; remove it yourself",
                code="not_owned_folder",
            )
    session.delete(project)
    session.commit()
    if delete_files:
        shutil.rmtree(folder, ignore_errors=True)


def save_ui_state(session: Session, project: Project, state: dict[str, Any]) -> dict[str, Any]:
    if len(json.dumps(state)) > UI_STATE_MAX_BYTES:
        raise Invalid("the UI state is larger than 256 KB", code="too_large")
    project.ui_state = state
    session.add(project)
    session.commit()
    return state
