"""Training backends, the Ray cluster settings (team default and per project; secrets
write-only) and sweeps (docs/ray.md)."""

from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.concurrency import run_in_threadpool

from server.api.deps import (
    AdminUser,
    CurrentUser,
    EditableProject,
    GitUrlPolicy,
    JobsDep,
    ProjectDep,
    RunnerProject,
    SessionDep,
)
from server.core.error_codes import ErrorCode
from server.core.errors import Unavailable
from server.training.backends import HINTS, BackendInfo, list_backends
from server.training.ray.runner import BACKEND, RayRunner
from server.training.ray.settings import RaySettingsPublic, RaySettingsStore, RaySettingsUpdate
from server.training.sweeps import SweepCreate, SweepPublic, create_sweep, list_sweeps

router = APIRouter(prefix="/api", tags=["ray"])


def ray_settings(jobs: JobsDep) -> RaySettingsStore:
    runner = jobs.runners.get(BACKEND)
    if not isinstance(runner, RayRunner):
        raise Unavailable(HINTS[BACKEND], code=ErrorCode.BACKEND_UNAVAILABLE)
    return runner.store


RayStore = Annotated[RaySettingsStore, Depends(ray_settings)]


@router.get("/training/backends")
def get_backends(_: CurrentUser, jobs: JobsDep) -> list[BackendInfo]:
    return list_backends(jobs)


@router.get("/settings/ray")
def get_default_ray_settings(_: CurrentUser, store: RayStore) -> RaySettingsPublic:
    return store.public(None)


@router.put("/settings/ray")
def put_default_ray_settings(body: RaySettingsUpdate, _: AdminUser,
                             store: RayStore) -> RaySettingsPublic:
    return store.update(None, body)


@router.get("/projects/{pid}/ray-settings")
def get_project_ray_settings(project: ProjectDep, store: RayStore) -> RaySettingsPublic:
    return store.public(project.id)


@router.put("/projects/{pid}/ray-settings")
def put_project_ray_settings(body: RaySettingsUpdate, project: EditableProject,
                             store: RayStore) -> RaySettingsPublic:
    return store.update(project.id, body)


@router.get("/projects/{pid}/sweeps")
def get_sweeps(project: ProjectDep, session: SessionDep, jobs: JobsDep) -> list[SweepPublic]:
    return list_sweeps(jobs, session, project)


@router.post("/projects/{pid}/sweeps", status_code=201)
async def post_sweep(body: SweepCreate, project: RunnerProject, session: SessionDep,
                     jobs: JobsDep, policy: GitUrlPolicy, user: CurrentUser) -> SweepPublic:
    return await run_in_threadpool(create_sweep, jobs, session, project, body, policy, user.id)
