"""Describe a model: I/O, op histogram, parameters, MFLOPs, memory, version, uuid, bizCode.

.mnn files are read from their FlatBuffer (ops, weights counted) plus one MNN session (shapes,
MFLOPs, memory); .onnx with the onnx package (MACs of Conv / Gemm / MatMul
from shape inference, reported in millions like MNN's own figure); TFLite, TF and Caffe models
through a temporary conversion to .mnn, so no TensorFlow is needed.
"""

import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from server.modeltools import mnnfile
from server.modeltools.errors import ToolFailed
from server.modeltools.formats import framework_of
from server.modeltools.inspect_onnx import inspect_onnx
from server.modeltools.schemas import ConvertArgs, InspectArgs


def _histogram(types: list[str]) -> list[dict[str, Any]]:
    return [{"type": t, "count": n} for t, n in Counter(types).most_common()]


def read_model(path: Path) -> dict[str, Any]:
    """The file's header and op table; a damaged file is the run's failure, with the reason."""
    try:
        return mnnfile.read_model(path)
    except ValueError as exc:
        raise ToolFailed(str(exc)) from None


def _io(dtypes: dict[str, str], tensors_by_name: dict[str, Any]) -> list[dict[str, Any]]:
    from server.modeltools import tensors

    return [
        {
            "name": name,
            "shape": list(t.getShape()),
            "dtype": dtypes.get(name, "float32"),
            "layout": tensors.layout_name(t),
        }
        for name, t in tensors_by_name.items()
    ]


def inspect_mnn(path: Path) -> dict[str, Any]:
    """One MNN load for what only a session knows (shapes, MFLOPs, memory); the op table, weight
    counts, bizCode and uuid come from the file itself, so weights are never copied out."""
    from server.modeltools import tensors

    loaded = tensors.load(path)  # MNN's own verdict on a damaged file comes first
    model = read_model(path)
    ops = model["ops"]
    return {
        "format": "mnn",
        "file_size": path.stat().st_size,
        "inputs": _io(loaded.dtypes, loaded.inputs()),
        "outputs": _io(tensors.output_dtypes(loaded), loaded.outputs()),
        "op_histogram": _histogram([op["type"] for op in ops]),
        "op_count": len(ops),
        "params": sum(op["params"] for op in ops),
        "mflops": float(loaded.net.getSessionInfo(loaded.session, 1)),
        "memory_mb": float(loaded.net.getSessionInfo(loaded.session, 0)),
        "version": loaded.net.getModelVersion(),
        "uuid": model["uuid"],
        "biz_code": model["biz_code"],
        "source_format": model["source_format"],
    }


def _inspect_by_conversion(path: Path, framework: str) -> dict[str, Any]:
    from server.modeltools import convert

    with tempfile.TemporaryDirectory(prefix=".inspect-", dir=".") as tmp:
        out = Path(tmp) / "model.mnn"
        convert.run(
            ConvertArgs.model_validate({"model": str(path), "output": str(out), "framework": framework})
        )
        info = inspect_mnn(out)
    return {
        **info,
        "format": framework.lower(),
        "file_size": path.stat().st_size,
        "uuid": None,
        "biz_code": None,
        "converted_for_inspection": True,
    }


def run(args: InspectArgs) -> dict[str, Any]:
    path = Path(args.model)
    framework = framework_of(path)
    if framework == "MNN":
        return inspect_mnn(path)
    if framework == "ONNX":
        return inspect_onnx(path)
    if framework in ("TFLITE", "TF", "CAFFE"):
        return _inspect_by_conversion(path, framework)
    raise ToolFailed(f"{path.name}: cannot inspect {framework} models")
