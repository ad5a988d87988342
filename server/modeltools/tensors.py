"""MNN sessions and tensors from Python: opening, feeding, reading, and the error metrics.

Values are always copied through a *float* host tensor: copying an int8 tensor into a Uint8 host
tensor double-frees inside MNN 3.6.1. Sessions are only freed with their Interpreter, so a
``Loaded`` keeps both together.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import MNN
import numpy as np

from device_bridge import backends
from server.modeltools import mnnfile, shapes
from server.modeltools.errors import ToolFailed

_TF_LAYOUT = MNN.Tensor_DimensionType_Tensorflow
_CAFFE_LAYOUT = MNN.Tensor_DimensionType_Caffe


@dataclass
class Loaded:
    """An Interpreter with one session; ``net`` must outlive ``session``."""

    net: Any
    session: Any
    path: str
    dtypes: dict[str, str] = field(default_factory=dict)

    def inputs(self) -> dict[str, Any]:
        return dict(self.net.getSessionInputAll(self.session))

    def outputs(self) -> dict[str, Any]:
        return dict(self.net.getSessionOutputAll(self.session))


def load(path: str | Path, config: dict[str, Any] | None = None) -> Loaded:
    """Open a .mnn model; an unreadable file raises ``ToolFailed`` with MNN's reason."""
    try:
        net = MNN.Interpreter(str(path))
    except Exception as exc:
        raise ToolFailed(f"{Path(path).name}: MNN cannot load this model ({exc})") from None
    session = net.createSession({"numThread": 1, **(config or {})})
    return Loaded(net, session, str(path), input_dtypes(Path(path)))


def load_on(path: str | Path, runtime: Any, memory: str = "normal",
            extra: dict[str, Any] | None = None) -> Loaded:
    """Open a .mnn model on ``runtime``'s backend, threads, precision and power (a
    ``RuntimeArgs``). MNN runs a backend it lacks on the CPU without failing; that run is refused
    (``backend_unavailable``) rather than reported as the backend asked for."""
    config = backends.session_config(runtime.backend, runtime.threads, runtime.precision,
                                     runtime.power, memory)
    loaded = load(path, {**config, **(extra or {})})
    got = backends.used(loaded.net, loaded.session, runtime.backend)
    if got != runtime.backend:
        why = (backends.platform_reason(runtime.backend)
               or backends.unavailable(runtime.backend, MNN.version()))
        raise ToolFailed(f"backend {runtime.backend} is not available here (MNN ran the session on "
                         f"{got}): {why}", "backend_unavailable")
    return loaded


def runtime_record(runtime: Any) -> dict[str, Any]:
    """What a result records of the runtime it ran with."""
    return {"backend": runtime.backend, "threads": runtime.threads,
            "precision": runtime.precision, "power": runtime.power}


def input_dtypes(path: Path) -> dict[str, str]:
    """Input name → dtype ("float32", "int32", …) from the file's header.

    Read from the file rather than MNN's expression graph, so a benchmarked process holds
    nothing but its session.
    """
    try:
        return {i["name"]: i["dtype"] for i in mnnfile.read_header(path)["inputs"]}
    except ValueError:
        return {}


_HALIDE_DTYPES = (
    (MNN.Halide_Type_Float, "float32"),
    (MNN.Halide_Type_Double, "float64"),
    (MNN.Halide_Type_Int, "int32"),
    (MNN.Halide_Type_Int64, "int64"),
    (MNN.Halide_Type_Uint8, "uint8"),
)


def output_dtypes(loaded: Loaded) -> dict[str, str]:
    """Output name → dtype ("float32", "int32", …) as the session holds them."""
    found = {}
    for name, tensor in loaded.outputs().items():
        kind = tensor.getDataType()
        found[name] = next((dtype for halide, dtype in _HALIDE_DTYPES if halide == kind), "float32")
    return found


def layout_name(tensor: Any) -> str:
    kind = tensor.getDimensionType()
    return {0: "NHWC", 1: "NCHW", 2: "NC4HW4"}.get(kind, str(kind))


def _host_layout(tensor: Any) -> Any:
    return _TF_LAYOUT if tensor.getDimensionType() == _TF_LAYOUT else _CAFFE_LAYOUT


