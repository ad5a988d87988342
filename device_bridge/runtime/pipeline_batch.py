"""A pipeline on many inputs, as the ``pipeline`` tool run and a device's ``pipeline.start``
give it (docs/pipelines.md): per input each stage's items and time, the timeline and the
end-to-end time; over the inputs each stage's median and p90. An input that cannot be read is
named with its reason and the others still run. No server imports: the device runs it too."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from device_bridge.runtime import pipeline, preprocess
from device_bridge.runtime.pipeline_spec import PipelineError, with_variants

MAX_INPUTS = 1000


class NoImage(ValueError):
    """No input could run: none is an image, or none could be read."""


class InputFailed(PipelineError):
    """A stage failed on one input (the pipeline itself opened)."""


def _relative(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return path.name


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median and p90 of each stage's time and of the whole, and the most memory each took
    (``memory_mb``, None for a step; end to end also the process's ``peak_rss_mb``), over the
    inputs that ran."""
    if not runs:
        return {}

    def figures(values: list[float]) -> dict[str, float]:
        return {"median_ms": float(np.median(values)), "p90_ms": float(np.percentile(values, 90))}

    def most(values: list[float | None]) -> float | None:
        known = [v for v in values if v is not None]
        return max(known) if known else None

    ids = [stage["id"] for stage in runs[0]["stages"]]
    stages = {i: [next(s for s in run["stages"] if s["id"] == i) for run in runs] for i in ids}
    return {
        "end_to_end": {
            **figures([run["ms"] for run in runs]),
            "memory_mb": most([run.get("memory_mb") for run in runs]),
            "peak_rss_mb": most([run.get("peak_rss_mb") for run in runs]),
        },
        "stages": {
            i: {**figures([s["ms"] for s in found]), "memory_mb": most([s.get("memory_mb") for s in found])}
            for i, found in stages.items()
        },
    }


def _stopped(runner: pipeline.Runner, runs: list[dict[str, Any]], failed: list[dict[str, Any]],
             given: int) -> dict[str, Any]:
    """A run stopped early: the inputs done (run or failed) of those given."""
    return {"pipeline": runner.pipeline.name, "inputs": runs, "failed": failed, "summary": summary(runs),
            "stopped": {"done": len(runs) + len(failed), "given": given}}


def run_batch(
    file: Path,
    inputs: list[Path],
    root: Path | None = None,
    variants: dict[str, dict[str, Any]] | None = None,
    progress: Callable[[float, str], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """``{pipeline, inputs, failed, summary}``; inputs are named relative to ``root``. Raises
    ``PipelineError`` for a pipeline (or variant) that cannot run, ``InputFailed`` for a stage
    that fails on an input, ``NoImage``. ``stop()`` true (asked between inputs and between the
    stages of one) ends the run early: what was done, and ``stopped: {done, given}``."""
    runner = pipeline.Runner(with_variants(pipeline.load(file), variants or {}))
    if stop is not None:
        runner.should_stop = stop
    suffixes = preprocess.IMAGE_SUFFIXES + preprocess.AUDIO_SUFFIXES
    files = [p for p in preprocess.expand(inputs, MAX_INPUTS) if p.suffix.lower() in suffixes]
    if not files:
        raise NoImage("no image or audio among the inputs (.jpg .jpeg .png .bmp .wav, or a folder of them)")
    runs: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    for index, path in enumerate(files):
        if stop is not None and stop():
            return _stopped(runner, runs, failed, len(files))
        if progress is not None:
            progress(index / len(files), f"input {index + 1} of {len(files)}")
        try:
            result = runner.run(path)
        except pipeline.Stopped:
            return _stopped(runner, runs, failed, len(files))
        except preprocess.InputFileError as exc:
            failed.append({"input": _relative(path, root), "reason": exc.reason})
            continue
        except PipelineError as exc:
            raise InputFailed(exc.where, f"{path.name}: {exc.reason}") from None
        runs.append({"input": _relative(path, root), **result})
    if not runs:
        raise NoImage(f"no input could be read: {failed[0]['input']}: {failed[0]['reason']}")
    return {"pipeline": runner.pipeline.name, "inputs": runs, "failed": failed, "summary": summary(runs)}
