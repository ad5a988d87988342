"""The ``pipeline`` tool: a pipeline (``pipeline.toml``, docs/pipelines.md) run on input images
in a worker, like every model tool (``device_bridge/runtime/pipeline_batch.py``, which a device
runs as well); with a labelled set, scored against it (``pipeline_eval.py``)."""

from pathlib import Path
from typing import Any

from device_bridge.runtime import pipeline_batch, pipeline_eval
from device_bridge.runtime.pipeline_spec import PipelineError
from server.modeltools.errors import ToolFailed
from server.modeltools.progress import report
from server.modeltools.schemas import PipelineArgs


def run(args: PipelineArgs) -> dict[str, Any]:
    try:
        result = pipeline_batch.run_batch(
            Path(args.model), [Path(i) for i in args.inputs], Path(args.root) if args.root else None,
            args.variants, report,
        )
    except pipeline_batch.InputFailed as exc:
        raise ToolFailed(str(exc), "pipeline_failed", where=exc.where) from None
    except PipelineError as exc:
        raise ToolFailed(f"pipeline: {exc}", "bad_pipeline", where=exc.where) from None
    except pipeline_batch.NoImage as exc:
        raise ToolFailed(str(exc), "bad_input_file") from None
    if args.evaluation is not None:
        result["evaluation"] = pipeline_eval.score(result, args.evaluation)
    return result
