"""Projects and templates."""

import tempfile
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool

from server.api.deps import (
    ClonesDep,
    CurrentUser,
    EditableProject,
    ProjectDep,
    SessionDep,
    SettingsDep,
)
from server.projects import service, zipped
from server.projects.models import (
    ProjectCreate,
    ProjectPublic,
    ProjectUpdate,
    TemplateInfo,
    UiState,
)
from server.projects.templates import list_templates

router = APIRouter(prefix="/api", tags=["projects"])


CLONING: dict[int | str, dict[str, Any]] = {
    202: {"model": ProjectPublic, "description": "A clone started: the project is `cloning`"}}


@router.get("/templates")
def templates() -> list[TemplateInfo]:
    return list_templates()


@router.get("/projects")
def list_projects(session: SessionDep, user: CurrentUser) -> list[ProjectPublic]:
    return [service.to_public(p, user) for p in service.list_projects(session, user)]


@router.post("/projects", status_code=201, responses=CLONING)
async def create_project(
    body: ProjectCreate, session: SessionDep, settings: SettingsDep, user: CurrentUser,
    clones: ClonesDep, response: Response,
) -> ProjectPublic:
    project = await run_in_threadpool(service.create_project, session, settings, user, body, clones)
    if project.state == "cloning":
        response.status_code = 202
    return service.to_public(project, user)


@router.post("/projects/zip", status_code=201)
async def create_project_from_zip(
    request: Request, name: str, session: SessionDep, settings: SettingsDep, user: CurrentUser,
    git: bool = True,
) -> ProjectPublic:
    """A playground project from the zip in the body (``application/zip``); hostile zips are
    refused by name with nothing written (docs/playground.md, "From a zip"). ``git=false``: no
    repository (docs/git.md, "New projects")."""
    with tempfile.TemporaryFile(dir=settings.data_dir) as upload:
        await zipped.receive(request.stream(), upload, settings.upload_max_bytes)
        project = await run_in_threadpool(
            service.create_from_zip, session, settings, user, name, upload, git)
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
    project: EditableProject, session: SessionDep, settings: SettingsDep, clones: ClonesDep,
    delete_files: bool = False,
) -> Response:
    service.delete_project(session, settings, project, delete_files, clones)
    return Response(status_code=204)


@router.get("/projects/{pid}/ui-state")
def get_ui_state(project: ProjectDep, user: CurrentUser) -> UiState:
    return UiState(state=service.ui_state_of(project, user))


@router.put("/projects/{pid}/ui-state")
def put_ui_state(
    body: UiState, project: ProjectDep, session: SessionDep, user: CurrentUser
) -> UiState:
    return UiState(state=service.save_ui_state(session, project, user, body.state))
