"""Pipelines (docs/pipelines.md): run one on input images, as a tool run."""

from typing import Annotated

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field

from server.api.deps import CurrentUser, RunnerProject, SessionDep
from server.api.routes.tools import ToolsDep
from server.modeltools.models import ToolRunPublic

router = APIRouter(prefix="/api/projects/{pid}/pipelines", tags=["tools"])

PathStr = Annotated[str, Field(min_length=1, max_length=4096)]


class PipelineRunRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pipeline: PathStr = Field(description="the pipeline's .toml file in the project")
    inputs: list[PathStr] = Field(min_length=1, max_length=64, description="images or folders of them")
    device_id: str | None = Field(default=None, min_length=1, max_length=64,
                                  description="run on this paired device, through its agent")
    variants: dict[Annotated[str, Field(max_length=128)], dict[str, str | int]] | None = Field(
        default=None, max_length=64, description="per model stage: model (another .mnn beside the "
        "pipeline), threads, backend, precision")


@router.post("/run", status_code=202)
async def run_pipeline(
    body: PipelineRunRequest, project: RunnerProject, session: SessionDep, tools: ToolsDep, user: CurrentUser,
) -> ToolRunPublic:
    args = {"model": body.pipeline, "inputs": body.inputs, "device_id": body.device_id,
            "variants": body.variants}
    return await run_in_threadpool(tools.start, session, project, "pipeline", args, user.id)
