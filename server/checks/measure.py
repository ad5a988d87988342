"""Measure one budget's metrics with the model-tool workers (benchmark, compare) and the file
size, and hold each against its limit. Runs without a server: the workers are started directly.
A budget's latency and memory on a paired device are measured there, by its agent, through
``on_device`` (``server/checks/device.py``), which only a running workbench has."""

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server.checks.models import Budget, CheckResult, Metric
from server.core.errors import AppError
from server.core.leftovers import scratch_prefix
from server.files.paths import relative, resolve
from server.modeltools.formats import BadModelFile, check_model_file
from server.modeltools.runner import Limits, WorkerSpec, run_worker

MB = 1024 * 1024
WARMUP = 5
# metric → (budget field, whether the value must stay at or below the limit)
LIMITS: dict[Metric, tuple[str, bool]] = {
    "latency_ms": ("max_latency_ms", True),
    "memory_mb": ("max_memory_mb", True),
    "size_mb": ("max_size_mb", True),
    "cosine": ("min_cosine", False),
    "max_abs_error": ("max_abs_error", True),
}
Tool = Callable[[str, dict[str, Any]], dict[str, Any]]
# (budget, the model's path in the project) -> the metrics measured on the budget's device
DeviceRun = Callable[[Budget, str], dict[Metric, float]]


class MeasureFailed(Exception):
    """A metric could not be measured; the message says why."""


def worker_tool(limits: Limits) -> Tool:
    def run(tool: str, args: dict[str, Any]) -> dict[str, Any]:
        with tempfile.TemporaryDirectory(prefix=scratch_prefix("check")) as folder:
            outcome = run_worker(WorkerSpec(tool, args, Path(folder) / "run", limits))
        if outcome.status != "succeeded" or outcome.result is None:
            kind = f" ({outcome.code})" if outcome.code else ""
            raise MeasureFailed(f"{tool} {outcome.status}{kind}: {outcome.error or 'no result'}")
        return outcome.result

    return run


@dataclass(frozen=True)
class Tools:
    run: Tool
    on_device: DeviceRun | None = None


def _model_file(root: Path, rel: str, allowed: tuple[str, ...]) -> str:
    try:
        path = resolve(root, rel)
        check_model_file(path, allowed)
    except (BadModelFile, AppError) as exc:
        raise MeasureFailed(str(exc)) from None
    return str(path)


def _size(root: Path, budget: Budget, tools: Tools) -> dict[Metric, float]:
    return {"size_mb": Path(_model_file(root, budget.model, (".mnn",))).stat().st_size / MB}


def _speed(root: Path, budget: Budget, tools: Tools) -> dict[Metric, float]:
    model = _model_file(root, budget.model, (".mnn",))
    if budget.device != "local":
        if tools.on_device is None:
            raise MeasureFailed(f"latency and memory on {budget.device!r} are measured by its agent, "
                                "through a running workbench: mnnwb check --server URL")
        return tools.on_device(budget, relative(root, Path(model)))
    args = {
        "model": model,
        "threads": budget.threads,
        "loops": budget.loops,
        "warmup": WARMUP,
        "per_op": False,
        "input_shapes": budget.input_shapes,
    }
    bench = tools.run("benchmark", args)
    return {"latency_ms": bench["median_ms"], "memory_mb": bench["memory_mb"]}


def _accuracy(root: Path, budget: Budget, tools: Tools) -> dict[Metric, float]:
    model = _model_file(root, budget.model, (".mnn",))
    reference = _model_file(root, budget.reference or "", (".onnx", ".mnn"))
    args = {"model": model, "reference": reference, "per_layer": False, "threshold": 1e6,
            "input_shapes": budget.input_shapes}
    compared = tools.run("compare", args)
    return {"cosine": compared["cosine"], "max_abs_error": compared["max_abs_error"]}


GROUPS: tuple[tuple[frozenset[Metric], Callable[[Path, Budget, Tools], dict[Metric, float]]], ...] = (
    (frozenset({"size_mb"}), _size),
    (frozenset({"latency_ms", "memory_mb"}), _speed),
    (frozenset({"cosine", "max_abs_error"}), _accuracy),
)


def _result(budget: Budget, metric: Metric, value: float | None, detail: str | None) -> CheckResult:
    field, at_most = LIMITS[metric]
    limit = float(getattr(budget, field))
    passed = value is not None and (value <= limit if at_most else value >= limit)
    return CheckResult(
        model=budget.model,
        device=budget.device,
        metric=metric,
        limit=limit,
        value=value,
        passed=passed,
        detail=detail,
    )


def measure(
    root: Path,
    budget: Budget,
    limits: Limits | None = None,
    tool: Tool | None = None,
    on_device: DeviceRun | None = None,
) -> list[CheckResult]:
    """One result per limit the budget sets; a metric that cannot be measured fails with why."""
    wanted = {metric for metric, (field, _) in LIMITS.items() if getattr(budget, field) is not None}
    tools = Tools(tool or worker_tool(limits or Limits()), on_device)
    values: dict[Metric, float] = {}
    details: dict[Metric, str] = {}
    for metrics, measure_group in GROUPS:
        if wanted & metrics:
            try:
                values.update(measure_group(root, budget, tools))
            except MeasureFailed as exc:
                details.update(dict.fromkeys(metrics, str(exc)))
            for missing in metrics - values.keys() - details.keys():
                details[missing] = f"{budget.device!r} did not report {missing}"
    return [_result(budget, m, values.get(m), details.get(m)) for m in LIMITS if m in wanted]
