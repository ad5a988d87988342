"""Lineage: what made a project file (tool runs, jobs, commits) and what was measured on it."""

from typing import Annotated

from fastapi import APIRouter, Query

from server.api.deps import ProjectDep, SessionDep
from server.lineage.models import LineageGraph
from server.lineage.service import lineage_of

router = APIRouter(prefix="/api", tags=["lineage"])


@router.get("/projects/{pid}/lineage")
def get_lineage(
    project: ProjectDep, session: SessionDep, path: Annotated[str, Query(min_length=1, max_length=4096)]
) -> LineageGraph:
    return lineage_of(session, project, path)
