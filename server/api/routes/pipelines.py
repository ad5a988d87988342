"""Pipelines (docs/pipelines.md): run one on input images, or evaluate it on a labelled set, as a
tool run; compare two runs."""

from typing import Annotated

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field

from server.api.deps import CurrentUser, ProjectDep, RunnerProject, SessionDep
from server.api.routes.tools import ToolsDep
from server.modeltools import pipeline_compare
from server.modeltools.models import ToolRunPublic
from server.modeltools.pipeline_compare import PipelineComparison

router = APIRouter(prefix="/api/projects/{pid}/pipelines", tags=["tools"])

PathStr = Annotated[str, Field(min_length=1, max_length=4096)]


class StageVariant(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: PathStr | None = Field(default=None, description="another .mnn file beside the pipeline")
    threads: int | None = Field(default=None, ge=1, le=64)
    backend: str | None = Field(default=None, max_length=32)
    precision: str | None = Field(default=None, max_length=32)


class PipelineRunRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pipeline: PathStr = Field(description="the pipeline's .toml file in the project")
    inputs: list[PathStr] = Field(min_length=1, max_length=64, description="images or folders of them")
    device_id: str | None = Field(default=None, min_length=1, max_length=64,
                                  description="run on this paired device, through its agent")
    variants: dict[Annotated[str, Field(max_length=128)], StageVariant] | None = Field(
        default=None, max_length=64, description="per model stage, how it runs instead")


class PipelineEvaluateRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pipeline: PathStr = Field(description="the pipeline's .toml file in the project")
    dataset: PathStr = Field(description="a labelled set: a folder of images and its labels file")
    metric: str | None = Field(default=None, min_length=1, max_length=64,
                               description="char_accuracy | accuracy; default: the one the last stage fits")
    device_id: str | None = Field(default=None, min_length=1, max_length=64,
                                  description="run on this paired device, through its agent")
    variants: dict[Annotated[str, Field(max_length=128)], StageVariant] | None = Field(
        default=None, max_length=64, description="per model stage, how it runs instead")


class PipelineCompareRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    a: str = Field(min_length=1, max_length=64, description="a finished pipeline run")
    b: str = Field(min_length=1, max_length=64, description="another, of the same pipeline")


@router.post("/run", status_code=202)
async def run_pipeline(
    body: PipelineRunRequest, project: RunnerProject, session: SessionDep, tools: ToolsDep, user: CurrentUser,
) -> ToolRunPublic:
    variants = {k: v.model_dump(exclude_none=True) for k, v in (body.variants or {}).items()} or None
    args = {"model": body.pipeline, "inputs": body.inputs, "device_id": body.device_id, "variants": variants}
    return await run_in_threadpool(tools.start, session, project, "pipeline", args, user.id)


@router.post("/evaluate", status_code=202)
async def evaluate_pipeline(
    body: PipelineEvaluateRequest, project: RunnerProject, session: SessionDep, tools: ToolsDep,
    user: CurrentUser,
) -> ToolRunPublic:
    variants = {k: v.model_dump(exclude_none=True) for k, v in (body.variants or {}).items()} or None
    args = {"model": body.pipeline, "inputs": [body.dataset], "dataset": body.dataset, "metric": body.metric,
            "device_id": body.device_id, "variants": variants}
    return await run_in_threadpool(tools.start, session, project, "pipeline", args, user.id)


@router.post("/compare")
def compare_runs(
    body: PipelineCompareRequest, project: ProjectDep, session: SessionDep, user: CurrentUser
) -> PipelineComparison:
    return pipeline_compare.compare_runs(session, user, project, body.a, body.b)
