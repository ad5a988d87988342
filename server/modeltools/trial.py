"""Try it: run a model on one real input file (a photo, a wav, an array) as its spec says, and
read the outputs as its spec says (top-5 labels, boxes on the photo, text, a mask).

A model without a spec, or whose inputs the file cannot feed, is refused by name: nothing is
fed that the user did not declare.
"""

import time
from pathlib import Path
from typing import Any

import numpy as np

from device_bridge.runtime import decode, preprocess
from device_bridge.runtime import spec as model_spec
from server.modeltools import tensors
from server.modeltools.errors import ToolFailed
from server.modeltools.progress import report
from server.modeltools.schemas import TryArgs

SPEC_REQUIRED = "model_spec_required"


def _spec(model: Path) -> model_spec.ModelSpec:
    try:
        found = model_spec.load(model)
    except model_spec.SpecError as exc:
        raise ToolFailed(f"model spec: {exc}", "bad_model_spec", where=exc.where) from None
    if found is None:
        raise ToolFailed(f"{model.name} has no spec: declare its input (kind, layout, preprocessing) "
                         f"in the model's Spec card first", SPEC_REQUIRED)
    return found


def _lists(model: Path, output: model_spec.OutputSpec | None) -> dict[str, list[str] | None]:
    """The output's labels and characters, inline or from the files its spec names."""
    if output is None:
        return {}
    try:
        labels = output.labels or (model_spec.read_list(model, output.labels_file)
                                   if output.labels_file else None)
        characters = list(output.characters) if output.characters else (
            model_spec.read_list(model, output.characters_file) if output.characters_file else None)
    except (OSError, model_spec.SpecError) as exc:
        raise ToolFailed(f"output {output.name!r}: its list cannot be read ({exc})",
                         "bad_model_spec") from None
    return {"labels": labels, "characters": characters}


def run(args: TryArgs) -> dict[str, Any]:
    model = Path(args.model)
    spec = _spec(model)
    loaded = tensors.load(model, {"numThread": args.threads})
    declared = tensors.declared(loaded)
    if len(declared) != 1:
        raise ToolFailed(f"Try it feeds one input from one file; {model.name} has {len(declared)} "
                         f"({', '.join(d.name for d in declared)})", "too_many_inputs")
    name = declared[0].name
    own = spec.input(name)
    if own is None:
        raise ToolFailed(f"the spec does not declare input {name!r}", "bad_model_spec", where="inputs")
    given = dict(args.input_shapes or {})
    default = own.run_shape()
    if name not in given and default is not None:
        given[name] = default  # the spec's declared default; the result records the shape
    sizes = tensors.run_shapes(declared, given)
    report(0.2, "preprocessing")
    try:
        value, frame = preprocess.tensor(own, sizes[name], Path(args.input))
    except preprocess.InputFileError as exc:
        raise ToolFailed(f"{exc.path.name}: {exc.reason}", "bad_input_file", file=exc.path.name) from None
    tensors.feed(loaded, {name: value})
    report(0.5, "running")
    started = time.perf_counter()
    loaded.net.runSession(loaded.session)
    elapsed = (time.perf_counter() - started) * 1000
    outputs: dict[str, Any] = {}
    for out_name, tensor in sorted(loaded.outputs().items()):
        out_spec = spec.output(out_name)
        array = tensors.read(tensor)
        try:
            read = decode.decode(out_spec, array, frame=frame, **_lists(model, out_spec))
        except decode.DecodeError as exc:
            read = {"kind": "error", "error": str(exc), **decode.tensor_summary(array)}
        outputs[out_name] = {**read, "shape": list(array.shape)}
    return {
        "input": args.input,
        "input_shapes": sizes,
        "input_file": {"width": frame.width, "height": frame.height} if frame else None,
        "input_range": [float(np.min(value)), float(np.max(value))],
        "latency_ms": elapsed,
        "outputs": outputs,
    }
