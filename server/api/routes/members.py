"""Project members: who may read (viewer), change and run (editor) or manage (owner) a project."""

from fastapi import APIRouter, Response

from server.api.deps import AccessChanges, CurrentUser, OwnedProject, ProjectDep, SessionDep
from server.projects import service
from server.projects.models import MemberPublic, MemberUpdate
from server.users.service import find_user

router = APIRouter(prefix="/api", tags=["members"])


@router.get("/projects/{pid}/members")
def list_members(project: ProjectDep, session: SessionDep) -> list[MemberPublic]:
    return service.list_members(session, project)


@router.put("/projects/{pid}/members/{name}")
def set_member(name: str, body: MemberUpdate, project: OwnedProject, session: SessionDep,
               user: CurrentUser, notify: AccessChanges) -> MemberPublic:
    return service.set_member(session, user, project, find_user(session, name), body.role, notify)


@router.delete("/projects/{pid}/members/{name}", status_code=204)
def remove_member(name: str, project: ProjectDep, session: SessionDep,
                  user: CurrentUser, notify: AccessChanges) -> Response:
    service.remove_member(session, user, project, find_user(session, name), notify)
    return Response(status_code=204)
