"""Model specs on the server: read, draft, check and write a model's ``<file>.model.toml``
(the format is ``device_bridge/runtime/spec.py``'s; docs/model-spec.md).

* ``draft`` builds a spec from what the model file declares (inputs with their dynamic dims,
  outputs by name), for the form to complete; it is marked as a draft, never used as if declared.
* ``check`` holds a spec against its model: every declared input of the model is named, fixed
  dims agree, a dynamic dim left open in ``default_shape`` is refused.
* ``fill_shapes`` gives a run the spec's ``default_shape`` for each dynamic input the request
  leaves out, and names those inputs, so a run's record says where its shapes came from.
* ``carry`` writes an output model's own spec after convert / quantize: the source's spec with
  the shapes the output declares.
"""

from pathlib import Path
from typing import Any

from device_bridge.runtime import spec as model_spec
from device_bridge.runtime.spec import InputSpec, ModelSpec, OutputSpec, SpecError
from server.core.error_codes import ErrorCode
from server.core.errors import Invalid
from server.core.events import EventHub
from server.core.fsutil import atomic_write
from server.files.events import ChangedPath, FilesChanged
from server.files.paths import relative
from server.modeltools import mnnfile
from server.modeltools.shapes import Declared, Shapes, declared

MAX_SPEC_BYTES = 4 << 20


def refuse(exc: SpecError) -> Invalid:
    return Invalid(f"model spec: {exc}", code=ErrorCode.BAD_MODEL_SPEC, where=exc.where)


def load(model: Path) -> ModelSpec | None:
    """The spec beside ``model`` (None without one); a bad one is a 422 ``bad_model_spec``."""
    try:
        path = model_spec.sidecar(model)
        if path.is_file() and path.stat().st_size > MAX_SPEC_BYTES:
            raise SpecError("spec", f"over {MAX_SPEC_BYTES >> 20} MiB")
        return model_spec.load(model)
    except SpecError as exc:
        raise refuse(exc) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise Invalid(f"model spec: cannot be read ({exc})", code=ErrorCode.BAD_MODEL_SPEC) from None


def _output_names(model: Path) -> list[tuple[str, list[int]]]:
    suffix = model.suffix.lower()
    try:
        if suffix == ".mnn":
            return [(o["name"], []) for o in mnnfile.read_header(model)["outputs"]]
        if suffix == ".onnx":
            import onnx

            graph = onnx.load(str(model), load_external_data=False).graph
            return [(o.name, [d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else -1
                              for d in o.type.tensor_type.shape.dim]) for o in graph.output]
    except Exception:  # the tools report an unreadable model with its reason
        return []
    return []


def _dims(spec: Declared) -> list[int]:
    return [d if d is not None else -1 for d in spec.dims]


def _image_like(dims: list[int]) -> str | None:
    """The layout of a 4-D input with 1 or 3 channels at one end, else None."""
    if len(dims) != 4:
        return None
    if dims[1] in (1, 3):
        return "NCHW"
    if dims[3] in (1, 3):
        return "NHWC"
    return None


def draft(model: Path) -> ModelSpec:
    """A spec for the form from the file's declarations: names and shapes are the model's;
    kinds are suggested (a 4-D input with 1 or 3 channels as an image), to be confirmed."""
    inputs = []
    for found in declared(model) or []:
        dims = _dims(found)
        layout = _image_like(dims)
        entry = InputSpec(name=found.name, shape=dims, layout=layout or "")
        if layout:
            entry.kind = "image"
            channels = dims[1] if layout == "NCHW" else dims[3]
            entry.color = "GRAY" if channels == 1 else "RGB"
            entry.scale = 1 / 255
        inputs.append(entry)
    outputs = [OutputSpec(name=name, shape=shape) for name, shape in _output_names(model)]
    return ModelSpec(inputs, outputs)


def check(model: Path, spec: ModelSpec) -> None:
    """Refuse a spec that does not fit ``model`` (422 ``bad_model_spec`` naming the field)."""
    found = declared(model)
    if found is None:
        return
    by_name = {entry.name: entry for entry in found}
    for index, entry in enumerate(spec.inputs):
        where = f"inputs[{index}]"
        if entry.name not in by_name:
            raise refuse(SpecError(f"{where}.name", f"the model has no input {entry.name!r}; "
                                   f"its inputs are {sorted(by_name)}"))
        dims = _dims(by_name[entry.name])
        if entry.shape and len(entry.shape) != len(dims):
            raise refuse(SpecError(f"{where}.shape", f"{len(entry.shape)} dims; the model declares {dims}"))
        for dim, (mine, theirs) in enumerate(zip(entry.shape, dims, strict=False)):
            if theirs > 0 and mine != theirs:
                raise refuse(SpecError(f"{where}.shape[{dim}]", f"{mine}; the model fixes it at {theirs}"))
        if not entry.shape:
            entry.shape = dims
    missing = sorted(set(by_name) - {entry.name for entry in spec.inputs})
    if missing:
        raise refuse(SpecError("inputs", f"input {missing[0]!r} of the model is not declared"))
    outputs = {name for name, _ in _output_names(model)}
    for index, out in enumerate(spec.outputs):
        if outputs and out.name not in outputs:
            raise refuse(SpecError(f"outputs[{index}].name", f"the model has no output {out.name!r}; "
                                   f"its outputs are {sorted(outputs)}"))


