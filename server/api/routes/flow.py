"""The flow of a project: data → train → convert → quantize → evaluate → budgets → deploy →
measure, each step's state and next action (docs/flow.md)."""

from fastapi import APIRouter

from server.api.deps import ProjectDep, SessionDep, SettingsDep
from server.flow.models import Flow
from server.flow.service import project_flow

router = APIRouter(prefix="/api", tags=["flow"])


@router.get("/projects/{pid}/flow")
def get_flow(project: ProjectDep, session: SessionDep, settings: SettingsDep) -> Flow:
    return project_flow(session, project, settings.data_dir)
