"""Pipeline budgets: the ``[[pipeline_budget]]`` tables of ``mnnwb.toml`` (docs/checks.md).

```toml
[[pipeline_budget]]
pipeline = "ocr/pipeline.toml"
inputs = ["photos"]
max_latency_ms = 120            # end to end: the median over the inputs (each run `loops` times)
stages = { detect = 30, read = 80 }   # each stage's median
variants = { read = { model = "rec-int8.mnn" } }
device = "local"                # or a paired device's name
```

The pipeline runs as the ``pipeline`` tool does (a worker here, the agent on a device) and each
limit gives one result: the end-to-end one with no ``stage``, a stage's with its id.
"""

from pathlib import Path
from typing import Annotated, Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from server.checks.measure import MeasureFailed, Tool
from server.checks.models import Budget, CheckResult, Metric
from server.core.errors import AppError
from server.files.paths import resolve

PathStr = Annotated[str, Field(min_length=1, max_length=4096)]
Limit = Annotated[float, Field(gt=0)]
MAX_RUNS = 64  # inputs × loops: what one pipeline run takes


@runtime_checkable
class DeviceSide(Protocol):
    """A running workbench's paired devices for one project (``server/checks/device.py``): a
    model budget's latency and memory, and a pipeline budget's run, measured there."""

    def __call__(self, budget: Budget, model: str) -> dict[Metric, float]: ...

    def pipeline(self, budget: "PipelineBudget") -> dict[str, Any]: ...


class PipelineBudget(BaseModel):
    """One ``[[pipeline_budget]]`` table; at least one limit."""

    model_config = ConfigDict(extra="forbid")

    pipeline: PathStr
    inputs: list[PathStr] = Field(min_length=1, max_length=64)
    max_latency_ms: Limit | None = None
    stages: dict[Annotated[str, Field(max_length=128)], Limit] = Field(default_factory=dict, max_length=64)
    variants: dict[str, dict[str, str | int]] | None = None
    loops: int = Field(default=3, ge=1, le=100, description="each input is run this many times")
    device: str = Field(default="local", min_length=1, max_length=128)

    @model_validator(mode="after")
    def _some_limit(self) -> "PipelineBudget":
        if self.max_latency_ms is None and not self.stages:
            raise ValueError(f"{self.pipeline}: set max_latency_ms or stages")
        if len(self.inputs) * self.loops > MAX_RUNS:
            raise ValueError(f"{self.pipeline}: inputs × loops is at most {MAX_RUNS} (a folder counts once)")
        return self


def files_read(root: Path, budget: PipelineBudget) -> set[str]:
    """The project files a budget's result depends on: the pipeline, its models and the inputs
    given as files (a folder's images are not followed)."""
    from device_bridge.runtime import pipeline

    found = {budget.pipeline, *(i for i in budget.inputs if (root / i).is_file())}
    try:
        parsed = pipeline.with_variants(pipeline.load(resolve(root, budget.pipeline)), budget.variants or {})
    except (pipeline.PipelineError, AppError, OSError, UnicodeDecodeError):
        return found
    folder = Path(budget.pipeline).parent
    models = {(folder / s.model.relative_to(parsed.folder)).as_posix() for s in parsed.stages if s.model}
    return found | models


def _summary(root: Path, budget: PipelineBudget, run: Tool, on_device: DeviceSide | None) -> dict:
    if budget.device != "local":
        if on_device is None:
            raise MeasureFailed(f"a pipeline on {budget.device!r} is run by its agent, through a running "
                                "workbench: mnnwb check --server URL")
        return dict(on_device.pipeline(budget)["summary"])
    try:
        inputs = [str(resolve(root, i)) for i in budget.inputs] * budget.loops
        args = {"model": str(resolve(root, budget.pipeline)), "inputs": inputs, "root": str(root),
                "variants": budget.variants, "output": None}
    except AppError as exc:
        raise MeasureFailed(exc.detail) from None
    return run("pipeline", args)["summary"]


def _result(budget: PipelineBudget, stage: str | None, limit: float, figures: dict | None,
            detail: str | None) -> CheckResult:
    value = figures["median_ms"] if figures else None
    if figures is None and detail is None:
        detail = f"the pipeline has no stage {stage!r}"
    return CheckResult(model=budget.pipeline, stage=stage, device=budget.device, metric="latency_ms",
                       limit=limit, value=value, passed=value is not None and value <= limit, detail=detail)


def measure_pipeline(root: Path, budget: PipelineBudget, run: Tool,
                     on_device: DeviceSide | None = None) -> list[CheckResult]:
    """One result per limit; a pipeline that cannot run fails every one with why."""
    try:
        summary, detail = _summary(root, budget, run, on_device), None
    except MeasureFailed as exc:
        summary, detail = {"stages": {}}, str(exc)
    results = []
    if budget.max_latency_ms is not None:
        results.append(_result(budget, None, budget.max_latency_ms, summary.get("end_to_end"), detail))
    for stage, limit in budget.stages.items():
        results.append(_result(budget, stage, limit, summary["stages"].get(stage), detail))
    return results
