"""Real input files for a run: ``.npy``/``.npz`` arrays as they are, and images and ``.wav``
audio turned into tensors by the model's spec (``device_bridge/runtime``). An image needs the
spec (its layout, colour order, resize, normalisation) and a shape for the input's dynamic
dims, from the run's ``input_shapes`` or the spec's default: neither is ever guessed.
"""

from pathlib import Path

import numpy as np

from device_bridge.runtime import preprocess
from device_bridge.runtime import spec as model_spec
from server.modeltools import tensors
from server.modeltools.errors import ToolFailed
from server.modeltools.shapes import Declared, Shapes

DECODED = preprocess.IMAGE_SUFFIXES + preprocess.AUDIO_SUFFIXES


def _spec_of(model: Path, name: str, path: Path) -> model_spec.InputSpec:
    try:
        found = model_spec.load(model)
    except model_spec.SpecError as exc:
        raise ToolFailed(f"model spec: {exc}", "bad_model_spec", where=exc.where) from None
    own = found.input(name) if found else None
    if own is None:
        raise ToolFailed(
            f"{path.name} is not an array: {model.name} needs a spec declaring input {name!r} "
            "(kind, layout, preprocessing) to turn it into a tensor", "model_spec_required", input=name)
    return own


def _shape(declared: Declared, own: model_spec.InputSpec, given: Shapes | None) -> list[int]:
    wanted = dict(given or {})
    default = own.run_shape()
    if declared.name not in wanted and default is not None:
        wanted[declared.name] = default
    own_shape = {declared.name: wanted[declared.name]} if declared.name in wanted else None
    return tensors.run_shapes([declared], own_shape)[declared.name]


def load(model: Path, given: dict[str, str] | None, declared: list[Declared],
         input_shapes: Shapes | None) -> dict[str, np.ndarray]:
    """Input name → array from the given files (arrays, images, audio)."""
    by_name = {d.name: d for d in declared}
    values = {}
    for name, raw in (given or {}).items():
        if name not in by_name:
            raise ToolFailed(f"the model has no input named {name!r}; it has {sorted(by_name)}")
        path = Path(raw)
        try:
            if path.suffix.lower() in DECODED:
                own = _spec_of(model, name, path)
                values[name] = preprocess.tensor(own, _shape(by_name[name], own, input_shapes), path)[0]
            else:
                values[name] = np.asarray(preprocess.array_value(path, name))
        except preprocess.InputFileError as exc:
            raise ToolFailed(f"{exc.path.name}: {exc.reason}", "bad_input_file", file=exc.path.name) from None
    return values
