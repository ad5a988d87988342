"""Describe a model: I/O, op histogram, parameters, MFLOPs, memory, version, uuid, bizCode.

.mnn files are read with MNN itself; .onnx with the onnx package (MACs of Conv / Gemm / MatMul
from shape inference, reported in millions like MNN's own figure); TFLite, TF and Caffe models
through a temporary conversion to .mnn, so no TensorFlow is needed.
"""

import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from server.modeltools import mnnfile, native
from server.modeltools.errors import ToolFailed
from server.modeltools.formats import framework_of
from server.modeltools.inspect_onnx import inspect_onnx
from server.modeltools.schemas import ConvertArgs, InspectArgs

JSON_DUMP_LIMIT = 256 * 1024 * 1024


def _histogram(types: list[str]) -> list[dict[str, Any]]:
    return [{"type": t, "count": n} for t, n in Counter(types).most_common()]


def _conv_weights(main: dict[str, Any]) -> int:
    if "weight" in main:
        return len(main["weight"])
    quant = main.get("quanParameter") or {}
    if quant.get("weightSize"):
        return int(quant["weightSize"])
    common = main.get("common", {})
    group = max(1, common.get("group", 1))
    return (
        common.get("outputCount", 0)
        * common.get("inputCount", 0)
        // group
        * common.get("kernelX", 1)
        * common.get("kernelY", 1)
    )


def _op_params(op: dict[str, Any]) -> int:
    main = op.get("main")
    if not isinstance(main, dict):
        return 0
    if op.get("type", "").startswith(("Convolution", "Deconvolution")):
        return _conv_weights(main) + len(main.get("bias", []))
    if op.get("type") == "Const":
        return len(main.get("float32s", []))
    return sum(len(main.get(k, [])) for k in ("gamma", "beta", "slopeData", "biasData", "scaleData"))


def _json_dump(path: Path) -> dict[str, Any] | None:
    """The model as JSON (``-f MNN --JsonFile``): op list, bizCode and weights."""
    if path.stat().st_size > JSON_DUMP_LIMIT:
        return None
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        out = Path(tmp) / "model.json"
        native.convert(["-f", "MNN", "--modelFile", str(path), "--JsonFile", str(out)])
        if not out.is_file():
            return None
        with out.open("rb") as handle:
            return json.load(handle)


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
    import MNN

    from server.modeltools import tensors

    loaded = tensors.load(path)
    dtypes = {**tensors.graph_dtypes(path), **loaded.dtypes}
    dump = _json_dump(path)
    ops = dump["oplists"] if dump else []
    return {
        "format": "mnn",
        "file_size": path.stat().st_size,
        "inputs": _io(dtypes, loaded.inputs()),
        "outputs": _io(dtypes, loaded.outputs()),
        "op_histogram": _histogram([op.get("type", "?") for op in ops]),
        "op_count": len(ops),
        "params": sum(_op_params(op) for op in ops) if dump else None,
        "mflops": float(loaded.net.getSessionInfo(loaded.session, 1)),
        "memory_mb": float(loaded.net.getSessionInfo(loaded.session, 0)),
        "version": loaded.net.getModelVersion(),
        "uuid": MNN.get_model_uuid(str(path)),
        "biz_code": mnnfile.read_header(path)["biz_code"],
        "source_format": (dump or {}).get("sourceType"),
    }


def _inspect_by_conversion(path: Path, framework: str) -> dict[str, Any]:
    from server.modeltools import convert

    with tempfile.TemporaryDirectory(dir=".") as tmp:
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
