"""Input shapes: what a model file declares (with its dynamic dims) and the shapes a run uses.

A dim is dynamic when the file leaves it open. ONNX marks it with ``dim_param`` (a symbolic
name such as ``height``) or by leaving ``dim_value`` unset; MNN stores it as ``-1`` (any value
≤ 0), which is also what ``getShape()`` of an input reports before a resize. Conversion to MNN
keeps the ``-1`` and drops the symbolic name.

A dynamic dim is never guessed: the request's ``input_shapes`` must give it, or the run is
refused with ``input_shape_required`` naming the input and the dim. A given shape that
contradicts a fixed dim is refused with ``input_shape_mismatch``. Both checks are cheap (the
file's header or ONNX graph, no weights), so the server makes them before a worker starts, and
the worker makes them again on the session it loaded.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server.core.error_codes import ErrorCode
from server.modeltools import mnnfile

Shapes = dict[str, list[int]]
REQUIRED = ErrorCode.INPUT_SHAPE_REQUIRED
MISMATCH = ErrorCode.INPUT_SHAPE_MISMATCH


@dataclass(frozen=True)
class Declared:
    """One input as the file declares it: ``None`` for a dynamic dim, with its symbolic name
    in ``labels`` where the source has one."""

    name: str
    dims: tuple[int | None, ...]
    labels: tuple[str | None, ...] = ()

    def label(self, index: int) -> str | None:
        return self.labels[index] if index < len(self.labels) else None

    @property
    def dynamic(self) -> bool:
        return any(d is None for d in self.dims)


class ShapeError(Exception):
    """An input shape is missing or contradicts the model; ``where`` names input and dim."""

    def __init__(self, code: str, detail: str, **where: Any) -> None:
        super().__init__(detail)
        self.code, self.detail, self.where = code, detail, where


def from_dims(name: str, dims: Iterable[int], labels: Iterable[str | None] = ()) -> Declared:
    """An input from integer dims where ≤ 0 means dynamic (MNN's header and ``getShape()``)."""
    return Declared(name, tuple(d if d > 0 else None for d in dims), tuple(labels))


def _onnx_inputs(path: Path) -> list[Declared]:
    import onnx

    graph = onnx.load(str(path), load_external_data=False).graph
    weights = {w.name for w in graph.initializer}
    found = []
    for value in graph.input:
        if value.name in weights:
            continue
        dims = value.type.tensor_type.shape.dim
        found.append(Declared(
            value.name,
            tuple(d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else None for d in dims),
            tuple(d.dim_param or None for d in dims),
        ))
    return found


def declared(path: str | Path) -> list[Declared] | None:
    """The inputs of a ``.onnx`` or ``.mnn`` file without loading weights; None when the file's
    kind or content does not tell (the worker then reads them from its session)."""
    path = Path(path)
    suffix = path.suffix.lower()
    try:
        if suffix == ".onnx":
            return _onnx_inputs(path)
        if suffix == ".mnn":
            return [from_dims(i["name"], i["shape"]) for i in mnnfile.read_header(path)["inputs"]]
    except Exception:  # an unreadable file is reported by the tool that opens it, with its reason
        return None
    return None


def _dim_name(spec: Declared, index: int) -> str:
    label = spec.label(index)
    return f"dim {index}" + (f" ({label!r})" if label else "")


def _required(spec: Declared, index: int) -> ShapeError:
    shown = [str(d) if d is not None else "?" for d in spec.dims]
    example = [str(d) if d is not None else (spec.label(i) or "N") for i, d in enumerate(spec.dims)]
    return ShapeError(
        REQUIRED,
        f"input {spec.name!r} has a dynamic {_dim_name(spec, index)} (declared "
        f"[{', '.join(shown)}]): give its shape in input_shapes, e.g. "
        f"{{{spec.name!r}: [{', '.join(example)}]}}",
        input=spec.name, dim=index, dim_name=spec.label(index),
    )


def _check_one(spec: Declared, given: list[int] | None) -> list[int]:
    if given is None:
        if spec.dynamic:
            raise _required(spec, spec.dims.index(None))
        return [int(d) for d in spec.dims if d is not None]
    if len(given) > len(spec.dims):
        raise ShapeError(MISMATCH, f"input {spec.name!r} has {len(spec.dims)} dims, "
                         f"input_shapes gives {len(given)}", input=spec.name, dim=len(spec.dims))
    for index, fixed in enumerate(spec.dims):
        if index >= len(given):  # incomplete: name the first dynamic dim left out
            left_out = [i for i in range(index, len(spec.dims)) if spec.dims[i] is None]
            raise _required(spec, left_out[0] if left_out else index)
        if fixed is not None and given[index] != fixed:
            raise ShapeError(
                MISMATCH,
                f"input {spec.name!r} has a fixed {_dim_name(spec, index)} of {fixed}; "
                f"input_shapes gives {given[index]}",
                input=spec.name, dim=index, dim_name=spec.label(index),
            )
    return list(given)


def resolve(inputs: list[Declared], given: Shapes | None, exempt: Iterable[str] = ()) -> Shapes:
    """Every input's shape for a run: its fixed dims plus the given ones for its dynamic dims.

    ``exempt`` inputs (fed from a file, which has a shape of its own) are left out. Raises
    ``ShapeError`` for a dynamic dim not given, a given shape that contradicts a fixed dim, or
    a shape given for an input the model does not have.
    """
    given = given or {}
    names = {spec.name for spec in inputs}
    unknown = sorted(set(given) - names)
    if unknown:
        raise ShapeError(MISMATCH, f"input_shapes names {unknown[0]!r}, which the model does not "
                         f"have; its inputs are {sorted(names)}", input=unknown[0])
    skipped = set(exempt)
    return {s.name: _check_one(s, given.get(s.name)) for s in inputs if s.name not in skipped}


def with_labels(inputs: list[Declared], labelled: list[Declared] | None) -> list[Declared]:
    """``inputs`` with the symbolic dim names of the same inputs in ``labelled`` (an ONNX source
    of a converted model), so an error can say ``dim 2 ('height')`` instead of ``dim 2``."""
    names = {spec.name: spec for spec in labelled or []}
    return [
        Declared(spec.name, spec.dims, names[spec.name].labels)
        if spec.name in names and len(names[spec.name].dims) == len(spec.dims) else spec
        for spec in inputs
    ]