def read(tensor: Any) -> np.ndarray:
    """Copy a session tensor into a new float32 numpy array."""
    shape = tuple(tensor.getShape())
    host = MNN.Tensor(shape, MNN.Halide_Type_Float, np.zeros(shape, np.float32), _host_layout(tensor))
    tensor.copyToHostTensor(host)
    return np.array(host.getNumpyData(), dtype=np.float32, copy=True).reshape(shape)


def write(tensor: Any, value: np.ndarray, dtype: str = "float") -> None:
    if dtype.startswith("int"):
        host = MNN.Tensor(value.shape, MNN.Halide_Type_Int, value.astype(np.int32), _host_layout(tensor))
    else:
        host = MNN.Tensor(value.shape, MNN.Halide_Type_Float, value.astype(np.float32), _host_layout(tensor))
    tensor.copyFrom(host)


def feed(loaded: Loaded, values: dict[str, np.ndarray]) -> None:
    """Resize the inputs to the given arrays' shapes where needed, then copy them in."""
    inputs = loaded.inputs()
    resized = False
    for name, value in values.items():
        if tuple(inputs[name].getShape()) != value.shape:
            loaded.net.resizeTensor(inputs[name], value.shape)
            resized = True
    if resized:
        loaded.net.resizeSession(loaded.session)
        inputs = loaded.inputs()
    for name, value in values.items():
        write(inputs[name], value, loaded.dtypes.get(name, "float32"))


def declared(loaded: Loaded) -> list[shapes.Declared]:
    """The session's inputs as MNN reports them before any resize: -1 for a dynamic dim."""
    return [shapes.from_dims(name, t.getShape()) for name, t in sorted(loaded.inputs().items())]


def run_shapes(
    inputs: list[shapes.Declared], given: shapes.Shapes | None, exempt: tuple[str, ...] = (),
    what: str = "",
) -> shapes.Shapes:
    """``shapes.resolve`` with its refusal as the run's error, code and all; ``what`` names
    the model when it is not the one the run is about (``"the reference: "``)."""
    try:
        return shapes.resolve(inputs, given, exempt)
    except shapes.ShapeError as exc:
        raise ToolFailed(what + exc.detail, exc.code, **exc.where) from None


def accepts(path: str, sizes: shapes.Shapes, what: str) -> None:
    """Refuse (``input_shape_mismatch``) when another model of the run, read from its file,
    fixes a dim of an input it shares to another size: two models compared at different
    shapes are not compared."""
    found = shapes.declared(path)
    if found:
        shared = [spec for spec in found if spec.name in sizes]
        run_shapes(shared, {spec.name: sizes[spec.name] for spec in shared}, what=what)


def random_inputs(loaded: Loaded, seed: int, sizes: shapes.Shapes) -> dict[str, np.ndarray]:
    """Reproducible inputs of the given shapes: floats in [-1, 1), integers in [0, 10)."""
    rng = np.random.default_rng(seed)
    values = {}
    for name in sorted(sizes):
        shape = tuple(sizes[name])
        if loaded.dtypes.get(name, "float32").startswith("int"):
            values[name] = rng.integers(0, 10, shape).astype(np.int32)
        else:
            values[name] = rng.uniform(-1, 1, shape).astype(np.float32)
    return values


def errors(actual: np.ndarray, expected: np.ndarray) -> dict[str, float]:
    """Max / mean absolute error, error relative to the reference's range, and cosine."""
    if actual.size != expected.size:
        raise ToolFailed(f"shape mismatch: {list(actual.shape)} vs {list(expected.shape)}")
    a = actual.astype(np.float64).ravel()
    b = expected.astype(np.float64).ravel()
    diff = np.abs(a - b)
    scale = float(np.max(np.abs(b))) if b.size else 0.0
    norms = float(np.linalg.norm(a) * np.linalg.norm(b))
    if norms > 0:
        cosine = float(np.dot(a, b) / norms)
    else:
        cosine = 1.0 if not diff.any() else 0.0
    max_abs = float(diff.max()) if diff.size else 0.0
    return {
        "max_abs_error": max_abs,
        "mean_abs_error": float(diff.mean()) if diff.size else 0.0,
        "relative_error": max_abs / scale if scale > 0 else max_abs,
        "cosine": cosine,
    }
