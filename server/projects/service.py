"""Projects: create (template, existing folder, Git URL, zip), list, rename, remove, UI state."""

import json
import re
import shutil
from pathlib import Path
from typing import Any, BinaryIO

from sqlalchemy.orm import object_session
from sqlmodel import Session, col, or_, select

from device_bridge.playground import app as playground_app
from server.core.config import Settings
from server.core.db import release
from server.core.error_codes import ErrorCode
from server.core.errors import Conflict, Forbidden, Invalid, NotFound
from server.gitflow.transport import check_url
from server.gitflow.urlpolicy import policy_for
from server.projects import zipped
from server.projects.cloning import CloneJobs, CloneRequest
from server.projects.models import MemberPublic, Project, ProjectCreate, ProjectMember, ProjectPublic
from server.projects.templates import render_template
from server.projects.tracking import track_new
from server.users import audit
from server.users.changes import AccessChange, Notify
from server.users.models import User

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ -]{0,63}$")
UI_STATE_MAX_BYTES = 256 * 1024
# What each kind of action needs. Running code (jobs, tools, device sessions, push) is kept
# apart from writing so the two can diverge, though today both need an editor.
ROLE_RANK = {"viewer": 1, "editor": 2, "owner": 3}
NEEDED_ROLE = {"read": "viewer", "write": "editor", "run": "editor", "own": "owner"}


def check_name(name: str) -> str:
    name = name.strip()
    if not NAME_RE.fullmatch(name) or name.endswith((".", " ")):
        raise Invalid(
            "a project name is 1-64 letters, digits, spaces, dots, dashes or underscores, "
            "starting with a letter or digit",
            code=ErrorCode.BAD_NAME,
        )
    return name


def to_public(project: Project, viewer: User) -> ProjectPublic:
    owner = viewer if viewer.id == project.owner_id else _owner_of(project)
    return ProjectPublic(
        id=project.id,
        name=project.name,
        path=project.path,
        template=project.template,
        owner=owner.name,
        created_at=project.created_at,
        state="cloning" if project.state == "cloning" else "ready",
        **_kind(project),
    )


def _kind(project: Project) -> dict[str, Any]:
    """A folder with ``app.mnnplayground`` is a playground project (docs/playground.md)."""
    try:
        found = playground_app.load(Path(project.path))
    except playground_app.AppFileError as exc:
        return {"kind": "playground", "playground": {"error": str(exc)}}
    except OSError:
        return {}
    return {"kind": "playground", "playground": found.to_dict()} if found else {}


def _owner_of(project: Project) -> User:
    session = object_session(project)
    owner = session.get(User, project.owner_id) if session is not None else None
    if owner is None:
        raise NotFound("the project's owner no longer exists", code=ErrorCode.NO_OWNER)
    return owner


def list_projects(session: Session, user: User) -> list[Project]:
    """Projects the user may open: all for an admin; owned or shared otherwise."""
    query = select(Project).order_by(col(Project.created_at))
    if user.role != "admin":
        shared = select(ProjectMember.project_id).where(ProjectMember.user_id == user.id)
        query = query.where(or_(Project.owner_id == user.id, col(Project.id).in_(shared)))
    return list(session.exec(query))


def role_of(session: Session, user: User, project: Project) -> str | None:
    """The user's role on the project; admins and the creator are owners."""
    if user.role == "admin" or project.owner_id == user.id:
        return "owner"
    member = session.get(ProjectMember, (project.id, user.id))
    return member.role if member else None


def allows(role: str | None, need: str) -> bool:
    return role is not None and ROLE_RANK[role] >= ROLE_RANK[NEEDED_ROLE[need]]


def get_project(session: Session, user: User, project_id: str, need: str = "read") -> Project:
    """The project if the user's role allows ``need`` (read, write, run or own).

    Non-members get "not found", so project ids do not leak to people outside a project.
    """
    project = session.get(Project, project_id)
    role = role_of(session, user, project) if project is not None else None
    if project is None or role is None:
        raise NotFound("no such project", code=ErrorCode.NO_PROJECT)
    # Remembered for the request so later service calls can ask for more (see delete_project).
    session.info.setdefault("project_roles", {})[project.id] = role
    require_role(session, project, need)
    return project


