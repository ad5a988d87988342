"""Model tools: start a run (or a model diff), follow it, cancel it, list a project's runs, read a
run's log; MNN's backends on this server."""

from typing import Annotated, Any

from fastapi import APIRouter, Body
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel

from device_bridge.protocol import MnnBackend
from server.api.deps import (
    CurrentUser,
    ProjectDep,
    RunnerProject,
    SessionDep,
    SettingsDep,
    ToolsDep,
)
from server.checks.diff import start_diff
from server.checks.models import DiffRequest
from server.modeltools import backends, service
from server.modeltools.models import ToolLog, ToolRunPublic
from server.modeltools.schemas import ToolName

router = APIRouter(prefix="/api", tags=["tools"])




class MnnBackends(BaseModel):
    mnn: str | None  # MNN's version; null when the probe could not load MNN
    backends: list[MnnBackend]


@router.get("/tools/backends")
async def list_backends(_: CurrentUser) -> MnnBackends:
    """MNN's backends on this server: which its build runs, and why each other one is absent."""
    return MnnBackends.model_validate(await run_in_threadpool(backends.server_backends))


# Before the generic route: "diff" is a tool name too, but its body names two models.
@router.post("/projects/{pid}/tools/diff", status_code=202)
async def start_model_diff(
    body: DiffRequest, project: RunnerProject, session: SessionDep, settings: SettingsDep, tools: ToolsDep,
    user: CurrentUser,
) -> ToolRunPublic:
    return await run_in_threadpool(start_diff, settings.data_dir, tools, session, project, body, user.id)


@router.post("/projects/{pid}/tools/{tool}", status_code=202)
async def start_run(
    tool: ToolName,
    project: RunnerProject,
    session: SessionDep,
    tools: ToolsDep,
    user: CurrentUser,
    body: Annotated[dict[str, Any], Body()],
) -> ToolRunPublic:
    return await run_in_threadpool(tools.start, session, project, tool, body, user.id)


@router.get("/tool-runs/{rid}")
def get_run(rid: str, session: SessionDep, user: CurrentUser) -> ToolRunPublic:
    return service.to_public(service.get_run(session, user, rid))


@router.post("/tool-runs/{rid}/cancel")
def cancel_run(rid: str, session: SessionDep, user: CurrentUser, tools: ToolsDep) -> ToolRunPublic:
    return tools.cancel(session, service.get_run(session, user, rid, "run"))


@router.get("/projects/{pid}/tool-runs")
def list_runs(project: ProjectDep, session: SessionDep, limit: int = 100) -> list[ToolRunPublic]:
    return service.list_runs(session, project, min(max(limit, 1), 1000))


@router.get("/tool-runs/{rid}/log")
def read_log(rid: str, session: SessionDep, user: CurrentUser, offset: int = 0) -> ToolLog:
    return service.read_log(service.get_run(session, user, rid), offset)
