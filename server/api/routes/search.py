"""Search and replace across a project's files."""

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse

from server.api.deps import EditableProject, HubDep, ProjectDep, WatchersDep
from server.api.openapi import errors
from server.search import service
from server.search.models import ReplaceApply, ReplacePreview, ReplaceRequest, ReplaceResult, SearchQuery

router = APIRouter(prefix="/api/projects/{pid}/search", tags=["search"])


@router.get("", response_class=StreamingResponse, responses=errors(503))
async def search(project: ProjectDep, query: Annotated[SearchQuery, Query()]) -> StreamingResponse:
    """NDJSON: one ``SearchMatch`` per line as they are found, then a ``SearchEnd``."""
    stream = await service.search(project.path, query)
    return StreamingResponse(stream, media_type="application/x-ndjson")


@router.post("/replace/preview", responses=errors(503))
async def replace_preview(body: ReplaceRequest, project: ProjectDep) -> ReplacePreview:
    return await service.preview_replace(project.path, body)


@router.post("/replace", responses=errors(503))
async def replace(
    body: ReplaceApply, project: EditableProject, hub: HubDep, watchers: WatchersDep,
) -> ReplaceResult:
    return await service.apply_replace(project.path, project.id, body, hub, watchers)
