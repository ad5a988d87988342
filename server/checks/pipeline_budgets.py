"""Pipeline budgets: the ``[[pipeline_budget]]`` tables of ``mnnwb.toml`` (docs/checks.md).

```toml
[[pipeline_budget]]
pipeline = "ocr/pipeline.toml"
inputs = ["photos"]
max_latency_ms = 120            # end to end: the median over the inputs (each run `loops` times)
stages = { detect = 30, read = 80 }   # each stage's median
variants = { read = { model = "rec-int8.mnn" } }
device = "local"                # or a paired device's name
min_accuracy = 0.95             # evaluated on a labelled set (docs/pipelines.md#evaluating-one)
dataset = "ocr/labelled"
metric = "char_accuracy"        # or "accuracy" (top-1): the one the last stage fits
```

The pipeline runs as the ``pipeline`` tool does (a worker here, the agent on a device) and each
limit gives one result: the end-to-end one with no ``stage``, a stage's with its id, the
accuracy with its metric.
"""

from pathlib import Path
from typing import Annotated, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

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
    inputs: list[PathStr] = Field(default_factory=list, max_length=64)
    max_latency_ms: Limit | None = None
    stages: dict[Annotated[str, Field(max_length=128)], Limit] = Field(default_factory=dict, max_length=64)
    variants: dict[str, dict[str, str | int]] | None = None
    loops: int = Field(default=3, ge=1, le=100, description="each input is run this many times")
    device: str = Field(default="local", min_length=1, max_length=128)
    min_accuracy: float | None = Field(default=None, gt=0, le=1)
    dataset: PathStr | None = Field(default=None, description="the labelled set min_accuracy is measured on")
    metric: Literal["char_accuracy", "accuracy"] | None = None

    @field_validator("inputs")
    @classmethod
    def _some_inputs(cls, inputs: list[str]) -> list[str]:
        if not inputs:
            raise ValueError("at least one, or leave it out for an accuracy limit alone")
        return inputs

    @model_validator(mode="after")
    def _some_limit(self) -> "PipelineBudget":
        latency = self.max_latency_ms is not None or bool(self.stages)
        if not latency and self.min_accuracy is None:
            raise ValueError(f"{self.pipeline}: set max_latency_ms or stages (or min_accuracy on a dataset)")
        if latency and not self.inputs:
            raise ValueError(f"{self.pipeline}: inputs: a latency limit needs inputs to run on")
        accuracy = (self.min_accuracy, self.dataset, self.metric)
        if any(v is not None for v in accuracy) and any(v is None for v in accuracy):
            raise ValueError(f"{self.pipeline}: min_accuracy, dataset and metric go together")
        if self.min_accuracy is not None and self.device != "local":
            raise ValueError(f"{self.pipeline}: min_accuracy is measured here (device = 'local')")
        if len(self.inputs) * self.loops > MAX_RUNS:
            raise ValueError(f"{self.pipeline}: inputs × loops is at most {MAX_RUNS} (a folder counts once)")
        return self


def files_read(root: Path, budget: PipelineBudget) -> set[str]:
    """The project files a budget's result depends on: the pipeline, its models and the inputs
    given as files (a folder's images are not followed)."""
    from device_bridge.runtime import pipeline

    found = {budget.pipeline, *(i for i in budget.inputs if (root / i).is_file())}
    if budget.dataset is not None and (root / budget.dataset).is_dir():
        found |= {(Path(budget.dataset) / p.name).as_posix() for p in (root / budget.dataset).iterdir()
                  if p.is_file()}
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


def _evaluation(root: Path, budget: PipelineBudget, run: Tool) -> dict:
    from device_bridge.runtime import pipeline, pipeline_eval

    assert budget.dataset is not None
    try:
        path = resolve(root, budget.pipeline)
        folder = resolve(root, budget.dataset)
        parsed = pipeline.with_variants(pipeline.load(path), budget.variants or {})
        evaluation = pipeline_eval.evaluation(parsed, folder, root, budget.metric)
    except (pipeline.PipelineError, pipeline_eval.EvalError, OSError, UnicodeDecodeError) as exc:
        raise MeasureFailed(f"{budget.dataset}: {exc}") from None
    except AppError as exc:
        raise MeasureFailed(exc.detail) from None
    args = {"model": str(path), "inputs": [str(root.resolve() / i) for i in evaluation["labels"]],
            "root": str(root), "variants": budget.variants, "output": None, "evaluation": evaluation}
    return dict(run("pipeline", args)["evaluation"])


def measure_accuracy(root: Path, budget: PipelineBudget, run: Tool) -> CheckResult:
    """The pipeline evaluated on the budget's labelled set, against ``min_accuracy``."""
    assert budget.min_accuracy is not None and budget.metric is not None
    try:
        evaluation, detail = _evaluation(root, budget, run), None
    except MeasureFailed as exc:
        evaluation, detail = None, str(exc)
    value = evaluation["value"] if evaluation else None
    if evaluation and evaluation["exact_match"] < 1:
        wrong = sum(not s["exact"] for s in evaluation["samples"])
        detail = f"{wrong} of {evaluation['count']} samples not exact"
    return CheckResult(model=budget.pipeline, stage=None, device=budget.device,
                       metric=budget.metric, limit=budget.min_accuracy, value=value,
                       passed=value is not None and value >= budget.min_accuracy, detail=detail)


def measure_pipeline(root: Path, budget: PipelineBudget, run: Tool,
                     on_device: DeviceSide | None = None) -> list[CheckResult]:
    """One result per limit (the accuracy first); a pipeline that cannot run fails every one with why."""
    results = [measure_accuracy(root, budget, run)] if budget.min_accuracy is not None else []
    if budget.max_latency_ms is None and not budget.stages:
        return results
    try:
        summary, detail = _summary(root, budget, run, on_device), None
    except MeasureFailed as exc:
        summary, detail = {"stages": {}}, str(exc)
    if budget.max_latency_ms is not None:
        results.append(_result(budget, None, budget.max_latency_ms, summary.get("end_to_end"), detail))
    for stage, limit in budget.stages.items():
        results.append(_result(budget, stage, limit, summary["stages"].get(stage), detail))
    return results