def require_role(session: Session, project: Project, need: str) -> None:
    """A further check on a project already fetched through ``get_project`` in this session."""
    role = session.info.get("project_roles", {}).get(project.id)
    if not allows(role, need):
        needed = NEEDED_ROLE[need]
        raise Forbidden(f"this needs the {needed} role on the project; you are a {role}",
                        code=ErrorCode.ROLE_REQUIRED, role=role, needed=needed)


def list_members(session: Session, project: Project) -> list[MemberPublic]:
    members = [MemberPublic(user=_owner_of(project).name, role="owner")]
    query = (select(ProjectMember, User).where(ProjectMember.project_id == project.id)
             .where(ProjectMember.user_id == User.id).order_by(User.name))
    members += [MemberPublic(user=u.name, role=m.role) for m, u in session.exec(query)]
    return members


def set_member(session: Session, actor: User, project: Project, user: User,
               role: str, notify: Notify) -> MemberPublic:
    if user.id == project.owner_id:
        raise Invalid("the project's creator is always an owner", code=ErrorCode.CREATOR)
    member = session.get(ProjectMember, (project.id, user.id))
    member = member or ProjectMember(project_id=project.id, user_id=user.id, role=role)
    member.role = role
    session.add(member)
    audit.record(session, "member.set", actor=actor.name, project=project.id, user=user.name,
                 role=role)
    session.commit()
    notify(AccessChange(user.id, f"your role on the project is now {role}", project.id))
    return MemberPublic(user=user.name, role=role)


def remove_member(session: Session, actor: User, project: Project, user: User,
                  notify: Notify) -> None:
    """Owners remove anyone; any member may leave on their own."""
    if actor.id != user.id and role_of(session, actor, project) != "owner":
        raise Forbidden("only an owner may remove other members", code=ErrorCode.ROLE_REQUIRED)
    member = session.get(ProjectMember, (project.id, user.id))
    if member is None:
        raise NotFound(f"{user.name} is not a member of this project", code=ErrorCode.NO_MEMBER)
    session.delete(member)
    audit.record(session, "member.remove", actor=actor.name, project=project.id, user=user.name)
    session.commit()
    notify(AccessChange(user.id, "you are no longer a member of the project", project.id))


def _ensure_unique(session: Session, owner_id: str, name: str, path: str | None = None) -> None:
    same_name = select(Project).where(Project.owner_id == owner_id, Project.name == name)
    if session.exec(same_name).first() is not None:
        raise Conflict(f"a project named {name!r} already exists", code=ErrorCode.DUPLICATE)
    if path and session.exec(select(Project).where(Project.path == path)).first() is not None:
        raise Conflict("that folder is already open as a project", code=ErrorCode.DUPLICATE)


def _existing_folder(raw: str) -> Path:
    path = Path(raw).expanduser()
    if not path.is_absolute():
        raise Invalid("the folder must be an absolute path", code=ErrorCode.BAD_PATH)
    path = path.resolve()
    if not path.is_dir():
        raise Invalid(f"no such folder: {path}", code=ErrorCode.BAD_PATH)
    return path


def create_project(
    session: Session, settings: Settings, user: User, body: ProjectCreate,
    clones: CloneJobs | None = None,
) -> Project:
    """Create a project from exactly one source: a template, an existing folder or a Git URL.

    A Git URL is checked here; the project is answered in state ``cloning`` and ``clones`` fills
    its folder (``cloning.py``)."""
    name = check_name(body.name)
    sources = [s for s in (body.path, body.git_url) if s]
    if len(sources) > 1 or (sources and body.template):
        raise Invalid("give one of template, path or git_url", code=ErrorCode.BAD_SOURCE)
    if settings.team and user.role != "admin":
        _refuse_server_paths(body)
    if body.path:
        folder = _existing_folder(body.path)
        _ensure_unique(session, user.id, name, str(folder))
        return _insert(session, Project(name=name, path=str(folder), owner_id=user.id))
    folder = _new_folder(session, settings, user, name)
    release(session)  # writing the files takes a while
    if body.git_url:
        return _start_clone(session, settings, user, body, Project(
            name=name, path=str(folder), owner_id=user.id, state="cloning"), clones)
    template = body.template or "empty"
    try:
        render_template(template, folder, name)
        if body.git:
            track_new(session, user, folder)
    except Exception:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    project = Project(name=name, path=str(folder), template=template, owner_id=user.id)
    return _insert(session, project)


