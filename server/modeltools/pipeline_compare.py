"""Two finished ``pipeline`` tool runs compared (``device_bridge/runtime/pipeline_compare.py``):
the same pipeline, on the same inputs, in two configurations (variants, devices)."""

from pydantic import BaseModel
from sqlmodel import Session

from device_bridge.runtime import pipeline_compare
from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.modeltools.models import ToolRun
from server.modeltools.service import get_run
from server.projects.models import Project
from server.users.models import User


class StageFigures(BaseModel):
    median_ms: float
    p90_ms: float
    memory_mb: float | None = None  # a model stage's session, the sessions together end to end


class EndToEndFigures(StageFigures):
    peak_rss_mb: float | None = None  # the process's peak resident memory


class Divergence(BaseModel):
    input: str
    reason: str


class FirstDivergence(Divergence):
    stage: str


class StageComparison(BaseModel):
    id: str
    a: StageFigures | None
    b: StageFigures | None
    diverged: list[Divergence]


class EndToEnd(BaseModel):
    a: EndToEndFigures | None
    b: EndToEndFigures | None


class PipelineComparison(BaseModel):
    inputs: list[str]
    unmatched: list[str]
    end_to_end: EndToEnd
    stages: list[StageComparison]
    first_divergence: FirstDivergence | None


def _finished(session: Session, user: User, project: Project, run_id: str, side: str) -> ToolRun:
    run = get_run(session, user, run_id)
    if run.project_id != project.id or run.tool != "pipeline":
        raise Invalid(f"{side}: {run_id} is not a pipeline run of this project",
                      code=ErrorCode.BAD_COMPARISON)
    if run.status != "succeeded" or not run.result:
        raise Invalid(f"{side}: the run {run.status}", code=ErrorCode.BAD_COMPARISON)
    return run


def compare_runs(session: Session, user: User, project: Project, a: str, b: str) -> PipelineComparison:
    first, second = (_finished(session, user, project, rid, side) for rid, side in ((a, "a"), (b, "b")))
    if first.args.get("model") != second.args.get("model"):
        raise Invalid(f"the runs are of two pipelines: {first.args.get('model')} and "
                      f"{second.args.get('model')}", code=ErrorCode.BAD_COMPARISON)
    assert first.result is not None and second.result is not None
    return PipelineComparison.model_validate(pipeline_compare.compare(first.result, second.result))
