"""What a run on the device feeds a model's inputs: the shape each runs at and the values.

A shape is the one given (``input_shapes``), else the shape of the ``.npy`` given for the input,
else the default of the model's spec (``<model>.model.toml``). A dynamic dim none of them fixes
is never guessed: the run is refused with ``input_shape_required`` naming the input and the dim,
as the workbench's own tools do (docs/model-tools.md, "Input shapes"). A given shape that
contradicts a fixed dim is refused with ``input_shape_mismatch``.

Values come from a file preprocessed by the spec (an image, a ``.wav``, a ``.npy``), a
constant, or seeded random numbers; the run's result names which.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from device_bridge.runtime import preprocess
from device_bridge.runtime.spec import InputSpec, ModelSpec

REQUIRED = "input_shape_required"
MISMATCH = "input_shape_mismatch"
SPEC_REQUIRED = "spec_required"
BAD_INPUT = "input_file_unusable"


class FeedError(ValueError):
    """An input the run cannot feed; ``code`` names the kind, ``input`` the model input."""

    def __init__(self, code: str, message: str, input: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.input = code, input


@dataclass(frozen=True)
class Feed:
    value: np.ndarray
    source: str  # "photos/cat.jpg", "random", "fill -1.0"


def _shown(dims: list[int]) -> str:
    return "[" + ", ".join(str(d) if d > 0 else "?" for d in dims) + "]"


def _checked(name: str, declared: list[int], shape: list[int], where: str) -> list[int]:
    if len(shape) != len(declared):
        raise FeedError(MISMATCH, f"input {name!r} has {len(declared)} dims (declared "
                        f"{_shown(declared)}); {where} gives {len(shape)}", name)
    for index, (fixed, got) in enumerate(zip(declared, shape, strict=True)):
        if got <= 0:
            raise FeedError(REQUIRED, f"input {name!r} dim {index} is given as {got} by {where}", name)
        if fixed > 0 and got != fixed:
            raise FeedError(MISMATCH, f"input {name!r} has a fixed dim {index} of {fixed}; "
                            f"{where} gives {got}", name)
    return [int(d) for d in shape]


def shape_for(name: str, declared: list[int], given: list[int] | None, spec: InputSpec | None,
              array: np.ndarray | None = None) -> list[int]:
    """The shape input ``name`` runs at (see the module's docstring for the order)."""
    if given is not None:
        return _checked(name, declared, list(given), "input_shapes")
    if array is not None:
        return _checked(name, declared, list(array.shape), "its .npy file")
    open_dims = [i for i, d in enumerate(declared) if d <= 0]
    if not open_dims:
        return list(declared)
    default = spec.run_shape() if spec is not None else None
    if default is not None:
        return _checked(name, declared, default, "the model's spec")
    raise FeedError(REQUIRED, f"input {name!r} has a dynamic dim {open_dims[0]} (declared "
                    f"{_shown(declared)}): give its shape in input_shapes, or a default_shape in "
                    "the model's spec", name)


def _array(path: Path, name: str) -> np.ndarray:
    try:
        return preprocess.array_value(path, name)
    except preprocess.InputFileError as exc:
        raise FeedError(BAD_INPUT, str(exc), name) from None


def feed(name: str, declared: list[int], source: dict[str, Any], given: list[int] | None,
         spec: ModelSpec | None, root: Path, rng: np.random.Generator) -> Feed:
    """One input's value from ``source`` (``{"file": …}``, ``{"npy": …}``, ``{"fill": n}`` or
    random) at the shape the run takes; file paths are relative to ``root``."""
    declared_spec = spec.input(name) if spec is not None else None
    file = source.get("file") or source.get("npy")
    if file:
        path = root / file
        array = _array(path, name) if path.suffix.lower() in preprocess.ARRAY_SUFFIXES else None
        shape = shape_for(name, declared, given, declared_spec, array)
        if array is not None:
            return Feed(np.ascontiguousarray(array.reshape(shape), dtype=np.float32), file)
        if declared_spec is None:
            raise FeedError(SPEC_REQUIRED, f"{file} is not an array: preprocessing it takes the "
                            f"model's spec (a model.toml beside the model) for input {name!r}", name)
        try:
            value, _frame = preprocess.tensor(declared_spec, shape, path)
        except preprocess.InputFileError as exc:
            raise FeedError(BAD_INPUT, str(exc), name) from None
        return Feed(value, file)
    shape = shape_for(name, declared, given, declared_spec)
    fill = source.get("fill", "random")
    if isinstance(fill, int | float):
        return Feed(np.full(shape, fill, np.float32), f"fill {fill}")
    return Feed(rng.random(shape, dtype=np.float32), "random")
