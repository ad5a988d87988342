"""The ``pipeline`` tool: a pipeline (``pipeline.toml``, docs/pipelines.md) run on input images
in a worker, like every model tool. Per input: each stage's items and time, the timeline, the
end-to-end time; over the inputs: each stage's median and p90. An input that cannot be read is
named with its reason and the others still run."""

from pathlib import Path
from typing import Any

import numpy as np

from device_bridge.runtime import pipeline, preprocess
from server.modeltools.errors import ToolFailed
from server.modeltools.progress import report
from server.modeltools.schemas import PipelineArgs

MAX_INPUTS = 1000


def _relative(path: Path, root: str | None) -> str:
    if root:
        try:
            return path.resolve().relative_to(Path(root)).as_posix()
        except ValueError:
            pass
    return path.name


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median and p90 of each stage's time and of the whole, over the inputs that ran."""
    if not runs:
        return {}

    def figures(values: list[float]) -> dict[str, float]:
        return {"median_ms": float(np.median(values)), "p90_ms": float(np.percentile(values, 90))}

    ids = [stage["id"] for stage in runs[0]["stages"]]
    return {
        "end_to_end": figures([run["ms"] for run in runs]),
        "stages": {
            i: figures([next(s["ms"] for s in run["stages"] if s["id"] == i) for run in runs]) for i in ids
        },
    }


def run(args: PipelineArgs) -> dict[str, Any]:
    try:
        runner = pipeline.Runner(pipeline.load(Path(args.model)))
    except pipeline.PipelineError as exc:
        raise ToolFailed(f"pipeline: {exc}", "bad_pipeline", where=exc.where) from None
    files = [
        p
        for p in preprocess.expand([Path(i) for i in args.inputs], MAX_INPUTS)
        if p.suffix.lower() in preprocess.IMAGE_SUFFIXES
    ]
    if not files:
        raise ToolFailed(
            "no image among the inputs (.jpg .jpeg .png .bmp, or a folder of them)", "bad_input_file"
        )
    runs, failed = [], []
    for index, path in enumerate(files):
        report(index / len(files), f"input {index + 1} of {len(files)}")
        try:
            result = runner.run(path)
        except preprocess.InputFileError as exc:
            failed.append({"input": _relative(path, args.root), "reason": exc.reason})
            continue
        except pipeline.PipelineError as exc:
            raise ToolFailed(f"{path.name}: {exc}", "pipeline_failed", where=exc.where) from None
        runs.append({"input": _relative(path, args.root), **result})
    if not runs:
        raise ToolFailed(
            f"no input could be read: {failed[0]['input']}: {failed[0]['reason']}", "bad_input_file"
        )
    return {"pipeline": runner.pipeline.name, "inputs": runs, "failed": failed, "summary": summary(runs)}
