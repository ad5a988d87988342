"""Hot exit, ``/api/projects/{pid}/backups``: the caller's unsaved edits of the project's files,
kept until saved or dropped, so a reload, a closed tab, a crashed browser or a restarted server
loses none (docs/ide.md, "Nothing lost on reload")."""

from fastapi import APIRouter, Response

from server.api.deps import CurrentUser, EditableProject, ProjectDep, SessionDep
from server.api.openapi import errors
from server.backups import service
from server.backups.models import BackupBody, BackupOut
from server.files.paths import relative, resolve

router = APIRouter(prefix="/api/projects/{pid}/backups", tags=["files"])


def _path(root: str, path: str) -> str:
    """The path as the file tree spells it; one that leaves the project is refused."""
    return relative(root, resolve(root, path))


@router.get("")
def list_backups(project: ProjectDep, user: CurrentUser, session: SessionDep) -> list[BackupOut]:
    """The caller's unsaved edits in this project, by path."""
    return service.list_backups(session, user.id, project.id)


@router.put("", status_code=204, responses=errors(403, 413))
def keep_backup(project: EditableProject, user: CurrentUser, session: SessionDep, path: str,
                body: BackupBody) -> Response:
    """Keeps (replaces) the caller's unsaved text of ``path``."""
    service.keep(session, user.id, project.id, _path(project.path, path), body)
    return Response(status_code=204)


@router.delete("", status_code=204, responses=errors(403))
def drop_backup(project: EditableProject, user: CurrentUser, session: SessionDep, path: str) -> Response:
    """Drops the caller's unsaved text of ``path`` (saved, or closed without saving)."""
    service.drop(session, user.id, project.id, _path(project.path, path))
    return Response(status_code=204)
