"""A project's own Python step in a pipeline (``step = "module:function"``,
docs/pipelines.md#your-own-steps): ``module.py`` beside the pipeline, imported from its own
file (so a debugger's breakpoints in it hit), its ``function(item, params)`` called once per
item of the stage's input and giving that item's result."""

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from device_bridge.runtime.pipeline_audio import Audio
from device_bridge.runtime.pipeline_spec import PipelineError, Stage
from device_bridge.runtime.pipeline_steps import Item, ModelItem
from device_bridge.runtime.steps import Boxes, Picture, StepError

ITEM_TYPES = (Picture, Audio, Boxes, ModelItem)


def load(stage: Stage, folder: Path) -> Callable[[Any, dict[str, Any]], Any]:
    """The stage's function; ``PipelineError`` at ``stage 'id'.step`` when its file is missing,
    does not import, or has no such function."""
    assert stage.step is not None
    module, _, name = stage.step.partition(":")
    where = f"stage {stage.id!r}.step"
    path = folder / f"{module}.py"
    if not path.is_file():
        raise PipelineError(where, f"{module}.py is not beside the pipeline")
    spec = importlib.util.spec_from_file_location(f"mnnwb_step_{module}", path)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded
    try:
        spec.loader.exec_module(loaded)
    except Exception as exc:  # the project's own code: any error is named, not raised through
        raise PipelineError(where, f"{module}.py does not import: {type(exc).__name__}: {exc}") from None
    function = getattr(loaded, name, None)
    if not callable(function):
        raise PipelineError(where, f"{module}.py has no function {name!r}")
    return function


def run(stage: Stage, function: Callable[[Any, dict[str, Any]], Any], items: list[Item]) -> list[Item]:
    """The function on each item; what it gives must be an item (a Picture, Boxes, …)."""
    out: list[Item] = []
    for item in items:
        try:
            given = function(item, dict(stage.params))
        except Exception as exc:
            raise StepError(f"{stage.step} raised {type(exc).__name__}: {exc}") from None
        if not isinstance(given, ITEM_TYPES):
            kind = type(given).__name__
            raise StepError(f"{stage.step} gave {kind}, not a Picture, Audio, Boxes or model item")
        out.append(given)
    return out
