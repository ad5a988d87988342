"""Projects and templates."""

from fastapi import APIRouter, Response
from fastapi.concurrency import run_in_threadpool

from server.api.deps import CurrentUser, EditableProject, ProjectDep, SessionDep, SettingsDep
from server.projects import service
from server.projects.models import (
    ProjectCreate,
    ProjectPublic,
    ProjectUpdate,
    TemplateInfo,
    UiState,
)
from server.projects.templates import list_templates

router = APIRouter(prefix="/api", tags=["projects"])


@router.get("/templates")
def templates() -> list[TemplateInfo]:
    return list_templates()


@router.get("/projects")
def list_projects(session: SessionDep, user: CurrentUser) -> list[ProjectPublic]:
    return [service.to_public(p, user) for p in service.list_projects(session, user)]


@router.post("/projects", status_code=201)
async def create_project(
    body: ProjectCreate, session: SessionDep, settings: SettingsDep, user: CurrentUser
) -> ProjectPublic:
    project = await run_in_threadpool(service.create_project, session, settings, user, body)
    return service.to_public(project, user)


@router.get("/projects/{pid}")
def get_project(project: ProjectDep, user: CurrentUser) -> ProjectPublic:
    return service.to_public(project, user)


@router.patch("/projects/{pid}")
def rename_project(
    body: ProjectUpdate, project: EditableProject, session: SessionDep, user: CurrentUser
) -> ProjectPublic:
    return service.to_public(service.rename_project(session, project, user, body.name), user)


@router.delete("/projects/{pid}", status_code=204)
def delete_project(
    project: EditableProject, session: SessionDep, settings: SettingsDep, delete_files: bool = False
) -> Response:
    service.delete_project(session, settings, project, delete_files)
    return Response(status_code=204)


@router.get("/projects/{pid}/ui-state")
def get_ui_state(project: ProjectDep, user: CurrentUser) -> UiState:
    return UiState(state=service.ui_state_of(project, user))


@router.put("/projects/{pid}/ui-state")
def put_ui_state(
    body: UiState, project: ProjectDep, session: SessionDep, user: CurrentUser
) -> UiState:
    return UiState(state=service.save_ui_state(session, project, user, body.state))