def write(model: Path, spec: ModelSpec) -> Path:
    path = model_spec.sidecar(model)
    atomic_write(path, [model_spec.dumps(spec).encode()])
    return path


def save(hub: EventHub, project_id: str, root: str, model: Path, data: Any,
         client: str | None) -> Path:
    """Checks the spec ``data`` against ``model``, writes its sidecar and tells the project's
    tabs (``files``/``changed``, with the ``client`` that wrote it)."""
    spec = parse_body(data)
    check(model, spec)
    existed = model_spec.sidecar(model).exists()
    written = write(model, spec)
    change: ChangedPath = {"kind": "modified" if existed else "added", "path": relative(root, written)}
    hub.emit(project_id, FilesChanged(changes=[change], client=client))
    return written


def parse_body(data: Any) -> ModelSpec:
    try:
        return model_spec.from_dict(data)
    except SpecError as exc:
        raise refuse(exc) from None


def fill_shapes(model: Path, given: Shapes | None) -> tuple[Shapes | None, list[str]]:
    """``given`` plus the spec's default shape of every dynamic input it leaves out, and the
    names of the inputs so filled. Without a spec, ``given`` as it is."""
    spec = load(model)
    found = declared(model)
    if spec is None or found is None:
        return given, []
    filled = dict(given or {})
    taken = []
    for entry in found:
        if entry.dynamic and entry.name not in filled:
            own = spec.input(entry.name)
            shape = own.run_shape() if own else None
            if shape is not None:
                filled[entry.name] = shape
                taken.append(entry.name)
    return (filled or None), taken


def carry(source: Path, output: Path) -> Path | None:
    """Give ``output`` (made from ``source`` by convert or quantize) its own spec: the source's,
    with each input's shape as the output declares it. Nothing when the source has no spec or
    the output already has one (a spec the user wrote is never replaced)."""
    try:
        spec = model_spec.load(source)
    except (SpecError, OSError, UnicodeDecodeError):
        return None
    if spec is None or model_spec.sidecar(output).exists():
        return None
    shapes = {entry.name: _dims(entry) for entry in declared(output) or []}
    for entry in spec.inputs:
        if entry.name in shapes and len(shapes[entry.name]) == len(entry.shape):
            entry.shape = shapes[entry.name]
            if not entry.dynamic:
                entry.default_shape = None
    return write(output, spec)


def public(model: Path, spec: ModelSpec | None) -> dict[str, Any]:
    """What ``GET …/model-spec`` answers: the spec (or a draft), and what the file declares."""
    return {
        "exists": spec is not None,
        "spec": (spec or draft(model)).to_dict(),
        "declared_inputs": [{"name": d.name, "shape": _dims(d), "labels": list(d.labels)}
                            for d in declared(model) or []],
        "declared_outputs": [{"name": name, "shape": shape} for name, shape in _output_names(model)],
    }


def quantizer_preprocessing(model: Path, set_fields: set[str]) -> dict[str, Any]:
    """MNN's quantizer's image settings from the spec of ``model``'s first image input, for the
    fields the request did not set: ``format`` (the colour order), and ``mean``/``normal``, which
    MNN applies as ``(pixel - mean) * normal`` — the spec's ``(pixel * scale - mean) / std`` is
    ``mean / scale`` and ``scale / std``. Empty without a spec or an image input."""
    spec = load(model)
    image = next((i for i in spec.inputs if i.kind == "image"), None) if spec else None
    if image is None:
        return {}
    channels = 1 if image.color == "GRAY" else 3
    means = image.mean or [0.0]
    stds = image.std or [1.0]
    means = means * channels if len(means) == 1 else means
    stds = stds * channels if len(stds) == 1 else stds
    found: dict[str, Any] = {
        "format": image.color,
        "mean": [round(m / image.scale, 6) for m in means],
        "normal": [round(image.scale / s, 8) for s in stds],
    }
    return {key: value for key, value in found.items() if key not in set_fields}