def _new_folder(session: Session, settings: Settings, user: User, name: str) -> Path:
    """The folder a new project of the user's gets, which must not exist yet."""
    # In team mode each user gets a folder of their own, so two people may both have a "demo".
    base = settings.projects_dir / user.name if settings.team else settings.projects_dir
    folder = (base / name).resolve()
    _ensure_unique(session, user.id, name, str(folder))
    if folder.exists():
        raise Conflict(f"the folder {folder} already exists", code=ErrorCode.DUPLICATE)
    return folder


def create_from_zip(session: Session, settings: Settings, user: User, name: str,
                    upload: BinaryIO, git: bool = True) -> Project:
    """A playground project unpacked from an uploaded zip (``zipped.py``); with ``git`` a
    repository whose first commit holds the unpacked files."""
    name = check_name(name)
    folder = _new_folder(session, settings, user, name)
    release(session)  # unpacking takes a while
    folder.parent.mkdir(parents=True, exist_ok=True)
    zipped.unpack(upload, folder, settings.zip_max_entries, settings.zip_max_unpacked_bytes)
    if git:
        try:
            track_new(session, user, folder)
        except Exception:
            shutil.rmtree(folder, ignore_errors=True)
            raise
    return _insert(session, Project(name=name, path=str(folder), owner_id=user.id))


def _refuse_server_paths(body: ProjectCreate) -> None:
    """Members must not reach the server's own files (other users' folders, the database)."""
    if body.path:
        raise Forbidden("only an admin may open a folder on the server", code=ErrorCode.ADMIN_ONLY)


def _start_clone(session: Session, settings: Settings, user: User, body: ProjectCreate,
                 project: Project, clones: CloneJobs | None) -> Project:
    if clones is None:
        raise Invalid("cloning is not available here", code=ErrorCode.BAD_SOURCE)
    policy = policy_for(settings, user.role)
    url = check_url(body.git_url or "")
    policy.check(url)
    _insert(session, project)
    clones.start(project, CloneRequest(url, body.username, body.password, policy))
    return project


def _insert(session: Session, project: Project) -> Project:
    session.add(project)
    session.commit()
    session.refresh(project)
    release(session)  # the row loaded: the request holds no connection from here on
    return project


def rename_project(session: Session, project: Project, user: User, name: str) -> Project:
    name = check_name(name)
    if name != project.name:
        _ensure_unique(session, project.owner_id, name)
        project.name = name
        session.add(project)
        session.commit()
        session.refresh(project)
    return project


def delete_project(
    session: Session, settings: Settings, project: Project, delete_files: bool,
    clones: CloneJobs | None = None,
) -> None:
    """Forget a project; its files are removed only when asked and only if we created them.

    A project still cloning is cancelled: the transfer stops, its folder and row go."""
    require_role(session, project, "own")
    if project.state == "cloning" and clones is not None:
        project_id = project.id
        clones.cancel(project_id)
        session.expire_all()
        if session.get(Project, project_id) is None:
            return
        delete_files = True
    folder = Path(project.path)
    if delete_files:
        home = settings.projects_dir.resolve()
        inside = folder.resolve().parent in (home, home / _owner_of(project).name)
        if not inside:
            raise Invalid(
                "files of a folder opened from elsewhere are never deleted; remove it yourself",
                code=ErrorCode.NOT_OWNED_FOLDER,
            )
    project_id = project.id
    session.delete(project)
    session.commit()
    # what the file tree deleted goes with the project (server/files/trash.py)
    shutil.rmtree(settings.data_dir / "trash" / project_id, ignore_errors=True)
    if delete_files:
        shutil.rmtree(folder, ignore_errors=True)


def ui_state_of(project: Project, user: User) -> dict[str, Any]:
    """Each person's layout and open editors are their own, even in a shared project."""
    state: dict[str, Any] = (project.ui_state or {}).get(user.id, {})
    return state


def save_ui_state(
    session: Session, project: Project, user: User, state: dict[str, Any]
) -> dict[str, Any]:
    if len(json.dumps(state)) > UI_STATE_MAX_BYTES:
        raise Invalid("the UI state is larger than 256 KB", code=ErrorCode.TOO_LARGE)
    project.ui_state = {**(project.ui_state or {}), user.id: state}
    session.add(project)
    session.commit()
    return state
